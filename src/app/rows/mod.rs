//! The stack list's rows: a log's stacks and frames as the list shows them (filtered, runs
//! of library frames folded, inline chains as rows of their own), stored as runs so that a
//! million frames cost a few runs.

use crate::engine::FrameTable;
use std::collections::HashSet;

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
    /// A folded run of frames (library code, or frames the mapping hides), collapsed or, when
    /// expanded, the row that folds them again.
    Group {
        /// What the frames are.
        kind: GroupKind,
        /// Stack index.
        stack: usize,
        /// The run's first frame.
        first: usize,
        /// How many frames the run holds.
        count: usize,
        /// Whether the run is shown frame by frame below this row.
        expanded: bool,
    },
    /// The expander below an ambiguous frame: the symbol file cannot tell which of `count`
    /// candidate chains ran (the frame's row shows the first).
    Candidates {
        /// Stack index.
        stack: usize,
        /// Frame index.
        frame: usize,
        /// How many candidates, the first included.
        count: usize,
        /// Whether the other candidates are listed below.
        expanded: bool,
    },
    /// One entry of another candidate chain of an ambiguous frame.
    Candidate {
        /// Stack index.
        stack: usize,
        /// Frame index.
        frame: usize,
        /// Which alternative (0: the second candidate).
        candidate: usize,
        /// Index in that chain (0: its innermost entry).
        depth: usize,
    },
}

/// What a folded run of frames holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupKind {
    /// Library frames: ignore-listed sources, `node_modules`, runtime internals, JDK classes.
    Library,
    /// Frames the mapping hides as R8's retrace does (a `rewriteFrame` rule, an outline, a
    /// synthesized method).
    Hidden,
    /// Recursion: the `period` frames above, repeated (a stack overflow's thousands of
    /// frames), folded into one row.
    Recursion {
        /// How many frames one round of the recursion takes (1 to [`MAX_PERIOD`]).
        period: usize,
    },
}

/// The longest round of recursion folded: a cycle of this many frames or fewer.
pub const MAX_PERIOD: usize = 4;

/// How many frames from `f` on repeat the frames `period` above them, frame by frame (as
/// the log printed them: function, file, line, column, address).
fn repeats(table: &FrameTable, s: usize, f: usize, period: usize) -> usize {
    let key = |k: usize| table.frame(s, k).and_then(|fr| fr.input());
    let n = table.stack_len(s);
    if f < period {
        return 0;
    }
    (f..n)
        .take_while(|&k| {
            let here = key(k);
            here.is_some() && here == key(k - period)
        })
        .count()
}

/// The recursion folded at frame `f` of stack `s`: its period and how many frames it folds
/// (whole rounds only), when the frames above repeat at least twice more.
fn recursion_at(table: &FrameTable, s: usize, f: usize) -> Option<(usize, usize)> {
    (1..=MAX_PERIOD).find_map(|period| {
        let run = repeats(table, s, f, period) / period * period;
        (run >= 2 * period).then_some((period, run))
    })
}

/// Why frames `first..first + count` of stack `s` are hidden, for their folded row
/// ("2 frames hidden by the mapping's rewrite rule").
pub fn hidden_reason(table: &FrameTable, s: usize, first: usize, count: usize) -> &'static str {
    use crate::symbolicate::{OUTLINE_NOTE, REWRITE_NOTE, SYNTHESIZED_NOTE};
    let mut kinds = (first..first + count).filter_map(|f| table.frame(s, f)?.note());
    let Some(one) = kinds.next() else {
        return "hidden by the mapping";
    };
    if kinds.any(|n| n != one) {
        return "hidden by the mapping's rules";
    }
    match one {
        REWRITE_NOTE => "hidden by the mapping's rewrite rule",
        OUTLINE_NOTE => "hidden: R8 outlines, shown at their callsite",
        SYNTHESIZED_NOTE => "hidden: methods the compiler made",
        _ => "hidden by the mapping",
    }
}

/// The selected log's notes on frames, by (stack, frame): the filter finds them.
pub type FrameNotes = std::collections::HashMap<(usize, usize), String>;

/// What the user unfolded or folded in the stack list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folds {
    /// Runs of library or hidden frames shown frame by frame, as (stack, first frame).
    pub expanded: HashSet<(usize, usize)>,
    /// Stacks (an exception, each `Caused by:`) folded to their header.
    pub collapsed: HashSet<usize>,
    /// Ambiguous frames whose other candidates are listed, as (stack, frame).
    pub candidates: HashSet<(usize, usize)>,
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
    /// A folded group's row; when expanded, runs of its frames follow it.
    Group {
        kind: GroupKind,
        stack: usize,
        first: usize,
        count: usize,
        expanded: bool,
    },
    /// An ambiguous frame's expander; when expanded, a run per other candidate follows it.
    Candidates {
        stack: usize,
        frame: usize,
        count: usize,
        expanded: bool,
    },
    /// One other candidate chain of an ambiguous frame, a row per entry.
    Candidate {
        stack: usize,
        frame: usize,
        candidate: usize,
        len: usize,
    },
}

impl Run {
    fn rows(&self) -> usize {
        match *self {
            Self::Header { .. } => 1,
            Self::Frames { count, .. } => count,
            Self::Inlined { extra, .. } => 1 + extra,
            Self::Group { .. } | Self::Candidates { .. } => 1,
            Self::Candidate { len, .. } => len,
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
            Self::Group {
                kind,
                stack,
                first,
                count,
                expanded,
            } => Row::Group {
                kind,
                stack,
                first,
                count,
                expanded,
            },
            Self::Candidates {
                stack,
                frame,
                count,
                expanded,
            } => Row::Candidates {
                stack,
                frame,
                count,
                expanded,
            },
            Self::Candidate {
                stack,
                frame,
                candidate,
                ..
            } => Row::Candidate {
                stack,
                frame,
                candidate,
                depth: k,
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

    /// Where the run sits in log order: (stack, first frame, 0), headers before their
    /// frames, an ambiguous frame's candidates (…, 1) after its own row.
    fn key(&self) -> (usize, isize, u8) {
        match *self {
            Self::Header { stack } => (stack, -1, 0),
            Self::Frames { stack, first, .. }
            | Self::Group { stack, first, .. }
            | Self::Inlined {
                stack,
                frame: first,
                ..
            } => (stack, first as isize, 0),
            Self::Candidates { stack, frame, .. } | Self::Candidate { stack, frame, .. } => {
                (stack, frame as isize, 1)
            }
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

    /// Frames `first..first + count` of stack `s`, each with its inline rows when `inline`,
    /// and an ambiguous frame's expander (with its other candidates when opened in `folds`).
    fn push_frames(
        &mut self,
        table: &FrameTable,
        s: usize,
        first: usize,
        count: usize,
        inline: bool,
        folds: &Folds,
    ) {
        let mut start = first;
        for f in first..first + count {
            let Some(fr) = table.frame(s, f) else {
                continue;
            };
            let extra = if inline {
                fr.locations().count().saturating_sub(1)
            } else {
                0
            };
            let others = fr.alternatives();
            if extra == 0 && others.is_empty() {
                continue;
            }
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
            if others.is_empty() {
                continue;
            }
            let expanded = folds.candidates.contains(&(s, f));
            self.push(Run::Candidates {
                stack: s,
                frame: f,
                count: others.len() + 1,
                expanded,
            });
            if expanded {
                for (candidate, chain) in others.iter().enumerate() {
                    self.push(Run::Candidate {
                        stack: s,
                        frame: f,
                        candidate,
                        len: chain.len(),
                    });
                }
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
        let key = (stack, frame as isize, 0);
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
            _ => None,
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

    /// The last frame shown (End).
    pub fn last_frame(&self) -> Option<(usize, usize)> {
        (0..self.len()).rev().find_map(|n| match self.row(n)? {
            Row::Frame { stack, frame } => Some((stack, frame)),
            _ => None,
        })
    }

    /// The first frame of the expanded library or hidden-frames group that shows frame
    /// `frame` of `stack`, if it is in one (Left folds it again).
    pub fn group_of(&self, stack: usize, frame: usize) -> Option<usize> {
        self.runs.iter().find_map(|run| match *run {
            Run::Group {
                stack: s,
                first,
                count,
                expanded: true,
                ..
            } if s == stack && (first..first + count).contains(&frame) => Some(first),
            _ => None,
        })
    }

    /// The rows of `table`; `filter` (case-insensitive) keeps frames whose raw line or
    /// resolved function or file contains it. Without a filter, runs of two or more library
    /// frames, and runs of frames the mapping hides, collapse into one row unless their
    /// `(stack, first frame)` is in `folds.expanded`, and the stacks in `folds.collapsed` (an
    /// exception, each `Caused by:`) show only their header. With `inline`, a frame's inline
    /// chain adds a row per entry after the innermost. An ambiguous frame is followed by its
    /// expander, and its other candidates when it is in `folds.candidates`. The filter also
    /// finds a frame by its triage note (`notes`).
    pub fn build(
        table: &FrameTable,
        filter: &str,
        folds: &Folds,
        notes: &FrameNotes,
        inline: bool,
    ) -> Self {
        if filter.trim().is_empty() {
            return Self::grouped(table, folds, inline);
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
                    || notes.get(&(s, f)).is_some_and(|n| contains(n))
                    || frame
                        .locations()
                        .any(|l| l.function.is_some_and(contains) || l.file.is_some_and(contains));
                if matches {
                    out.push_frames(table, s, f, 1, inline, folds);
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

    fn grouped(table: &FrameTable, folds: &Folds, inline: bool) -> Self {
        let mut out = Self::default();
        let library = |s: usize, f: usize| table.frame(s, f).is_some_and(|fr| fr.is_library());
        let hidden =
            |s: usize, f: usize| table.frame(s, f).is_some_and(|fr| fr.hidden_by_mapping());
        for s in 0..table.stack_count() {
            out.push(Run::Header { stack: s });
            if folds.collapsed.contains(&s) {
                continue;
            }
            let n = table.stack_len(s);
            let mut f = 0;
            while f < n {
                // Frames the mapping hides fold into one row, as retrace leaves them out.
                let run = (f..n).take_while(|&k| hidden(s, k)).count();
                if run > 0 {
                    let open = folds.expanded.contains(&(s, f));
                    out.push(Run::Group {
                        kind: GroupKind::Hidden,
                        stack: s,
                        first: f,
                        count: run,
                        expanded: open,
                    });
                    if open {
                        out.push_frames(table, s, f, run, inline, folds);
                    }
                    f += run;
                    continue;
                }
                // Recursion: the rounds after the first fold into one row.
                if let Some((period, run)) = recursion_at(table, s, f) {
                    let open = folds.expanded.contains(&(s, f));
                    out.push(Run::Group {
                        kind: GroupKind::Recursion { period },
                        stack: s,
                        first: f,
                        count: run,
                        expanded: open,
                    });
                    if open {
                        out.push_frames(table, s, f, run, inline, folds);
                    }
                    f += run;
                    continue;
                }
                // The innermost frame (where it crashed) is never folded away.
                let run = if f == 0 {
                    0
                } else {
                    (f..n).take_while(|&k| library(s, k)).count()
                };
                if run >= 2 {
                    let open = folds.expanded.contains(&(s, f));
                    out.push(Run::Group {
                        kind: GroupKind::Library,
                        stack: s,
                        first: f,
                        count: run,
                        expanded: open,
                    });
                    if open {
                        out.push_frames(table, s, f, run, inline, folds);
                    }
                    f += run;
                } else {
                    let plain = (f + 1..n)
                        .take_while(|&k| {
                            !library(s, k) && !hidden(s, k) && recursion_at(table, s, k).is_none()
                        })
                        .count()
                        + 1;
                    out.push_frames(table, s, f, plain, inline, folds);
                    f += plain;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
