//! The source-map segment inspector's view model: one generated line's segments, decoded on
//! demand through the lazy index, with their sources and names resolved only when shown.

use crate::model::{SourceText, utf16_col_to_byte};
use crate::symbols::sourcemap::{NONE, RawSegment, RegularMap, SourceMap};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

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
            SourceMap::Regular(m) => m.index().line_count(),
            SourceMap::Index(ix) => ix.sections().last().map_or(0, |s| {
                let inner = ix.section_map(s).ok().and_then(|m| match m {
                    SourceMap::Regular(r) => Some(r.index().line_count()),
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

    /// The segment that covers generated column `col` (UTF-16), as a look-up would pick it.
    pub fn segment_at(&self, col: u32) -> Option<usize> {
        let rel = col.checked_sub(self.col_offset)?;
        let k = self.segments.partition_point(|s| s.gen_col <= rel);
        k.checked_sub(1)
    }
}

/// A stretch of a line cut by UTF-16 columns: the text and the byte offset of each column
/// boundary asked for. Long minified lines are only walked across the window shown.
pub fn window(line: &str, from_col: u32, to_col: u32) -> (usize, usize) {
    let start = utf16_col_to_byte(line, from_col).unwrap_or(line.len());
    let mut units = from_col;
    let mut end = line.len();
    for (b, ch) in line[start..].char_indices() {
        if units >= to_col {
            end = start + b;
            break;
        }
        units += ch.len_utf16() as u32;
    }
    (start, end)
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
        assert_eq!(&line[window(line, 4, 99).0..], "cd");
    }
}
