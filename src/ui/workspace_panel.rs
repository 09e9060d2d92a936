//! The workspace panel: the inputs grouped by kind, each with its state (a bar while it
//! loads or its log is symbolicated, what it holds once ready, its error), and the source
//! folders.

use super::theme;
use super::widgets::{file_name, progress_ui};
use crate::app::{AppState, Commands, DialogRequest, InputState, Loaded};
use crate::app::{InputCommand, StackCommand, WorkspaceCommand};
use crate::engine::SymbolFile;
use crate::model::FileKind;
use egui::RichText;

/// The inputs, grouped by kind, with status; select a log, remove an input.
pub(super) fn inputs_pane_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    let title = state
        .workspace_path
        .as_deref()
        .map_or_else(|| "Unsaved workspace".to_owned(), file_name);
    ui.heading(title);
    if state.inputs.is_empty() {
        ui.label(
            RichText::new("Drop symbol files and crash logs here, or paste a trace (Ctrl+V).")
                .weak(),
        );
    }
    // One row per group heading, input and error message, windowed: a thousand
    // inputs cost the rows in view.
    let rows = panel_rows(state);
    let selected = state.selected_log().map(|e| e.id);
    egui::ScrollArea::vertical()
        .id_salt("inputs")
        .auto_shrink([false, true])
        .max_height(ui.available_height() - theme::ROW_HEIGHT * 4.0)
        .show_rows(ui, theme::ROW_HEIGHT, rows.len(), |ui, range| {
            for row in &rows[range] {
                match *row {
                    PanelRow::Group(group) => {
                        ui.label(RichText::new(group).strong());
                    }
                    PanelRow::Input(e) => input_row_ui(ui, state, e, selected, commands),
                    PanelRow::Message(message) => {
                        ui.add(
                            egui::Label::new(
                                RichText::new(message.to_string())
                                    .small()
                                    .color(theme::ERROR),
                            )
                            .truncate(),
                        );
                    }
                }
            }
        });
    if !state.workspace.source_roots.is_empty() {
        ui.separator();
        ui.label(RichText::new("Source folders").strong());
        for (i, root) in state.workspace.source_roots.iter().enumerate() {
            ui.horizontal(|ui| {
                ui.label(RichText::new(root).monospace());
                let name = format!("Remove source folder {root}");
                let remove = ui.small_button("x").on_hover_text(&name);
                remove.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
                if remove.clicked() {
                    commands.send(InputCommand::RemoveSourceRoot(i));
                }
            });
        }
    }
}

/// A row of the inputs list.
enum PanelRow<'a> {
    /// A group's heading.
    Group(&'static str),
    /// An input.
    Input(&'a crate::app::InputEntry),
    /// The error of the input above.
    Message(&'a crate::jobs::JobFailure),
}

/// The inputs list's rows: the inputs grouped by kind, each failed one followed by its error.
fn panel_rows(state: &AppState) -> Vec<PanelRow<'_>> {
    let mut rows = Vec::new();
    for (group, kinds) in [
        ("Logs", &[FileKind::Log][..]),
        ("Profiles", &[FileKind::Profile, FileKind::HeapSnapshot][..]),
        (
            "Symbol files",
            &[
                FileKind::SourceMap,
                FileKind::JavaScript,
                FileKind::HermesBytecode,
                FileKind::ProguardMapping,
                FileKind::NativeSymbols,
            ][..],
        ),
        ("Other", &[FileKind::Unknown][..]),
    ] {
        let mut members = state
            .inputs
            .iter()
            .filter(|e| kinds.contains(&e.kind))
            .peekable();
        if members.peek().is_none() {
            continue;
        }
        rows.push(PanelRow::Group(group));
        for e in members {
            rows.push(PanelRow::Input(e));
            if let InputState::Failed(message) = &e.state {
                rows.push(PanelRow::Message(message));
            }
        }
    }
    rows
}

/// One input's row: its kind, name (a log is selected by clicking it), state and buttons.
fn input_row_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    e: &crate::app::InputEntry,
    selected: Option<crate::app::InputId>,
    commands: &mut Commands,
) {
    ui.horizontal(|ui| {
        let (badge, color) = theme::kind_badge(e.kind);
        ui.label(RichText::new(badge).monospace().color(color));
        let is_log = e.kind == FileKind::Log;
        let shown_profile = state.shown_profile().map(|(input, _)| input);
        let is_selected = if e.kind == FileKind::Profile {
            shown_profile == Some(e.id)
        } else {
            is_log && selected == Some(e.id)
        };
        let label = ui.selectable_label(is_selected, &e.name);
        if label.clicked() && is_log {
            commands.send(StackCommand::SelectLog(e.id));
        }
        if label.clicked() && e.kind == FileKind::Profile {
            commands.send(crate::app::ProfileCommand::Show(e.id, 0));
        }
        if is_log {
            label.context_menu(|ui| {
                let pick = crate::app::ComparePick::log(e.path.clone());
                super::buckets::compare_menu(
                    ui,
                    state,
                    &pick,
                    "this log's crashed stack",
                    commands,
                );
            });
        }
        label.on_hover_text(e.path.display().to_string());
        match &e.state {
            InputState::Loading => progress_ui(ui, state.input_progress(e.id)),
            // A log being symbolicated shows how far its job is.
            InputState::Ready if state.input_progress(e.id).is_some() => {
                progress_ui(ui, state.input_progress(e.id));
            }
            InputState::Ready if matches!(e.loaded, Some(Loaded::Other)) => {
                let why = match e.kind {
                    FileKind::HermesBytecode => {
                        "Hermes bytecode: add its source map (the .hbc.map) instead"
                    }
                    _ => "not a symbol file or a crash log Symscope reads",
                };
                ui.label(RichText::new("not used").color(theme::WARNING))
                    .on_hover_text(format!("not used: {why}"));
            }
            InputState::Ready => {
                let detail = match &e.loaded {
                    Some(Loaded::Symbols(SymbolFile::Map(m), _)) => format!(
                        "indexed in {:.1} ms, {} sources",
                        m.parse_ms,
                        m.map.source_count()
                    ),
                    Some(Loaded::Log(log)) => {
                        format!("{} frames", log.table.frame_count())
                    }
                    Some(Loaded::Symbols(SymbolFile::Native(f), _)) => {
                        let (n, ms) = (&f.symbols, f.parse_ms);
                        let ready = if n.is_lazy() {
                            format!("read as asked (opened in {ms:.1} ms), SymCache building")
                        } else {
                            format!("SymCache {} KB in {ms:.1} ms", n.cache_len().div_ceil(1024))
                        };
                        format!(
                            "{} {} ({}), debug ID {}, {ready}",
                            n.info().format,
                            n.info().arch,
                            if n.info().has_debug_info {
                                "debug info"
                            } else {
                                "symbols only"
                            },
                            n.info().debug_id,
                        )
                    }
                    Some(Loaded::Symbols(SymbolFile::Mapping(m), _)) => format!(
                        "scanned in {:.1} ms, {} classes{}",
                        m.parse_ms,
                        m.mapping.class_count(),
                        m.mapping
                            .map_id()
                            .map(|id| format!(", pg_map_id {id}"))
                            .unwrap_or_default()
                    ),
                    Some(Loaded::Symbols(SymbolFile::Bundle { bundle, .. }, _)) => bundle
                        .source_mapping_url
                        .clone()
                        .unwrap_or_else(|| "no sourceMappingURL".to_owned()),
                    _ => "not used".to_owned(),
                };
                ui.label(RichText::new("ready").weak())
                    .on_hover_text(detail);
            }
            InputState::Failed(message) => {
                ui.label(RichText::new("error").color(theme::ERROR))
                    .on_hover_text(message.to_string());
            }
            InputState::Missing => {
                ui.label(RichText::new("missing").color(theme::WARNING))
                    .on_hover_text(format!("{} is not there", e.path.display()));
                let name = format!("Locate {}", e.name);
                let locate = ui
                    .small_button("Locate…")
                    .on_hover_text("Point at where the file is now");
                locate.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
                if locate.clicked() {
                    commands.send(WorkspaceCommand::Dialog(DialogRequest::Locate(e.id)));
                }
            }
            InputState::Cancelled => {
                ui.label(RichText::new("cancelled").weak());
                let name = format!("Load {} again", e.name);
                let again = ui.small_button("Load").on_hover_text(&name);
                again.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
                if again.clicked() {
                    commands.send(InputCommand::AddPaths(vec![e.path.clone()]));
                }
            }
        }
        let name = format!("Remove {}", e.name);
        let remove = ui.small_button("x").on_hover_text(&name);
        // The visible "x" is terse; screen readers (and tests) get the full name.
        remove.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
        if remove.clicked() {
            commands.send(InputCommand::RemoveInput(e.id));
        }
    });
}
