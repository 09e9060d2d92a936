//! The frame detail's view model: where the selected frame maps, its chain and candidates,
//! why it is not resolved, what a Java `... N more` line stands for, and the original source
//! around it (from the map, or from a source folder the user added).

use crate::engine::FrameTable;
use crate::model::{FrameStatus, ResolvedLocation, SourceText};
use crate::symbols::sourcemap::SourceMap;
use std::path::PathBuf;
use std::sync::Arc;

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
    /// Why it is not resolved, or, for a resolved frame, how its answer was found (where
    /// its name came from, an eval'd position).
    pub note: Option<String>,
    /// For a Java `... N more` line: the frames it stands for (the enclosing trace's last
    /// N), as shown in the list.
    pub inherited: Vec<String>,
    /// Native: the frame's address, module and offset in the module.
    pub address: Option<(u64, Option<String>, Option<u64>)>,
    /// WebAssembly: the module as printed, the function index and the byte offset.
    pub wasm: Option<(Option<String>, u32, Option<u64>)>,
    /// Source context: from the map's `sourcesContent`, else from the file found under a
    /// source folder the user added (read by a job: [`source_from_roots`]).
    pub context: Option<SourceContext>,
    /// The source is being read from a source folder.
    pub source_pending: bool,
}

/// `file:line:col` as the window prints a location (`?` for no file).
pub fn place(file: Option<&str>, line: Option<u32>, column: Option<u32>) -> String {
    let mut s = file.unwrap_or("?").to_owned();
    if let Some(l) = line {
        s.push_str(&format!(":{l}"));
        if let Some(c) = column {
            s.push_str(&format!(":{c}"));
        }
    }
    s
}

impl FrameDetail {
    /// The frame as copied (Ctrl+C, "Copy frame"): the line as in the log, then each
    /// original location of its chain, or why it is not resolved.
    pub fn copy_text(&self) -> String {
        let mut text = self.raw.trim().to_owned();
        if self.location.is_some() {
            for loc in &self.chain {
                text.push_str(&format!(
                    "\n    → {} ({})",
                    loc.function.as_deref().unwrap_or("<unknown>"),
                    place(loc.file.as_deref(), loc.line, loc.column)
                ));
            }
        } else if let Some(note) = &self.note {
            text.push_str(&format!("\n    ({note})"));
        }
        text
    }
}

/// The largest source file read from a source folder.
const MAX_SOURCE_BYTES: u64 = 8 << 20;

/// Lines of context shown above and below the frame's line: more than the tallest pane
/// holds, so that the line can be centred in it.
const CONTEXT: u32 = 80;

/// The detail of frame `frame` of stack `stack`, its source context from the maps' sources
/// (a source under a source folder is read by a job: [`source_from_roots`]).
pub fn frame_detail(
    table: &FrameTable,
    maps: &[(String, Arc<SourceMap>)],
    stack: usize,
    frame: usize,
) -> Option<FrameDetail> {
    let f = table.frame(stack, frame)?;
    let location = f.location().map(|l| l.to_owned());
    let context = location.as_ref().and_then(|loc| {
        // A chained result names "outer + inner"; the source lives in the inner map.
        f.symbol_file()
            .and_then(|s| s.rsplit(" + ").next())
            .and_then(|name| maps.iter().find(|(n, _)| n == name))
            .and_then(|(_, map)| source_context(map, loc))
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
        wasm: f
            .input()
            .and_then(|i| Some((i.file.map(str::to_owned), i.wasm_function?, i.module_offset))),
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
        source_pending: false,
    })
}

/// The source context of `loc` from its file found under a source folder (`roots`), read
/// from disk: what a job does for the frame detail, never the window's thread.
pub fn source_from_roots(roots: &[PathBuf], loc: &ResolvedLocation) -> Option<SourceContext> {
    let path = find_under_roots(roots, loc.file.as_deref()?)?;
    // A source file, not a blob.
    if std::fs::metadata(&path).ok()?.len() > MAX_SOURCE_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    context_of(&SourceText::new(text), loc)
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
        .map(|s| crate::symbolicate::stack_shape(table, s))
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

    fn table(text: &str) -> FrameTable {
        FrameTable::from_trace(&crate::formats::parse_text(text), None)
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

    /// `... N more` shows the frames it stands for, following enclosing traces.
    #[test]
    fn more_lines_list_their_frames() {
        let t = table(
            "java.lang.IllegalStateException: top\n\tat a.b.x(SourceFile:1)\n\tat a.b.y(SourceFile:2)\n\tSuppressed: java.io.IOException: close\n\t\tat a.b.s(SourceFile:3)\n\t\t... 1 more\nCaused by: a.c: inner\n\tat a.b.z(SourceFile:4)\n\t... 2 more\nCaused by: a.d: deeper\n\tat a.b.w(SourceFile:5)\n\t... 3 more\n",
        );
        let d = |s, f| frame_detail(&t, &[], s, f).unwrap().inherited;
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
}
