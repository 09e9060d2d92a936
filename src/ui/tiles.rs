//! The tiles (`egui_tiles`): each pane drawn by its panel's `*_ui` function. The tree is the
//! app's ([`AppState::layout`]); it is drawn from a copy, and a copy the user changed (a
//! drag, a resize, a tab picked) goes back as a command. A tab's close button asks the app
//! to close what the pane shows.

use super::{
    buckets, frame_detail, inspector, memory, profile, stack_list, theme, timing_panel,
    workspace_panel,
};
use crate::app::{AppState, Commands, Pane, Views, WindowCommand};
use egui::RichText;
use egui_tiles::{Behavior, EditAction, SimplificationOptions, TileId, Tiles, UiResponse};

/// What a pane needs to draw itself and where its commands go.
struct PaneDrawer<'a> {
    state: &'a AppState,
    views: &'a Views,
    commands: &'a mut Commands,
    /// The user changed the tree this frame.
    edited: bool,
}

impl Behavior<Pane> for PaneDrawer<'_> {
    fn pane_ui(&mut self, ui: &mut egui::Ui, _tile: TileId, pane: &mut Pane) -> UiResponse {
        let (state, views) = (self.state, self.views);
        egui::Frame::new()
            .inner_margin(theme::TILE_MARGIN)
            .show(ui, |ui| {
                ui.set_min_size(ui.available_size());
                match *pane {
                    Pane::Inputs => workspace_panel::inputs_pane_ui(ui, state, self.commands),
                    Pane::Stack => {
                        stack_list::stack_list_ui(ui, state, views.rows.as_deref(), self.commands)
                    }
                    Pane::Detail => frame_detail::frame_detail_ui(
                        ui,
                        state,
                        views.detail.as_deref(),
                        self.commands,
                    ),
                    Pane::Inspector => match &views.inspector {
                        Some(view) => inspector::inspector_ui(ui, state, view, self.commands),
                        None => {
                            ui.label(
                                RichText::new(
                                    "Load a source map (or select a frame that maps through \
                                     one) to see its segments.",
                                )
                                .weak(),
                            );
                        }
                    },
                    Pane::Buckets => buckets::buckets_ui(ui, state, self.commands),
                    Pane::LogCompare => buckets::log_compare_ui(ui, state),
                    Pane::MapCompare => inspector::map_compare_ui(ui, state, self.commands),
                    Pane::Timings => timing_panel::timing_panel_ui(ui, state),
                    Pane::Memory => {
                        memory::memory_ui(ui, state, views.memory.as_deref(), self.commands)
                    }
                    Pane::Profile => profile::profile_ui(
                        ui,
                        state,
                        views.profile.as_deref(),
                        views.profile_rows.as_deref().map(Vec::as_slice),
                        self.commands,
                    ),
                }
            });
        UiResponse::None
    }

    fn tab_title_for_pane(&mut self, pane: &Pane) -> egui::WidgetText {
        pane.title().into()
    }

    fn is_tab_closable(&self, tiles: &Tiles<Pane>, tile_id: TileId) -> bool {
        tiles.get_pane(&tile_id).is_some_and(|p| p.closable())
    }

    fn on_tab_close(&mut self, tiles: &mut Tiles<Pane>, tile_id: TileId) -> bool {
        if let Some(&pane) = tiles.get_pane(&tile_id) {
            self.commands.send(WindowCommand::ClosePane(pane));
        }
        // The app removes the pane once what it shows is put away.
        false
    }

    fn simplification_options(&self) -> SimplificationOptions {
        crate::app::tile_simplification()
    }

    fn min_size(&self) -> f32 {
        theme::TILE_MIN
    }

    fn on_edit(&mut self, _action: EditAction) {
        self.edited = true;
    }
}

/// The tiles, filling `ui`: the stack list keeps its least room ([`theme::MAIN_MIN`]).
pub(super) fn tiles_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    views: &Views,
    commands: &mut Commands,
) {
    let mut tree = state.layout.tree.clone();
    let size = ui.available_size();
    crate::app::keep_main_room(
        &mut tree,
        size,
        egui::vec2(theme::MAIN_MIN.0, theme::MAIN_MIN.1),
        theme::MAIN_MAX_SHARE,
    );
    let mut drawer = PaneDrawer {
        state,
        views,
        commands,
        edited: false,
    };
    tree.ui(&mut drawer, ui);
    if drawer.edited {
        drawer
            .commands
            .send(WindowCommand::SetTiles(Box::new(tree)));
    }
}
