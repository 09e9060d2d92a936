//! The set of symbol files a log is resolved against, and how a frame's file or URL (query
//! and fragment ignored) finds its map, strongest first: the bundle's `//# debugId=` against
//! the map's `debugId`; the bundle's `//# sourceMappingURL=`; the map's file name (`X.map`,
//! `X.js` → `X.map`, `X.*.map`) or its `file` field. A map whose only sources are other
//! bundles here (hermesc's map) is used only chained with the map of that bundle (Metro's);
//! a map that reaches original sources wins. When several maps still fit, the choice is a
//! warning.

use crate::model::Blob;
use crate::symbols::native::{NativeSymbols, WasmModule, is_wasm};
use crate::symbols::proguard::Mapping;
use crate::symbols::sourcemap::{SourceMap, Violation, validate};
use std::sync::Arc;

/// A loaded source map with the name it is known by.
#[derive(Clone, Debug)]
pub struct MapFile {
    /// File name (`three.min.js.map`).
    pub name: String,
    /// Path as given by the user (for messages).
    pub path: String,
    /// The parsed map.
    pub map: Arc<SourceMap>,
    /// Basenames of the map's sources (to recognise maps of generated files, like hermesc's).
    source_basenames: Vec<String>,
    /// Milliseconds spent parsing and indexing.
    pub parse_ms: f64,
    /// The rules of the spec the map breaks while staying usable (said in the warnings).
    pub violations: Vec<Violation>,
}

/// A loaded ProGuard/R8 mapping with the name it is known by.
#[derive(Clone, Debug)]
pub struct MappingFile {
    /// File name (`mapping.txt`).
    pub name: String,
    /// Path as given by the user (for messages).
    pub path: String,
    /// The indexed mapping.
    pub mapping: Arc<Mapping>,
    /// Milliseconds spent scanning for class lines.
    pub parse_ms: f64,
}

/// A native debug file converted to a SymCache, with the name it is known by.
#[derive(Clone, Debug)]
pub struct NativeFile {
    /// File name (`crashy.debug`).
    pub name: String,
    /// Path as given by the user (for messages).
    pub path: String,
    /// The converted symbols.
    pub symbols: Arc<NativeSymbols>,
    /// Milliseconds spent converting.
    pub parse_ms: f64,
    /// A WebAssembly module's layout (function bodies, name section, where its debug
    /// information is), read from its bytes.
    pub wasm: Option<Arc<WasmModule>>,
}

/// A generated JavaScript file (bundle) and the map it declares.
#[derive(Clone, Debug)]
pub struct BundleFile {
    /// File name (`three.min.js`).
    pub name: String,
    /// The `//# sourceMappingURL=` value, if any.
    pub source_mapping_url: Option<String>,
    /// The `//# debugId=` value, if any.
    pub debug_id: Option<String>,
    /// Its text, for naming frames after their enclosing function (`None`: not kept).
    pub bytes: Option<Blob>,
}

impl MapFile {
    /// A map loaded from `path` (its file name is the name it is known by), which took
    /// `parse_ms` to parse and index.
    pub fn new(path: &str, map: Arc<SourceMap>, parse_ms: f64) -> Self {
        let source_basenames = map
            .source_names()
            .iter()
            .map(|s| basename(s).to_owned())
            .collect();
        Self {
            name: basename(path).to_owned(),
            path: path.to_owned(),
            violations: validate(&map),
            map,
            source_basenames,
            parse_ms,
        }
    }
}

impl MappingFile {
    /// A mapping loaded from `path`, which took `parse_ms` to index.
    pub fn new(path: &str, mapping: Arc<Mapping>, parse_ms: f64) -> Self {
        Self {
            name: basename(path).to_owned(),
            path: path.to_owned(),
            mapping,
            parse_ms,
        }
    }
}

impl NativeFile {
    /// A native file loaded from `path`, which took `parse_ms` to convert.
    pub fn new(path: &str, symbols: Arc<NativeSymbols>, parse_ms: f64) -> Self {
        Self {
            name: basename(path).to_owned(),
            path: path.to_owned(),
            symbols,
            parse_ms,
            wasm: None,
        }
    }

    /// The file with its WebAssembly layout read from `bytes`, when they are a module.
    pub fn with_wasm(mut self, bytes: &[u8]) -> Self {
        self.wasm = is_wasm(bytes)
            .then(|| WasmModule::parse(bytes).ok())
            .flatten()
            .map(Arc::new);
        self
    }
}

/// Symbol files for one symbolication: source maps and the bundles that name them.
#[derive(Debug, Default)]
pub struct SymbolSet {
    /// Source maps.
    pub maps: Vec<MapFile>,
    /// Bundles (their `sourceMappingURL` / `debugId` comments).
    pub bundles: Vec<BundleFile>,
    /// ProGuard/R8 mappings.
    pub mappings: Vec<MappingFile>,
    /// Native debug files.
    pub natives: Vec<NativeFile>,
    /// What the original sources say about the functions enclosing positions asked before,
    /// kept for every later run against this set (a folder of logs asks about the same few
    /// positions thousands of times).
    pub(super) original_scopes: super::scope_names::OriginalScopeCache,
}

/// How a frame's file was matched to a map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolver {
    /// Look up in one map.
    Map(usize),
    /// Look up in the first map (hermesc's), then the result in the second (Metro's).
    Chain(usize, usize),
}

/// A match for one frame file, with any warning about how it was chosen.
#[derive(Clone, Debug)]
pub struct Match {
    /// The map(s) to use.
    pub resolver: Resolver,
    /// Why this choice is uncertain, if it is.
    pub warning: Option<String>,
}

/// The last path component of a file name or URL, without query or fragment.
pub fn basename(file: &str) -> &str {
    let file = file.split(['?', '#']).next().unwrap_or(file);
    let file = file.trim_end_matches('/');
    file.rsplit(['/', '\\']).next().unwrap_or(file)
}

fn js_stem(name: &str) -> Option<&str> {
    [".js", ".mjs", ".cjs", ".jsbundle"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
}

impl SymbolSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The Breakpad call-frame information of the native files, by debug ID (what a
    /// minidump's stacks are walked with).
    pub fn cfi(&self) -> std::collections::HashMap<String, String> {
        self.natives
            .iter()
            .flat_map(|f| f.symbols.objects())
            .filter_map(|o| Some((o.info().debug_id.clone(), o.cfi()?.to_owned())))
            .collect()
    }

    /// Whether map `i` is a map of a generated file rather than of original sources: all its
    /// sources are bundles known here (hermesc's map, whose only source is Metro's bundle).
    fn is_intermediate(&self, i: usize) -> bool {
        let Some(m) = self.maps.get(i) else {
            return false;
        };
        !m.source_basenames.is_empty()
            && m.source_basenames
                .iter()
                .all(|s| self.names_generated_file(s))
    }

    /// Whether `name` is a generated file that one of our maps (or bundles) describes.
    fn names_generated_file(&self, name: &str) -> bool {
        self.bundles.iter().any(|b| b.name == name)
            || self.map_candidates_by_name(name).next().is_some()
    }

    fn map_candidates_by_name<'a>(&'a self, file: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.maps.iter().enumerate().filter_map(move |(i, m)| {
            let by_name = m.name == format!("{file}.map")
                || js_stem(file).is_some_and(|stem| m.name == format!("{stem}.map"))
                || (m.name.starts_with(&format!("{file}.")) && m.name.ends_with(".map"));
            let by_field = m.map.file().is_some_and(|f| basename(f) == file);
            (by_name || by_field).then_some(i)
        })
    }

    /// Finds the map for a frame's file name or URL.
    pub fn find(&self, frame_file: &str) -> Option<Match> {
        let file = basename(frame_file);
        if file.is_empty() {
            return None;
        }
        // 1. The bundle is here and names its map by debug ID or sourceMappingURL.
        if let Some(bundle) = self.bundles.iter().find(|b| b.name == file) {
            if let Some(id) = &bundle.debug_id
                && let Some(i) = self
                    .maps
                    .iter()
                    .position(|m| m.map.debug_id().is_some_and(|d| d.eq_ignore_ascii_case(id)))
            {
                return Some(self.reach_originals(i, None));
            }
            if let Some(url) = &bundle.source_mapping_url
                && !url.starts_with("data:")
                && let Some(i) = self.maps.iter().position(|m| m.name == basename(url))
            {
                return Some(self.reach_originals(i, None));
            }
        }
        // 2. By file name and the map's `file` field.
        let candidates: Vec<usize> = self.map_candidates_by_name(file).collect();
        let (originals, intermediates): (Vec<usize>, Vec<usize>) =
            candidates.iter().partition(|&&i| !self.is_intermediate(i));
        if let Some(&first) = originals.first() {
            let warning = (originals.len() > 1).then(|| {
                let names: Vec<&str> = originals
                    .iter()
                    .map(|&i| self.maps[i].name.as_str())
                    .collect();
                format!(
                    "{file}: several source maps match ({}); using {}",
                    names.join(", "),
                    self.maps[first].name
                )
            });
            return Some(Match {
                resolver: Resolver::Map(first),
                warning,
            });
        }
        intermediates
            .first()
            .map(|&i| self.reach_originals(i, None))
    }

    /// The map of `source` (a position's original file, itself generated), other than map
    /// `from`: the next map of a transitive chain (bundle → intermediate → original).
    pub fn map_of_source(&self, source: &str, from: usize) -> Option<usize> {
        let file = basename(source);
        if file.is_empty() || self.maps.len() < 2 {
            return None;
        }
        self.map_candidates_by_name(file).find(|&j| j != from)
    }

    /// Map `i` as it is, or chained with the map of its generated source when it is an
    /// intermediate map (hermesc's) and that map is here.
    fn reach_originals(&self, i: usize, warning: Option<String>) -> Match {
        if self.is_intermediate(i)
            && let Some(src) = self.maps[i].source_basenames.first()
            && let Some(inner) = self
                .map_candidates_by_name(src)
                .find(|&j| j != i && !self.is_intermediate(j))
        {
            return Match {
                resolver: Resolver::Chain(i, inner),
                warning,
            };
        }
        Match {
            resolver: Resolver::Map(i),
            warning,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basenames() {
        assert_eq!(basename("out/three.min.js"), "three.min.js");
        assert_eq!(basename("https://cdn.x.com/a/main.js?v=3#x"), "main.js");
        assert_eq!(basename("webpack://app/./src/x.js"), "x.js");
        assert_eq!(basename("C:\\a\\b.js"), "b.js");
    }
}
