//! Names from the function that encloses each frame in its bundle (when the bundle is here):
//! the bundle is parsed around the frame's position (`symbols::scopes`), and the identifiers of
//! the enclosing function's name are mapped through the source map to their original names:
//! the `names` entry of a segment that starts at the identifier, else the identifier at the
//! segment's original position in `sourcesContent` (maps without names, such as esbuild's),
//! else the identifier as the bundle has it (an unminified bundle).

use super::names::is_ident;
use super::{Resolver, SymbolSet, basename};
use crate::model::SourceText;
use crate::model::{TraceView, utf16_col_to_byte, utf16_len};
use crate::symbols::scopes::{Dialect, Scope, enclosing_functions, enclosing_functions_in};
use crate::symbols::sourcemap::SourceMap;
use std::collections::HashMap;
use std::sync::Arc;

/// What the bundle says about a frame's function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ScopeAnswer {
    /// The enclosing function was found: its original name (`None`: anonymous or top-level
    /// code) and a note saying which function it is.
    Found {
        /// The original name.
        name: Option<String>,
        /// What the frame detail says about it.
        note: String,
    },
    /// The bundle is here and not minified but could not be parsed there: the name the engine
    /// printed is the original one.
    Unminified,
}

/// Scope answers by frame file, then 0-based generated position, for one run.
pub(super) type ScopeNames = HashMap<String, HashMap<(u32, u32), ScopeAnswer>>;

/// A frame's file and 0-based generated line and column.
type FramePos = (String, u32, u32);

/// Finds the enclosing function of every frame of `trace` whose bundle is loaded with its map
/// (`base`: the log's column base). Bundles with a Metro function map are left to it.
pub(super) fn scope_pass(trace: &dyn TraceView, symbols: &SymbolSet, base: u32) -> ScopeNames {
    let mut out = ScopeNames::new();
    if symbols.bundles.iter().all(|b| b.bytes.is_none()) {
        return out;
    }
    // Positions per (bundle, map).
    let mut wanted: HashMap<(usize, usize), Vec<FramePos>> = HashMap::new();
    let mut matched: HashMap<String, Option<(usize, usize)>> = HashMap::new();
    for s in 0..trace.stack_count() {
        for f in 0..trace.frame_count(s) {
            let Some(input) = trace.frame(s, f).and_then(|v| v.input) else {
                continue;
            };
            let (Some(file), Some(line), false) = (input.file, input.line, input.builtin) else {
                continue;
            };
            if line == 0 {
                continue;
            }
            let target = *matched.entry(file.to_owned()).or_insert_with(|| {
                let name = basename(file);
                let b = symbols
                    .bundles
                    .iter()
                    .position(|b| b.name == name && b.bytes.is_some())?;
                match symbols.find(file)?.resolver {
                    Resolver::Map(m)
                        if !symbols.maps[m]
                            .map
                            .regular_maps()
                            .iter()
                            .any(|r| r.has_function_map()) =>
                    {
                        Some((b, m))
                    }
                    _ => None,
                }
            });
            if let Some(key) = target {
                let col = input.column.unwrap_or(base).saturating_sub(base);
                wanted
                    .entry(key)
                    .or_default()
                    .push((file.to_owned(), line - 1, col));
            }
        }
    }
    for ((b, m), frames) in wanted {
        let Some(bytes) = &symbols.bundles[b].bytes else {
            continue;
        };
        let Ok(src) = std::str::from_utf8(bytes.as_slice()) else {
            continue;
        };
        let text = Lines::new(src);
        let offsets: Vec<usize> = frames
            .iter()
            .map(|&(_, l, c)| text.offset_in_line(l, c).unwrap_or(usize::MAX))
            .collect();
        let found = enclosing_functions(src, &offsets);
        let map = &symbols.maps[m].map;
        for ((file, l, c), (found, off)) in frames.into_iter().zip(found.into_iter().zip(offsets)) {
            let answer = match found {
                Some(_) if off == usize::MAX => continue,
                None if text.unminified() => ScopeAnswer::Unminified,
                None => continue,
                Some(found) => {
                    let (fl, fc) = text.position(found.function_at);
                    let at = format!("{}:{}", fl + 1, fc + 1);
                    // A `function` whose start maps onto a named function in the original
                    // keeps that name (minifiers drop expression names and fold
                    // `function mapValues(…)` into `lodash.mapValues = function(…)`).
                    let declared = matches!(found.scope, Scope::Named(_) | Scope::Anonymous)
                        .then(|| declared_name(&text, map, found.function_at))
                        .flatten();
                    match found.scope {
                        _ if declared.is_some() => ScopeAnswer::Found {
                            note: format!(
                                "named after its enclosing function (at {at} in the bundle), declared as {} in the original",
                                declared.as_deref().unwrap_or_default()
                            ),
                            name: declared,
                        },
                        Scope::TopLevel => ScopeAnswer::Found {
                            name: None,
                            note: "top-level code of the bundle (outside any function)".to_owned(),
                        },
                        Scope::Anonymous => ScopeAnswer::Found {
                            name: None,
                            note: format!(
                                "its enclosing function in the bundle (at {at}) is anonymous"
                            ),
                        },
                        Scope::Named(parts) => {
                            let names: Vec<String> = parts
                                .iter()
                                .map(|r| original_name(&text, map, r.clone()))
                                .collect();
                            let generated: Vec<&str> =
                                parts.iter().map(|r| &src[r.clone()]).collect();
                            let name = names.join(".");
                            ScopeAnswer::Found {
                                note: format!(
                                    "named after its enclosing function in the bundle: {} at {at}",
                                    generated.join(".")
                                ),
                                name: Some(name),
                            }
                        }
                    }
                }
            };
            out.entry(file).or_default().insert((l, c), answer);
        }
    }
    out
}

/// The enclosing function of a frame's original position, found in the map's
/// `sourcesContent` when the bundle is not here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct OriginalName {
    /// The original source's path, 0-based line and UTF-16 column this answer is for (the
    /// frame's own resolution must be there: a chain of maps may lead elsewhere).
    pub at: (Option<String>, u32, u32),
    /// The function's name (`XRef.parse`); `None`: anonymous, or top-level code.
    pub name: Option<String>,
    /// What the frame detail says about it.
    pub note: String,
}

/// Original-source answers by frame file, then 0-based generated position.
pub(super) type OriginalNames = HashMap<String, HashMap<(u32, u32), OriginalName>>;

/// A source's answer at a position, by the source text (its address, which is stable while
/// the symbol set holds it), 0-based line and UTF-16 column, and whether it is read as
/// TypeScript and JSX: the enclosing function's name and the note, or `None` when not found.
type Answer = Option<(Option<String>, String)>;

/// A position asked of a source: the text's address, 0-based line, UTF-16 column, and
/// whether it is read as TypeScript and as JSX.
type Asked = (usize, u32, u32, bool, bool);

/// How many answers an [`OriginalScopeCache`] keeps.
const KEPT_ANSWERS: usize = 1 << 16;

/// The answers of [`original_scope_pass`] across runs against one symbol set.
#[derive(Debug, Default)]
pub(crate) struct OriginalScopeCache(std::sync::Mutex<HashMap<Asked, Answer>>);

/// Finds the function enclosing the original position of every frame that the bundle
/// pass did not answer (its bundle is not loaded), by parsing the original source of the map's
/// `sourcesContent` (`base`: the log's column base). Each source is parsed once for all its
/// positions. Frames of Metro maps (their function map names them) are left alone.
pub(super) fn original_scope_pass(
    trace: &dyn TraceView,
    symbols: &SymbolSet,
    base: u32,
    bundle: &ScopeNames,
) -> OriginalNames {
    let mut out = OriginalNames::new();
    // Positions per original source text (an index map's sections and chained maps each
    // have their own): the text, its path, and each frame's key, line and column there.
    type Wanted = Vec<(FramePos, u32, u32)>;
    let mut wanted: HashMap<usize, (Arc<SourceText>, Option<String>, Wanted)> = HashMap::new();
    let mut matched: HashMap<String, Option<usize>> = HashMap::new();
    let mut seen: std::collections::HashSet<FramePos> = std::collections::HashSet::new();
    for s in 0..trace.stack_count() {
        for f in 0..trace.frame_count(s) {
            let Some(input) = trace.frame(s, f).and_then(|v| v.input) else {
                continue;
            };
            let (Some(file), Some(line), false) = (input.file, input.line, input.builtin) else {
                continue;
            };
            if line == 0 {
                continue;
            }
            let col = input.column.unwrap_or(base).saturating_sub(base);
            if bundle
                .get(file)
                .is_some_and(|b| b.contains_key(&(line - 1, col)))
            {
                continue;
            }
            let m = *matched.entry(file.to_owned()).or_insert_with(|| {
                let named = |m: usize| {
                    symbols.maps[m]
                        .map
                        .regular_maps()
                        .iter()
                        .any(|r| r.has_function_map())
                };
                match symbols.find(file)?.resolver {
                    Resolver::Map(m) if !named(m) => Some(m),
                    // hermesc's map, then the next (followed below as any chain).
                    Resolver::Chain(m, n) if !named(m) && !named(n) => Some(m),
                    _ => None,
                }
            });
            let Some(m) = m else { continue };
            let key = (file.to_owned(), line - 1, col);
            if !seen.insert(key.clone()) {
                continue;
            }
            let Ok(Some(mut token)) = symbols.maps[m].map.lookup(line - 1, col) else {
                continue;
            };
            // Through a chain of maps, as the frame itself goes (bundle → bytecode's input →
            // original).
            let (mut at, mut hops) = (m, 0);
            while hops < 16
                && let Some(next) = token
                    .source_path()
                    .and_then(|src| symbols.map_of_source(&src, at))
                    .filter(|&n| n != at && n != m)
                && let (Some(l), Some(c)) = (token.src_line(), token.src_col())
                && let Ok(Some(t)) = symbols.maps[next].map.lookup(l, c)
                && t.src_line().is_some()
            {
                token = t;
                at = next;
                hops += 1;
            }
            let (Some(idx), Some(l), Some(c)) =
                (token.source_index(), token.src_line(), token.src_col())
            else {
                continue;
            };
            let Some(text) = token.map().source_text(idx) else {
                continue;
            };
            wanted
                .entry(Arc::as_ptr(&text) as usize)
                .or_insert_with(|| (text, token.source_path(), Vec::new()))
                .2
                .push((key, l, c));
        }
    }
    for (ptr, (text, path, frames)) in wanted {
        let dialect = Dialect::of_path(path.as_deref().unwrap_or_default());
        let key = |l: u32, c: u32| (ptr, l, c, dialect.typescript, dialect.jsx);
        // Positions an earlier run asked about are answered from the cache; the source is
        // read only for the others.
        let mut answers: HashMap<(u32, u32), Answer> = HashMap::new();
        {
            let cache = symbols
                .original_scopes
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for &(_, l, c) in &frames {
                if let Some(a) = cache.get(&key(l, c)) {
                    answers.insert((l, c), a.clone());
                }
            }
        }
        let new: Vec<(u32, u32)> = frames
            .iter()
            .map(|&(_, l, c)| (l, c))
            .filter(|p| !answers.contains_key(p))
            .collect();
        if !new.is_empty() {
            let found = enclosing_in_source(text.as_str(), &new, dialect);
            let mut cache = symbols
                .original_scopes
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            // Bounded: a log of positions all different would otherwise grow it for ever.
            if cache.len() > KEPT_ANSWERS {
                cache.clear();
            }
            for (&(l, c), answer) in new.iter().zip(found) {
                cache.insert(key(l, c), answer.clone());
                answers.insert((l, c), answer);
            }
        }
        for ((file, gl, gc), l, c) in frames {
            let Some(Some((name, note))) = answers.get(&(l, c)).cloned() else {
                continue;
            };
            out.entry(file).or_default().insert(
                (gl, gc),
                OriginalName {
                    at: (path.clone(), l, c),
                    name,
                    note,
                },
            );
        }
    }
    out
}

/// The functions enclosing `positions` (0-based line, UTF-16 column) of an original source:
/// each one's name and note, or `None` where none is found.
fn enclosing_in_source(src: &str, positions: &[(u32, u32)], dialect: Dialect) -> Vec<Answer> {
    let lines = Lines::new(src);
    let offsets: Vec<usize> = positions
        .iter()
        .map(|&(l, c)| lines.offset(l, c).unwrap_or(usize::MAX))
        .collect();
    let found = enclosing_functions_in(src, &offsets, dialect);
    found
        .into_iter()
        .zip(offsets)
        .map(|(found, off)| {
            let found = found.filter(|_| off != usize::MAX)?;
            let (fl, fc) = lines.position(found.function_at);
            let at = format!("{}:{}", fl + 1, fc + 1);
            Some(match found.scope {
                Scope::Named(parts) => (
                    Some(
                        parts
                            .iter()
                            .map(|r| &src[r.clone()])
                            .collect::<Vec<_>>()
                            .join("."),
                    ),
                    format!("named after its enclosing function in the original source, at {at}"),
                ),
                Scope::Anonymous => (
                    None,
                    format!("its enclosing function in the original source (at {at}) is anonymous"),
                ),
                Scope::TopLevel => (
                    None,
                    "top-level code of the original source (outside any function)".to_owned(),
                ),
            })
        })
        .collect()
}

/// The original name of the identifier at `range` of the bundle.
fn original_name(text: &Lines<'_>, map: &SourceMap, range: std::ops::Range<usize>) -> String {
    let generated = &text.src[range.clone()];
    let (line, col) = text.position(range.start);
    let Ok(Some(token)) = map.lookup(line, col) else {
        return generated.to_owned();
    };
    if token.gen_col() != col {
        return generated.to_owned();
    }
    if let Some(name) = token.name() {
        return name.into_owned();
    }
    let from_source = (|| {
        let source = token.map().source_text(token.source_index()?)?;
        let line = source.line(token.src_line()? as usize)?;
        identifier_at(line, token.src_col()?)
    })();
    from_source.unwrap_or_else(|| generated.to_owned())
}

/// The name a `function` at byte `at` of the bundle is declared with in the original source,
/// when the segment there maps to `function NAME` (or `async function* NAME`).
fn declared_name(text: &Lines<'_>, map: &SourceMap, at: usize) -> Option<String> {
    let here = &text.src[at..];
    if !(here.starts_with("function") || here.starts_with("async function")) {
        return None;
    }
    let (line, col) = text.position(at);
    let token = map.lookup(line, col).ok()??;
    if token.gen_col() != col {
        return None;
    }
    let source = token.map().source_text(token.source_index()?)?;
    let original = source.line(token.src_line()? as usize)?;
    let rest = &original[utf16_col_to_byte(original, token.src_col()?)?..];
    let rest = rest.strip_prefix("async").map_or(rest, str::trim_start);
    let rest = rest.strip_prefix("function")?;
    if !rest.starts_with([' ', '\t', '*']) {
        return None;
    }
    identifier_at(rest.trim_start_matches([' ', '\t', '*']), 0)
}

/// The identifier at UTF-16 column `col` of `line`, past any keywords that introduce it
/// (`class Box3` → `Box3`, `async function load` → `load`).
fn identifier_at(line: &str, col: u32) -> Option<String> {
    let mut rest = &line[utf16_col_to_byte(line, col)?..];
    loop {
        let len: usize = rest
            .chars()
            .take_while(|&c| is_ident(c) || c == '#')
            .map(char::len_utf8)
            .sum();
        let word = &rest[..len];
        if word.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        if !matches!(
            word,
            "class"
                | "function"
                | "async"
                | "static"
                | "get"
                | "set"
                | "export"
                | "default"
                | "var"
                | "let"
                | "const"
        ) {
            return Some(word.to_owned());
        }
        rest = rest[len..].trim_start_matches(|c: char| c.is_whitespace() || c == '*');
    }
}

/// A bundle's line starts, for converting between byte offsets and (line, UTF-16 column).
struct Lines<'a> {
    src: &'a str,
    starts: Vec<usize>,
    /// Every byte ASCII: columns are byte counts.
    ascii: bool,
}

impl<'a> Lines<'a> {
    fn new(src: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', src.as_bytes()).map(|p| p + 1));
        let ascii = src.is_ascii();
        Self { src, starts, ascii }
    }

    /// Not minified: lines of ordinary length.
    fn unminified(&self) -> bool {
        self.src.len() / self.starts.len() < 200
    }

    fn line(&self, l: usize) -> &'a str {
        let start = self.starts[l];
        let end = self.starts.get(l + 1).map_or(self.src.len(), |&e| e - 1);
        &self.src[start..end]
    }

    /// The byte offset of 0-based `line`, UTF-16 `col`.
    fn offset(&self, line: u32, col: u32) -> Option<usize> {
        let l = line as usize;
        if l >= self.starts.len() {
            return None;
        }
        let text = self.line(l);
        let byte = if self.ascii {
            (col as usize <= text.len()).then_some(col as usize)?
        } else {
            utf16_col_to_byte(text, col)?
        };
        Some(self.starts[l] + byte)
    }

    /// [`Self::offset`], a column at or past its line's end (printers that count one past
    /// the line) taken as the line's last character: the scope that holds the line's end.
    fn offset_in_line(&self, line: u32, col: u32) -> Option<usize> {
        let l = line as usize;
        if l >= self.starts.len() {
            return None;
        }
        let text = self.line(l).trim_end_matches('\r');
        let last = text
            .char_indices()
            .next_back()
            .map(|(i, _)| self.starts[l] + i);
        match self.offset(line, col) {
            Some(at) if at < self.starts[l] + text.len() => Some(at),
            _ => last,
        }
    }

    /// The 0-based line and UTF-16 column of byte `offset`.
    fn position(&self, offset: usize) -> (u32, u32) {
        let l = self.starts.partition_point(|&s| s <= offset) - 1;
        let before = &self.src.as_bytes()[self.starts[l]..offset];
        let col = if self.ascii {
            before.len()
        } else {
            utf16_len(before)
        };
        (l as u32, col as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_past_keywords() {
        assert_eq!(identifier_at("class Box3 {", 0).as_deref(), Some("Box3"));
        assert_eq!(
            identifier_at("  async function* load(", 2).as_deref(),
            Some("load")
        );
        assert_eq!(identifier_at("x = y", 4).as_deref(), Some("y"));
        assert_eq!(identifier_at("x = 1", 4), None);
        assert_eq!(identifier_at("short", 99), None);
    }

    #[test]
    fn offsets_and_positions() {
        let t = Lines::new("ab\n\u{e9}\u{1F600}x\ny");
        assert_eq!(t.offset(1, 3), Some(3 + 2 + 4));
        assert_eq!(t.position(3 + 2 + 4), (1, 3));
        assert_eq!(t.offset(2, 0), Some(t.src.len() - 1));
        assert_eq!(t.offset(3, 0), None);
        assert_eq!(t.position(1), (0, 1));
        // An ASCII file: columns are bytes, a column past its line's end is refused.
        let t = Lines::new("abc\nde\n");
        assert!(t.ascii);
        assert_eq!((t.offset(1, 2), t.offset(1, 3)), (Some(6), None));
        assert_eq!(t.position(5), (1, 1));
        // A column at or past the line's end: its last character.
        assert_eq!(t.offset_in_line(1, 1), Some(5));
        assert_eq!(
            (t.offset_in_line(1, 2), t.offset_in_line(1, 9)),
            (Some(5), Some(5))
        );
        assert_eq!(
            (t.offset_in_line(2, 0), t.offset_in_line(3, 0)),
            (None, None)
        );
        let t = Lines::new("ab\r\n\u{e9}x");
        assert_eq!(t.offset_in_line(0, 5), Some(1));
        assert_eq!(t.offset_in_line(1, 7), Some(4 + 2));
    }
}
