//! The index of a map read lazily: `mappings` indexed from its start only as far as the
//! lines asked for, grown as later lines are asked. On a long line (a minified bundle's one
//! line) a growth may end inside the line asked for, just past the column asked for, when
//! the rest of that line is in column order (see [`index_chunk_until`]).
//!
//! Each growth indexes the bytes after the last one, checked as it goes with the accumulators
//! entering them (on the map's runner's cores when there are enough bytes), and stitches
//! every chunk indexed so far into a new generation of the index (on one core a growth goes
//! on with the one chunk before it: nothing is indexed twice or joined). A generation, once
//! made, never changes, so a look-up reads the newest one without a lock. A growth at least
//! doubles the bytes indexed, and one that would leave less than it takes goes to the end, so
//! a map has a handful of generations before its whole index. The line asked for is found by
//! counting `;`, far faster than indexing up to it. Only the bytes indexed are validated: a
//! fault after the last position asked for is never seen, one before it is the look-up's
//! error, as in a reader that decodes each line when first asked (trace-mapping, srcmap's
//! lazy map). Within a long line, a column answers if the pass can stop past it before the
//! fault (the line in column order up to the end), whatever was asked before it: a growth
//! that meets a fault on the long line asked for is tried again from byte 0, stopping.

use super::super::error::{Error, Result};
use super::super::index::{
    ChunkIndex, LineIndex, STOP_MIN, Stop, index_chunk, index_chunk_until, resume_chunk,
    split_chunks_with_head,
};
use crate::model::ChunkRunner;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Partial generations a map's index can have before the next growth takes the rest.
const GENERATIONS: usize = 11;

/// Below this many new bytes a growth is not worth spreading over cores: a pool thread asleep
/// takes about half a millisecond to join (the source-map benchmark's last line), which is
/// what indexing this much on one core takes.
const PARALLEL_MIN: usize = 1 << 20;

/// One partial generation: the index of `mappings[..end]`, a run of whole lines.
#[derive(Debug)]
struct Generation {
    index: LineIndex,
    /// Lines the generation answers for: all but its last line (the empty line its last `;`
    /// opened, or a line indexed only in part).
    covered: u32,
    /// Columns of line `covered` it answers for (those before this one: 0 when the line is
    /// not indexed at all).
    partial_to: u32,
    /// Where the next growth starts (just after the generation's last `;`, or inside line
    /// `covered`, just after a `,`).
    end: usize,
}

impl Generation {
    /// Whether the generation answers a look-up at `col` of `line`.
    #[inline]
    fn answers(&self, line: u32, col: u32) -> bool {
        line < self.covered || (line == self.covered && col < self.partial_to)
    }
}

/// What a growth continues from.
#[derive(Debug, Default)]
struct Growth {
    /// The chunks of the newest generation, in order.
    chunks: Vec<ChunkIndex>,
    /// `chunks` is not the newest generation's (a growth failed part-way): the next growth
    /// indexes from byte 0 again.
    stale: bool,
    /// The last chunk's pass stopped inside a line: where the chunk starts and the
    /// accumulators entering it, to go on with it (see [`resume_chunk`]).
    paused: Option<(usize, [i64; 4])>,
    /// The `;` in the whole of `mappings`, once a search for a line reached its end: a line
    /// at or past this one is the last, and ends at the end (not searched for again: on a
    /// long last line, every growth would scan the rest of it).
    semicolons: Option<u32>,
}

/// A source map's index: whole from the start, or grown as look-ups ask.
pub(super) struct GrownIndex {
    /// The whole index, once made: checked first on a look-up's path.
    whole: OnceLock<LineIndex>,
    generations: [OnceLock<Generation>; GENERATIONS],
    /// How many generations are made.
    made: AtomicUsize,
    /// The chunks indexed so far (held while growing).
    growth: Mutex<Growth>,
    /// The first fault found while growing: a growth that needs the bytes past it fails with
    /// it, one that does not stops before it.
    fault: OnceLock<Error>,
    runner: &'static dyn ChunkRunner,
    sources: usize,
    names: usize,
}

impl std::fmt::Debug for GrownIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrownIndex")
            .field("generations", &self.made.load(Ordering::Acquire))
            .finish()
    }
}

impl GrownIndex {
    /// An index already whole.
    pub(super) fn whole(index: LineIndex) -> Self {
        let grown = Self::lazy(&crate::model::Serial, 0, 0);
        let _ = grown.whole.set(index);
        grown
    }

    /// An index that grows as look-ups ask, through `runner`.
    pub(super) fn lazy(runner: &'static dyn ChunkRunner, sources: usize, names: usize) -> Self {
        Self {
            whole: OnceLock::new(),
            generations: Default::default(),
            made: AtomicUsize::new(0),
            growth: Mutex::new(Growth::default()),
            fault: OnceLock::new(),
            runner,
            sources,
            names,
        }
    }

    fn newest(&self) -> Option<&Generation> {
        let made = self.made.load(Ordering::Acquire);
        self.generations.get(made.checked_sub(1)?)?.get()
    }

    /// The whole index, or the newest generation if it answers for column `col` of `line`
    /// (`u32::MAX`: for the whole line): a look-up's path, with no lock.
    #[inline]
    pub(super) fn ready_for(&self, line: u32, col: u32) -> Option<&LineIndex> {
        if let Some(whole) = self.whole.get() {
            return Some(whole);
        }
        self.newest()
            .filter(|g| g.answers(line, col))
            .map(|g| &g.index)
    }

    /// The number of lines of `mappings` (`;` and one), if the index is whole.
    pub(super) fn whole_line_count(&self) -> Option<usize> {
        self.whole.get().map(LineIndex::line_count)
    }

    /// Whether the index is whole (a map parsed eagerly, or grown to its end).
    pub(super) fn is_whole(&self) -> bool {
        self.whole.get().is_some()
    }

    /// An index that answers for column `col` of `line` (`u32::MAX`: for the whole line),
    /// grown to it if need be.
    pub(super) fn for_position(&self, mappings: &[u8], line: u32, col: u32) -> Result<&LineIndex> {
        if let Some(index) = self.ready_for(line, col) {
            return Ok(index);
        }
        self.grow(mappings, Some((line, col)))
    }

    /// The whole index (grown to the end if need be).
    pub(super) fn whole_index(&self, mappings: &[u8]) -> Result<&LineIndex> {
        match self.whole.get() {
            Some(whole) => Ok(whole),
            None => self.grow(mappings, None),
        }
    }

    /// Grows the index to answer for a column of a line (`None`: to the end).
    fn grow(&self, mappings: &[u8], at: Option<(u32, u32)>) -> Result<&LineIndex> {
        let line = at.map(|(line, _)| line);
        let mut growth = self.growth.lock().unwrap_or_else(|e| e.into_inner());
        // Another thread may have grown it while this one waited.
        if let Some(whole) = self.whole.get() {
            return Ok(whole);
        }
        let newest = self.newest();
        if let Some(g) = newest.filter(|g| at.is_some_and(|(l, c)| g.answers(l, c))) {
            return Ok(&g.index);
        }
        let made = self.made.load(Ordering::Acquire);
        let (start, covered) = newest.map_or((0, 0), |g| (g.end, g.covered));
        // The newest generation ends inside a line (the next growth continues it).
        let inside = newest.is_some_and(|g| g.partial_to > 0);
        // The accumulators entering the line the growth starts (the empty line the last `;`
        // opened).
        let entering = newest.map_or([0; 4], |g| {
            let last = g.index.line_count().saturating_sub(1) as u32;
            g.index.block(last, 0).map_or([0; 4], |b| {
                let s = b.state;
                [s.source, s.src_line, s.src_col, s.name].map(i64::from)
            })
        });
        let len = mappings.len();
        let fault = self.fault.get();
        // A growth from a head to a line past the middle of the rest goes to the end (see
        // `end` below). Where that line ends then matters only for a fault, or if it is the
        // last line and long (the growth may stop inside it): with no fault known and a `;`
        // among the map's last `STOP_MIN` bytes, the search for it stops at the middle.
        let half = start + (len - start) / 2;
        let bounded = start > 0
            && fault.is_none()
            && made < GENERATIONS
            && len - start >= 2 * STOP_MIN
            && memchr::memchr(b';', &mappings[len - STOP_MIN..len - 1]).is_some();
        // The line asked for ends past the middle (with `bounded`; `needed` is then `len`).
        let mut past_half = false;
        // Just after the line asked for (the end for the whole index).
        let needed = match line {
            Some(line) if growth.semicolons.is_some_and(|all| line >= all) => len,
            Some(line) => {
                let wanted = line.saturating_sub(covered) as usize;
                let to = if bounded { half } else { len };
                match nth_semicolon(&mappings[start..to], wanted) {
                    Ok(at) => start + at + 1,
                    Err(_) if bounded => {
                        past_half = true;
                        len
                    }
                    Err(count) => {
                        // `covered` is the count before `start`.
                        growth.semicolons = Some(covered + count as u32);
                        len
                    }
                }
            }
            None => len,
        };
        // A growth to the line asked for may end inside that line if the line is long (its
        // last `STOP_MIN` bytes have no `;`).
        let line_end = if mappings.get(needed.wrapping_sub(1)) == Some(&b';') {
            needed - 1
        } else {
            needed
        };
        let long = at.is_some_and(|(_, col)| col != u32::MAX)
            && line_end >= STOP_MIN
            && memchr::memrchr(b';', &mappings[line_end - STOP_MIN..line_end]).is_none();
        // A fault on a long line asked for may lie past the column asked for: the growth is
        // tried again from byte 0, to stop before it however little of the line is left (so
        // that a column answers or fails whatever was asked before it).
        let in_line = |fault: &Error| {
            long && fault.offset.is_some_and(|at| {
                at >= memchr::memrchr(b';', &mappings[..line_end]).map_or(0, |p| p + 1)
            })
        };
        let mut from_zero = false;
        // (A value out of range is placed after its segment: at the end, for the last line.)
        if let Some(fault) = fault
            && fault.offset.is_none_or(|at| at < needed || needed == len)
        {
            if !in_line(fault) || made >= GENERATIONS {
                return Err(fault.clone());
            }
            from_zero = true;
        }
        // At least double what is indexed; the last generation, or one that would leave less
        // than it takes, takes the rest. Never past a fault already found.
        let end = if let Some(fault) = fault {
            if made >= GENERATIONS {
                return Err(fault.clone());
            }
            needed
        } else if made >= GENERATIONS {
            len
        } else {
            let double = (2 * start).min(len);
            let end = if needed >= double || needed == len {
                needed
            } else {
                memchr::memchr(b';', &mappings[double..]).map_or(len, |at| double + at + 1)
            };
            if start > 0 && end - start > len - end {
                len
            } else {
                end
            }
        };
        let whole = end == len;
        let serial_from =
            |start: usize| end - start < PARALLEL_MIN || self.runner.chunks_for(end - start) <= 1;
        // A growth on one core from a line start after a head indexed as one chunk from byte
        // 0 goes on with that chunk (see `resume_chunk`): the head is not indexed again, and
        // the index moves out of the one chunk without a copy. (Not where the growth may stop
        // inside its last line: a chunk goes on without a stop.)
        let may_stop = long && end == needed && made < GENERATIONS;
        let go_on = start > 0
            && !(growth.stale || from_zero || inside || may_stop)
            && growth.chunks.len() == 1
            && growth.chunks.first().is_some_and(|c| c.starts_at_zero())
            && serial_from(start);
        let (start, entering) = if !go_on && (growth.stale || from_zero || whole && start < len / 8)
        {
            // Indexed again from byte 0: after a failed growth, whose chunks are gone; or to
            // the end from a small head on several cores (not `go_on`), where the whole index
            // then moves out of chunks of the whole (cheaper than joining the head to them).
            growth.chunks.clear();
            (0, [0; 4])
        } else {
            (start, entering)
        };
        // A growth to a long line asked for, from a line start, may end inside that line.
        let stop = match at {
            Some((line, col)) if may_stop && (start == 0 || !inside) => {
                let first = if start == 0 { 0 } else { covered };
                Some(Stop {
                    line: line - first,
                    col,
                    min_rest: if from_zero { 0 } else { STOP_MIN },
                })
            }
            _ => None,
        };
        // A chunk stopped inside the line this growth continues goes on from there, unless
        // the rest is worth spreading over cores.
        let paused = match growth.paused.take() {
            Some(p) if start > 0 && inside => Some(p),
            _ => None,
        };
        let serial = serial_from(start);
        let (sources, names) = (self.sources, self.names);
        let resumed = if go_on {
            growth
                .chunks
                .pop()
                .map(|head| resume_chunk(mappings, head, 0, [0; 4], end, sources, names))
        } else {
            paused.filter(|_| serial).and_then(|(from, entering)| {
                let chunk = growth.chunks.pop()?;
                Some(resume_chunk(
                    mappings, chunk, from, entering, end, sources, names,
                ))
            })
        };
        let fresh = match resumed {
            Some(chunk) => vec![chunk],
            None => self.index_range(mappings, start..end, entering, stop),
        };
        // Where the pass ended (before `end` if it stopped inside the line).
        let planned = end;
        let end = fresh.last().map_or(end, |c| c.end().min(end));
        let stopped = end < planned;
        growth.paused = stopped.then_some((start, entering));
        let whole = end == len;
        growth.chunks.extend(fresh);
        growth.stale = true;
        // The last growth needs the chunks no more: they move into the index.
        let all = if whole {
            std::mem::take(&mut growth.chunks)
        } else {
            growth.chunks.clone()
        };
        let stitched = LineIndex::stitch(all, &mappings[..end], self.sources, self.names);
        let index = match stitched {
            Ok(index) => index,
            Err(e) => {
                let _ = self.fault.set(e.clone());
                drop(growth);
                if past_half
                    || end > needed && e.offset.is_some_and(|at| at >= needed)
                    || stop.is_none_or(|s| s.min_rest != 0) && in_line(&e)
                {
                    // Met past the line asked for (a growth takes more than it is asked), or
                    // on it by a growth that could not stop: grown again only as far as that
                    // line, or that column. (Where the line ends was not searched for past the
                    // middle: the growth again, the fault known, searches for it.)
                    return self.grow(mappings, at);
                }
                return Err(e);
            }
        };
        growth.stale = false;
        let slot = if whole {
            None
        } else {
            self.generations.get(made)
        };
        let Some(slot) = slot else {
            let _ = self.whole.set(index);
            return self
                .whole
                .get()
                .ok_or_else(|| Error::new(super::super::error::ErrorKind::TooLarge));
        };
        // The last `;` opened an empty line the next growth starts, or the growth ended
        // inside its last line.
        let covered = index.line_count().saturating_sub(1) as u32;
        let partial_to = if stopped {
            // The pass ended at a checkpoint: the line's last block starts there.
            let last = index.block_count(covered).saturating_sub(1);
            index.block_columns(covered, last).0
        } else {
            0
        };
        let _ = slot.set(Generation {
            covered,
            partial_to,
            index,
            end,
        });
        self.made.store(made + 1, Ordering::Release);
        slot.get()
            .map(|g| &g.index)
            .ok_or_else(|| Error::new(super::super::error::ErrorKind::TooLarge))
    }

    /// Indexes `range` of `mappings` (a run of lines, the accumulators `entering` it), in
    /// chunks on the runner's cores when it is big enough; on one core where it may `stop`
    /// inside its last line (a long line, where stopping saves more than the cores would).
    fn index_range(
        &self,
        mappings: &[u8],
        range: Range<usize>,
        entering: [i64; 4],
        stop: Option<Stop>,
    ) -> Vec<ChunkIndex> {
        let n = if range.len() >= PARALLEL_MIN && stop.is_none() {
            self.runner.chunks_for(range.len())
        } else {
            1
        };
        let (sources, names) = (self.sources, self.names);
        // The first chunk knows the accumulators entering it (see `split_chunks_with_head`).
        let first =
            |r: Range<usize>| index_chunk_until(mappings, r, sources, names, entering, stop);
        if n <= 1 {
            return vec![first(range)];
        }
        let ranges: Vec<Range<usize>> =
            split_chunks_with_head(&mappings[range.clone()], n, super::HEAD_SHARE)
                .into_iter()
                .map(|r| r.start + range.start..r.end + range.start)
                .collect();
        let cells: Vec<OnceLock<ChunkIndex>> = ranges.iter().map(|_| OnceLock::new()).collect();
        let index = |i: usize| {
            let r = ranges[i].clone();
            if i == 0 {
                first(r)
            } else {
                index_chunk(mappings, r, sources, names)
            }
        };
        self.runner.for_each(ranges.len(), &|i| {
            if let Some(cell) = cells.get(i) {
                cell.set(index(i)).ok();
            }
        });
        cells
            .into_iter()
            .enumerate()
            .map(|(i, cell)| cell.into_inner().unwrap_or_else(|| index(i)))
            .collect()
    }
}

/// Where the `n`-th `;` of `bytes` is (0-based), counted a block at a time (memchr's count;
/// a search stopping at every `;` is several times slower on maps of short lines); if there
/// are not that many, how many there are.
fn nth_semicolon(bytes: &[u8], mut n: usize) -> std::result::Result<usize, usize> {
    const BLOCK: usize = 8192;
    let mut seen = 0;
    for (k, block) in bytes.chunks(BLOCK).enumerate() {
        let count = memchr::memchr_iter(b';', block).count();
        if count > n
            && let Some(at) = memchr::memchr_iter(b';', block).nth(n)
        {
            return Ok(k * BLOCK + at);
        }
        n -= count;
        seen += count;
    }
    Err(seen)
}

#[cfg(test)]
mod tests {
    use super::nth_semicolon;
    use crate::model::Serial;
    use crate::symbols::sourcemap::SourceMap;

    /// A map read lazily whose `mappings` goes wrong on its second line answers the first,
    /// and fails as the map read whole fails once grown past the fault: each value out of
    /// range in turn, after a first line that moves the value the fault depends on (so that a
    /// growth checking with accumulators other than those entering it would miss it).
    #[test]
    fn a_fault_after_the_first_line_is_found_when_grown_past_it() {
        let cases = [
            // Source 1, then 2 of 2.
            (r#"["a","b"]"#, "[]", "ACAA;ACAA"),
            // Original line 1, then past i32 (1 + 2^31 - 1).
            (r#"["a"]"#, "[]", "AACA;AA+/////DA"),
            // Original line 1, then -1.
            (r#"["a"]"#, "[]", "AACA;AAFA"),
            // Original column 1, then past i32.
            (r#"["a"]"#, "[]", "AAAC;AAA+/////D"),
            // Name 1, then 2 of 2.
            (r#"["a"]"#, r#"["m","n"]"#, "AAAAC;AAAAC"),
        ];
        for (sources, names, mappings) in cases {
            let json = format!(
                r#"{{"version":3,"sources":{sources},"names":{names},"mappings":"{mappings}"}}"#
            );
            let whole = SourceMap::parse(json.clone().into_bytes()).unwrap_err();
            let lazy = SourceMap::parse_lazy(json.into_bytes(), &Serial).unwrap();
            assert!(lazy.lookup(0, 0).unwrap().is_some(), "{mappings}");
            let SourceMap::Regular(m) = &lazy else {
                panic!("a regular map")
            };
            let grown = m.index().unwrap_err();
            assert_eq!(
                (grown.kind, grown.offset),
                (whole.kind, whole.offset),
                "{mappings}"
            );
            assert!(lazy.lookup(1, 0).is_err(), "{mappings}");
        }
    }

    /// A fault that a growth meets past the line asked for (a growth takes more than it is
    /// asked) does not fail that line: every line before the fault answers, in any order of
    /// look-ups, and every line from it on fails with it, as the map read whole does.
    #[test]
    fn a_fault_past_the_line_asked_for_fails_only_the_lines_that_reach_it() {
        // Lines of one segment each (original line k on generated line k); one line has a
        // byte that is no base64. The larger map is long enough for a growth past the middle
        // of the rest not to search for the end of the line asked for (`bounded`).
        let cases = [
            (
                200,
                100,
                [
                    vec![5, 60, 61, 99, 100, 150, 98, 0],
                    vec![99, 150, 98, 1, 100],
                    vec![150, 99, 0],
                ],
            ),
            (
                60_000,
                54_000,
                [
                    vec![5, 48_000, 53_999, 54_000, 59_000, 0],
                    vec![5, 59_999, 53_999, 1],
                    vec![30_000, 53_999, 54_000, 29_999],
                ],
            ),
        ];
        for (n, bad, orders) in cases {
            let lines: Vec<&str> = (0..n)
                .map(|k| match k {
                    0 => "AAAA",
                    k if k == bad => "AA!A",
                    _ => "AACA",
                })
                .collect();
            let json = format!(
                r#"{{"version":3,"sources":["a"],"names":[],"mappings":"{}"}}"#,
                lines.join(";")
            );
            let whole = SourceMap::parse(json.clone().into_bytes()).unwrap_err();
            for order in orders {
                let lazy = SourceMap::parse_lazy(json.clone().into_bytes(), &Serial).unwrap();
                for line in order {
                    let found = lazy.lookup(line, 0);
                    if line < bad {
                        let src_line = found.unwrap().and_then(|t| t.src_line());
                        assert_eq!(src_line, Some(line), "line {line}");
                    } else {
                        let e = found.map(|_| ()).unwrap_err();
                        assert_eq!(
                            (e.kind, e.offset),
                            (whole.kind, whole.offset),
                            "line {line}"
                        );
                    }
                }
            }
        }
    }

    /// The answer at `col` of `line`, as plain values.
    fn answer(map: &SourceMap, line: u32, col: u32) -> Option<(u32, Option<u32>, Option<u32>)> {
        let token = map.lookup(line, col).unwrap()?;
        Some((token.gen_col(), token.src_line(), token.src_col()))
    }

    /// On three.min.js's first line (352 KB of `mappings`), a map read lazily indexes only a
    /// little past the column asked first, and answers every column, in any order, as the map
    /// read whole does.
    #[test]
    fn a_long_line_is_indexed_only_a_little_past_the_column_asked_for() {
        let path = format!(
            "{}/tests/fixtures/js/three-esbuild/three.min.js.map",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(path).unwrap();
        let whole = SourceMap::parse(bytes.clone()).unwrap();
        let SourceMap::Regular(w) = &whole else {
            panic!("a regular map")
        };
        let last = w.line_segments(0).last().unwrap().gen_col;
        let cols: Vec<u32> = (0..400).map(|k| last / 380 * k).collect();
        for first in [0, last / 10, last / 2] {
            let lazy = SourceMap::parse_lazy(bytes.clone(), &Serial).unwrap();
            let SourceMap::Regular(m) = &lazy else {
                panic!("a regular map")
            };
            assert_eq!(answer(&lazy, 0, first), answer(&whole, 0, first));
            // The line's index ends at a checkpoint a little past the column: its last block
            // is empty, and its blocks before it decode less than the line.
            let index = m.index_at(0, first).unwrap();
            let blocks = index.block_count(0);
            let tail = index.block(0, blocks - 1).unwrap();
            assert_eq!(tail.start, tail.end, "{first}");
            assert!(tail.gen_col > first);
            assert!(!m.is_indexed());
            for &col in cols.iter().rev().step_by(7).chain(&cols) {
                assert_eq!(
                    answer(&lazy, 0, col),
                    answer(&whole, 0, col),
                    "{first} {col}"
                );
            }
        }
    }

    /// One long line of 20,000 segments, one column apart, original column following; the
    /// segment at `at` replaced by `odd`.
    fn long_line(at: usize, odd: &str) -> Vec<u8> {
        let segments: Vec<&str> = (0..20_000)
            .map(|k| match k {
                0 => "AAAA",
                k if k == at => odd,
                _ => "CAAC",
            })
            .collect();
        format!(
            r#"{{"version":3,"sources":["a"],"names":[],"mappings":"{}"}}"#,
            segments.join(",")
        )
        .into_bytes()
    }

    /// A long line whose rest moves back one column after the column asked for is indexed
    /// whole at once (its segments out of order can answer a column before it), and answers
    /// as the map read whole.
    #[test]
    fn a_long_line_out_of_order_after_the_column_is_indexed_whole() {
        let bytes = long_line(19_000, "DAAC");
        let whole = SourceMap::parse(bytes.clone()).unwrap();
        let lazy = SourceMap::parse_lazy(bytes, &Serial).unwrap();
        let SourceMap::Regular(m) = &lazy else {
            panic!("a regular map")
        };
        assert_eq!(answer(&lazy, 0, 100), answer(&whole, 0, 100));
        assert!(m.is_indexed());
        for col in (0..20_000).step_by(13).chain(18_990..19_010) {
            assert_eq!(answer(&lazy, 0, col), answer(&whole, 0, col), "{col}");
        }
    }

    /// A fault late in a long line (segment 19,000 of 20,000: a byte that is no base64, or a
    /// source index past the sources) does not fail a look-up before it, which the index does
    /// not reach; one that needs the bytes past it fails as the map read whole fails; and
    /// each column answers or fails alike whatever was asked before it.
    #[test]
    fn a_fault_late_in_a_long_line_fails_only_the_columns_that_reach_it() {
        for odd in ["CA!C", "CCAC"] {
            a_fault_late_in_a_long_line(odd);
        }
    }

    fn a_fault_late_in_a_long_line(odd: &str) {
        let bytes = long_line(19_000, odd);
        let whole = SourceMap::parse(bytes.clone()).unwrap_err();
        let cols = [
            100, 5_000, 10_000, 18_900, 18_999, 19_000, 19_500, 0, 12_000,
        ];
        let outcome = |map: &SourceMap, col: u32| match map.lookup(0, col) {
            Ok(token) => Ok(token.and_then(|t| t.src_col())),
            Err(e) => Err((e.kind, e.offset)),
        };
        for col in cols {
            let fresh = SourceMap::parse_lazy(bytes.clone(), &Serial).unwrap();
            let expected = if col <= 18_900 {
                Ok(Some(col))
            } else {
                Err((whole.kind, whole.offset))
            };
            assert_eq!(outcome(&fresh, col), expected, "{odd} {col}");
        }
        for order in [
            cols.to_vec(),
            cols.iter().rev().copied().collect(),
            vec![19_500, 10_000, 18_999, 5_000, 18_900, 100],
            vec![5_000, 19_000, 12_000, 0, 18_900],
        ] {
            let lazy = SourceMap::parse_lazy(bytes.clone(), &Serial).unwrap();
            for &col in &order {
                let fresh = SourceMap::parse_lazy(bytes.clone(), &Serial).unwrap();
                assert_eq!(
                    outcome(&lazy, col),
                    outcome(&fresh, col),
                    "{odd} {order:?}: {col}"
                );
            }
        }
    }

    #[test]
    fn the_nth_semicolon_is_found_across_blocks() {
        let bytes: Vec<u8> = (0..20_000)
            .map(|i| {
                if i % 7 == 3 || i % 4096 == 0 {
                    b';'
                } else {
                    b'A'
                }
            })
            .collect();
        let all: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] == b';').collect();
        for n in (0..all.len()).step_by(37).chain([all.len() - 1]) {
            assert_eq!(nth_semicolon(&bytes, n), Ok(all[n]), "{n}");
        }
        assert_eq!(nth_semicolon(&bytes, all.len()), Err(all.len()));
        assert_eq!(nth_semicolon(&bytes, all.len() + 5), Err(all.len()));
        assert_eq!(nth_semicolon(b"", 0), Err(0));
    }
}
