//! The stack list: the selected log's stacks and frames in a windowed list (only the rows in
//! view are laid out, so a million frames scroll as smoothly as ten), runs of library frames
//! folded, inline chains as rows of their own, and the native coverage report above it.

use super::theme;
use super::widgets::{file_name, list_row, place};
use crate::app::{AppState, Commands, ComparePick, GroupKind, Row, StackRows, hidden_reason};
use crate::app::{InspectorCommand, StackCommand};
use crate::engine::FrameTable;
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
        if table.is_symbolicated()
            && ui
                .small_button("Copy symbolicated trace")
                .on_hover_text("Ctrl+Shift+C: the text `symscope symbolicate` prints")
                .clicked()
        {
            commands.send(StackCommand::CopyTrace);
        }
    });
    modules_ui(ui, table.modules());
    ui.horizontal(|ui| {
        for (mark, color) in [
            ("● resolved", theme::RESOLVED),
            ("○ no symbol file", theme::WARNING),
            ("× not in the symbol file", theme::ERROR),
            ("· not looked up (built-in, library)", theme::MUTED),
        ] {
            ui.label(RichText::new(mark).small().monospace().color(color));
        }
    });
    ui.separator();
    let selection = &state.workspace.selection;
    let raw = state.workspace.layout.raw_frames;
    // A keyboard move brings its row into view (the middle of the list when it was out).
    let row_step = theme::ROW_HEIGHT + ui.spacing().item_spacing.y;
    let mut scroll = egui::ScrollArea::both().auto_shrink([false, false]);
    let request: Option<usize> = ui.ctx().data_mut(|d| d.remove_temp(scroll_request_id()));
    let id = ui.make_persistent_id("stack-list");
    scroll = scroll.id_salt(id);
    if let Some(row) = request {
        let height = ui.available_height();
        let top = row as f32 * row_step;
        let shown = ui.ctx().data(|d| d.get_temp::<f32>(id.with("offset")));
        let offset = shown.unwrap_or(0.0);
        if top < offset || top + row_step > offset + height {
            scroll = scroll.vertical_scroll_offset((top - height / 2.0).max(0.0));
        }
    }
    let output = scroll.show_rows(ui, theme::ROW_HEIGHT, rows.len(), |ui, range| {
            for row in rows.rows(range) {
                match row {
                    Row::Stack { stack } => {
                        let title = if raw {
                            table.stack_raw_title(stack)
                        } else {
                            table.stack_title(stack)
                        };
                        let title = if title.is_empty() {
                            "(no error line)".to_owned()
                        } else {
                            crate::engine::signature::headline(title)
                        };
                        let folded = state.view.stack.folds.collapsed.contains(&stack);
                        let arrow = if folded { "▶" } else { "▼" };
                        let mut more = if folded {
                            format!("  ({} frames)", table.stack_len(stack))
                        } else {
                            String::new()
                        };
                        if let Some(note) = state.note(stack, None) {
                            more.push_str(&format!(
                                "  [note] {}",
                                note.lines().next().unwrap_or("")
                            ));
                        }
                        // Picked for a comparison.
                        let log = state.selected_log().map(|e| e.path.as_path());
                        let (a, b) = &state.view.buckets.compare_pick;
                        for (side, pick) in [("A", a), ("B", b)] {
                            if pick.as_ref().is_some_and(|p| {
                                Some(p.log.as_path()) == log && p.stack == Some(stack)
                            }) {
                                more.push_str(&format!("  [compare {side}]"));
                            }
                        }
                        let text = RichText::new(format!("{arrow} {title}{more}"))
                            .strong()
                            .color(theme::STACK_HEADER);
                        let response = list_row(ui, text, false, true);
                        if response.clicked() {
                            commands.send(StackCommand::ToggleStack(stack));
                        }
                        if let Some(log) = state.selected_log() {
                            let pick = ComparePick {
                                log: log.path.clone(),
                                stack: Some(stack),
                            };
                            response.context_menu(|ui| {
                                super::buckets::compare_menu(ui, state, &pick, "this stack", commands);
                            });
                        }
                        response.on_hover_text(if folded {
                            "show this exception's frames"
                        } else {
                            "fold this exception to its header"
                        });
                    }
                    Row::Frame { stack, frame } => {
                        let selected = selection.stack == stack && selection.frame == Some(frame);
                        let mut text = frame_text(&table, stack, frame, raw);
                        if let Some(note) = state.note(stack, Some(frame)) {
                            text = RichText::new(format!(
                                "{}  [note] {}",
                                text.text(),
                                note.lines().next().unwrap_or("")
                            ))
                            .monospace()
                            .color(theme::NOTE);
                        }
                        let response = list_row(ui, text, selected, true)
                            .on_hover_text(RichText::new(frame_tooltip(&table, stack, frame)).monospace());
                        if response.clicked() {
                            commands.send(StackCommand::SelectFrame { stack, frame });
                        }
                        frame_menu(&response, state, &table, stack, frame, commands);
                    }
                    Row::Inline {
                        stack,
                        frame,
                        depth,
                    } => {
                        let selected = selection.stack == stack && selection.frame == Some(frame);
                        let text = inline_text(&table, stack, frame, depth);
                        let response = list_row(ui, text, selected, true);
                        if response.clicked() {
                            commands.send(StackCommand::SelectFrame { stack, frame });
                        }
                        frame_menu(&response, state, &table, stack, frame, commands);
                    }
                    Row::Group {
                        kind,
                        stack,
                        first,
                        count,
                        expanded,
                    } => {
                        let (arrow, verb) = fold_marks(expanded);
                        let frames = if count == 1 { "frame" } else { "frames" };
                        let (what, hover) = match kind {
                            GroupKind::Library => (
                                format!("{count} library {frames}"),
                                "Library code: ignore-listed sources, runtime internals, JDK classes",
                            ),
                            GroupKind::Hidden => (
                                format!(
                                    "{count} {frames} {}",
                                    hidden_reason(&table, stack, first, count)
                                ),
                                "Retrace leaves these frames out: the compiler added them",
                            ),
                            GroupKind::Recursion { period } => (
                                format!(
                                    "× {} the {} above (recursion)",
                                    thousands(count / period),
                                    if period == 1 {
                                        "frame".to_owned()
                                    } else {
                                        format!("{period} frames")
                                    }
                                ),
                                "The frames above, repeated: recursion",
                            ),
                        };
                        let text = RichText::new(format!("    {arrow} {what} ({verb})"))
                            .color(theme::MUTED)
                            .italics();
                        let response = list_row(ui, text, false, true).on_hover_text(hover);
                        if response.clicked() {
                            commands.send(StackCommand::ToggleGroup { stack, first });
                        }
                    }
                    Row::Candidates {
                        stack,
                        frame,
                        count,
                        expanded,
                    } => {
                        let (arrow, verb) = fold_marks(expanded);
                        let text = RichText::new(format!(
                            "        {arrow} {count} candidates: the symbol file cannot tell which ran ({verb} the other {})",
                            count - 1
                        ))
                        .color(theme::MUTED)
                        .italics();
                        if list_row(ui, text, false, true).clicked() {
                            commands.send(StackCommand::ToggleCandidates { stack, frame });
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
                            commands.send(StackCommand::SelectFrame { stack, frame });
                        }
                    }
                }
            }
        });
    ui.ctx()
        .data_mut(|d| d.insert_temp(id.with("offset"), output.state.clamped_offset().y));
    if !ui.ctx().text_edit_focused() {
        keyboard(ui, state, rows, commands);
    }
}

/// Row steps a page key moves (about a screen of rows).
const PAGE_ROWS: usize = 20;

/// The stack list's keys: arrows, PgUp/PgDn, Home/End move the selection among the shown
/// frames (the list scrolls to keep it in view); Right opens the folded row below the frame
/// (library frames, hidden frames, other candidates) or an exception folded to its header,
/// Left folds the group or exception the frame is in; Enter inspects the frame's segment;
/// Esc clears the filter.
fn keyboard(ui: &egui::Ui, state: &AppState, rows: &StackRows, commands: &mut Commands) {
    use egui::Key;
    let pressed = |k: Key| ui.input(|i| i.key_pressed(k));
    let selection = &state.workspace.selection;
    let current = selection.frame.map(|f| (selection.stack, f));
    let moved = if pressed(Key::ArrowDown) {
        rows.step(current, true)
    } else if pressed(Key::ArrowUp) {
        rows.step(current, false)
    } else if pressed(Key::PageDown) {
        (0..PAGE_ROWS)
            .try_fold(current, |at, _| Some(rows.step(at, true)))
            .flatten()
    } else if pressed(Key::PageUp) {
        (0..PAGE_ROWS)
            .try_fold(current, |at, _| Some(rows.step(at, false)))
            .flatten()
    } else if pressed(Key::Home) {
        rows.step(None, true)
    } else if pressed(Key::End) {
        rows.last_frame()
    } else {
        None
    };
    if let Some((stack, frame)) = moved
        && Some((stack, frame)) != current
    {
        commands.send(StackCommand::SelectFrame { stack, frame });
        if let Some(row) = rows.row_of_frame(stack, frame) {
            ui.ctx()
                .data_mut(|d| d.insert_temp(scroll_request_id(), row));
        }
    }
    if pressed(Key::Escape) && !state.view.stack.filter.is_empty() {
        commands.send(StackCommand::SetFilter(String::new()));
    }
    let Some((stack, frame)) = current else {
        return;
    };
    if pressed(Key::Enter) {
        commands.send(InspectorCommand::InspectSelectedFrame);
    }
    if pressed(Key::ArrowRight) {
        if state.view.stack.folds.collapsed.contains(&stack) {
            commands.send(StackCommand::ToggleStack(stack));
        } else if let Some(next) = rows
            .row_of_frame(stack, frame)
            .and_then(|r| rows.row(r + 1))
        {
            match next {
                Row::Group {
                    stack,
                    first,
                    expanded: false,
                    ..
                } => commands.send(StackCommand::ToggleGroup { stack, first }),
                Row::Candidates {
                    stack,
                    frame,
                    expanded: false,
                    ..
                } => commands.send(StackCommand::ToggleCandidates { stack, frame }),
                _ => {}
            }
        }
    }
    if pressed(Key::ArrowLeft) {
        match rows.group_of(stack, frame) {
            Some(first) => commands.send(StackCommand::ToggleGroup { stack, first }),
            None if state.view.stack.folds.candidates.contains(&(stack, frame)) => {
                commands.send(StackCommand::ToggleCandidates { stack, frame });
            }
            None => commands.send(StackCommand::ToggleStack(stack)),
        }
    }
}

/// Where a keyboard move asks the list to scroll (the row to bring into view).
fn scroll_request_id() -> egui::Id {
    egui::Id::unique("stack-list-scroll-to-row")
}

/// The arrow and the verb of a folding row: open (`▼`, "hide") or folded (`▶`, "show").
fn fold_marks(expanded: bool) -> (&'static str, &'static str) {
    if expanded {
        ("▼", "hide")
    } else {
        ("▶", "show")
    }
}

/// A frame row's right-click menu: copy the frame, its location or its function, inspect
/// its segment, open its source in the user's editor. Each acts on the frame clicked.
fn frame_menu(
    response: &egui::Response,
    state: &AppState,
    table: &FrameTable,
    stack: usize,
    frame: usize,
    commands: &mut Commands,
) {
    response.context_menu(|ui| {
        let Some(f) = table.frame(stack, frame) else {
            return;
        };
        let loc = f.location();
        if ui.button("Copy frame").clicked() {
            commands.send(StackCommand::SelectFrame { stack, frame });
            commands.send(StackCommand::CopyFrame);
            ui.close();
        }
        let location = loc
            .as_ref()
            .filter(|l| l.file.is_some())
            .map(|l| place(l.file, l.line, l.column));
        if ui
            .add_enabled(location.is_some(), egui::Button::new("Copy location"))
            .on_hover_text(format!(
                "file:line:column of the original source. {}",
                super::widgets::ONE_BASED
            ))
            .clicked()
            && let Some(text) = location
        {
            commands.send(StackCommand::CopyText(text));
            ui.close();
        }
        let function = loc.as_ref().and_then(|l| l.function).map(str::to_owned);
        if ui
            .add_enabled(function.is_some(), egui::Button::new("Copy function"))
            .clicked()
            && let Some(text) = function
        {
            commands.send(StackCommand::CopyText(text));
            ui.close();
        }
        if ui
            .add_enabled(
                f.generated().is_some(),
                egui::Button::new("Inspect segment"),
            )
            .clicked()
        {
            commands.send(StackCommand::SelectFrame { stack, frame });
            commands.send(InspectorCommand::InspectSelectedFrame);
            ui.close();
        }
        let source = loc
            .as_ref()
            .and_then(|l| Some((state.source_on_disk(l.file?)?, l.line, l.column)));
        let hint = if state.settings.editor.is_none() {
            "no editor is set yet: clicking says where to set one"
        } else {
            "your editor, from your settings (never from a workspace)"
        };
        if ui
            .add_enabled(source.is_some(), egui::Button::new("Open source in editor"))
            .on_hover_text(hint)
            .on_disabled_hover_text("the source file is not on this disk")
            .clicked()
            && let Some((file, line, column)) = source
        {
            commands.send(StackCommand::OpenInEditor {
                file,
                line: line.unwrap_or(1),
                column: column.unwrap_or(1),
            });
            ui.close();
        }
    });
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

/// A frame row's tooltip: the whole line as in the log, each original location, and the
/// note (rows are cut at the list's width).
fn frame_tooltip(table: &FrameTable, stack: usize, frame: usize) -> String {
    let Some(f) = table.frame(stack, frame) else {
        return String::new();
    };
    let mut text = f.raw().trim().to_owned();
    for loc in f.locations() {
        text.push_str(&format!(
            "\n→ {}  {}",
            loc.function.unwrap_or("<unknown>"),
            place(loc.file, loc.line, loc.column)
        ));
    }
    if let Some(note) = f.note() {
        text.push_str(&format!("\n{note}"));
    }
    text
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

/// A count with thousands separated by commas (`2,997`).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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
