//! The map doctor: what is wrong with a source map, kind by kind, each with a count and up to
//! ten examples with their positions. `symscope check-map` prints it; the window shows it.
//!
//! Every segment is decoded once, line by line, through the map's own index. Original
//! positions are checked against `sourcesContent` (each source's line lengths computed once,
//! when a segment first points into it); generated ones against the bundle when it is given.
//! Columns are UTF-16 code units, as the spec counts them.
//!
//! # The JSON contract of `symscope check-map`
//!
//! ```text
//! symscope check-map MAP [--bundle FILE] [--format text|json]
//! ```
//! Exit status: `0` when no problem is an error, `1` when one is, `2` when the map (or the
//! bundle) cannot be read. `unmapped_generated`, `unused_name` and `ignored_source` are
//! informational and never make it `1`.
//!
//! ```jsonc
//! {
//!   "schema": 1,
//!   "map": "three.min.js.map",
//!   "bundle": "three.min.js",  // null without --bundle
//!   "stats": {"segments": 81234, "lines": 1, "sources": 302, "names": 1123},
//!   "problems": [              // only kinds found; errors first, then by count
//!     {
//!       "kind": "original_out_of_range",
//!       "severity": "error",   // error | info
//!       "count": 3,            // how many segments, lines, sources, names or columns
//!       "examples": [          // up to ten, in map order
//!         {
//!           "generated": {"line": 1, "column": 101},      // 1-based; null if none
//!           "original": {"source": "src/a.js", "line": 500, "column": 4},  // or null
//!           "detail": "line 500 is past the end of src/a.js (420 lines)"
//!         }
//!       ]
//!     }
//!   ]
//! }
//! ```
//! Kinds:
//! - `original_out_of_range` (error, per segment): an original line or column past the end
//!   of the source's text, where `sourcesContent` has it;
//! - `generated_out_of_range` (error, per segment, with `--bundle`): a generated line past the
//!   bundle's last, or a column past the end of its line;
//! - `unsorted_line` (error, per line): segments out of generated-column order;
//! - `missing_source_content` (error, per source): a source without `sourcesContent`;
//! - `duplicate_source` (error, per repeated entry): the same path twice in `sources`;
//! - `ignore_list_out_of_range`, `empty_segment`, `bad_section_map` (error): the spec rules a
//!   map breaks that Symscope reads anyway (see `symbols::sourcemap::Violation`);
//! - `unused_name` (info, per name): a `names` entry no segment uses;
//! - `unmapped_generated` (info, with `--bundle`; count: columns): generated code no segment
//!   maps to a source (before a line's first segment, after a segment without one, or on a
//!   line past the map's last); examples are lines with their unmapped columns;
//! - `ignored_source` (info, per source): a source on the `ignoreList`.

use crate::model::{ChunkRunner, Progress, Serial};
use crate::symbols::sourcemap::{LineIndex, RegularMap, SourceMap, Violation, validate};
use std::collections::HashMap;

/// Examples kept per kind.
pub const MOST_EXAMPLES: usize = 10;

/// The progress phase of a check; its unit is a generated line.
pub const CHECK_PHASE: &str = "check map";

/// A kind of problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProblemKind {
    /// An original position past the end of its source's text.
    OriginalOutOfRange,
    /// A generated position past the end of the bundle's text.
    GeneratedOutOfRange,
    /// A line whose segments are out of generated-column order.
    UnsortedLine,
    /// A source without `sourcesContent`.
    MissingSourceContent,
    /// A source path listed twice.
    DuplicateSource,
    /// An `ignoreList` entry that is no source.
    IgnoreListOutOfRange,
    /// A segment with no fields.
    EmptySegment,
    /// An index-map section whose map cannot be read.
    BadSectionMap,
    /// A `names` entry no segment uses.
    UnusedName,
    /// Generated code no segment maps to a source.
    UnmappedGenerated,
    /// A source on the `ignoreList`.
    IgnoredSource,
}

impl ProblemKind {
    /// The kind's name in the JSON (`original_out_of_range`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OriginalOutOfRange => "original_out_of_range",
            Self::GeneratedOutOfRange => "generated_out_of_range",
            Self::UnsortedLine => "unsorted_line",
            Self::MissingSourceContent => "missing_source_content",
            Self::DuplicateSource => "duplicate_source",
            Self::IgnoreListOutOfRange => "ignore_list_out_of_range",
            Self::EmptySegment => "empty_segment",
            Self::BadSectionMap => "bad_section_map",
            Self::UnusedName => "unused_name",
            Self::UnmappedGenerated => "unmapped_generated",
            Self::IgnoredSource => "ignored_source",
        }
    }

    /// The kind in words, as the window shows it (the JSON keeps [`ProblemKind::as_str`]).
    pub fn label(self) -> &'static str {
        match self {
            Self::OriginalOutOfRange => "original positions past the end of their source",
            Self::GeneratedOutOfRange => "generated positions past the end of the bundle",
            Self::UnsortedLine => "lines whose segments are out of column order",
            Self::MissingSourceContent => "sources without their content",
            Self::DuplicateSource => "sources listed twice",
            Self::IgnoreListOutOfRange => "ignore-list entries that are no source",
            Self::EmptySegment => "segments with no fields",
            Self::BadSectionMap => "index-map sections that cannot be read",
            Self::UnusedName => "names no segment uses",
            Self::UnmappedGenerated => "generated columns no segment maps",
            Self::IgnoredSource => "sources on the ignore list",
        }
    }

    /// Whether it is an error (else informational: it never fails a check).
    pub fn is_error(self) -> bool {
        !matches!(
            self,
            Self::UnusedName | Self::UnmappedGenerated | Self::IgnoredSource
        )
    }
}

/// A generated position (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Generated {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (UTF-16 code units).
    pub column: u32,
}

/// An original position (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Original {
    /// The source's path (`sourceRoot` applied).
    pub source: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (UTF-16 code units).
    pub column: u32,
}

/// One example of a problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    /// Where in the generated code, if anywhere.
    pub generated: Option<Generated>,
    /// Where in an original source, if anywhere.
    pub original: Option<Original>,
    /// What is wrong, in words.
    pub detail: String,
}

/// One kind of problem found: how many, and the first examples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The kind.
    pub kind: ProblemKind,
    /// How many (segments, lines, sources, names, or columns for `unmapped_generated`).
    pub count: u64,
    /// Up to [`MOST_EXAMPLES`], in map order.
    pub examples: Vec<Example>,
}

/// What the map holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Segments with at least one field.
    pub segments: u64,
    /// Generated lines.
    pub lines: u64,
    /// `sources` entries.
    pub sources: u64,
    /// `names` entries.
    pub names: u64,
}

/// The doctor's report on one map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapReport {
    /// What the map holds.
    pub stats: Stats,
    /// The kinds found: errors first, then by count.
    pub problems: Vec<Problem>,
}

impl MapReport {
    /// Whether any problem is an error.
    pub fn has_errors(&self) -> bool {
        self.problems.iter().any(|p| p.kind.is_error())
    }

    /// The problem of `kind`, if found.
    pub fn problem(&self, kind: ProblemKind) -> Option<&Problem> {
        self.problems.iter().find(|p| p.kind == kind)
    }

    /// Adds what a later stretch of the map found of one kind.
    fn merge(&mut self, p: Problem) {
        let mut examples = p.examples.into_iter();
        self.note(p.kind, p.count, || {
            examples.next().expect("a problem has an example")
        });
        for e in examples {
            self.note(p.kind, 0, || e);
        }
    }

    fn note(&mut self, kind: ProblemKind, count: u64, example: impl FnOnce() -> Example) {
        let problem = match self.problems.iter_mut().position(|p| p.kind == kind) {
            Some(i) => &mut self.problems[i],
            None => {
                self.problems.push(Problem {
                    kind,
                    count: 0,
                    examples: Vec::new(),
                });
                self.problems.last_mut().expect("just pushed")
            }
        };
        problem.count += count;
        if problem.examples.len() < MOST_EXAMPLES {
            problem.examples.push(example());
        }
    }
}

/// Lengths of a text's lines in UTF-16 code units (`\n`, `\r\n` and `\r` end lines).
fn line_lengths(text: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in memchr::memchr2_iter(b'\n', b'\r', text) {
        // The `\n` of a `\r\n` ended its line with the `\r`.
        if text[i] == b'\n' && i > 0 && text[i - 1] == b'\r' {
            start = i + 1;
            continue;
        }
        out.push(utf16_len(&text[start..i]));
        start = i + 1;
    }
    out.push(utf16_len(&text[start..]));
    out
}

/// UTF-16 code units of UTF-8 bytes (lossy: a bad sequence counts as the one replacement
/// character it decodes to).
fn utf16_len(bytes: &[u8]) -> u32 {
    crate::model::utf16_len_lossy(bytes) as u32
}

/// Checks `map` (named `name`), and its generated positions against `bundle` when given.
/// Reports each generated line done to `progress` (phase [`CHECK_PHASE`]); a stop ends the
/// check with what was found so far.
pub fn check_map(map: &SourceMap, bundle: Option<&[u8]>, progress: &mut dyn Progress) -> MapReport {
    check_map_with(map, bundle, &Serial, progress)
}

/// [`check_map`], the lines (and the sources' line lengths) spread over `runner`'s threads;
/// the same report.
pub fn check_map_with(
    map: &SourceMap,
    bundle: Option<&[u8]>,
    runner: &dyn ChunkRunner,
    progress: &mut dyn Progress,
) -> MapReport {
    let mut report = MapReport::default();
    let bundle_lines = bundle.map(line_lengths);
    let mut parts: Vec<(&RegularMap, u32, u32)> = Vec::new();
    match map {
        SourceMap::Regular(m) => parts.push((m, 0, 0)),
        SourceMap::Index(ix) => {
            for s in ix.sections() {
                if let Ok(inner) = ix.section_map(s) {
                    for m in inner.regular_maps() {
                        parts.push((m, s.line, s.column));
                    }
                }
            }
        }
    }
    // A map read lazily is indexed whole here; one whose `mappings` is broken has no lines
    // to check (reading it eagerly reports the fault).
    parts.retain(|(m, _, _)| m.index().is_ok());
    let total: u64 = parts
        .iter()
        .map(|(m, _, _)| m.index().map_or(0, |i| i.line_count() as u64))
        .sum();
    let mut done = 0;
    let mut stopped = false;
    for (m, line_off, col_off) in parts {
        stopped = !check_regular(
            m,
            (line_off, col_off),
            bundle_lines.as_deref(),
            runner,
            &mut report,
            &mut |lines| {
                done += lines;
                progress.step(CHECK_PHASE, done, total).is_continue()
            },
        );
        if stopped {
            break;
        }
    }
    // Bundle lines past the map's last: no segment maps them.
    if let Some(lines) = &bundle_lines
        && !stopped
    {
        for (line, &len) in lines.iter().enumerate().skip(report.stats.lines as usize) {
            if len > 0 {
                report.note(ProblemKind::UnmappedGenerated, u64::from(len), || Example {
                    generated: Some(Generated {
                        line: line as u32 + 1,
                        column: 1,
                    }),
                    original: None,
                    detail: format!(
                        "line {} ({len} columns) is past the map's last line",
                        line + 1
                    ),
                });
            }
        }
    }
    for v in validate(map) {
        let kind = match v {
            Violation::IgnoreListOutOfRange { .. } => ProblemKind::IgnoreListOutOfRange,
            Violation::EmptySegment { .. } => ProblemKind::EmptySegment,
            Violation::BadSectionMap { .. } => ProblemKind::BadSectionMap,
        };
        let generated = match v {
            Violation::EmptySegment { line } => Some(Generated {
                line: line + 1,
                column: 1,
            }),
            _ => None,
        };
        report.note(kind, 1, || Example {
            generated,
            original: None,
            detail: v.to_string(),
        });
    }
    report
        .problems
        .sort_by_key(|p| (!p.kind.is_error(), std::cmp::Reverse(p.count), p.kind));
    report
}

/// Checks one regular map whose line 0 starts at generated (`line_off`, `col_off`); `false`
/// when `go_on` said stop.
fn check_regular(
    m: &RegularMap,
    (line_off, col_off): (u32, u32),
    bundle: Option<&[u32]>,
    runner: &dyn ChunkRunner,
    report: &mut MapReport,
    go_on: &mut dyn FnMut(u64) -> bool,
) -> bool {
    let path = |i: u32| m.source_path(i).unwrap_or_else(|| format!("source {i}"));
    let sources = m.source_count() as u32;
    let names = m.name_count();
    report.stats.sources += u64::from(sources);
    report.stats.names += names as u64;
    let Ok(index) = m.index() else {
        return true;
    };
    let lines = index.line_count() as u32;
    report.stats.lines = report
        .stats
        .lines
        .max(u64::from(line_off) + u64::from(lines));
    // Each source's line lengths (`None`: no content to check against), read on the
    // runner's threads.
    let texts: Vec<std::sync::Mutex<Option<Vec<u32>>>> =
        (0..sources).map(|_| std::sync::Mutex::new(None)).collect();
    runner.for_each(sources as usize, &|i| {
        let lengths = m.source_line_lengths(i as u32);
        *texts[i].lock().unwrap_or_else(|e| e.into_inner()) = lengths;
    });
    let texts: Vec<Option<Vec<u32>>> = texts
        .into_iter()
        .map(|t| t.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect();
    let scan = Scan {
        m,
        offsets: (line_off, col_off),
        bundle,
        texts: &texts,
    };
    // The lines in pieces of about equal work (blocks of segments), on the runner's threads,
    // merged in line order: the examples stay the first in map order.
    let pieces = pieces(index, runner.chunks_for(index.byte_len()));
    let mut used_names = vec![false; names];
    // A line's unmapped columns, added up over its pieces: (line, columns, its length).
    let mut unmapped: Option<(u32, u64, u32)> = None;
    let note_unmapped = |report: &mut MapReport, entry: Option<(u32, u64, u32)>| {
        let Some((line, columns, len)) = entry.filter(|e| e.1 > 0) else {
            return;
        };
        let gen_line = line_off + line;
        report.note(ProblemKind::UnmappedGenerated, columns, || Example {
            generated: Some(Generated {
                line: gen_line + 1,
                column: 1,
            }),
            original: None,
            detail: format!(
                "{columns} of line {}'s {len} columns map to no source",
                gen_line + 1
            ),
        });
    };
    for group in pieces.chunks(PIECES_A_REPORT) {
        let parts: Vec<std::sync::Mutex<Option<Part>>> =
            group.iter().map(|_| std::sync::Mutex::new(None)).collect();
        runner.for_each(group.len(), &|k| {
            let part = scan.piece(&group[k], names);
            *parts[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(part);
        });
        for part in parts {
            let Some(part) = part.into_inner().unwrap_or_else(|e| e.into_inner()) else {
                continue;
            };
            report.stats.segments += part.segments;
            for (u, p) in used_names.iter_mut().zip(&part.used_names) {
                *u |= p;
            }
            for p in part.problems {
                report.merge(p);
            }
            for (line, columns, len) in part.unmapped {
                match &mut unmapped {
                    Some((l, sum, _)) if *l == line => *sum += u64::from(columns),
                    _ => {
                        note_unmapped(report, unmapped.take());
                        unmapped = Some((line, u64::from(columns), len));
                    }
                }
            }
        }
        let checked: u64 = group.iter().map(Piece::lines_done).sum();
        if !go_on(checked) {
            note_unmapped(report, unmapped.take());
            return false;
        }
    }
    note_unmapped(report, unmapped.take());
    for &line in index.unsorted_lines() {
        report.note(ProblemKind::UnsortedLine, 1, || Example {
            generated: Some(Generated {
                line: line_off + line + 1,
                column: 1,
            }),
            original: None,
            detail: format!(
                "the segments of line {} are not in column order",
                line_off + line + 1
            ),
        });
    }
    let mut seen: HashMap<String, u32> = HashMap::new();
    for i in 0..sources {
        let p = path(i);
        if !m.has_source_content(i) {
            report.note(ProblemKind::MissingSourceContent, 1, || Example {
                generated: None,
                original: None,
                detail: format!("{p} has no sourcesContent"),
            });
        }
        if let Some(&first) = seen.get(&p) {
            report.note(ProblemKind::DuplicateSource, 1, || Example {
                generated: None,
                original: None,
                detail: format!("sources {first} and {i} are both {p}"),
            });
        } else {
            seen.insert(p.clone(), i);
        }
    }
    for &i in m.ignore_list() {
        if i < sources {
            report.note(ProblemKind::IgnoredSource, 1, || Example {
                generated: None,
                original: None,
                detail: format!("{} is on the ignoreList", path(i)),
            });
        }
    }
    for (i, used) in used_names.iter().enumerate() {
        if !used {
            report.note(ProblemKind::UnusedName, 1, || Example {
                generated: None,
                original: None,
                detail: format!(
                    "names[{i}] ({:?}) is used by no segment",
                    m.name(i as u32).unwrap_or_default()
                ),
            });
        }
    }
    true
}

/// Pieces of lines handed to the runner between two progress reports.
const PIECES_A_REPORT: usize = 16;

/// A piece of the checks' work: whole lines, or a stretch of blocks of one long line (a
/// minified bundle is often a single line of megabytes).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    /// These lines, each whole.
    Lines(std::ops::Range<u32>),
    /// Blocks `blocks` of `line` (whose segments are in column order).
    Blocks {
        /// The line.
        line: u32,
        /// Its blocks.
        blocks: std::ops::Range<u32>,
        /// The blocks end the line.
        last: bool,
    },
}

impl Piece {
    /// The lines this piece finishes (for progress).
    fn lines_done(&self) -> u64 {
        match self {
            Self::Lines(r) => u64::from(r.end - r.start),
            Self::Blocks { last, .. } => u64::from(*last),
        }
    }
}

/// The lines `0..line_count` of a map's `index` cut into about `n` × 4 pieces of about equal
/// work (the index's blocks of segments), for the runner's threads to take; a line with more
/// work than a piece is cut at its blocks (unless its segments are out of column order).
fn pieces(index: &LineIndex, n: usize) -> Vec<Piece> {
    let lines = index.line_count() as u32;
    let weight = |l: u32| u64::from(index.block_count(l));
    let total: u64 = (0..lines).map(weight).sum::<u64>().max(1);
    let per = total.div_ceil((n.max(1) * 4) as u64).max(1);
    let mut out = Vec::new();
    let (mut start, mut acc) = (0, 0);
    for l in 0..lines {
        let w = weight(l);
        if w > per && index.unsorted_lines().binary_search(&l).is_err() {
            if start < l {
                out.push(Piece::Lines(start..l));
            }
            let count = w as u32;
            let step = per as u32;
            let mut k = 0;
            while k < count {
                let end = (k + step).min(count);
                out.push(Piece::Blocks {
                    line: l,
                    blocks: k..end,
                    last: end == count,
                });
                k = end;
            }
            (start, acc) = (l + 1, 0);
            continue;
        }
        acc += w;
        if acc >= per {
            out.push(Piece::Lines(start..l + 1));
            (start, acc) = (l + 1, 0);
        }
    }
    if start < lines {
        out.push(Piece::Lines(start..lines));
    }
    out
}

/// What the per-line checks read: the map, where its line 0 sits, the bundle's and the
/// sources' line lengths.
struct Scan<'a> {
    m: &'a RegularMap,
    offsets: (u32, u32),
    bundle: Option<&'a [u32]>,
    texts: &'a [Option<Vec<u32>>],
}

/// What the per-line checks found on some lines.
#[derive(Default)]
struct Part {
    segments: u64,
    used_names: Vec<bool>,
    problems: Vec<Problem>,
    /// Columns no segment maps, by line (the line, the columns, the line's length): a line
    /// cut into pieces has an entry from each, added up in order before it is reported.
    unmapped: Vec<(u32, u32, u32)>,
}

impl Scan<'_> {
    /// Checks every segment of `piece`: original and generated positions in range, unmapped
    /// columns, names used.
    fn piece(&self, piece: &Piece, names: usize) -> Part {
        let mut part = Part {
            used_names: vec![false; names],
            ..Part::default()
        };
        let mut report = MapReport::default();
        let (mut segs, mut scratch) = (Vec::new(), Vec::new());
        match piece {
            Piece::Lines(lines) => {
                for line in lines.clone() {
                    self.m.line_segments_into(line, &mut segs, &mut scratch);
                    let bundle_len = self.check(line, &segs, &mut report, &mut part);
                    if let Some(len) = bundle_len {
                        let len = len.saturating_sub(self.shift(line));
                        let unmapped = unmapped_columns(&segs, len, true, len);
                        part.unmapped.push((line, unmapped, len));
                    }
                }
            }
            Piece::Blocks { line, blocks, last } => {
                let line = *line;
                self.m
                    .line_blocks_into(line, blocks.clone(), &mut segs, &mut scratch);
                let bundle_len = self.check(line, &segs, &mut report, &mut part);
                if let Some(len) = bundle_len {
                    let len = len.saturating_sub(self.shift(line));
                    // The stretch's last segment runs to the next block's first.
                    let end = if *last {
                        len
                    } else {
                        self.m.line_blocks_into(
                            line,
                            blocks.end..blocks.end + 1,
                            &mut scratch,
                            &mut Vec::new(),
                        );
                        scratch.first().map_or(len, |s| s.gen_col.min(len))
                    };
                    let unmapped = unmapped_columns(&segs, len, blocks.start == 0, end);
                    part.unmapped.push((line, unmapped, len));
                }
            }
        }
        part.segments = report.stats.segments;
        part.problems = report.problems;
        part
    }

    /// Generated line 0's columns are shifted by the section's column.
    fn shift(&self, line: u32) -> u32 {
        if line == 0 { self.offsets.1 } else { 0 }
    }

    /// Checks the segments `segs` of `line` (all of them or a stretch); the bundle's length
    /// of the line, when the bundle has it.
    fn check(
        &self,
        line: u32,
        segs: &[crate::symbols::sourcemap::RawSegment],
        report: &mut MapReport,
        part: &mut Part,
    ) -> Option<u32> {
        let Self {
            m,
            offsets: (line_off, _),
            bundle,
            texts,
        } = *self;
        let path = |i: u32| m.source_path(i).unwrap_or_else(|| format!("source {i}"));
        report.stats.segments += segs.len() as u64;
        let gen_line = line_off + line;
        let shift = self.shift(line);
        let at = |col: u32| Generated {
            line: gen_line + 1,
            column: col + shift + 1,
        };
        let bundle_len = bundle.and_then(|b| b.get(gen_line as usize).copied());
        for s in segs {
            if let Some(n) = part.used_names.get_mut(s.name as usize) {
                *n = true;
            }
            if let Some(b) = bundle {
                let col = s.gen_col + shift;
                match bundle_len {
                    None => report.note(ProblemKind::GeneratedOutOfRange, 1, || Example {
                        generated: Some(at(s.gen_col)),
                        original: None,
                        detail: format!(
                            "line {} is past the end of the bundle ({} lines)",
                            gen_line + 1,
                            b.len()
                        ),
                    }),
                    Some(len) if col > len => {
                        report.note(ProblemKind::GeneratedOutOfRange, 1, || Example {
                            generated: Some(at(s.gen_col)),
                            original: None,
                            detail: format!(
                                "column {} is past the end of line {} ({len} columns)",
                                col + 1,
                                gen_line + 1
                            ),
                        });
                    }
                    _ => {}
                }
            }
            if !s.has_source() {
                continue;
            }
            if let Some(Some(text)) = texts.get(s.source as usize) {
                let out = match text.get(s.src_line as usize) {
                    None => Some(format!(
                        "line {} is past the end of {} ({} lines)",
                        s.src_line + 1,
                        path(s.source),
                        text.len()
                    )),
                    Some(&len) if s.src_col > len => Some(format!(
                        "column {} is past the end of line {} of {} ({len} columns)",
                        s.src_col + 1,
                        s.src_line + 1,
                        path(s.source)
                    )),
                    _ => None,
                };
                if let Some(detail) = out {
                    report.note(ProblemKind::OriginalOutOfRange, 1, || Example {
                        generated: Some(at(s.gen_col)),
                        original: Some(Original {
                            source: path(s.source),
                            line: s.src_line + 1,
                            column: s.src_col + 1,
                        }),
                        detail,
                    });
                }
            }
        }
        bundle_len
    }
}

/// Columns of a line `len` long that no segment among `segs` maps to a source: before the
/// first segment (when `segs` start the line), and from a segment without a source to the
/// next, the last one running to `end` (the line's end, or the next stretch's first column).
fn unmapped_columns(
    segs: &[crate::symbols::sourcemap::RawSegment],
    len: u32,
    from_start: bool,
    end: u32,
) -> u32 {
    let Some(first) = segs.first() else {
        return if from_start { end } else { 0 };
    };
    let mut out = if from_start {
        first.gen_col.min(len)
    } else {
        0
    };
    for (k, s) in segs.iter().enumerate() {
        if !s.has_source() {
            let next = segs.get(k + 1).map_or(end, |n| n.gen_col.min(len));
            out += next.saturating_sub(s.gen_col);
        }
    }
    out
}

/// The report as the JSON document of `symscope check-map` (see the module's contract).
pub fn to_json(report: &MapReport, map: &str, bundle: Option<&str>) -> serde_json::Value {
    use serde_json::json;
    let problems: Vec<serde_json::Value> = report
        .problems
        .iter()
        .map(|p| {
            let examples: Vec<serde_json::Value> = p
                .examples
                .iter()
                .map(|e| {
                    json!({
                        "generated": e.generated.map(|g| json!({"line": g.line, "column": g.column})),
                        "original": e.original.as_ref().map(|o| json!({
                            "source": o.source, "line": o.line, "column": o.column
                        })),
                        "detail": e.detail,
                    })
                })
                .collect();
            json!({
                "kind": p.kind.as_str(),
                "severity": if p.kind.is_error() { "error" } else { "info" },
                "count": p.count,
                "examples": examples,
            })
        })
        .collect();
    json!({
        "schema": 1,
        "map": map,
        "bundle": bundle,
        "stats": {
            "segments": report.stats.segments,
            "lines": report.stats.lines,
            "sources": report.stats.sources,
            "names": report.stats.names,
        },
        "problems": problems,
    })
}

/// The report as text: a line of stats, then each kind with its count and examples.
pub fn to_text(report: &MapReport, map: &str) -> String {
    use std::fmt::Write as _;
    let s = &report.stats;
    let mut out = format!(
        "{map}: {} segments on {} generated {}, {} sources, {} names\n",
        s.segments,
        s.lines,
        if s.lines == 1 { "line" } else { "lines" },
        s.sources,
        s.names
    );
    for p in &report.problems {
        let severity = if p.kind.is_error() { "error" } else { "info " };
        let _ = writeln!(out, "{severity} {}: {}", p.kind.as_str(), p.count);
        for e in &p.examples {
            let mut at = String::new();
            if let Some(g) = e.generated {
                let _ = write!(at, "{}:{} ", g.line, g.column);
            }
            if let Some(o) = &e.original {
                let _ = write!(at, "→ {}:{}:{} ", o.source, o.line, o.column);
            }
            let _ = writeln!(out, "    {at}{}", e.detail);
        }
    }
    let errors = report.problems.iter().filter(|p| p.kind.is_error()).count();
    let _ = writeln!(
        out,
        "{}",
        match errors {
            0 => "no errors".to_owned(),
            1 => "1 kind of error".to_owned(),
            n => format!("{n} kinds of error"),
        }
    );
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundle_line_lengths_in_utf16_units() {
        assert_eq!(
            super::line_lengths("a\r\nbc\rd\n\né😀\r\r\nx".as_bytes()),
            [1, 2, 1, 0, 3, 0, 1]
        );
        assert_eq!(super::line_lengths(b""), [0]);
        // Bad UTF-8: each bad sequence one replacement character.
        assert_eq!(super::line_lengths(b"a\xff\xfeb\xe2\x82"), [5]);
        assert_eq!(super::utf16_len("aé😀".as_bytes()), 4);
        assert_eq!(super::line_lengths(b"\n"), [0, 0]);
    }
}
