//! The index pass over `mappings`: a lean loop that keeps few values live and only says
//! *that* a chunk is wrong, and the general loop, which names the error and where it is (a
//! chunk the lean loop refuses is indexed again by it).

use super::*;
use crate::symbols::sourcemap::vlq::{BAD, ONE_DIGIT};
use std::hint::black_box;

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
    let fresh = || empty_chunk(mappings, start.min(end)..end);
    let mut ix = fresh();
    // A chunk at byte 0 knows its values even before the counts are known: it checks
    // everything else at once and learns the largest source and name indices.
    let (absolute, limits, learn) = match counts {
        Some((sources, names)) => (start == 0, (sources as u64, names as u64), false),
        None => (start == 0, (0, 0), true),
    };
    if lean {
        let done = match (absolute, learn) {
            (true, false) => {
                index_lean::<true, false>(bytes, start, limits, [0; 4], None, None, &mut ix)
            }
            (true, true) => {
                index_lean::<true, true>(bytes, start, limits, [0; 4], None, None, &mut ix)
            }
            _ => index_lean::<false, false>(bytes, start, (0, 0), [0; 4], None, None, &mut ix),
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

/// Indexes a chunk that starts a line (just after a `;`) where the accumulators are known to
/// be `entering`: its values are checked against the counts as it goes, as a chunk at byte 0
/// is (the chunks of a map indexed as far as its look-ups ask, grown line by line). The chunk's
/// values are still kept relative to its start, so that [`LineIndex::stitch`] joins it as any
/// other; a chunk with a fault is indexed again by the general pass, which finds it.
pub fn index_chunk_entering(
    mappings: &[u8],
    range: Range<usize>,
    sources: usize,
    names: usize,
    entering: [i64; 4],
) -> ChunkIndex {
    index_chunk_until(mappings, range, sources, names, entering, None)
}

/// Where an index pass may end inside a long line: on the chunk's `line` (counted from its
/// first line), once past generated column `col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stop {
    /// The line, counted from the chunk's first line.
    pub line: u32,
    /// The column a look-up asks for: the pass ends at the first checkpoint after it.
    pub col: u32,
    /// Bytes the line must still have there for the pass to end ([`STOP_MIN`] for a map
    /// read lazily).
    pub min_rest: usize,
}

/// Bytes a line must still have after a [`Stop`]'s column for a map read lazily to stop
/// there: below this, finishing the line costs less than a later growth.
pub const STOP_MIN: usize = 1 << 16;

/// As [`index_chunk_entering`], and where `stop` asks, the pass ends inside that line: at the
/// first checkpoint past the column (the chunk's `end` is then that checkpoint's offset), if
/// the rest of the line is at least `min_rest` bytes and in generated-column order (each
/// segment's column delta has no minus sign, so no later segment can answer the column). A
/// chunk that does not start a line is indexed as [`index_chunk`] does, without `stop`.
pub fn index_chunk_until(
    mappings: &[u8],
    range: Range<usize>,
    sources: usize,
    names: usize,
    entering: [i64; 4],
    stop: Option<Stop>,
) -> ChunkIndex {
    let end = range.end.min(mappings.len());
    let start = range.start.min(end);
    let starts_line = start == 0 || mappings.get(start - 1) == Some(&b';');
    if !starts_line {
        // It continues a line: relative values, which `stitch` checks.
        return index_chunk(mappings, start..end, sources, names);
    }
    let mut ix = empty_chunk(mappings, start..end);
    let limits = (sources as u64, names as u64);
    let bytes = &mappings[start..end];
    let entering = if start == 0 { [0; 4] } else { entering };
    if index_lean::<true, false>(bytes, start, limits, entering, stop, None, &mut ix).is_ok() {
        return ix;
    }
    index_chunk_by(mappings, start..end, Some((sources, names)), false)
}

/// Goes on with a chunk of [`index_chunk_until`] as far as `end`: one whose pass stopped
/// inside a line, or one whose range ended just after a `;`. The chunk then is what that
/// pass would have made of `start..end` (without the stop). `start` and `entering` are what
/// it was first given.
pub fn resume_chunk(
    mappings: &[u8],
    mut ix: ChunkIndex,
    start: usize,
    entering: [i64; 4],
    end: usize,
    sources: usize,
    names: usize,
) -> ChunkIndex {
    let end = end.min(mappings.len());
    let from = ix.end();
    if !(start <= from && from <= end) || ix.lines.is_empty() || ix.error.is_some() {
        return index_chunk_until(mappings, start..end, sources, names, entering, None);
    }
    let entering = if start == 0 { [0; 4] } else { entering };
    // Room for the lines to come, guessed from the lines per byte so far, a quarter more (grown
    // a step at a time, the vector was copied into fresh memory each time; room never written
    // to takes no memory).
    let (done, rest) = ((from - start).max(1) as u128, (end - from) as u128);
    let guess = ix.lines.len() as u128 * rest * 5 / 4 / done;
    ix.lines.reserve(guess.min(rest / 2) as usize);
    let resume = Resume {
        pos: from - start,
        line: ix.lines.len() as u32 - 1,
    };
    ix.end = end as u32;
    let limits = (sources as u64, names as u64);
    let bytes = &mappings[start..end];
    if index_lean::<true, false>(bytes, start, limits, entering, None, Some(resume), &mut ix)
        .is_ok()
    {
        return ix;
    }
    index_chunk_by(mappings, start..end, Some((sources, names)), false)
}

/// Where [`index_lean`] goes on with a chunk it stopped: the rest comes from the chunk.
#[derive(Clone, Copy, Debug)]
pub(super) struct Resume {
    /// The position in the chunk's bytes.
    pos: usize,
    /// The chunk's last line (counted from its first).
    line: u32,
}

/// Whether no segment of `rest` (a line's bytes from a segment on) but the first moves back
/// in generated column: no segment after a `,` starts with a digit that carries a minus sign
/// (the low bit of its value). A `-0` counts as moving back, which only costs the stop.
fn rest_in_order(rest: &[u8]) -> bool {
    // The value of `A`-`Z` and `a`-`z` is odd on an even byte, that of `0`-`9`, `+` and `/`
    // on an odd byte, but for `+` (62).
    let minus = |b: u8| (u8::from(b >= b'A') ^ (b & 1)) & u8::from(b != b'+');
    const BLOCK: usize = 4096;
    let mut at = 0;
    while at + 1 < rest.len() {
        let to = (at + BLOCK).min(rest.len() - 1);
        let bad = rest[at..to]
            .iter()
            .zip(&rest[at + 1..to + 1])
            .fold(0u8, |acc, (&p, &b)| acc | (u8::from(p == b',') & minus(b)));
        if bad != 0 {
            return false;
        }
        at = to;
    }
    true
}

/// The index of chunk `range` before its pass.
pub(super) fn empty_chunk(mappings: &[u8], range: Range<usize>) -> ChunkIndex {
    ChunkIndex {
        end: range.end as u32,
        // Real maps average 30+ bytes of `mappings` per generated line; a map with shorter
        // lines only makes the vector grow a few times.
        lines: Vec::with_capacity(range.len() / 32 + 1),
        // A checkpoint every 64 segments of a long line, of 4 to 8 bytes each in real maps:
        // room for those of a chunk of long lines (one of short lines leaves it untouched).
        checkpoints: Vec::with_capacity(range.len() / 256),
        unsorted: Vec::new(),
        total: [0; 4],
        min: [i64::MAX; 4],
        max: [i64::MIN; 4],
        segments: 0,
        error: None,
        mid_line: range.start > 0 && mappings.get(range.start - 1) == Some(&b','),
        partial_cps: 0,
        partial_min_gen: i64::MAX,
        partial_first_gen: None,
        partial_unsorted: false,
        last_gen: 0,
        last_line_has_segment: false,
        has_semi: false,
    }
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
    // Two digits (most of the terms that are not one): decoded here, not in `vlq_long`.
    if let Some(&b2) = bytes.get(pos + 1) {
        let c2 = CLASS[b2 as usize];
        if c2 < 32 {
            let value = u64::from(c & 31) | (u64::from(c2) << 5);
            return Ok((unsign(value), pos + 2));
        }
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
        // Digits past 32 bits may be written, as zeros (the spec bounds the value, not the
        // number of digits).
        let digit = u64::from(c & 31);
        if shift < 35 {
            value |= digit << shift;
        } else if digit != 0 {
            return Err(ErrorKind::VlqOverflow);
        }
        if c & 32 == 0 {
            break;
        }
        shift = (shift + 5).min(35);
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
            pos += 1;
            next_line(
                ix,
                line_unsorted,
                line,
                partial,
                (base + pos) as u32,
                state(&acc),
            );
            partial = false;
            line_has_segment = false;
            line += 1;
            gen_col = 0;
            prev_gen = i64::MIN;
            in_block = 0;
            line_unsorted = false;
            pending = None;
            continue;
        }
        if b == b',' {
            // An empty segment: nothing to decode.
            pos += 1;
            continue;
        }
        let seg_start = pos;
        // Fast path: the shapes of most segments of real maps.
        let (d, fields) = match fast_segment(bytes, pos) {
            Some((d0, d1, d2, d3, d4, f, len)) => {
                pos += len;
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

/// A `;`: the chunk's line closed (see [`close_line`]), the next one's entry made at `start`
/// with the accumulators entering it.
#[inline(always)]
fn next_line(
    ix: &mut ChunkIndex,
    unsorted: bool,
    line: u32,
    partial: bool,
    start: u32,
    state: State,
) {
    close_line(ix, unsorted, line, partial);
    ix.has_semi = true;
    let first_cp = ix.checkpoints.len() as u32;
    ix.lines.push(LineEntry {
        start,
        first_cp,
        state,
    });
}

/// [`next_line`] after a segment of [`index_lean`]'s plain loop, out of the loop's code (to
/// keep its registers).
#[inline(never)]
fn plain_line_end(ix: &mut ChunkIndex, unsorted: bool, line: u32, start: u32, state: State) {
    next_line(ix, unsorted, line, false, start, state);
}

/// The tables of [`index_lean`]'s plain-segment loop, in one static so that one register
/// addresses them all: [`CLASS`] and [`ONE_DIGIT`] again, and a one-digit term's value as
/// the loop adds it to a packed register (see there): a source or name index's step
/// `d - (d << 32)` (`steps[0]`), an original line's `d << 32` (`steps[1]`) and a generated
/// column's `d` with one more segment in the block (`cols`; `i64::MIN` where `d` is not
/// positive, which sets the sign bit), by byte (0 in `steps` for a byte that is not a
/// one-digit term).
struct LeanTables {
    steps: [[u64; 256]; 2],
    cols: [i64; 256],
    class: [u8; 256],
    one: [i8; 256],
}

static LEAN: LeanTables = build_lean();

/// The bit of [`index_lean`]'s plain loop's packed column where the block's count starts.
const COUNT_AT: u32 = 56;

/// Added to the count there, so that the sign bit is set once the count passes
/// [`CHECKPOINT_EVERY`] (a block holds at most that many segments before its checkpoint).
const COUNT_BIAS: i64 = 127 - CHECKPOINT_EVERY as i64;

const fn build_lean() -> LeanTables {
    let mut t = LeanTables {
        steps: [[0; 256]; 2],
        cols: [0; 256],
        class: CLASS,
        one: ONE_DIGIT,
    };
    let mut b = 0;
    while b < 256 {
        let d = ONE_DIGIT[b] as i64;
        t.steps[0][b] = d.wrapping_sub(d << 32) as u64;
        t.steps[1][b] = (d << 32) as u64;
        // A column that does not move forward leaves the loop (see there).
        t.cols[b] = if d > 0 { d + (1 << COUNT_AT) } else { i64::MIN };
        b += 1;
    }
    t
}

/// A segment at `pos` of the shapes most segments of real maps have, followed by a separator:
/// four or five terms of one digit, the fourth of two digits in a four-term segment (Hermes
/// maps' original columns), or the fifth of two to four (a name far from the last). Its
/// values `(d0, d1, d2, d3, d4, fields, length)`, `d4` 0 for four. `None` for any other
/// segment, and near the end. Each shape is a branch: the CPU runs ahead on the predicted
/// length of a segment (a decoder without branches was slower, see `benches/README.md`).
///
/// The general pass uses it, and [`index_lean`] for a segment its plain loop left (chunks at
/// byte 0). For other chunks `index_lean` takes the same shapes inline, and a name after a
/// two-digit fourth term too, each followed by its own copy of the loop's tail (returning
/// the values to one tail cost it registers), and the tests hold the passes to each other.
#[inline(always)]
pub(super) fn fast_segment(
    bytes: &[u8],
    pos: usize,
) -> Option<(i64, i64, i64, i64, i64, u8, usize)> {
    let w: &[u8; 6] = bytes.get(pos..pos + 6)?.try_into().ok()?;
    if (CLASS[w[0] as usize] | CLASS[w[1] as usize] | CLASS[w[2] as usize]) >= 32 {
        return None;
    }
    let v = |b: u8| i64::from(ONE_DIGIT[b as usize]);
    let c3 = CLASS[w[3] as usize];
    if c3 >= 32 {
        // A two-digit fourth term ending the segment (the original column: common in
        // Hermes maps).
        let c4 = CLASS[w[4] as usize];
        if c3 < 64 && c4 < 32 && (w[5] == b',' || w[5] == b';') {
            let d3 = unsign(u64::from(c3 & 31) | (u64::from(c4) << 5));
            return Some((v(w[0]), v(w[1]), v(w[2]), d3, 0, 4, 5));
        }
        return None;
    }
    if w[4] == b',' || w[4] == b';' {
        Some((v(w[0]), v(w[1]), v(w[2]), v(w[3]), 0, 4, 4))
    } else if CLASS[w[4] as usize] < 32 && (w[5] == b',' || w[5] == b';') {
        Some((v(w[0]), v(w[1]), v(w[2]), v(w[3]), v(w[4]), 5, 5))
    } else {
        long_name(bytes, pos).map(|(d4, len)| (v(w[0]), v(w[1]), v(w[2]), v(w[3]), d4, 5, len))
    }
}

/// A fifth term of two to four digits at `pos + 4` ending the segment (a name index that
/// moved far): its value and the segment's length.
#[inline(always)]
fn long_name(bytes: &[u8], pos: usize) -> Option<(i64, usize)> {
    // Plain `if`s, not `bool::then` closures: a closure here was left a call of its own.
    let w: &[u8; 5] = bytes.get(pos + 4..pos + 9)?.try_into().ok()?;
    let sep = |b: u8| b == b',' || b == b';';
    let (e0, e1) = (CLASS[w[0] as usize], CLASS[w[1] as usize]);
    // `e0` must continue (a one-digit fifth term followed by more is not a segment).
    if !(32..64).contains(&e0) || e1 >= 64 {
        return None;
    }
    if e1 < 32 {
        if !sep(w[2]) {
            return None;
        }
        return Some((unsign(u64::from(e0 & 31) | (u64::from(e1) << 5)), 6));
    }
    let e2 = CLASS[w[2] as usize];
    if e2 < 32 {
        if !sep(w[3]) {
            return None;
        }
        let value = u64::from(e0 & 31) | (u64::from(e1 & 31) << 5) | (u64::from(e2) << 10);
        return Some((unsign(value), 7));
    }
    // Four digits (maps with tens of thousands of names).
    let e3 = CLASS[w[3] as usize];
    if e2 >= 64 || e3 >= 32 || !sep(w[4]) {
        return None;
    }
    let value = u64::from(e0 & 31)
        | (u64::from(e1 & 31) << 5)
        | (u64::from(e2 & 31) << 10)
        | (u64::from(e3) << 15);
    Some((unsign(value), 8))
}

/// A segment at `pos` decoded term by term (any the fast path does not take): its values,
/// its field count and the position after it; or the error and the offset where it is.
#[inline(always)]
pub(super) fn segment_by_terms(
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
/// registers (the general loop spilled them to the stack on every segment).
///
/// It keeps no previous column (a negative column delta is what makes a line unsorted; the
/// first segment of a line is never behind another), no pending checkpoint (one is due when
/// the block's count is full; the state entering a segment is the accumulators before it)
/// and no separate segment count, and it handles whatever is rare (a column delta that is
/// not positive, a checkpoint, the first segment of a continued line) behind one branch.
/// Each of the fast path's shapes adds its values on its own (`segment!`), with the original
/// line and column in one register. It returns `Err(())` on any error: the caller then runs
/// the general pass, which names the error exactly.
///
/// With `ABSOLUTE`, a plain loop takes most segments first: a common shape (a first term of
/// one or two digits, then two of one, the fourth of one or two, and no name or one of up to
/// four digits), a column after the last, no checkpoint due, every value in range. Its
/// segments are decoded from one 12-byte window with the tables of [`LEAN`], each shape and
/// each separator after it on a path of its own with its length a constant; the generated
/// column and the block's count are one register, whose sign bit a full block or a column
/// not moving forward sets (one add and one branch, the add taken back when the segment is
/// not plain); the source and original steps are added before the shape is known (and taken
/// back through `black_box` when it is not plain, so that LLVM does not keep the values
/// before in registers of their own); a `;` after a plain segment starts the next line there
/// (its entry made by a call out of the loop's code). Whatever it leaves (a separator
/// after another, a rare shape, a checkpoint, a column not after the last) the code after it
/// takes, one at a time. Small changes to that loop move LLVM's register allocation (what
/// was tried is in `benches/README.md`): measure each with callgrind.
/// With `ABSOLUTE`, `entering` are the accumulators entering the chunk (zero at byte 0): the
/// values are checked with them added, and kept without them.
pub(super) fn index_lean<const ABSOLUTE: bool, const LEARN: bool>(
    bytes: &[u8],
    base: usize,
    mut limits: Limits,
    entering: [i64; 4],
    mut stop: Option<Stop>,
    resume: Option<Resume>,
    ix: &mut ChunkIndex,
) -> std::result::Result<(), ()> {
    /// The sign bits of the two halves of `lc`.
    const HALF_SIGNS: u64 = 0x8000_0000_8000_0000;
    let n = bytes.len();
    let mut pos = 0usize;
    let mut gen_col = 0i64;
    let [mut a0, mut a1, mut a2, mut a3] = entering;
    let [e0, e1, e2, e3] = entering;
    // With ABSOLUTE, the original line and column are one register: the line in the high
    // half, the column in the low. While both are in `0..2^31` a delta added as
    // `(d2 << 32) + d3` lands in each half exactly, and a value out of that range (a column
    // gone negative borrows from the line) sets one of the halves' sign bits.
    let pack = |line: i64, col: i64| ((line as u64) << 32).wrapping_add(col as u64);
    let mut lc = pack(a1, a2);
    // Ranges of the relative values (chunks that do not start at byte 0).
    let (mut min, mut max) = ([0i64; 4], [-1i64; 4]);
    let mut seen = [false; 2];
    let mut in_block = 0u32;
    // Segments before the current block (the count is `block_base + in_block`).
    let mut block_base = 0u64;
    let mut line_start_segments = 0u64;
    let mut line = 0u32;
    let mut unsorted = false;
    // A checkpoint is due at a segment when the block before it is full (`in_block` at
    // [`CHECKPOINT_EVERY`]; a `;` empties it, so the full block and the segment are on one
    // line). It starts after the comma before the segment, or at the first of empty segments
    // between (`empty_from`, 0 for none: a checkpoint offset follows a comma).
    let mut empty_from = 0u32;
    let mut partial = !ABSOLUTE && ix.mid_line;
    // The first segment of a continued line takes the rare path too (`in_block` is full until
    // then), where its column, relative to one this chunk does not know, starts the line's.
    let mut first_of_partial = false;
    let (mut partial_min, mut partial_first) = (i64::MAX, None);
    if let Some(r) = resume {
        // As the pass left it at a stop: no checkpoint pending, the line in order so far.
        pos = r.pos;
        line = r.line;
        gen_col = ix.last_gen;
        [a0, a1, a2, a3] = [
            e0 + ix.total[0],
            e1 + ix.total[1],
            e2 + ix.total[2],
            e3 + ix.total[3],
        ];
        lc = pack(a1, a2);
        block_base = ix.segments;
        line_start_segments = if ix.last_line_has_segment {
            0
        } else {
            block_base
        };
    } else if partial {
        first_of_partial = true;
        in_block = CHECKPOINT_EVERY;
    } else {
        ix.lines.push(LineEntry {
            start: base as u32,
            first_cp: 0,
            state: State::default(),
        });
    }
    // With ABSOLUTE, the source and name indices are packed as `lc` is, each with its count:
    // the index in the low half, the count less one less the index in the high, so that an
    // index out of `0..count` sets one of the halves' sign bits. A delta `d` is added as
    // `d - (d << 32)`. (Counts are capped at 2^31: no larger value passes `state_of`.)
    let bound = |v: i64, count: u64| {
        let high = count.min(1 << 31) as i64 - 1 - v;
        ((high as u64) << 32).wrapping_add(v as u64)
    };
    let step = |d: i64| d.wrapping_sub(d << 32) as u64;
    let mut sa = bound(a0, limits.0);
    let mut na = bound(a3, limits.1);
    // The accumulators, entering values included (with ABSOLUTE, from `sa`, `lc` and `na`:
    // read only where their halves passed the check).
    macro_rules! acc {
        () => {
            if ABSOLUTE {
                [
                    (sa & 0xffff_ffff) as i64,
                    (lc >> 32) as i64,
                    (lc & 0xffff_ffff) as i64,
                    (na & 0xffff_ffff) as i64,
                ]
            } else {
                [a0, a1, a2, a3]
            }
        };
    }
    macro_rules! state_now {
        () => {{
            let [x0, x1, x2, x3] = acc!();
            state_of([x0 - e0, x1 - e1, x2 - e2, x3 - e3])
        }};
    }
    // Each shape of segment goes through `segment!` on its own, so that its values flow
    // straight into the accumulators (a shared tail kept them all live across one join).
    macro_rules! segment {
        ($len:expr, $sep:expr, $d0:expr, $d1:expr, $d2:expr, $d3:expr, $d4:expr, $fields:expr) => {{
            let (d0, d1, d2, d3, d4, fields): (i64, i64, i64, i64, i64, u8) =
                ($d0, $d1, $d2, $d3, $d4, $fields);
            let len: usize = $len;
            pos += len;
            gen_col += d0;
            if d0 <= 0 || in_block >= CHECKPOINT_EVERY {
                if partial {
                    // Relative to a column this chunk does not know: `stitch` checks these.
                    partial_min = partial_min.min(gen_col);
                    partial_first.get_or_insert(gen_col);
                } else if gen_col < 0 {
                    return Err(());
                }
                if first_of_partial {
                    first_of_partial = false;
                    in_block = 0;
                } else {
                    unsorted |= d0 < 0;
                    if in_block >= CHECKPOINT_EVERY {
                        let at = if empty_from != 0 {
                            empty_from
                        } else {
                            (base + pos - len) as u32
                        };
                        empty_from = 0;
                        // A checkpoint must start its run of equal columns, so that the first
                        // of several segments with the same column is never behind it.
                        if d0 > 0 {
                            let before = gen_col - d0;
                            ix.checkpoints.push(Checkpoint {
                                offset: at,
                                prev_gen_col: before as u32,
                                first_gen_col: gen_col as u32,
                                state: state_now!(),
                            });
                            block_base += u64::from(in_block);
                            in_block = 0;
                            if let Some(s) = stop
                                && s.line == line
                                && gen_col > i64::from(s.col)
                            {
                                stop = None;
                                let from = at as usize - base;
                                if !unsorted && stops_here(&bytes[from..], s.min_rest) {
                                    // The chunk ends before this segment, which the checkpoint
                                    // just made starts.
                                    ix.end = at;
                                    gen_col = before;
                                    break;
                                }
                            }
                        }
                    }
                }
            }
            if fields >= 4 {
                if ABSOLUTE {
                    sa = sa.wrapping_add(step(d1));
                    lc = lc.wrapping_add(((d2 << 32) + d3) as u64);
                    let mut signs = sa | lc;
                    if fields == 5 {
                        na = na.wrapping_add(step(d4));
                        signs |= na;
                    }
                    if signs & HALF_SIGNS != 0 {
                        if !(LEARN && learn(&mut limits, &acc!(), fields)) {
                            return Err(());
                        }
                        let [x0, _, _, x3] = acc!();
                        (sa, na) = (bound(x0, limits.0), bound(x3, limits.1));
                    }
                } else {
                    a0 += d1;
                    if fields == 5 {
                        a3 += d4;
                    }
                    a1 += d2;
                    a2 += d3;
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
            in_block += 1;
            if $sep == Some(&b',') {
                pos += 1;
            }
            continue;
        }};
    }
    let v = |b: u8| i64::from(ONE_DIGIT[b as usize]);
    let sep = |b: u8| b == b',' || b == b';';
    loop {
        if ABSOLUTE {
            // Plain segments: a common shape (see `fast_segment`), a column after the last,
            // no checkpoint due, every value in range. Anything else leaves this loop for the
            // code below, which takes the separator or the segment at `pos` again. In the loop
            // the generated column and the block's count are one register `g`, the count from
            // bit `COUNT_AT` with `COUNT_BIAS` added, so that the segment that would overfill
            // the block sets the sign bit (as a column that does not move forward does, adding
            // `i64::MIN`): a run adds at most `CHECKPOINT_EVERY` columns of one or two digits
            // (each below 2^9), so the column stays below 2^40 from below 2^39. (A block
            // grows past `CHECKPOINT_EVERY` only in a run of equal columns, which the loop
            // leaves to the code below.)
            if n >= 12 && gen_col < 1 << 39 && in_block <= CHECKPOINT_EVERY {
                let t = &LEAN;
                let limit = n - 12;
                let mut g = gen_col + ((COUNT_BIAS + i64::from(in_block)) << COUNT_AT);
                // The plain loop ended a segment at a `;`.
                let mut at_semi;
                // Ends a plain segment of `$len` bytes (a comma after it counted, a semicolon
                // not; or, where `$next` is the separator, a comma taken as well): its
                // source and original steps `$src` and `$lcd` are added, `$name` is added (a
                // segment of four terms has none, and its name index is not checked: a map
                // without names has one out of range from the start), every value checked
                // (out of range, `g`'s step `$cols` is taken back with the others). With
                // `$semi`, a semicolon follows: the loop leaves to start the next line.
                macro_rules! plain {
                    ($len:expr, $next:expr, $semi:literal, $cols:expr, $src:ident, $lcd:ident, $name:expr) => {{
                        let name: Option<u64> = $name;
                        let mut signs = sa | lc;
                        if let Some(name) = name {
                            na = na.wrapping_add(name);
                            signs |= na;
                        }
                        if signs & HALF_SIGNS != 0 {
                            if !LEARN {
                                return Err(());
                            }
                            // The code below learns the larger count.
                            sa = sa.wrapping_sub($src);
                            lc = lc.wrapping_sub($lcd);
                            na = na.wrapping_sub(name.unwrap_or(0));
                            g = g.wrapping_sub($cols);
                            break;
                        }
                        pos += $len + usize::from($next == b',');
                        if $semi {
                            at_semi = true;
                            break;
                        }
                        continue;
                    }};
                }
                loop {
                    at_semi = false;
                    while pos <= limit {
                        let w: &[u8; 12] = bytes[pos..pos + 12].try_into().unwrap_or(&[0; 12]);
                        let class = |k: usize| t.class[w[k] as usize];
                        // The segment's end at `w[$k]`, or a name there.
                        // A plain segment whose last term ends before `w[$at]`, if a separator is
                        // there: each on a path of its own, the segment's length a constant.
                        macro_rules! end {
                            ($at:expr, $cols:expr, $src:ident, $lcd:ident, $name:expr) => {{
                                if w[$at] == b',' {
                                    plain!($at + 1, 0, false, $cols, $src, $lcd, $name);
                                }
                                if w[$at] == b';' {
                                    plain!($at, 0, true, $cols, $src, $lcd, $name);
                                }
                            }};
                        }
                        // The segment's end at `w[$k]`, or a name there.
                        macro_rules! name {
                            ($k:expr, $cols:expr, $src:ident, $lcd:ident) => {{
                                end!($k, $cols, $src, $lcd, None);
                                let e0 = class($k);
                                if e0 < 32 {
                                    let d4 = t.steps[0][w[$k] as usize];
                                    end!($k + 1, $cols, $src, $lcd, Some(d4));
                                } else if e0 < 64 {
                                    let e1 = class($k + 1);
                                    if e1 < 32 {
                                        let d4 = unsign(u64::from(e0 & 31) | (u64::from(e1) << 5));
                                        end!($k + 2, $cols, $src, $lcd, Some(step(d4)));
                                    } else if e1 < 64 {
                                        let e2 = class($k + 2);
                                        let low = u64::from(e0 & 31) | (u64::from(e1 & 31) << 5);
                                        if e2 < 32 {
                                            let d4 = unsign(low | (u64::from(e2) << 10));
                                            end!($k + 3, $cols, $src, $lcd, Some(step(d4)));
                                        } else if e2 < 64 {
                                            let e3 = class($k + 3);
                                            if e3 < 32 && sep(w[$k + 4]) {
                                                let high = (u64::from(e2 & 31) << 10)
                                                    | (u64::from(e3) << 15);
                                                let d4 = unsign(low | high);
                                                plain!(
                                                    $k + 4,
                                                    w[$k + 4],
                                                    false,
                                                    $cols,
                                                    $src,
                                                    $lcd,
                                                    Some(step(d4))
                                                );
                                            }
                                        }
                                    }
                                }
                            }};
                        }
                        // The terms after the first, which ends before `w[$o]` with column delta
                        // `$d0`: three of one digit, the third of two; then no name, or a name of
                        // one to four digits. The source and original steps are added first and
                        // taken back if the segment is not plain (through `black_box`: folded to
                        // the values before, the sums took registers of their own).
                        macro_rules! rest {
                            ($o:literal, $forward:expr, $cols:expr) => {{
                                let cols: i64 = $cols;
                                g = g.wrapping_add(cols);
                                if (class($o) | class($o + 1)) >= 32 || !$forward || g < 0 {
                                    g = black_box(g).wrapping_sub(cols);
                                    break;
                                }
                                let src = t.steps[0][w[$o] as usize];
                                sa = sa.wrapping_add(src);
                                let c3 = class($o + 2);
                                if c3 < 32 {
                                    let one = t.one[w[$o + 2] as usize] as u64;
                                    let lcd = t.steps[1][w[$o + 1] as usize].wrapping_add(one);
                                    lc = lc.wrapping_add(lcd);
                                    name!($o + 3, cols, src, lcd);
                                    lc = black_box(lc).wrapping_sub(lcd);
                                } else if c3 < 64 && class($o + 3) < 32 {
                                    let c4 = class($o + 3);
                                    let d3 = unsign(u64::from(c3 & 31) | (u64::from(c4) << 5));
                                    let lcd =
                                        t.steps[1][w[$o + 1] as usize].wrapping_add(d3 as u64);
                                    lc = lc.wrapping_add(lcd);
                                    name!($o + 4, cols, src, lcd);
                                    lc = black_box(lc).wrapping_sub(lcd);
                                }
                                sa = black_box(sa).wrapping_sub(src);
                                g = black_box(g).wrapping_sub(cols);
                                break;
                            }};
                        }
                        let c0 = class(0);
                        if c0 < 32 {
                            let b0 = w[0] as usize;
                            rest!(1, true, t.cols[b0]);
                        } else if c0 < 64 {
                            let c1 = class(1);
                            if c1 < 32 {
                                let d0 = unsign(u64::from(c0 & 31) | (u64::from(c1) << 5));
                                rest!(2, d0 > 0, d0 + (1 << COUNT_AT));
                            }
                        }
                        break;
                    }
                    if !at_semi {
                        break;
                    }
                    // A plain segment ended the line: the next starts here.
                    pos += 1;
                    block_base += ((g >> COUNT_AT) - COUNT_BIAS) as u64;
                    line_start_segments = block_base;
                    plain_line_end(ix, unsorted, line, (base + pos) as u32, state_now!());
                    line += 1;
                    unsorted = false;
                    g = COUNT_BIAS << COUNT_AT;
                }
                (gen_col, in_block) = (
                    g & ((1 << COUNT_AT) - 1),
                    ((g >> COUNT_AT) - COUNT_BIAS) as u32,
                );
            }
            if pos >= n {
                break;
            }
            // A separator, or a segment the loop above did not take.
            let b = bytes[pos];
            #[cfg(test)]
            if b != b';' && b != b',' {
                LEFT_BY_PLAIN.with(|c| c.set(c.get() + 1));
            }
            if b != b';'
                && b != b','
                && let Some((d0, d1, d2, d3, d4, fields, len)) = fast_segment(bytes, pos)
            {
                segment!(len, bytes.get(pos), d0, d1, d2, d3, d4, fields);
            }
        } else if pos >= n {
            break;
        }
        // The shapes of most segments of real maps (see `fast_segment`).
        if !ABSOLUTE && let Some(w) = bytes.get(pos..pos + 6) {
            let w: &[u8; 6] = w.try_into().unwrap_or(&[0; 6]);
            if (CLASS[w[0] as usize] | CLASS[w[1] as usize] | CLASS[w[2] as usize]) < 32 {
                let c3 = CLASS[w[3] as usize];
                if c3 < 32 {
                    if sep(w[4]) {
                        segment!(4, Some(&w[4]), v(w[0]), v(w[1]), v(w[2]), v(w[3]), 0, 4);
                    }
                    if CLASS[w[4] as usize] < 32 && sep(w[5]) {
                        segment!(
                            5,
                            Some(&w[5]),
                            v(w[0]),
                            v(w[1]),
                            v(w[2]),
                            v(w[3]),
                            v(w[4]),
                            5
                        );
                    }
                    if let Some((d4, len)) = long_name(bytes, pos) {
                        // `$sep` is read after `pos` moved past the segment.
                        segment!(
                            len,
                            bytes.get(pos),
                            v(w[0]),
                            v(w[1]),
                            v(w[2]),
                            v(w[3]),
                            d4,
                            5
                        );
                    }
                } else if c3 < 64 {
                    let c4 = CLASS[w[4] as usize];
                    if c4 < 32 {
                        let d3 = unsign(u64::from(c3 & 31) | (u64::from(c4) << 5));
                        if sep(w[5]) {
                            segment!(5, Some(&w[5]), v(w[0]), v(w[1]), v(w[2]), d3, 0, 4);
                        }
                        // A name after it: one digit, or two to four (`long_name` reads a
                        // name at its `pos + 4`).
                        if CLASS[w[5] as usize] < 32
                            && let Some(s) = bytes.get(pos + 6)
                            && sep(*s)
                        {
                            segment!(6, Some(s), v(w[0]), v(w[1]), v(w[2]), d3, v(w[5]), 5);
                        }
                        if let Some((d4, len)) = long_name(bytes, pos + 1) {
                            segment!(
                                len + 1,
                                bytes.get(pos),
                                v(w[0]),
                                v(w[1]),
                                v(w[2]),
                                d3,
                                d4,
                                5
                            );
                        }
                    }
                }
            }
        }
        let b = bytes[pos];
        if b == b';' {
            if partial {
                (ix.partial_min_gen, ix.partial_first_gen) = (partial_min, partial_first);
            }
            pos += 1;
            next_line(
                ix,
                unsorted,
                line,
                partial,
                (base + pos) as u32,
                state_now!(),
            );
            partial = false;
            line += 1;
            gen_col = 0;
            if first_of_partial {
                first_of_partial = false;
                in_block = 0;
            }
            block_base += u64::from(in_block);
            in_block = 0;
            unsorted = false;
            empty_from = 0;
            line_start_segments = block_base;
            continue;
        }
        if b == b',' {
            if in_block >= CHECKPOINT_EVERY && empty_from == 0 && !first_of_partial {
                empty_from = (base + pos) as u32;
            }
            pos += 1;
            continue;
        }
        let (d, fields, p) = segment_by_terms(bytes, pos).map_err(|_| ())?;
        segment!(p - pos, bytes.get(p), d[0], d[1], d[2], d[3], d[4], fields);
    }
    if partial {
        (ix.partial_min_gen, ix.partial_first_gen) = (partial_min, partial_first);
    }
    close_line(ix, unsorted, line, partial);
    if first_of_partial {
        in_block = 0;
    }
    let segments = block_base + u64::from(in_block);
    let [x0, x1, x2, x3] = acc!();
    ix.last_gen = gen_col;
    ix.last_line_has_segment = segments > line_start_segments;
    ix.total = [x0 - e0, x1 - e1, x2 - e2, x3 - e3];
    ix.segments = segments;
    set_ranges::<LEARN>(ix, (min, max), seen, limits);
    Ok(())
}

#[cfg(test)]
thread_local! {
    /// Segments [`index_lean`] left to the code after its plain loop, on this thread (tests
    /// check that few segments of real maps are).
    pub(super) static LEFT_BY_PLAIN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Whether a pass may end at a segment starting `rest`, the rest of the chunk: the rest of
/// its line is long enough and in column order (see [`index_chunk_until`]).
#[cold]
#[inline(never)]
fn stops_here(rest: &[u8], min_rest: usize) -> bool {
    let line = memchr::memchr(b';', rest).map_or(rest, |at| &rest[..at]);
    line.len() >= min_rest && rest_in_order(line)
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

/// The first problem of `mappings` in byte order (slow path, run only after a chunk failed):
/// the serial pass, which checks every value against the counts as it goes.
pub(super) fn first_error(mappings: &[u8], sources: usize, names: usize) -> Error {
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
