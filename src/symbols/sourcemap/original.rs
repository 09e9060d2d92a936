//! The inverse look-up: from an original position to the generated positions that map to it,
//! as `@jridgewell/trace-mapping`'s `generatedPositionFor` and `allGeneratedPositionsFor`
//! answer, bias rules and ties included (`tests/generated_positions.rs` checks it against
//! trace-mapping's own answers on the corpus maps).
//!
//! Built on demand (the segment inspector's "go to original"), from every segment of the map:
//! entries sorted by (source, original line, original column), segments that share one kept
//! in generated order, as trace-mapping inserts them.

use super::{RegularMap, SourceMap};

/// Which segment answers when none sits at the asked column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bias {
    /// The last segment before the column (trace-mapping's `GREATEST_LOWER_BOUND`, the
    /// default of `generatedPositionFor`).
    GreatestLowerBound,
    /// The first segment after it (`LEAST_UPPER_BOUND`, the default of
    /// `allGeneratedPositionsFor`).
    LeastUpperBound,
}

/// A generated position (0-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GeneratedPos {
    /// 0-based generated line.
    pub line: u32,
    /// 0-based generated column (UTF-16 code units).
    pub column: u32,
}

/// One segment, by its original position.
#[derive(Clone, Copy, Debug)]
struct Entry {
    source: u32,
    src_line: u32,
    src_col: u32,
    at: GeneratedPos,
}

/// A source of the map, as the index numbers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceEntry {
    /// Its path (`sourceRoot` applied).
    pub path: String,
    /// Whether `sourcesContent` has its text.
    pub has_content: bool,
}

/// A map's segments by original position.
#[derive(Clone, Debug, Default)]
pub struct OriginalIndex {
    entries: Vec<Entry>,
    /// The sources, by the numbers the entries use.
    sources: Vec<SourceEntry>,
}

impl OriginalIndex {
    /// Every segment of `map` that has an original position.
    pub fn new(map: &RegularMap) -> Self {
        let mut index = Self::default();
        index.add(map, (0, 0));
        index.finish()
    }

    /// [`Self::new`] for any map: an index map's sections are read in order, their
    /// generated positions moved by each section's offset and their sources numbered one
    /// after the other (as trace-mapping's `AnyMap` flattens them). A section that cannot be
    /// read is left out.
    pub fn of(map: &SourceMap) -> Self {
        let mut index = Self::default();
        match map {
            SourceMap::Regular(m) => index.add(m, (0, 0)),
            SourceMap::Index(ix) => {
                for section in ix.sections() {
                    if let Ok(SourceMap::Regular(m)) = ix.section_map(section) {
                        index.add(m, (section.line, section.column));
                    }
                }
            }
        }
        index.finish()
    }

    /// Adds `map`'s segments, its line 0 starting at generated (`line_off`, `col_off`).
    fn add(&mut self, map: &RegularMap, (line_off, col_off): (u32, u32)) {
        let base = self.sources.len() as u32;
        self.sources
            .extend((0..map.source_count() as u32).map(|i| SourceEntry {
                path: map.source_path(i).unwrap_or_else(|| format!("source {i}")),
                has_content: map.has_source_content(i),
            }));
        // A map whose `mappings` is broken (read lazily) adds its sources and no segment.
        let Ok(index) = map.index() else {
            return;
        };
        self.entries.reserve(index.segment_count() as usize);
        let (mut segs, mut scratch) = (Vec::new(), Vec::new());
        for line in 0..index.line_count() as u32 {
            map.line_segments_into(line, &mut segs, &mut scratch);
            let shift = if line == 0 { col_off } else { 0 };
            for s in &segs {
                if s.has_source() {
                    self.entries.push(Entry {
                        source: base + s.source,
                        src_line: s.src_line,
                        src_col: s.src_col,
                        at: GeneratedPos {
                            line: line_off + line,
                            column: s.gen_col + shift,
                        },
                    });
                }
            }
        }
    }

    fn finish(mut self) -> Self {
        // Stable: segments at one original position stay in generated order.
        self.entries
            .sort_by_key(|e| (e.source, e.src_line, e.src_col));
        self
    }

    /// The sources, by the numbers the look-ups take.
    pub fn sources(&self) -> &[SourceEntry] {
        &self.sources
    }

    /// The segments on original line `line` (0-based) of source `source`, by column.
    fn line(&self, source: u32, line: u32) -> &[Entry] {
        let key = |e: &Entry| (e.source, e.src_line);
        let start = self.entries.partition_point(|e| key(e) < (source, line));
        let end = self.entries.partition_point(|e| key(e) <= (source, line));
        &self.entries[start..end]
    }

    /// How many segments map into source `source` at original line `line` (0-based).
    pub fn count_on_line(&self, source: u32, line: u32) -> usize {
        self.line(source, line).len()
    }

    /// How many segments map into source `source`.
    pub fn count_for_source(&self, source: u32) -> usize {
        let start = self.entries.partition_point(|e| e.source < source);
        let end = self.entries.partition_point(|e| e.source <= source);
        end - start
    }

    /// Every segment that maps to original line `line` (0-based) of `source`: its original
    /// column and generated position, by original column (ties in generated order).
    pub fn on_line(&self, source: u32, line: u32) -> Vec<(u32, GeneratedPos)> {
        self.line(source, line)
            .iter()
            .map(|e| (e.src_col, e.at))
            .collect()
    }

    /// The original lines (0-based) of `source` that some segment maps to, each once.
    pub fn mapped_lines(&self, source: u32) -> Vec<u32> {
        let start = self.entries.partition_point(|e| e.source < source);
        let end = self.entries.partition_point(|e| e.source <= source);
        let mut lines: Vec<u32> = self.entries[start..end]
            .iter()
            .map(|e| e.src_line)
            .collect();
        lines.dedup();
        lines
    }

    /// The generated position of original (`source`, `line`, `column`), 0-based, as
    /// `generatedPositionFor` answers it.
    pub fn generated_position_for(
        &self,
        source: u32,
        line: u32,
        column: u32,
        bias: Bias,
    ) -> Option<GeneratedPos> {
        let segs = self.line(source, line);
        let (index, found) = search(segs, column);
        let index = if found {
            match bias {
                Bias::LeastUpperBound => upper_bound(segs, column, index),
                Bias::GreatestLowerBound => lower_bound(segs, column, index),
            }
        } else {
            match bias {
                Bias::LeastUpperBound => index + 1,
                Bias::GreatestLowerBound => index,
            }
        };
        let index = usize::try_from(index).ok()?;
        segs.get(index).map(|e| e.at)
    }

    /// Every generated position that maps to original (`source`, `line`, `column`), 0-based,
    /// as `allGeneratedPositionsFor` answers: the segments at that column, or, with none
    /// there, those at the nearest column before (greatest lower bound) or after (least upper
    /// bound) it.
    pub fn all_generated_positions_for(
        &self,
        source: u32,
        line: u32,
        column: u32,
        bias: Bias,
    ) -> Vec<GeneratedPos> {
        let segs = self.line(source, line);
        let (index, found) = search(segs, column);
        let mut min = if found {
            lower_bound(segs, column, index)
        } else {
            index
        };
        if !found && bias == Bias::LeastUpperBound {
            min += 1;
        }
        let Some(first) = usize::try_from(min).ok().and_then(|m| segs.get(m)) else {
            return Vec::new();
        };
        let matched = if found { column } else { first.src_col };
        let min = if found {
            min
        } else {
            lower_bound(segs, matched, min)
        };
        let max = upper_bound(segs, matched, min);
        segs[min as usize..=max as usize]
            .iter()
            .map(|e| e.at)
            .collect()
    }
}

/// Where `column` is among `segs`' original columns: the index of a segment at it and
/// `true`, or the index of the last before it (−1 for none) and `false`.
fn search(segs: &[Entry], column: u32) -> (isize, bool) {
    let at = segs.partition_point(|e| e.src_col < column);
    if segs.get(at).is_some_and(|e| e.src_col == column) {
        (at as isize, true)
    } else {
        (at as isize - 1, false)
    }
}

/// The first index at or before `index` whose column is `column`.
fn lower_bound(segs: &[Entry], column: u32, mut index: isize) -> isize {
    while index > 0 && segs[index as usize - 1].src_col == column {
        index -= 1;
    }
    index
}

/// The last index at or after `index` whose column is `column`.
fn upper_bound(segs: &[Entry], column: u32, mut index: isize) -> isize {
    while (index as usize) + 1 < segs.len() && segs[index as usize + 1].src_col == column {
        index += 1;
    }
    index
}
