//! The window's design tokens (as rerun's `re_ui` keeps them): every colour and size a panel
//! uses is named here, so that panels agree and a change is made once. Colours read on both
//! the dark and the light theme; text colours otherwise come from egui's `Visuals`.

use crate::model::{FileKind, FrameStatus};
use egui::Color32;

/// Errors: a failed input, the error count, a frame not covered.
pub const ERROR: Color32 = Color32::from_rgb(230, 90, 80);
/// Warnings and things to act on: a missing file, a frame with no symbols, a frame's note.
pub const WARNING: Color32 = Color32::from_rgb(230, 160, 60);
/// A resolved frame.
pub const RESOLVED: Color32 = Color32::from_rgb(90, 190, 120);
/// The error list's width.
pub const ERRORS_WIDTH: f32 = 560.0;
/// Width of the map doctor's window.
pub const DOCTOR_WIDTH: f32 = 560.0;
/// Widest a question (Save changes before closing?) grows.
pub const QUESTION_WIDTH: f32 = 420.0;
/// Space between a question's text and its buttons.
pub const QUESTION_GAP: f32 = 8.0;
/// The inspector's share of height for the generated code (the original source has the rest).
pub const GENERATED_SHARE: f32 = 0.5;
/// Rows of original source the inspector shows at the least.
pub const ORIGINAL_MIN_ROWS: f32 = 3.0;
/// Height of the generated line's coverage strip in the inspector.
pub const STRIP_HEIGHT: f32 = 6.0;
/// Differing lines the comparison lists to choose from.
pub const COMPARE_LINES: usize = 60;
/// Where the "go to original" window sits from the window's left.
pub const ORIGINAL_LEFT: f32 = 360.0;
/// Most height of its list of sources before it scrolls.
pub const ORIGINAL_SOURCES_HEIGHT: f32 = 200.0;
/// Most height of its list of segments on a line before it scrolls.
pub const ORIGINAL_HITS_HEIGHT: f32 = 160.0;
/// Most height of the map doctor's report before it scrolls.
pub const DOCTOR_HEIGHT: f32 = 320.0;
/// A frame or exception with the user's triage note.
pub const NOTE: Color32 = Color32::from_rgb(120, 170, 230);
/// A passing notice in the status bar ("Saved x.ron").
pub const NOTICE: Color32 = Color32::from_rgb(90, 190, 120);
/// egui's own text colour (taken from the theme's `Visuals` when painted).
pub const TEXT: Color32 = Color32::PLACEHOLDER;
/// What is expected rather than wrong: library frames, skipped and unparsed lines.
pub const MUTED: Color32 = Color32::GRAY;
/// A stack's header row (the exception line).
pub const STACK_HEADER: Color32 = Color32::from_rgb(230, 120, 110);
/// The frame's line in its source context.
pub const SOURCE_HIGHLIGHT: Color32 = Color32::from_rgba_unmultiplied_const(230, 200, 60, 60);
/// The coverage report: a module whose debug file was found.
pub const COVERAGE_FOUND: Color32 = Color32::from_rgb(90, 170, 90);
/// The coverage report: a module with no debug file.
pub const COVERAGE_MISSING: Color32 = Color32::from_rgb(200, 90, 80);
/// The coverage report: a debug file of another build.
pub const COVERAGE_MISMATCH: Color32 = Color32::from_rgb(210, 160, 60);
/// Dims the window under the drop overlay.
pub const OVERLAY_DIM: Color32 = Color32::from_black_alpha(170);
/// The drop overlay's text.
pub const OVERLAY_TEXT: Color32 = Color32::WHITE;

/// The colours of segments (inspector) and phases (timings), in turn.
pub const PALETTE: [Color32; 6] = [
    Color32::from_rgb(90, 150, 230),
    Color32::from_rgb(90, 190, 120),
    Color32::from_rgb(230, 160, 60),
    Color32::from_rgb(200, 110, 200),
    Color32::from_rgb(80, 190, 200),
    Color32::from_rgb(220, 100, 90),
];

/// Opacity of a segment's colour when it stands out (hovered, selected) and when it does not.
pub const SEGMENT_ALPHA: (u8, u8) = (170, 55);

/// Corner radius of row highlights and bars.
pub const CORNER_RADIUS: f32 = 2.0;
/// Space between a row's edge and its text.
pub const ROW_PADDING: f32 = 4.0;
/// Size of code in the inspector.
pub const CODE_FONT_SIZE: f32 = 12.5;
/// Size of a segment's number in the inspector's table.
pub const SEGMENT_LABEL_FONT_SIZE: f32 = 12.0;
/// Height of a stack-list row.
pub const ROW_HEIGHT: f32 = 20.0;
/// Height of a segment-table row in the inspector.
pub const SEGMENT_ROW_HEIGHT: f32 = 18.0;
/// Width of the frame filter.
pub const FILTER_WIDTH: f32 = 220.0;
/// Width of a job's bar in the status bar.
pub const STATUS_BAR_WIDTH: f32 = 80.0;
/// Width of an input's bar in the workspace panel.
pub const INPUT_BAR_WIDTH: f32 = 140.0;
/// The least room the stack list's tile keeps (width, height), whatever the user's shares.
pub const MAIN_MIN: (f32, f32) = (420.0, 220.0);
/// The largest share of a split the stack list's minimum may claim.
pub const MAIN_MAX_SHARE: f32 = 0.8;
/// The inspector's width below which its map tools go into a menu.
pub const INSPECTOR_TOOLS_WIDTH: f32 = 860.0;
/// Space between a tile's edge and its content.
pub const TILE_MARGIN: f32 = 6.0;
/// The least size of a tile while the user resizes it.
pub const TILE_MIN: f32 = 80.0;
/// The most height the timing panel's bars take before they scroll.
pub const TIMING_BARS_HEIGHT: f32 = 240.0;
/// A job's bar in the timing panel (its phases are coloured by name).
pub const TIMING_JOB: Color32 = Color32::from_rgb(170, 180, 200);
/// The drop overlay's text size.
pub const OVERLAY_TEXT_SIZE: f32 = 22.0;

/// The badge and colour of a file kind in the workspace panel.
pub fn kind_badge(kind: FileKind) -> (&'static str, Color32) {
    match kind {
        FileKind::SourceMap => ("MAP", Color32::from_rgb(90, 150, 230)),
        FileKind::JavaScript => ("JS", Color32::from_rgb(220, 190, 60)),
        FileKind::HermesBytecode => ("HBC", Color32::from_rgb(150, 110, 220)),
        FileKind::ProguardMapping => ("R8", Color32::from_rgb(120, 200, 200)),
        FileKind::NativeSymbols => ("NAT", Color32::from_rgb(200, 140, 90)),
        FileKind::Log => ("LOG", RESOLVED),
        FileKind::Profile => ("CPU", Color32::from_rgb(230, 120, 160)),
        FileKind::HeapSnapshot => ("HEAP", Color32::from_rgb(120, 190, 230)),
        FileKind::SymbolicatedLogs => ("JSONL", Color32::from_rgb(200, 170, 120)),
        FileKind::Unknown => ("?", MUTED),
    }
}

/// The colour of a frame's status.
pub fn status_color(status: FrameStatus) -> Color32 {
    match status {
        FrameStatus::Resolved => RESOLVED,
        FrameStatus::NoSymbols => WARNING,
        FrameStatus::NotCovered => ERROR,
        FrameStatus::Unparsed | FrameStatus::Skipped => MUTED,
    }
}

/// A colour of the palette, picked stably by a name (a phase keeps its colour).
pub fn color_for(name: &str) -> Color32 {
    let h = name.bytes().fold(0usize, |a, b| {
        a.wrapping_mul(31).wrapping_add(usize::from(b))
    });
    PALETTE[h % PALETTE.len()]
}

/// Segment `i`'s colour: strong when hovered or selected, faint otherwise.
pub fn segment_color(i: usize, strong: bool) -> Color32 {
    let c = PALETTE[i % PALETTE.len()];
    let alpha = if strong {
        SEGMENT_ALPHA.0
    } else {
        SEGMENT_ALPHA.1
    };
    Color32::from_rgba_unmultiplied(c.r(), c.g(), c.b(), alpha)
}

/// Share of the Buckets panel's width the table takes (the selected bucket the rest).
pub const BUCKETS_TABLE_SHARE: f32 = 0.6;
/// Width of the Buckets table's count column.
pub const BUCKETS_COUNT_WIDTH: f32 = 68.0;
/// Height of the aligned rows of a comparison, at most (they scroll beyond).
pub const LOG_COMPARE_HEIGHT: f32 = 420.0;
/// Width of the mark column (`=`, `~`, `−`, `+`) of a comparison.
pub const LOG_COMPARE_MARK_WIDTH: f32 = 18.0;
/// Starting width of the Buckets table's top-frame column.
pub const BUCKETS_FRAME_WIDTH: f32 = 200.0;
/// Width of the Buckets table's platform column.
pub const BUCKETS_PLATFORM_WIDTH: f32 = 80.0;
/// Height of the selected bucket's list of logs.
pub const BUCKET_MEMBERS_HEIGHT: f32 = 200.0;

/// The light theme's selection: a dark blue under white text, so that a selected row reads
/// at WCAG AA contrast (4.5:1 or more); egui's own light blue carried the rows' status
/// colours at less than 2:1.
pub const LIGHT_SELECTION: (Color32, Color32) = (Color32::from_rgb(0, 84, 147), Color32::WHITE);

/// egui's light visuals with [`LIGHT_SELECTION`].
pub fn light_visuals() -> egui::Visuals {
    let mut v = egui::Visuals::light();
    v.selection.bg_fill = LIGHT_SELECTION.0;
    v.selection.stroke.color = LIGHT_SELECTION.1;
    v
}

/// Height of a timeline's overview strip.
pub const TIMELINE_OVERVIEW_HEIGHT: f32 = 30.0;
/// Rows of bars the overview strip shows.
pub const TIMELINE_OVERVIEW_ROWS: usize = 6;
/// Height of a timeline's ruler.
pub const TIMELINE_RULER_HEIGHT: f32 = 18.0;
/// Height of one row of a timeline's bars.
pub const TIMELINE_ROW_HEIGHT: f32 = 18.0;
/// The selected range on a timeline's ruler.
pub const TIMELINE_RANGE: Color32 = Color32::from_rgba_unmultiplied_const(90, 150, 230, 110);
/// The outline of a selected bar.
pub const TIMELINE_SELECTED: Color32 = Color32::from_rgb(250, 250, 120);
/// A bar narrower than this (points) has no label.
pub const TIMELINE_LABEL_MIN: f32 = 24.0;
/// The width of a label's character, to cut labels before laying them out.
pub const TIMELINE_CHAR_WIDTH: f32 = 6.5;
/// The size of a bar's label.
pub const TIMELINE_FONT_SIZE: f32 = 11.5;
/// The colour of a bar's label (bars are light).
pub const TIMELINE_TEXT: Color32 = Color32::from_rgb(20, 20, 20);
/// The most height a profile's bars take before they scroll.
pub const PROFILE_BARS_HEIGHT: f32 = 2000.0;
/// The share of the profile pane's height the CPU flame chart takes above a trace's tracks.
pub const PROFILE_CPU_SHARE: f32 = 0.55;
/// The least height of the CPU flame chart above a trace's tracks.
pub const PROFILE_CPU_MIN: f32 = 120.0;
/// Width of a time column of the call tree.
pub const PROFILE_TIME_WIDTH: f32 = 120.0;
/// Indent per depth of the call tree.
pub const PROFILE_INDENT: f32 = 14.0;
/// Width of the Memory table's constructor column (at most; it narrows with the pane).
pub const MEMORY_NAME_WIDTH: f32 = 380.0;
/// The least width of the Memory table's constructor column.
pub const MEMORY_NAME_MIN: f32 = 140.0;
/// Width of a number column of the Memory table.
pub const MEMORY_NUMBER_WIDTH: f32 = 110.0;
/// The narrowest a Memory number column gets (the comparison's six, in a narrow pane).
pub const MEMORY_NUMBER_MIN: f32 = 70.0;
/// Slower in a comparison.
pub const SLOWER: Color32 = ERROR;
/// Faster in a comparison.
pub const FASTER: Color32 = RESOLVED;
/// A differential flame graph's bar that did not change.
pub const DIFF_SAME: Color32 = Color32::from_rgb(205, 205, 205);
/// A differential flame graph's bar at the largest slowdown.
pub const DIFF_SLOWER: Color32 = Color32::from_rgb(235, 100, 90);
/// A differential flame graph's bar at the largest speed-up.
pub const DIFF_FASTER: Color32 = Color32::from_rgb(100, 150, 235);

/// A differential flame graph's bar: from [`DIFF_SAME`] toward [`DIFF_SLOWER`] or
/// [`DIFF_FASTER`] as its change nears the largest.
pub fn diff_color(delta: i64, largest: i64) -> Color32 {
    let t = (delta as f32 / largest.max(1) as f32).clamp(-1.0, 1.0);
    let to = if t >= 0.0 { DIFF_SLOWER } else { DIFF_FASTER };
    let mix = |a: u8, b: u8| (f32::from(a) + (f32::from(b) - f32::from(a)) * t.abs()) as u8;
    Color32::from_rgb(
        mix(DIFF_SAME.r(), to.r()),
        mix(DIFF_SAME.g(), to.g()),
        mix(DIFF_SAME.b(), to.b()),
    )
}

/// A profile bar's colour: by its script, so a library's frames share one (V8's own
/// entries, with no script, by name).
pub fn frame_color(file: Option<&str>, name: &str) -> Color32 {
    let c = color_for(file.unwrap_or(name));
    // Light, so that dark labels read on them in both themes.
    Color32::from_rgb(c.r() / 2 + 110, c.g() / 2 + 110, c.b() / 2 + 110)
}
/// Bars under a pixel wide, merged into one.
pub const TIMELINE_MERGED: Color32 = Color32::from_rgb(150, 150, 150);

#[cfg(test)]
mod tests {
    use super::*;

    /// The WCAG contrast ratio of two opaque colours (1 to 21).
    fn contrast(a: Color32, b: Color32) -> f32 {
        fn luminance(c: Color32) -> f32 {
            let channel = |v: u8| {
                let v = f32::from(v) / 255.0;
                if v <= 0.039_28 {
                    v / 12.92
                } else {
                    ((v + 0.055) / 1.055).powf(2.4)
                }
            };
            0.2126 * channel(c.r()) + 0.7152 * channel(c.g()) + 0.0722 * channel(c.b())
        }
        let (la, lb) = (luminance(a), luminance(b));
        (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
    }

    /// A selected row's text on its background meets WCAG AA (4.5:1) in both themes; the
    /// formula checked on black and white (21:1) and on a grey of WCAG's own examples.
    #[test]
    fn selected_rows_meet_wcag_aa() {
        assert!((contrast(Color32::BLACK, Color32::WHITE) - 21.0).abs() < 0.01);
        assert!((contrast(Color32::from_rgb(118, 118, 118), Color32::WHITE) - 4.54).abs() < 0.02);
        for visuals in [light_visuals(), egui::Visuals::dark()] {
            let ratio = contrast(visuals.selection.stroke.color, visuals.selection.bg_fill);
            assert!(ratio >= 4.5, "{ratio:.2} in {:?}", visuals.dark_mode);
        }
    }
}
