//! Native debug files (ELF/DWARF, Mach-O/dSYM, PE/PDB, Breakpad `.sym`) through `symbolic`:
//! each file is converted once into a SymCache (kept by the caller, e.g. in the workspace
//! cache), and addresses are looked up in it, inline chains innermost first, names demangled.

use symbolic::common::{Name, NameMangling};
use symbolic::debuginfo::{Archive, Object};
use symbolic::demangle::{Demangle, DemangleOptions};
use symbolic::symcache::{SymCache, SymCacheConverter};

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

/// A native debug file converted to a SymCache: the bytes, read on every look-up.
#[derive(Clone)]
pub struct NativeSymbols {
    info: NativeInfo,
    cache: Vec<u8>,
}

impl std::fmt::Debug for NativeSymbols {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeSymbols")
            .field("info", &self.info)
            .field("cache_bytes", &self.cache.len())
            .finish()
    }
}

/// A function name without GCC's clone suffixes (`f.cold`, `f.part.0`, `f.isra.0`,
/// `f.constprop.0`, `f.lto_priv.0`): the symbol-table names of split or specialised copies,
/// where DWARF (and llvm-symbolizer) name the source function `f`.
pub fn without_clone_suffix(name: &str) -> &str {
    let mut name = name;
    loop {
        let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let trimmed = if trimmed.len() < name.len() {
            trimmed.strip_suffix('.').unwrap_or(name)
        } else {
            name
        };
        let next = [
            ".cold",
            ".part",
            ".isra",
            ".constprop",
            ".lto_priv",
            ".localalias",
        ]
        .iter()
        .find_map(|s| trimmed.strip_suffix(s))
        .filter(|rest| !rest.is_empty());
        match next {
            Some(rest) => name = rest,
            None => return name,
        }
    }
}

/// The first bytes of our SymCache file: info, then symbolic's SymCache.
const CACHE_MAGIC: &[u8; 8] = b"SYMNAT\x01\0";

/// Whether bytes look like an object file `symbolic` reads (ELF, Mach-O, PE, PDB, Breakpad).
pub fn is_native(bytes: &[u8]) -> bool {
    !matches!(
        Archive::peek(bytes),
        symbolic::debuginfo::FileFormat::Unknown
            | symbolic::debuginfo::FileFormat::SourceBundle
            | symbolic::debuginfo::FileFormat::Wasm
            | symbolic::debuginfo::FileFormat::PortablePdb
    )
}

impl NativeSymbols {
    /// Converts a native file (the object for `arch`, or the first, in a universal file).
    pub fn convert(bytes: &[u8], arch: Option<&str>) -> Result<Self, NativeError> {
        let archive = Archive::parse(bytes).map_err(|e| NativeError::NotAnObject(e.to_string()))?;
        let mut chosen: Option<Object<'_>> = None;
        for object in archive.objects() {
            let object = object.map_err(|e| NativeError::NotAnObject(e.to_string()))?;
            let fits = arch.is_none_or(|a| object.arch().name() == a);
            if fits {
                chosen = Some(object);
                break;
            }
        }
        let object = chosen.ok_or_else(|| NativeError::NoArch(arch.unwrap_or("any").to_owned()))?;
        if !object.has_symbols() && !object.has_debug_info() {
            return Err(NativeError::NoSymbols);
        }
        let info = NativeInfo {
            format: object.file_format().to_string(),
            arch: object.arch().name().to_owned(),
            debug_id: object.debug_id().breakpad().to_string(),
            code_id: object.code_id().map(|c| c.to_string()),
            has_debug_info: object.has_debug_info(),
        };
        let mut converter = SymCacheConverter::new();
        converter
            .process_object(&object)
            .map_err(|e| NativeError::Cache(e.to_string()))?;
        let mut symcache = Vec::new();
        converter
            .serialize(&mut symcache)
            .map_err(|e| NativeError::Cache(e.to_string()))?;
        let this = Self {
            info,
            cache: symcache,
        };
        this.symcache()?;
        Ok(this)
    }

    /// What the file is.
    pub fn info(&self) -> &NativeInfo {
        &self.info
    }

    /// Bytes of the SymCache.
    pub fn cache_len(&self) -> usize {
        self.cache.len()
    }

    fn symcache(&self) -> Result<SymCache<'_>, NativeError> {
        SymCache::parse(&self.cache).map_err(|e| NativeError::Cache(e.to_string()))
    }

    /// The original locations at `addr` (relative to the object's load address: a module
    /// offset for position-independent code), innermost inline frame first.
    pub fn lookup(&self, addr: u64) -> Vec<NativeLocation> {
        let Ok(cache) = self.symcache() else {
            return Vec::new();
        };
        cache
            .lookup(addr)
            .map(|loc| {
                let function = loc.function();
                let name = Name::new(function.name(), NameMangling::Unknown, function.language());
                let demangled = name.try_demangle(DemangleOptions::complete());
                NativeLocation {
                    function: without_clone_suffix(&demangled).to_owned(),
                    file: loc.file().map(|f| f.full_path()),
                    line: Some(loc.line()).filter(|&l| l > 0),
                }
            })
            .collect()
    }

    /// Our cache file: the info and the SymCache, to write beside a workspace.
    pub fn to_cache_bytes(&self) -> Vec<u8> {
        let mut out = CACHE_MAGIC.to_vec();
        let fields = [
            self.info.format.as_str(),
            self.info.arch.as_str(),
            self.info.debug_id.as_str(),
            self.info.code_id.as_deref().unwrap_or(""),
            if self.info.has_debug_info { "1" } else { "0" },
        ];
        for f in fields {
            out.extend_from_slice(&(f.len() as u32).to_le_bytes());
            out.extend_from_slice(f.as_bytes());
        }
        out.extend_from_slice(&self.cache);
        out
    }

    /// Reads [`Self::to_cache_bytes`] back; `None` when the bytes are not such a file or the
    /// SymCache in it does not parse.
    pub fn from_cache_bytes(bytes: &[u8]) -> Option<Self> {
        let mut r = bytes.strip_prefix(CACHE_MAGIC)?;
        let mut field = || -> Option<String> {
            let (len, rest) = r.split_first_chunk::<4>()?;
            let len = u32::from_le_bytes(*len) as usize;
            let s = std::str::from_utf8(rest.get(..len)?).ok()?.to_owned();
            r = &rest[len..];
            Some(s)
        };
        let (format, arch, debug_id, code_id, debug) =
            (field()?, field()?, field()?, field()?, field()?);
        let this = Self {
            info: NativeInfo {
                format,
                arch,
                debug_id,
                code_id: (!code_id.is_empty()).then_some(code_id),
                has_debug_info: debug == "1",
            },
            cache: r.to_vec(),
        };
        this.symcache().ok()?;
        Some(this)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clone_suffixes() {
        assert_eq!(
            without_clone_suffix("cxx_pipeline_run.cold"),
            "cxx_pipeline_run"
        );
        assert_eq!(without_clone_suffix("f.part.0"), "f");
        assert_eq!(without_clone_suffix("f.isra.0.cold"), "f");
        assert_eq!(without_clone_suffix("f.constprop.12"), "f");
        assert_eq!(without_clone_suffix("v2.0"), "v2.0");
        assert_eq!(without_clone_suffix(".cold"), ".cold");
        assert_eq!(without_clone_suffix("ns::f(int)"), "ns::f(int)");
    }
}
