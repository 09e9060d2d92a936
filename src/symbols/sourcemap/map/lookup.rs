//! Look-ups: the block of a generated position decoded once per thread and kept in a
//! bounded cache, then searched for the segment at or before the column.
//!
//! A cached block knows the columns it answers for (from its checkpoint to the next), so a
//! look-up that finds it needs neither the index nor a search of the line's checkpoints.
//! The cache is set-associative (two ways, least recently used out): a direct-mapped one
//! let two frames of a trace that share a slot decode their blocks again on every look-up.
//! A hit there is a hash, the set's compares and a count over the block's columns; the miss
//! path (index, decode, insert) is a call of its own.
//!
//! A short line (one block) looked up a second time is decoded once more into the map's own
//! table of short lines, shared by every thread and kept while the map lives: a warm look-up
//! there reads the line's slot and the one allocation it points to (columns, then segments),
//! with no thread-local to reach, and only that hit is inlined into the caller. A trace of distinct lines never fills the table (nor makes it),
//! so a cold look-up pays one load for it.

use super::super::error::Result;
use super::super::index::{CHECKPOINT_EVERY, LineIndex, RawSegment};
use super::{RegularMap, Token};
use std::cell::RefCell;
use std::sync::OnceLock;

/// Blocks kept decoded per thread (all maps together): a bounded cache of two-way sets.
const CACHE_SLOTS: usize = 512;

/// A cache slot is chosen by the map, the line and the column over 2^this: the look-ups of
/// one stretch of a line meet in one slot, and a hit needs no search of the line's
/// checkpoints.
const COLUMN_BUCKET_BITS: u32 = 8;

#[derive(Debug)]
struct CachedBlock {
    map: u64,
    line: u32,
    /// The columns `[from, to)` whose look-ups this block answers.
    from: u32,
    to: u32,
    segments: Box<[RawSegment]>,
    /// The segments' generated columns, packed (see [`greatest_lower_bound`]).
    cols: Box<[u32]>,
}

/// A map's short lines decoded for every thread: a slot per generated line of `mappings`,
/// made when a short line is first looked up twice.
#[derive(Debug, Default)]
pub(super) struct ShortLines(OnceLock<Box<[OnceLock<ShortLine>]>>);

/// One short line decoded, held in its slot (a hit follows one pointer from the slot): the
/// generated columns, padded to a multiple of 8 with `u32::MAX` so that the count has no
/// scalar tail, then each segment's five fields, in one allocation.
#[derive(Debug)]
struct ShortLine {
    /// How many segments the line has (kept in the slot: where the segments start is then
    /// known without a load from `data`).
    len: u32,
    /// The padded columns, then the segments.
    data: Box<[u32]>,
}

impl ShortLine {
    fn new(segments: &[RawSegment]) -> Self {
        let padded = segments.len().next_multiple_of(8);
        let mut data = Vec::with_capacity(padded + 5 * segments.len());
        data.extend(segments.iter().map(|s| s.gen_col));
        data.resize(padded, u32::MAX);
        for s in segments {
            data.extend([s.gen_col, s.source, s.src_line, s.src_col, s.name]);
        }
        Self {
            len: segments.len() as u32,
            data: data.into_boxed_slice(),
        }
    }

    /// The segment a look-up at `col` answers with (as [`greatest_lower_bound`]).
    #[inline(always)]
    fn lookup(&self, col: u32) -> Option<RawSegment> {
        let len = self.len as usize;
        let (cols, segs) = self.data.split_at_checked(len.next_multiple_of(8))?;
        let idx = if let Ok(eight) = <&[u32; 8]>::try_from(cols) {
            // Most short lines: one count of 8, no loop.
            eight.iter().map(|&c| u32::from(c < col)).sum::<u32>() as usize
        } else if cols.len() <= COUNT_MAX {
            cols.iter().map(|&c| u32::from(c < col)).sum::<u32>() as usize
        } else {
            // A whole unsorted line (it has no checkpoints), sorted when decoded.
            cols.partition_point(|&c| c < col)
        };
        let at = match cols.get(idx) {
            Some(&c) if c == col && idx < len => idx,
            _ => idx.checked_sub(1)?,
        };
        let f: &[u32; 5] = segs.get(5 * at..5 * at + 5)?.try_into().ok()?;
        Some(RawSegment {
            gen_col: f[0],
            source: f[1],
            src_line: f[2],
            src_col: f[3],
            name: f[4],
        })
    }
}

// Each thread keeps its own decoded blocks, so a warm look-up takes no lock. The cache is
// bounded (CACHE_SLOTS blocks per thread) and entries of dropped maps are simply overwritten.
thread_local! {
    // Const-initialised (filled on first use), so that reaching it is a plain thread-local
    // access, not a call through the lazy initialiser.
    static BLOCKS: RefCell<Vec<Option<CachedBlock>>> = const { RefCell::new(Vec::new()) };
}

impl RegularMap {
    /// Looks up a generated position (0-based line, 0-based UTF-16 column).
    ///
    /// Fails only on a map read lazily whose `mappings` is broken before the end of `line`.
    #[inline]
    pub fn lookup(&self, line: u32, col: u32) -> Result<Option<Token<'_>>> {
        if let Some(short) = self.short_line(line) {
            return Ok(short.lookup(col).map(|segment| self.token(line, segment)));
        }
        self.lookup_cached(line, col)
    }

    /// A look-up that the map's table of short lines does not answer: the thread's cached
    /// block, else [`Self::lookup_missed`].
    #[inline(never)]
    fn lookup_cached(&self, line: u32, col: u32) -> Result<Option<Token<'_>>> {
        let slot = self.slot(line, col);
        match self.cached(line, col, slot) {
            Some((seg, whole_line)) => {
                if whole_line {
                    self.share_line(line);
                }
                Ok(seg.map(|segment| self.token(line, segment)))
            }
            None => self.lookup_missed(line, col, slot),
        }
    }

    /// `line`, if it is a short line already in the map's shared table.
    #[inline(always)]
    fn short_line(&self, line: u32) -> Option<&ShortLine> {
        self.short_lines.0.get()?.get(line as usize)?.get()
    }

    /// Puts short line `line` (indexed, one block) into the map's shared table, made with a
    /// slot per line of `mappings` on the first call.
    #[cold]
    #[inline(never)]
    fn share_line(&self, line: u32) {
        let bytes = self.mappings_bytes();
        let table = self.short_lines.0.get_or_init(|| {
            let lines = memchr::memchr_iter(b';', bytes).count() + 1;
            (0..lines).map(|_| OnceLock::new()).collect()
        });
        let Some(slot) = table.get(line as usize) else {
            return;
        };
        slot.get_or_init(|| ShortLine::new(&self.line_segments(line)));
    }

    /// The answer of a block this thread decoded before, without the index (map ids are never
    /// reused, `mappings` never changes, and a line once indexed stays so); `None` when no
    /// cached block answers for the position. With the answer, whether the block is its
    /// whole line.
    #[inline]
    fn cached(&self, line: u32, col: u32, slot: usize) -> Option<(Option<RawSegment>, bool)> {
        BLOCKS.with_borrow_mut(|cache| {
            let answers = |k: usize| {
                cache.get(k).and_then(Option::as_ref).is_some_and(|b| {
                    b.map == self.id && b.line == line && b.from <= col && col < b.to
                })
            };
            if !answers(slot) {
                if !answers(slot ^ 1) {
                    return None;
                }
                // The pair's older way: it becomes the newer.
                cache.swap(slot, slot ^ 1);
            }
            let block = cache[slot].as_ref()?;
            let whole_line = block.from == 0 && block.to == u32::MAX;
            Some((
                greatest_lower_bound(&block.segments, &block.cols, col),
                whole_line,
            ))
        })
    }

    /// A look-up that no cached block answers: the line indexed if it is not yet, its block
    /// decoded and cached.
    #[inline(never)]
    fn lookup_missed(&self, line: u32, col: u32, slot: usize) -> Result<Option<Token<'_>>> {
        let index = match self.index.ready_for(line, col) {
            Some(index) => index,
            None => self.index_at(line, col)?,
        };
        Ok(self.lookup_in(index, line, col, slot))
    }

    /// The newer way of the cache's two-way set for a position (`^ 1` is the older).
    #[inline]
    fn slot(&self, line: u32, col: u32) -> usize {
        let key = (self.id as usize)
            ^ (line as usize).wrapping_mul(0x9E37_79B9)
            ^ ((col >> COLUMN_BUCKET_BITS) as usize).wrapping_mul(0x85EB_CA6B);
        (key % (CACHE_SLOTS / 2)) * 2
    }

    fn lookup_in<'a>(
        &'a self,
        index: &LineIndex,
        line: u32,
        col: u32,
        slot: usize,
    ) -> Option<Token<'a>> {
        let ordinal = index.ordinal_for(line, col)?;
        let block = index.block(line, ordinal)?;
        let seg = BLOCKS.with_borrow_mut(|cache| {
            if cache.len() < CACHE_SLOTS {
                cache.resize_with(CACHE_SLOTS, || None);
            }
            // The newer way moves to the older's place (whose block is dropped).
            cache.swap(slot, slot ^ 1);
            let mut segs = Vec::new();
            LineIndex::decode_block(self.mappings_bytes(), &block, &mut segs);
            let (from, to) = index.block_columns(line, ordinal);
            let cached = cache.get_mut(slot)?.insert(CachedBlock {
                map: self.id,
                line,
                from,
                to,
                cols: segs.iter().map(|s| s.gen_col).collect(),
                segments: segs.into_boxed_slice(),
            });
            greatest_lower_bound(&cached.segments, &cached.cols, col)
        })?;
        Some(self.token(line, seg))
    }

    /// Decodes every segment of one generated line (for the inspector and for tests).
    pub fn line_segments(&self, line: u32) -> Vec<RawSegment> {
        let mut all = Vec::new();
        self.line_segments_into(line, &mut all, &mut Vec::new());
        all
    }

    /// [`Self::line_segments`] into `out` (cleared first), `buf` a scratch buffer: a caller
    /// walking many lines keeps both and allocates no more.
    pub fn line_segments_into(
        &self,
        line: u32,
        out: &mut Vec<RawSegment>,
        buf: &mut Vec<RawSegment>,
    ) {
        let blocks = self.index_for(line).map_or(0, |i| i.block_count(line));
        self.line_blocks_into(line, 0..blocks, out, buf);
    }

    /// The segments of blocks `blocks` of `line` (see [`LineIndex::block`]) into `out`: a
    /// stretch of a long line, decoded apart from the rest. Sorted by generated column (an
    /// unsorted line's stretch among itself only).
    pub fn line_blocks_into(
        &self,
        line: u32,
        blocks: std::ops::Range<u32>,
        out: &mut Vec<RawSegment>,
        buf: &mut Vec<RawSegment>,
    ) {
        out.clear();
        let Ok(index) = self.index_for(line) else {
            return;
        };
        for k in blocks {
            if let Some(b) = index.block(line, k) {
                LineIndex::decode_block(self.mappings_bytes(), &b, buf);
                out.extend_from_slice(buf);
            }
        }
        if index.block(line, 0).is_some_and(|b| b.unsorted) {
            out.sort_by_key(|s| s.gen_col);
        }
    }
}

/// Blocks up to this many segments are searched by counting (a checkpoint's block has about
/// [`CHECKPOINT_EVERY`]).
const COUNT_MAX: usize = 4 * CHECKPOINT_EVERY as usize;

/// The segment a look-up at `col` answers with, exactly as trace-mapping's
/// `originalPositionFor` (greatest lower bound): on an exact column match, the first of the
/// segments with that column; otherwise the last segment before `col`.
#[inline]
fn greatest_lower_bound(segs: &[RawSegment], cols: &[u32], col: u32) -> Option<RawSegment> {
    // The columns are sorted (an unsorted line's block is sorted when decoded), so the number
    // of those before `col` is the partition point. In a block of checkpoint size it is
    // counted 4 at a time in vector registers, with no chain of dependent loads as in a binary
    // search; a whole unsorted line is binary-searched.
    let idx = if cols.len() <= COUNT_MAX {
        cols.iter().map(|&c| u32::from(c < col)).sum::<u32>() as usize
    } else {
        cols.partition_point(|&c| c < col)
    };
    match segs.get(idx) {
        Some(s) if s.gen_col == col => Some(*s),
        _ => segs.get(idx.checked_sub(1)?).copied(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::sourcemap::{NONE, SourceMap};

    #[test]
    fn ties_resolve_as_trace_mapping_does() {
        // Line 0: col 0 → a.js 0:0; col 4 → a.js 1:0; col 4 → a.js 2:0; col 8 → a.js 3:0.
        let map =
            br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA,IACA,AACA,IACA"}"#;
        let m = SourceMap::parse(map.to_vec()).unwrap();
        let at = |c| m.lookup(0, c).unwrap().and_then(|t| t.src_line());
        assert_eq!(
            at(4),
            Some(1),
            "exact match: the first of the tied segments"
        );
        assert_eq!(at(6), Some(2), "between columns: the last segment before");
        assert_eq!(at(8), Some(3));
        assert_eq!(
            m.lookup(1, 0).unwrap().map(|t| t.gen_col()),
            None,
            "no line 1"
        );
    }

    /// A short line's slot answers as a binary search over its segments does, for lines of
    /// every length around the padding of 8 (runs of equal columns, and the column
    /// `u32::MAX` that the padding holds, too).
    #[test]
    fn short_line_lookup_equals_binary_search() {
        for len in [0usize, 1, 2, 7, 8, 9, 15, 16, 17, 64, 65, 300] {
            let segs: Vec<RawSegment> = (0..len as u32)
                .map(|k| RawSegment {
                    gen_col: if k + 1 == len as u32 && len > 2 {
                        u32::MAX
                    } else {
                        3 * (k / 2) + 1
                    },
                    source: k,
                    src_line: k + 7,
                    src_col: 2 * k,
                    name: if k % 3 == 0 { NONE } else { k },
                })
                .collect();
            let short = ShortLine::new(&segs);
            let mut cols: Vec<u32> = (0..=3 * len as u32 / 2 + 3).collect();
            cols.extend([u32::MAX - 1, u32::MAX]);
            for col in cols {
                let idx = segs.partition_point(|s| s.gen_col < col);
                let expected = match segs.get(idx) {
                    Some(s) if s.gen_col == col => Some(*s),
                    _ => idx.checked_sub(1).map(|i| segs[i]),
                };
                assert_eq!(short.lookup(col), expected, "{len} {col}");
            }
        }
    }

    /// Counting the columns before a look-up's column answers as a binary search does, in
    /// blocks of every size around the switch between the two (runs of equal columns too).
    #[test]
    fn block_search_by_count_equals_binary_search() {
        for len in [0, 1, 2, 63, 64, 65, COUNT_MAX, COUNT_MAX + 1, 3 * COUNT_MAX] {
            let segs: Vec<RawSegment> = (0..len as u32)
                .map(|k| RawSegment {
                    gen_col: 3 * (k / 2) + 1,
                    source: k,
                    src_line: 0,
                    src_col: 0,
                    name: NONE,
                })
                .collect();
            let cols: Vec<u32> = segs.iter().map(|s| s.gen_col).collect();
            for col in 0..=3 * len as u32 / 2 + 3 {
                let idx = segs.partition_point(|s| s.gen_col < col);
                let expected = match segs.get(idx) {
                    Some(s) if s.gen_col == col => Some(*s),
                    _ => idx.checked_sub(1).map(|i| segs[i]),
                };
                assert_eq!(
                    greatest_lower_bound(&segs, &cols, col),
                    expected,
                    "{len} {col}"
                );
            }
        }
    }
}
