//! The inspector's tools, each in a window of its own: go to a position, go to an original
//! line, search the map, compare it with another, the map doctor's report.

use super::*;
use crate::app::InspectorCommand;

/// A window of the inspector's (fixed where `anchor` puts it, beside the panels).
pub(super) fn tool_window(
    title: &str,
    id: &str,
    align: egui::Align2,
    offset: [f32; 2],
    width: f32,
) -> egui::Window<'static> {
    egui::Window::new(title.to_owned())
        .id(egui::Id::unique(("inspector-window", id.to_owned())))
        .anchor(align, offset)
        .default_width(width)
        .collapsible(false)
        .resizable(false)
}

/// Two maps of one bundle compared: the generated lines they map differently, and the
/// chosen one's segments side by side, rows that differ marked.
pub(super) fn compare_ui(
    ui: &mut egui::Ui,
    compare: &crate::app::MapCompare,
    workspace_dir: &std::path::Path,
    commands: &mut Commands,
) {
    // An input's path is kept relative to the workspace; its full path titles its side.
    let full = |path: &str| {
        crate::workspace::normalized(&workspace_dir.join(path))
            .display()
            .to_string()
    };
    let name = |path: &str| crate::symbolicate::basename(path).to_owned();
    let diff = &compare.diff;
    ui.horizontal(|ui| {
        let verdict = if diff.differing_total == 0 {
            format!("the same segments on all {} lines", diff.lines)
        } else {
            format!("{} of {} lines differ", diff.differing_total, diff.lines)
        };
        ui.label(
            RichText::new(format!(
                "{} / {}: {verdict}",
                name(&compare.a),
                name(&compare.b)
            ))
            .strong(),
        );
        if ui.small_button("Close comparison").clicked() {
            commands.send(InspectorCommand::CloseCompare);
        }
    });
    if diff.differing.is_empty() {
        return;
    }
    // Previous / next difference, by button or F7 / Shift+F7 (as IDEs' diff views go).
    let last = diff.differing.len() - 1;
    let (prev, next) = ui.input_mut(|i| {
        (
            i.consume_key(egui::Modifiers::SHIFT, egui::Key::F7),
            i.consume_key(egui::Modifiers::NONE, egui::Key::F7),
        )
    });
    ui.horizontal(|ui| {
        let back = ui
            .add_enabled(
                compare.shown > 0,
                egui::Button::new("Previous difference").small(),
            )
            .on_hover_text("Shift+F7");
        let forth = ui
            .add_enabled(
                compare.shown < last,
                egui::Button::new("Next difference").small(),
            )
            .on_hover_text("F7");
        if (back.clicked() || prev) && compare.shown > 0 {
            commands.send(InspectorCommand::ShowDiffLine(compare.shown - 1));
        }
        if (forth.clicked() || next) && compare.shown < last {
            commands.send(InspectorCommand::ShowDiffLine(compare.shown + 1));
        }
    });
    ui.horizontal_wrapped(|ui| {
        for (k, d) in diff.differing.iter().enumerate().take(theme::COMPARE_LINES) {
            let text = format!("line {}: {} / {}", d.line + 1, d.a.len(), d.b.len());
            if ui.selectable_label(compare.shown == k, text).clicked() {
                commands.send(InspectorCommand::ShowDiffLine(k));
            }
        }
    });
    let Some(d) = diff.differing.get(compare.shown) else {
        return;
    };
    let show = |m: Option<&crate::engine::map_diff::Mapped>| match m {
        None => String::new(),
        Some(m) => {
            let original = m.original.as_ref().map_or_else(
                || "(no source)".to_owned(),
                |(p, l, c)| format!("{}:{}:{}", crate::symbolicate::basename(p), l + 1, c + 1),
            );
            let name = m.name.as_deref().map_or(String::new(), |n| format!(" {n}"));
            format!("{} → {original}{name}", m.column + 1)
        }
    };
    egui::ScrollArea::vertical()
        .id_salt("compare-rows")
        .max_height(theme::DOCTOR_HEIGHT)
        .show(ui, |ui| {
            egui::Grid::new("compare-grid")
                .striped(true)
                .show(ui, |ui| {
                    // Each side titled with its full path.
                    ui.label(RichText::new(full(&compare.a)).strong());
                    ui.label(RichText::new(full(&compare.b)).strong());
                    ui.end_row();
                    for k in 0..d.a.len().max(d.b.len()) {
                        let (a, b) = (d.a.get(k), d.b.get(k));
                        let color = if a == b { theme::MUTED } else { theme::WARNING };
                        ui.label(RichText::new(show(a)).monospace().color(color));
                        ui.label(RichText::new(show(b)).monospace().color(color));
                        ui.end_row();
                    }
                });
        });
}

/// The search box: Enter searches the map's names and sources and the bundle's text.
pub(super) fn search_ui(ui: &mut egui::Ui, commands: &mut Commands) {
    if let Some(text) = entry_ui(ui, "Search", "names, sources, code", 160.0)
        && !text.trim().is_empty()
    {
        commands.send(InspectorCommand::SearchMap(text.trim().to_owned()));
    }
}

/// A labelled one-line field whose text is kept between frames; its text when Enter was
/// pressed in it. The Enter is taken here: the stack list, drawn after this panel, would
/// inspect the selected frame with it.
pub(super) fn entry_ui(ui: &mut egui::Ui, label: &str, hint: &str, width: f32) -> Option<String> {
    let id = egui::Id::unique(("inspector-entry", label));
    let mut text: String = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    let label = ui.label(label);
    let edit = ui
        .add(
            egui::TextEdit::singleline(&mut text)
                .hint_text(hint)
                .desired_width(width),
        )
        .labelled_by(label.id);
    let entered = edit.lost_focus()
        && ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Enter));
    ui.data_mut(|d| d.insert_temp(id, text.clone()));
    entered.then_some(text)
}

/// The search's hits: names (with their uses and the first one's position), sources (each
/// opens in Go to original) and places in the generated code, each a click away.
pub(super) fn search_hits_ui(
    ui: &mut egui::Ui,
    hits: &crate::engine::map_search::SearchHits,
    commands: &mut Commands,
) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("\"{}\"", hits.query)).strong());
        if ui.small_button("Close search").clicked() {
            commands.send(InspectorCommand::CloseSearch);
        }
    });
    let go = |ui: &mut egui::Ui,
              commands: &mut Commands,
              at: crate::symbols::sourcemap::GeneratedPos| {
        if ui
            .small_button(format!("{}:{}", at.line + 1, at.column + 1))
            .on_hover_text("Show this generated position")
            .clicked()
        {
            commands.send(InspectorCommand::GoToGenerated {
                line: at.line,
                column: at.column,
            });
        }
    };
    egui::CollapsingHeader::new(format!("Names ({})", hits.names.len()))
        .id_salt("search-names")
        .default_open(true)
        .show(ui, |ui| {
            for n in &hits.names {
                ui.horizontal(|ui| {
                    if let Some(at) = n.first {
                        go(ui, commands, at);
                    }
                    ui.label(format!("{}  ({} uses)", n.name, n.uses));
                });
            }
        });
    egui::CollapsingHeader::new(format!("Sources ({})", hits.sources.len()))
        .id_salt("search-sources")
        .default_open(true)
        .show(ui, |ui| {
            for (i, path) in &hits.sources {
                if ui
                    .small_button(path)
                    .on_hover_text("Open in Go to original")
                    .clicked()
                {
                    commands.send(InspectorCommand::OpenOriginal);
                    commands.send(InspectorCommand::PickOriginalSource(*i));
                }
            }
        });
    egui::CollapsingHeader::new(format!("Generated code ({})", hits.generated_total))
        .id_salt("search-generated")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for &at in &hits.generated {
                    go(ui, commands, at);
                }
            });
        });
}

/// The "go to line:column" box: Enter jumps to the segment there.
pub(super) fn go_to_ui(ui: &mut egui::Ui, commands: &mut Commands) {
    if let Some(text) = entry_ui(ui, "Go to", "line:column", 140.0)
        && let Some((line, col)) = parse_position(&text)
    {
        commands.send(InspectorCommand::GoToGenerated {
            line: line - 1,
            column: col - 1,
        });
    }
}

/// The "go to original" window: the map's sources as a tree filtered by path (each with its
/// segment count, and whether its content is in the map), a line of the chosen one, and the
/// generated segments that map to that line, each a click away.
pub(super) fn original_nav_ui(
    ui: &mut egui::Ui,
    nav: &crate::app::OriginalNav,
    commands: &mut Commands,
) {
    ui.horizontal(|ui| {
        if ui.small_button("Close").clicked() {
            commands.send(InspectorCommand::CloseOriginal);
        }
        let label = ui.label("Sources");
        let mut filter = nav.filter.clone();
        let edit = ui
            .add(
                egui::TextEdit::singleline(&mut filter)
                    .hint_text("filter by path")
                    .desired_width(220.0),
            )
            .labelled_by(label.id);
        if edit.changed() {
            commands.send(InspectorCommand::SetOriginalFilter(filter));
        }
    });
    let Some(index) = &nav.index else {
        ui.label(RichText::new("indexing the segments by original position…").weak());
        return;
    };
    // Folders of the sources that pass the filter, in path order.
    let needle = nav.filter.to_lowercase();
    let mut folders: std::collections::BTreeMap<String, Vec<(String, u32)>> = Default::default();
    for (i, source) in index.sources().iter().enumerate() {
        let (i, path) = (i as u32, source.path.clone());
        if !needle.is_empty() && !path.to_lowercase().contains(&needle) {
            continue;
        }
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", &path));
        folders
            .entry(dir.to_owned())
            .or_default()
            .push((file.to_owned(), i));
    }
    egui::ScrollArea::vertical()
        .id_salt("original-sources")
        .max_height(theme::ORIGINAL_SOURCES_HEIGHT)
        .show(ui, |ui| {
            for (dir, files) in &folders {
                let shown = if dir.is_empty() { "." } else { dir.as_str() };
                let header = egui::CollapsingHeader::new(format!("{shown}/  ({})", files.len()))
                    .id_salt(("original-folder", dir.as_str()))
                    .default_open(folders.len() <= 3);
                // While a filter is typed, every folder it leaves is open.
                let header = if needle.is_empty() {
                    header
                } else {
                    header.open(Some(true))
                };
                header.show(ui, |ui| {
                    for (file, i) in files {
                        let has = index
                            .sources()
                            .get(*i as usize)
                            .is_some_and(|s| s.has_content);
                        let content = if has { "" } else { ", no content" };
                        let text =
                            format!("{file}  ({} segments{content})", index.count_for_source(*i));
                        if ui.selectable_label(nav.source == Some(*i), text).clicked() {
                            commands.send(InspectorCommand::PickOriginalSource(*i));
                        }
                    }
                });
            }
        });
    let Some(source) = nav.source else {
        return;
    };
    ui.separator();
    let mapped = index.mapped_lines(source);
    let last = mapped.last().copied().unwrap_or(0) + 1;
    ui.horizontal(|ui| {
        ui.label(
            index
                .sources()
                .get(source as usize)
                .map_or("", |s| s.path.as_str()),
        );
        let mut line = nav
            .line
            .map_or(mapped.first().map_or(1, |l| l + 1), |l| l + 1);
        let drag = ui.add(
            egui::DragValue::new(&mut line)
                .range(1..=last)
                .prefix("original line "),
        );
        if drag.changed() || (nav.line.is_none() && ui.button("Go").clicked()) {
            commands.send(InspectorCommand::GoToOriginalLine(line - 1));
        }
        ui.label(RichText::new(format!("{} lines mapped", mapped.len())).weak());
    });
    let Some(line) = nav.line else {
        return;
    };
    let hits = index.on_line(source, line);
    if hits.is_empty() {
        ui.label(format!("No segment maps to line {}.", line + 1));
        return;
    }
    ui.label(format!("{} segments map to line {}:", hits.len(), line + 1));
    egui::ScrollArea::vertical()
        .id_salt("original-hits")
        .max_height(theme::ORIGINAL_HITS_HEIGHT)
        .show(ui, |ui| {
            for (col, at) in hits {
                let text = format!(
                    "{}:{}  at generated {}:{}",
                    line + 1,
                    col + 1,
                    at.line + 1,
                    at.column + 1
                );
                if ui.small_button(text).clicked() {
                    commands.send(InspectorCommand::GoToGenerated {
                        line: at.line,
                        column: at.column,
                    });
                }
            }
        });
}

/// The map doctor's report: each kind with its count; its examples on demand, a generated
/// position a click away.
pub(super) fn report_ui(
    ui: &mut egui::Ui,
    report: &crate::engine::doctor::MapReport,
    commands: &mut Commands,
) {
    let errors: u64 = report
        .problems
        .iter()
        .filter(|p| p.kind.is_error())
        .map(|p| p.count)
        .sum();
    ui.horizontal(|ui| {
        let s = &report.stats;
        let verdict = if report.has_errors() {
            RichText::new(format!("Map doctor: {errors} errors")).color(theme::ERROR)
        } else {
            RichText::new("Map doctor: no errors").color(theme::RESOLVED)
        };
        ui.label(verdict.strong());
        ui.label(
            RichText::new(format!(
                "{} segments, {} {}, {} sources, {} names",
                s.segments,
                s.lines,
                if s.lines == 1 { "line" } else { "lines" },
                s.sources,
                s.names
            ))
            .weak(),
        );
        if ui.small_button("Close report").clicked() {
            commands.send(InspectorCommand::CloseMapReport);
        }
    });
    for p in &report.problems {
        let (mark, color) = if p.kind.is_error() {
            ("error", theme::ERROR)
        } else {
            ("info", theme::MUTED)
        };
        egui::CollapsingHeader::new(
            RichText::new(format!("{mark}  {}: {}", p.kind.label(), p.count)).color(color),
        )
        .id_salt(("doctor", p.kind.as_str()))
        .show(ui, |ui| {
            for e in &p.examples {
                ui.horizontal(|ui| {
                    if let Some(g) = e.generated
                        && ui
                            .small_button(format!("{}:{}", g.line, g.column))
                            .on_hover_text("Show this generated position")
                            .clicked()
                    {
                        commands.send(InspectorCommand::GoToGenerated {
                            line: g.line - 1,
                            column: g.column - 1,
                        });
                    }
                    ui.label(&e.detail);
                });
            }
        });
    }
}
