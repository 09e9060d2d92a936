//! Pure parsers of crash logs, stack traces and CPU profiles, and file-kind detection from bytes.

pub mod apple;
pub mod cpuprofile;
pub mod detect;
pub mod heapsnapshot;
mod images;
pub mod java;
pub mod js;
pub(crate) mod json_stream;
pub mod minidump;
pub mod native;
pub mod perf_script;
pub mod sdk;
pub mod sentry;
pub mod trace_events;

pub use detect::peek;

use crate::model::{Trace, TraceSink};

/// Parses a log of any supported format (JavaScript engines, Java/Android), detecting the
/// format.
///
/// Invalid UTF-8 is replaced, so any bytes give a trace (possibly of `unparsed` frames).
pub fn parse_log(bytes: &[u8]) -> Trace {
    if minidump::is_minidump(bytes) {
        return minidump::parse(bytes).unwrap_or_else(|e| Trace {
            format: crate::model::LogFormat::Minidump,
            stacks: vec![crate::model::Stack {
                title: e.to_string(),
                ..crate::model::Stack::default()
            }],
            modules: Vec::new(),
        });
    }
    parse_text(&String::from_utf8_lossy(bytes))
}

/// Parses a log's text, detecting the format (what [`parse_log`] does after decoding).
pub fn parse_text(text: &str) -> Trace {
    let mut trace = Trace::empty();
    parse_text_into(text, &mut trace);
    trace
}

/// [`parse_text`], writing the log into `sink` as it is read. JavaScript logs (the ones with
/// a million frames: stack overflows) stream; the other readers collect a whole trace first
/// (they look across the log: an Apple report lists its images after its threads).
pub fn parse_text_into(text: &str, sink: &mut dyn TraceSink) {
    if sentry::is_sentry_event(text)
        && let Some(trace) = sentry::parse(text)
    {
        trace.replay(sink);
    } else if apple::is_apple(text) {
        apple::parse(text).replay(sink);
    } else if native::is_native(text) {
        native::parse(text).replay(sink);
    } else if sdk::is_sdk(text) {
        sdk::parse(text).replay(sink);
    } else if is_java(text) {
        java::parse(text).replay(sink);
    } else {
        js::parse_into(text, sink);
    }
}

/// How many lines of a log decide its format: no reader's detection looks past them.
pub const HEAD_LINES: usize = 20_000;

/// Whether [`parse_text_into`] reads a log as JavaScript, told from `head`, the log's first
/// [`HEAD_LINES`] lines (or the whole log): so a JavaScript log can be parsed as it is read
/// ([`js::Parser`]). `false` also when the head cannot tell (it is blank, or opens with `{`:
/// a JSON event or record, which the readers look at whole).
pub fn is_javascript_head(head: &str) -> bool {
    let Some(first) = head.trim_start().chars().next() else {
        return false;
    };
    first != '{'
        && !apple::is_apple(head)
        && !native::is_native(head)
        && !sdk::is_sdk(head)
        && !is_java(head)
}

/// How many lines the format sniffing looks at.
const SNIFF_LINES: usize = 400;

/// Whether a log is a Java/Android trace: its first lines hold Java frames
/// (`at a.b.C.m(File.java:1)`) and more of them than JavaScript frames, the lines that read
/// as Java frames not counted as JavaScript ones (a V8 reader would take `at a.b.C.m(F:1)`
/// for a frame too), so the answer does not hang on how many frames the log has; or, with
/// no frames of either kind, a line reads as a Java throwable (`a.b.C: message`, after any
/// logcat prefix) or a `[CIRCULAR REFERENCE: …]` line, so that a mapping still deobfuscates
/// its class names.
pub fn is_java(text: &str) -> bool {
    let head_end = text
        .match_indices('\n')
        .nth(SNIFF_LINES - 1)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..head_end];
    let java = java::count_frames(head, SNIFF_LINES);
    // The head without its Java frames: what JavaScript frames it has are others.
    let not_java = || -> String {
        head.lines()
            .filter(|l| java::parse_frame(java::strip_logcat(l)).is_none())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let js_frames = |text: &str| {
        js::parse(text)
            .stacks
            .iter()
            .flat_map(|s| &s.frames)
            .filter(|f| f.input.is_some())
            .count()
    };
    if java == 0 {
        return head.lines().any(|l| {
            let t = java::strip_logcat(l).trim();
            t.starts_with("[CIRCULAR REFERENCE: ") || java::parse_throwable(t).is_some()
        }) && js_frames(head) == 0;
    }
    java >= js_frames(&not_java())
}
