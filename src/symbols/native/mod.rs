//! Native debug files (ELF/DWARF, Mach-O/dSYM, PE/PDB, Breakpad `.sym`) through `symbolic`,
//! made ready one of two ways. For a few look-ups (a crash), [`NativeSymbols::open`] answers
//! ELF and Mach-O DWARF lazily (`lazy.rs`, `units.rs`: only the units the addresses fall in
//! are read). For many, or for every later run, each file is converted once into a SymCache
//! (`symbolic` 12's format, kept by the caller in the engine's cache), and addresses are
//! looked up in it. Both answer alike: inline chains innermost first,
//! names demangled (C++, Rust, Swift) and without GCC's clone suffixes (`f.cold`,
//! `f.part.0`), which the symbol table has and DWARF, like llvm-symbolizer, does not.
//!
//! Why ELF and Mach-O are converted by our own code (adapted from `symbolic`): `symbolic`'s
//! converter builds a tree of nodes and vectors per inlinee and hashes strings per line
//! record; ours reads each function flat, writes it by index, reads the compilation units in
//! two shares on two threads and merges the writers in unit order, so the cold build is
//! faster than llvm-symbolizer's answer (`cargo bench --bench native`, which runs it in the
//! same process; `benches/README.md`). The result is byte for byte the SymCache `symbolic`'s
//! own `process_object` writes: unit tests over every corpus file read in 1, 2, 3 and
//! one-share-per-unit shares, the benchmark on a 377 MB binary, and the `native_symbols` fuzz
//! target all check it. `symbolic` skips a function whose range an earlier unit had (C++
//! inline and template functions are described in many units), so a share starts from the
//! ranges of the units before it: the second thread first scans the first share's function
//! ranges. Units differ in cost far more than in size, so the thread done first takes over the
//! back half of the units the other has not started, again and again while that pays; the
//! first share is cut larger (`LEAD`) so that the second, which has scanned the first's units
//! already and takes over cheaply, is the one done first. Breakpad files are read by
//! `symbolic` and written by our writer on a second thread; PE and PDB files go through
//! `symbolic`'s `process_object` (which undecorates Windows names). Callers memory-map a
//! large file rather than read it (`jobs::read_or_map`).
//!
//! Two renderings differ from llvm-symbolizer's, both correct: lambdas (`{lambda(long)#1}`
//! against `'lambda'(long)`) and Breakpad names, which `dump_syms` writes without return
//! types.
//!
//! - `lazy.rs`, `units.rs`: the lazy reader, and its index of which units hold which code;
//! - `pipeline.rs`: one object's conversion: PE and PDB through `symbolic`'s own converter,
//!   Breakpad read and written on two threads, ELF and Mach-O DWARF through the schedule;
//! - `schedule/`: how an ELF or Mach-O file's compilation units are shared between two
//!   threads (cut, taken over, merged in unit order), byte for byte `symbolic`'s SymCache;
//! - `upstream/`: the DWARF reader, function builder and SymCache writer adapted from
//!   `symbolic` 12.18, with its licence;
//! - `ids.rs` (matching a log's module identifiers), `names.rs` (demangling, clone
//!   suffixes), `cache.rs` (the cache file written beside a workspace).

use crate::model::{Blob, ChunkRunner, NoProgress, Progress, Serial};
use std::ops::Range;
use std::sync::Arc;
use symbolic::debuginfo::{Archive, Object};
use symbolic::symcache::SymCache;

mod cache;
mod ids;
mod lazy;
mod names;
mod pipeline;
mod schedule;
mod units;
mod upstream;
mod wasm;

pub use lazy::LazyDwarf;
pub use names::{clean_name, without_clone_suffix};
pub use pipeline::BUILD_PHASE;
pub(crate) use schedule::check_shares;
pub use wasm::{WasmError, WasmModule, is_wasm};

/// Why a native file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NativeError {
    /// `symbolic` does not read it as an object file.
    #[error("not a native debug file: {0}")]
    NotAnObject(String),
    /// A universal (fat) file without the wanted architecture, or with no object at all.
    #[error("no object for architecture {0} in this file")]
    NoArch(String),
    /// The file has neither debug information nor a symbol table.
    #[error("the file has no symbols and no debug information (a stripped binary?)")]
    NoSymbols,
    /// Building or reading the SymCache failed.
    #[error("SymCache: {0}")]
    Cache(String),
    /// The progress receiver asked to stop (the job was cancelled).
    #[error("stopped before the SymCache was built (cancelled)")]
    Cancelled,
}

/// What a native debug file is, as far as matching it to a crash needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeInfo {
    /// File format (`elf`, `macho`, `pe`, `pdb`, `breakpad`).
    pub format: String,
    /// Architecture (`x86_64`, `arm64`).
    pub arch: String,
    /// Debug identifier (breakpad form, as symbolic prints it).
    pub debug_id: String,
    /// Code identifier (the ELF build ID, Mach-O UUID, PE timestamp+size), if any.
    pub code_id: Option<String>,
    /// Whether there is DWARF/PDB/Breakpad line information (not just a symbol table).
    pub has_debug_info: bool,
}

/// One original location of an address (an inline chain has several).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeLocation {
    /// Demangled function name.
    pub function: String,
    /// Source path, when known.
    pub file: Option<String>,
    /// 1-based line, when known.
    pub line: Option<u32>,
}

/// Where an object's answers come from.
#[derive(Clone)]
enum Answers {
    /// A SymCache: `range` of `data` (a cache file read back shares one buffer, uncopied).
    SymCache {
        data: Arc<Vec<u8>>,
        range: Range<usize>,
    },
    /// The file's DWARF, read unit by unit as addresses are asked for.
    Lazy(Arc<LazyDwarf>),
}

/// One object of a native debug file (a universal Mach-O file has one per architecture):
/// converted to a SymCache, or answered lazily from its DWARF.
#[derive(Clone)]
pub struct NativeObject {
    info: NativeInfo,
    answers: Answers,
    /// A Breakpad file's `MODULE` and `STACK` lines: the call-frame information a minidump's
    /// stacks are walked with.
    cfi: Option<String>,
}

impl std::fmt::Debug for NativeObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeObject")
            .field("info", &self.info)
            .field("cache_bytes", &self.symcache_bytes().map_or(0, <[u8]>::len))
            .finish()
    }
}

/// A native debug file ready for look-ups: one [`NativeObject`] per architecture it holds
/// (never none).
#[derive(Clone, Debug)]
pub struct NativeSymbols {
    objects: Vec<NativeObject>,
}

/// Whether bytes look like an object file `symbolic` reads (ELF, Mach-O, PE, PDB, Breakpad,
/// WebAssembly).
pub fn is_native(bytes: &[u8]) -> bool {
    !matches!(
        Archive::peek(bytes),
        symbolic::debuginfo::FileFormat::Unknown
            | symbolic::debuginfo::FileFormat::SourceBundle
            | symbolic::debuginfo::FileFormat::PortablePdb
    )
}

impl NativeSymbols {
    /// Converts a native file: every object in it (one per architecture of a universal
    /// file), or only the one for `arch`. Objects without symbols are left out; when none is
    /// left, the first object's error is returned.
    pub fn convert(bytes: &[u8], arch: Option<&str>) -> Result<Self, NativeError> {
        Self::convert_with(bytes, arch, &Serial)
    }

    /// [`Self::convert`], through `runner`: the jobs layer's reads the debug information on
    /// the calling thread while another writes the SymCache.
    pub fn convert_with(
        bytes: &[u8],
        arch: Option<&str>,
        runner: &dyn ChunkRunner,
    ) -> Result<Self, NativeError> {
        Self::convert_reporting(bytes, arch, runner, &mut NoProgress)
    }

    /// [`Self::convert_with`], reporting each function read to `progress` (phase
    /// [`BUILD_PHASE`]); when it answers stop, the conversion ends with
    /// [`NativeError::Cancelled`]. (PE and PDB files, converted by symbolic in one call,
    /// report nothing until they are done.)
    pub fn convert_reporting(
        bytes: &[u8],
        arch: Option<&str>,
        runner: &dyn ChunkRunner,
        progress: &mut dyn Progress,
    ) -> Result<Self, NativeError> {
        Self::each_object(bytes, arch, |_, object| {
            pipeline::convert_object(object, bytes, runner, progress)
        })
    }

    /// Makes an object of each object of the file in `bytes` (those of `arch` only, when
    /// given) with `make`, which gets its index and the object. Objects that fail are left
    /// out; when none is left, the first failure is returned; a cancel ends it at once.
    fn each_object(
        bytes: &[u8],
        arch: Option<&str>,
        mut make: impl FnMut(usize, &Object<'_>) -> Result<NativeObject, NativeError>,
    ) -> Result<Self, NativeError> {
        let archive = Archive::parse(bytes).map_err(|e| NativeError::NotAnObject(e.to_string()))?;
        let mut objects = Vec::new();
        let mut first_error = None;
        for (index, object) in archive.objects().enumerate() {
            let object = object.map_err(|e| NativeError::NotAnObject(e.to_string()))?;
            if arch.is_some_and(|a| object.arch().name() != a) {
                continue;
            }
            match make(index, &object) {
                Ok(o) => objects.push(o),
                Err(NativeError::Cancelled) => return Err(NativeError::Cancelled),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        if objects.is_empty() {
            return Err(first_error
                .unwrap_or_else(|| NativeError::NoArch(arch.unwrap_or("any").to_owned())));
        }
        Ok(Self { objects })
    }

    /// Opens a native file for a few look-ups: its ELF and Mach-O objects and WebAssembly
    /// modules with DWARF are answered lazily ([`LazyDwarf`]: only the units asked for are read, nothing is built);
    /// other objects (PE, PDB, Breakpad, a symbol table alone) are converted as
    /// [`Self::convert_reporting`] converts them. The same answers either way.
    pub fn open(
        blob: &Blob,
        arch: Option<&str>,
        runner: &dyn ChunkRunner,
        progress: &mut dyn Progress,
    ) -> Result<Self, NativeError> {
        let bytes = blob.as_slice();
        if let Some(info) = wasm_with_dwarf(bytes) {
            return Ok(Self {
                objects: vec![NativeObject {
                    info,
                    answers: Answers::Lazy(Arc::new(LazyDwarf::open_wasm(blob.clone())?)),
                    cfi: None,
                }],
            });
        }
        Self::each_object(bytes, arch, |index, object| {
            let lazy =
                matches!(object, Object::Elf(_) | Object::MachO(_)) && object.has_debug_info();
            if !lazy {
                return pipeline::convert_object(object, bytes, runner, progress);
            }
            LazyDwarf::open(blob.clone(), index, object).map(|dwarf| NativeObject {
                info: NativeInfo::of(object),
                answers: Answers::Lazy(Arc::new(dwarf)),
                cfi: None,
            })
        })
    }

    /// Whether any object is answered lazily (it then has no SymCache to keep).
    pub fn is_lazy(&self) -> bool {
        self.objects
            .iter()
            .any(|o| matches!(o.answers, Answers::Lazy(_)))
    }

    /// The file's bytes, when an object is answered lazily (to build its SymCache later).
    pub fn lazy_source(&self) -> Option<Blob> {
        self.objects.iter().find_map(|o| match &o.answers {
            Answers::Lazy(dwarf) => Some(dwarf.blob()),
            Answers::SymCache { .. } => None,
        })
    }

    /// Every object (architecture) of the file.
    pub fn objects(&self) -> &[NativeObject] {
        &self.objects
    }

    /// The first object's description (the only one, unless the file is universal).
    pub fn info(&self) -> &NativeInfo {
        &self.objects[0].info
    }

    /// The object a module identifier names (see [`NativeInfo::matches_id`]).
    pub fn object_with_id(&self, id: &str) -> Option<&NativeObject> {
        self.objects.iter().find(|o| o.info.matches_id(id))
    }

    /// The object for a module whose identifier is unknown: the one of `arch` when given and
    /// present, else the first.
    pub fn object_for_arch(&self, arch: Option<&str>) -> &NativeObject {
        arch.and_then(|a| {
            self.objects
                .iter()
                .find(|o| o.info.arch == a || (a == "arm64e" && o.info.arch == "arm64"))
        })
        .unwrap_or(&self.objects[0])
    }

    /// Looks `addr` up in the first object (see [`NativeObject::lookup`]).
    pub fn lookup(&self, addr: u64) -> Vec<NativeLocation> {
        self.objects[0].lookup(addr)
    }

    /// Bytes of the SymCaches (none for objects answered lazily).
    pub fn cache_len(&self) -> usize {
        self.objects
            .iter()
            .map(|o| o.symcache_bytes().map_or(0, <[u8]>::len))
            .sum()
    }
}

/// A WebAssembly module with DWARF, described from its layout alone (`symbolic`'s reader
/// validates every function body first); the debug ID as `symbolic` forms it from a build
/// ID (its first 16 bytes as a UUID).
fn wasm_with_dwarf(bytes: &[u8]) -> Option<NativeInfo> {
    if !is_wasm(bytes) {
        return None;
    }
    let module = WasmModule::parse(bytes).ok().filter(|m| m.has_dwarf)?;
    // symbolic's debug ID: the build ID's first 16 bytes as a UUID, else nil.
    let id = module.build_id.as_deref().and_then(|hex| {
        let raw: Vec<u8> = (0..hex.len() / 2)
            .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
            .collect();
        let uuid = symbolic::common::Uuid::from_slice(raw.get(..16)?).ok()?;
        Some(symbolic::common::DebugId::from_uuid(uuid))
    });
    Some(NativeInfo {
        format: "wasm".to_owned(),
        arch: "wasm32".to_owned(),
        debug_id: id.unwrap_or_default().breakpad().to_string(),
        code_id: module.build_id,
        has_debug_info: true,
    })
}

impl NativeObject {
    /// What the object is.
    pub fn info(&self) -> &NativeInfo {
        &self.info
    }

    /// Breakpad call-frame information (`MODULE`, `STACK`, `FUNC` and `PUBLIC` lines), when
    /// the file has CFI.
    pub fn cfi(&self) -> Option<&str> {
        self.cfi.as_deref()
    }

    /// The SymCache's bytes (symbolic's format); `None` when the object is answered lazily.
    pub fn symcache_bytes(&self) -> Option<&[u8]> {
        match &self.answers {
            Answers::SymCache { data, range } => Some(&data[range.clone()]),
            Answers::Lazy(_) => None,
        }
    }

    fn symcache(&self) -> Result<SymCache<'_>, NativeError> {
        let bytes = self
            .symcache_bytes()
            .ok_or_else(|| NativeError::Cache("answered lazily, no SymCache".to_owned()))?;
        SymCache::parse(bytes).map_err(|e| NativeError::Cache(e.to_string()))
    }

    /// The original locations at `addr` (relative to the object's load address: a module
    /// offset for position-independent code, `address − image base` for Mach-O), innermost
    /// inline frame first.
    pub fn lookup(&self, addr: u64) -> Vec<NativeLocation> {
        if let Answers::Lazy(dwarf) = &self.answers {
            return dwarf.lookup(addr);
        }
        let Ok(cache) = self.symcache() else {
            return Vec::new();
        };
        cache
            .lookup(addr)
            .map(|loc| {
                NativeLocation {
                    // Demangled when the SymCache was written.
                    function: loc.function().name().to_owned(),
                    file: loc.file().map(|f| f.full_path()),
                    line: Some(loc.line()).filter(|&l| l > 0),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Progress sees every function read, and a stop ends the conversion as cancelled.
    #[test]
    fn conversion_reports_functions_and_stops_when_asked() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
        let bytes = std::fs::read(root.join("sentry-symbolic/fixtures/linux/crash.debug")).unwrap();
        let mut seen = Vec::new();
        let mut count = |phase: &str, done: u64, _total: u64| {
            assert_eq!(phase, BUILD_PHASE);
            seen.push(done);
            std::ops::ControlFlow::Continue(())
        };
        let whole = NativeSymbols::convert_reporting(&bytes, None, &Serial, &mut count).unwrap();
        assert!(seen.len() > 10, "{} reports", seen.len());
        // One report per function read, counting up from 0; the merge and the symbol table
        // after the last function report that count again.
        assert_eq!(seen[0], 0);
        assert!(seen.windows(2).all(|w| w[1] == w[0] + 1 || w[1] == w[0]));
        assert!(seen.windows(2).filter(|w| w[1] == w[0]).count() <= 2);
        assert!(
            whole.to_cache_bytes().unwrap()
                == NativeSymbols::convert(&bytes, None)
                    .unwrap()
                    .to_cache_bytes()
                    .unwrap()
        );
        let mut stop_at_3 = |_: &str, done: u64, _: u64| {
            if done >= 3 {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        };
        let stopped = NativeSymbols::convert_reporting(&bytes, None, &Serial, &mut stop_at_3);
        assert_eq!(stopped.err(), Some(NativeError::Cancelled));
    }
}
