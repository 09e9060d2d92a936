//! The rules of the source-map spec (ECMA-426) that a map breaks where Symscope reads it
//! anyway, as the engines do. Everything else the spec forbids is refused when the map is
//! parsed, with an [`Error`] that names the rule (a missing or wrong `version`, a missing
//! `sources`, bad `sources`/`names` indices, VLQ values over 32 bits, index-map sections out of
//! order or overlapping, `mappings` beside `sections`); the tc39 conformance suite
//! (`tests/tc39_source_map.rs`) checks both halves.

use super::{Error, SourceMap};
use std::fmt;

/// One rule of the spec a usable map breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// An `ignoreList` entry is not an index into `sources` (it is ignored).
    IgnoreListOutOfRange {
        /// The entry.
        index: u32,
        /// How many sources the map has.
        sources: usize,
    },
    /// `mappings` holds a segment with no fields (`,,`, or a line that starts or ends with
    /// `,`): it maps nothing and is skipped.
    EmptySegment {
        /// The 0-based generated line of the first one.
        line: u32,
    },
    /// An index-map section's map cannot be read: positions in it do not map, the other
    /// sections do.
    BadSectionMap {
        /// The section's place in `sections`.
        section: usize,
        /// Why its map was refused.
        error: Error,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::IgnoreListOutOfRange { index, sources } => write!(
                f,
                "`ignoreList` entry {index} is not a source index (the map has {sources} sources); \
                 it is ignored (rule: ignoreList entries index `sources`)"
            ),
            Self::EmptySegment { line } => write!(
                f,
                "`mappings` has an empty segment on generated line {}; it is skipped \
                 (rule: a segment has 1, 4 or 5 fields)",
                line + 1
            ),
            Self::BadSectionMap { section, error } => write!(
                f,
                "section {section} of the index map is not a valid map ({error}); positions in \
                 it do not map (rule: each section's `map` is a valid source map)"
            ),
        }
    }
}

/// The rules `map` breaks while staying usable (none for a valid map). An index map's
/// sections are all parsed to check them.
pub fn validate(map: &SourceMap) -> Vec<Violation> {
    let mut out = Vec::new();
    match map {
        SourceMap::Regular(m) => {
            let sources = m.source_count();
            out.extend(
                m.ignore_list()
                    .iter()
                    .filter(|&&i| i as usize >= sources)
                    .map(|&index| Violation::IgnoreListOutOfRange { index, sources }),
            );
            if let Some(line) = first_empty_segment(m.mappings_bytes()) {
                out.push(Violation::EmptySegment { line });
            }
        }
        SourceMap::Index(ix) => {
            for (section, s) in ix.sections().iter().enumerate() {
                match ix.section_map(s) {
                    Ok(inner) => out.extend(validate(inner)),
                    Err(error) => out.push(Violation::BadSectionMap { section, error }),
                }
            }
        }
    }
    out
}

/// The generated line of the first segment with no fields: a `,` at the start of a line,
/// after another `,`, or before a `;` or the end.
fn first_empty_segment(mappings: &[u8]) -> Option<u32> {
    // Where each pattern's offending `,` is, relative to the match.
    let patterns: [(&[u8], usize); 3] = [(b",,", 0), (b";,", 1), (b",;", 0)];
    let comma = patterns
        .into_iter()
        .filter_map(|(pat, at)| Some(memchr::memmem::find(mappings, pat)? + at))
        .chain((mappings.first() == Some(&b',')).then_some(0))
        .chain((mappings.last() == Some(&b',')).then(|| mappings.len() - 1))
        .min()?;
    let line = memchr::memchr_iter(b';', &mappings[..comma]).count();
    Some(u32::try_from(line).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_segments_are_found_where_they_are() {
        assert_eq!(first_empty_segment(b"AAAA,CAAC;AACA"), None);
        assert_eq!(first_empty_segment(b";;AAAA"), None);
        assert_eq!(first_empty_segment(b"AAAA,,CAAC"), Some(0));
        assert_eq!(first_empty_segment(b"AAAA;,AAAA"), Some(1));
        assert_eq!(first_empty_segment(b"AAAA;AA;AAAA,;"), Some(2));
        assert_eq!(first_empty_segment(b",AAAA"), Some(0));
        assert_eq!(first_empty_segment(b"AAAA;AAAA,"), Some(1));
    }
}
