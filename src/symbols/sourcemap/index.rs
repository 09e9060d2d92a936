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
use super::vlq::{CLASS, COMMA, SEMI, unsign};
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

#[derive(Clone, Copy, Debug)]
struct LineEntry {
    /// Byte offset in `mappings` where the line starts.
    start: u32,
    /// Index of the line's first checkpoint in `checkpoints`.
    first_cp: u32,
    /// Accumulators entering the line.
    state: State,
}

#[derive(Clone, Copy, Debug)]
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
    /// Sorted 0-based numbers of lines whose segments are out of generated-column order.
    unsorted: Vec<u32>,
    len: u32,
    segments: u64,
}

/// The index of one chunk of `mappings`, with accumulators relative to the chunk start.
#[derive(Clone, Debug)]
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
}

/// Cuts `mappings` into about `n` chunks, each starting at a line start (just after a `;`).
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
        let Some(semi) = memchr::memchr(b';', &mappings[target..]) else {
            break;
        };
        let cut = target + semi + 1;
        if cut >= len {
            break;
        }
        out.push(start..cut);
        start = cut;
    }
    out.push(start..len);
    out
}

/// Indexes one chunk of `mappings` (a range from [`split_chunks`], or the whole string).
///
/// Pure and allocation-light: it allocates only the per-line and per-checkpoint entries.
pub fn index_chunk(mappings: &[u8], range: Range<usize>) -> ChunkIndex {
    let start = range.start;
    let end = range.end.min(mappings.len());
    let bytes = &mappings[start.min(end)..end];
    let mut ix = ChunkIndex {
        end: end as u32,
        lines: Vec::with_capacity(memchr::memchr_iter(b';', bytes).count() + 1),
        checkpoints: Vec::new(),
        unsorted: Vec::new(),
        total: [0; 4],
        min: [i64::MAX; 4],
        max: [i64::MIN; 4],
        segments: 0,
        error: None,
    };
    if let Err(err) = index_chunk_into(bytes, start, &mut ix) {
        ix.error = Some(err);
    }
    ix
}

#[inline(always)]
fn state_of(acc: &[i64; 5]) -> State {
    State {
        source: acc[1] as i32,
        src_line: acc[2] as i32,
        src_col: acc[3] as i32,
        name: acc[4] as i32,
    }
}

fn index_chunk_into(bytes: &[u8], base: usize, ix: &mut ChunkIndex) -> Result<()> {
    // acc[0] is the generated column; acc[1..5] are the running accumulators (relative).
    let mut acc = [0i64; 5];
    let mut field = 0usize;
    let mut value: u64 = 0;
    let mut shift: u32 = 0;
    let mut line: u32 = 0;
    let mut prev_gen: i64 = i64::MIN;
    let mut in_block: u32 = 0;
    let mut line_unsorted = false;
    // A checkpoint waiting for its segment's generated column: (offset, prev gen col, state).
    let mut pending: Option<(u32, u32, State)> = None;
    let err = |kind: ErrorKind, i: usize, line: u32| {
        let mut e = Error::at(kind, base + i);
        e.line = Some(line);
        e
    };

    ix.lines.push(LineEntry {
        start: base as u32,
        first_cp: 0,
        state: State::default(),
    });

    for (i, &b) in bytes.iter().enumerate() {
        let c = CLASS[b as usize];
        if c < 32 {
            // Last (or only) digit of a term.
            let v = value | (u64::from(c) << shift);
            if v > u64::from(u32::MAX) {
                return Err(err(ErrorKind::VlqOverflow, i, line));
            }
            let Some(slot) = acc.get_mut(field) else {
                return Err(err(ErrorKind::BadSegmentSize, i, line));
            };
            *slot += unsign(v);
            if field == 0 {
                let gen_col = acc[0];
                if gen_col < 0 {
                    return Err(err(ErrorKind::NegativeValue, i, line));
                }
                if let Some((offset, prev_col, state)) = pending.take() {
                    // A checkpoint must start its run of equal columns, so that the first of
                    // several segments with the same column is never behind it.
                    if gen_col > i64::from(prev_col) {
                        ix.checkpoints.push(Checkpoint {
                            offset,
                            prev_gen_col: prev_col,
                            first_gen_col: gen_col as u32,
                            state,
                        });
                        in_block = 0;
                    }
                }
                if gen_col < prev_gen {
                    line_unsorted = true;
                }
                prev_gen = gen_col;
            }
            field += 1;
            value = 0;
            shift = 0;
        } else if c < 64 {
            value |= u64::from(c & 31) << shift;
            shift += 5;
            if shift > 30 {
                return Err(err(ErrorKind::VlqOverflow, i, line));
            }
        } else if c == COMMA || c == SEMI {
            if shift != 0 {
                return Err(err(ErrorKind::BadBase64, i, line).with_detail("unfinished VLQ term"));
            }
            finish_segment(ix, &acc, field).map_err(|k| err(k, i, line))?;
            if field > 0 {
                in_block += 1;
            }
            field = 0;
            if c == SEMI {
                if line_unsorted {
                    // Checkpoints assume sorted columns; an unsorted line is decoded whole.
                    let first = ix.lines.last().map_or(0, |l| l.first_cp) as usize;
                    ix.checkpoints.truncate(first);
                    ix.unsorted.push(line);
                }
                line += 1;
                acc[0] = 0;
                prev_gen = i64::MIN;
                in_block = 0;
                line_unsorted = false;
                pending = None;
                ix.lines.push(LineEntry {
                    start: (base + i + 1) as u32,
                    first_cp: ix.checkpoints.len() as u32,
                    state: state_of(&acc),
                });
            } else if in_block >= CHECKPOINT_EVERY {
                pending = Some(((base + i + 1) as u32, acc[0] as u32, state_of(&acc)));
            }
        } else {
            return Err(err(ErrorKind::BadBase64, i, line).with_detail(format!("byte 0x{b:02x}")));
        }
    }
    if shift != 0 {
        return Err(err(ErrorKind::BadBase64, bytes.len(), line).with_detail("unfinished VLQ term"));
    }
    finish_segment(ix, &acc, field).map_err(|k| err(k, bytes.len(), line))?;
    if line_unsorted {
        let first = ix.lines.last().map_or(0, |l| l.first_cp) as usize;
        ix.checkpoints.truncate(first);
        ix.unsorted.push(line);
    }
    ix.total = [acc[1], acc[2], acc[3], acc[4]];
    Ok(())
}

#[inline(always)]
fn finish_segment(ix: &mut ChunkIndex, acc: &[i64; 5], field: usize) -> Result<(), ErrorKind> {
    match field {
        0 | 1 => {}
        4 | 5 => {
            for k in 0..3 {
                let v = acc[k + 1];
                ix.min[k] = ix.min[k].min(v);
                ix.max[k] = ix.max[k].max(v);
            }
            if field == 5 {
                ix.min[3] = ix.min[3].min(acc[4]);
                ix.max[3] = ix.max[3].max(acc[4]);
            }
        }
        _ => return Err(ErrorKind::BadSegmentSize),
    }
    if field > 0 {
        ix.segments += 1;
    }
    Ok(())
}

impl LineIndex {
    /// Indexes all of `mappings` on the current thread.
    pub fn build(mappings: &[u8], sources: usize, names: usize) -> Result<Self> {
        Self::stitch(vec![index_chunk(mappings, 0..mappings.len())], mappings, sources, names)
    }

    /// Joins chunk indexes (in order) into one index, checking source/name indices against
    /// the `sources` and `names` counts.
    pub fn stitch(chunks: Vec<ChunkIndex>, mappings: &[u8], sources: usize, names: usize) -> Result<Self> {
        if mappings.len() > u32::MAX as usize {
            return Err(Error::new(ErrorKind::TooLarge));
        }
        let total_lines: usize = chunks.iter().map(|c| c.lines.len()).sum();
        let total_cps: usize = chunks.iter().map(|c| c.checkpoints.len()).sum();
        let mut out = Self {
            lines: Vec::with_capacity(total_lines),
            checkpoints: Vec::with_capacity(total_cps),
            unsorted: Vec::new(),
            len: mappings.len() as u32,
            segments: 0,
        };
        let mut base = [0i64; 4];
        let limits = [sources as i64, i64::from(i32::MAX) + 1, i64::from(i32::MAX) + 1, names as i64];
        let count = chunks.len();
        for (n, chunk) in chunks.into_iter().enumerate() {
            let line_base = out.lines.len() as u32;
            if let Some(mut e) = chunk.error {
                e.line = e.line.map(|l| l + line_base);
                return Err(e);
            }
            for k in 0..4 {
                if chunk.min[k] > chunk.max[k] {
                    continue; // No segment carried this field.
                }
                if base[k] + chunk.min[k] < 0 || base[k] + chunk.max[k] >= limits[k] {
                    return Err(locate_bad_value(mappings, sources, names));
                }
            }
            let cp_base = out.checkpoints.len() as u32;
            let mut lines = chunk.lines;
            // A chunk that ends with `;` created the next chunk's first line; drop it.
            if n + 1 < count && lines.last().is_some_and(|l| l.start == chunk.end) {
                lines.pop();
            }
            out.lines.extend(lines.into_iter().map(|l| LineEntry {
                start: l.start,
                first_cp: l.first_cp + cp_base,
                state: l.state.offset_by(base),
            }));
            out.checkpoints.extend(chunk.checkpoints.into_iter().map(|c| Checkpoint {
                state: c.state.offset_by(base),
                ..c
            }));
            out.unsorted.extend(chunk.unsorted.into_iter().map(|l| l + line_base));
            out.segments += chunk.segments;
            for k in 0..4 {
                base[k] += chunk.total[k];
            }
        }
        if out.lines.is_empty() {
            out.lines.push(LineEntry {
                start: 0,
                first_cp: 0,
                state: State::default(),
            });
        }
        Ok(out)
    }

    /// Number of generated lines (`;`-separated groups, the empty ones included).
    pub fn line_count(&self) -> usize {
        self.lines.len()
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
        self.checkpoints.get(entry.first_cp as usize..end).unwrap_or(&[])
    }

    /// The block of `line` whose segments decide a look-up at generated column `col`.
    ///
    /// That is the block at the last checkpoint whose first column is ≤ `col`, or the
    /// line-start block. `None` when the line does not exist.
    pub fn block_for(&self, line: u32, col: u32) -> Option<Block> {
        let cps = self.line_checkpoints(line as usize);
        let k = cps.partition_point(|c| c.first_gen_col <= col);
        self.block(line, k as u32)
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

/// Finds the first segment whose source/name index or position is out of range (slow path,
/// run only after the fast pass saw a range problem, to name the line in the error).
fn locate_bad_value(mappings: &[u8], sources: usize, names: usize) -> Error {
    let mut acc = [0i64; 5];
    let mut field = 0usize;
    let mut value: u64 = 0;
    let mut shift = 0u32;
    let mut line = 0u32;
    let check = |acc: &[i64; 5], field: usize, i: usize, line: u32| -> Option<Error> {
        let kind = if field >= 4 && (acc[1] < 0 || acc[1] >= sources as i64) {
            Some(ErrorKind::BadSourceIndex)
        } else if field == 5 && (acc[4] < 0 || acc[4] >= names as i64) {
            Some(ErrorKind::BadNameIndex)
        } else if field >= 4 && (acc[2] < 0 || acc[3] < 0 || acc[2] > i64::from(i32::MAX) || acc[3] > i64::from(i32::MAX)) {
            Some(ErrorKind::NegativeValue)
        } else {
            None
        }?;
        let detail = match kind {
            ErrorKind::BadSourceIndex => format!("source {} of {sources}", acc[1]),
            ErrorKind::BadNameIndex => format!("name {} of {names}", acc[4]),
            _ => format!("original line {} column {}", acc[2], acc[3]),
        };
        let mut e = Error::at(kind, i).with_detail(detail);
        e.line = Some(line);
        Some(e)
    };
    for (i, &b) in mappings.iter().enumerate() {
        let c = CLASS[b as usize];
        if c < 32 {
            if let Some(slot) = acc.get_mut(field) {
                *slot += unsign(value | (u64::from(c) << shift));
            }
            field += 1;
            value = 0;
            shift = 0;
        } else if c < 64 {
            value |= u64::from(c & 31) << shift;
            shift = (shift + 5).min(35);
        } else {
            if let Some(e) = check(&acc, field, i, line) {
                return e;
            }
            field = 0;
            if c == SEMI {
                line += 1;
                acc[0] = 0;
            }
        }
    }
    check(&acc, field, mappings.len(), line).unwrap_or_else(|| Error::new(ErrorKind::BadSourceIndex))
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
        assert_eq!((l2[0].gen_col, l2[0].src_line, l2[0].src_col, l2[0].name), (1, 1, 0, NONE));
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
            let chunks = split_chunks(m, n).into_iter().map(|r| index_chunk(m, r)).collect();
            let stitched = LineIndex::stitch(chunks, m, 1, 1_000_000).unwrap();
            assert_eq!(stitched.line_count(), whole.line_count());
            assert_eq!(stitched.checkpoint_count(), whole.checkpoint_count());
            for line in 0..whole.line_count() as u32 {
                assert_eq!(decode_line(&stitched, m, line), decode_line(&whole, m, line), "line {line} n {n}");
            }
        }
    }

    #[test]
    fn errors_are_named() {
        assert_eq!(LineIndex::build(b"AA!A", 1, 0).unwrap_err().kind, ErrorKind::BadBase64);
        assert_eq!(LineIndex::build(b"AAA", 1, 0).unwrap_err().kind, ErrorKind::BadSegmentSize);
        assert_eq!(LineIndex::build(b"AAAAAA", 1, 1).unwrap_err().kind, ErrorKind::BadSegmentSize);
        assert_eq!(LineIndex::build(b"ACAA", 1, 0).unwrap_err().kind, ErrorKind::BadSourceIndex);
        assert_eq!(LineIndex::build(b"AAAAC", 1, 1).unwrap_err().kind, ErrorKind::BadNameIndex);
        assert_eq!(LineIndex::build(b"gggggggA", 1, 0).unwrap_err().kind, ErrorKind::VlqOverflow);
        assert_eq!(LineIndex::build(b"D", 1, 0).unwrap_err().kind, ErrorKind::NegativeValue);
        let e = LineIndex::build(b"AAAA;AAAA;ACAA", 1, 0).unwrap_err();
        assert_eq!((e.kind, e.line), (ErrorKind::BadSourceIndex, Some(2)));
        assert!(LineIndex::build(b"", 0, 0).unwrap().line_count() == 1);
    }

    #[test]
    fn unsorted_lines_are_sorted_on_decode() {
        let m = b"IAAA,DAAC,CAAC";
        let ix = LineIndex::build(m, 1, 0).unwrap();
        let cols: Vec<u32> = decode_line(&ix, m, 0).iter().map(|s| s.gen_col).collect();
        assert_eq!(cols, vec![3, 4, 4]);
    }
}
