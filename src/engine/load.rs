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
    /// Something Symscope does not read (binary, or bytecode).
    Other,
}

/// How to load: where pieces of work run, and where derived data is kept.
#[derive(Clone, Copy)]
pub struct Loader<'a> {
    /// Runs chunks of a map's index pass or a mapping's scan, possibly on all cores.
    pub runner: &'a dyn ChunkRunner,
    /// The cache of derived data, if any.
    pub cache: Option<&'a Cache>,
}

impl Loader<'_> {
    /// One thread, no cache.
    pub const SERIAL: Loader<'static> = Loader {
        runner: &Serial,
        cache: None,
    };
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
            let map = SourceMap::parse_with(file.blob.clone(), loader.runner)
                .map_err(|e| fail(e.into()))?;
            let ms = start.elapsed().as_secs_f64() * 1e3;
            Ok(SymbolFile::Map(MapFile::new(name, Arc::new(map), ms)))
        }
        FileKind::JavaScript => {
            begin(progress, "scan", name)?;
            let bundle = scan_bundle(name, file.blob.as_slice());
            let map = match bundle.source_mapping_url.as_deref() {
                Some(url) if url.starts_with("data:") => {
                    // An inline map: it belongs to this bundle, named as if it sat beside it.
                    begin(progress, MAP_PHASE, name)?;
                    let start = Instant::now();
                    let json =
                        decode_data_url(url).ok_or_else(|| fail(Reason::InlineMapEncoding))?;
                    let map = SourceMap::parse(json).map_err(|e| fail(Reason::InlineMap(e)))?;
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
        FileKind::Log | FileKind::Unknown => Err(fail(Reason::NotSymbols(file.kind.as_str()))),
    }
}

/// A ProGuard/R8 mapping: its index read from the cache when one fits, else scanned (in
/// chunks through the loader's runner) and written to the cache.
fn load_mapping(
    file: &Detected,
    loader: Loader<'_>,
    progress: &mut dyn Progress,
) -> Result<SymbolFile, Error> {
    let name = file.name.as_str();
    let start = Instant::now();
    let cached = loader
        .cache
        .map(|c| c.file("proguard-index", file.blob.as_slice()));
    if let Some(path) = &cached {
        begin(progress, "read cached index", name)?;
        let read = std::fs::read(path)
            .ok()
            .and_then(|index| Mapping::from_index_bytes(file.blob.clone(), &index));
        if let Some(mapping) = read {
            let ms = start.elapsed().as_secs_f64() * 1e3;
            return Ok(SymbolFile::Mapping(MappingFile::new(
                name,
                Arc::new(mapping),
                ms,
            )));
        }
    }
    begin(progress, MAPPING_PHASE, name)?;
    let mapping =
        Mapping::parse_with(file.blob.clone(), loader.runner).map_err(|e| Error::new(name, e))?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    if let Some(path) = &cached {
        begin(progress, "write cached index", name)?;
        // Derived data: a failed write only means the next run scans again.
        write_atomically(path, &mapping.to_index_bytes()).ok();
    }
    Ok(SymbolFile::Mapping(MappingFile::new(
        name,
        Arc::new(mapping),
        ms,
    )))
}

/// A native debug file: its SymCaches read from the cache when they are there, else built
/// (reporting each function read, phase [`BUILD_PHASE`]) and written to the cache (a failed
/// write only means the next run builds them again).
fn load_native(
    file: &Detected,
    loader: Loader<'_>,
    progress: &mut dyn Progress,
) -> Result<SymbolFile, Error> {
    let name = file.name.as_str();
    let start = Instant::now();
    let cached = loader
        .cache
        .map(|c| c.file("symcache", file.blob.as_slice()));
    if let Some(path) = &cached {
        begin(progress, "read cached SymCache", name)?;
        let read = std::fs::read(path)
            .ok()
            .and_then(|b| NativeSymbols::from_cache(Arc::new(b)));
        if let Some(native) = read {
            let ms = start.elapsed().as_secs_f64() * 1e3;
            return Ok(SymbolFile::Native(NativeFile::new(
                name,
                Arc::new(native),
                ms,
            )));
        }
    }
    begin(progress, BUILD_PHASE, name)?;
    let native =
        NativeSymbols::convert_reporting(file.blob.as_slice(), None, loader.runner, progress)
            .map_err(|e| Error::new(name, e))?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    if let Some(path) = &cached {
        begin(progress, "write cached SymCache", name)?;
        write_atomically(path, &native.to_cache_bytes()).ok();
    }
    Ok(SymbolFile::Native(NativeFile::new(
        name,
        Arc::new(native),
        ms,
    )))
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
