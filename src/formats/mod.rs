//! Pure parsers of crash logs and stack traces, and file-kind detection from bytes.

pub mod detect;
pub mod js;

pub use detect::peek;

use crate::model::Trace;

/// Parses a log of any supported format (JavaScript engines for now), detecting the format.
///
/// Invalid UTF-8 is replaced, so any bytes give a trace (possibly of `unparsed` frames).
pub fn parse_log(bytes: &[u8]) -> Trace {
    parse_text(&String::from_utf8_lossy(bytes))
}

/// Parses a log's text, detecting the format (what [`parse_log`] does after decoding).
pub fn parse_text(text: &str) -> Trace {
    js::parse(text)
}
