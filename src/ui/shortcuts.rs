//! The shortcuts window (F1, Help → Shortcuts): every key the window answers to, and what
//! positions on screen are counted from.

use crate::app::WindowCommand;
use crate::app::{AppState, Commands};

/// Every shortcut, as (keys, what they do).
pub const SHORTCUTS: &[(&str, &str)] = &[
    ("Ctrl+V", "paste a trace as a new log"),
    ("Ctrl+C", "copy the selected frame"),
    (
        "Ctrl+Shift+C",
        "copy the whole symbolicated trace (as the CLI prints it)",
    ),
    (
        "Ctrl+S",
        "save the workspace (a new one or a template asks where)",
    ),
    ("Ctrl+Shift+S", "save the workspace as…"),
    ("Ctrl+O", "open a workspace"),
    ("Ctrl+F", "filter the frames"),
    ("Esc", "clear the filter"),
    ("↑ ↓", "previous / next frame"),
    ("PgUp PgDn", "a page of frames up / down"),
    ("Home End", "first / last frame"),
    (
        "→",
        "open the folded row below the frame (library or hidden frames, candidates)",
    ),
    ("←", "fold the group or exception the frame is in"),
    ("Enter", "inspect the frame's source-map segment"),
    ("F1", "this list"),
    ("F10, Alt+F E V H", "open the File, Edit, View or Help menu"),
];

/// The shortcuts window, when open.
pub(super) fn shortcuts_ui(ctx: &egui::Context, state: &AppState, commands: &mut Commands) {
    if !state.view.shortcuts_open {
        return;
    }
    let mut open = true;
    egui::Window::new("Shortcuts")
        .open(&mut open)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            egui::Grid::new("shortcuts").striped(true).show(ui, |ui| {
                for (keys, what) in SHORTCUTS {
                    ui.label(egui::RichText::new(*keys).monospace().strong());
                    ui.label(*what);
                    ui.end_row();
                }
            });
            ui.separator();
            ui.label(egui::RichText::new(super::widgets::ONE_BASED).weak());
        });
    if !open {
        commands.send(WindowCommand::ToggleShortcuts);
    }
}
