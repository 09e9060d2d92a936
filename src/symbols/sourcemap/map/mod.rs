//! The source map: JSON read lazily, `mappings` indexed per line, look-ups decoding one block.

use super::error::{Error, ErrorKind, Result};
use super::function_map::FacebookSources;
use super::index::{
    ChunkIndex, LineIndex, NONE, RawSegment, index_chunk, index_chunk_unchecked,
    split_chunks_with_head,
};
use super::json::{Scanner, StrRef};
use super::paths::join_source_root;
use crate::model::{Blob, ChunkRunner, Serial, SourceText};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use grown::GrownIndex;

/// Indexes `ranges` of `mappings` through `runner`; `counts` are the map's source and name
/// counts, or `None` while they are not known yet (then [`LineIndex::stitch`] checks them).
fn run_chunks(
    runner: &dyn ChunkRunner,
    mappings: &[u8],
    ranges: &[Range<usize>],
    counts: Option<(usize, usize)>,
) -> Vec<ChunkIndex> {
    let index = |r: Range<usize>| match counts {
        Some((s, n)) => index_chunk(mappings, r, s, n),
        None => index_chunk_unchecked(mappings, r),
    };
    if ranges.len() <= 1 {
        return ranges.iter().cloned().map(index).collect();
    }
    let cells: Vec<OnceLock<ChunkIndex>> = ranges.iter().map(|_| OnceLock::new()).collect();
    runner.for_each(ranges.len(), &|i| {
        if let (Some(cell), Some(r)) = (cells.get(i), ranges.get(i)) {
            cell.set(index(r.clone())).ok();
        }
    });
    cells
        .into_iter()
        .zip(ranges)
        .map(|(cell, r)| cell.into_inner().unwrap_or_else(|| index(r.clone())))
        .collect()
}

/// Where the top-level `mappings` string probably is, found without reading the JSON: the
/// key `"mappings"` with an unescaped quote (inside a JSON string every quote is escaped, so
/// the bytes can only be a key or an array element) followed by `:` and a string without
/// escapes. Used to index `mappings` while the rest is read; the read confirms it.
fn locate_mappings(bytes: &[u8], range: Range<usize>) -> Option<Range<usize>> {
    let hay = bytes.get(range.clone())?;
    let key = b"\"mappings\"";
    // The forward search is SIMD-accelerated: even past a large `sourcesContent` (esbuild
    // and terser write `mappings` after it) it is a fraction of the JSON read it overlaps.
    let at = memchr::memmem::find(hay, key)?;
    let slashes = hay[..at].iter().rev().take_while(|&&b| b == b'\\').count();
    if slashes % 2 == 1 {
        return None;
    }
    let mut p = at + key.len();
    let skip_ws = |p: &mut usize| {
        while hay.get(*p).is_some_and(|b| b.is_ascii_whitespace()) {
            *p += 1;
        }
    };
    skip_ws(&mut p);
    if hay.get(p) != Some(&b':') {
        return None;
    }
    p += 1;
    skip_ws(&mut p);
    if hay.get(p) != Some(&b'"') {
        return None;
    }
    let start = p + 1;
    let end = start + memchr::memchr2(b'"', b'\\', hay.get(start..)?)?;
    (hay.get(end) == Some(&b'"')).then(|| range.start + start..range.start + end)
}

/// Percent of `mappings` in the first chunk when indexing on several cores: the first chunk
/// skips the bookkeeping of the others (see `split_chunks_with_head`). Measured with the
/// source-map benchmark on 2 cores: 40–50 beat equal chunks; 70 leaves the other core idle at
/// the end.
const HEAD_SHARE: usize = 50;

/// Below this many bytes of `mappings`, indexing while the JSON is read is not worth it.
const SPECULATE_MIN: usize = 64 * 1024;

/// A parsed source map: a regular map or an index map with sections.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "the regular map is the common case; boxing it would add a pointer chase to every look-up"
)]
pub enum SourceMap {
    /// A map with `mappings`.
    Regular(RegularMap),
    /// An index map (`sections`), each section parsed and indexed on first touch.
    Index(IndexMap),
}

/// Where `mappings` lives.
#[derive(Debug)]
enum Mappings {
    /// A byte range of the blob (the usual case: `mappings` has no escapes).
    InBlob(Range<usize>),
    /// Decoded copy, for the rare map whose `mappings` string holds JSON escapes.
    Owned(Vec<u8>),
}

/// A process-wide id per parsed map, the key of the per-thread block cache.
static NEXT_MAP_ID: AtomicU64 = AtomicU64::new(1);

/// A regular (non-index) source map.
pub struct RegularMap {
    blob: Blob,
    file: Option<String>,
    source_root: Option<String>,
    sources: Vec<Option<StrRef>>,
    sources_content: Vec<Option<StrRef>>,
    names: Vec<Option<StrRef>>,
    mappings: Mappings,
    index: GrownIndex,
    ignore_list: Vec<u32>,
    debug_id: Option<String>,
    facebook_sources: Option<Range<usize>>,
    facebook_parsed: OnceLock<Option<FacebookSources>>,
    hermes_offsets: Option<Range<usize>>,
    hermes_parsed: OnceLock<Option<BTreeMap<u32, Vec<u32>>>>,
    /// `sourcesContent` entries decoded with their line starts, each when first asked for
    /// (every log symbolicated against the map reads the same few).
    source_texts: Vec<OnceLock<Option<Arc<SourceText>>>>,
    /// Short lines and long lines' blocks decoded for every thread once looked up twice (see
    /// `lookup`).
    shared_lines: lookup::SharedLines,
    id: u64,
}

impl std::fmt::Debug for RegularMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegularMap")
            .field("file", &self.file)
            .field("sources", &self.sources.len())
            .field("names", &self.names.len())
            .field("index", &self.index)
            .finish()
    }
}

/// One section of an index map.
#[derive(Debug)]
pub struct Section {
    /// 0-based generated line where the section starts.
    pub line: u32,
    /// 0-based generated column where the section starts (on its first line only).
    pub column: u32,
    raw: Range<usize>,
    parsed: OnceLock<std::result::Result<Box<SourceMap>, Error>>,
}

/// An index map: sections of other maps at generated offsets.
#[derive(Debug)]
pub struct IndexMap {
    blob: Blob,
    file: Option<String>,
    sections: Vec<Section>,
}

/// A look-up result: one segment of a regular map, with the map it came from.
#[derive(Clone, Copy, Debug)]
pub struct Token<'a> {
    map: &'a RegularMap,
    /// 0-based generated line (in the map's own coordinates).
    pub gen_line: u32,
    /// The segment.
    pub segment: RawSegment,
}

impl<'a> Token<'a> {
    /// The regular map (or index-map section) that holds the segment.
    pub fn map(&self) -> &'a RegularMap {
        self.map
    }

    /// 0-based generated column of the segment.
    pub fn gen_col(&self) -> u32 {
        self.segment.gen_col
    }

    /// Whether the segment maps to an original position.
    pub fn has_source(&self) -> bool {
        self.segment.has_source()
    }

    /// Index into the map's `sources`.
    pub fn source_index(&self) -> Option<u32> {
        self.segment.has_source().then_some(self.segment.source)
    }

    /// The `sources` entry as written in the map.
    pub fn source(&self) -> Option<Cow<'a, str>> {
        self.map.source(self.source_index()?)
    }

    /// The source path with `sourceRoot` applied.
    pub fn source_path(&self) -> Option<String> {
        self.map.source_path(self.source_index()?)
    }

    /// 0-based original line.
    pub fn src_line(&self) -> Option<u32> {
        self.segment.has_source().then_some(self.segment.src_line)
    }

    /// 0-based original column.
    pub fn src_col(&self) -> Option<u32> {
        self.segment.has_source().then_some(self.segment.src_col)
    }

    /// The name at this position (from `names`), if the segment has one.
    pub fn name(&self) -> Option<Cow<'a, str>> {
        if self.segment.name == NONE {
            return None;
        }
        self.map.name(self.segment.name)
    }

    /// Whether the source is on the map's ignore list.
    pub fn is_ignored(&self) -> bool {
        self.source_index().is_some_and(|i| self.map.is_ignored(i))
    }

    /// The enclosing function's name from the Metro function map (`x_facebook_sources`).
    pub fn function_map_name(&self) -> Option<String> {
        let src = self.source_index()?;
        self.map
            .function_name_at(src, self.segment.src_line, self.segment.src_col)
    }
}

/// Skips a UTF-8 BOM and the `)]}'` anti-XSSI prefix some servers put before maps.
fn body_start(bytes: &[u8]) -> usize {
    let mut pos = 0;
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        pos = 3;
    }
    if bytes[pos..].starts_with(b")]}'") {
        pos += 4;
        if let Some(nl) = memchr::memchr(b'\n', &bytes[pos..]) {
            pos += nl + 1;
        }
    }
    pos
}

impl SourceMap {
    /// Parses a source map, indexing `mappings` on this thread.
    pub fn parse(blob: impl Into<Blob>) -> Result<Self> {
        Self::parse_with(blob.into(), &Serial)
    }

    /// Parses a source map, indexing `mappings` through `runner` (e.g. on all cores).
    pub fn parse_with(blob: Blob, runner: &dyn ChunkRunner) -> Result<Self> {
        let start = body_start(blob.as_slice());
        let end = blob.len();
        Self::parse_range(blob, start..end, runner, true, None)
    }

    /// Parses a source map's JSON only: `mappings` is indexed from its start as far as the
    /// lines looked up, through `runner`, when they are first looked up.
    ///
    /// Only the part of `mappings` indexed is validated: a fault in it is the error of the
    /// look-ups that need it (and of [`RegularMap::index`]); a fault after the last line
    /// looked up is never seen. [`Self::parse_with`] validates the whole map at once.
    pub fn parse_lazy(blob: impl Into<Blob>, runner: &'static dyn ChunkRunner) -> Result<Self> {
        let blob = blob.into();
        let start = body_start(blob.as_slice());
        let end = blob.len();
        Self::parse_range(blob, start..end, runner, true, Some(runner))
    }

    fn parse_range(
        blob: Blob,
        range: Range<usize>,
        runner: &dyn ChunkRunner,
        top: bool,
        lazy: Option<&'static dyn ChunkRunner>,
    ) -> Result<Self> {
        let bytes = blob.as_slice();
        let scan = || -> Result<RawFields> {
            let mut s = Scanner::new(bytes, range.start);
            let mut raw = RawFields::default();
            s.object(|s, key| raw.read(s, key))?;
            if top {
                s.end()?;
            } else if s.pos() > range.end {
                return Err(Error::at(ErrorKind::BadJson, range.end));
            }
            Ok(raw)
        };
        // With several cores, index where `mappings` probably is while the JSON is read.
        let guess = (top && lazy.is_none() && runner.chunks_for(bytes.len()) > 1)
            .then(|| locate_mappings(bytes, range.clone()))
            .flatten()
            .filter(|g| g.len() >= SPECULATE_MIN);
        let (raw, early) = match guess {
            None => (scan()?, None),
            Some(g) => {
                let m = &bytes[g.clone()];
                let ranges = split_chunks_with_head(m, runner.chunks_for(m.len()), HEAD_SHARE);
                let fields: OnceLock<Result<RawFields>> = OnceLock::new();
                let cells: Vec<OnceLock<ChunkIndex>> =
                    ranges.iter().map(|_| OnceLock::new()).collect();
                runner.for_each(ranges.len() + 1, &|i| {
                    if i == 0 {
                        fields.set(scan()).ok();
                    } else if let (Some(cell), Some(r)) = (cells.get(i - 1), ranges.get(i - 1)) {
                        cell.set(index_chunk_unchecked(m, r.clone())).ok();
                    }
                });
                let raw = fields.into_inner().unwrap_or_else(scan)?;
                let chunks: Vec<ChunkIndex> = cells
                    .into_iter()
                    .zip(&ranges)
                    .map(|(c, r)| {
                        c.into_inner()
                            .unwrap_or_else(|| index_chunk_unchecked(m, r.clone()))
                    })
                    .collect();
                (raw, Some((g, chunks)))
            }
        };
        match raw.version {
            Some(v) if v != 3.0 => {
                return Err(
                    Error::new(ErrorKind::UnsupportedVersion).with_detail(format!("version {v}"))
                );
            }
            None => {
                return Err(Error::new(ErrorKind::UnsupportedVersion)
                    .with_detail("no `version` field (it must be 3)".to_owned()));
            }
            Some(_) => {}
        }
        if let Some(sections) = raw.sections {
            if raw.mappings.is_some() {
                return Err(Error::new(ErrorKind::BadSection)
                    .with_detail("an index map has `sections`, not `mappings` too".to_owned()));
            }
            return Ok(Self::Index(IndexMap {
                blob,
                file: raw.file,
                sections,
            }));
        }
        let Some(mappings_ref) = raw.mappings else {
            return Err(Error::new(ErrorKind::NotASourceMap));
        };
        let Some(sources) = raw.sources else {
            return Err(Error::new(ErrorKind::MissingField).with_detail("`sources`".to_owned()));
        };
        let names = raw.names.unwrap_or_default();
        let mappings = if mappings_ref.escaped {
            let decoded = mappings_ref
                .decode_strict_bytes(bytes)
                .ok_or_else(|| Error::at(ErrorKind::BadJson, mappings_ref.start as usize))?;
            Mappings::Owned(decoded)
        } else {
            Mappings::InBlob(mappings_ref.range())
        };
        let m: &[u8] = match &mappings {
            Mappings::InBlob(r) => &bytes[r.clone()],
            Mappings::Owned(v) => v,
        };
        let index = match lazy {
            Some(runner) => GrownIndex::lazy(runner, sources.len(), names.len()),
            None => {
                let chunks = match early {
                    // The guess was right: the chunks indexed during the read are this map's.
                    Some((g, chunks)) if matches!(&mappings, Mappings::InBlob(r) if *r == g) => {
                        chunks
                    }
                    _ => {
                        let ranges =
                            split_chunks_with_head(m, runner.chunks_for(m.len()), HEAD_SHARE);
                        run_chunks(runner, m, &ranges, Some((sources.len(), names.len())))
                    }
                };
                GrownIndex::whole(LineIndex::stitch(chunks, m, sources.len(), names.len())?)
            }
        };
        let sources_content = raw.sources_content.unwrap_or_default();
        Ok(Self::Regular(RegularMap {
            blob: blob.clone(),
            file: raw.file,
            source_root: raw.source_root,
            sources,
            source_texts: sources_content.iter().map(|_| OnceLock::new()).collect(),
            sources_content,
            names,
            mappings,
            index,
            ignore_list: raw.ignore_list.unwrap_or_default(),
            debug_id: raw.debug_id,
            facebook_sources: raw.facebook_sources,
            facebook_parsed: OnceLock::new(),
            hermes_offsets: raw.hermes_offsets,
            hermes_parsed: OnceLock::new(),
            shared_lines: lookup::SharedLines::default(),
            id: NEXT_MAP_ID.fetch_add(1, Ordering::Relaxed),
        }))
    }

    /// The map's `file` field.
    pub fn file(&self) -> Option<&str> {
        match self {
            Self::Regular(m) => m.file.as_deref(),
            Self::Index(m) => m.file.as_deref(),
        }
    }

    /// The map's debug ID (`debugId` or `debug_id`), if any.
    pub fn debug_id(&self) -> Option<&str> {
        match self {
            Self::Regular(m) => m.debug_id.as_deref(),
            Self::Index(_) => None,
        }
    }

    /// Looks up a generated position (0-based line and UTF-16 column).
    ///
    /// Returns the segment with the greatest generated column ≤ `col` on that same line, as
    /// `@jridgewell/trace-mapping`'s `originalPositionFor` does, ties included: on an exact
    /// match the first of the segments with that column, otherwise the last before `col`. `Ok(None)` when the line has no such segment. Only an
    /// index map can fail here, when a section touched for the first time is broken.
    #[inline]
    pub fn lookup(&self, line: u32, col: u32) -> Result<Option<Token<'_>>> {
        match self {
            Self::Regular(m) => m.lookup(line, col),
            Self::Index(m) => m.lookup(line, col),
        }
    }

    /// The regular maps this map consists of (itself, or every section that parses).
    pub fn regular_maps(&self) -> Vec<&RegularMap> {
        match self {
            Self::Regular(m) => vec![m],
            Self::Index(ix) => ix
                .sections
                .iter()
                .filter_map(|s| ix.section_map(s).ok())
                .flat_map(|m| m.regular_maps())
                .collect(),
        }
    }

    /// How many `sources` the map has (its sections' together), without decoding them.
    pub fn source_count(&self) -> usize {
        self.regular_maps().iter().map(|m| m.source_count()).sum()
    }

    /// The `sources` entries of the map (and of its sections that parse), as written.
    pub fn source_names(&self) -> Vec<String> {
        self.regular_maps()
            .into_iter()
            .flat_map(|m| {
                (0..m.sources.len() as u32).filter_map(|i| m.source(i).map(Cow::into_owned))
            })
            .collect()
    }
}

#[derive(Default)]
struct RawFields {
    version: Option<f64>,
    file: Option<String>,
    source_root: Option<String>,
    sources: Option<Vec<Option<StrRef>>>,
    sources_content: Option<Vec<Option<StrRef>>>,
    names: Option<Vec<Option<StrRef>>>,
    mappings: Option<StrRef>,
    sections: Option<Vec<Section>>,
    ignore_list: Option<Vec<u32>>,
    debug_id: Option<String>,
    facebook_sources: Option<Range<usize>>,
    hermes_offsets: Option<Range<usize>>,
}

impl RawFields {
    fn read(&mut self, s: &mut Scanner<'_>, key: &str) -> Result<()> {
        match key {
            "version" => {
                if !s.null()? {
                    self.version = Some(s.number()?);
                }
            }
            "file" => self.file = opt_string(s)?,
            "sourceRoot" => self.source_root = opt_string(s)?,
            "sources" => self.sources = Some(s.string_array()?),
            // `null` as no contents (emscripten's wasm-sourcemap.py writes it; `source-map`
            // reads it so).
            "sourcesContent" => {
                if !s.null()? {
                    self.sources_content = Some(s.string_array()?);
                }
            }
            "names" => self.names = Some(s.string_array()?),
            "mappings" => self.mappings = Some(s.string()?),
            "sections" => self.sections = Some(read_sections(s)?),
            "ignoreList" => self.ignore_list = Some(s.u32_array()?),
            "x_google_ignoreList" => {
                let list = s.u32_array()?;
                self.ignore_list.get_or_insert(list);
            }
            "debugId" | "debug_id" => self.debug_id = opt_string(s)?,
            "x_facebook_sources" => self.facebook_sources = Some(s.skip_value()?),
            "x_hermes_function_offsets" => self.hermes_offsets = Some(s.skip_value()?),
            _ => {
                s.skip_value()?;
            }
        }
        Ok(())
    }
}

fn opt_string(s: &mut Scanner<'_>) -> Result<Option<String>> {
    if s.null()? {
        Ok(None)
    } else {
        s.string_value().map(Some)
    }
}

fn read_sections(s: &mut Scanner<'_>) -> Result<Vec<Section>> {
    let mut out: Vec<Section> = Vec::new();
    s.array(|s| {
        let at = s.pos();
        let mut offset = None;
        let mut map = None;
        let mut url = false;
        s.object(|s, key| {
            match key {
                "offset" => {
                    let (mut line, mut column) = (None, None);
                    s.object(|s, k| {
                        match k {
                            "line" => line = Some(s.number()?),
                            "column" => column = Some(s.number()?),
                            _ => {
                                s.skip_value()?;
                            }
                        }
                        Ok(())
                    })?;
                    offset = line.zip(column);
                }
                "map" => map = Some(s.skip_value()?),
                "url" => {
                    url = true;
                    s.skip_value()?;
                }
                _ => {
                    s.skip_value()?;
                }
            }
            Ok(())
        })?;
        let bad = |d: &str| Error::at(ErrorKind::BadSection, at).with_detail(d.to_owned());
        let Some((line, column)) = offset else {
            return Err(bad("section without `offset`"));
        };
        let Some(raw) = map else {
            return Err(bad(if url {
                "`url` sections are not supported"
            } else {
                "section without `map`"
            }));
        };
        if line < 0.0 || column < 0.0 || line > f64::from(u32::MAX) || column > f64::from(u32::MAX)
        {
            return Err(bad("negative or huge section offset"));
        }
        let (line, column) = (line as u32, column as u32);
        if s.bytes().get(raw.start) != Some(&b'{') {
            return Err(bad("a section's `map` is not an object"));
        }
        match out.last() {
            Some(p) if (p.line, p.column) > (line, column) => {
                return Err(bad("sections are not in order"));
            }
            Some(p) if (p.line, p.column) == (line, column) => {
                return Err(bad(
                    "two sections start at the same offset (sections overlap)",
                ));
            }
            _ => {}
        }
        out.push(Section {
            line,
            column,
            raw,
            parsed: OnceLock::new(),
        });
        Ok(())
    })?;
    Ok(out)
}

impl IndexMap {
    /// The sections, in order.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The parsed map of a section (parsed and indexed on first call).
    pub fn section_map<'a>(&'a self, section: &'a Section) -> Result<&'a SourceMap> {
        section
            .parsed
            .get_or_init(|| {
                SourceMap::parse_range(self.blob.clone(), section.raw.clone(), &Serial, false, None)
                    .map(Box::new)
            })
            .as_deref()
            .map_err(Clone::clone)
    }

    fn lookup(&self, line: u32, col: u32) -> Result<Option<Token<'_>>> {
        let k = self
            .sections
            .partition_point(|s| (s.line, s.column) <= (line, col));
        let Some(section) = k.checked_sub(1).and_then(|k| self.sections.get(k)) else {
            return Ok(None);
        };
        let map = self.section_map(section)?;
        let rel_line = line - section.line;
        let rel_col = if rel_line == 0 {
            col - section.column
        } else {
            col
        };
        map.lookup(rel_line, rel_col)
    }
}

impl RegularMap {
    pub(crate) fn mappings_bytes(&self) -> &[u8] {
        match &self.mappings {
            Mappings::InBlob(r) => self.blob.as_slice().get(r.clone()).unwrap_or(&[]),
            Mappings::Owned(v) => v,
        }
    }

    /// The whole line index (for a map read lazily, `mappings` is indexed to its end first,
    /// which fails if it is broken anywhere).
    pub fn index(&self) -> Result<&LineIndex> {
        self.index.whole_index(self.mappings_bytes())
    }

    /// A line index that answers for generated `line` (for a map read lazily, `mappings` is
    /// indexed as far as that line first). A line past the end is answered by the whole index.
    pub fn index_for(&self, line: u32) -> Result<&LineIndex> {
        self.index_at(line, u32::MAX)
    }

    /// A line index that answers a look-up at column `col` of generated `line`: as
    /// [`Self::index_for`], but on a long line a map read lazily may be indexed only a little
    /// past `col` (the index's blocks of that line end there).
    pub fn index_at(&self, line: u32, col: u32) -> Result<&LineIndex> {
        self.index.for_position(self.mappings_bytes(), line, col)
    }

    /// Whether `mappings` is indexed (and validated) to its end.
    pub fn is_indexed(&self) -> bool {
        self.index.is_whole()
    }

    /// Number of `sources` entries.
    pub fn source_count(&self) -> usize {
        self.sources.len()
    }

    /// Number of `names` entries.
    pub fn name_count(&self) -> usize {
        self.names.len()
    }

    /// The `file` field.
    pub fn file(&self) -> Option<&str> {
        self.file.as_deref()
    }

    /// The `sourceRoot` field.
    pub fn source_root(&self) -> Option<&str> {
        self.source_root.as_deref()
    }

    /// The debug ID, if any.
    pub fn debug_id(&self) -> Option<&str> {
        self.debug_id.as_deref()
    }

    /// The `sources` entry `idx` as written.
    pub fn source(&self, idx: u32) -> Option<Cow<'_, str>> {
        let r = (*self.sources.get(idx as usize)?)?;
        Some(r.decode(self.blob.as_slice()))
    }

    /// The `sources` entry `idx` with `sourceRoot` applied.
    pub fn source_path(&self, idx: u32) -> Option<String> {
        let src = self.source(idx)?;
        Some(join_source_root(self.source_root.as_deref(), &src))
    }

    /// The lengths of source `idx`'s lines in UTF-16 code units, from `sourcesContent`
    /// without decoding it; `None` without content.
    pub fn source_line_lengths(&self, idx: u32) -> Option<Vec<u32>> {
        let r = (*self.sources_content.get(idx as usize)?)?;
        Some(r.line_lengths(self.blob.as_slice()))
    }

    /// Whether `sourcesContent` has source `idx`'s text (nothing is decoded).
    pub fn has_source_content(&self, idx: u32) -> bool {
        self.sources_content
            .get(idx as usize)
            .is_some_and(Option::is_some)
    }

    /// The original text of source `idx` from `sourcesContent`, decoded now.
    pub fn source_content(&self, idx: u32) -> Option<Cow<'_, str>> {
        let r = (*self.sources_content.get(idx as usize)?)?;
        Some(r.decode(self.blob.as_slice()))
    }

    /// The original text of source `idx` with its line starts, decoded once and kept.
    pub fn source_text(&self, idx: u32) -> Option<Arc<SourceText>> {
        self.source_texts
            .get(idx as usize)?
            .get_or_init(|| {
                self.source_content(idx)
                    .map(|c| Arc::new(SourceText::new(c.into_owned())))
            })
            .clone()
    }

    /// The `names` entry `idx`.
    pub fn name(&self, idx: u32) -> Option<Cow<'_, str>> {
        let r = (*self.names.get(idx as usize)?)?;
        Some(r.decode(self.blob.as_slice()))
    }

    /// Whether source `idx` is on `ignoreList` / `x_google_ignoreList`.
    pub fn is_ignored(&self, idx: u32) -> bool {
        self.ignore_list.contains(&idx)
    }

    /// The ignore list.
    pub fn ignore_list(&self) -> &[u32] {
        &self.ignore_list
    }

    /// Whether the map has Metro function maps.
    pub fn has_function_map(&self) -> bool {
        self.facebook().is_some()
    }

    fn facebook(&self) -> Option<&FacebookSources> {
        self.facebook_parsed
            .get_or_init(|| {
                let r = self.facebook_sources.clone()?;
                FacebookSources::parse(self.blob.as_slice().get(r)?)
            })
            .as_ref()
    }

    /// The enclosing function's name at an original position (0-based line and column) of
    /// source `idx`, from the Metro function map, as metro-symbolicate finds it.
    pub fn function_name_at(&self, idx: u32, src_line: u32, src_col: u32) -> Option<String> {
        self.facebook()?.function_name(idx, src_line + 1, src_col)
    }

    fn hermes(&self) -> Option<&BTreeMap<u32, Vec<u32>>> {
        self.hermes_parsed
            .get_or_init(|| {
                let r = self.hermes_offsets.clone()?;
                let raw: BTreeMap<String, Vec<u32>> =
                    serde_json::from_slice(self.blob.as_slice().get(r)?).ok()?;
                Some(
                    raw.into_iter()
                        .filter_map(|(k, v)| Some((k.parse().ok()?, v)))
                        .collect(),
                )
            })
            .as_ref()
    }

    /// Whether the map has Hermes function offsets (`x_hermes_function_offsets`).
    pub fn has_hermes_offsets(&self) -> bool {
        self.hermes().is_some()
    }

    /// The Hermes function (segment ID, function ID) that contains bytecode `virtual_offset`.
    pub fn hermes_function_at(&self, virtual_offset: u32) -> Option<(u32, u32)> {
        let offsets = self.hermes()?;
        let (segment, starts) = offsets.iter().next()?;
        let k = starts.partition_point(|&s| s <= virtual_offset);
        Some((*segment, k.checked_sub(1)? as u32))
    }

    /// The bytecode virtual offset of `bytecode_offset` inside Hermes function `function_id`
    /// of `segment` (the form Hermes minidumps and profiles use).
    pub fn hermes_virtual_offset(
        &self,
        segment: u32,
        function_id: u32,
        bytecode_offset: u32,
    ) -> Option<u32> {
        let start = *self.hermes()?.get(&segment)?.get(function_id as usize)?;
        start.checked_add(bytecode_offset)
    }

    /// A [`Token`] for a segment of this map (e.g. one from [`Self::line_segments`]).
    pub fn token(&self, gen_line: u32, segment: RawSegment) -> Token<'_> {
        Token {
            map: self,
            gen_line,
            segment,
        }
    }
}

mod grown;
mod lookup;
