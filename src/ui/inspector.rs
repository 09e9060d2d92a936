//! The source-map segment inspector: a generated line's segments (a windowed table), the
//! generated code around the chosen segment, and the original source it maps to. Each segment
//! has a colour on every side; hovering one anywhere highlights its partners.

use super::theme;
use super::widgets::{MAX_SHARE, keep_size};
use crate::app::{AppState, Command, Commands, InspectorView, Loaded, Panel};
use crate::symbols::sourcemap::NONE;
use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, RichText};
use std::sync::Arc;

/// Columns of generated code shown before the focused segment.
const BEFORE: u32 = 60;
/// Columns of generated code shown after it.
const AFTER: u32 = 180;

/// The inspector, docked below the stack list (it shares the window, never covers the
/// list); its height is kept in the workspace.
pub fn inspector_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    view: &Arc<InspectorView>,
    commands: &mut Commands,
) {
    let ctx = ui.ctx().clone();
    let kept = state.workspace.layout.inspector_height;
    let height = ctx.content_rect().height();
    let max = (height * MAX_SHARE).max(theme::INSPECTOR_MIN_HEIGHT);
    let shown = egui::Panel::bottom(("inspector", state.layout_generation))
        .resizable(true)
        .default_size(kept.clamp(theme::INSPECTOR_MIN_HEIGHT, max))
        .size_range(theme::INSPECTOR_MIN_HEIGHT..=max)
        .show(ui, |ui| {
            header_ui(ui, state, view, commands);
            let hover_id = egui::Id::unique("inspector-hover");
            let hovered: Option<usize> = ctx
                .data(|d| d.get_temp::<Option<usize>>(hover_id))
                .flatten();
            let selected = state.view.inspector_segment;
            let marks = Marks {
                focus: hovered
                    .or(selected)
                    .or((!view.segments.is_empty()).then_some(0)),
                selected,
                hovered,
            };
            let mut hovered_now = None;
            // The map's segments by original position, for the panes and Go to original.
            let inspected = state.workspace.selection.inspected_map.as_ref();
            let originals = state
                .view
                .originals
                .as_ref()
                .filter(|(m, _)| Some(m) == inspected)
                .map(|(_, i)| i.as_ref());
            if originals.is_none() && state.view.originals_pending.as_ref() != inspected {
                commands.send(Command::IndexOriginals);
            }
            // The panes number sources as the map (or its section) does: the index's numbers
            // are those of a regular map only.
            let originals = originals
                .filter(|_| matches!(*view.map, crate::symbols::sourcemap::SourceMap::Regular(_)));
            // The body fits the panel: the table scrolls; beside it the generated code (its
            // half, scrolling) and the original source below it (the rest, scrolling).
            let body = ui.available_height();
            ui.columns(2, |cols| {
                if let [left, right] = cols {
                    segment_table_ui(left, view, marks, &mut hovered_now, commands);
                    egui::ScrollArea::vertical()
                        .id_salt("inspector-code")
                        .max_height(body * theme::GENERATED_SHARE)
                        .auto_shrink([false, true])
                        .show(right, |right| {
                            generated_ui(right, view, marks, &mut hovered_now, commands);
                        });
                    right.separator();
                    original_ui(right, view, originals, marks, &mut hovered_now);
                }
            });
            if hovered_now != hovered {
                ctx.data_mut(|d| d.insert_temp(hover_id, hovered_now));
                ctx.request_repaint();
            }
        })
        .response
        .rect
        .height();
    keep_size(&ctx, commands, Panel::Inspector, kept, shown);
}

fn header_ui(ui: &mut egui::Ui, state: &AppState, view: &InspectorView, commands: &mut Commands) {
    ui.horizontal(|ui| {
        if ui
            .small_button("Close")
            .on_hover_text("Close the segment inspector")
            .clicked()
        {
            commands.send(Command::ToggleInspector);
        }
        ui.label(RichText::new("Segment inspector").strong());
        egui::ComboBox::from_id_salt("inspected-map")
            .selected_text(&view.map_name)
            .show_ui(ui, |ui| {
                for (e, d) in state.inputs.iter().zip(&state.workspace.inputs) {
                    let Some(map) = e.loaded.as_ref().and_then(Loaded::map) else {
                        continue;
                    };
                    if ui
                        .selectable_label(map.name == view.map_name, &map.name)
                        .clicked()
                    {
                        commands.send(Command::InspectMap(d.path.clone()));
                    }
                }
            });
        let lines = view.line_count().max(1) as u32;
        let mut line = view.line + 1;
        let drag = ui.add(
            egui::DragValue::new(&mut line)
                .range(1..=lines)
                .prefix("generated line "),
        );
        if drag.changed() {
            commands.send(Command::InspectLine(line.saturating_sub(1)));
        }
        ui.label(format!("of {lines}"));
        ui.label(RichText::new(format!("{} segments on this line", view.segments.len())).weak());
        if ui.button("Jump to the selected frame's segment").clicked() {
            commands.send(Command::InspectSelectedFrame);
        }
    });
    // The tools wrap onto another row in a narrow window rather than leave it.
    ui.horizontal_wrapped(|ui| {
        go_to_ui(ui, commands);
        search_ui(ui, commands);
        if ui
            .button("Check map")
            .on_hover_text(
                "Run the map doctor: positions past the end of a source or of the bundle, \
                 unsorted lines, missing or duplicate sources, unused names, unmapped code",
            )
            .clicked()
        {
            commands.send(Command::CheckMap);
        }
        if ui
            .button("Go to original…")
            .on_hover_text(
                "Pick a source and a line: every generated segment that maps there is listed",
            )
            .clicked()
        {
            commands.send(Command::OpenOriginal);
        }
        // Compare with another loaded map of the same bundle.
        let others: Vec<(String, String)> = state
            .inputs
            .iter()
            .zip(&state.workspace.inputs)
            .filter(|(_, d)| state.workspace.selection.inspected_map.as_ref() != Some(&d.path))
            .filter_map(|(e, d)| Some((e.loaded.as_ref()?.map()?.name.clone(), d.path.clone())))
            .collect();
        if !others.is_empty() {
            ui.menu_button("Compare with…", |ui| {
                for (name, path) in others {
                    if ui.button(name).clicked() {
                        commands.send(Command::CompareWith(path));
                        ui.close();
                    }
                }
            });
        }
        if ui
            .button("Extract sources…")
            .on_hover_text(
                "Write the map's original sources (sourcesContent) into a folder you pick, \
                 each under its own path, kept inside the folder",
            )
            .clicked()
        {
            commands.send(Command::Dialog(crate::app::DialogRequest::ExtractSources));
        }
    });
    if let Some(nav) = &state.view.original
        && state.workspace.selection.inspected_map.as_ref() == Some(&nav.map)
    {
        tool_window(
            "Go to original",
            "go-to-original",
            egui::Align2::LEFT_TOP,
            [theme::ORIGINAL_LEFT, 40.0],
            theme::DOCTOR_WIDTH,
        )
        .show(ui.ctx(), |ui| original_nav_ui(ui, nav, commands));
    }
    if let Some(compare) = &state.view.map_diff
        && state.workspace.selection.inspected_map.as_ref() == Some(&compare.a)
    {
        tool_window(
            "Compare maps",
            "compare-maps",
            egui::Align2::LEFT_TOP,
            [theme::ORIGINAL_LEFT, 40.0],
            theme::COMPARE_WIDTH,
        )
        .show(ui.ctx(), |ui| compare_ui(ui, compare, commands));
    }
    if let Some((path, hits)) = &state.view.map_search
        && state.workspace.selection.inspected_map.as_ref() == Some(path)
    {
        tool_window(
            "Search",
            "map-search",
            egui::Align2::RIGHT_BOTTOM,
            [-12.0, -40.0],
            theme::DOCTOR_WIDTH,
        )
        .show(ui.ctx(), |ui| {
            egui::ScrollArea::vertical()
                .max_height(theme::DOCTOR_HEIGHT)
                .show(ui, |ui| search_hits_ui(ui, hits, commands));
        });
    }
    if let Some((path, report)) = &state.view.map_report
        && state.workspace.selection.inspected_map.as_ref() == Some(path)
    {
        // Beside the panels, never taking the inspector's room.
        tool_window(
            "Map doctor",
            "map-doctor",
            egui::Align2::RIGHT_TOP,
            [-12.0, 40.0],
            theme::DOCTOR_WIDTH,
        )
        .show(ui.ctx(), |ui| {
            egui::ScrollArea::vertical()
                .max_height(theme::DOCTOR_HEIGHT)
                .show(ui, |ui| report_ui(ui, report, commands));
        });
    }
    if !view.sections.is_empty() {
        let list: Vec<String> = view
            .sections
            .iter()
            .map(|(l, c)| format!("{}:{c}", l + 1))
            .collect();
        let current = view.section.map_or_else(String::new, |s| {
            format!(" (this line is in section {})", s + 1)
        });
        ui.label(format!(
            "Index map, {} sections at {}{current}",
            view.sections.len(),
            list.join(", ")
        ));
    }
}

/// The generated position in `text`: its last `line:column` (both 1-based, as engines print
/// them and editors show them), so that a pasted frame (`at f (app.min.js:1:98188)`) works.
pub fn parse_position(text: &str) -> Option<(u32, u32)> {
    let mut found = None;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit()) {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            if bytes.get(i) == Some(&b':') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                let col_start = i + 1;
                let mut j = col_start;
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
                if let (Ok(line), Ok(col)) = (text[start..i].parse(), text[col_start..j].parse())
                    && line > 0
                    && col > 0
                {
                    found = Some((line, col));
                }
            }
            continue;
        }
        i += 1;
    }
    found
}

/// A window of the inspector's (fixed where `anchor` puts it, beside the panels).
fn tool_window(
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
fn compare_ui(ui: &mut egui::Ui, compare: &crate::app::MapCompare, commands: &mut Commands) {
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
            commands.send(Command::CloseCompare);
        }
    });
    if diff.differing.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        for (k, d) in diff.differing.iter().enumerate().take(theme::COMPARE_LINES) {
            let text = format!("line {}: {} / {}", d.line + 1, d.a.len(), d.b.len());
            if ui.selectable_label(compare.shown == k, text).clicked() {
                commands.send(Command::ShowDiffLine(k));
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
            format!("{} → {original}{name}", m.column)
        }
    };
    egui::ScrollArea::vertical()
        .id_salt("compare-rows")
        .max_height(theme::DOCTOR_HEIGHT)
        .show(ui, |ui| {
            egui::Grid::new("compare-grid")
                .striped(true)
                .show(ui, |ui| {
                    ui.label(RichText::new(name(&compare.a)).strong());
                    ui.label(RichText::new(name(&compare.b)).strong());
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
fn search_ui(ui: &mut egui::Ui, commands: &mut Commands) {
    if let Some(text) = entry_ui(ui, "Search", "names, sources, code", 160.0)
        && !text.trim().is_empty()
    {
        commands.send(Command::SearchMap(text.trim().to_owned()));
    }
}

/// A labelled one-line field whose text is kept between frames; its text when Enter was
/// pressed in it. The Enter is taken here: the stack list, drawn after this panel, would
/// inspect the selected frame with it.
fn entry_ui(ui: &mut egui::Ui, label: &str, hint: &str, width: f32) -> Option<String> {
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
fn search_hits_ui(
    ui: &mut egui::Ui,
    hits: &crate::engine::map_search::SearchHits,
    commands: &mut Commands,
) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("\"{}\"", hits.query)).strong());
        if ui.small_button("Close search").clicked() {
            commands.send(Command::CloseSearch);
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
            commands.send(Command::GoToGenerated {
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
                    commands.send(Command::OpenOriginal);
                    commands.send(Command::PickOriginalSource(*i));
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
fn go_to_ui(ui: &mut egui::Ui, commands: &mut Commands) {
    if let Some(text) = entry_ui(ui, "Go to", "line:column", 140.0)
        && let Some((line, col)) = parse_position(&text)
    {
        commands.send(Command::GoToGenerated {
            line: line - 1,
            column: col - 1,
        });
    }
}

/// The "go to original" window: the map's sources as a tree filtered by path (each with its
/// segment count, and whether its content is in the map), a line of the chosen one, and the
/// generated segments that map to that line, each a click away.
fn original_nav_ui(ui: &mut egui::Ui, nav: &crate::app::OriginalNav, commands: &mut Commands) {
    ui.horizontal(|ui| {
        if ui.small_button("Close").clicked() {
            commands.send(Command::CloseOriginal);
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
            commands.send(Command::SetOriginalFilter(filter));
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
                            commands.send(Command::PickOriginalSource(*i));
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
            commands.send(Command::GoToOriginalLine(line - 1));
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
                    commands.send(Command::GoToGenerated {
                        line: at.line,
                        column: at.column,
                    });
                }
            }
        });
}

/// The map doctor's report: each kind with its count; its examples on demand, a generated
/// position a click away.
fn report_ui(
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
            commands.send(Command::CloseMapReport);
        }
    });
    for p in &report.problems {
        let (mark, color) = if p.kind.is_error() {
            ("error", theme::ERROR)
        } else {
            ("info", theme::MUTED)
        };
        egui::CollapsingHeader::new(
            RichText::new(format!("{mark}  {}: {}", p.kind.as_str(), p.count)).color(color),
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
                        commands.send(Command::GoToGenerated {
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

/// Which segments stand out in every pane (from the previous frame's hover).
#[derive(Clone, Copy)]
struct Marks {
    /// The segment the panes centre on: the hovered one, else the selected one.
    focus: Option<usize>,
    /// The selected segment.
    selected: Option<usize>,
    /// The hovered segment.
    hovered: Option<usize>,
}

impl Marks {
    /// Whether segment `i` is drawn strong.
    fn strong(&self, i: usize) -> bool {
        self.selected == Some(i) || self.hovered == Some(i)
    }
}

fn segment_table_ui(
    ui: &mut egui::Ui,
    view: &InspectorView,
    marks: Marks,
    hovered_now: &mut Option<usize>,
    commands: &mut Commands,
) {
    let selected = marks.selected;
    let font = egui::FontId::monospace(theme::SEGMENT_LABEL_FONT_SIZE);
    let char_width = ui
        .painter()
        .layout_no_wrap("0".to_owned(), font.clone(), Color32::WHITE)
        .size()
        .x;
    // Columns, in characters: generated column | original line:col | name | source (the
    // rest of the row, elided from the left so the file name stays).
    let columns = [0usize, 9, 22, 38];
    let header = ui.painter().layout_no_wrap(
        format!(
            "{:<9}{:<13}{:<16}{}",
            "gen col", "line:col", "name", "source"
        ),
        font.clone(),
        ui.visuals().weak_text_color(),
    );
    let (rect, _) = ui.allocate_exact_size(
        egui::vec2(ui.available_width(), theme::SEGMENT_ROW_HEIGHT),
        egui::Sense::hover(),
    );
    ui.painter().galley(
        rect.left_center() + egui::vec2(theme::ROW_PADDING, -header.size().y / 2.0),
        header,
        ui.visuals().weak_text_color(),
    );
    let mut area = egui::ScrollArea::vertical()
        .id_salt("segments")
        .auto_shrink([false, false]);
    // Bring the selected segment into the middle of the table when the selection changes
    // (not every frame), however long the line.
    let key = egui::Id::unique("segment-shown");
    let shown = (view.map_name.clone(), view.line, selected);
    if ui
        .data(|d| d.get_temp::<(String, u32, Option<usize>)>(key))
        .as_ref()
        != Some(&shown)
    {
        if let Some(i) = selected {
            let row = theme::SEGMENT_ROW_HEIGHT + ui.spacing().item_spacing.y;
            let visible = ui.available_height();
            area = area.vertical_scroll_offset((i as f32 * row - visible / 2.0).max(0.0));
        }
        ui.data_mut(|d| d.insert_temp(key, shown));
    }
    area.show_rows(
        ui,
        theme::SEGMENT_ROW_HEIGHT,
        view.segments.len(),
        |ui, range| {
            for i in range {
                let Some(seg) = view.segments.get(i) else {
                    continue;
                };
                let gen_col = view.gen_col(i).unwrap_or(0);
                let source = view.source(i).unwrap_or_default();
                let name = view.name(i).unwrap_or_default();
                let text = if seg.source == NONE {
                    format!("{gen_col:>7} → (no source)")
                } else {
                    format!(
                        "{gen_col:>7} → {source}:{}:{}  {name}",
                        seg.src_line + 1,
                        seg.src_col + 1,
                    )
                };
                let cells: [String; 4] = if seg.source == NONE {
                    [
                        gen_col.to_string(),
                        "(no source)".to_owned(),
                        String::new(),
                        String::new(),
                    ]
                } else {
                    [
                        gen_col.to_string(),
                        format!("{}:{}", seg.src_line + 1, seg.src_col + 1),
                        name.to_string(),
                        source.to_string(),
                    ]
                };
                let strong = marks.strong(i);
                let (rect, response) = ui.allocate_exact_size(
                    egui::vec2(ui.available_width(), theme::SEGMENT_ROW_HEIGHT),
                    egui::Sense::click(),
                );
                let label = format!("segment {i}: {text}");
                response
                    .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
                if ui.is_rect_visible(rect) {
                    // Clipped to the row: a long source path must not run into the next row.
                    let painter = ui.painter_at(rect);
                    painter.rect_filled(
                        rect,
                        theme::CORNER_RADIUS,
                        theme::segment_color(i, strong),
                    );
                    let width = |k: usize| {
                        columns
                            .get(k + 1)
                            .map_or(usize::MAX, |next| next - columns[k] - 1)
                    };
                    let room = ((rect.width() - theme::ROW_PADDING * 2.0) / char_width) as usize;
                    for (k, cell) in cells.iter().enumerate() {
                        let start = columns[k];
                        let fits = width(k).min(room.saturating_sub(start));
                        let shown = elide(cell, fits, k == 3);
                        painter.text(
                            rect.left_center()
                                + egui::vec2(theme::ROW_PADDING + start as f32 * char_width, 0.0),
                            egui::Align2::LEFT_CENTER,
                            shown,
                            font.clone(),
                            ui.visuals().text_color(),
                        );
                    }
                }
                if response.hovered() {
                    *hovered_now = Some(i);
                }
                let response = response.on_hover_text(RichText::new(&text).monospace());
                if response.clicked() {
                    commands.send(Command::SelectSegment(i));
                }
            }
        },
    );
}

/// `text` cut to `chars` characters with an ellipsis: from the left (`left`, a path whose
/// file name matters) or from the right.
fn elide(text: &str, chars: usize, left: bool) -> String {
    let n = text.chars().count();
    if n <= chars {
        return text.to_owned();
    }
    if chars == 0 {
        return String::new();
    }
    if left {
        let tail: String = text.chars().skip(n - (chars - 1)).collect();
        format!("…{tail}")
    } else {
        let head: String = text.chars().take(chars - 1).collect();
        format!("{head}…")
    }
}

/// Paints a layout job, and reports which piece (segment) the pointer is over.
fn pieces_ui(
    ui: &mut egui::Ui,
    job: LayoutJob,
    pieces: &[(usize, usize, usize)],
) -> (egui::Response, Option<usize>) {
    let galley = ui.painter().layout_job(job);
    let (rect, response) = ui.allocate_exact_size(galley.size(), egui::Sense::click());
    let text = galley.text().to_owned();
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &text));
    let over = response.hover_pos().and_then(|p| {
        let c = galley.cursor_from_pos(p - rect.min).index.0;
        pieces
            .iter()
            .find(|(a, b, _)| (*a..*b).contains(&c))
            .map(|(_, _, i)| *i)
    });
    ui.painter()
        .galley(rect.min, galley, ui.visuals().text_color());
    (response, over)
}

fn format(color: Color32, background: Color32) -> TextFormat {
    TextFormat {
        font_id: egui::FontId::monospace(theme::CODE_FONT_SIZE),
        color,
        background,
        ..Default::default()
    }
}

/// The whole generated line as a strip: the columns some segment maps to a source, those
/// none does (before the first segment, after a segment without a source), and the stretch
/// shown below outlined. A click shows that column.
fn coverage_strip_ui(
    ui: &mut egui::Ui,
    view: &InspectorView,
    (shown_from, shown_to): (u32, u32),
    commands: &mut Commands,
) {
    let Some(facts) = view.line_facts() else {
        return;
    };
    let (len, unmapped) = (facts.len, facts.unmapped);
    let width = ui.available_width();
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(width, theme::STRIP_HEIGHT), egui::Sense::click());
    let x = |col: u32| rect.left() + width * (col.min(len) as f32 / len as f32);
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, theme::COVERAGE_FOUND);
    // A gap at least a pixel wide; gaps in the same pixel drawn once.
    let mut last_px = f32::NEG_INFINITY;
    for &(a, b) in &facts.gaps {
        let (x0, x1) = (x(a), x(b).max(x(a) + 1.0));
        if x1 <= last_px {
            continue;
        }
        let r = egui::Rect::from_x_y_ranges(x0.max(last_px)..=x1, rect.y_range());
        painter.rect_filled(r, 0.0, theme::COVERAGE_MISSING);
        last_px = x1;
    }
    let shown = egui::Rect::from_x_y_ranges(
        x(shown_from)..=x(shown_to).max(x(shown_from) + 2.0),
        rect.y_range(),
    );
    painter.rect_stroke(
        shown,
        0.0,
        egui::Stroke::new(1.5, theme::OVERLAY_TEXT),
        egui::StrokeKind::Inside,
    );
    let name = format!(
        "Coverage of generated line {}: {unmapped} of {len} columns unmapped",
        view.line + 1
    );
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
    let response = response.on_hover_text(format!(
        "Line {}: {unmapped} of its {len} columns map to no source (red); click to show a column",
        view.line + 1
    ));
    if response.clicked()
        && let Some(pos) = response.interact_pointer_pos()
    {
        let col = ((pos.x - rect.left()) / width * len as f32) as u32;
        commands.send(Command::GoToGenerated {
            line: view.line,
            column: col.min(len - 1),
        });
    }
}

fn generated_ui(
    ui: &mut egui::Ui,
    view: &InspectorView,
    marks: Marks,
    hovered_now: &mut Option<usize>,
    commands: &mut Commands,
) {
    ui.label(RichText::new(format!("Generated, line {}", view.line + 1)).strong());
    let Some(text) = &view.generated else {
        ui.label(RichText::new("Add the generated file (the bundle) to see its code here.").weak());
        return;
    };
    let Some(line) = text.line(view.line as usize) else {
        ui.label(RichText::new("The bundle has no such line.").weak());
        return;
    };
    let center = marks.focus.and_then(|i| view.gen_col(i)).unwrap_or(0);
    let (c0, c1) = (center.saturating_sub(BEFORE), center + AFTER);
    coverage_strip_ui(ui, view, (c0, c1), commands);
    let (b0, b1) = view.window(line, c0, c1);
    let slice = &line[b0..b1];
    // Walk the window once, cutting it at the segments' generated columns.
    let mut job = LayoutJob::default();
    job.wrap.max_width = ui.available_width();
    let mut pieces = Vec::new();
    let mut seg = view.segment_at(c0);
    let mut col = c0;
    let mut piece_start_byte = 0;
    let mut chars = 0usize;
    let mut piece_start_char = 0usize;
    let text_color = ui.visuals().text_color();
    let flush = |job: &mut LayoutJob,
                 pieces: &mut Vec<(usize, usize, usize)>,
                 s: &str,
                 seg: Option<usize>,
                 from: usize,
                 to: usize| {
        let bg = seg.map_or(Color32::TRANSPARENT, |i| {
            theme::segment_color(i, marks.strong(i))
        });
        job.append(s, 0.0, format(text_color, bg));
        if let Some(i) = seg {
            pieces.push((from, to, i));
        }
    };
    for (b, ch) in slice.char_indices() {
        let next = seg.map_or(0, |i| i + 1);
        if view.gen_col(next).is_some_and(|c| c <= col) {
            flush(
                &mut job,
                &mut pieces,
                &slice[piece_start_byte..b],
                seg,
                piece_start_char,
                chars,
            );
            piece_start_byte = b;
            piece_start_char = chars;
            let mut n = next;
            while view.gen_col(n + 1).is_some_and(|c| c <= col) {
                n += 1;
            }
            seg = Some(n);
        }
        col += ch.len_utf16() as u32;
        chars += 1;
    }
    flush(
        &mut job,
        &mut pieces,
        &slice[piece_start_byte..],
        seg,
        piece_start_char,
        chars,
    );
    if c0 > 0 {
        ui.label(RichText::new(format!("… from column {c0}")).weak().small());
    }
    let (response, over) = pieces_ui(ui, job, &pieces);
    if over.is_some() {
        *hovered_now = over;
    }
    if response.clicked()
        && let Some(i) = over
    {
        commands.send(Command::SelectSegment(i));
    }
}

fn original_ui(
    ui: &mut egui::Ui,
    view: &InspectorView,
    originals: Option<&crate::symbols::sourcemap::OriginalIndex>,
    marks: Marks,
    hovered_now: &mut Option<usize>,
) {
    let Some(i) = marks.focus else {
        ui.label(RichText::new("This line has no segments.").weak());
        return;
    };
    let Some(seg) = view.segments.get(i).filter(|s| s.source != NONE) else {
        ui.label(RichText::new("This segment maps to no original source.").weak());
        return;
    };
    let source = view.source(i).unwrap_or_default();
    // Not justified: a long path wraps as text does, its first row not spread out.
    ui.vertical(|ui| {
        ui.label(
            RichText::new(format!(
                "Original, {source}:{}:{}",
                seg.src_line + 1,
                seg.src_col + 1
            ))
            .strong(),
        );
    });
    let Some(text) = view.source_text(seg.source) else {
        ui.label(RichText::new("The map has no sourcesContent for this source.").weak());
        return;
    };
    // The whole source, a row a line (a long line cut at the pane's edge), scrolled to the
    // mapped line when the focus moves to another; lines no segment of the map maps to are
    // dimmed once the map's segments are indexed by original position.
    let text_color = ui.visuals().text_color();
    let unmapped_color = ui.visuals().weak_text_color();
    let mapped_lines = originals.map(|index| index.mapped_lines(seg.source));
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace);
    let scrolled_id = egui::Id::unique("original-scrolled-to");
    let target = (seg.source, seg.src_line);
    let moved = ui.data(|d| d.get_temp::<(u32, u32)>(scrolled_id)) != Some(target);
    // The rest of the pane's height, at least a few rows.
    let height = ui
        .available_height()
        .max(row_height * theme::ORIGINAL_MIN_ROWS);
    let row = row_height + ui.spacing().item_spacing.y;
    let mut area = egui::ScrollArea::vertical()
        .id_salt("original")
        .max_height(height)
        .auto_shrink([false, true]);
    if moved {
        // The mapped line in the middle of the pane.
        let above = (height / row / 2.0).floor() as u32;
        let top = seg.src_line.saturating_sub(above) as f32;
        area = area.vertical_scroll_offset(top * row);
        ui.data_mut(|d| d.insert_temp(scrolled_id, target));
    }
    let by_line = view.original_marks(seg.source);
    // Characters a row can show (a monospace character is over 0.4 of a row's height wide).
    let max_chars = (ui.available_width() / (row_height * 0.4)) as usize;
    area.show_rows(ui, row_height, text.line_count(), |ui, rows| {
        for n in rows.start as u32..rows.end as u32 {
            let Some(line) = text.line(n as usize) else {
                continue;
            };
            let unmapped = mapped_lines
                .as_ref()
                .is_some_and(|m| m.binary_search(&n).is_err());
            let text_color = if unmapped { unmapped_color } else { text_color };
            // The segments of this generated line that map into this original line.
            let mapped = by_line.get(&n).map_or(&[][..], Vec::as_slice);
            let mut job = LayoutJob::default();
            // One row a line, cut at the pane's edge: a long line must not widen it.
            job.wrap.max_width = ui.available_width();
            job.wrap.max_rows = 1;
            job.wrap.break_anywhere = true;
            job.append(
                &format!("{:>6}  ", n + 1),
                0.0,
                format(ui.visuals().weak_text_color(), Color32::TRANSPARENT),
            );
            let prefix_chars = 8;
            let mut pieces = Vec::new();
            let mut at_byte = 0;
            let mut at_char = 0;
            // The columns are sorted: each is found walking on from the one before (a
            // minified original line may hold thousands), and none past the pane's edge.
            let mut cursor = crate::model::Utf16Cursor::default();
            for &(col, k) in mapped {
                if at_char > max_chars {
                    break;
                }
                let Some(b) = cursor.seek_col(line, col) else {
                    break;
                };
                if b < at_byte {
                    continue;
                }
                job.append(
                    &line[at_byte..b],
                    0.0,
                    format(text_color, Color32::TRANSPARENT),
                );
                at_char += line[at_byte..b].chars().count();
                // Colour the token that starts at the mapped column.
                let len: usize = line[b..]
                    .char_indices()
                    .find(|&(j, c)| j > 0 && !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .map_or(line.len() - b, |(j, _)| j)
                    .max(line[b..].chars().next().map_or(0, char::len_utf8));
                let token = &line[b..b + len];
                let strong = marks.strong(k);
                job.append(
                    token,
                    0.0,
                    format(text_color, theme::segment_color(k, strong)),
                );
                let n_chars = token.chars().count();
                pieces.push((prefix_chars + at_char, prefix_chars + at_char + n_chars, k));
                at_char += n_chars;
                at_byte = b + len;
            }
            job.append(
                &line[at_byte..],
                0.0,
                format(text_color, Color32::TRANSPARENT),
            );
            let (_, over) = pieces_ui(ui, job, &pieces);
            if over.is_some() {
                *hovered_now = over;
            }
        }
    });
}
