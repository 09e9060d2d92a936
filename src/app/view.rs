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
}

/// The rows of one log's stack list, filtered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackRows {
    /// The rows, in order.
    pub rows: Vec<Row>,
    /// Frames hidden by the filter.
    pub hidden: usize,
}

impl StackRows {
    /// The rows of `trace`; `filter` (case-insensitive) keeps frames whose raw line or
    /// resolved function or file contains it.
    pub fn build(trace: &Trace, result: Option<&SymbolicatedTrace>, filter: &str) -> Self {
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
