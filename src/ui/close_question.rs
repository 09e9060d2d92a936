//! "Save changes before closing?": shown when the window is closed with unsaved changes.

use crate::app::{AppState, CloseAnswer, Closing, Commands, WindowCommand};

/// The question, over a dimmed window, while the app is asking; Escape or a click outside
/// is Cancel.
pub(super) fn close_question_ui(ctx: &egui::Context, state: &AppState, commands: &mut Commands) {
    if state.closing != Closing::Asking {
        return;
    }
    let name = state.workspace_path.as_deref().map_or_else(
        || "this workspace".to_owned(),
        |p| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        },
    );
    let modal = egui::Modal::new(egui::Id::unique("close-question")).show(ctx, |ui| {
        ui.set_max_width(super::theme::QUESTION_WIDTH);
        ui.heading(format!("Save changes to {name} before closing?"));
        ui.label("Your changes are lost if you don't save them.");
        ui.add_space(super::theme::QUESTION_GAP);
        ui.horizontal(|ui| {
            if ui.button("Save").clicked() {
                commands.send(WindowCommand::Close(CloseAnswer::Save));
            }
            if ui.button("Don't save").clicked() {
                commands.send(WindowCommand::Close(CloseAnswer::Discard));
            }
            if ui.button("Cancel").clicked() {
                commands.send(WindowCommand::Close(CloseAnswer::Cancel));
            }
        });
    });
    if modal.should_close() {
        commands.send(WindowCommand::Close(CloseAnswer::Cancel));
    }
}
