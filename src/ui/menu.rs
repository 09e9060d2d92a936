//! The menu bar: File (inputs, workspaces, recent ones), View (theme, panels), the frame
//! filter and the raw/resolved switch.

use super::theme;
use super::widgets::file_name;
use crate::app::{AppState, Command, Commands};
use egui::RichText;

/// The filter's id, so that Ctrl+F can focus it.
fn filter_id() -> egui::Id {
    egui::Id::unique("frame-filter")
}

/// The menu bar: File, View, the filter and the raw/resolved switch.
pub(super) fn menu_bar_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    egui::Panel::top("menu").show(ui, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open files…").clicked() {
                    if let Some(paths) = rfd::FileDialog::new().pick_files() {
                        commands.send(Command::AddPaths(paths));
                    }
                    ui.close();
                }
                if ui.button("Open workspace…  Ctrl+O").clicked() {
                    if let Some(path) = rfd::FileDialog::new()
                        .add_filter("workspace", &["ron"])
                        .pick_file()
                    {
                        commands.send(Command::OpenWorkspace(path));
                    }
                    ui.close();
                }
                if ui.button("Save workspace  Ctrl+S").clicked() {
                    commands.send(Command::SaveWorkspace(None));
                    ui.close();
                }
                if ui.button("Save workspace as…").clicked() {
                    if let Some(path) = rfd::FileDialog::new()
                        .add_filter("workspace", &["ron"])
                        .save_file()
                    {
                        commands.send(Command::SaveWorkspace(Some(path)));
                    }
                    ui.close();
                }
                if !state.recent.is_empty() {
                    ui.separator();
                    ui.label(RichText::new("Recent workspaces").weak());
                    for path in &state.recent {
                        if ui
                            .button(file_name(path))
                            .on_hover_text(path.display().to_string())
                            .clicked()
                        {
                            commands.send(Command::OpenWorkspace(path.clone()));
                            ui.close();
                        }
                    }
                }
            });
            ui.menu_button("View", |ui| {
                let theme = if state.workspace.layout.dark {
                    "Light theme"
                } else {
                    "Dark theme"
                };
                if ui.button(theme).clicked() {
                    commands.send(Command::ToggleTheme);
                    ui.close();
                }
                let timing = if state.workspace.layout.timing_open {
                    "Hide timings"
                } else {
                    "Show timings"
                };
                if ui.button(timing).clicked() {
                    commands.send(Command::ToggleTiming);
                    ui.close();
                }
                let inspector = if state.workspace.layout.inspector_open {
                    "Hide segment inspector"
                } else {
                    "Show segment inspector"
                };
                if ui.button(inspector).clicked() {
                    commands.send(Command::ToggleInspector);
                    ui.close();
                }
            });
            ui.separator();
            let mut filter = state.view.filter.clone();
            let edit = ui.add(
                egui::TextEdit::singleline(&mut filter)
                    .id(filter_id())
                    .hint_text("Filter frames (Ctrl+F)")
                    .desired_width(theme::FILTER_WIDTH),
            );
            if edit.changed() {
                commands.send(Command::SetFilter(filter));
            }
            if ui.input(|i| i.modifiers.command && i.key_pressed(egui::Key::F)) {
                edit.request_focus();
            }
            let raw = state.workspace.layout.raw_frames;
            if ui.selectable_label(raw, "Raw frames").clicked() {
                commands.send(Command::ToggleRaw);
            }
        });
    });
}
