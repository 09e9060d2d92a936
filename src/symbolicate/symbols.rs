//! The set of symbol files a log is resolved against, and how a frame's file finds its map.

use crate::formats::detect::peek;
use crate::model::{Blob, ChunkRunner, FileKind, Serial};
use crate::symbols::native::{NativeError, NativeSymbols};
use crate::symbols::proguard::{Mapping, MappingError};
use crate::symbols::sourcemap::{self, SourceMap};
use std::sync::Arc;
use std::time::Instant;

/// A loaded source map with the name it is known by.
#[derive(Debug)]
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
}

/// A loaded ProGuard/R8 mapping with the name it is known by.
#[derive(Debug)]
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
#[derive(Debug)]
pub struct NativeFile {
    /// File name (`crashy.debug`).
    pub name: String,
    /// Path as given by the user (for messages).
    pub path: String,
    /// The converted symbols.
    pub symbols: Arc<NativeSymbols>,
    /// Milliseconds spent converting.
    pub parse_ms: f64,
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
}

/// Why a symbol file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file is a source map that does not parse.
    #[error("{path}: {source}")]
    BadSourceMap {
        /// The file.
        path: String,
        /// The reader's error.
        source: sourcemap::Error,
    },
    /// The file is a ProGuard/R8 mapping that cannot be used.
    #[error("{path}: {source}")]
    BadMapping {
        /// The file.
        path: String,
        /// What is wrong.
        source: MappingError,
    },
    /// The file is a native debug file that cannot be used.
    #[error("{path}: {source}")]
    BadNative {
        /// The file.
        path: String,
        /// What is wrong.
        source: NativeError,
    },
    /// The bundle's inline map (`sourceMappingURL=data:…`) cannot be read.
    #[error("{path}: inline source map: {problem}")]
    BadInlineMap {
        /// The bundle.
        path: String,
        /// What is wrong.
        problem: String,
    },
    /// The file is not a kind of symbol file Symscope reads.
    #[error("{path}: not a symbol file (detected: {kind})")]
    NotSymbols {
        /// The file.
        path: String,
        /// What it looks like.
        kind: &'static str,
    },
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

    /// Adds a file by its bytes, detecting its kind. Returns the detected kind.
    ///
    /// Source maps are parsed and indexed now; bundles are scanned for their comments.
    pub fn add(&mut self, path: &str, blob: Blob) -> Result<FileKind, LoadError> {
        self.add_with(path, blob, &Serial)
    }

    /// [`Self::add`], with source maps parsed and native files converted through `runner`
    /// (the jobs layer's runs on all cores).
    pub fn add_with(
        &mut self,
        path: &str,
        blob: Blob,
        runner: &dyn ChunkRunner,
    ) -> Result<FileKind, LoadError> {
        let kind = peek(blob.as_slice());
        match kind {
            FileKind::SourceMap => {
                let start = Instant::now();
                let map = SourceMap::parse_with(blob, runner).map_err(|source| {
                    LoadError::BadSourceMap {
                        path: path.to_owned(),
                        source,
                    }
                })?;
                let parse_ms = start.elapsed().as_secs_f64() * 1e3;
                self.add_map(path, map, parse_ms);
            }
            FileKind::JavaScript => {
                let bundle = scan_bundle(path, blob.as_slice());
                if let Some(url) = bundle.source_mapping_url.as_deref()
                    && url.starts_with("data:")
                {
                    // An inline map: it belongs to this bundle, named as if it sat beside it.
                    let start = Instant::now();
                    let json = decode_data_url(url).ok_or_else(|| LoadError::BadInlineMap {
                        path: path.to_owned(),
                        problem: "the data: URL is not base64 or percent-encoded JSON".to_owned(),
                    })?;
                    let map = SourceMap::parse(json).map_err(|e| LoadError::BadInlineMap {
                        path: path.to_owned(),
                        problem: e.to_string(),
                    })?;
                    let parse_ms = start.elapsed().as_secs_f64() * 1e3;
                    self.add_map(&format!("{path}.map"), map, parse_ms);
                }
                self.bundles.push(bundle);
            }
            FileKind::ProguardMapping => {
                let start = Instant::now();
                let mapping = Mapping::parse(blob).map_err(|source| LoadError::BadMapping {
                    path: path.to_owned(),
                    source,
                })?;
                let parse_ms = start.elapsed().as_secs_f64() * 1e3;
                self.add_shared_mapping(path, Arc::new(mapping), parse_ms);
            }
            FileKind::NativeSymbols => {
                let start = Instant::now();
                let native = NativeSymbols::convert_with(blob.as_slice(), None, runner).map_err(
                    |source| LoadError::BadNative {
                        path: path.to_owned(),
                        source,
                    },
                )?;
                let parse_ms = start.elapsed().as_secs_f64() * 1e3;
                self.add_shared_native(path, Arc::new(native), parse_ms);
            }
            FileKind::HermesBytecode => {}
            FileKind::Log | FileKind::Unknown => {
                return Err(LoadError::NotSymbols {
                    path: path.to_owned(),
                    kind: kind.as_str(),
                });
            }
        }
        Ok(kind)
    }

    /// Adds an already parsed map.
    pub fn add_map(&mut self, path: &str, map: SourceMap, parse_ms: f64) {
        self.add_shared_map(path, Arc::new(map), parse_ms);
    }

    /// Adds a parsed map that is shared with others (the app keeps its maps across runs).
    pub fn add_shared_map(&mut self, path: &str, map: Arc<SourceMap>, parse_ms: f64) {
        let source_basenames = map
            .source_names()
            .iter()
            .map(|s| basename(s).to_owned())
            .collect();
        self.maps.push(MapFile {
            name: basename(path).to_owned(),
            path: path.to_owned(),
            map,
            source_basenames,
            parse_ms,
        });
    }

    /// Adds an indexed ProGuard/R8 mapping (shared with the app, which keeps it across runs).
    pub fn add_shared_mapping(&mut self, path: &str, mapping: Arc<Mapping>, parse_ms: f64) {
        self.mappings.push(MappingFile {
            name: basename(path).to_owned(),
            path: path.to_owned(),
            mapping,
            parse_ms,
        });
    }

    /// Adds a converted native debug file (shared with the app, which keeps it).
    /// The Breakpad call-frame information of the native files, by debug ID (what a
    /// minidump's stacks are walked with).
    pub fn cfi(&self) -> std::collections::HashMap<String, String> {
        self.natives
            .iter()
            .flat_map(|f| f.symbols.objects())
            .filter_map(|o| Some((o.info().debug_id.clone(), o.cfi()?.to_owned())))
            .collect()
    }

    /// Adds a converted native file, shared (the app keeps it too).
    pub fn add_shared_native(&mut self, path: &str, symbols: Arc<NativeSymbols>, parse_ms: f64) {
        self.natives.push(NativeFile {
            name: basename(path).to_owned(),
            path: path.to_owned(),
            symbols,
            parse_ms,
        });
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

/// Reads the `//# sourceMappingURL=` and `//# debugId=` comments of a bundle (the last of
/// each, as browsers do; an inline `data:` URL may be megabytes long).
pub fn scan_bundle(path: &str, bytes: &[u8]) -> BundleFile {
    let comment = |key: &[u8]| -> Option<String> {
        let mut end = bytes.len();
        while let Some(at) = memchr::memmem::rfind(&bytes[..end], key) {
            let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |p| p + 1);
            let lead = bytes[line_start..at].trim_ascii();
            if lead == b"//#" || lead == b"//@" {
                let rest = &bytes[at + key.len()..];
                let value_end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
                let value = String::from_utf8_lossy(rest[..value_end].trim_ascii()).into_owned();
                return (!value.is_empty()).then_some(value);
            }
            end = at;
        }
        None
    };
    BundleFile {
        name: basename(path).to_owned(),
        source_mapping_url: comment(b"sourceMappingURL="),
        debug_id: comment(b"debugId="),
    }
}

/// Decodes a `data:` URL's payload: `data:application/json;base64,…` or percent-encoded.
pub fn decode_data_url(url: &str) -> Option<Vec<u8>> {
    let rest = url.strip_prefix("data:")?;
    let (meta, payload) = rest.split_once(',')?;
    if meta.split(';').any(|p| p.eq_ignore_ascii_case("base64")) {
        decode_base64(payload.trim())
    } else {
        percent_decode(payload)
    }
}

fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let digits: Vec<u8> = s
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for group in digits.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in group.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        match group.len() {
            4 => out.extend_from_slice(&bytes[1..4]),
            3 => out.extend_from_slice(&bytes[1..3]),
            2 => out.push(bytes[1]),
            _ => return None,
        }
    }
    Some(out)
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
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

    #[test]
    fn data_urls() {
        assert_eq!(
            decode_data_url("data:application/json;base64,eyJhIjoxfQ==").unwrap(),
            br#"{"a":1}"#
        );
        assert_eq!(
            decode_data_url("data:application/json;charset=utf-8;base64,eyJhIjoxfQ").unwrap(),
            br#"{"a":1}"#
        );
        assert_eq!(
            decode_data_url("data:application/json,%7B%22a%22%3A1%7D").unwrap(),
            br#"{"a":1}"#
        );
        assert_eq!(decode_data_url("data:application/json;base64,e!"), None);
        assert_eq!(decode_data_url("http://x/a.map"), None);
    }

    #[test]
    fn bundle_comments() {
        let b = scan_bundle("dist/a.js", b"x()\n//# debugId=85314830-023f-4cf1-a267-535f4e37bb17\n//# sourceMappingURL=a.js.map\n");
        assert_eq!(b.source_mapping_url.as_deref(), Some("a.js.map"));
        assert_eq!(
            b.debug_id.as_deref(),
            Some("85314830-023f-4cf1-a267-535f4e37bb17")
        );
        assert_eq!(b.name, "a.js");
    }
}
