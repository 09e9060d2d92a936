//! The inspector's segment table (windowed, in columns, the chosen segment in view) and the
//! coverage strip of the generated line.

use super::*;
use crate::app::InspectorCommand;

/// Which segments stand out in every pane (from the previous frame's hover).
#[derive(Clone, Copy)]
pub(super) struct Marks {
    /// The segment the panes centre on: the hovered one, else the selected one.
    pub(super) focus: Option<usize>,
    /// The selected segment.
    pub(super) selected: Option<usize>,
    /// The hovered segment.
    pub(super) hovered: Option<usize>,
}

impl Marks {
    /// Whether segment `i` is drawn strong.
    pub(super) fn strong(&self, i: usize) -> bool {
        self.selected == Some(i) || self.hovered == Some(i)
    }
}

pub(super) fn segment_table_ui(
    ui: &mut egui::Ui,
    view: &InspectorView,
    marks: Marks,
    hovered_now: &mut Option<usize>,
    commands: &mut Commands,
) {
    let selected = marks.selected;
    let font = egui::FontId::monospace(theme::SEGMENT_LABEL_FONT_SIZE);
    let char_width = ui
        .painter()
        .layout_no_wrap("0".to_owned(), font.clone(), Color32::WHITE)
        .size()
        .x;
    // Columns, in characters: generated column | original line:col | name | source (the
    // rest of the row, elided from the left so the file name stays).
    let columns = [0usize, 9, 22, 38];
    let header = ui.painter().layout_no_wrap(
        format!(
            "{:<9}{:<13}{:<16}{}",
            "gen col", "line:col", "name", "source"
        ),
        font.clone(),
        ui.visuals().weak_text_color(),
    );
    let (rect, header_response) = ui.allocate_exact_size(
        egui::vec2(ui.available_width(), theme::SEGMENT_ROW_HEIGHT),
        egui::Sense::hover(),
    );
    header_response.on_hover_text(crate::ui::widgets::ONE_BASED);
    ui.painter().galley(
        rect.left_center() + egui::vec2(theme::ROW_PADDING, -header.size().y / 2.0),
        header,
        ui.visuals().weak_text_color(),
    );
    let mut area = egui::ScrollArea::vertical()
        .id_salt("segments")
        .auto_shrink([false, false]);
    // Bring the selected segment into the middle of the table when the selection or the
    // table's room changes (not every frame), however long the line. Keyed by this ui: a
    // tile moved elsewhere starts a new scroll area, scrolled again.
    let key = ui.scope_id().with("segment-shown");
    let room = ui.available_size().round();
    let shown = (
        view.map_name.clone(),
        view.line,
        selected,
        room.x as i32,
        room.y as i32,
    );
    if ui
        .data(|d| d.get_temp::<(String, u32, Option<usize>, i32, i32)>(key))
        .as_ref()
        != Some(&shown)
    {
        if let Some(i) = selected {
            let row = theme::SEGMENT_ROW_HEIGHT + ui.spacing().item_spacing.y;
            let visible = ui.available_height();
            area = area.vertical_scroll_offset((i as f32 * row - visible / 2.0).max(0.0));
        }
        ui.data_mut(|d| d.insert_temp(key, shown));
    }
    area.show_rows(
        ui,
        theme::SEGMENT_ROW_HEIGHT,
        view.segments.len(),
        |ui, range| {
            for i in range {
                let Some(seg) = view.segments.get(i) else {
                    continue;
                };
                // 1-based, as everywhere on screen.
                let gen_col = view.gen_col(i).unwrap_or(0) + 1;
                let source = view.source(i).unwrap_or_default();
                let name = view.name(i).unwrap_or_default();
                let text = if seg.source == NONE {
                    format!("{gen_col:>7} → (no source)")
                } else {
                    format!(
                        "{gen_col:>7} → {source}:{}:{}  {name}",
                        seg.src_line + 1,
                        seg.src_col + 1,
                    )
                };
                let cells: [String; 4] = if seg.source == NONE {
                    [
                        gen_col.to_string(),
                        "(no source)".to_owned(),
                        String::new(),
                        String::new(),
                    ]
                } else {
                    [
                        gen_col.to_string(),
                        format!("{}:{}", seg.src_line + 1, seg.src_col + 1),
                        name.to_string(),
                        source.to_string(),
                    ]
                };
                let strong = marks.strong(i);
                let (rect, response) = ui.allocate_exact_size(
                    egui::vec2(ui.available_width(), theme::SEGMENT_ROW_HEIGHT),
                    egui::Sense::click(),
                );
                let label = format!("segment {i}: {text}");
                response
                    .widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &label));
                if ui.is_rect_visible(rect) {
                    // Clipped to the row: a long source path must not run into the next row.
                    let painter = ui.painter_at(rect);
                    painter.rect_filled(
                        rect,
                        theme::CORNER_RADIUS,
                        theme::segment_color(i, strong),
                    );
                    let width = |k: usize| {
                        columns
                            .get(k + 1)
                            .map_or(usize::MAX, |next| next - columns[k] - 1)
                    };
                    let room = ((rect.width() - theme::ROW_PADDING * 2.0) / char_width) as usize;
                    for (k, cell) in cells.iter().enumerate() {
                        let start = columns[k];
                        let fits = width(k).min(room.saturating_sub(start));
                        let shown = elide(cell, fits, k == 3);
                        painter.text(
                            rect.left_center()
                                + egui::vec2(theme::ROW_PADDING + start as f32 * char_width, 0.0),
                            egui::Align2::LEFT_CENTER,
                            shown,
                            font.clone(),
                            ui.visuals().text_color(),
                        );
                    }
                }
                if response.hovered() {
                    *hovered_now = Some(i);
                }
                let response = response.on_hover_text(RichText::new(&text).monospace());
                if response.clicked() {
                    commands.send(InspectorCommand::SelectSegment(i));
                }
            }
        },
    );
}

/// `text` cut to `chars` characters with an ellipsis: from the left (`left`, a path whose
/// file name matters) or from the right.
pub(super) fn elide(text: &str, chars: usize, left: bool) -> String {
    let n = text.chars().count();
    if n <= chars {
        return text.to_owned();
    }
    if chars == 0 {
        return String::new();
    }
    if left {
        let tail: String = text.chars().skip(n - (chars - 1)).collect();
        format!("…{tail}")
    } else {
        let head: String = text.chars().take(chars - 1).collect();
        format!("{head}…")
    }
}

/// The whole generated line as a strip: the columns some segment maps to a source, those
/// none does (before the first segment, after a segment without a source), and the stretch
/// shown below outlined. A click shows that column.
pub(super) fn coverage_strip_ui(
    ui: &mut egui::Ui,
    view: &InspectorView,
    (shown_from, shown_to): (u32, u32),
    commands: &mut Commands,
) {
    let Some(facts) = view.line_facts() else {
        return;
    };
    let (len, unmapped) = (facts.len, facts.unmapped);
    let width = ui.available_width();
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(width, theme::STRIP_HEIGHT), egui::Sense::click());
    let x = |col: u32| rect.left() + width * (col.min(len) as f32 / len as f32);
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, theme::COVERAGE_FOUND);
    // A gap at least a pixel wide; gaps in the same pixel drawn once.
    let mut last_px = f32::NEG_INFINITY;
    for &(a, b) in &facts.gaps {
        let (x0, x1) = (x(a), x(b).max(x(a) + 1.0));
        if x1 <= last_px {
            continue;
        }
        let r = egui::Rect::from_x_y_ranges(x0.max(last_px)..=x1, rect.y_range());
        painter.rect_filled(r, 0.0, theme::COVERAGE_MISSING);
        last_px = x1;
    }
    let shown = egui::Rect::from_x_y_ranges(
        x(shown_from)..=x(shown_to).max(x(shown_from) + 2.0),
        rect.y_range(),
    );
    painter.rect_stroke(
        shown,
        0.0,
        egui::Stroke::new(1.5, theme::OVERLAY_TEXT),
        egui::StrokeKind::Inside,
    );
    let name = format!(
        "Coverage of generated line {}: {unmapped} of {len} columns unmapped",
        view.line + 1
    );
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &name));
    let response = response.on_hover_text(format!(
        "Line {}: {unmapped} of its {len} columns map to no source (red); click to show a column",
        view.line + 1
    ));
    if response.clicked()
        && let Some(pos) = response.interact_pointer_pos()
    {
        let col = ((pos.x - rect.left()) / width * len as f32) as u32;
        commands.send(InspectorCommand::GoToGenerated {
            line: view.line,
            column: col.min(len - 1),
        });
    }
}
