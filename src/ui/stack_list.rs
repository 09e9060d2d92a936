//! The stack list: the selected log's stacks and frames in a windowed list (only the rows in
//! view are laid out, so a million frames scroll as smoothly as ten), runs of library frames
//! folded, inline chains as rows of their own, and the native coverage report above it.

use super::theme;
use super::widgets::{file_name, list_row, place};
use crate::app::{AppState, Command, Commands, Row, StackRows, hidden_reason};
use crate::engine::{FrameTable, report};
use crate::model::FrameStatus;
use egui::RichText;

/// The selected log's frames: windowed (only visible rows are laid out).
pub(super) fn stack_list_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    rows: Option<&StackRows>,
    commands: &mut Commands,
) {
    let Some((_, table)) = state.selected_table() else {
        ui.centered_and_justified(|ui| {
            ui.label(
                RichText::new("Drop a crash log and its symbol files anywhere in this window.")
                    .weak(),
            );
        });
        return;
    };
    let Some(rows) = rows else { return };
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("{} format", table.format())).weak());
        if !table.is_symbolicated() {
            ui.spinner();
            ui.label("symbolicating…");
        }
        if rows.hidden > 0 {
            ui.label(RichText::new(format!("{} frames hidden by the filter", rows.hidden)).weak());
        }
        if table.is_symbolicated() && ui.small_button("Copy symbolicated trace").clicked() {
            ui.ctx().copy_text(report::text(&table, &[]));
        }
    });
    modules_ui(ui, table.modules());
    ui.separator();
    let selection = &state.workspace.selection;
    let raw = state.workspace.layout.raw_frames;
    egui::ScrollArea::both()
        .auto_shrink([false, false])
        .show_rows(ui, theme::ROW_HEIGHT, rows.len(), |ui, range| {
            for row in rows.rows(range) {
                match row {
                    Row::Stack { stack } => {
                        let title = if raw {
                            table.stack_raw_title(stack)
                        } else {
                            table.stack_title(stack)
                        };
                        let title = if title.is_empty() {
                            "(no error line)"
                        } else {
                            // The exception line itself: the last header line (logcat puts
                            // `FATAL EXCEPTION` and `Process:` lines before it).
                            title
                                .lines()
                                .rev()
                                .find(|l| crate::formats::java::parse_throwable(l).is_some())
                                .or_else(|| title.lines().next())
                                .unwrap_or("")
                        };
                        let folded = state.view.folds.collapsed.contains(&stack);
                        let arrow = if folded { "▶" } else { "▼" };
                        let more = if folded {
                            format!("  ({} frames)", table.stack_len(stack))
                        } else {
                            String::new()
                        };
                        let text = RichText::new(format!("{arrow} {title}{more}"))
                            .strong()
                            .color(theme::STACK_HEADER);
                        let response = list_row(ui, text, false, true);
                        if response.clicked() {
                            commands.send(Command::ToggleStack(stack));
                        }
                        response.on_hover_text(if folded {
                            "show this exception's frames"
                        } else {
                            "fold this exception to its header"
                        });
                    }
                    Row::Frame { stack, frame } => {
                        let selected = selection.stack == stack && selection.frame == Some(frame);
                        let text = frame_text(&table, stack, frame, raw);
                        if list_row(ui, text, selected, true).clicked() {
                            commands.send(Command::SelectFrame { stack, frame });
                        }
                    }
                    Row::Inline {
                        stack,
                        frame,
                        depth,
                    } => {
                        let selected = selection.stack == stack && selection.frame == Some(frame);
                        let text = inline_text(&table, stack, frame, depth);
                        if list_row(ui, text, selected, true).clicked() {
                            commands.send(Command::SelectFrame { stack, frame });
                        }
                    }
                    Row::Library {
                        stack,
                        first,
                        count,
                        expanded,
                    } => {
                        let (arrow, verb) = if expanded {
                            ("▼", "hide")
                        } else {
                            ("▶", "show")
                        };
                        let text =
                            RichText::new(format!("    {arrow} {count} library frames ({verb})"))
                                .color(theme::MUTED)
                                .italics();
                        if list_row(ui, text, false, true).clicked() {
                            commands.send(Command::ToggleGroup { stack, first });
                        }
                    }
                    Row::Hidden {
                        stack,
                        first,
                        count,
                        expanded,
                    } => {
                        let (arrow, verb) = if expanded {
                            ("▼", "hide")
                        } else {
                            ("▶", "show")
                        };
                        let frames = if count == 1 { "frame" } else { "frames" };
                        let why = hidden_reason(&table, stack, first, count);
                        let text =
                            RichText::new(format!("    {arrow} {count} {frames} {why} ({verb})"))
                                .color(theme::MUTED)
                                .italics();
                        let response = list_row(ui, text, false, true).on_hover_text(
                            "Retrace leaves these frames out: the compiler added them",
                        );
                        if response.clicked() {
                            commands.send(Command::ToggleGroup { stack, first });
                        }
                    }
                    Row::Candidates {
                        stack,
                        frame,
                        count,
                        expanded,
                    } => {
                        let (arrow, verb) = if expanded {
                            ("▼", "hide")
                        } else {
                            ("▶", "show")
                        };
                        let text = RichText::new(format!(
                            "        {arrow} {count} candidates: the symbol file cannot tell which ran ({verb} the other {})",
                            count - 1
                        ))
                        .color(theme::MUTED)
                        .italics();
                        if list_row(ui, text, false, true).clicked() {
                            commands.send(Command::ToggleCandidates { stack, frame });
                        }
                    }
                    Row::Candidate {
                        stack,
                        frame,
                        candidate,
                        depth,
                    } => {
                        let selected = selection.stack == stack && selection.frame == Some(frame);
                        let text = candidate_text(&table, stack, frame, candidate, depth);
                        if list_row(ui, text, selected, true).clicked() {
                            commands.send(Command::SelectFrame { stack, frame });
                        }
                    }
                }
            }
        });
    // Keyboard navigation among the visible frames.
    if !ui.ctx().text_edit_focused() {
        let (down, up) = ui.input(|i| {
            (
                i.key_pressed(egui::Key::ArrowDown),
                i.key_pressed(egui::Key::ArrowUp),
            )
        });
        if down || up {
            let current = selection.frame.map(|f| (selection.stack, f));
            if let Some((stack, frame)) = rows.step(current, down)
                && Some((stack, frame)) != current
            {
                commands.send(Command::SelectFrame { stack, frame });
            }
        }
    }
}

/// The symbol-coverage report of a native log: each module its frames are in, with its ID
/// and the debug file found, or what is missing.
fn modules_ui(ui: &mut egui::Ui, modules: &[crate::model::ModuleCoverage]) {
    use crate::model::Coverage;
    if modules.is_empty() {
        return;
    }
    let missing = modules
        .iter()
        .filter(|m| m.status != Coverage::Found)
        .count();
    let header = format!(
        "Modules: {} with symbols, {missing} without",
        modules.len() - missing
    );
    egui::CollapsingHeader::new(header)
        .id_salt("modules")
        .default_open(missing > 0 && modules.len() <= 8)
        .show(ui, |ui| {
            egui::Grid::new("module-coverage")
                .striped(true)
                .show(ui, |ui| {
                    for m in modules {
                        let (mark, color) = match m.status {
                            Coverage::Found => ("found", theme::COVERAGE_FOUND),
                            Coverage::Missing => ("missing", theme::COVERAGE_MISSING),
                            Coverage::Mismatch => ("other build", theme::COVERAGE_MISMATCH),
                        };
                        ui.label(RichText::new(mark).color(color));
                        ui.label(&m.name);
                        ui.label(
                            RichText::new(m.id.as_deref().unwrap_or("no ID"))
                                .monospace()
                                .weak(),
                        );
                        ui.label(format!("{}/{} frames resolved", m.resolved, m.frames));
                        ui.label(match (m.status, &m.symbol_file) {
                            (Coverage::Found, Some(f)) => file_name(std::path::Path::new(f)),
                            (Coverage::Mismatch, Some(f)) => format!(
                                "{} is another build: add this build's debug file",
                                file_name(std::path::Path::new(f))
                            ),
                            _ => {
                                "missing: add its debug file (.debug, dSYM, PDB or .sym)".to_owned()
                            }
                        });
                        ui.end_row();
                    }
                });
        });
}

/// One frame's row: index, function, location and status.
fn frame_text(table: &FrameTable, stack: usize, frame: usize, raw: bool) -> RichText {
    let Some(f) = table.frame(stack, frame) else {
        return RichText::new("");
    };
    let status = f.status();
    let text = match (raw, f.location()) {
        (false, Some(loc)) => {
            let function = loc.function.unwrap_or("<unknown>");
            let place = place(loc.file, loc.line, loc.column);
            let library = if loc.ignored { "  [library]" } else { "" };
            // The rest of an inline chain follows as rows of their own ("inlined into"), and
            // an ambiguous frame's other candidates below its expander row.
            format!("{frame:>3}  {function}  {place}{library}")
        }
        _ => format!("{frame:>3}  {}", without_index(f.raw().trim(), frame)),
    };
    // Platform and library frames no symbol file covers are expected, not errors: grey.
    let expected = f.is_library() && status != Some(FrameStatus::Resolved);
    let color = if expected {
        theme::MUTED
    } else {
        status.map_or(theme::MUTED, theme::status_color)
    };
    let mark = match status {
        _ if expected => "·",
        Some(FrameStatus::Resolved) => "●",
        Some(FrameStatus::NoSymbols) => "○",
        Some(FrameStatus::NotCovered) => "×",
        Some(_) => "·",
        None => " ",
    };
    RichText::new(format!("{mark} {text}")).monospace().color(
        if status == Some(FrameStatus::Resolved) {
            theme::TEXT
        } else {
            color
        },
    )
}

/// A native log's line without the frame number it starts with (`1   crash  0x…`, `#01 pc …`)
/// when that is the frame's own index, which the row already shows.
fn without_index(line: &str, frame: usize) -> &str {
    let digits = line.strip_prefix('#').unwrap_or(line);
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    match (digits[..end].parse::<usize>(), digits[end..].chars().next()) {
        (Ok(n), Some(c)) if n == frame && c.is_whitespace() => digits[end..].trim_start(),
        _ => line,
    }
}

/// A row below a frame for entry `depth` of its inline chain: the function the entry before
/// it was inlined into, and the line of that call.
fn inline_text(table: &FrameTable, stack: usize, frame: usize, depth: usize) -> RichText {
    let Some(loc) = table
        .frame(stack, frame)
        .and_then(|f| f.locations().nth(depth))
    else {
        return RichText::new("");
    };
    let function = loc.function.unwrap_or("<unknown>");
    let place = place(loc.file, loc.line, loc.column);
    // Under the frame's function, past its index and status mark.
    RichText::new(format!("        inlined into {function}  {place}"))
        .monospace()
        .color(theme::TEXT)
}

/// A row of another candidate chain of an ambiguous frame: "or" before its innermost entry,
/// "inlined into" before the rest, as the frame's own chain reads.
fn candidate_text(
    table: &FrameTable,
    stack: usize,
    frame: usize,
    candidate: usize,
    depth: usize,
) -> RichText {
    let Some(loc) = table
        .frame(stack, frame)
        .and_then(|f| f.alternatives().into_iter().nth(candidate))
        .and_then(|chain| chain.into_iter().nth(depth))
    else {
        return RichText::new("");
    };
    let function = loc.function.unwrap_or("<unknown>");
    let place = place(loc.file, loc.line, loc.column);
    let lead = if depth == 0 {
        "  or"
    } else {
        "      inlined into"
    };
    RichText::new(format!("        {lead} {function}  {place}"))
        .monospace()
        .color(theme::TEXT)
}

#[cfg(test)]
mod tests {
    #[test]
    fn native_rows_do_not_repeat_the_frame_number() {
        use super::without_index;
        assert_eq!(
            without_index("1   crash  0x0000000109ba8c70", 1),
            "crash  0x0000000109ba8c70"
        );
        assert_eq!(
            without_index("#01 pc 0004c1a4  /system/lib64/libc.so", 1),
            "pc 0004c1a4  /system/lib64/libc.so"
        );
        assert_eq!(
            without_index("2   crash", 1),
            "2   crash",
            "another number stays"
        );
        assert_eq!(without_index("0x1234", 0), "0x1234");
        assert_eq!(
            without_index("1000", 1000),
            "1000",
            "an address alone stays"
        );
        assert_eq!(without_index("... 1 more", 1), "... 1 more");
    }
}
