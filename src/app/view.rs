//! View models: what the panels show, computed apart from painting so it can be tested.

use crate::model::{FrameStatus, FrameTable, ResolvedLocation, SourceText};
use crate::symbols::sourcemap::SourceMap;
use std::path::PathBuf;
use std::sync::Arc;

/// One row of the stack list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// A stack's header (the error line).
    Stack {
        /// Stack index.
        stack: usize,
    },
    /// A frame.
    Frame {
        /// Stack index.
        stack: usize,
        /// Frame index.
        frame: usize,
    },
    /// One entry of a frame's inline chain below the frame's own row: the function the
    /// entry before it was inlined into, at the call's line (`depth` 1 is the innermost
    /// entry's caller; the frame's row shows the innermost entry).
    Inline {
        /// Stack index.
        stack: usize,
        /// Frame index.
        frame: usize,
        /// Index in the frame's chain of locations (1 or more).
        depth: usize,
    },
    /// A run of library frames (ignore-listed, `node_modules`, runtime internals), collapsed
    /// or, when expanded, the row that collapses them again.
    Library {
        /// Stack index.
        stack: usize,
        /// The run's first frame.
        first: usize,
        /// How many frames the run holds.
        count: usize,
        /// Whether the run is shown frame by frame below this row.
        expanded: bool,
    },
}

/// A run of rows: the unit the stack list is stored in, so that a million frames take a few
/// runs rather than a million rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    /// A stack's header row.
    Header { stack: usize },
    /// Consecutive frames of one stack, one row each.
    Frames {
        stack: usize,
        first: usize,
        count: usize,
    },
    /// A frame with an inline chain: its row and one row per entry after the innermost.
    Inlined {
        stack: usize,
        frame: usize,
        extra: usize,
    },
    /// A group of library frames' row; when expanded, runs of its frames follow it.
    Library {
        stack: usize,
        first: usize,
        count: usize,
        expanded: bool,
    },
}

impl Run {
    fn rows(&self) -> usize {
        match *self {
            Self::Header { .. } => 1,
            Self::Frames { count, .. } => count,
            Self::Inlined { extra, .. } => 1 + extra,
            Self::Library { .. } => 1,
        }
    }

    /// The run's `k`-th row.
    fn row(&self, k: usize) -> Row {
        match *self {
            Self::Header { stack } => Row::Stack { stack },
            Self::Frames { stack, first, .. } => Row::Frame {
                stack,
                frame: first + k,
            },
            Self::Inlined { stack, frame, .. } => match k {
                0 => Row::Frame { stack, frame },
                depth => Row::Inline {
                    stack,
                    frame,
                    depth,
                },
            },
            Self::Library {
                stack,
                first,
                count,
                expanded,
            } => Row::Library {
                stack,
                first,
                count,
                expanded,
            },
        }
    }

    /// The row of frame `f` of stack `s` inside this run, if it is shown here.
    fn row_of(&self, s: usize, f: usize) -> Option<usize> {
        match *self {
            Self::Frames {
                stack,
                first,
                count,
            } if stack == s && (first..first + count).contains(&f) => Some(f - first),
            Self::Inlined { stack, frame, .. } if stack == s && frame == f => Some(0),
            _ => None,
        }
    }

    /// Where the run sits in log order: (stack, first frame), headers before their frames.
    fn key(&self) -> (usize, isize) {
        match *self {
            Self::Header { stack } => (stack, -1),
            Self::Frames { stack, first, .. }
            | Self::Library { stack, first, .. }
            | Self::Inlined {
                stack,
                frame: first,
                ..
            } => (stack, first as isize),
        }
    }
}

/// The rows of one log's stack list, filtered, stored as runs with their cumulative row
/// counts, so that the Nth visible row is found by binary search (React DevTools keeps
/// subtree weights for the same reason) and a group's rows cost nothing until shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackRows {
    runs: Vec<Run>,
    /// Rows before the end of each run (cumulative).
    ends: Vec<usize>,
    /// Frames hidden by the filter.
    pub hidden: usize,
}

impl StackRows {
    fn push(&mut self, run: Run) {
        let n = run.rows();
        if n == 0 {
            return;
        }
        // Consecutive frames of one stack merge into one run.
        if let (
            Run::Frames {
                stack,
                first,
                count,
            },
            Some(Run::Frames {
                stack: s,
                first: f,
                count: c,
            }),
        ) = (run, self.runs.last_mut())
            && *s == stack
            && *f + *c == first
        {
            *c += count;
            if let Some(end) = self.ends.last_mut() {
                *end += n;
            }
            return;
        }
        let end = self.len() + n;
        self.runs.push(run);
        self.ends.push(end);
    }

    /// Frames `first..first + count` of stack `s`, each with its inline rows when `inline`.
    fn push_frames(
        &mut self,
        table: &FrameTable,
        s: usize,
        first: usize,
        count: usize,
        inline: bool,
    ) {
        if !inline {
            self.push(Run::Frames {
                stack: s,
                first,
                count,
            });
            return;
        }
        let mut start = first;
        for f in first..first + count {
            let extra = table
                .frame(s, f)
                .map_or(0, |fr| fr.locations().count().saturating_sub(1));
            if extra > 0 {
                self.push(Run::Frames {
                    stack: s,
                    first: start,
                    count: f - start,
                });
                self.push(Run::Inlined {
                    stack: s,
                    frame: f,
                    extra,
                });
                start = f + 1;
            }
        }
        self.push(Run::Frames {
            stack: s,
            first: start,
            count: first + count - start,
        });
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `n`, in O(log runs).
    pub fn row(&self, n: usize) -> Option<Row> {
        let r = self.ends.partition_point(|&e| e <= n);
        let run = self.runs.get(r)?;
        let start = if r == 0 { 0 } else { self.ends[r - 1] };
        Some(run.row(n - start))
    }

    /// Rows `range`, in order.
    pub fn rows(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = Row> + '_ {
        range.map_while(|n| self.row(n))
    }

    /// The row showing frame `frame` of `stack`, in O(log runs); `None` when it is hidden.
    pub fn row_of_frame(&self, stack: usize, frame: usize) -> Option<usize> {
        let key = (stack, frame as isize);
        // The last run starting at or before the frame holds it, if any run does.
        let r = self
            .runs
            .partition_point(|run| run.key() <= key)
            .checked_sub(1)?;
        let k = self.runs[r].row_of(stack, frame)?;
        Some(if r == 0 { 0 } else { self.ends[r - 1] } + k)
    }

    /// The frame shown next to `current` (below when `down`), for keyboard navigation; the
    /// first frame shown when `current` is not shown.
    pub fn step(&self, current: Option<(usize, usize)>, down: bool) -> Option<(usize, usize)> {
        let frame_at = |n: usize| match self.row(n)? {
            Row::Frame { stack, frame } => Some((stack, frame)),
            Row::Stack { .. } | Row::Library { .. } | Row::Inline { .. } => None,
        };
        let Some(at) = current.and_then(|(s, f)| self.row_of_frame(s, f)) else {
            return (0..self.len()).find_map(frame_at);
        };
        let next = if down {
            (at + 1..self.len()).find_map(frame_at)
        } else {
            (0..at).rev().find_map(frame_at)
        };
        next.or(current)
    }

    /// The rows of `table`; `filter` (case-insensitive) keeps frames whose raw line or
    /// resolved function or file contains it. Without a filter, runs of two or more library
    /// frames collapse into one row unless their `(stack, first frame)` is in `expanded`, and
    /// the stacks in `collapsed` (an exception, each `Caused by:`) show only their header.
    /// With `inline`, a frame's inline chain adds a row per entry after the innermost.
    pub fn build(
        table: &FrameTable,
        filter: &str,
        expanded: &std::collections::HashSet<(usize, usize)>,
        collapsed: &std::collections::HashSet<usize>,
        inline: bool,
    ) -> Self {
        if filter.trim().is_empty() {
            return Self::grouped(table, expanded, collapsed, inline);
        }
        let needle = filter.trim().to_lowercase();
        let mut out = Self::default();
        let contains = |x: &str| x.to_lowercase().contains(&needle);
        for s in 0..table.stack_count() {
            let mark = (out.runs.len(), out.ends.len());
            out.push(Run::Header { stack: s });
            let mut kept = 0;
            for f in 0..table.stack_len(s) {
                let Some(frame) = table.frame(s, f) else {
                    continue;
                };
                let matches = contains(frame.raw())
                    || frame
                        .locations()
                        .any(|l| l.function.is_some_and(contains) || l.file.is_some_and(contains));
                if matches {
                    out.push_frames(table, s, f, 1, inline);
                    kept += 1;
                } else {
                    out.hidden += 1;
                }
            }
            if kept == 0 && !contains(table.stack_title(s)) {
                out.runs.truncate(mark.0);
                out.ends.truncate(mark.1);
            }
        }
        out
    }

    fn grouped(
        table: &FrameTable,
        expanded: &std::collections::HashSet<(usize, usize)>,
        collapsed: &std::collections::HashSet<usize>,
        inline: bool,
    ) -> Self {
        let mut out = Self::default();
        let library = |s: usize, f: usize| table.frame(s, f).is_some_and(|fr| fr.is_library());
        for s in 0..table.stack_count() {
            out.push(Run::Header { stack: s });
            if collapsed.contains(&s) {
                continue;
            }
            let n = table.stack_len(s);
            // The innermost frame (where it crashed) is never folded away.
            let mut f = 0;
            if n > 0 {
                out.push_frames(table, s, 0, 1, inline);
                f = 1;
            }
            while f < n {
                let run = (f..n).take_while(|&k| library(s, k)).count();
                if run >= 2 {
                    let open = expanded.contains(&(s, f));
                    out.push(Run::Library {
                        stack: s,
                        first: f,
                        count: run,
                        expanded: open,
                    });
                    if open {
                        out.push_frames(table, s, f, run, inline);
                    }
                    f += run;
                } else {
                    let plain = (f + 1..n).take_while(|&k| !library(s, k)).count() + 1;
                    out.push_frames(table, s, f, plain, inline);
                    f += plain;
                }
            }
        }
        out
    }
}

/// Lines of original source around a frame's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceContext {
    /// Source path.
    pub file: String,
    /// 1-based number of the first line in `lines`.
    pub first_line: u32,
    /// The lines.
    pub lines: Vec<String>,
    /// Index in `lines` of the frame's line.
    pub highlight: usize,
    /// 1-based column on that line.
    pub column: Option<u32>,
}

/// Everything the frame detail panel shows.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameDetail {
    /// The line as in the log.
    pub raw: String,
    /// The status (`None` before symbolication finishes).
    pub status: Option<FrameStatus>,
    /// The symbol file used.
    pub symbol_file: Option<String>,
    /// The looked-up generated position (0-based line and column).
    pub generated: Option<(u32, u32)>,
    /// The original location.
    pub location: Option<ResolvedLocation>,
    /// The whole chain, innermost first (`location` and the frames it was inlined into).
    pub chain: Vec<ResolvedLocation>,
    /// Other candidate chains, best first (an ambiguous ProGuard/R8 mapping).
    pub alternatives: Vec<Vec<ResolvedLocation>>,
    /// Why it is not resolved.
    pub note: Option<String>,
    /// For a Java `... N more` line: the frames it stands for (the enclosing trace's last
    /// N), as shown in the list.
    pub inherited: Vec<String>,
    /// Native: the frame's address, module and offset in the module.
    pub address: Option<(u64, Option<String>, Option<u64>)>,
    /// Source context: from the map's `sourcesContent`, else from the file found under a
    /// source folder the user added.
    pub context: Option<SourceContext>,
}

/// The largest source file read from a source folder.
const MAX_SOURCE_BYTES: u64 = 8 << 20;

/// Lines of context shown above and below the frame's line.
const CONTEXT: u32 = 5;

/// The detail of frame `frame` of stack `stack`.
pub fn frame_detail(
    table: &FrameTable,
    maps: &[(String, Arc<SourceMap>)],
    roots: &[PathBuf],
    stack: usize,
    frame: usize,
) -> Option<FrameDetail> {
    let f = table.frame(stack, frame)?;
    let location = f.location().map(|l| l.to_owned());
    let context = location.as_ref().and_then(|loc| {
        // A chained result names "outer + inner"; the source lives in the inner map.
        let from_map = f
            .symbol_file()
            .and_then(|s| s.rsplit(" + ").next())
            .and_then(|name| maps.iter().find(|(n, _)| n == name))
            .and_then(|(_, map)| source_context(map, loc));
        from_map.or_else(|| {
            let path = find_under_roots(roots, loc.file.as_deref()?)?;
            // Read on selection (once, cached by the caller): a source file, not a blob.
            if std::fs::metadata(&path).ok()?.len() > MAX_SOURCE_BYTES {
                return None;
            }
            let text = std::fs::read_to_string(path).ok()?;
            context_of(&SourceText::new(text), loc)
        })
    });
    Some(FrameDetail {
        raw: f.raw().to_owned(),
        status: f.status(),
        symbol_file: f.symbol_file().map(str::to_owned),
        generated: f.generated(),
        location,
        chain: f.locations().map(|l| l.to_owned()).collect(),
        alternatives: f
            .alternatives()
            .into_iter()
            .map(|c| c.into_iter().map(|l| l.to_owned()).collect())
            .collect(),
        note: f.note().map(str::to_owned),
        address: f.address().map(|(a, m, o)| (a, m.map(str::to_owned), o)),
        inherited: inherited_frames(table, stack, frame)
            .into_iter()
            .filter_map(|(s, k)| {
                let fr = table.frame(s, k)?;
                Some(match fr.location() {
                    Some(l) => {
                        let line = l.line.map(|n| format!(":{n}")).unwrap_or_default();
                        format!(
                            "{} ({}{line})",
                            l.function.unwrap_or("<unknown>"),
                            l.file.unwrap_or("?")
                        )
                    }
                    None => fr.raw().trim().to_owned(),
                })
            })
            .collect(),
        context,
    })
}

/// The frames a Java `... N more` line (frame `frame` of `stack`) stands for: the last N
/// frames of its enclosing trace's full list (its printed frames, then what its own
/// `... M more` stands for). Empty for any other frame.
fn inherited_frames(table: &FrameTable, stack: usize, frame: usize) -> Vec<(usize, usize)> {
    use crate::formats::java;
    let more = |s: usize, k: usize| {
        table
            .frame(s, k)
            .and_then(|f| java::more_count(f.raw()).filter(|_| f.is_library()))
    };
    let Some(n) = more(stack, frame) else {
        return Vec::new();
    };
    let shape: Vec<(bool, usize)> = (0..table.stack_count())
        .map(|s| {
            let suppressed = table
                .stack_raw_title(s)
                .trim_start()
                .starts_with("Suppressed:");
            let depth = table.frame(s, 0).map_or(0, |f| java::frame_depth(f.raw()));
            (suppressed, depth)
        })
        .collect();
    // The full list of stack `s`, following enclosing traces (each step goes to an earlier
    // stack, so this ends).
    fn full(
        table: &FrameTable,
        shape: &[(bool, usize)],
        s: usize,
        more: &dyn Fn(usize, usize) -> Option<usize>,
    ) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for k in 0..table.stack_len(s) {
            match more(s, k) {
                Some(m) => {
                    if let Some(e) = crate::formats::java::enclosing_stack(shape, s) {
                        let tail = full(table, shape, e, more);
                        out.extend_from_slice(&tail[tail.len().saturating_sub(m)..]);
                    }
                }
                None => out.push((s, k)),
            }
        }
        out
    }
    let Some(e) = java::enclosing_stack(&shape, stack) else {
        return Vec::new();
    };
    let tail = full(table, &shape, e, &more);
    tail[tail.len().saturating_sub(n)..].to_vec()
}

fn source_context(map: &SourceMap, loc: &ResolvedLocation) -> Option<SourceContext> {
    let file = loc.file.as_deref()?;
    for m in map.regular_maps() {
        for i in 0..m.source_count() as u32 {
            if m.source_path(i).as_deref() != Some(file) {
                continue;
            }
            return context_of(&SourceText::new(m.source_content(i)?.into_owned()), loc);
        }
    }
    None
}

/// The lines of `text` around the location's line (`None` when the file is shorter).
fn context_of(text: &SourceText, loc: &ResolvedLocation) -> Option<SourceContext> {
    let line = loc.line?;
    if line == 0 || line as usize > text.line_count() {
        return None;
    }
    let first = line.saturating_sub(CONTEXT).max(1);
    let last = (line + CONTEXT).min(text.line_count() as u32);
    let lines: Vec<String> = (first..=last)
        .filter_map(|n| text.line(n as usize - 1).map(str::to_owned))
        .collect();
    Some(SourceContext {
        file: loc.file.clone()?,
        first_line: first,
        highlight: (line - first) as usize,
        lines,
        column: loc.column,
    })
}

/// Where a source path a debug file names (a build machine's `/build/app/src/main.c`,
/// `c:\proj\main.cpp`) is found under the user's source folders: the whole path under a
/// folder, else ever shorter tails of it (`src/main.c`, then `main.c`), first folder first.
pub fn find_under_roots(roots: &[PathBuf], file: &str) -> Option<PathBuf> {
    let parts: Vec<&str> = file
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != "." && *p != ".." && !p.ends_with(':'))
        .collect();
    (0..parts.len()).find_map(|skip| {
        roots.iter().find_map(|root| {
            let candidate = parts[skip..].iter().fold(root.clone(), |p, c| p.join(c));
            candidate.is_file().then_some(candidate)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn table(text: &str) -> FrameTable {
        FrameTable::build(text, &crate::formats::parse_text(text), None)
    }

    /// A symbolicated table whose frame `f` has an inline chain of `depths[f]` entries
    /// (`node:internal` frames are library code).
    fn inlined_table(text: &str, depths: &[usize]) -> FrameTable {
        use crate::model::{
            FrameStatus, ResolvedLocation, SymbolicatedFrame, SymbolicatedStack, SymbolicatedTrace,
        };
        let trace = crate::formats::parse_text(text);
        let frames = depths
            .iter()
            .enumerate()
            .map(|(f, &n)| SymbolicatedFrame {
                status: FrameStatus::Resolved,
                symbol_file: None,
                generated: None,
                resolved: (0..n)
                    .map(|k| ResolvedLocation {
                        function: Some(format!("fn{f}_{k}")),
                        file: Some(if trace.stacks[0].frames[f].raw.contains("node:") {
                            "node:internal/x".to_owned()
                        } else {
                            "a.c".to_owned()
                        }),
                        line: Some(k as u32 + 1),
                        inlined: k + 1 < n,
                        ignored: trace.stacks[0].frames[f].raw.contains("node:"),
                        ..ResolvedLocation::default()
                    })
                    .collect(),
                alternatives: Vec::new(),
                note: None,
            })
            .collect();
        let result = SymbolicatedTrace {
            format: trace.format,
            stacks: vec![SymbolicatedStack {
                title: trace.stacks[0].title.clone(),
                crashed: true,
                frames,
            }],
            warnings: Vec::new(),
            timings: Vec::new(),
            modules: Vec::new(),
        };
        FrameTable::build(text, &trace, Some(&result))
    }

    #[test]
    fn inline_chains_are_sub_rows() {
        let t = inlined_table(
            "Error: x\n    at a (app.js:1:1)\n    at b (app.js:1:2)\n    at c (node:internal/x:1:1)\n    at d (node:internal/x:1:2)\n    at e (app.js:1:3)\n",
            &[3, 1, 2, 1, 2],
        );
        let inline = |frame, depth| Row::Inline {
            stack: 0,
            frame,
            depth,
        };
        let frame = |frame| Row::Frame { stack: 0, frame };
        let library = |expanded| Row::Library {
            stack: 0,
            first: 2,
            count: 2,
            expanded,
        };
        let rows = StackRows::build(&t, "", &HashSet::new(), &HashSet::new(), true);
        let expect = vec![
            Row::Stack { stack: 0 },
            frame(0),
            inline(0, 1),
            inline(0, 2),
            frame(1),
            library(false),
            frame(4),
            inline(4, 1),
        ];
        assert_eq!(all(&rows), expect);
        for (n, row) in expect.iter().enumerate() {
            if let Row::Frame { frame, .. } = *row {
                assert_eq!(rows.row_of_frame(0, frame), Some(n));
            }
        }
        // Keys step from frame to frame over the inline rows.
        assert_eq!(rows.step(Some((0, 0)), true), Some((0, 1)));
        assert_eq!(rows.step(Some((0, 4)), false), Some((0, 1)));
        // An expanded group shows its frames with their inline rows.
        let open = StackRows::build(&t, "", &HashSet::from([(0, 2)]), &HashSet::new(), true);
        assert_eq!(
            all(&open)[5..],
            [
                library(true),
                frame(2),
                inline(2, 1),
                frame(3),
                frame(4),
                inline(4, 1)
            ]
        );
        assert_eq!(open.row_of_frame(0, 3), Some(8));
        // A filter matching an inlined function keeps its frame, with its inline rows.
        let filtered = StackRows::build(&t, "fn0_2", &HashSet::new(), &HashSet::new(), true);
        assert_eq!(
            all(&filtered),
            [
                Row::Stack { stack: 0 },
                frame(0),
                inline(0, 1),
                inline(0, 2)
            ]
        );
        // Raw lines have none.
        let raw = StackRows::build(&t, "", &HashSet::new(), &HashSet::new(), false);
        assert_eq!(raw.len(), 5);
    }

    #[test]
    fn sources_are_found_under_roots_by_path_tails() {
        let root = std::env::temp_dir().join(format!("symscope-roots-{}", std::process::id()));
        std::fs::create_dir_all(root.join("src/net")).unwrap();
        std::fs::write(root.join("src/net/conn.c"), "a\nb\n").unwrap();
        std::fs::write(root.join("main.cpp"), "x\n").unwrap();
        let roots = [PathBuf::from("/nonexistent"), root.clone()];
        assert_eq!(
            find_under_roots(&roots, "/build/app/src/net/conn.c"),
            Some(root.join("src/net/conn.c"))
        );
        assert_eq!(
            find_under_roots(&roots, "c:\\projects\\crash\\main.cpp"),
            Some(root.join("main.cpp"))
        );
        assert_eq!(find_under_roots(&roots, "/build/app/src/other.c"), None);
        assert_eq!(find_under_roots(&roots, "../../etc"), None);
        std::fs::remove_dir_all(&root).unwrap();
    }

    fn all(rows: &StackRows) -> Vec<Row> {
        rows.rows(0..rows.len()).collect()
    }

    #[test]
    fn runtime_frames_collapse_and_expand() {
        let t = table(
            "Error: x\n    at a (app.js:1:1)\n    at Module._compile (node:internal/modules/cjs/loader:1:1)\n    at Module.load (node:internal/modules/cjs/loader:2:2)\n    at b (app.js:2:2)\n    at new Promise (<anonymous>)\n",
        );
        let rows = StackRows::build(&t, "", &HashSet::new(), &HashSet::new(), true);
        assert_eq!(
            all(&rows),
            vec![
                Row::Stack { stack: 0 },
                Row::Frame { stack: 0, frame: 0 },
                Row::Library {
                    stack: 0,
                    first: 1,
                    count: 2,
                    expanded: false
                },
                Row::Frame { stack: 0, frame: 3 },
                Row::Frame { stack: 0, frame: 4 },
            ],
            "a single library frame is not folded"
        );
        assert_eq!(rows.row_of_frame(0, 1), None, "folded away");
        let open = StackRows::build(&t, "", &HashSet::from([(0, 1)]), &HashSet::new(), true);
        assert_eq!(open.len(), 7);
        assert_eq!(
            open.row(2),
            Some(Row::Library {
                stack: 0,
                first: 1,
                count: 2,
                expanded: true
            })
        );
        assert_eq!(open.row_of_frame(0, 2), Some(4));
        // A filter shows every match, unfolded.
        let filtered = StackRows::build(&t, "module", &HashSet::new(), &HashSet::new(), true);
        assert_eq!((filtered.len(), filtered.hidden), (3, 3));
    }

    /// A Java trace: each `Caused by:` is a stack that folds to its header; JDK frames
    /// fold into a library row.
    #[test]
    fn caused_by_groups_fold() {
        let t = table(
            "java.lang.IllegalStateException: x\n\tat a.b.c(SourceFile:1)\n\tat a.b.d(SourceFile:2)\nCaused by: java.lang.NumberFormatException: y\n\tat java.base/java.lang.Integer.parseInt(Integer.java:668)\n\tat java.base/java.lang.Integer.parseInt(Integer.java:786)\n\tat a.b.e(SourceFile:3)\n\t... 1 more\n",
        );
        assert_eq!(t.stack_count(), 2);
        let open = StackRows::build(&t, "", &HashSet::new(), &HashSet::new(), true);
        assert_eq!(
            all(&open),
            vec![
                Row::Stack { stack: 0 },
                Row::Frame { stack: 0, frame: 0 },
                Row::Frame { stack: 0, frame: 1 },
                Row::Stack { stack: 1 },
                // The innermost frame is never folded; the second JDK frame alone is not.
                Row::Frame { stack: 1, frame: 0 },
                Row::Frame { stack: 1, frame: 1 },
                Row::Frame { stack: 1, frame: 2 },
                Row::Frame { stack: 1, frame: 3 },
            ]
        );
        let folded = StackRows::build(&t, "", &HashSet::new(), &HashSet::from([0]), true);
        assert_eq!(folded.len(), 6);
        assert_eq!(folded.row(1), Some(Row::Stack { stack: 1 }));
        assert_eq!(folded.row_of_frame(0, 1), None);
        assert_eq!(folded.step(None, true), Some((1, 0)));
    }

    /// `... N more` shows the frames it stands for, following enclosing traces.
    #[test]
    fn more_lines_list_their_frames() {
        let t = table(
            "java.lang.IllegalStateException: top\n\tat a.b.x(SourceFile:1)\n\tat a.b.y(SourceFile:2)\n\tSuppressed: java.io.IOException: close\n\t\tat a.b.s(SourceFile:3)\n\t\t... 1 more\nCaused by: a.c: inner\n\tat a.b.z(SourceFile:4)\n\t... 2 more\nCaused by: a.d: deeper\n\tat a.b.w(SourceFile:5)\n\t... 3 more\n",
        );
        let d = |s, f| frame_detail(&t, &[], &[], s, f).unwrap().inherited;
        assert_eq!(d(1, 1), vec!["at a.b.y(SourceFile:2)"]);
        assert_eq!(
            d(2, 1),
            vec!["at a.b.x(SourceFile:1)", "at a.b.y(SourceFile:2)"]
        );
        assert_eq!(
            d(3, 1),
            vec![
                "at a.b.z(SourceFile:4)",
                "at a.b.x(SourceFile:1)",
                "at a.b.y(SourceFile:2)"
            ]
        );
        assert!(d(0, 0).is_empty());
    }

    #[test]
    fn rows_are_found_by_binary_search_over_runs() {
        let mut text = String::new();
        for s in 0..3 {
            text.push_str(&format!("Error: e{s}\n"));
            for f in 0..1000 {
                let file = if f % 100 >= 50 {
                    "node:internal/x"
                } else {
                    "app.js"
                };
                text.push_str(&format!("    at f{f} ({file}:1:{f})\n"));
            }
            text.push('\n');
        }
        let t = table(&text);
        assert_eq!(t.stack_count(), 3);
        let expanded = HashSet::from([(1, 50), (2, 950)]);
        let rows = StackRows::build(&t, "", &expanded, &HashSet::new(), true);
        // Walking the rows one by one (what a flat list would hold) agrees with `row(n)`
        // and `row_of_frame` at every row.
        let mut flat = Vec::new();
        for s in 0..3 {
            flat.push(Row::Stack { stack: s });
            let mut f = 0;
            while f < 1000 {
                if f % 100 == 50 {
                    let open = expanded.contains(&(s, f));
                    flat.push(Row::Library {
                        stack: s,
                        first: f,
                        count: 50,
                        expanded: open,
                    });
                    if open {
                        flat.extend((f..f + 50).map(|k| Row::Frame { stack: s, frame: k }));
                    }
                    f += 50;
                } else {
                    flat.push(Row::Frame { stack: s, frame: f });
                    f += 1;
                }
            }
        }
        assert_eq!(rows.len(), flat.len());
        assert!(rows.runs.len() < 100, "runs, not rows: {}", rows.runs.len());
        for (n, row) in flat.iter().enumerate() {
            assert_eq!(rows.row(n), Some(*row), "row {n}");
            if let Row::Frame { stack, frame } = *row {
                assert_eq!(rows.row_of_frame(stack, frame), Some(n));
            }
        }
        assert_eq!(rows.row(flat.len()), None);
        // Keyboard steps skip headers and folded groups.
        assert_eq!(rows.step(Some((0, 49)), true), Some((0, 100)));
        assert_eq!(
            rows.step(Some((1, 0)), false),
            Some((0, 949)),
            "folded group skipped"
        );
        assert_eq!(
            rows.step(Some((1, 49)), true),
            Some((1, 50)),
            "expanded group"
        );
        assert_eq!(rows.step(None, true), Some((0, 0)));
        assert_eq!(
            rows.step(Some((2, 999)), true),
            Some((2, 999)),
            "stays at the end"
        );
    }
}
