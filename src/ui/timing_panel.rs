//! The timing panel (after puffin's flamegraph): one bar per finished job split into its
//! phases, on one scale, exact figures on hover, and the phases as a table.

use super::theme;
use crate::app::AppState;
use egui::RichText;

/// One bar per finished job split into its phases, newest at the bottom.
/// What does not fit its tile scrolls inside it.
pub(super) fn timing_panel_ui(ui: &mut egui::Ui, state: &AppState) {
    egui::ScrollArea::both()
        .id_salt("timing-scroll")
        .show(ui, |ui| {
            timeline_ui(ui, state, &TimelineOptions::default());
            ui.separator();
            timing_table_ui(ui, state);
        });
}

/// Options of the timing timeline (after puffin's flamegraph options).
struct TimelineOptions {
    /// Spans narrower than this (points) are not painted.
    cull_width: f32,
    /// Height of one job's bar.
    bar_height: f32,
}

impl Default for TimelineOptions {
    fn default() -> Self {
        Self {
            cull_width: 0.5,
            bar_height: theme::TIMING_BAR_HEIGHT,
        }
    }
}

/// What painting one bar needs.
struct PaintCtx {
    canvas: egui::Rect,
    /// The longest job on screen: every bar uses the same scale.
    max_ns: f64,
}

impl PaintCtx {
    fn x_from_ns(&self, ns: u64) -> f32 {
        self.canvas.left() + self.canvas.width() * (ns as f64 / self.max_ns).min(1.0) as f32
    }
}

/// One bar per finished job, split into its phases; exact figures on hover.
fn timeline_ui(ui: &mut egui::Ui, state: &AppState, options: &TimelineOptions) {
    let jobs: Vec<&crate::app::JobTiming> = state.timings.iter().rev().take(40).collect();
    let max_ns = jobs
        .iter()
        .map(|t| t.elapsed.as_nanos() as f64)
        .fold(1.0, f64::max);
    for t in jobs {
        ui.label(
            RichText::new(format!(
                "{}  {:.2} ms",
                t.name,
                t.elapsed.as_secs_f64() * 1e3
            ))
            .small(),
        );
        let (canvas, response) = ui.allocate_exact_size(
            egui::vec2(ui.available_width(), options.bar_height),
            egui::Sense::hover(),
        );
        let paint = PaintCtx { canvas, max_ns };
        let painter = ui.painter_at(canvas);
        painter.rect_filled(canvas, theme::CORNER_RADIUS, ui.visuals().faint_bg_color);
        let mut hovered: Option<String> = None;
        for span in &t.spans {
            let (x0, x1) = (paint.x_from_ns(span.start_ns), paint.x_from_ns(span.end_ns));
            if x1 - x0 < options.cull_width {
                continue;
            }
            let rect = egui::Rect::from_x_y_ranges(x0..=x1, canvas.y_range());
            painter.rect_filled(rect, 1.0, theme::color_for(&span.phase));
            if response.hover_pos().is_some_and(|p| rect.contains(p)) {
                let share = 100.0 * span.ms() / (t.elapsed.as_secs_f64() * 1e3).max(1e-9);
                hovered = Some(format!(
                    "{}: {:.3} ms ({share:.0}% of the job)",
                    span.phase,
                    span.ms()
                ));
            }
        }
        if let Some(text) = hovered {
            response.on_hover_text(text);
        }
    }
}

/// The phases of every job as text.
fn timing_table_ui(ui: &mut egui::Ui, state: &AppState) {
    egui::Grid::new("timing-table")
        .striped(true)
        .show(ui, |ui| {
            ui.label(RichText::new("job").strong());
            ui.label(RichText::new("phases").strong());
            ui.end_row();
            for t in state.timings.iter().rev().take(40) {
                ui.label(&t.name);
                let phases: Vec<String> = t
                    .spans
                    .iter()
                    .map(|s| format!("{} {:.2} ms", s.phase, s.ms()))
                    .collect();
                ui.label(phases.join(" · "));
                ui.end_row();
            }
        });
}
