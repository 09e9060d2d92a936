//! The window, in egui only. [`app_ui`] draws the menu and status bars and the tiles
//! (`tiles.rs`, rerun's `egui_tiles`); each pane is a `*_ui` function
//! in a file of its own that reads [`AppState`] and the frame's [`Views`] and emits
//! [`Command`](crate::app::Command)s, which the app applies at the end of the frame. No
//! panel writes state. Colours and sizes are named tokens in `theme.rs`.
//!
//! Panels: `menu.rs` (menu bar, filter), `status.rs` (jobs, errors), `workspace_panel.rs`
//! (inputs), `stack_list.rs` (frames), `frame_detail.rs` (the selected frame),
//! `timing_panel.rs` (job phases), `inspector.rs` (source-map segments), `buckets.rs` (crash
//! logs grouped by signature, two logs compared), `shortcuts.rs` (F1), `close_question.rs`
//! (Save changes before closing?), `recovery_question.rs` (Restore unsaved work?),
//! `tiles.rs` (the panes in tiles); `widgets.rs` holds
//! the pieces they share.

mod buckets;
mod close_question;
mod frame_detail;
mod inspector;
mod memory;
mod menu;
mod profile;
mod recovery_question;
mod shortcuts;
mod stack_list;
mod status;
mod theme;
mod tiles;
mod timeline;
mod timing_panel;
mod widgets;
mod workspace_panel;

use crate::app::{AppState, Commands, Views};
use egui::RichText;

/// Draws the whole window for one frame: the panels read `state` and `views` and put what
/// the user asked for in `commands` (see `AppState::frame`, which calls this).
pub fn app_ui(ui: &mut egui::Ui, state: &AppState, views: &Views, commands: &mut Commands) {
    let ctx = ui.ctx().clone();
    if ctx.style_of(egui::Theme::Light).visuals.selection.bg_fill != theme::LIGHT_SELECTION.0 {
        ctx.set_visuals_of(egui::Theme::Light, theme::light_visuals());
    }
    menu::menu_bar_ui(ui, state, commands);
    status::status_bar_ui(ui, state, commands);
    egui::CentralPanel::default()
        .frame(egui::Frame::central_panel(&ctx.global_style()).inner_margin(0.0))
        .show(ui, |ui| tiles::tiles_ui(ui, state, views, commands));
    shortcuts::shortcuts_ui(&ctx, state, commands);
    close_question::close_question_ui(&ctx, state, commands);
    recovery_question::recovery_question_ui(&ctx, state, commands);
    if !state.view.hovered.is_empty() {
        drop_overlay_ui(&ctx, &state.view.hovered);
    }
}

/// Says what a drop will add (a real label, so screen readers and tests see it too).
fn drop_overlay_ui(ctx: &egui::Context, hovered: &[String]) {
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::unique("drop-dim"),
    ));
    let rect = ctx.content_rect();
    painter.rect_filled(rect, 0.0, theme::OVERLAY_DIM);
    egui::Area::new(egui::Id::unique("drop-overlay"))
        .order(egui::Order::Tooltip)
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(ctx, |ui| {
            ui.label(
                RichText::new(format!("Drop to add {}", hovered.join(", ")))
                    .size(theme::OVERLAY_TEXT_SIZE)
                    .color(theme::OVERLAY_TEXT),
            );
        });
}
