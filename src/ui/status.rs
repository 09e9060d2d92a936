//! The status bar: running jobs with their progress and a cancel button each, a passing
//! notice ("Saved x.ron"), and the error count, which opens the list of errors.

use super::theme;
use crate::app::{AppState, Commands};
use crate::app::{InputCommand, WindowCommand};
use egui::RichText;

/// Running jobs with progress and cancel buttons, and the error count.
pub(super) fn status_bar_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    egui::Panel::bottom("status").show(ui, |ui| {
        ui.horizontal(|ui| {
            let running = state.jobs.running();
            if let Some((_, notice)) = &state.notice {
                ui.label(RichText::new(notice).color(theme::NOTICE));
            } else if running.is_empty() {
                ui.label(RichText::new("Ready").weak());
            }
            for (id, progress) in running.iter().take(4) {
                let name = state.job_name(*id).unwrap_or("job");
                if progress.total == 0 && progress.done > 0 {
                    // A phase that cannot know its total (the functions of a debug file)
                    // says how far it has got.
                    ui.label(format!(
                        "{name}: {}, {} done",
                        progress.phase, progress.done
                    ));
                } else {
                    ui.label(format!("{name}: {}", progress.phase));
                }
                let bar = if progress.total > 0 {
                    egui::ProgressBar::new(progress.done as f32 / progress.total as f32)
                        .show_percentage()
                } else {
                    egui::ProgressBar::new(0.0).animate(true)
                };
                ui.add(bar.desired_width(theme::STATUS_BAR_WIDTH));
                let what = format!("Cancel {name}");
                let cancel = ui.small_button("Cancel").on_hover_text(&what);
                // Several jobs may run: each button is named after its job.
                cancel.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &what));
                if cancel.clicked() {
                    commands.send(InputCommand::CancelJob(*id));
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if !state.errors.is_empty() {
                    let n = state.errors.len();
                    let label = format!("{n} {}", if n == 1 { "error" } else { "errors" });
                    let last = state
                        .errors
                        .last()
                        .map(|e| e.message.clone())
                        .unwrap_or_default();
                    // Opens the list; nothing is dismissed until the user says so there.
                    if ui
                        .button(RichText::new(label).color(theme::ERROR))
                        .on_hover_text(last)
                        .clicked()
                    {
                        commands.send(WindowCommand::ToggleErrors);
                    }
                }
            });
        });
    });
    if state.errors_open && !state.errors.is_empty() {
        errors_ui(ui, state, commands);
    }
}

/// The list of messages: each with its time, dismissable one by one or all at once.
fn errors_ui(ui: &egui::Ui, state: &AppState, commands: &mut Commands) {
    let mut open = true;
    egui::Window::new("Errors")
        .open(&mut open)
        .default_width(theme::ERRORS_WIDTH)
        .show(ui.ctx(), |ui| {
            ui.horizontal(|ui| {
                if ui.button("Dismiss all").clicked() {
                    commands.send(WindowCommand::DismissErrors);
                }
            });
            ui.separator();
            egui::ScrollArea::vertical().show(ui, |ui| {
                for (i, e) in state.errors.iter().enumerate() {
                    ui.horizontal_wrapped(|ui| {
                        let what = format!("Dismiss error {}", i + 1);
                        let dismiss = ui.small_button("x").on_hover_text(&what);
                        dismiss.widget_info(|| {
                            egui::WidgetInfo::labeled(egui::Role::Button, true, &what)
                        });
                        if dismiss.clicked() {
                            commands.send(WindowCommand::DismissError(i));
                        }
                        ui.label(RichText::new(e.time()).monospace().weak());
                        ui.label(RichText::new(&e.message).color(theme::ERROR));
                    });
                }
            });
        });
    if !open {
        commands.send(WindowCommand::ToggleErrors);
    }
}
