//! The source-map segment inspector: a generated line's segments (a windowed table), the
//! generated code around the chosen segment, and the original source it maps to. Each segment
//! has a colour on every side; hovering one anywhere highlights its partners.
//!
//! The panel and its header are here; [`table`] draws the segment table and the coverage
//! strip, [`code`] the two code panes, [`tools`] the tool windows.

mod code;
mod table;
mod tools;

use super::theme;
use crate::app::{AppState, Commands, InspectorView, Loaded};
use crate::app::{InspectorCommand, WorkspaceCommand};
use crate::symbols::sourcemap::NONE;
use code::{generated_ui, original_ui};
use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, RichText};
use std::sync::Arc;
use table::{Marks, coverage_strip_ui, segment_table_ui};
use tools::{
    compare_ui, go_to_ui, original_nav_ui, report_ui, search_hits_ui, search_ui, tool_window,
};

/// Columns of generated code shown before the focused segment.
const BEFORE: u32 = 60;

/// Columns of generated code shown after it.
const AFTER: u32 = 180;

/// The inspector, in a tile of its own.
pub fn inspector_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    view: &Arc<InspectorView>,
    commands: &mut Commands,
) {
    let ctx = ui.ctx().clone();
    header_ui(ui, state, view, commands);
    let hover_id = egui::Id::unique("inspector-hover");
    let hovered: Option<usize> = ctx
        .data(|d| d.get_temp::<Option<usize>>(hover_id))
        .flatten();
    let selected = state.view.inspector.segment;
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
        .inspector
        .originals
        .as_ref()
        .filter(|(m, _)| Some(m) == inspected)
        .map(|(_, i)| i.as_ref());
    if originals.is_none() && state.view.inspector.originals_pending.as_ref() != inspected {
        commands.send(InspectorCommand::IndexOriginals);
    }
    // The panes number sources as the map (or its section) does: the index's numbers
    // are those of a regular map only.
    let originals =
        originals.filter(|_| matches!(*view.map, crate::symbols::sourcemap::SourceMap::Regular(_)));
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
}

fn header_ui(ui: &mut egui::Ui, state: &AppState, view: &InspectorView, commands: &mut Commands) {
    ui.horizontal_wrapped(|ui| {
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
                        commands.send(InspectorCommand::InspectMap(d.path.clone()));
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
            commands.send(InspectorCommand::InspectLine(line.saturating_sub(1)));
        }
        ui.label(format!("of {lines}"));
        ui.label(RichText::new(format!("{} segments on this line", view.segments.len())).weak());
        if ui.button("Jump to the selected frame's segment").clicked() {
            commands.send(InspectorCommand::InspectSelectedFrame);
        }
    });
    // The tools wrap onto another row in a narrow window rather than leave it.
    ui.horizontal_wrapped(|ui| {
        go_to_ui(ui, commands);
        search_ui(ui, commands);
        // The map's tools in a narrow tile go into a menu, so every one stays reachable.
        if ui.available_width() < theme::INSPECTOR_TOOLS_WIDTH {
            ui.menu_button("More tools…", |ui| map_tools_ui(ui, state, commands));
        } else {
            map_tools_ui(ui, state, commands);
        }
    });
    if let Some(nav) = &state.view.inspector.original
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
    if let Some((path, hits)) = &state.view.inspector.map_search
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
    if let Some((path, report)) = &state.view.inspector.map_report
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

/// The map's tools: the doctor, Go to original…, Compare with…, Extract sources….
fn map_tools_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    if ui
        .button("Check map")
        .on_hover_text(
            "Run the map doctor: positions past the end of a source or of the bundle, \
             unsorted lines, missing or duplicate sources, unused names, unmapped code",
        )
        .clicked()
    {
        commands.send(InspectorCommand::CheckMap);
    }
    if ui
        .button("Go to original…")
        .on_hover_text(
            "Pick a source and a line: every generated segment that maps there is listed",
        )
        .clicked()
    {
        commands.send(InspectorCommand::OpenOriginal);
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
                    commands.send(InspectorCommand::CompareWith(path));
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
        commands.send(WorkspaceCommand::Dialog(
            crate::app::DialogRequest::ExtractSources,
        ));
    }
}

/// Two maps of one bundle compared, in a tab as wide as the main area.
pub fn map_compare_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    if let Some(compare) = &state.view.inspector.map_diff {
        compare_ui(ui, compare, &state.workspace_dir(), commands);
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
