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
//! table of shared lines, shared by every thread and kept while the map lives: a warm look-up
//! there reads the line's slot and the one allocation it points to (columns, then segments),
//! with no thread-local to reach, and only that hit is inlined into the caller. A block of a
//! long line indexed whole is shared the same way once looked up twice: the line's slot then
//! holds its checkpoints' columns, a table from a column's bucket to the block that starts at
//! or before the bucket, and a slot per block. A trace of distinct blocks never fills the
//! table (nor makes it), so a cold look-up pays one load for it.

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
    /// The block's ordinal in its line (see [`LineIndex::block`]).
    ordinal: u32,
    /// The columns `[from, to)` whose look-ups this block answers.
    from: u32,
    to: u32,
    segments: Box<[RawSegment]>,
    /// The segments' generated columns, packed (see [`greatest_lower_bound`]).
    cols: Box<[u32]>,
}

/// A map's lines decoded for every thread: a slot per generated line of `mappings`, made when
/// a short line or a long line's block is first looked up twice.
#[derive(Debug, Default)]
pub(super) struct SharedLines(OnceLock<Box<[OnceLock<SharedLine>]>>);

/// One line's slot in [`SharedLines`].
#[derive(Debug)]
enum SharedLine {
    /// A line of one block, decoded whole.
    Short(ShortLine),
    /// A line of several blocks, each decoded when first looked up twice.
    Long(Box<LongLine>),
}

/// A long line's blocks shared by every thread (the line indexed whole).
#[derive(Debug)]
struct LongLine {
    /// A look-up's bucket is its column shifted right by this.
    shift: u32,
    /// Per bucket, the block a look-up at the bucket's first column goes to; a look-up further
    /// in the bucket goes on past the checkpoints at or before its column.
    first: Box<[u32]>,
    /// The first generated column of each checkpoint (block `k + 1` starts at the `k`-th).
    cp_cols: Box<[u32]>,
    /// The blocks, decoded as [`ShortLine`]s.
    blocks: Box<[OnceLock<ShortLine>]>,
}

impl LongLine {
    fn new(cp_cols: &[u32]) -> Self {
        // About two buckets a block: most look-ups find their block at once, the rest after
        // one or two compares.
        let last = cp_cols.last().copied().unwrap_or(0);
        let span = (last / (2 * (cp_cols.len() as u32 + 1))).max(1);
        let shift = 31 - span.leading_zeros();
        // The checkpoints' columns rise: one walk along them finds every bucket's block.
        let mut k = 0;
        let first = (0..=last >> shift)
            .map(|b| {
                while cp_cols.get(k).is_some_and(|&c| c <= b << shift) {
                    k += 1;
                }
                k as u32
            })
            .collect();
        Self {
            shift,
            first,
            cp_cols: cp_cols.into(),
            blocks: (0..=cp_cols.len()).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The block a look-up at `col` goes to (as [`LineIndex::ordinal_for`]).
    #[inline(always)]
    fn ordinal(&self, col: u32) -> usize {
        let bucket = ((col >> self.shift) as usize).min(self.first.len().saturating_sub(1));
        let mut k = self.first.get(bucket).map_or(0, |&k| k as usize);
        // A few steps on a line whose checkpoints are spread evenly; a bunch of them in one
        // bucket is binary-searched.
        for _ in 0..8 {
            if self.cp_cols.get(k).is_none_or(|&c| c > col) {
                return k;
            }
            k += 1;
        }
        k + self
            .cp_cols
            .get(k..)
            .map_or(0, |rest| rest.partition_point(|&c| c <= col))
    }

    /// The segment a look-up at `col` answers with, if its block is shared (`None` if not).
    #[inline(always)]
    fn lookup(&self, col: u32) -> Option<Option<RawSegment>> {
        let block = self.blocks.get(self.ordinal(col))?.get()?;
        Some(block.lookup(col))
    }
}

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
    #[inline(always)]
    pub fn lookup(&self, line: u32, col: u32) -> Result<Option<Token<'_>>> {
        match self.shared_line(line) {
            Some(SharedLine::Short(short)) => {
                Ok(short.lookup(col).map(|segment| self.token(line, segment)))
            }
            Some(SharedLine::Long(long)) => self.lookup_long(long, line, col),
            None => self.lookup_cached(line, col),
        }
    }

    /// A look-up on a long line in the map's shared table: its shared block, else
    /// [`Self::lookup_cached`]. A call of its own, so that the short line's hit stays small
    /// where it is inlined.
    #[inline(never)]
    fn lookup_long(&self, long: &LongLine, line: u32, col: u32) -> Result<Option<Token<'_>>> {
        match long.lookup(col) {
            Some(found) => Ok(found.map(|segment| self.token(line, segment))),
            None => self.lookup_cached(line, col),
        }
    }

    /// A look-up that the map's table of shared lines does not answer: the thread's cached
    /// block, else [`Self::lookup_missed`].
    #[inline(never)]
    fn lookup_cached(&self, line: u32, col: u32) -> Result<Option<Token<'_>>> {
        let slot = self.slot(line, col);
        match self.cached(line, col, slot) {
            Some((seg, ordinal, whole_line)) => {
                if whole_line {
                    self.share_line(line);
                } else {
                    self.share_block(line, ordinal);
                }
                Ok(seg.map(|segment| self.token(line, segment)))
            }
            None => self.lookup_missed(line, col, slot),
        }
    }

    /// `line`'s slot in the map's shared table, if it is filled.
    #[inline(always)]
    fn shared_line(&self, line: u32) -> Option<&SharedLine> {
        self.shared_lines.0.get()?.get(line as usize)?.get()
    }

    /// `line`'s slot in the map's shared table, the table made with a slot per line of
    /// `mappings` on the first call.
    fn shared_slot(&self, line: u32) -> Option<&OnceLock<SharedLine>> {
        let bytes = self.mappings_bytes();
        let table = self.shared_lines.0.get_or_init(|| {
            let lines = self
                .index
                .whole_line_count()
                .unwrap_or_else(|| memchr::memchr_iter(b';', bytes).count() + 1);
            (0..lines).map(|_| OnceLock::new()).collect()
        });
        table.get(line as usize)
    }

    /// Puts short line `line` (indexed, one block) into the map's shared table.
    #[cold]
    #[inline(never)]
    fn share_line(&self, line: u32) {
        if let Some(slot) = self.shared_slot(line) {
            slot.get_or_init(|| SharedLine::Short(ShortLine::new(&self.line_segments(line))));
        }
    }

    /// Puts block `ordinal` of long line `line` into the map's shared table, if the line is
    /// indexed whole (a line indexed only part of the way does not know all its blocks yet).
    #[cold]
    #[inline(never)]
    fn share_block(&self, line: u32, ordinal: u32) {
        let Some(index) = self.index.ready_for(line, u32::MAX) else {
            return;
        };
        let Some(cp_cols) = index.checkpoint_columns(line) else {
            return;
        };
        let Some(slot) = self.shared_slot(line) else {
            return;
        };
        let shared = slot.get_or_init(|| SharedLine::Long(Box::new(LongLine::new(cp_cols))));
        let SharedLine::Long(long) = shared else {
            return;
        };
        let (Some(shared_block), Some(block)) = (
            long.blocks.get(ordinal as usize),
            index.block(line, ordinal),
        ) else {
            return;
        };
        shared_block.get_or_init(|| {
            let mut segs = Vec::new();
            LineIndex::decode_block(self.mappings_bytes(), &block, &mut segs);
            ShortLine::new(&segs)
        });
    }

    /// The answer of a block this thread decoded before, without the index (map ids are never
    /// reused, `mappings` never changes, and a line once indexed stays so); `None` when no
    /// cached block answers for the position. With the answer, the block's ordinal and
    /// whether the block is its whole line.
    #[inline]
    fn cached(&self, line: u32, col: u32, slot: usize) -> Option<(Option<RawSegment>, u32, bool)> {
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
                block.ordinal,
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
                ordinal,
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

    /// A long line's table of buckets sends a look-up to the block the line's index does (the
    /// checkpoints at or before its column, counted), for lines of 0 to 300 checkpoints whose
    /// columns are dense, sparse, bunched at the start, tied, or up to `u32::MAX`.
    #[test]
    fn long_line_buckets_find_the_block_the_index_does() {
        let shapes: [fn(u32) -> u32; 5] = [
            |k| k + 1,
            |k| 700 * k + 3,
            |k| if k < 40 { k } else { 100_000 + 9 * k },
            |k| 5 * (k / 3) + 1,
            |k| u32::MAX - 300 + k,
        ];
        for (s, shape) in shapes.iter().enumerate() {
            for n in [0u32, 1, 2, 3, 17, 64, 300] {
                let cp_cols: Vec<u32> = (0..n).map(shape).collect();
                let long = LongLine::new(&cp_cols);
                assert_eq!(long.blocks.len(), n as usize + 1);
                let last = cp_cols.last().copied().unwrap_or(0);
                let mut cols: Vec<u32> = cp_cols
                    .iter()
                    .flat_map(|&c| [c.saturating_sub(1), c, c.saturating_add(1)])
                    .collect();
                cols.extend((0..2_000u32).map(|k| k.saturating_mul((last / 1_000).max(1))));
                cols.extend([0, u32::MAX - 1, u32::MAX]);
                for col in cols {
                    let expected = cp_cols.iter().filter(|&&c| c <= col).count();
                    assert_eq!(
                        long.ordinal(col),
                        expected,
                        "shape {s}, {n} checkpoints, {col}"
                    );
                }
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
