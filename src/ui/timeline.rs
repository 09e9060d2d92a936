//! One timeline widget for every track of bars (after puffin's flamegraph and speedscope):
//! a profile's flame chart, its flame graph, and the jobs' own timings. An overview strip
//! with the visible window, a ruler whose drag selects a range, and the bars: zoom with
//! Ctrl+wheel or +/−, pan by dragging, with the wheel sideways or the arrow keys, 0 shows
//! everything. Only visible bars are drawn; bars narrower than a pixel merge into one.

use super::theme;
use crate::engine::flame::{MERGED, Rows, Span};
use egui::{Color32, Pos2, Rect, Sense, Stroke, Vec2};

/// What the timeline draws, and how it names and colours a bar.
pub(super) struct Timeline<'a> {
    /// Its id salt (each timeline keeps its own drag), and its parts' accessible names
    /// ("… bars", "… ruler", "… overview").
    pub id: &'a str,
    /// The bars.
    pub rows: &'a Rows,
    /// Coarser copies of the bars, coarsest first, with the length under which each merged
    /// bars ([`Rows::levels`]; empty: draw `rows` at every zoom).
    pub levels: &'a [(i64, Rows)],
    /// The visible window (`None`: everything).
    pub window: Option<(f64, f64)>,
    /// The selected range, when the ruler selects one (`None` in a timeline without).
    pub range: Option<Option<(i64, i64)>>,
    /// A bar's label.
    pub label: &'a dyn Fn(usize, Span) -> String,
    /// A bar's colour.
    pub color: &'a dyn Fn(usize, Span) -> Color32,
    /// Whether a bar is shown faint (not matching a search).
    pub faint: &'a dyn Fn(Span) -> bool,
    /// Whether a bar is selected.
    pub selected: &'a dyn Fn(Span) -> bool,
    /// A bar's hover text.
    pub tooltip: &'a dyn Fn(usize, Span) -> String,
    /// How the axis's units read (µs → "12.5 ms").
    pub unit: &'a dyn Fn(f64) -> String,
    /// The bars' area's height at most (it scrolls beyond).
    pub max_height: f32,
    /// A track under another timeline: no overview strip and no ruler of its own.
    pub compact: bool,
}

/// What the user did to the timeline this frame.
#[derive(Default)]
pub(super) struct TimelineResponse {
    /// A new visible window (`Some(None)`: everything).
    pub window: Option<Option<(f64, f64)>>,
    /// A new range (`Some(None)`: cleared).
    pub range: Option<Option<(i64, i64)>>,
    /// The bar clicked, with its row.
    pub clicked: Option<(usize, Span)>,
}

/// Maps the window onto a rect's x.
#[derive(Clone, Copy)]
struct Axis {
    rect: Rect,
    from: f64,
    to: f64,
}

impl Axis {
    fn x(&self, v: f64) -> f32 {
        self.rect.left() + ((v - self.from) / (self.to - self.from)) as f32 * self.rect.width()
    }

    fn value(&self, x: f32) -> f64 {
        self.from + f64::from((x - self.rect.left()) / self.rect.width()) * (self.to - self.from)
    }
}

impl Timeline<'_> {
    /// Draws the timeline and reads the user's input on it.
    pub fn show(&self, ui: &mut egui::Ui) -> TimelineResponse {
        let mut out = TimelineResponse::default();
        let (full_from, full_to) = (
            self.rows.start as f64,
            (self.rows.end as f64).max(self.rows.start as f64 + 1.0),
        );
        let (mut from, mut to) = self.window.unwrap_or((full_from, full_to));
        let width = ui.available_width().max(1.0);

        let name = |part: &str| format!("{} {part}", self.id);
        let mut overview_hovered = false;
        if !self.compact {
            // Overview: everything, the visible window framed; a click or drag centres it.
            let (overview, o_resp) = ui.allocate_exact_size(
                Vec2::new(width, theme::TIMELINE_OVERVIEW_HEIGHT),
                Sense::click_and_drag(),
            );
            o_resp.widget_info(|| {
                egui::WidgetInfo::labeled(egui::Role::Canvas, true, name("overview"))
            });
            let o_axis = Axis {
                rect: overview,
                from: full_from,
                to: full_to,
            };
            let painter = ui.painter_at(overview);
            painter.rect_filled(overview, 0.0, ui.visuals().faint_bg_color);
            for row in 0..self.rows.rows.len().min(theme::TIMELINE_OVERVIEW_ROWS) {
                let h = overview.height() / theme::TIMELINE_OVERVIEW_ROWS as f32;
                let y = overview.top() + row as f32 * h;
                self.paint_row(&painter, o_axis, row, y, h, false);
            }
            let shown = Rect::from_x_y_ranges(o_axis.x(from)..=o_axis.x(to), overview.y_range());
            painter.rect_stroke(
                shown,
                0.0,
                Stroke::new(1.5, ui.visuals().strong_text_color()),
                egui::StrokeKind::Inside,
            );
            if let Some(p) = o_resp.interact_pointer_pos()
                && (o_resp.clicked() || o_resp.dragged())
            {
                let half = (to - from) / 2.0;
                let c = o_axis.value(p.x).clamp(full_from + half, full_to - half);
                (from, to) = (c - half, c + half);
                out.window = Some(Some((from, to)));
            }

            // Ruler: ticks; a drag selects a range, a click clears it.
            let (ruler, r_resp) = ui.allocate_exact_size(
                Vec2::new(width, theme::TIMELINE_RULER_HEIGHT),
                if self.range.is_some() {
                    Sense::click_and_drag()
                } else {
                    Sense::hover()
                },
            );
            r_resp
                .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Canvas, true, name("ruler")));
            let axis = Axis {
                rect: ruler,
                from,
                to,
            };
            self.paint_ruler(ui, axis);
            if let Some(Some((a, b))) = self.range {
                let r = Rect::from_x_y_ranges(
                    axis.x(a as f64).max(ruler.left())..=axis.x(b as f64).min(ruler.right()),
                    ruler.y_range(),
                );
                ui.painter_at(ruler)
                    .rect_filled(r, 0.0, theme::TIMELINE_RANGE);
            }
            if self.range.is_some() {
                let start_id = ui.make_persistent_id((self.id, "range-start"));
                if r_resp.drag_started()
                    && let Some(p) = r_resp.interact_pointer_pos()
                {
                    ui.data_mut(|d| d.insert_temp(start_id, axis.value(p.x)));
                }
                if r_resp.dragged()
                    && let (Some(p), Some(a)) = (
                        r_resp.interact_pointer_pos(),
                        ui.data(|d| d.get_temp::<f64>(start_id)),
                    )
                {
                    let b = axis.value(p.x);
                    out.range = Some(Some((a.min(b).round() as i64, a.max(b).round() as i64)));
                }
                if r_resp.clicked() {
                    out.range = Some(None);
                }
                r_resp.on_hover_text("Drag to select a time range; click to clear it");
            }
            overview_hovered = o_resp.hovered();
        }
        // The bars.
        let rows = self.rows.rows.len().max(1);
        let height = rows as f32 * theme::TIMELINE_ROW_HEIGHT;
        egui::ScrollArea::vertical()
            .id_salt((self.id, "bars"))
            .max_height(self.max_height)
            .auto_shrink([false, true])
            .show(ui, |ui| {
                let (canvas, resp) =
                    ui.allocate_exact_size(Vec2::new(width, height), Sense::click_and_drag());
                resp.widget_info(|| {
                    egui::WidgetInfo::labeled(egui::Role::Canvas, true, name("bars"))
                });
                let axis = Axis {
                    rect: canvas,
                    from,
                    to,
                };
                let painter = ui.painter_at(canvas);
                let clip = ui.clip_rect();
                for row in 0..self.rows.rows.len() {
                    let y = canvas.top() + row as f32 * theme::TIMELINE_ROW_HEIGHT;
                    if y > clip.bottom() || y + theme::TIMELINE_ROW_HEIGHT < clip.top() {
                        continue;
                    }
                    self.paint_row(
                        &painter,
                        axis,
                        row,
                        y,
                        theme::TIMELINE_ROW_HEIGHT - 1.0,
                        true,
                    );
                }
                if let Some(Some((a, b))) = self.range {
                    // Outside the range: shaded.
                    let shade = ui.visuals().extreme_bg_color.gamma_multiply(0.6);
                    let (xa, xb) = (axis.x(a as f64), axis.x(b as f64));
                    for r in [canvas.left()..=xa, xb..=canvas.right()] {
                        if r.end() > r.start() {
                            painter.rect_filled(
                                Rect::from_x_y_ranges(r, canvas.y_range()),
                                0.0,
                                shade,
                            );
                        }
                    }
                }
                let hit = |p: Pos2| -> Option<(usize, Span)> {
                    let row = ((p.y - canvas.top()) / theme::TIMELINE_ROW_HEIGHT) as usize;
                    // A bar narrower than a pixel is hit within a pixel of the pointer.
                    let slack = (to - from) / f64::from(canvas.width());
                    let v = axis.value(p.x);
                    self.rows
                        .visible(row, (v - slack) as i64, (v + slack) as i64 + 1)
                        .iter()
                        .min_by_key(|s| ((s.start as f64 + s.end as f64) / 2.0 - v).abs() as i64)
                        .map(|&s| (row, s))
                };
                if let Some(p) = resp.hover_pos()
                    && let Some((row, span)) = hit(p)
                {
                    let text = (self.tooltip)(row, span);
                    resp.clone().on_hover_ui_at_pointer(|ui| {
                        ui.label(text);
                    });
                }
                if resp.clicked()
                    && let Some(p) = resp.interact_pointer_pos()
                {
                    out.clicked = hit(p);
                }
                if resp.dragged() {
                    let dx =
                        f64::from(resp.drag_delta().x) / f64::from(canvas.width()) * (to - from);
                    (from, to) = (from - dx, to - dx);
                    out.window = Some(Some((from, to)));
                }
                // Wheel and keys act while the pointer is over the timeline.
                if resp.hovered() || overview_hovered {
                    let (zoom, scroll, keys) = ui.input(|i| {
                        let k = |key| i.key_pressed(key);
                        (
                            i.zoom_delta(),
                            i.smooth_scroll_delta.x,
                            [
                                k(egui::Key::Plus) || k(egui::Key::Equals),
                                k(egui::Key::Minus),
                                k(egui::Key::ArrowLeft),
                                k(egui::Key::ArrowRight),
                                k(egui::Key::Num0),
                            ],
                        )
                    });
                    let centre = resp
                        .hover_pos()
                        .map_or((from + to) / 2.0, |p| axis.value(p.x));
                    let mut factor = 1.0 / f64::from(zoom);
                    if keys[0] {
                        factor *= 0.5;
                    }
                    if keys[1] {
                        factor *= 2.0;
                    }
                    let mut shift = -f64::from(scroll) / f64::from(canvas.width()) * (to - from);
                    if keys[2] {
                        shift -= (to - from) * 0.2;
                    }
                    if keys[3] {
                        shift += (to - from) * 0.2;
                    }
                    if keys[4] {
                        out.window = Some(None);
                    } else if factor != 1.0 || shift != 0.0 {
                        let (a, b) = (
                            centre - (centre - from) * factor + shift,
                            centre + (to - centre) * factor + shift,
                        );
                        out.window = Some(Some((a, b)));
                    }
                }
            });
        if let Some(Some((a, b))) = out.window {
            out.window = Some(clamp_window(a, b, full_from, full_to));
        }
        out
    }

    /// The bars of `row` between the window's edges; those under a pixel wide merge.
    fn paint_row(
        &self,
        painter: &egui::Painter,
        axis: Axis,
        row: usize,
        y: f32,
        h: f32,
        labels: bool,
    ) {
        // The coarsest level whose merged bars are under half a pixel.
        let pixel = (axis.to - axis.from) / f64::from(axis.rect.width().max(1.0));
        let rows = self
            .levels
            .iter()
            .find(|(min_len, _)| (*min_len as f64) <= pixel / 2.0)
            .map_or(self.rows, |(_, r)| r);
        let spans = rows.visible(row, axis.from.floor() as i64, axis.to.ceil() as i64 + 1);
        let merged_color = theme::TIMELINE_MERGED;
        let mut pending: Option<(f32, f32)> = None;
        let flush = |pending: &mut Option<(f32, f32)>| {
            if let Some((a, b)) = pending.take() {
                let r = Rect::from_min_max(Pos2::new(a, y), Pos2::new(b.max(a + 1.0), y + h));
                painter.rect_filled(r, 0.0, merged_color);
            }
        };
        let mut i = 0;
        while i < spans.len() {
            let s = spans[i];
            let (x0, x1) = (axis.x(s.start as f64), axis.x(s.end as f64));
            if x1 - x0 < 1.0 {
                // Every bar that starts within this pixel merges into one block, found by a
                // binary search: the cost is the row's pixels, never its bars.
                let next = axis.value(x0.floor() + 1.0);
                let mut j = gallop(spans, i + 1, |t| (t.start as f64) < next);
                if j - 1 > i
                    && axis.x(spans[j - 1].end as f64) - axis.x(spans[j - 1].start as f64) >= 1.0
                {
                    j -= 1;
                }
                let end = axis.x(spans[j - 1].end as f64);
                match &mut pending {
                    Some((_, b)) if x0 - *b < 1.0 => *b = b.max(end),
                    _ => {
                        flush(&mut pending);
                        pending = Some((x0, end));
                    }
                }
                i = j;
                continue;
            }
            i += 1;
            flush(&mut pending);
            if s.id == MERGED {
                pending = Some((x0, x1));
                flush(&mut pending);
                continue;
            }
            let rect = Rect::from_min_max(
                Pos2::new(x0.max(axis.rect.left() - 1.0), y),
                Pos2::new(x1.min(axis.rect.right() + 1.0), y + h),
            );
            let mut color = (self.color)(row, s);
            if (self.faint)(s) {
                color = color.gamma_multiply(0.25);
            }
            painter.rect_filled(rect, 1.0, color);
            if (self.selected)(s) {
                painter.rect_stroke(
                    rect,
                    1.0,
                    Stroke::new(2.0, theme::TIMELINE_SELECTED),
                    egui::StrokeKind::Inside,
                );
            }
            if labels && rect.width() > theme::TIMELINE_LABEL_MIN {
                let text = (self.label)(row, s);
                let chars = ((rect.width() - 6.0) / theme::TIMELINE_CHAR_WIDTH) as usize;
                let shown: String = if text.chars().count() > chars {
                    let mut t: String = text.chars().take(chars.saturating_sub(1)).collect();
                    t.push('…');
                    t
                } else {
                    text
                };
                painter.with_clip_rect(rect).text(
                    Pos2::new(rect.left() + 3.0, rect.center().y),
                    egui::Align2::LEFT_CENTER,
                    shown,
                    egui::FontId::proportional(theme::TIMELINE_FONT_SIZE),
                    theme::TIMELINE_TEXT,
                );
            }
        }
        flush(&mut pending);
    }

    /// Ticks at a round step, labelled in the axis's units.
    fn paint_ruler(&self, ui: &egui::Ui, axis: Axis) {
        let painter = ui.painter_at(axis.rect);
        painter.rect_filled(axis.rect, 0.0, ui.visuals().faint_bg_color);
        let span = axis.to - axis.from;
        let target = span / f64::from((axis.rect.width() / 100.0).max(1.0));
        let magnitude = 10f64.powf(target.log10().floor());
        let step = [1.0, 2.0, 5.0, 10.0]
            .iter()
            .map(|m| m * magnitude)
            .find(|s| *s >= target)
            .unwrap_or(magnitude * 10.0);
        let base = self.rows.start as f64;
        let mut t = ((axis.from - base) / step).ceil() * step + base;
        while t <= axis.to {
            let x = axis.x(t);
            painter.line_segment(
                [
                    Pos2::new(x, axis.rect.bottom() - 5.0),
                    Pos2::new(x, axis.rect.bottom()),
                ],
                Stroke::new(1.0, theme::MUTED),
            );
            painter.text(
                Pos2::new(x + 2.0, axis.rect.center().y),
                egui::Align2::LEFT_CENTER,
                (self.unit)(t - base),
                egui::FontId::proportional(theme::TIMELINE_FONT_SIZE - 1.0),
                ui.visuals().weak_text_color(),
            );
            t += step;
        }
    }
}

/// The first index from `from` whose bar fails `before` (true, then false, along the row),
/// found by galloping from `from`: the next bars are near in memory, so a jump over a
/// pixel's worth of bars costs a few cache lines, not a binary search over the whole row.
fn gallop(spans: &[Span], from: usize, before: impl Fn(&Span) -> bool) -> usize {
    let mut lo = from;
    let mut step = 1;
    while lo + step <= spans.len() && before(&spans[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(spans.len());
    lo + spans[lo..hi].partition_point(before)
}

/// A window kept inside the axis and no narrower than a few units (`None`: everything).
fn clamp_window(a: f64, b: f64, lo: f64, hi: f64) -> Option<(f64, f64)> {
    let width = (b - a).clamp(2.0_f64.min(hi - lo), hi - lo);
    if width >= hi - lo {
        return None;
    }
    let a = a.clamp(lo, hi - width);
    Some((a, a + width))
}

/// Milliseconds from µs, to a precision that suits the value.
pub(super) fn ms(us: f64) -> String {
    let ms = us / 1e3;
    if ms.abs() >= 10_000.0 {
        format!("{:.3} s", ms / 1e3)
    } else if ms.abs() >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms.abs() >= 1.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.2} ms")
    }
}
