//! Comparing two source maps of one bundle (before and after a build change): which
//! generated lines map differently. Segments are compared by what they say, not by index:
//! generated column, source path, original line and column, and name, so two maps that list
//! their sources in another order still agree where they map alike.

use crate::model::Progress;
use crate::symbols::sourcemap::{NONE, RawSegment, RegularMap, SourceMap};

/// The progress phase of a comparison; its unit is a generated line.
pub const DIFF_PHASE: &str = "compare maps";

/// One segment as it reads: generated column (0-based), and the original position and name
/// it maps to, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapped {
    /// 0-based generated column.
    pub column: u32,
    /// Source path, original line and column (0-based), when the segment maps to one.
    pub original: Option<(String, u32, u32)>,
    /// The name, when the segment has one.
    pub name: Option<String>,
}

/// A generated line the two maps map differently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineDiff {
    /// 0-based generated line.
    pub line: u32,
    /// Its segments in the first map.
    pub a: Vec<Mapped>,
    /// Its segments in the second.
    pub b: Vec<Mapped>,
}

/// The generated lines two maps map differently.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapDiff {
    /// Lines compared (the longer map's count).
    pub lines: u32,
    /// The lines that differ, in order; at most [`MOST_LINES`] keep their segments.
    pub differing: Vec<LineDiff>,
    /// How many lines differ in all.
    pub differing_total: u32,
}

/// Lines whose segments a comparison keeps.
pub const MOST_LINES: usize = 1000;

/// The segments of `line` as they read.
fn mapped(map: &RegularMap, line: u32) -> Vec<Mapped> {
    map.line_segments(line)
        .into_iter()
        .map(|s: RawSegment| Mapped {
            column: s.gen_col,
            original: s.has_source().then(|| {
                let path = map
                    .source_path(s.source)
                    .unwrap_or_else(|| format!("source {}", s.source));
                (path, s.src_line, s.src_col)
            }),
            name: map.name(s.name).map(|n| n.into_owned()),
        })
        .collect()
}

/// A segment with what a 1-field segment does not say zeroed, to compare.
fn plain(s: RawSegment) -> RawSegment {
    if s.has_source() {
        s
    } else {
        RawSegment {
            src_line: 0,
            src_col: 0,
            name: NONE,
            ..s
        }
    }
}

/// Compares two maps line by line: two regular maps, or two index maps whose sections sit
/// at the same places (section by section); `None` for other pairs.
pub fn diff_maps(a: &SourceMap, b: &SourceMap, progress: &mut dyn Progress) -> Option<MapDiff> {
    let mut diff = MapDiff::default();
    match (a, b) {
        (SourceMap::Regular(a), SourceMap::Regular(b)) => {
            diff_regular(a, b, 0, &mut diff, progress);
        }
        // Two index maps with their sections at the same places: section by section.
        (SourceMap::Index(a), SourceMap::Index(b)) => {
            let at = |s: &crate::symbols::sourcemap::Section| (s.line, s.column);
            if a.sections().len() != b.sections().len()
                || a.sections().iter().map(at).ne(b.sections().iter().map(at))
            {
                return None;
            }
            for (sa, sb) in a.sections().iter().zip(b.sections()) {
                let (Ok(SourceMap::Regular(ma)), Ok(SourceMap::Regular(mb))) =
                    (a.section_map(sa), b.section_map(sb))
                else {
                    return None;
                };
                diff_regular(ma, mb, sa.line, &mut diff, progress);
            }
        }
        _ => return None,
    }
    Some(diff)
}

/// Adds to `diff` the lines two regular maps map differently, their line 0 at generated line
/// `line_off` (a section of an index map; both start at the same column).
fn diff_regular(
    a: &RegularMap,
    b: &RegularMap,
    line_off: u32,
    diff: &mut MapDiff,
    progress: &mut dyn Progress,
) {
    let count = |m: &RegularMap| m.index().map_or(0, |i| i.line_count());
    let lines = count(a).max(count(b)) as u32;
    diff.lines = diff.lines.max(line_off + lines);
    // `b`'s source and name indices as `a`'s (by path and by string), so that segments are
    // compared as numbers; `NONE` where `a` has no such source or name.
    // A name or path listed twice counts as its first listing, on both sides.
    let mut by_path: std::collections::HashMap<String, u32> = Default::default();
    let a_sources: Vec<u32> = (0..a.source_count() as u32)
        .map(|i| match a.source_path(i) {
            Some(p) => *by_path.entry(p).or_insert(i),
            None => i,
        })
        .collect();
    let sources: Vec<u32> = (0..b.source_count() as u32)
        .map(|i| {
            b.source_path(i)
                .and_then(|p| by_path.get(&p).copied())
                .unwrap_or(NONE - 1)
        })
        .collect();
    let mut by_name: std::collections::HashMap<String, u32> = Default::default();
    let a_names: Vec<u32> = (0..a.name_count() as u32)
        .map(|i| match a.name(i) {
            Some(n) => *by_name.entry(n.into_owned()).or_insert(i),
            None => i,
        })
        .collect();
    let names: Vec<u32> = (0..b.name_count() as u32)
        .map(|i| {
            b.name(i)
                .and_then(|n| by_name.get(n.as_ref()).copied())
                .unwrap_or(NONE - 1)
        })
        .collect();
    let translate = |s: RawSegment| {
        let source = sources.get(s.source as usize).copied();
        let name = names.get(s.name as usize).copied();
        plain(RawSegment {
            source: if s.has_source() {
                source.unwrap_or(NONE - 1)
            } else {
                NONE
            },
            name: if s.name == NONE {
                NONE
            } else {
                name.unwrap_or(NONE - 1)
            },
            ..s
        })
    };
    for line in 0..lines {
        if line % 1024 == 1023
            && progress
                .step(DIFF_PHASE, u64::from(line), u64::from(lines))
                .is_break()
        {
            break;
        }
        let ra: Vec<RawSegment> = a
            .line_segments(line)
            .into_iter()
            .map(|s| {
                plain(RawSegment {
                    source: a_sources
                        .get(s.source as usize)
                        .copied()
                        .unwrap_or(s.source),
                    name: a_names.get(s.name as usize).copied().unwrap_or(s.name),
                    ..s
                })
            })
            .collect();
        let rb: Vec<RawSegment> = b.line_segments(line).into_iter().map(translate).collect();
        if ra != rb {
            let (sa, sb) = (mapped(a, line), mapped(b, line));
            diff.differing_total += 1;
            if diff.differing.len() < MOST_LINES {
                diff.differing.push(LineDiff {
                    line: line_off + line,
                    a: sa,
                    b: sb,
                });
            }
        }
    }
}
