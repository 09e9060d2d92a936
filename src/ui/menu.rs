//! The menu bar: File (inputs, workspaces, recent ones, export), Edit (copy, paste), View
//! (theme, panes, reset layout), the frame filter and the raw/resolved switch.

use super::theme;
use super::widgets::file_name;
use crate::app::{AppState, Commands, DialogRequest, ExportFormat};
use crate::app::{Pane, StackCommand, WindowCommand, WorkspaceCommand};
use egui::RichText;

/// The filter's id, so that Ctrl+F can focus it.
fn filter_id() -> egui::Id {
    egui::Id::unique("frame-filter")
}

/// The menu bar: File, View, the filter and the raw/resolved switch.
pub(super) fn menu_bar_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    egui::Panel::top("menu").show(ui, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            let file = ui.menu_button("File", |ui| {
                if ui.button("Open files…").clicked() {
                    commands.send(WorkspaceCommand::Dialog(DialogRequest::OpenFiles));
                    ui.close();
                }
                if ui.button("Open workspace…  Ctrl+O").clicked() {
                    commands.send(WorkspaceCommand::Dialog(DialogRequest::OpenWorkspace));
                    ui.close();
                }
                if ui.button("Save workspace  Ctrl+S").clicked() {
                    commands.send(WorkspaceCommand::SaveWorkspace(None));
                    ui.close();
                }
                if ui.button("Save workspace as…  Ctrl+Shift+S").clicked() {
                    commands.send(WorkspaceCommand::Dialog(DialogRequest::SaveWorkspaceAs));
                    ui.close();
                }
                ui.separator();
                let log = state.selected_table().is_some();
                ui.add_enabled_ui(log, |ui| {
                    ui.menu_button("Export…", |ui| {
                        for format in [
                            ExportFormat::Text,
                            ExportFormat::Json,
                            ExportFormat::Markdown,
                        ] {
                            if ui.button(format.label()).clicked() {
                                commands
                                    .send(WorkspaceCommand::Dialog(DialogRequest::Export(format)));
                                ui.close();
                            }
                        }
                    });
                });
                if !state.recent.is_empty() {
                    ui.separator();
                    ui.label(RichText::new("Recent workspaces").weak());
                    for path in &state.recent {
                        if ui
                            .button(file_name(path))
                            .on_hover_text(path.display().to_string())
                            .clicked()
                        {
                            commands.send(WorkspaceCommand::OpenWorkspace(path.clone()));
                            ui.close();
                        }
                    }
                }
            });
            let edit_menu = ui.menu_button("Edit", |ui| {
                let log = state.selected_table().is_some();
                let frame = log && state.workspace.selection.frame.is_some();
                if ui
                    .add_enabled(frame, egui::Button::new("Copy frame  Ctrl+C"))
                    .clicked()
                {
                    commands.send(StackCommand::CopyFrame);
                    ui.close();
                }
                if ui
                    .add_enabled(
                        log,
                        egui::Button::new("Copy symbolicated trace  Ctrl+Shift+C"),
                    )
                    .clicked()
                {
                    commands.send(StackCommand::CopyTrace);
                    ui.close();
                }
                ui.label(RichText::new("Paste a trace: Ctrl+V").weak());
            });
            let view_menu = ui.menu_button("View", |ui| {
                let theme = if state.workspace.layout.dark {
                    "Light theme"
                } else {
                    "Dark theme"
                };
                if ui.button(theme).clicked() {
                    commands.send(WindowCommand::ToggleTheme);
                    ui.close();
                }
                ui.separator();
                // Each pane that can be opened here, "Show …" or "Hide …".
                let wanted = state.wanted_panes();
                for pane in [Pane::Inputs, Pane::Detail, Pane::Inspector, Pane::Timings] {
                    let open = wanted.contains(&pane);
                    let verb = if open { "Hide" } else { "Show" };
                    let name = pane.title().to_lowercase();
                    if ui.button(format!("{verb} {name}")).clicked() {
                        commands.send(if open {
                            WindowCommand::ClosePane(pane)
                        } else {
                            WindowCommand::OpenPane(pane)
                        });
                        ui.close();
                    }
                }
                if !state.workspace.buckets.sources.is_empty()
                    && !wanted.contains(&Pane::Buckets)
                    && ui.button("Show buckets").clicked()
                {
                    commands.send(WindowCommand::OpenPane(Pane::Buckets));
                    ui.close();
                }
                ui.separator();
                if ui
                    .button("Reset layout")
                    .on_hover_text("Put the tiles back where they were at first")
                    .clicked()
                {
                    commands.send(WindowCommand::ResetLayout);
                    ui.close();
                }
            });
            let help = ui.menu_button("Help", |ui| {
                if ui.button("Shortcuts  F1").clicked() {
                    commands.send(WindowCommand::ToggleShortcuts);
                    ui.close();
                }
            });
            // From the keyboard: F10 opens File; Alt with a menu's first letter opens it.
            let menus = [
                (&file.response, egui::Key::F),
                (&edit_menu.response, egui::Key::E),
                (&view_menu.response, egui::Key::V),
                (&help.response, egui::Key::H),
            ];
            for (k, (button, letter)) in menus.into_iter().enumerate() {
                let asked = ui.input_mut(|i| {
                    (k == 0 && i.consume_key(egui::Modifiers::NONE, egui::Key::F10))
                        || i.consume_key(egui::Modifiers::ALT, letter)
                });
                if asked {
                    egui::Popup::open_id(ui.ctx(), egui::Popup::default_response_id(button));
                    button.request_focus();
                    ui.ctx().request_repaint();
                }
            }
            ui.separator();
            let mut filter = state.view.stack.filter.clone();
            let edit = ui.add(
                egui::TextEdit::singleline(&mut filter)
                    .id(filter_id())
                    .hint_text("Filter frames (Ctrl+F)")
                    .desired_width(theme::FILTER_WIDTH),
            );
            if edit.changed() {
                commands.send(StackCommand::SetFilter(filter));
            }
            if ui.input(|i| i.modifiers.command && i.key_pressed(egui::Key::F)) {
                edit.request_focus();
            }
            let raw = state.workspace.layout.raw_frames;
            if ui.selectable_label(raw, "Raw frames").clicked() {
                commands.send(StackCommand::ToggleRaw);
            }
        });
    });
}
