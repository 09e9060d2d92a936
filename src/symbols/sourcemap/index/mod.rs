//! `LineIndex`: one allocation-light pass over `mappings` that makes any generated line
//! (and any stretch of a long line) decodable on its own.
//!
//! For each generated line the index records where it starts in `mappings` and the four
//! running accumulators (source, original line, original column, name) entering it. Inside
//! long lines it also records a checkpoint every [`CHECKPOINT_EVERY`] segments: where a
//! segment starts, the generated column before it and its own, and the accumulators entering
//! it. A look-up then decodes one block of at most a few dozen segments, never a whole
//! megabyte-long minified line.
//!
//! The accumulators are sums of deltas, so `mappings` can be cut at `;` into chunks that are
//! indexed independently (on separate cores, by the caller) and stitched with a prefix sum:
//! see [`split_chunks`], [`index_chunk`] and [`LineIndex::stitch`].

use super::error::{Error, ErrorKind, Result};
use super::vlq::{CLASS, unsign};
use std::ops::Range;

/// Segments between two checkpoints inside one line.
pub const CHECKPOINT_EVERY: u32 = 64;

/// Marker for "no source" / "no name" in a [`RawSegment`].
pub const NONE: u32 = u32::MAX;

/// One decoded mapping segment: generated column and, where present, the original position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RawSegment {
    /// 0-based generated column (UTF-16 code units).
    pub gen_col: u32,
    /// Index into `sources`, or [`NONE`] for a 1-field segment.
    pub source: u32,
    /// 0-based original line.
    pub src_line: u32,
    /// 0-based original column.
    pub src_col: u32,
    /// Index into `names`, or [`NONE`].
    pub name: u32,
}

impl RawSegment {
    /// Whether the segment maps to an original position (it has 4 or 5 fields).
    pub fn has_source(&self) -> bool {
        self.source != NONE
    }
}

/// The running accumulators of `mappings` at some point (all but the generated column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Source index accumulator.
    pub source: i32,
    /// Original line accumulator.
    pub src_line: i32,
    /// Original column accumulator.
    pub src_col: i32,
    /// Name index accumulator.
    pub name: i32,
}

impl State {
    fn offset_by(self, base: [i64; 4]) -> Self {
        // Relative states are exact modulo 2^32; validated absolute values fit in i32.
        Self {
            source: self.source.wrapping_add(base[0] as i32),
            src_line: self.src_line.wrapping_add(base[1] as i32),
            src_col: self.src_col.wrapping_add(base[2] as i32),
            name: self.name.wrapping_add(base[3] as i32),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LineEntry {
    /// Byte offset in `mappings` where the line starts.
    start: u32,
    /// Index of the line's first checkpoint in `checkpoints`.
    first_cp: u32,
    /// Accumulators entering the line.
    state: State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Checkpoint {
    /// Byte offset of the segment the block starts with.
    offset: u32,
    /// Generated column of the segment before it (decoding resumes from here).
    prev_gen_col: u32,
    /// Generated column of the segment the block starts with.
    first_gen_col: u32,
    /// Accumulators entering the segment.
    state: State,
}

/// A decodable stretch of one generated line: the whole line, or a checkpoint-to-checkpoint run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// 0-based generated line.
    pub line: u32,
    /// 0 for the block at the line start, `k + 1` for the block at the line's k-th checkpoint.
    pub ordinal: u32,
    /// Byte range in `mappings`.
    pub start: u32,
    /// End of the byte range (exclusive).
    pub end: u32,
    /// Generated column entering the block.
    pub gen_col: u32,
    /// Accumulators entering the block.
    pub state: State,
    /// The line's segments are not in generated-column order and must be sorted after decoding.
    pub unsorted: bool,
}

/// The index of one source map's `mappings`.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    lines: Vec<LineEntry>,
    checkpoints: Vec<Checkpoint>,
    /// `first_gen_col` of every checkpoint, packed for the look-up's binary search.
    cp_cols: Vec<u32>,
    /// Sorted 0-based numbers of lines whose segments are out of generated-column order.
    unsorted: Vec<u32>,
    len: u32,
    segments: u64,
}

/// The index of one chunk of `mappings`, with accumulators relative to the chunk start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkIndex {
    end: u32,
    lines: Vec<LineEntry>,
    checkpoints: Vec<Checkpoint>,
    unsorted: Vec<u32>,
    /// Sum of the deltas of the whole chunk.
    total: [i64; 4],
    /// Minimum and maximum of the relative accumulators at segments that carry them.
    min: [i64; 4],
    max: [i64; 4],
    segments: u64,
    error: Option<Error>,
    /// The chunk starts after a `,`: its first line continues the previous chunk's last
    /// line, and the generated columns there are relative to that line's column so far.
    mid_line: bool,
    /// Checkpoints of that continued line (the first ones of `checkpoints`).
    partial_cps: u32,
    /// Smallest and first relative generated column on the continued line.
    partial_min_gen: i64,
    partial_first_gen: Option<i64>,
    /// The continued line is out of generated-column order within this chunk.
    partial_unsorted: bool,
    /// Generated column of the last segment on the chunk's last line (relative if that line
    /// is the continued one), and whether that line has a segment in this chunk.
    last_gen: i64,
    last_line_has_segment: bool,
    /// The chunk has a `;` (its last line started inside it).
    has_semi: bool,
}

impl ChunkIndex {
    /// Where the chunk ends in `mappings` (before its range's end if its pass stopped, see
    /// [`index_chunk_until`]).
    pub fn end(&self) -> usize {
        self.end as usize
    }

    /// Whether the chunk starts at byte 0 of `mappings` (its values are absolute).
    pub fn starts_at_zero(&self) -> bool {
        !self.mid_line && self.lines.first().is_some_and(|l| l.start == 0)
    }
}

/// Cuts `mappings` into about `n` chunks, each starting just after a `;` or, where no line
/// ends nearby (minified bundles are often one huge line), just after a `,`.
pub fn split_chunks(mappings: &[u8], n: usize) -> Vec<Range<usize>> {
    let n = n.max(1);
    let len = mappings.len();
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let target = len * k / n;
        if target <= start {
            continue;
        }
        let Some(cut) = cut_near(mappings, target, (len / n / 4).max(1)) else {
            break;
        };
        out.push(start..cut);
        start = cut;
    }
    out.push(start..len);
    out
}

/// Where to cut `mappings` at or after `target`: just after the first `;` within `near` bytes,
/// else just after the first `;` or `,`; `None` if that is the end (or there is none).
fn cut_near(mappings: &[u8], target: usize, near: usize) -> Option<usize> {
    let rest = &mappings[target..];
    let semi = memchr::memchr(b';', &rest[..rest.len().min(near)]);
    let cut = target + semi.or_else(|| memchr::memchr2(b';', b',', rest))? + 1;
    (cut < mappings.len()).then_some(cut)
}

/// Like [`split_chunks`], but the first chunk takes about `head` of every 100 bytes and the rest
/// is cut into about `n - 1` chunks.
///
/// The first chunk starts at byte 0, so it knows its accumulators and skips the range
/// bookkeeping the others need (about a fifth of their time): the bigger it is, the less
/// work in all, as long as the other cores still have enough chunks to share.
pub fn split_chunks_with_head(mappings: &[u8], n: usize, head: usize) -> Vec<Range<usize>> {
    let len = mappings.len();
    if n <= 1 || len == 0 {
        return split_chunks(mappings, n);
    }
    let target = (len * head.min(100) / 100).min(len);
    let Some(cut) = cut_near(mappings, target, len / 8 + 1) else {
        return std::iter::once(0..len).collect();
    };
    let mut out: Vec<Range<usize>> = std::iter::once(0..cut).collect();
    out.extend(
        split_chunks(&mappings[cut..], n - 1)
            .into_iter()
            .map(|r| r.start + cut..r.end + cut),
    );
    out
}

/// How many of the sorted `cols` are ≤ `x`: a branchless binary search (the halving step
/// compiles to a conditional move, so a look-up in a 2,000-checkpoint line does not stall).
#[inline]
fn count_at_most(cols: &[u32], x: u32) -> usize {
    let mut base = 0usize;
    let mut n = cols.len();
    if n == 0 {
        return 0;
    }
    while n > 1 {
        let half = n / 2;
        if cols.get(base + half).is_some_and(|&c| c <= x) {
            base += half;
        }
        n -= half;
    }
    base + usize::from(cols.get(base).is_some_and(|&c| c <= x))
}

impl LineIndex {
    /// Indexes all of `mappings` on the current thread.
    pub fn build(mappings: &[u8], sources: usize, names: usize) -> Result<Self> {
        Self::stitch(
            vec![index_chunk(mappings, 0..mappings.len(), sources, names)],
            mappings,
            sources,
            names,
        )
    }

    /// Joins chunk indexes (in order) into one index, checking source/name indices against
    /// the `sources` and `names` counts.
    pub fn stitch(
        chunks: Vec<ChunkIndex>,
        mappings: &[u8],
        sources: usize,
        names: usize,
    ) -> Result<Self> {
        if mappings.len() > u32::MAX as usize {
            return Err(Error::new(ErrorKind::TooLarge));
        }
        let mut chunks = chunks;
        if chunks.len() == 1
            && let Some(chunk) = chunks.pop()
        {
            // One chunk starts at zero: its relative values are absolute; no copy needed.
            if chunk.error.is_some() {
                // Recomputed with the counts: a chunk indexed before they were known cannot
                // tell which of a segment's bad values the serial pass names first.
                return Err(first_error(mappings, sources, names));
            }
            Self::check_ranges(&chunk, [0; 4], mappings, sources, names)?;
            return Ok(Self {
                lines: chunk.lines,
                cp_cols: chunk.checkpoints.iter().map(|c| c.first_gen_col).collect(),
                checkpoints: chunk.checkpoints,
                unsorted: chunk.unsorted,
                len: mappings.len() as u32,
                segments: chunk.segments,
            });
        }
        let total_lines: usize = chunks.iter().map(|c| c.lines.len()).sum();
        let total_cps: usize = chunks.iter().map(|c| c.checkpoints.len()).sum();
        let mut out = Self {
            lines: Vec::new(),
            checkpoints: Vec::new(),
            cp_cols: Vec::new(),
            unsorted: Vec::new(),
            len: mappings.len() as u32,
            segments: 0,
        };
        let mut base = [0i64; 4];
        let n_chunks = chunks.len();
        // The last line so far: its generated column, its last segment's column (absolute),
        // and whether it is already marked unsorted.
        let mut line_gen: i64 = 0;
        let mut line_last_seg: Option<i64> = None;
        let mut line_unsorted = false;
        for (n, chunk) in chunks.into_iter().enumerate() {
            if chunk.error.is_some()
                || Self::check_ranges(&chunk, base, mappings, sources, names).is_err()
            {
                // An earlier range problem may hide behind a later chunk's syntax error: the
                // serial pass reports the first problem in byte order, as the serial index does.
                return Err(first_error(mappings, sources, names));
            }
            let mut lines = chunk.lines;
            // A chunk that ends with `;` created the next chunk's first line; drop it.
            if n + 1 < n_chunks && lines.last().is_some_and(|l| l.start == chunk.end) {
                lines.pop();
            }
            let base_gen = line_gen;
            if n == 0 {
                // The first chunk starts at zero: its values are already absolute, so its
                // vectors become the output's (with room for the rest).
                lines.reserve(total_lines.saturating_sub(lines.len()));
                out.lines = lines;
                let mut cps = chunk.checkpoints;
                cps.reserve(total_cps.saturating_sub(cps.len()));
                out.checkpoints = cps;
                out.unsorted = chunk.unsorted;
            } else if chunk.mid_line && !out.lines.is_empty() {
                // The chunk's first line continues our last line: its columns are relative
                // to `base_gen`.
                if chunk.partial_min_gen != i64::MAX && base_gen + chunk.partial_min_gen < 0 {
                    return Err(first_error(mappings, sources, names));
                }
                let cont = out.lines.len() - 1;
                let boundary_unsorted = match (chunk.partial_first_gen, line_last_seg) {
                    (Some(first), Some(last)) => base_gen + first < last,
                    _ => false,
                };
                let drop_partial = line_unsorted || chunk.partial_unsorted || boundary_unsorted;
                if drop_partial && !line_unsorted {
                    // The whole line is decoded at once from now on: drop its checkpoints.
                    let first = out.lines[cont].first_cp as usize;
                    out.checkpoints.truncate(first);
                    out.unsorted.push(cont as u32);
                    line_unsorted = true;
                }
                let skipped = if drop_partial { chunk.partial_cps } else { 0 };
                let cp_base = out.checkpoints.len() as u32;
                let shift = base_gen as u32;
                for (k, c) in chunk.checkpoints.into_iter().enumerate() {
                    let partial = (k as u32) < chunk.partial_cps;
                    if partial && drop_partial {
                        continue;
                    }
                    let (prev_gen_col, first_gen_col) = if partial {
                        (
                            c.prev_gen_col.wrapping_add(shift),
                            c.first_gen_col.wrapping_add(shift),
                        )
                    } else {
                        (c.prev_gen_col, c.first_gen_col)
                    };
                    out.checkpoints.push(Checkpoint {
                        offset: c.offset,
                        prev_gen_col,
                        first_gen_col,
                        state: c.state.offset_by(base),
                    });
                }
                out.lines.extend(lines.into_iter().map(|l| LineEntry {
                    start: l.start,
                    first_cp: l.first_cp - skipped + cp_base,
                    state: l.state.offset_by(base),
                }));
                out.unsorted
                    .extend(chunk.unsorted.into_iter().map(|l| l + cont as u32));
            } else {
                let line_base = out.lines.len() as u32;
                let cp_base = out.checkpoints.len() as u32;
                out.lines.extend(lines.into_iter().map(|l| LineEntry {
                    start: l.start,
                    first_cp: l.first_cp + cp_base,
                    state: l.state.offset_by(base),
                }));
                out.checkpoints
                    .extend(chunk.checkpoints.into_iter().map(|c| Checkpoint {
                        state: c.state.offset_by(base),
                        ..c
                    }));
                out.unsorted
                    .extend(chunk.unsorted.into_iter().map(|l| l + line_base));
            }
            out.segments += chunk.segments;
            for (b, t) in base.iter_mut().zip(chunk.total) {
                *b += t;
            }
            if chunk.mid_line && !chunk.has_semi && n > 0 {
                // The whole chunk continued the same line.
                line_gen = base_gen + chunk.last_gen;
                if chunk.last_line_has_segment {
                    line_last_seg = Some(line_gen);
                }
            } else {
                // The chunk's last line started inside it: its columns are absolute.
                line_gen = chunk.last_gen;
                line_last_seg = chunk.last_line_has_segment.then_some(chunk.last_gen);
                let last = out.lines.len().saturating_sub(1) as u32;
                line_unsorted = out.unsorted.last() == Some(&last);
            }
        }
        out.cp_cols = out.checkpoints.iter().map(|c| c.first_gen_col).collect();
        if out.lines.is_empty() {
            out.lines.push(LineEntry {
                start: 0,
                first_cp: 0,
                state: State::default(),
            });
        }
        Ok(out)
    }

    /// Checks a chunk's accumulator ranges (offset by `base`) against the valid ranges.
    fn check_ranges(
        chunk: &ChunkIndex,
        base: [i64; 4],
        mappings: &[u8],
        sources: usize,
        names: usize,
    ) -> Result<()> {
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let limits = [
            count(sources),
            i64::from(i32::MAX) + 1,
            i64::from(i32::MAX) + 1,
            count(names),
        ];
        for k in 0..4 {
            if chunk.min[k] > chunk.max[k] {
                continue; // No segment carried this field.
            }
            if base[k] + chunk.min[k] < 0 || base[k] + chunk.max[k] >= limits[k] {
                return Err(first_error(mappings, sources, names));
            }
        }
        Ok(())
    }

    /// Number of generated lines (`;`-separated groups, the empty ones included).
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Length in bytes of the indexed `mappings`.
    pub fn byte_len(&self) -> usize {
        self.len as usize
    }

    /// The sorted 0-based numbers of the lines whose segments are out of generated-column
    /// order.
    pub fn unsorted_lines(&self) -> &[u32] {
        &self.unsorted
    }

    /// Number of non-empty segments.
    pub fn segment_count(&self) -> u64 {
        self.segments
    }

    /// Number of in-line checkpoints.
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// Approximate heap bytes held by the index.
    pub fn heap_bytes(&self) -> usize {
        self.lines.capacity() * std::mem::size_of::<LineEntry>()
            + self.checkpoints.capacity() * std::mem::size_of::<Checkpoint>()
            + self.cp_cols.capacity() * 4
            + self.unsorted.capacity() * 4
    }

    fn line_end(&self, line: usize) -> u32 {
        match self.lines.get(line + 1) {
            Some(next) => next.start.saturating_sub(1),
            None => self.len,
        }
    }

    fn line_checkpoints(&self, line: usize) -> &[Checkpoint] {
        let Some(entry) = self.lines.get(line) else {
            return &[];
        };
        let end = self
            .lines
            .get(line + 1)
            .map_or(self.checkpoints.len(), |n| n.first_cp as usize);
        self.checkpoints
            .get(entry.first_cp as usize..end)
            .unwrap_or(&[])
    }

    /// The block of `line` whose segments decide a look-up at generated column `col`.
    ///
    /// That is the block at the last checkpoint whose first column is ≤ `col`, or the
    /// line-start block. `None` when the line does not exist.
    pub fn block_for(&self, line: u32, col: u32) -> Option<Block> {
        self.block(line, self.ordinal_for(line, col)?)
    }

    /// The ordinal of the block [`Self::block_for`] returns, found without building it.
    #[inline]
    pub fn ordinal_for(&self, line: u32, col: u32) -> Option<u32> {
        let cols = self.checkpoint_columns(line)?;
        Some(count_at_most(cols, col) as u32)
    }

    /// The first generated column of each of `line`'s checkpoints, in order (block `k + 1`
    /// starts at the `k`-th); `None` when the line does not exist.
    #[inline]
    pub fn checkpoint_columns(&self, line: u32) -> Option<&[u32]> {
        let entry = self.lines.get(line as usize)?;
        let end = self
            .lines
            .get(line as usize + 1)
            .map_or(self.cp_cols.len(), |n| n.first_cp as usize);
        self.cp_cols.get(entry.first_cp as usize..end)
    }

    /// The generated columns `[from, to)` whose look-ups [`Self::ordinal_for`] sends to block
    /// `ordinal` of `line` (`to` is `u32::MAX` for the line's last block).
    pub fn block_columns(&self, line: u32, ordinal: u32) -> (u32, u32) {
        let cps = self.line_checkpoints(line as usize);
        let first_col = |k: usize| cps.get(k).map_or(u32::MAX, |c| c.first_gen_col);
        let from = match ordinal {
            0 => 0,
            k => first_col(k as usize - 1),
        };
        (from, first_col(ordinal as usize))
    }

    /// Block `ordinal` of `line` (0: from the line start; k: from the (k-1)-th checkpoint).
    pub fn block(&self, line: u32, ordinal: u32) -> Option<Block> {
        let entry = self.lines.get(line as usize)?;
        let cps = self.line_checkpoints(line as usize);
        let line_end = self.line_end(line as usize);
        let unsorted = self.unsorted.binary_search(&line).is_ok();
        let end_of = |k: usize| cps.get(k).map_or(line_end, |c| c.offset.saturating_sub(1));
        if ordinal == 0 {
            return Some(Block {
                line,
                ordinal,
                start: entry.start,
                end: end_of(0),
                gen_col: 0,
                state: entry.state,
                unsorted,
            });
        }
        let cp = cps.get(ordinal as usize - 1)?;
        Some(Block {
            line,
            ordinal,
            start: cp.offset,
            end: end_of(ordinal as usize),
            gen_col: cp.prev_gen_col,
            state: cp.state,
            unsorted,
        })
    }

    /// Number of blocks in `line` (0 if the line does not exist).
    pub fn block_count(&self, line: u32) -> u32 {
        if (line as usize) < self.lines.len() {
            self.line_checkpoints(line as usize).len() as u32 + 1
        } else {
            0
        }
    }

    /// Decodes `block` of `mappings` into `out` (cleared first), sorted by generated column.
    ///
    /// The bytes were validated by the index pass, so this decoder skips every check that
    /// cannot fail on them; on bytes that do not match the index it stops quietly.
    pub fn decode_block(mappings: &[u8], block: &Block, out: &mut Vec<RawSegment>) {
        out.clear();
        let Some(bytes) = mappings.get(block.start as usize..block.end as usize) else {
            return;
        };
        let mut acc = [
            i64::from(block.gen_col),
            i64::from(block.state.source),
            i64::from(block.state.src_line),
            i64::from(block.state.src_col),
            i64::from(block.state.name),
        ];
        // Room for every segment (most take five bytes or more with their comma).
        out.reserve(bytes.len() / 4 + 1);
        let mut pos = 0;
        while let Some(&b) = bytes.get(pos) {
            if b == b',' {
                pos += 1;
                continue;
            }
            // The index pass's common shapes first, then term by term (a `;` or a fault
            // ends the block).
            let (d, fields) =
                if let Some((d0, d1, d2, d3, d4, fields, len)) = pass::fast_segment(bytes, pos) {
                    pos += len;
                    ([d0, d1, d2, d3, d4], fields)
                } else if let Ok((d, fields, after)) = pass::segment_by_terms(bytes, pos) {
                    pos = after;
                    (d, fields)
                } else {
                    break;
                };
            acc[0] += d[0];
            let has_src = fields >= 4;
            if has_src {
                acc[1] += d[1];
                acc[2] += d[2];
                acc[3] += d[3];
            }
            if fields == 5 {
                acc[4] += d[4];
            }
            out.push(RawSegment {
                gen_col: acc[0] as u32,
                source: if has_src { acc[1] as u32 } else { NONE },
                src_line: if has_src { acc[2] as u32 } else { 0 },
                src_col: if has_src { acc[3] as u32 } else { 0 },
                name: if fields == 5 { acc[4] as u32 } else { NONE },
            });
        }
        if block.unsorted {
            // Stable, as in trace-mapping: equal columns keep their order.
            out.sort_by_key(|s| s.gen_col);
        }
    }
}

mod pass;

use pass::first_error;
pub(crate) use pass::index_chunk_by;
pub use pass::{
    STOP_MIN, Stop, index_chunk, index_chunk_entering, index_chunk_unchecked, index_chunk_until,
    resume_chunk,
};

#[cfg(test)]
mod tests;
