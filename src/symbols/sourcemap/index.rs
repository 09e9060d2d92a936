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
use super::vlq::{BAD, CLASS, COMMA, ONE_DIGIT, unsign};
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

/// Indexes one chunk of `mappings` (a range from [`split_chunks`], or the whole string);
/// `sources` and `names` are the map's counts, used to check a chunk that starts at byte 0.
///
/// Pure and allocation-light: it allocates only the per-line and per-checkpoint entries.
pub fn index_chunk(
    mappings: &[u8],
    range: Range<usize>,
    sources: usize,
    names: usize,
) -> ChunkIndex {
    index_chunk_by(mappings, range, Some((sources, names)), true)
}

/// Indexes one chunk without knowing the map's source and name counts (they are checked by
/// [`LineIndex::stitch`]): for indexing `mappings` while the rest of the JSON is still read.
pub fn index_chunk_unchecked(mappings: &[u8], range: Range<usize>) -> ChunkIndex {
    index_chunk_by(mappings, range, None, true)
}

/// Indexes one chunk as [`index_chunk`] does (`counts` `None`: as [`index_chunk_unchecked`]
/// does), by the general pass alone when `lean` is false: tests and fuzzing check that the
/// lean pass finds the same.
pub(crate) fn index_chunk_by(
    mappings: &[u8],
    range: Range<usize>,
    counts: Option<(usize, usize)>,
    lean: bool,
) -> ChunkIndex {
    let start = range.start;
    let end = range.end.min(mappings.len());
    let bytes = &mappings[start.min(end)..end];
    let fresh = || ChunkIndex {
        end: end as u32,
        // Real maps average 30+ bytes of `mappings` per generated line; a map with shorter
        // lines only makes the vector grow a few times.
        lines: Vec::with_capacity(bytes.len() / 32 + 1),
        checkpoints: Vec::new(),
        unsorted: Vec::new(),
        total: [0; 4],
        min: [i64::MAX; 4],
        max: [i64::MIN; 4],
        segments: 0,
        error: None,
        mid_line: start > 0 && mappings.get(start - 1) == Some(&b','),
        partial_cps: 0,
        partial_min_gen: i64::MAX,
        partial_first_gen: None,
        partial_unsorted: false,
        last_gen: 0,
        last_line_has_segment: false,
        has_semi: false,
    };
    let mut ix = fresh();
    // A chunk at byte 0 knows its values even before the counts are known: it checks
    // everything else at once and learns the largest source and name indices.
    let (absolute, limits, learn) = match counts {
        Some((sources, names)) => (start == 0, (sources as u64, names as u64), false),
        None => (start == 0, (0, 0), true),
    };
    if lean {
        let done = match (absolute, learn) {
            (true, false) => index_lean::<true, false>(bytes, start, limits, &mut ix),
            (true, true) => index_lean::<true, true>(bytes, start, limits, &mut ix),
            _ => index_lean::<false, false>(bytes, start, (0, 0), &mut ix),
        };
        if done.is_ok() {
            return ix;
        }
        // The lean pass only says that something is wrong; the general pass says what.
        ix = fresh();
    }
    let result = match (absolute, learn) {
        (true, false) => index_chunk_into::<true, false>(bytes, start, limits, &mut ix),
        (true, true) => index_chunk_into::<true, true>(bytes, start, limits, &mut ix),
        _ => index_chunk_into::<false, false>(bytes, start, (0, 0), &mut ix),
    };
    if let Err(err) = result {
        ix.error = Some(err);
    }
    ix
}

/// Reads one VLQ term at `pos`, returning it and the position after it. A separator or the
/// end where a term must start is `BadSegmentSize` (a segment of 2 or 3 fields); inside a
/// term it is an unfinished term (`BadBase64`).
#[inline(always)]
fn vlq_at(bytes: &[u8], pos: usize) -> Result<(i64, usize), ErrorKind> {
    let Some(&b) = bytes.get(pos) else {
        return Err(ErrorKind::BadSegmentSize);
    };
    let c = CLASS[b as usize];
    if c < 32 {
        return Ok((i64::from(ONE_DIGIT[b as usize]), pos + 1));
    }
    if c >= 64 {
        return Err(if c == BAD {
            ErrorKind::BadBase64
        } else {
            ErrorKind::BadSegmentSize
        });
    }
    vlq_long(bytes, pos, c)
}

/// The rest of a term of two or more digits (`c` is its first digit's class).
#[inline(never)]
fn vlq_long(bytes: &[u8], mut pos: usize, c: u8) -> Result<(i64, usize), ErrorKind> {
    let mut value = u64::from(c & 31);
    let mut shift = 5u32;
    pos += 1;
    loop {
        let Some(&b) = bytes.get(pos) else {
            return Err(ErrorKind::BadBase64);
        };
        let c = CLASS[b as usize];
        if c >= 64 {
            return Err(ErrorKind::BadBase64);
        }
        pos += 1;
        value |= u64::from(c & 31) << shift;
        if c & 32 == 0 {
            break;
        }
        shift += 5;
        if shift > 30 {
            return Err(ErrorKind::VlqOverflow);
        }
    }
    if value > u64::from(u32::MAX) {
        return Err(ErrorKind::VlqOverflow);
    }
    Ok((unsign(value), pos))
}

#[inline(always)]
fn is_separator(b: Option<&u8>) -> bool {
    matches!(b, None | Some(b',' | b';'))
}

#[cold]
fn index_error(kind: ErrorKind, base: usize, i: usize, line: u32) -> Error {
    let mut e = Error::at(kind, base + i);
    e.line = Some(line);
    e
}

/// Widens the seen ranges to include the current values (kept out of the hot loop).
#[cold]
#[inline(never)]
fn widen(min: &mut [i64; 4], max: &mut [i64; 4], values: [i64; 4], fields: u8) {
    let n = if fields == 5 { 4 } else { 3 };
    for k in 0..n {
        min[k] = min[k].min(values[k]);
        max[k] = max[k].max(values[k]);
    }
}

/// Limits of the absolute accumulators: `(sources, names)`.
type Limits = (u64, u64);

/// Indexes one chunk. With `ABSOLUTE` the chunk starts at byte 0, its values are absolute and
/// are checked against `limits` directly; otherwise their ranges are recorded for `stitch`.
/// With `LEARN` (absolute only) the source and name counts are not known yet: `limits` grow
/// to the largest indices seen, which `stitch` checks against the counts.
///
/// This is the general pass: chunks are indexed by [`index_lean`], and this one runs where
/// that one fails, to name the error and where it is (and in tests, as its reference).
fn index_chunk_into<const ABSOLUTE: bool, const LEARN: bool>(
    bytes: &[u8],
    base: usize,
    mut limits: Limits,
    ix: &mut ChunkIndex,
) -> Result<()> {
    // Running values, relative to the chunk start; the generated column is per line.
    let mut gen_col = 0i64;
    let mut acc = [0i64; 4];
    let (mut min, mut max) = ([0i64; 4], [-1i64; 4]);
    let mut seen = [false; 2];
    let mut line: u32 = 0;
    let mut prev_gen: i64 = i64::MIN;
    let mut in_block: u32 = 0;
    let mut line_unsorted = false;
    let mut segments = 0u64;
    // A checkpoint waiting for its segment's generated column: (offset, prev gen col, state).
    let mut pending: Option<(u32, i64, State)> = None;
    // On a chunk that starts mid-line, the first line's columns are relative (see ChunkIndex).
    let mut partial = ix.mid_line;
    // The continued line's smallest and first relative columns (kept here, not in `ix`,
    // while its segments are read: on a one-line bundle that is most of the chunk).
    let mut partial_min = i64::MAX;
    let mut partial_first: Option<i64> = None;
    let mut line_has_segment = false;
    let mut pos = 0usize;
    let n = bytes.len();
    let state = |acc: &[i64; 4]| State {
        source: acc[0] as i32,
        src_line: acc[1] as i32,
        src_col: acc[2] as i32,
        name: acc[3] as i32,
    };
    if !partial {
        ix.lines.push(LineEntry {
            start: base as u32,
            first_cp: 0,
            state: State::default(),
        });
    }

    while pos < n {
        let b = bytes[pos];
        if b == b';' {
            if partial {
                (ix.partial_min_gen, ix.partial_first_gen) = (partial_min, partial_first);
            }
            close_line(ix, line_unsorted, line, partial);
            partial = false;
            line_has_segment = false;
            ix.has_semi = true;
            pos += 1;
            line += 1;
            gen_col = 0;
            prev_gen = i64::MIN;
            in_block = 0;
            line_unsorted = false;
            pending = None;
            ix.lines.push(LineEntry {
                start: (base + pos) as u32,
                first_cp: ix.checkpoints.len() as u32,
                state: state(&acc),
            });
            continue;
        }
        if b == b',' {
            // An empty segment: nothing to decode.
            pos += 1;
            continue;
        }
        let seg_start = pos;
        // Fast path: a segment of four or five one-digit terms (most segments of real maps).
        let (d, fields) = match fast_segment(bytes, pos) {
            Some((d0, d1, d2, d3, d4, f)) => {
                pos += usize::from(f);
                ([d0, d1, d2, d3, d4], f)
            }
            None => match segment_by_terms(bytes, pos) {
                Ok((d, f, p)) => {
                    pos = p;
                    (d, f)
                }
                Err((kind, at)) => return Err(index_error(kind, base, at, line)),
            },
        };
        gen_col += d[0];
        if partial {
            // Relative to a column this chunk does not know: `stitch` checks these.
            partial_min = partial_min.min(gen_col);
            partial_first.get_or_insert(gen_col);
        } else if gen_col < 0 {
            return Err(index_error(ErrorKind::NegativeValue, base, seg_start, line));
        }
        line_has_segment = true;
        if pending.is_some()
            && let Some((offset, prev_col, st)) = pending.take()
            && gen_col > prev_col
        {
            // A checkpoint must start its run of equal columns, so that the first of several
            // segments with the same column is never behind it. (Relative columns of a
            // continued line wrap here and are offset back by `stitch`.)
            ix.checkpoints.push(Checkpoint {
                offset,
                prev_gen_col: prev_col as u32,
                first_gen_col: gen_col as u32,
                state: st,
            });
            in_block = 0;
        }
        line_unsorted |= gen_col < prev_gen;
        prev_gen = gen_col;
        if fields >= 4 {
            acc[0] += d[1];
            acc[1] += d[2];
            acc[2] += d[3];
            acc[3] += d[4];
            if ABSOLUTE {
                // One branch on checks evaluated without short-circuit: a negative or too
                // large line or column has a bit at or above 31 in the OR of the two.
                let bad = (acc[0] as u64 >= limits.0)
                    | ((acc[1] as u64 | acc[2] as u64) > i32::MAX as u64)
                    | ((fields == 5) & (acc[3] as u64 >= limits.1));
                if bad && !(LEARN && learn(&mut limits, &acc, fields)) {
                    return Err(range_error(&acc, fields, limits, base + pos, line));
                }
                segments += 1;
                in_block += 1;
                if bytes.get(pos) == Some(&b',') {
                    pos += 1;
                    if in_block >= CHECKPOINT_EVERY {
                        pending = Some(((base + pos) as u32, gen_col, state(&acc)));
                    }
                }
                continue;
            }
            // One well-predicted branch: values rarely leave the range seen so far. The
            // unsigned compare tests `min <= v <= max` at once.
            // The first segment that carries a field always widens (the empty starting range
            // cannot be tested this way).
            // Evaluated without short-circuit (`|`, `&`), so it costs one branch.
            let out = !seen[0]
                | ((acc[0] - min[0]) as u64 > (max[0] - min[0]) as u64)
                | ((acc[1] - min[1]) as u64 > (max[1] - min[1]) as u64)
                | ((acc[2] - min[2]) as u64 > (max[2] - min[2]) as u64)
                | ((fields == 5)
                    & (!seen[1] | ((acc[3] - min[3]) as u64 > (max[3] - min[3]) as u64)));
            if out {
                start_ranges(&mut min, &mut max, &mut seen, acc, fields);
                widen(&mut min, &mut max, acc, fields);
            }
        }
        segments += 1;
        in_block += 1;
        if bytes.get(pos) == Some(&b',') {
            pos += 1;
            if in_block >= CHECKPOINT_EVERY {
                pending = Some(((base + pos) as u32, gen_col, state(&acc)));
            }
        }
    }
    if partial {
        (ix.partial_min_gen, ix.partial_first_gen) = (partial_min, partial_first);
    }
    close_line(ix, line_unsorted, line, partial);
    ix.last_gen = gen_col;
    ix.last_line_has_segment = line_has_segment;
    ix.total = acc;
    ix.segments = segments;
    set_ranges::<LEARN>(ix, (min, max), seen, limits);
    Ok(())
}

/// Sets a finished chunk's value ranges: those seen (none for a field no segment carried),
/// or with `LEARN` those the learned limits allow.
fn set_ranges<const LEARN: bool>(
    ix: &mut ChunkIndex,
    (min, max): ([i64; 4], [i64; 4]),
    seen: [bool; 2],
    limits: Limits,
) {
    ix.min = min;
    ix.max = max;
    if !seen[0] {
        ix.min[..3].fill(i64::MAX);
        ix.max[..3].fill(i64::MIN);
    }
    if !seen[1] {
        ix.min[3] = i64::MAX;
        ix.max[3] = i64::MIN;
    }
    if LEARN {
        // Checked in the loop: values are non-negative, lines and columns fit; the largest
        // source and name indices are what `stitch` still has to check.
        if limits.0 > 0 {
            ix.min[..3].copy_from_slice(&[0; 3]);
            ix.max[..3].copy_from_slice(&[limits.0 as i64 - 1, 0, 0]);
        }
        if limits.1 > 0 {
            ix.min[3] = 0;
            ix.max[3] = limits.1 as i64 - 1;
        }
    }
}

/// Closes a chunk's line: an unsorted one loses its checkpoints (it is decoded whole) and is
/// listed; the line a chunk continues (`partial`) is marked for `stitch` instead.
fn close_line(ix: &mut ChunkIndex, unsorted: bool, line: u32, partial: bool) {
    if unsorted {
        let first = ix.lines.last().map_or(0, |l| l.first_cp) as usize;
        ix.checkpoints.truncate(first);
        if partial {
            ix.partial_unsorted = true;
        } else {
            ix.unsorted.push(line);
        }
    }
    if partial {
        ix.partial_cps = ix.checkpoints.len() as u32;
    }
}

/// A segment of four or five one-digit terms at `pos`, followed by a separator (most segments
/// of real maps): its values `(d0, d1, d2, d3, d4, fields)`, `d4` 0 for four. `None` for any
/// other segment, and within six bytes of the end.
#[inline(always)]
fn fast_segment(bytes: &[u8], pos: usize) -> Option<(i64, i64, i64, i64, i64, u8)> {
    let w: &[u8; 6] = bytes.get(pos..pos + 6)?.try_into().ok()?;
    if (CLASS[w[0] as usize] | CLASS[w[1] as usize] | CLASS[w[2] as usize] | CLASS[w[3] as usize])
        >= 32
    {
        return None;
    }
    let v = |b: u8| i64::from(ONE_DIGIT[b as usize]);
    if w[4] == b',' || w[4] == b';' {
        Some((v(w[0]), v(w[1]), v(w[2]), v(w[3]), 0, 4))
    } else if CLASS[w[4] as usize] < 32 && (w[5] == b',' || w[5] == b';') {
        Some((v(w[0]), v(w[1]), v(w[2]), v(w[3]), v(w[4]), 5))
    } else {
        None
    }
}

/// A segment at `pos` decoded term by term (any the fast path does not take): its values,
/// its field count and the position after it; or the error and the offset where it is.
#[inline]
fn segment_by_terms(
    bytes: &[u8],
    mut pos: usize,
) -> std::result::Result<([i64; 5], u8, usize), (ErrorKind, usize)> {
    let mut d = [0i64; 5];
    let term = |pos: &mut usize| {
        let (v, p) = vlq_at(bytes, *pos).map_err(|kind| (kind, *pos))?;
        *pos = p;
        Ok(v)
    };
    d[0] = term(&mut pos)?;
    if is_separator(bytes.get(pos)) {
        return Ok((d, 1, pos));
    }
    d[1] = term(&mut pos)?;
    d[2] = term(&mut pos)?;
    d[3] = term(&mut pos)?;
    if is_separator(bytes.get(pos)) {
        return Ok((d, 4, pos));
    }
    d[4] = term(&mut pos)?;
    if !is_separator(bytes.get(pos)) {
        return Err((ErrorKind::BadSegmentSize, pos));
    }
    Ok((d, 5, pos))
}

/// The accumulators as a [`State`] (values that passed the checks fit in `i32`).
#[inline(always)]
fn state_of(acc: [i64; 4]) -> State {
    State {
        source: acc[0] as i32,
        src_line: acc[1] as i32,
        src_col: acc[2] as i32,
        name: acc[3] as i32,
    }
}

/// What [`index_chunk_into`] does, with few values live in the loop so that they stay in
/// registers: about 1.2× as fast on the benchmark's maps.
///
/// It keeps no previous column (a negative column delta is what makes a line unsorted; the
/// first segment of a line is never behind another) and no pending checkpoint state (the
/// state entering a segment is the accumulators before it), and it handles whatever is rare
/// (a column delta that is not positive, a checkpoint, the first segment of a continued line)
/// behind one branch. It returns `Err(())` on any error: the caller then runs the general
/// pass, which names the error exactly.
fn index_lean<const ABSOLUTE: bool, const LEARN: bool>(
    bytes: &[u8],
    base: usize,
    mut limits: Limits,
    ix: &mut ChunkIndex,
) -> std::result::Result<(), ()> {
    /// `pending` for the first segment of a continued line (a checkpoint offset is never it).
    const FIRST_OF_PARTIAL: u32 = u32::MAX;
    let n = bytes.len();
    let mut pos = 0usize;
    let mut gen_col = 0i64;
    let (mut a0, mut a1, mut a2, mut a3) = (0i64, 0i64, 0i64, 0i64);
    // Ranges of the relative values (chunks that do not start at byte 0).
    let (mut min, mut max) = ([0i64; 4], [-1i64; 4]);
    let mut seen = [false; 2];
    let mut in_block = 0u32;
    let mut segments = 0u64;
    let mut line_start_segments = 0u64;
    let mut line = 0u32;
    let mut unsorted = false;
    // Offset of a checkpoint waiting for its segment (0: none; a checkpoint follows a comma).
    let mut pending = 0u32;
    let mut partial = !ABSOLUTE && ix.mid_line;
    let (mut partial_min, mut partial_first) = (i64::MAX, None);
    if partial {
        pending = FIRST_OF_PARTIAL;
    } else {
        ix.lines.push(LineEntry {
            start: base as u32,
            first_cp: 0,
            state: State::default(),
        });
    }
    while pos < n {
        let (d0, d1, d2, d3, d4, fields) = match fast_segment(bytes, pos) {
            Some((d0, d1, d2, d3, d4, f)) => {
                pos += usize::from(f);
                (d0, d1, d2, d3, d4, f)
            }
            None => {
                let b = bytes[pos];
                if b == b';' {
                    if partial {
                        (ix.partial_min_gen, ix.partial_first_gen) = (partial_min, partial_first);
                    }
                    close_line(ix, unsorted, line, partial);
                    partial = false;
                    ix.has_semi = true;
                    pos += 1;
                    line += 1;
                    gen_col = 0;
                    in_block = 0;
                    unsorted = false;
                    pending = 0;
                    line_start_segments = segments;
                    ix.lines.push(LineEntry {
                        start: (base + pos) as u32,
                        first_cp: ix.checkpoints.len() as u32,
                        state: state_of([a0, a1, a2, a3]),
                    });
                    continue;
                }
                if b == b',' {
                    pos += 1;
                    continue;
                }
                let (d, fields, p) = segment_by_terms(bytes, pos).map_err(|_| ())?;
                pos = p;
                (d[0], d[1], d[2], d[3], d[4], fields)
            }
        };
        let before = gen_col;
        gen_col += d0;
        if d0 <= 0 || pending != 0 {
            if partial {
                // Relative to a column this chunk does not know: `stitch` checks these.
                partial_min = partial_min.min(gen_col);
                partial_first.get_or_insert(gen_col);
            } else if gen_col < 0 {
                return Err(());
            }
            if pending == FIRST_OF_PARTIAL {
                pending = 0;
            } else {
                unsorted |= d0 < 0;
                if pending != 0 {
                    // A checkpoint must start its run of equal columns, so that the first of
                    // several segments with the same column is never behind it.
                    if d0 > 0 {
                        ix.checkpoints.push(Checkpoint {
                            offset: pending,
                            prev_gen_col: before as u32,
                            first_gen_col: gen_col as u32,
                            state: state_of([a0, a1, a2, a3]),
                        });
                        in_block = 0;
                    }
                    pending = 0;
                }
            }
        }
        if fields >= 4 {
            a0 += d1;
            a1 += d2;
            a2 += d3;
            a3 += d4;
            if ABSOLUTE {
                let bad = (a0 as u64 >= limits.0)
                    | ((a1 as u64 | a2 as u64) > i32::MAX as u64)
                    | ((fields == 5) & (a3 as u64 >= limits.1));
                if bad && !(LEARN && learn(&mut limits, &[a0, a1, a2, a3], fields)) {
                    return Err(());
                }
            } else {
                // As in `index_chunk_into`: one branch, taken when a value leaves its range.
                let out = !seen[0]
                    | ((a0 - min[0]) as u64 > (max[0] - min[0]) as u64)
                    | ((a1 - min[1]) as u64 > (max[1] - min[1]) as u64)
                    | ((a2 - min[2]) as u64 > (max[2] - min[2]) as u64)
                    | ((fields == 5)
                        & (!seen[1] | ((a3 - min[3]) as u64 > (max[3] - min[3]) as u64)));
                if out {
                    start_ranges(&mut min, &mut max, &mut seen, [a0, a1, a2, a3], fields);
                    widen(&mut min, &mut max, [a0, a1, a2, a3], fields);
                }
            }
        }
        segments += 1;
        in_block += 1;
        if bytes.get(pos) == Some(&b',') {
            pos += 1;
            if in_block >= CHECKPOINT_EVERY {
                pending = (base + pos) as u32;
            }
        }
    }
    if partial {
        (ix.partial_min_gen, ix.partial_first_gen) = (partial_min, partial_first);
    }
    close_line(ix, unsorted, line, partial);
    ix.last_gen = gen_col;
    ix.last_line_has_segment = segments > line_start_segments;
    ix.total = [a0, a1, a2, a3];
    ix.segments = segments;
    set_ranges::<LEARN>(ix, (min, max), seen, limits);
    Ok(())
}

/// Starts the ranges of a chunk's relative values at the first values that carry them.
#[cold]
#[inline(never)]
fn start_ranges(
    min: &mut [i64; 4],
    max: &mut [i64; 4],
    seen: &mut [bool; 2],
    values: [i64; 4],
    fields: u8,
) {
    if !seen[0] {
        min[..3].copy_from_slice(&values[..3]);
        max[..3].copy_from_slice(&values[..3]);
        seen[0] = true;
    }
    if fields == 5 && !seen[1] {
        min[3] = values[3];
        max[3] = values[3];
        seen[1] = true;
    }
}

/// Widens learned `limits` to take in a segment's source and name indices; `false` if a
/// value is out of range whatever the counts (negative, or a line or column past `i32`).
#[cold]
#[inline(never)]
fn learn(limits: &mut Limits, acc: &[i64; 4], fields: u8) -> bool {
    let fits = |v: i64| (0..=i64::from(i32::MAX)).contains(&v);
    if !(fits(acc[0]) && fits(acc[1]) && fits(acc[2]) && (fields < 5 || fits(acc[3]))) {
        return false;
    }
    limits.0 = limits.0.max(acc[0] as u64 + 1);
    if fields == 5 {
        limits.1 = limits.1.max(acc[3] as u64 + 1);
    }
    true
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
        let entry = self.lines.get(line as usize)?;
        let end = self
            .lines
            .get(line as usize + 1)
            .map_or(self.cp_cols.len(), |n| n.first_cp as usize);
        let cols = self.cp_cols.get(entry.first_cp as usize..end)?;
        Some(count_at_most(cols, col) as u32)
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
        let mut field = 0usize;
        let mut value: u64 = 0;
        let mut shift: u32 = 0;
        let push = |out: &mut Vec<RawSegment>, acc: &[i64; 5], field: usize| {
            if field == 0 {
                return;
            }
            let has_src = field >= 4;
            out.push(RawSegment {
                gen_col: acc[0] as u32,
                source: if has_src { acc[1] as u32 } else { NONE },
                src_line: if has_src { acc[2] as u32 } else { 0 },
                src_col: if has_src { acc[3] as u32 } else { 0 },
                name: if field == 5 { acc[4] as u32 } else { NONE },
            });
        };
        for &b in bytes {
            let c = CLASS[b as usize];
            if c < 32 {
                let v = value | (u64::from(c) << shift);
                if let Some(slot) = acc.get_mut(field) {
                    *slot += unsign(v);
                }
                field += 1;
                value = 0;
                shift = 0;
            } else if c < 64 {
                value |= u64::from(c & 31) << shift;
                shift = (shift + 5).min(35);
            } else if c == COMMA {
                push(out, &acc, field);
                field = 0;
            } else {
                break;
            }
        }
        push(out, &acc, field);
        if block.unsorted {
            // Stable, as in trace-mapping: equal columns keep their order.
            out.sort_by_key(|s| s.gen_col);
        }
    }
}

/// The first problem of `mappings` in byte order (slow path, run only after a chunk failed):
/// the serial pass, which checks every value against the counts as it goes.
fn first_error(mappings: &[u8], sources: usize, names: usize) -> Error {
    index_chunk(mappings, 0..mappings.len(), sources, names)
        .error
        .unwrap_or_else(|| Error::new(ErrorKind::BadSourceIndex))
}

/// The error for a segment whose values are out of range (source first, then name, then
/// original line and column), at byte `offset` of generated line `line`.
#[cold]
fn range_error(acc: &[i64; 4], fields: u8, limits: Limits, offset: usize, line: u32) -> Error {
    let (kind, detail) = if acc[0] < 0 || acc[0] as u64 >= limits.0 {
        (
            ErrorKind::BadSourceIndex,
            format!("source {} of {}", acc[0], limits.0),
        )
    } else if fields == 5 && (acc[3] < 0 || acc[3] as u64 >= limits.1) {
        (
            ErrorKind::BadNameIndex,
            format!("name {} of {}", acc[3], limits.1),
        )
    } else {
        (
            ErrorKind::NegativeValue,
            format!("original line {} column {}", acc[1], acc[2]),
        )
    };
    let mut e = Error::at(kind, offset).with_detail(detail);
    e.line = Some(line);
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_line(ix: &LineIndex, m: &[u8], line: u32) -> Vec<RawSegment> {
        let mut all = Vec::new();
        let mut buf = Vec::new();
        for k in 0..ix.block_count(line) {
            let b = ix.block(line, k).unwrap();
            LineIndex::decode_block(m, &b, &mut buf);
            all.extend_from_slice(&buf);
        }
        all
    }

    #[test]
    fn simple_lines() {
        // Line 0: col 0 → src 0 line 0 col 0; col 4 → src 0 line 0 col 2 name 0.
        // Line 1: empty. Line 2: col 1 → src 0 line 1 col 0.
        let m = b"AAAA,IAAEA;;CACF";
        let ix = LineIndex::build(m, 1, 1).unwrap();
        assert_eq!(ix.line_count(), 3);
        assert_eq!(ix.segment_count(), 3);
        let l0 = decode_line(&ix, m, 0);
        assert_eq!(l0.len(), 2);
        assert_eq!((l0[1].gen_col, l0[1].src_col, l0[1].name), (4, 2, 0));
        assert!(decode_line(&ix, m, 1).is_empty());
        let l2 = decode_line(&ix, m, 2);
        assert_eq!(
            (l2[0].gen_col, l2[0].src_line, l2[0].src_col, l2[0].name),
            (1, 1, 0, NONE)
        );
    }

    #[test]
    fn chunks_stitch_to_the_same_index() {
        let mut m = String::new();
        for line in 0..300 {
            for seg in 0..(line % 150 + 1) {
                if seg > 0 {
                    m.push(',');
                }
                m.push_str(if seg % 3 == 0 { "CACA" } else { "EAAAC" });
            }
            m.push(';');
        }
        let m = m.as_bytes();
        let whole = LineIndex::build(m, 1, 1_000_000).unwrap();
        for n in [2, 3, 7, 16] {
            let chunks = split_chunks(m, n)
                .into_iter()
                .map(|r| index_chunk(m, r, 1, 1_000_000))
                .collect();
            let stitched = LineIndex::stitch(chunks, m, 1, 1_000_000).unwrap();
            assert_eq!(stitched.line_count(), whole.line_count());
            assert_eq!(stitched.checkpoint_count(), whole.checkpoint_count());
            for line in 0..whole.line_count() as u32 {
                assert_eq!(
                    decode_line(&stitched, m, line),
                    decode_line(&whole, m, line),
                    "line {line} n {n}"
                );
            }
        }
    }

    #[test]
    fn errors_are_named() {
        assert_eq!(
            LineIndex::build(b"AA!A", 1, 0).unwrap_err().kind,
            ErrorKind::BadBase64
        );
        assert_eq!(
            LineIndex::build(b"AAA", 1, 0).unwrap_err().kind,
            ErrorKind::BadSegmentSize
        );
        assert_eq!(
            LineIndex::build(b"AAAAAA", 1, 1).unwrap_err().kind,
            ErrorKind::BadSegmentSize
        );
        assert_eq!(
            LineIndex::build(b"ACAA", 1, 0).unwrap_err().kind,
            ErrorKind::BadSourceIndex
        );
        assert_eq!(
            LineIndex::build(b"AAAAC", 1, 1).unwrap_err().kind,
            ErrorKind::BadNameIndex
        );
        assert_eq!(
            LineIndex::build(b"gggggggA", 1, 0).unwrap_err().kind,
            ErrorKind::VlqOverflow
        );
        assert_eq!(
            LineIndex::build(b"D", 1, 0).unwrap_err().kind,
            ErrorKind::NegativeValue
        );
        let e = LineIndex::build(b"AAAA;AAAA;ACAA", 1, 0).unwrap_err();
        assert_eq!((e.kind, e.line), (ErrorKind::BadSourceIndex, Some(2)));
        assert!(LineIndex::build(b"", 0, 0).unwrap().line_count() == 1);
    }

    /// The first chunk takes about the asked share, every chunk after it starts just after a
    /// separator, and together they cover `mappings` once.
    #[test]
    fn a_head_chunk_takes_its_share() {
        let m = "AAAA,CAAC;EAAE,GAAG;".repeat(5_000);
        let m = m.as_bytes();
        for (n, head) in [(2, 50), (16, 50), (16, 30), (5, 90), (3, 0)] {
            let ranges = split_chunks_with_head(m, n, head);
            assert_eq!(ranges[0].start, 0);
            assert_eq!(ranges.last().unwrap().end, m.len());
            for pair in ranges.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
                assert!(matches!(m[pair[1].start - 1], b';' | b','));
            }
            let share = ranges[0].len() * 100 / m.len();
            assert!(share.abs_diff(head) <= 1, "{n} {head}: {share}%");
            assert!(ranges.len() <= n, "{n} {head}: {}", ranges.len());
        }
        // One long line: the head ends after a `,` near its share.
        let line = "AAAA,".repeat(40_000);
        let ranges = split_chunks_with_head(line.as_bytes(), 4, 50);
        assert_eq!(ranges.len(), 4);
        assert!((ranges[0].len() * 100 / line.len()).abs_diff(50) <= 1);
    }

    /// A first chunk indexed before the counts are known (while the JSON is still read)
    /// learns the largest source and name indices; `stitch` then finds a range error there
    /// exactly as the serial pass does, and otherwise gives the serial index.
    #[test]
    fn a_head_indexed_before_the_counts_are_known_is_checked_by_stitch() {
        let mut m = String::new();
        for line in 0..400 {
            for seg in 0..(line % 70 + 1) {
                if seg > 0 {
                    m.push(',');
                }
                // Source index 1 and name index 9 appear in the first eighth only.
                m.push_str(match (line, seg) {
                    (50, 0) => "ACAAS",
                    (60, 0) => "ADAAT",
                    _ if seg % 3 == 0 => "CAAA",
                    _ => "EAACA",
                });
            }
            m.push(';');
        }
        let m = m.as_bytes();
        for (sources, names) in [(1, 10), (2, 10), (1, 9), (1, 1), (0, 0)] {
            let serial = LineIndex::build(m, sources, names);
            for head in [10, 50, 90] {
                let chunks = split_chunks_with_head(m, 6, head)
                    .into_iter()
                    .map(|r| index_chunk_unchecked(m, r))
                    .collect();
                let early = LineIndex::stitch(chunks, m, sources, names);
                match (&serial, early) {
                    (Ok(s), Ok(e)) => {
                        assert_eq!(e.segment_count(), s.segment_count());
                        assert_eq!(e.checkpoint_count(), s.checkpoint_count());
                        for line in (0..s.line_count() as u32).step_by(7) {
                            assert_eq!(decode_line(&e, m, line), decode_line(s, m, line));
                        }
                    }
                    (Err(s), Err(e)) => {
                        assert_eq!((e.kind, e.line, e.offset), (s.kind, s.line, s.offset));
                    }
                    (s, e) => panic!(
                        "{sources}/{names} head {head}: serial {:?} vs early {:?}",
                        s.as_ref().err(),
                        e.err()
                    ),
                }
            }
        }
        // Source 1 of 2 and name 9 of 10 are in range: the map indexes.
        LineIndex::build(m, 2, 10).unwrap();
        assert_eq!(
            LineIndex::build(m, 1, 10).unwrap_err().kind,
            ErrorKind::BadSourceIndex
        );
    }

    /// Found by `cargo fuzz` (target `mappings`, input `ICFC`): a lone chunk indexed before the
    /// counts were known named its segment's source index (beyond the largest seen so far)
    /// where the serial pass names the negative original line.
    #[test]
    fn regression_early_single_chunk_error_kind() {
        let m = b"ICFC";
        let serial = LineIndex::build(m, 64, 256).unwrap_err();
        assert_eq!(serial.kind, ErrorKind::NegativeValue);
        let chunks = vec![index_chunk_unchecked(m, 0..m.len())];
        let early = LineIndex::stitch(chunks, m, 64, 256).unwrap_err();
        assert_eq!((early.kind, early.offset), (serial.kind, serial.offset));
        // With too few sources the serial pass names the source first, and so does the stitch.
        let serial = LineIndex::build(m, 1, 256).unwrap_err();
        assert_eq!(serial.kind, ErrorKind::BadSourceIndex);
        let chunks = vec![index_chunk_unchecked(m, 0..m.len())];
        let early = LineIndex::stitch(chunks, m, 1, 256).unwrap_err();
        assert_eq!(early.kind, ErrorKind::BadSourceIndex);
    }

    /// Found by `cargo fuzz` (target `mappings`): a chunk whose first 5-field segment has an
    /// out-of-range name passed the chunked range check (its empty starting range looked
    /// like "everything"), while the serial pass rejected it.
    #[test]
    fn regression_chunk_first_name_range() {
        let m = b"AAAA,EAIA;;ACACF";
        let serial = LineIndex::build(m, 64, 256).unwrap_err();
        assert_eq!(serial.kind, ErrorKind::BadNameIndex);
        for n in 2..5 {
            let chunks = split_chunks(m, n)
                .into_iter()
                .map(|r| index_chunk(m, r, 64, 256))
                .collect();
            let chunked = LineIndex::stitch(chunks, m, 64, 256).unwrap_err();
            assert_eq!(chunked.kind, ErrorKind::BadNameIndex, "{n} chunks");
            assert_eq!(chunked.line, Some(2));
        }
    }

    /// Found by `cargo fuzz` (target `mappings`): with a range problem in one chunk and a
    /// syntax error later in the same chunk, the chunked index reported the later error.
    #[test]
    fn regression_chunked_error_order() {
        let m = b"AAAA;AAAA;AAAA;AAAA;AAAF;AA";
        let serial = LineIndex::build(m, 64, 256).unwrap_err();
        assert_eq!(
            (serial.kind, serial.line),
            (ErrorKind::NegativeValue, Some(4))
        );
        for n in 2..6 {
            let chunks = split_chunks(m, n)
                .into_iter()
                .map(|r| index_chunk(m, r, 64, 256))
                .collect();
            let chunked = LineIndex::stitch(chunks, m, 64, 256).unwrap_err();
            assert_eq!(
                (chunked.kind, chunked.line),
                (serial.kind, serial.line),
                "{n} chunks"
            );
        }
    }

    /// One huge generated line (minified bundles) is cut inside the line, after a `,`; the
    /// stitched index decodes exactly like the serial one, ties, unsorted stretches and range
    /// errors across chunk borders included.
    #[test]
    fn chunks_inside_one_long_line() {
        let enc = |v: i64, out: &mut String| crate::symbols::sourcemap::vlq::encode(out, v);
        for variant in 0..4 {
            let mut m = String::new();
            let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ variant;
            for seg in 0..5_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if seg > 0 {
                    m.push(',');
                }
                // Mostly increasing columns, some ties; variant 1 goes backwards once (unsorted).
                let dcol = if variant == 1 && seg == 3_700 {
                    -40
                } else {
                    (x % 7) as i64
                };
                enc(dcol, &mut m);
                enc(0, &mut m);
                enc((x >> 8) as i64 % 3 - 1, &mut m);
                enc((x >> 16) as i64 % 5 - 2, &mut m);
            }
            if variant == 2 {
                m.push_str(";AAAA,CAAC"); // A second line after the long one.
            }
            if variant == 3 {
                m.push_str(",AAAAC"); // Name 1 of 1: a range error at the very end.
            }
            let m = m.as_bytes();
            let serial = LineIndex::build(m, 1, 1);
            for n in 2..12 {
                let ranges = split_chunks(m, n);
                assert!(ranges.len() > 1, "the line is cut");
                let chunks = ranges
                    .into_iter()
                    .map(|r| index_chunk(m, r, 1, 1))
                    .collect();
                let stitched = LineIndex::stitch(chunks, m, 1, 1);
                match (&serial, &stitched) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a.line_count(), b.line_count());
                        assert_eq!(a.unsorted, b.unsorted, "variant {variant} n {n}");
                        for line in 0..a.line_count() as u32 {
                            assert_eq!(
                                decode_line(a, m, line),
                                decode_line(b, m, line),
                                "variant {variant} n {n}"
                            );
                            for col in (0..20_000).step_by(37) {
                                let (ba, bb) = (a.block_for(line, col), b.block_for(line, col));
                                let (mut sa, mut sb) = (Vec::new(), Vec::new());
                                LineIndex::decode_block(m, &ba.unwrap(), &mut sa);
                                LineIndex::decode_block(m, &bb.unwrap(), &mut sb);
                                let pick = |v: &[RawSegment]| {
                                    v.iter().rev().find(|s| s.gen_col <= col).map(|s| s.gen_col)
                                };
                                assert_eq!(
                                    pick(&sa),
                                    pick(&sb),
                                    "variant {variant} n {n} col {col}"
                                );
                            }
                        }
                    }
                    (Err(a), Err(b)) => assert_eq!((a.kind, a.line), (b.kind, b.line)),
                    (a, b) => panic!(
                        "variant {variant} n {n}: {:?} vs {:?}",
                        a.as_ref().err(),
                        b.as_ref().err()
                    ),
                }
            }
        }
    }

    #[test]
    fn branchless_count_equals_partition_point() {
        let cols: Vec<u32> = (0..300).map(|i| i * 3 + (i % 7)).collect();
        for n in 0..cols.len() {
            let slice = &cols[..n];
            for x in 0..1000 {
                assert_eq!(
                    count_at_most(slice, x),
                    slice.partition_point(|&c| c <= x),
                    "n {n} x {x}"
                );
            }
        }
    }

    #[test]
    fn unsorted_lines_are_sorted_on_decode() {
        let m = b"IAAA,DAAC,CAAC";
        let ix = LineIndex::build(m, 1, 0).unwrap();
        let cols: Vec<u32> = decode_line(&ix, m, 0).iter().map(|s| s.gen_col).collect();
        assert_eq!(cols, vec![3, 4, 4]);
    }

    /// Mappings for [`lean_pass_equals_the_general_one`]: lines of up to 200 segments of 1, 4
    /// or 5 fields with one- to four-digit terms, and now and then a negative column delta (an
    /// unsorted line, or a negative column), an equal column, an empty segment or line, a
    /// value out of range, a bad byte or a cut-off end.
    fn generated_mappings(seed: u64) -> Vec<u8> {
        use super::super::vlq::encode;
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut m = String::new();
        // Source, original line, original column, name.
        let mut acc = [0i64; 4];
        for _ in 0..next(12) + 1 {
            let segments = [1, 5, 70, 200][next(4) as usize];
            for k in 0..next(segments) + 1 {
                if k > 0 {
                    m.push(',');
                }
                let col = match next(100) {
                    0 => -(next(30) as i64) - 1,
                    1 => 0,
                    _ => next(15) as i64 + 1,
                };
                encode(&mut m, col);
                let fields = [1, 4, 4, 4, 5, 5][next(6) as usize];
                if fields == 1 && next(3) == 0 {
                    // An empty segment instead.
                    m.pop();
                    continue;
                }
                let targets = [
                    if next(20) == 0 {
                        next(6) as i64
                    } else {
                        acc[0]
                    },
                    (acc[1] + next(7) as i64 - 2).max(0),
                    if next(30) == 0 {
                        next(40_000) as i64
                    } else {
                        (acc[2] + next(9) as i64 - 4).max(0)
                    },
                    next(4) as i64,
                ];
                for (f, target) in targets.into_iter().enumerate().take(fields - 1) {
                    // Now and then past the counts or negative.
                    let target = match next(4_000) {
                        0 => -1,
                        1 => [6, 4, 400, 40][f],
                        _ => target,
                    };
                    encode(&mut m, target - acc[f]);
                    acc[f] = target;
                }
                if next(2_000) == 0 {
                    m.push(['!', '"', 'A', 'g'][next(4) as usize]);
                }
            }
            m.push(';');
            if next(8) == 0 {
                m.push(';');
            }
        }
        let mut m = m.into_bytes();
        if next(4) == 0 {
            m.truncate(next(m.len() as u64 + 1) as usize);
        }
        m
    }

    /// The lean pass finds what the general pass finds, for the whole string and for chunks
    /// cut at `;` and inside lines, with the counts known or learned: on the corpus's largest
    /// maps and on 3,000 generated mappings.
    #[test]
    fn lean_pass_equals_the_general_one() {
        let mut inputs: Vec<Vec<u8>> = (0..3_000).map(generated_mappings).collect();
        for path in [
            "pdfjs-dist-worker/pdf.worker.mjs.map",
            "three-esbuild/three.min.js.map",
            "index-map-rxjs-lodash/vendor.min.js.map",
        ] {
            let path = format!("{}/tests/fixtures/js/{path}", env!("CARGO_MANIFEST_DIR"));
            let json: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let mut add = |v: &serde_json::Value| {
                if let Some(m) = v["mappings"].as_str() {
                    inputs.push(m.as_bytes().to_vec());
                }
            };
            add(&json);
            json["sections"]
                .as_array()
                .into_iter()
                .flatten()
                .for_each(|s| add(&s["map"]));
        }
        let (mut errors, mut unsorted, mut checkpoints) = (0, 0, 0);
        let (mut mid_line, mut partial_unsorted) = (0, 0);
        for m in &inputs {
            for counts in [
                None,
                Some((6, 4)),
                Some((400, 40)),
                Some((1 << 20, 1 << 20)),
            ] {
                let lean = index_chunk_by(m, 0..m.len(), counts, true);
                let general = index_chunk_by(m, 0..m.len(), counts, false);
                assert_eq!(lean, general, "{counts:?} {:?}", String::from_utf8_lossy(m));
                errors += usize::from(lean.error.is_some());
                unsorted += lean.unsorted.len();
                checkpoints += lean.checkpoints.len();
            }
            // Chunks cut after every few separators, `;` or `,` alike.
            let cuts: Vec<usize> = (1..m.len())
                .filter(|&i| matches!(m[i - 1], b',' | b';'))
                .collect();
            let ends: Vec<usize> = cuts
                .iter()
                .copied()
                .step_by(cuts.len() / 6 + 1)
                .chain([m.len()])
                .collect();
            for r in ends.windows(2).map(|w| w[0]..w[1]) {
                let lean = index_chunk_by(m, r.clone(), None, true);
                let general = index_chunk_by(m, r.clone(), None, false);
                assert_eq!(lean, general, "{r:?} {:?}", String::from_utf8_lossy(m));
                mid_line += usize::from(lean.mid_line);
                partial_unsorted += usize::from(lean.partial_unsorted);
            }
        }
        // The generated inputs reach every branch of the pass.
        assert!(
            errors > 1_000 && unsorted > 1_000 && checkpoints > 1_000,
            "{errors} {unsorted} {checkpoints}"
        );
        assert!(errors < 10_000, "{errors} of 12,000 passes failed");
        assert!(
            mid_line > 500 && partial_unsorted > 50,
            "{mid_line} {partial_unsorted}"
        );
    }
}
