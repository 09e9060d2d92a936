//! "Restore unsaved work?": shown at launch for work a Symscope that crashed or was killed
//! left in a recovery file, newest first, one at a time.

use crate::app::{AppState, Commands, WorkspaceCommand};

/// The offer, over a dimmed window, until it is answered.
pub(super) fn recovery_question_ui(ctx: &egui::Context, state: &AppState, commands: &mut Commands) {
    let Some(first) = state.recovered.first() else {
        return;
    };
    let doc = &first.doc;
    let name = doc.original.as_deref().map_or_else(
        || "an unsaved workspace".to_owned(),
        |p| p.display().to_string(),
    );
    let ago = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
        .saturating_sub(doc.written);
    let when = match ago {
        0..60 => "less than a minute ago".to_owned(),
        60..7200 => format!("{} minutes ago", ago / 60),
        _ => format!("{} hours ago", ago / 3600),
    };
    let ws = &doc.workspace;
    egui::Modal::new(egui::Id::unique("recovery-question")).show(ctx, |ui| {
        ui.set_max_width(super::theme::QUESTION_WIDTH);
        ui.heading("Restore unsaved work?");
        ui.label(format!(
            "Symscope closed without saving changes to {name} ({when}): {} inputs, {} notes.",
            ws.inputs.len(),
            ws.notes.len(),
        ));
        ui.label("Restored, they are unsaved changes; the file itself was not touched.");
        ui.add_space(super::theme::QUESTION_GAP);
        ui.horizontal(|ui| {
            if ui.button("Restore").clicked() {
                commands.send(WorkspaceCommand::Recover(true));
            }
            if ui.button("Discard").clicked() {
                commands.send(WorkspaceCommand::Recover(false));
            }
        });
    });
}
