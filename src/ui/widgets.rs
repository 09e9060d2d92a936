//! Small pieces the panels share: a windowed list's row, a job's bar, a place as
//! `file:line:column`, a path's file name.

use super::theme;
use egui::RichText;

/// A path's file name (the whole path when it has none).
pub(super) fn file_name(p: &std::path::Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A running job's bar: its phase and, when the job knows its total, how far it is.
pub(super) fn progress_ui(ui: &mut egui::Ui, progress: Option<&crate::jobs::JobProgress>) {
    let Some(p) = progress else {
        ui.spinner();
        return;
    };
    let bar = if p.total > 0 {
        let fraction = p.done as f32 / p.total as f32;
        egui::ProgressBar::new(fraction).text(format!("{} {:.0}%", p.phase, fraction * 100.0))
    } else {
        egui::ProgressBar::new(0.0)
            .animate(true)
            .text(p.phase.clone())
    };
    ui.add(bar.desired_width(theme::INPUT_BAR_WIDTH));
}

/// One full-width, left-aligned row of the stack list, painted directly (only visible rows
/// are laid out at all) and named for screen readers and tests by its text.
pub(super) fn list_row(
    ui: &mut egui::Ui,
    text: RichText,
    selected: bool,
    clickable: bool,
) -> egui::Response {
    let width = ui.available_width().max(theme::ROW_HEIGHT);
    let sense = if clickable {
        egui::Sense::click()
    } else {
        egui::Sense::hover()
    };
    let (rect, response) = ui.allocate_exact_size(egui::vec2(width, theme::ROW_HEIGHT), sense);
    let label = text.text().to_owned();
    // A selected row's text takes the selection's colour: the row's own (a status colour)
    // would not read on the selection in the light theme.
    let text = if selected {
        text.color(ui.visuals().selection.stroke.color)
    } else {
        text
    };
    let role = if clickable {
        egui::Role::Button
    } else {
        egui::Role::Label
    };
    response.widget_info(|| egui::WidgetInfo::labeled(role, true, &label));
    if ui.is_rect_visible(rect) {
        let visuals = ui.style().interact_selectable(&response, selected);
        if selected || (clickable && response.hovered()) {
            ui.painter()
                .rect_filled(rect, theme::CORNER_RADIUS, visuals.weak_bg_fill);
        }
        let galley = egui::WidgetText::from(text).into_galley(
            ui,
            Some(egui::TextWrapMode::Truncate),
            rect.width() - 2.0 * theme::ROW_PADDING,
            egui::TextStyle::Monospace,
        );
        let pos = egui::pos2(
            rect.left() + theme::ROW_PADDING,
            rect.center().y - galley.size().y / 2.0,
        );
        ui.painter().galley(pos, galley, visuals.text_color());
    }
    response
}

pub(super) use crate::app::place;

/// What every position on screen is counted from (said where positions are shown).
pub(super) const ONE_BASED: &str = "Lines and columns are counted from 1 everywhere in Symscope, \
     as engines print them and editors show them";

/// Enter ends the edit in a text field; it is taken here so that it does not also act on
/// whatever the keys go to next (a log's link, the stack list's Enter that inspects a frame).
pub fn take_enter(ui: &mut egui::Ui, edit: &egui::Response) {
    if edit.lost_focus() {
        ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Enter));
    }
}
