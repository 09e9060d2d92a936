//! The source-map segment inspector's view model: one generated line's segments, decoded on
//! demand through the lazy index, with their sources and names resolved only when shown.

use super::{AppState, InspectorCommand};
use crate::model::{SourceText, Utf16Cursor};
use crate::symbols::sourcemap::{NONE, RawSegment, RegularMap, SourceMap};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// One generated line of one map, as the inspector shows it.
pub struct InspectorView {
    /// The map's name.
    pub map_name: String,
    /// The map.
    pub map: Arc<SourceMap>,
    /// 0-based generated line (of the whole file).
    pub line: u32,
    /// Index-map sections as (line, column) offsets; empty for a regular map.
    pub sections: Vec<(u32, u32)>,
    /// The section this line falls in (index maps).
    pub section: Option<usize>,
    /// Added to the generated columns of `segments` (a section starting mid-line).
    pub col_offset: u32,
    /// The line's segments, in generated-column order.
    pub segments: Vec<RawSegment>,
    /// The generated file's text, when the bundle is loaded.
    pub generated: Option<Arc<SourceText>>,
    sources: Mutex<HashMap<u32, Option<Arc<SourceText>>>>,
    /// The generated line's columns and coverage, worked out once (a minified line may run
    /// to megabytes: not every frame).
    facts: std::sync::OnceLock<Option<LineFacts>>,
    /// Per source: the line's segments by the original line they map into.
    by_original: Mutex<HashMap<u32, Arc<OriginalMarks>>>,
}

/// A source's original lines (0-based) and the segments of the inspected line that map into
/// each: (original column, segment index), sorted.
pub type OriginalMarks = HashMap<u32, Vec<(u32, usize)>>;

/// A generated line's UTF-16 columns and which of them no segment maps.
#[derive(Debug, Default)]
pub struct LineFacts {
    /// (byte, UTF-16 column) every [`CHECKPOINT_BYTES`] or so, from (0, 0).
    checkpoints: Vec<(usize, u32)>,
    /// The line's length in UTF-16 units.
    pub len: u32,
    /// Stretches (from, to) of columns no segment maps to a source.
    pub gaps: Vec<(u32, u32)>,
    /// Their columns in all.
    pub unmapped: u32,
}

/// Bytes between two of a line's column checkpoints.
const CHECKPOINT_BYTES: usize = 4096;

impl std::fmt::Debug for InspectorView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InspectorView")
            .field("map_name", &self.map_name)
            .field("line", &self.line)
            .field("segments", &self.segments.len())
            .finish_non_exhaustive()
    }
}

impl InspectorView {
    /// Decodes line `line` of `map` (only that line).
    pub fn new(
        map_name: &str,
        map: Arc<SourceMap>,
        line: u32,
        generated: Option<Arc<SourceText>>,
    ) -> Self {
        let mut view = Self {
            map_name: map_name.to_owned(),
            map: map.clone(),
            line,
            sections: Vec::new(),
            section: None,
            col_offset: 0,
            segments: Vec::new(),
            generated,
            sources: Mutex::new(HashMap::new()),
            facts: std::sync::OnceLock::new(),
            by_original: Mutex::new(HashMap::new()),
        };
        match &*map {
            SourceMap::Regular(m) => view.segments = m.line_segments(line),
            SourceMap::Index(ix) => {
                view.sections = ix.sections().iter().map(|s| (s.line, s.column)).collect();
                let k = ix.sections().partition_point(|s| s.line <= line);
                if let Some(k) = k.checked_sub(1)
                    && let Some(section) = ix.sections().get(k)
                    && let Ok(SourceMap::Regular(m)) = ix.section_map(section)
                {
                    let rel = line - section.line;
                    view.section = Some(k);
                    view.col_offset = if rel == 0 { section.column } else { 0 };
                    view.segments = m.line_segments(rel);
                }
            }
        }
        view
    }

    /// How many index blocks (about 64 segments each) line `line` of `map` has: what
    /// decoding it costs.
    pub fn line_blocks(map: &SourceMap, line: u32) -> u32 {
        match map {
            SourceMap::Regular(m) => m.index_for(line).map_or(0, |i| i.block_count(line)),
            SourceMap::Index(ix) => {
                let k = ix.sections().partition_point(|s| s.line <= line);
                k.checked_sub(1)
                    .and_then(|k| ix.sections().get(k))
                    .and_then(|section| match ix.section_map(section).ok()? {
                        SourceMap::Regular(m) => {
                            let line = line - section.line;
                            m.index_for(line).ok().map(|i| i.block_count(line))
                        }
                        SourceMap::Index(_) => None,
                    })
                    .unwrap_or(0)
            }
        }
    }

    /// The regular map the segments belong to.
    pub fn regular(&self) -> Option<&RegularMap> {
        match &*self.map {
            SourceMap::Regular(m) => Some(m),
            SourceMap::Index(ix) => {
                let section = ix.sections().get(self.section?)?;
                match ix.section_map(section).ok()? {
                    SourceMap::Regular(m) => Some(m),
                    SourceMap::Index(_) => None,
                }
            }
        }
    }

    /// Generated lines in the map.
    pub fn line_count(&self) -> usize {
        match &*self.map {
            SourceMap::Regular(m) => m.index().map_or(0, |i| i.line_count()),
            SourceMap::Index(ix) => ix.sections().last().map_or(0, |s| {
                let inner = ix.section_map(s).ok().and_then(|m| match m {
                    SourceMap::Regular(r) => r.index().ok().map(|i| i.line_count()),
                    SourceMap::Index(_) => None,
                });
                s.line as usize + inner.unwrap_or(1)
            }),
        }
    }

    /// The generated column of segment `i` in the whole file.
    pub fn gen_col(&self, i: usize) -> Option<u32> {
        Some(self.segments.get(i)?.gen_col + self.col_offset)
    }

    /// The source path of segment `i`.
    pub fn source(&self, i: usize) -> Option<String> {
        let seg = self.segments.get(i)?;
        if seg.source == NONE {
            return None;
        }
        self.regular()?.source_path(seg.source)
    }

    /// The name of segment `i`.
    pub fn name(&self, i: usize) -> Option<String> {
        let seg = self.segments.get(i)?;
        if seg.name == NONE {
            return None;
        }
        self.regular()?.name(seg.name).map(|n| n.into_owned())
    }

    /// The original text of source `idx` (decoded once).
    pub fn source_text(&self, idx: u32) -> Option<Arc<SourceText>> {
        let mut cache = self.sources.lock().unwrap_or_else(PoisonError::into_inner);
        cache
            .entry(idx)
            .or_insert_with(|| {
                let text = self.regular()?.source_content(idx)?;
                Some(Arc::new(SourceText::new(text.into_owned())))
            })
            .clone()
    }

    /// The segments of the inspected line that map into source `source`, by original line
    /// (worked out once per source: a minified line may hold a million segments).
    pub fn original_marks(&self, source: u32) -> Arc<OriginalMarks> {
        let mut cache = self
            .by_original
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        cache
            .entry(source)
            .or_insert_with(|| {
                let mut marks = OriginalMarks::new();
                for (k, s) in self.segments.iter().enumerate() {
                    if s.source == source {
                        marks.entry(s.src_line).or_default().push((s.src_col, k));
                    }
                }
                for v in marks.values_mut() {
                    v.sort_unstable();
                }
                Arc::new(marks)
            })
            .clone()
    }

    /// The generated line's columns and coverage (`None` without the bundle or the line).
    pub fn line_facts(&self) -> Option<&LineFacts> {
        self.facts
            .get_or_init(|| {
                let line = self.generated.as_ref()?.line(self.line as usize)?;
                let bytes = line.as_bytes();
                let mut checkpoints = vec![(0, 0)];
                let (mut at, mut units) = (0, 0u32);
                while at < bytes.len() {
                    let mut next = (at + CHECKPOINT_BYTES).min(bytes.len());
                    while !line.is_char_boundary(next) {
                        next += 1;
                    }
                    units += crate::model::utf16_len(&bytes[at..next]) as u32;
                    at = next;
                    checkpoints.push((at, units));
                }
                let len = units.max(1);
                let mut gaps = Vec::new();
                let cols: Vec<(u32, bool)> = (0..self.segments.len())
                    .filter_map(|i| Some((self.gen_col(i)?, self.segments[i].has_source())))
                    .collect();
                let first = cols.first().map_or(len, |c| c.0.min(len));
                if first > 0 {
                    gaps.push((0, first));
                }
                for (k, &(col, mapped)) in cols.iter().enumerate() {
                    if !mapped {
                        let end = cols.get(k + 1).map_or(len, |n| n.0.min(len));
                        if end > col {
                            gaps.push((col, end));
                        }
                    }
                }
                let unmapped = gaps.iter().map(|(a, b)| b - a).sum();
                Some(LineFacts {
                    checkpoints,
                    len,
                    gaps,
                    unmapped,
                })
            })
            .as_ref()
    }

    /// The byte offsets in the generated line `line` (this view's) of UTF-16 columns
    /// `from_col` and `to_col`, as [`window`] finds them, from the line's checkpoints.
    pub fn window(&self, line: &str, from_col: u32, to_col: u32) -> (usize, usize) {
        let Some(facts) = self.line_facts() else {
            return window(line, from_col, to_col);
        };
        let k = facts
            .checkpoints
            .partition_point(|&(_, u)| u <= from_col)
            .max(1);
        let (byte, col) = facts.checkpoints[k - 1];
        Utf16Cursor { byte, col }.span(line, from_col, to_col)
    }

    /// The segment that covers generated column `col` (UTF-16), as a look-up would pick it.
    pub fn segment_at(&self, col: u32) -> Option<usize> {
        let rel = col.checked_sub(self.col_offset)?;
        let k = self.segments.partition_point(|s| s.gen_col <= rel);
        k.checked_sub(1)
    }
}

/// A stretch of a line cut by UTF-16 columns: the byte offsets of `from_col` and `to_col`.
/// Long minified lines are only walked across the window shown.
pub fn window(line: &str, from_col: u32, to_col: u32) -> (usize, usize) {
    Utf16Cursor::default().span(line, from_col, to_col)
}

impl AppState {
    /// Applies a request for the segment inspector and its tools.
    pub(super) fn apply_inspector(&mut self, command: InspectorCommand) {
        let changed = Instant::now();
        match command {
            InspectorCommand::ToggleInspector => {
                self.workspace.layout.inspector_open = !self.workspace.layout.inspector_open;
                if self.workspace.layout.inspector_open {
                    self.show_pane = Some(super::Pane::Inspector);
                }
                self.autosave.changed(changed);
            }
            InspectorCommand::InspectMap(path) => {
                self.workspace.selection.inspected_map = Some(path);
                self.view.inspector.line = 0;
                self.view.inspector.segment = None;
                self.autosave.changed(changed);
            }
            InspectorCommand::InspectLine(line) => {
                self.view.inspector.line = line;
                self.view.inspector.segment = None;
            }
            InspectorCommand::GoToGenerated { line, column } => {
                self.view.inspector.line = line;
                self.focus_inspector(column);
            }
            InspectorCommand::CheckMap => self.start_map_check(),
            InspectorCommand::CloseMapReport => self.view.inspector.map_report = None,
            InspectorCommand::ExtractSources(dir) => self.start_extract(dir),
            InspectorCommand::CompareWith(other) => self.start_compare(other),
            InspectorCommand::ShowDiffLine(k) => {
                let line = self.view.inspector.map_diff.as_mut().and_then(|c| {
                    c.shown = k;
                    Some(c.diff.differing.get(k)?.line)
                });
                if let Some(line) = line {
                    self.apply_one(InspectorCommand::InspectLine(line));
                }
            }
            InspectorCommand::CloseCompare => self.view.inspector.map_diff = None,
            InspectorCommand::SearchMap(query) => self.start_map_search(query),
            InspectorCommand::CloseSearch => self.view.inspector.map_search = None,
            InspectorCommand::OpenOriginal => self.open_original(),
            InspectorCommand::IndexOriginals => self.ensure_originals(),
            InspectorCommand::CloseOriginal => self.view.inspector.original = None,
            InspectorCommand::SetOriginalFilter(filter) => {
                if let Some(nav) = &mut self.view.inspector.original {
                    nav.filter = filter;
                }
            }
            InspectorCommand::PickOriginalSource(source) => {
                if let Some(nav) = &mut self.view.inspector.original {
                    nav.source = Some(source);
                    nav.line = None;
                }
            }
            InspectorCommand::GoToOriginalLine(line) => {
                let first = self.view.inspector.original.as_mut().and_then(|nav| {
                    nav.line = Some(line);
                    let index = nav.index.as_ref()?;
                    index
                        .on_line(nav.source?, line)
                        .into_iter()
                        .map(|(_, at)| at)
                        .min()
                });
                if let Some(at) = first {
                    self.apply_one(InspectorCommand::GoToGenerated {
                        line: at.line,
                        column: at.column,
                    });
                }
            }
            InspectorCommand::SelectSegment(i) => self.view.inspector.segment = Some(i),
            InspectorCommand::InspectSelectedFrame => self.inspect_selected_frame(),
        }
    }
}

impl AppState {
    /// Takes in what one of the inspector's jobs handed back.
    pub(super) fn inspector_job_done(&mut self, output: super::JobOutput) {
        use super::JobOutput;
        let view = &mut self.view.inspector;
        match output {
            JobOutput::Extracted { dir, done } => {
                self.errors
                    .extend(done.skipped.iter().map(|s| format!("not extracted: {s}")));
                self.notice = Some((
                    Instant::now(),
                    format!(
                        "Extracted {} sources to {}",
                        done.written.len(),
                        dir.display()
                    ),
                ));
            }
            JobOutput::Compared(compare) => {
                // The comparison starts at its first difference.
                if let Some(first) = compare.diff.differing.get(compare.shown) {
                    view.line = first.line;
                    view.segment = None;
                }
                view.map_diff = Some(*compare);
                self.show_pane = Some(super::Pane::MapCompare);
            }
            JobOutput::Searched { map, hits } => view.map_search = Some((map, hits)),
            JobOutput::OriginalIndexed { map, index } => {
                if let Some(nav) = &mut view.original
                    && nav.map == map
                {
                    nav.index = Some(index.clone());
                }
                if view.originals_pending.as_ref() == Some(&map) {
                    view.originals_pending = None;
                }
                view.originals = Some((map, index));
            }
            JobOutput::InspectorLine(key, line) => self.inspector_line_decoded(*key, line),
            JobOutput::MapChecked { map, report } => view.map_report = Some((map, report)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Blob;

    #[test]
    fn a_line_of_a_regular_and_of_an_index_map() {
        let map = SourceMap::parse(Blob::from(
            br#"{"version":3,"sources":["a.js"],"names":["x"],"mappings":"AAAAA,EAAE;IACA"}"#
                .to_vec(),
        ))
        .unwrap();
        let v = InspectorView::new("a.js.map", Arc::new(map), 0, None);
        assert_eq!(v.segments.len(), 2);
        assert_eq!(
            (v.gen_col(1), v.source(0).as_deref(), v.name(0).as_deref()),
            (Some(2), Some("a.js"), Some("x"))
        );
        assert_eq!(v.segment_at(1), Some(0));
        assert_eq!(v.line_count(), 2);
        let index = br#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a"],"names":[],"mappings":"AAAA"}},{"offset":{"line":1,"column":4},"map":{"version":3,"sources":["b"],"names":[],"mappings":"AAAA,CAAC"}}]}"#;
        let v = InspectorView::new(
            "i.map",
            Arc::new(SourceMap::parse(index.to_vec()).unwrap()),
            1,
            None,
        );
        assert_eq!(v.sections, vec![(0, 0), (1, 4)]);
        assert_eq!(
            (v.section, v.gen_col(0), v.gen_col(1)),
            (Some(1), Some(4), Some(5))
        );
        assert_eq!(v.source(1).as_deref(), Some("b"));
    }

    #[test]
    fn windows_of_long_lines() {
        let line = "ab😀cd";
        assert_eq!(window(line, 1, 4), (1, 6));
        // A long line (past several checkpoints, characters of 1 to 4 bytes): the view's
        // window from checkpoints equals the walk from the line's start.
        let long: String = "aé€😀b".repeat(3_000);
        let text = Arc::new(SourceText::new(long.clone()));
        let map = SourceMap::parse(Blob::from(
            br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA,EAAE,kBAAkB"}"#
                .to_vec(),
        ))
        .unwrap();
        let v = InspectorView::new("a.js.map", Arc::new(map), 0, Some(text));
        for from in (0..20_000)
            .step_by(997)
            .chain([0, 1, 2, 3, 4, 5, 6, 7, 17_999, 18_000])
        {
            assert_eq!(
                v.window(&long, from, from + 240),
                window(&long, from, from + 240),
                "{from}"
            );
        }
        let facts = v.line_facts().unwrap();
        assert_eq!(facts.len as usize, long.encode_utf16().count());
        assert_eq!(facts.unmapped, 0);
        assert_eq!(&line[window(line, 4, 99).0..], "cd");
    }
}
