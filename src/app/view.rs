//! View models: what the panels show, computed apart from painting so it can be tested.

use crate::model::{FrameStatus, ResolvedLocation, SourceText, SymbolicatedTrace, Trace};
use crate::symbols::sourcemap::SourceMap;
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

/// The rows of one log's stack list, filtered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackRows {
    /// The rows, in order.
    pub rows: Vec<Row>,
    /// Frames hidden by the filter.
    pub hidden: usize,
}

/// Whether a frame is library code. A resolved frame is when its source is on the map's
/// ignore list (the map's author decides, as in Chrome DevTools); an unresolved one when it is
/// the runtime's own (`node:internal`, native, built-in) or an unmapped `node_modules` file.
pub fn is_library(
    trace: &Trace,
    result: Option<&SymbolicatedTrace>,
    stack: usize,
    frame: usize,
) -> bool {
    let Some(f) = trace.stacks.get(stack).and_then(|s| s.frames.get(frame)) else {
        return false;
    };
    let sym = result
        .and_then(|r| r.stacks.get(stack))
        .and_then(|s| s.frames.get(frame));
    if let Some(loc) = sym.and_then(|s| s.resolved.first()) {
        return loc.ignored;
    }
    let Some(input) = &f.input else { return false };
    input.builtin
        || input
            .file
            .as_deref()
            .is_some_and(|p| p.starts_with("node:") || p.contains("node_modules/"))
}

impl StackRows {
    /// The rows of `trace`; `filter` (case-insensitive) keeps frames whose raw line or
    /// resolved function or file contains it. Without a filter, runs of two or more library
    /// frames collapse into one row unless their `(stack, first frame)` is in `expanded`.
    pub fn build(
        trace: &Trace,
        result: Option<&SymbolicatedTrace>,
        filter: &str,
        expanded: &std::collections::HashSet<(usize, usize)>,
    ) -> Self {
        if filter.trim().is_empty() {
            return Self::grouped(trace, result, expanded);
        }
        let needle = filter.trim().to_lowercase();
        let mut out = Self::default();
        for (s, stack) in trace.stacks.iter().enumerate() {
            let header = out.rows.len();
            out.rows.push(Row::Stack { stack: s });
            let mut kept = 0;
            for (f, frame) in stack.frames.iter().enumerate() {
                let matches = needle.is_empty() || frame.raw.to_lowercase().contains(&needle) || {
                    let loc = result
                        .and_then(|r| r.stacks.get(s))
                        .and_then(|st| st.frames.get(f))
                        .and_then(|fr| fr.resolved.first());
                    loc.is_some_and(|l| {
                        l.function
                            .as_deref()
                            .is_some_and(|x| x.to_lowercase().contains(&needle))
                            || l.file
                                .as_deref()
                                .is_some_and(|x| x.to_lowercase().contains(&needle))
                    })
                };
                if matches {
                    out.rows.push(Row::Frame { stack: s, frame: f });
                    kept += 1;
                } else {
                    out.hidden += 1;
                }
            }
            if kept == 0 && !needle.is_empty() && !stack.title.to_lowercase().contains(&needle) {
                out.rows.truncate(header);
            }
        }
        out
    }

    fn grouped(
        trace: &Trace,
        result: Option<&SymbolicatedTrace>,
        expanded: &std::collections::HashSet<(usize, usize)>,
    ) -> Self {
        let mut out = Self::default();
        for (s, stack) in trace.stacks.iter().enumerate() {
            out.rows.push(Row::Stack { stack: s });
            let n = stack.frames.len();
            // The innermost frame (where it crashed) is never folded away.
            let mut f = 0;
            if n > 0 {
                out.rows.push(Row::Frame { stack: s, frame: 0 });
                f = 1;
            }
            while f < n {
                let run = (f..n)
                    .take_while(|&k| is_library(trace, result, s, k))
                    .count();
                if run >= 2 {
                    let open = expanded.contains(&(s, f));
                    out.rows.push(Row::Library {
                        stack: s,
                        first: f,
                        count: run,
                        expanded: open,
                    });
                    if open {
                        out.rows
                            .extend((f..f + run).map(|k| Row::Frame { stack: s, frame: k }));
                    }
                    f += run;
                } else {
                    out.rows.push(Row::Frame { stack: s, frame: f });
                    f += 1;
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
    /// Why it is not resolved.
    pub note: Option<String>,
    /// Source context from the map's `sourcesContent`.
    pub context: Option<SourceContext>,
}

/// Lines of context shown above and below the frame's line.
const CONTEXT: u32 = 5;

/// The detail of frame `frame` of stack `stack`.
pub fn frame_detail(
    trace: &Trace,
    result: Option<&SymbolicatedTrace>,
    maps: &[(String, Arc<SourceMap>)],
    stack: usize,
    frame: usize,
) -> Option<FrameDetail> {
    let raw = trace.stacks.get(stack)?.frames.get(frame)?.raw.clone();
    let sym = result
        .and_then(|r| r.stacks.get(stack))
        .and_then(|s| s.frames.get(frame));
    let location = sym.and_then(|s| s.resolved.first().cloned());
    let context = location.as_ref().and_then(|loc| {
        // A chained result names "outer + inner"; the source lives in the inner map.
        let map_name = sym?.symbol_file.as_deref()?.rsplit(" + ").next()?;
        let (_, map) = maps.iter().find(|(n, _)| n == map_name)?;
        source_context(map, loc)
    });
    Some(FrameDetail {
        raw,
        status: sym.map(|s| s.status),
        symbol_file: sym.and_then(|s| s.symbol_file.clone()),
        generated: sym.and_then(|s| s.generated),
        location,
        note: sym.and_then(|s| s.note.clone()),
        context,
    })
}

fn source_context(map: &SourceMap, loc: &ResolvedLocation) -> Option<SourceContext> {
    let file = loc.file.as_deref()?;
    let line = loc.line?;
    for m in map.regular_maps() {
        for i in 0..m.source_count() as u32 {
            if m.source_path(i).as_deref() != Some(file) {
                continue;
            }
            let text = SourceText::new(m.source_content(i)?.into_owned());
            let first = line.saturating_sub(CONTEXT).max(1);
            let last = (line + CONTEXT).min(text.line_count() as u32);
            let lines: Vec<String> = (first..=last)
                .filter_map(|n| text.line(n as usize - 1).map(str::to_owned))
                .collect();
            return Some(SourceContext {
                file: file.to_owned(),
                first_line: first,
                highlight: (line - first) as usize,
                lines,
                column: loc.column,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::js;
    use std::collections::HashSet;

    #[test]
    fn runtime_frames_collapse_and_expand() {
        let trace = js::parse(
            "Error: x\n    at a (app.js:1:1)\n    at Module._compile (node:internal/modules/cjs/loader:1:1)\n    at Module.load (node:internal/modules/cjs/loader:2:2)\n    at b (app.js:2:2)\n    at new Promise (<anonymous>)\n",
        );
        let rows = StackRows::build(&trace, None, "", &HashSet::new());
        assert_eq!(
            rows.rows,
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
        let open = StackRows::build(&trace, None, "", &HashSet::from([(0, 1)]));
        assert_eq!(open.rows.len(), 7);
        assert_eq!(
            open.rows[2],
            Row::Library {
                stack: 0,
                first: 1,
                count: 2,
                expanded: true
            }
        );
        // A filter shows every match, unfolded.
        let filtered = StackRows::build(&trace, None, "module", &HashSet::new());
        assert_eq!((filtered.rows.len(), filtered.hidden), (3, 3));
    }
}
