//! The inspector's two code panes: the generated code around the chosen segment and the
//! original source it maps to, each segment in its colour, hover linking both sides.

use super::*;
use crate::app::InspectorCommand;

/// Paints a layout job, and reports which piece (segment) the pointer is over.
pub(super) fn pieces_ui(
    ui: &mut egui::Ui,
    job: LayoutJob,
    pieces: &[(usize, usize, usize)],
) -> (egui::Response, Option<usize>) {
    let galley = ui.painter().layout_job(job);
    let (rect, response) = ui.allocate_exact_size(galley.size(), egui::Sense::click());
    let text = galley.text().to_owned();
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, &text));
    let over = response.hover_pos().and_then(|p| {
        let c = galley.cursor_from_pos(p - rect.min).index.0;
        pieces
            .iter()
            .find(|(a, b, _)| (*a..*b).contains(&c))
            .map(|(_, _, i)| *i)
    });
    ui.painter()
        .galley(rect.min, galley, ui.visuals().text_color());
    (response, over)
}

pub(super) fn format(color: Color32, background: Color32) -> TextFormat {
    TextFormat {
        font_id: egui::FontId::monospace(theme::CODE_FONT_SIZE),
        color,
        background,
        ..Default::default()
    }
}

pub(super) fn generated_ui(
    ui: &mut egui::Ui,
    view: &InspectorView,
    marks: Marks,
    hovered_now: &mut Option<usize>,
    commands: &mut Commands,
) {
    ui.label(RichText::new(format!("Generated, line {}", view.line + 1)).strong());
    let Some(text) = &view.generated else {
        ui.label(RichText::new("Add the generated file (the bundle) to see its code here.").weak());
        return;
    };
    let Some(line) = text.line(view.line as usize) else {
        ui.label(RichText::new("The bundle has no such line.").weak());
        return;
    };
    let center = marks.focus.and_then(|i| view.gen_col(i)).unwrap_or(0);
    let (c0, c1) = (center.saturating_sub(BEFORE), center + AFTER);
    coverage_strip_ui(ui, view, (c0, c1), commands);
    let (b0, b1) = view.window(line, c0, c1);
    let slice = &line[b0..b1];
    // Walk the window once, cutting it at the segments' generated columns.
    let mut job = LayoutJob::default();
    job.wrap.max_width = ui.available_width();
    let mut pieces = Vec::new();
    let mut seg = view.segment_at(c0);
    let mut col = c0;
    let mut piece_start_byte = 0;
    let mut chars = 0usize;
    let mut piece_start_char = 0usize;
    let text_color = ui.visuals().text_color();
    let flush = |job: &mut LayoutJob,
                 pieces: &mut Vec<(usize, usize, usize)>,
                 s: &str,
                 seg: Option<usize>,
                 from: usize,
                 to: usize| {
        let bg = seg.map_or(Color32::TRANSPARENT, |i| {
            theme::segment_color(i, marks.strong(i))
        });
        job.append(s, 0.0, format(text_color, bg));
        if let Some(i) = seg {
            pieces.push((from, to, i));
        }
    };
    for (b, ch) in slice.char_indices() {
        let next = seg.map_or(0, |i| i + 1);
        if view.gen_col(next).is_some_and(|c| c <= col) {
            flush(
                &mut job,
                &mut pieces,
                &slice[piece_start_byte..b],
                seg,
                piece_start_char,
                chars,
            );
            piece_start_byte = b;
            piece_start_char = chars;
            let mut n = next;
            while view.gen_col(n + 1).is_some_and(|c| c <= col) {
                n += 1;
            }
            seg = Some(n);
        }
        col += ch.len_utf16() as u32;
        chars += 1;
    }
    flush(
        &mut job,
        &mut pieces,
        &slice[piece_start_byte..],
        seg,
        piece_start_char,
        chars,
    );
    if c0 > 0 {
        ui.label(
            RichText::new(format!("… from column {}", c0 + 1))
                .weak()
                .small(),
        );
    }
    let (response, over) = pieces_ui(ui, job, &pieces);
    if over.is_some() {
        *hovered_now = over;
    }
    if response.clicked()
        && let Some(i) = over
    {
        commands.send(InspectorCommand::SelectSegment(i));
    }
}

pub(super) fn original_ui(
    ui: &mut egui::Ui,
    view: &InspectorView,
    originals: Option<&crate::symbols::sourcemap::OriginalIndex>,
    marks: Marks,
    hovered_now: &mut Option<usize>,
) {
    let Some(i) = marks.focus else {
        ui.label(RichText::new("This line has no segments.").weak());
        return;
    };
    let Some(seg) = view.segments.get(i).filter(|s| s.source != NONE) else {
        ui.label(RichText::new("This segment maps to no original source.").weak());
        return;
    };
    let source = view.source(i).unwrap_or_default();
    // Not justified: a long path wraps as text does, its first row not spread out.
    ui.vertical(|ui| {
        ui.label(
            RichText::new(format!(
                "Original, {source}:{}:{}",
                seg.src_line + 1,
                seg.src_col + 1
            ))
            .strong(),
        );
    });
    let Some(text) = view.source_text(seg.source) else {
        ui.label(RichText::new("The map has no sourcesContent for this source.").weak());
        return;
    };
    // The whole source, a row a line (a long line cut at the pane's edge), scrolled to the
    // mapped line when the focus moves to another; lines no segment of the map maps to are
    // dimmed once the map's segments are indexed by original position.
    let text_color = ui.visuals().text_color();
    let unmapped_color = ui.visuals().weak_text_color();
    let mapped_lines = originals.map(|index| index.mapped_lines(seg.source));
    let row_height = ui.text_style_height(&egui::TextStyle::Monospace);
    // Keyed by this ui (a moved tile scrolls again) and by the pane's room.
    let scrolled_id = ui.scope_id().with("original-scrolled-to");
    let room = ui.available_size().round();
    let target = (seg.source, seg.src_line, room.x as i32, room.y as i32);
    let moved = ui.data(|d| d.get_temp::<(u32, u32, i32, i32)>(scrolled_id)) != Some(target);
    // The rest of the pane's height, at least a few rows.
    let height = ui
        .available_height()
        .max(row_height * theme::ORIGINAL_MIN_ROWS);
    let row = row_height + ui.spacing().item_spacing.y;
    let mut area = egui::ScrollArea::vertical()
        .id_salt("original")
        .max_height(height)
        .auto_shrink([false, true]);
    if moved {
        // The mapped line in the middle of the pane.
        let above = (height / row / 2.0).floor() as u32;
        let top = seg.src_line.saturating_sub(above) as f32;
        area = area.vertical_scroll_offset(top * row);
        ui.data_mut(|d| d.insert_temp(scrolled_id, target));
    }
    let by_line = view.original_marks(seg.source);
    // Characters a row can show (a monospace character is over 0.4 of a row's height wide).
    let max_chars = (ui.available_width() / (row_height * 0.4)) as usize;
    area.show_rows(ui, row_height, text.line_count(), |ui, rows| {
        for n in rows.start as u32..rows.end as u32 {
            let Some(line) = text.line(n as usize) else {
                continue;
            };
            let unmapped = mapped_lines
                .as_ref()
                .is_some_and(|m| m.binary_search(&n).is_err());
            let text_color = if unmapped { unmapped_color } else { text_color };
            // The segments of this generated line that map into this original line.
            let mapped = by_line.get(&n).map_or(&[][..], Vec::as_slice);
            let mut job = LayoutJob::default();
            // One row a line, cut at the pane's edge: a long line must not widen it.
            job.wrap.max_width = ui.available_width();
            job.wrap.max_rows = 1;
            job.wrap.break_anywhere = true;
            job.append(
                &format!("{:>6}  ", n + 1),
                0.0,
                format(ui.visuals().weak_text_color(), Color32::TRANSPARENT),
            );
            let prefix_chars = 8;
            let mut pieces = Vec::new();
            let mut at_byte = 0;
            let mut at_char = 0;
            // The columns are sorted: each is found walking on from the one before (a
            // minified original line may hold thousands), and none past the pane's edge.
            let mut cursor = crate::model::Utf16Cursor::default();
            for &(col, k) in mapped {
                if at_char > max_chars {
                    break;
                }
                let Some(b) = cursor.seek_col(line, col) else {
                    break;
                };
                if b < at_byte {
                    continue;
                }
                job.append(
                    &line[at_byte..b],
                    0.0,
                    format(text_color, Color32::TRANSPARENT),
                );
                at_char += line[at_byte..b].chars().count();
                // Colour the token that starts at the mapped column.
                let len: usize = line[b..]
                    .char_indices()
                    .find(|&(j, c)| j > 0 && !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .map_or(line.len() - b, |(j, _)| j)
                    .max(line[b..].chars().next().map_or(0, char::len_utf8));
                let token = &line[b..b + len];
                let strong = marks.strong(k);
                job.append(
                    token,
                    0.0,
                    format(text_color, theme::segment_color(k, strong)),
                );
                let n_chars = token.chars().count();
                pieces.push((prefix_chars + at_char, prefix_chars + at_char + n_chars, k));
                at_char += n_chars;
                at_byte = b + len;
            }
            job.append(
                &line[at_byte..],
                0.0,
                format(text_color, Color32::TRANSPARENT),
            );
            let (_, over) = pieces_ui(ui, job, &pieces);
            if over.is_some() {
                *hovered_now = over;
            }
        }
    });
}
