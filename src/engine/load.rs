//! The one route from a file's bytes to what Symscope uses: the file is detected once
//! ([`Detected`]), then loaded by its kind, through a cache of derived data when one is
//! given, with progress reported and stops honoured.

use super::bundle::{decode_data_url, scan_bundle};
use super::cache::{Cache, write_atomically};
use super::detect::{Detected, MAP_PHASE, MAPPING_PHASE};
use super::error::{Error, Reason};
use super::log::{LogFile, read_log};
use crate::model::{Blob, ChunkRunner, FileKind, NoProgress, Progress, Serial};
use crate::symbolicate::{BundleFile, MapFile, MappingFile, NativeFile, SymbolSet};
use crate::symbols::native::{BUILD_PHASE, NativeSymbols};
use crate::symbols::proguard::Mapping;
use crate::symbols::sourcemap::SourceMap;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

/// A symbol file, loaded.
#[derive(Clone, Debug)]
pub enum SymbolFile {
    /// A parsed and indexed source map.
    Map(MapFile),
    /// A bundle: its map comments, its map when inlined (named as if beside it), its bytes.
    Bundle {
        /// Its comments.
        bundle: BundleFile,
        /// Its inline map.
        map: Option<MapFile>,
        /// The bundle's bytes (the segment inspector shows its text).
        bytes: Blob,
    },
    /// An indexed ProGuard/R8 mapping.
    Mapping(MappingFile),
    /// A native debug file converted to SymCaches.
    Native(NativeFile),
    /// Hermes bytecode: nothing to load (its frames are found through hermesc's map).
    HermesBytecode,
}

impl SymbolFile {
    /// Adds the file to `set` (sharing what it loaded).
    pub fn add_to(&self, set: &mut SymbolSet) {
        match self {
            Self::Map(m) => set.maps.push(m.clone()),
            Self::Bundle { bundle, map, .. } => {
                set.maps.extend(map.iter().cloned());
                set.bundles.push(bundle.clone());
            }
            Self::Mapping(m) => set.mappings.push(m.clone()),
            Self::Native(n) => set.natives.push(n.clone()),
            Self::HermesBytecode => {}
        }
    }

    /// The source map it holds (a map, or a bundle's inline map).
    pub fn map(&self) -> Option<&MapFile> {
        match self {
            Self::Map(m) => Some(m),
            Self::Bundle { map, .. } => map.as_ref(),
            _ => None,
        }
    }
}

/// Any input, loaded.
#[derive(Clone, Debug)]
pub enum Input {
    /// A symbol file.
    Symbols(SymbolFile),
    /// A log.
    Log(LogFile),
    /// CPU profiles, each with its label, and a trace's threads' duration events
    /// ([`super::profile::read_profile_file`]).
    Profiles(
        Vec<(String, crate::model::Profile)>,
        Option<crate::formats::trace_events::Tracks>,
    ),
    /// A heap snapshot's graph, its dominator tree built.
    Heap(std::sync::Arc<super::heap::Heap>),
    /// Something Symscope does not read (binary, or bytecode).
    Other,
}

/// How a native debug file is made ready for look-ups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeRoute {
    /// ELF and Mach-O DWARF answered lazily, reading only the units asked for: what a crash's
    /// tens of frames want. A SymCache already in the cache is read instead; none is built.
    Lazy,
    /// Converted to a SymCache, read from the cache when there and written to it when not:
    /// what pays for thousands of look-ups and for every later run.
    SymCache,
}

/// How a source map is made ready for look-ups.
#[derive(Clone, Copy)]
pub enum MapRoute {
    /// `mappings` indexed whole (through the loader's runner) and validated as the map loads:
    /// what the window wants, whose inspector and checks walk every line.
    Whole,
    /// The JSON read as the map loads; `mappings` indexed from its start only as far as the
    /// lines looked up, when first looked up, through this runner: what a trace's few frames
    /// want. A fault in `mappings` is the error of the look-ups that reach it.
    AsAsked(&'static dyn ChunkRunner),
}

/// How to load: where pieces of work run, and where derived data is kept.
#[derive(Clone, Copy)]
pub struct Loader<'a> {
    /// Runs chunks of a map's index pass or a mapping's scan, possibly on all cores.
    pub runner: &'a dyn ChunkRunner,
    /// The cache of derived data, if any.
    pub cache: Option<&'a Cache>,
    /// How native debug files are made ready.
    pub native: NativeRoute,
    /// How source maps are made ready.
    pub maps: MapRoute,
}

impl Loader<'_> {
    /// One thread, no cache, native files answered lazily, maps indexed as asked.
    pub const SERIAL: Loader<'static> = Loader {
        runner: &Serial,
        cache: None,
        native: NativeRoute::Lazy,
        maps: MapRoute::AsAsked(&Serial),
    };

    /// Parses a source map by this loader's route.
    fn parse_map(&self, blob: Blob) -> Result<SourceMap, crate::symbols::sourcemap::Error> {
        match self.maps {
            MapRoute::Whole => SourceMap::parse_with(blob, self.runner),
            MapRoute::AsAsked(runner) => SourceMap::parse_lazy(blob, runner),
        }
    }
}

/// Starts `phase`; `Err` when the caller says stop.
fn begin(progress: &mut dyn Progress, phase: &str, file: &str) -> Result<(), Error> {
    match progress.step(phase, 0, 0) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(Error::new(file, Reason::Cancelled)),
    }
}

/// Loads any input: a symbol file, a log (parsed, not symbolicated), or text that looks like
/// nothing else as a log (every line kept).
pub fn load(
    file: &Detected,
    loader: Loader<'_>,
    progress: &mut dyn Progress,
) -> Result<Input, Error> {
    match file.kind {
        FileKind::Log => Ok(Input::Log(read_log(file, &Default::default(), progress)?)),
        FileKind::Profile => {
            let (profiles, tracks) = super::profile::read_profile_file(file)?;
            Ok(Input::Profiles(profiles, tracks))
        }
        FileKind::HeapSnapshot => {
            begin(progress, "heap snapshot", &file.name)?;
            let bytes = file.blob.as_slice();
            // The edges are read beside the nodes, through a second reader of the bytes.
            let blob = file.blob.clone();
            let reopen = move |at: u64| -> std::io::Result<Box<dyn std::io::Read>> {
                Ok(Box::new(BlobReader {
                    blob: blob.clone(),
                    at: usize::try_from(at).unwrap_or(usize::MAX),
                }))
            };
            let heap = super::heap::read_heap_with(
                &file.name,
                bytes,
                bytes.len() as u64,
                Some((&reopen, loader.runner)),
                progress,
            )?;
            Ok(Input::Heap(std::sync::Arc::new(heap)))
        }
        // Opened as buckets by whoever asked (the window's Buckets view).
        FileKind::SymbolicatedLogs => Ok(Input::Other),
        FileKind::HermesBytecode | FileKind::Unknown => {
            let bytes = file.blob.as_slice();
            if !bytes.is_empty() && memchr::memchr(0, &bytes[..bytes.len().min(4096)]).is_none() {
                Ok(Input::Log(read_log(file, &Default::default(), progress)?))
            } else {
                Ok(Input::Other)
            }
        }
        _ => Ok(Input::Symbols(load_symbols(file, loader, progress)?)),
    }
}

/// Loads a symbol file; any other kind is an error.
pub fn load_symbols(
    file: &Detected,
    loader: Loader<'_>,
    progress: &mut dyn Progress,
) -> Result<SymbolFile, Error> {
    let name = file.name.as_str();
    let fail = |reason: Reason| Error::new(name, reason);
    match file.kind {
        FileKind::SourceMap => {
            begin(progress, MAP_PHASE, name)?;
            let start = Instant::now();
            let map = loader
                .parse_map(file.blob.clone())
                .map_err(|e| fail(e.into()))?;
            let ms = start.elapsed().as_secs_f64() * 1e3;
            Ok(SymbolFile::Map(MapFile::new(name, Arc::new(map), ms)))
        }
        FileKind::JavaScript => {
            begin(progress, "scan", name)?;
            let mut bundle = scan_bundle(name, file.blob.as_slice());
            bundle.bytes = Some(file.blob.clone());
            let map = match bundle.source_mapping_url.as_deref() {
                Some(url) if url.starts_with("data:") => {
                    // An inline map: it belongs to this bundle, named as if it sat beside it.
                    begin(progress, MAP_PHASE, name)?;
                    let start = Instant::now();
                    let json =
                        decode_data_url(url).ok_or_else(|| fail(Reason::InlineMapEncoding))?;
                    let map = loader
                        .parse_map(Blob::from(json))
                        .map_err(|e| fail(Reason::InlineMap(e)))?;
                    let ms = start.elapsed().as_secs_f64() * 1e3;
                    Some(MapFile::new(&format!("{name}.map"), Arc::new(map), ms))
                }
                _ => None,
            };
            Ok(SymbolFile::Bundle {
                bundle,
                map,
                bytes: file.blob.clone(),
            })
        }
        FileKind::ProguardMapping => load_mapping(file, loader, progress),
        FileKind::NativeSymbols => load_native(file, loader, progress),
        FileKind::HermesBytecode => Ok(SymbolFile::HermesBytecode),
        FileKind::Log
        | FileKind::Profile
        | FileKind::HeapSnapshot
        | FileKind::SymbolicatedLogs
        | FileKind::Unknown => Err(fail(Reason::NotSymbols(file.kind.as_str()))),
    }
}

/// The cache's kind of a native file's SymCaches.
const SYMCACHE: &str = "symcache";

/// What a kind of derived data is called in the cache and in the progress phases.
struct Derived {
    /// The cache file's kind (`proguard-index`).
    kind: &'static str,
    /// The phases reading it, building it and writing it.
    read: &'static str,
    build: &'static str,
    write: &'static str,
}

/// `build`s what `file` is turned into, or reads it from the loader's cache when it is there
/// and `read` takes it back, and writes what was built to the cache (a failed write only
/// means the next run builds it again). Returns it with the milliseconds it took.
fn through_cache<T>(
    file: &Detected,
    loader: Loader<'_>,
    progress: &mut dyn Progress,
    derived: &Derived,
    read: impl FnOnce(Vec<u8>) -> Option<T>,
    build: impl FnOnce(&mut dyn Progress) -> Result<T, Reason>,
    write: impl FnOnce(&T) -> Option<Vec<u8>>,
) -> Result<(T, f64), Error> {
    let name = file.name.as_str();
    let start = Instant::now();
    let ms = |start: Instant| start.elapsed().as_secs_f64() * 1e3;
    let cached = loader
        .cache
        .map(|c| c.file(derived.kind, file.blob.as_slice()));
    if let Some(path) = &cached {
        begin(progress, derived.read, name)?;
        if let Some(value) = std::fs::read(path).ok().and_then(read) {
            return Ok((value, ms(start)));
        }
    }
    begin(progress, derived.build, name)?;
    let value = build(progress).map_err(|reason| Error::new(name, reason))?;
    let took = ms(start);
    if let Some(path) = &cached {
        begin(progress, derived.write, name)?;
        if let Some(bytes) = write(&value) {
            write_atomically(path, &bytes).ok();
        }
    }
    Ok((value, took))
}

/// A ProGuard/R8 mapping: its index read from the cache when one fits, else scanned (in
/// chunks through the loader's runner) and written to the cache.
fn load_mapping(
    file: &Detected,
    loader: Loader<'_>,
    progress: &mut dyn Progress,
) -> Result<SymbolFile, Error> {
    let derived = Derived {
        kind: "proguard-index",
        read: "read cached index",
        build: MAPPING_PHASE,
        write: "write cached index",
    };
    let (mapping, ms) = through_cache(
        file,
        loader,
        progress,
        &derived,
        |index| Mapping::from_index_bytes(file.blob.clone(), &index),
        |_| Ok(Mapping::parse_with(file.blob.clone(), loader.runner)?),
        |mapping| Some(mapping.to_index_bytes()),
    )?;
    let mapping = MappingFile::new(&file.name, Arc::new(mapping), ms);
    Ok(SymbolFile::Mapping(mapping))
}

/// The progress phase of opening a native file to be answered lazily.
pub const OPEN_PHASE: &str = "open debug info";

/// A native debug file: its SymCaches read from the cache when they are there; else, on the
/// lazy route, opened for lazy look-ups ([`NativeSymbols::open`]); else built (reporting each
/// function read, phase [`BUILD_PHASE`]) and written to the cache.
fn load_native(
    file: &Detected,
    loader: Loader<'_>,
    progress: &mut dyn Progress,
) -> Result<SymbolFile, Error> {
    if loader.native == NativeRoute::Lazy {
        let start = Instant::now();
        let kept = loader.cache.and_then(|cache| {
            let bytes = std::fs::read(cache.file(SYMCACHE, file.blob.as_slice())).ok()?;
            NativeSymbols::from_cache(Arc::new(bytes))
        });
        let native = match kept {
            Some(native) => native,
            None => {
                begin(progress, OPEN_PHASE, &file.name)?;
                NativeSymbols::open(&file.blob, None, loader.runner, progress)
                    .map_err(|e| Error::new(&file.name, Reason::from(e)))?
            }
        };
        let ms = start.elapsed().as_secs_f64() * 1e3;
        return Ok(SymbolFile::Native(
            NativeFile::new(&file.name, Arc::new(native), ms).with_wasm(file.blob.as_slice()),
        ));
    }
    let derived = Derived {
        kind: SYMCACHE,
        read: "read cached SymCache",
        build: BUILD_PHASE,
        write: "write cached SymCache",
    };
    let (native, ms) = through_cache(
        file,
        loader,
        progress,
        &derived,
        |bytes| NativeSymbols::from_cache(Arc::new(bytes)),
        |progress| {
            let bytes = file.blob.as_slice();
            Ok(NativeSymbols::convert_reporting(
                bytes,
                None,
                loader.runner,
                progress,
            )?)
        },
        NativeSymbols::to_cache_bytes,
    )?;
    Ok(SymbolFile::Native(
        NativeFile::new(&file.name, Arc::new(native), ms).with_wasm(file.blob.as_slice()),
    ))
}

/// The one route into a symbol set for callers with bytes in hand (tests, fuzz targets): one
/// thread, no cache.
pub trait AddSymbols {
    /// Detects and loads `blob` (named `path`) and adds it; returns what it was.
    fn add(&mut self, path: &str, blob: Blob) -> Result<FileKind, Error>;
}

impl AddSymbols for SymbolSet {
    fn add(&mut self, path: &str, blob: Blob) -> Result<FileKind, Error> {
        let file = Detected::new(path, blob);
        load_symbols(&file, Loader::SERIAL, &mut NoProgress)?.add_to(self);
        Ok(file.kind)
    }
}

/// Reads a blob's bytes from an offset.
struct BlobReader {
    blob: crate::model::Blob,
    at: usize,
}

impl std::io::Read for BlobReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let bytes = self.blob.as_slice();
        let rest = &bytes[self.at.min(bytes.len())..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}
