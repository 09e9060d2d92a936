//! Searching a source map (the segment inspector's Search): its `names` (with where each is
//! first used and how often), its `sources`, and the generated text when the bundle is
//! loaded. Case-insensitive; each list is cut at [`MOST_HITS`].

use crate::model::{Progress, SourceText};
use crate::symbols::sourcemap::{GeneratedPos, RegularMap, SourceMap};

/// Hits kept per list.
pub const MOST_HITS: usize = 200;

/// The progress phase of a search; its unit is a generated line.
pub const SEARCH_PHASE: &str = "search map";

/// A `names` entry that matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameHit {
    /// Its index in `names` (of its section, in an index map).
    pub index: u32,
    /// The name.
    pub name: String,
    /// How many segments use it.
    pub uses: u64,
    /// Where the first of them is (0-based), if any does.
    pub first: Option<GeneratedPos>,
}

/// What a search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchHits {
    /// What was searched for.
    pub query: String,
    /// Matching names, in `names` order.
    pub names: Vec<NameHit>,
    /// Matching sources: index (an index map's sections' sources numbered one after the
    /// other) and path (`sourceRoot` applied), in `sources` order.
    pub sources: Vec<(u32, String)>,
    /// Where the generated text holds the query (0-based line, UTF-16 column), in text order.
    pub generated: Vec<GeneratedPos>,
    /// How many generated matches there were in all (the list is cut).
    pub generated_total: u64,
}

/// Searches `map` (and `bundle`'s text) for `query`: an index map's sections in order, their
/// positions moved by the sections' offsets and their sources numbered one after the other
/// (as the inverse index numbers them). Stops early, with what it has, when `progress` says
/// stop.
pub fn search_map(
    map: &SourceMap,
    bundle: Option<&SourceText>,
    query: &str,
    progress: &mut dyn Progress,
) -> SearchHits {
    let needle = query.to_lowercase();
    let mut hits = SearchHits {
        query: query.to_owned(),
        ..Default::default()
    };
    if needle.is_empty() {
        return hits;
    }
    let mut parts: Vec<(&RegularMap, (u32, u32))> = Vec::new();
    match map {
        SourceMap::Regular(m) => parts.push((m, (0, 0))),
        SourceMap::Index(ix) => {
            for section in ix.sections() {
                if let Ok(SourceMap::Regular(m)) = ix.section_map(section) {
                    parts.push((m, (section.line, section.column)));
                }
            }
        }
    }
    let mut source_base = 0;
    for (m, offsets) in parts {
        search_part(m, offsets, source_base, &needle, &mut hits, progress);
        source_base += m.source_count() as u32;
    }
    search_text(bundle, &needle, &mut hits);
    hits
}

/// The names and sources of one regular map whose line 0 starts at generated
/// (`line_off`, `col_off`) and whose sources are numbered from `source_base`.
fn search_part(
    map: &RegularMap,
    (line_off, col_off): (u32, u32),
    source_base: u32,
    needle: &str,
    hits: &mut SearchHits,
    progress: &mut dyn Progress,
) {
    let matches = |s: &str| s.to_lowercase().contains(needle);
    // Names: which match, then one pass over the segments for their uses.
    let mut wanted: std::collections::HashMap<u32, usize> = Default::default();
    for i in 0..map.name_count() as u32 {
        if hits.names.len() >= MOST_HITS {
            break;
        }
        if let Some(name) = map.name(i)
            && matches(&name)
        {
            wanted.insert(i, hits.names.len());
            hits.names.push(NameHit {
                index: i,
                name: name.into_owned(),
                uses: 0,
                first: None,
            });
        }
    }
    let lines = map.index().map_or(0, |i| i.line_count()) as u32;
    if !wanted.is_empty() {
        let (mut segs, mut scratch) = (Vec::new(), Vec::new());
        for line in 0..lines {
            if line % 4096 == 4095
                && progress
                    .step(SEARCH_PHASE, u64::from(line), u64::from(lines))
                    .is_break()
            {
                break;
            }
            map.line_segments_into(line, &mut segs, &mut scratch);
            let shift = if line == 0 { col_off } else { 0 };
            for s in &segs {
                if let Some(&k) = wanted.get(&s.name) {
                    let hit = &mut hits.names[k];
                    hit.uses += 1;
                    hit.first.get_or_insert(GeneratedPos {
                        line: line_off + line,
                        column: s.gen_col + shift,
                    });
                }
            }
        }
    }
    for i in 0..map.source_count() as u32 {
        if hits.sources.len() >= MOST_HITS {
            break;
        }
        if let Some(path) = map.source_path(i)
            && matches(&path)
        {
            hits.sources.push((source_base + i, path));
        }
    }
}

/// Every place in the generated text that holds `needle` (lower-cased). Linear in the text
/// however many hits a line has (a bundle may be one line of megabytes).
fn search_text(bundle: Option<&SourceText>, needle: &str, hits: &mut SearchHits) {
    let Some(text) = bundle else {
        return;
    };
    for line in 0..text.line_count() {
        let Some(content) = text.line(line) else {
            continue;
        };
        // UTF-16 columns, counted on from the previous hit.
        let mut cursor = crate::model::Utf16Cursor::default();
        let mut hit = |at: usize| {
            hits.generated_total += 1;
            if hits.generated.len() < MOST_HITS {
                hits.generated.push(GeneratedPos {
                    line: line as u32,
                    column: cursor.seek_byte(content, at),
                });
            }
        };
        if needle.is_ascii() && !lowers_to_ascii(content) {
            // An ASCII needle can only match ASCII letters, which ASCII lower-casing folds
            // in place: byte offsets stay those of the line.
            let lower = content.as_bytes().to_ascii_lowercase();
            let finder = memchr::memmem::Finder::new(needle.as_bytes());
            let mut from = 0;
            while let Some(i) = finder.find(&lower[from..]) {
                hit(from + i);
                from += i + 1;
            }
        } else {
            let mut from = 0;
            while let Some(at) = content[from..]
                .char_indices()
                .map(|(i, _)| from + i)
                .find(|&i| starts_with_folded(&content[i..], needle))
            {
                hit(at);
                from = at + content[at..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
}

/// Whether `text` has a character other than an ASCII letter whose lower case holds an ASCII
/// letter: `İ` (`i̇`) and the Kelvin sign (`k`).
fn lowers_to_ascii(text: &str) -> bool {
    !text.is_ascii()
        && (memchr::memmem::find(text.as_bytes(), "İ".as_bytes()).is_some()
            || memchr::memmem::find(text.as_bytes(), "\u{212A}".as_bytes()).is_some())
}

/// Whether `text`, lower-cased, starts with `needle`: compared char by char, stopping at the
/// first difference.
fn starts_with_folded(text: &str, needle: &str) -> bool {
    let mut want = needle.chars();
    for c in text.chars().flat_map(char::to_lowercase) {
        match want.next() {
            None => return true,
            Some(w) if w == c => {}
            Some(_) => return false,
        }
    }
    want.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(text: &str, needle: &str) -> Vec<(u32, u32)> {
        let mut hits = SearchHits::default();
        search_text(
            Some(&SourceText::new(text.to_owned())),
            &needle.to_lowercase(),
            &mut hits,
        );
        assert_eq!(hits.generated_total as usize, hits.generated.len());
        hits.generated.iter().map(|p| (p.line, p.column)).collect()
    }

    /// Case-insensitive, overlapping, in UTF-16 columns; the characters whose lower case is
    /// ASCII (`İ`, the Kelvin sign) match as their lower case does.
    #[test]
    fn generated_text_places() {
        assert_eq!(places("aAa\nxaa", "AA"), [(0, 0), (0, 1), (1, 1)]);
        // `é` is one unit, `😀` two.
        assert_eq!(places("é😀Box box", "box"), [(0, 3), (0, 7)]);
        assert_eq!(places("\u{212A}ey key", "key"), [(0, 0), (0, 4)]);
        assert_eq!(places("İf", "i"), [(0, 0)]);
        assert_eq!(places("ÉCOLE école", "école"), [(0, 0), (0, 6)]);
        assert!(places("nothing", "box").is_empty());
    }
}
