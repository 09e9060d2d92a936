//! Answering a crash's addresses without building a SymCache: only the compilation units
//! that hold the addresses are read, their line programs and function DIEs (inline chains
//! included), through the `addr2line` crate (gimli), as llvm-symbolizer and gimli's
//! `addr2line` do. A crash has tens of frames; a SymCache pays only for thousands.
//!
//! A [`LazyDwarf`] owns the file's bytes (a [`Blob`], usually memory-mapped: only the pages
//! of the units asked for are read) and the inflated copies of compressed sections; the
//! `addr2line` context borrows them (`self_cell`). The context caches what it parsed behind
//! interior mutability, so look-ups take a lock: one at a time, which a crash's frames need.
//!
//! Addresses are relative to the object's load address, as [`super::NativeObject::lookup`]
//! takes them. Names are those the SymCache writer gives: the outermost function's from the
//! symbol table where it has one, else DWARF's, demangled and without clone suffixes; code
//! that the line table covers but no DWARF function does gets its file and line and the
//! symbol table's name. `tests/native_lazy.rs` checks that the answers equal the SymCache's.

use super::{NativeError, NativeLocation, names};
use crate::model::Blob;
use gimli::{EndianSlice, RunTimeEndian, SectionId};
use std::borrow::Cow;
use std::sync::Mutex;
use symbolic::debuginfo::{Archive, Object};

/// The DWARF sections a look-up reads.
const ALL_SECTIONS: [SectionId; 12] = [
    SectionId::DebugAbbrev,
    SectionId::DebugAddr,
    SectionId::DebugAranges,
    SectionId::DebugInfo,
    SectionId::DebugLine,
    SectionId::DebugLineStr,
    SectionId::DebugRanges,
    SectionId::DebugRngLists,
    SectionId::DebugStr,
    SectionId::DebugStrOffsets,
    SectionId::DebugLoc,
    SectionId::DebugLocLists,
];

/// What the context borrows from: the file's bytes, and which object of it.
struct Owner {
    blob: Blob,
    index: usize,
    /// Sections the file stores compressed, inflated once.
    inflated: Vec<(SectionId, Vec<u8>)>,
}

/// The `index`th object of `bytes`, as `symbolic` reads it; ELF and Mach-O only.
fn object_at(bytes: &[u8], index: usize) -> Result<Object<'_>, NativeError> {
    let archive = Archive::parse(bytes).map_err(|e| NativeError::NotAnObject(e.to_string()))?;
    let object = archive
        .object_by_index(index)
        .map_err(|e| NativeError::NotAnObject(e.to_string()))?
        .ok_or_else(|| NativeError::NoArch("any".to_owned()))?;
    match object {
        Object::Elf(_) | Object::MachO(_) => Ok(object),
        _ => Err(NativeError::NotAnObject("not ELF or Mach-O".to_owned())),
    }
}

/// A DWARF section of `object` by its name without the leading dot (inflated when stored
/// compressed, else borrowed).
fn section<'d>(object: &Object<'d>, id: SectionId) -> Option<Cow<'d, [u8]>> {
    use symbolic::debuginfo::dwarf::Dwarf as _;
    let name = id.name().trim_start_matches('.');
    match object {
        Object::Elf(o) => o.section(name).map(|s| s.data),
        Object::MachO(o) => o.section(name).map(|s| s.data),
        _ => None,
    }
}

/// What a look-up reads, all borrowed from the [`Owner`].
struct State<'d> {
    ctx: addr2line::Context<EndianSlice<'d, RunTimeEndian>>,
    /// The object's load address (DWARF states addresses with it).
    base: u64,
    /// The symbol table's functions, by address (as the SymCache writer reads them).
    symbols: symbolic::debuginfo::SymbolMap<'d>,
}

impl<'d> State<'d> {
    fn new(owner: &'d Owner) -> Result<Self, NativeError> {
        use symbolic::debuginfo::dwarf::{Dwarf as _, Endian};
        let object = object_at(owner.blob.as_slice(), owner.index)?;
        let endian = match &object {
            Object::Elf(o) => o.endianity(),
            Object::MachO(o) => o.endianity(),
            _ => Endian::Little,
        };
        let endian = match endian {
            Endian::Little => RunTimeEndian::Little,
            Endian::Big => RunTimeEndian::Big,
        };
        let dwarf = gimli::Dwarf::load(|id| -> Result<_, gimli::Error> {
            let data: &'d [u8] = match owner.inflated.iter().find(|(s, _)| *s == id) {
                Some((_, d)) => d,
                None => match section(&object, id) {
                    Some(Cow::Borrowed(d)) => d,
                    // Compressed sections were inflated into the owner already.
                    Some(Cow::Owned(_)) | None => &[],
                },
            };
            Ok(EndianSlice::new(data, endian))
        })
        .map_err(|e| NativeError::Cache(e.to_string()))?;
        let ctx =
            addr2line::Context::from_dwarf(dwarf).map_err(|e| NativeError::Cache(e.to_string()))?;
        Ok(Self {
            ctx,
            base: object.load_address(),
            symbols: object.symbol_map(),
        })
    }
}

self_cell::self_cell!(
    struct Cell {
        owner: Owner,
        #[not_covariant]
        dependent: State,
    }
);

/// One object of a native file, answered by reading only the DWARF units asked for.
pub struct LazyDwarf {
    cell: Mutex<Cell>,
}

impl std::fmt::Debug for LazyDwarf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyDwarf").finish_non_exhaustive()
    }
}

impl LazyDwarf {
    /// The `index`th object of an ELF or Mach-O file (a universal file has one per
    /// architecture). Reads the headers and the units' address ranges, nothing more.
    pub fn open(blob: Blob, index: usize) -> Result<Self, NativeError> {
        let object = object_at(blob.as_slice(), index)?;
        let inflated = ALL_SECTIONS
            .iter()
            .filter_map(|&id| match section(&object, id)? {
                Cow::Owned(data) => Some((id, data)),
                Cow::Borrowed(_) => None,
            })
            .collect();
        drop(object);
        let owner = Owner {
            blob,
            index,
            inflated,
        };
        let cell = Cell::try_new(owner, |owner| State::new(owner))?;
        Ok(Self {
            cell: Mutex::new(cell),
        })
    }

    /// The file's bytes.
    pub fn blob(&self) -> Blob {
        let cell = self.cell.lock().unwrap_or_else(|e| e.into_inner());
        cell.borrow_owner().blob.clone()
    }

    /// The original locations at `addr` (relative to the object's load address), innermost
    /// inline frame first.
    pub fn lookup(&self, addr: u64) -> Vec<NativeLocation> {
        // A look-up that panicked left nothing half-written that matters: the context's
        // caches are filled whole or not at all.
        let cell = self.cell.lock().unwrap_or_else(|e| e.into_inner());
        cell.with_dependent(|_, state| state.lookup(addr))
    }
}

/// A name as the SymCache writer leaves it: demangled, without clone suffixes.
fn clean(raw: &str) -> String {
    names::clean_name(raw).unwrap_or_else(|| raw.to_owned())
}

impl State<'_> {
    /// The start and name of a symbol with a size that holds `addr`.
    fn sized_symbol_at(&self, addr: u64) -> Option<(u64, &str)> {
        let s = self.symbols.lookup(addr)?;
        (s.size > 0 && addr < s.address.saturating_add(s.size))
            .then(|| Some((s.address, s.name.as_deref()?)))
            .flatten()
    }

    /// The symbol table's name of the function at `addr` (relative to the load address, as
    /// `symbolic` gives symbols).
    fn symbol_at(&self, addr: u64) -> Option<&str> {
        self.symbols.lookup(addr)?.name.as_deref()
    }

    /// The address `addr` as DWARF states it (plus the load address); `None` for the very
    /// last address, where no code can be (addr2line looks up `probe..probe + 1`).
    fn probe(&self, addr: u64) -> Option<u64> {
        addr.checked_add(self.base).filter(|&p| p < u64::MAX)
    }

    /// Whether a DWARF function holds `addr` (relative to the load address).
    fn has_function(&self, addr: u64) -> bool {
        let Some(probe) = self.probe(addr) else {
            return false;
        };
        let Ok(mut frames) = self.ctx.find_frames(probe).skip_all_loads() else {
            return false;
        };
        matches!(frames.next(), Ok(Some(f)) if f.function.is_some())
    }

    fn lookup(&self, addr: u64) -> Vec<NativeLocation> {
        let mut out = Vec::new();
        let Some(probe) = self.probe(addr) else {
            return out;
        };
        let Ok(mut frames) = self.ctx.find_frames(probe).skip_all_loads() else {
            return out;
        };
        while let Ok(Some(frame)) = frames.next() {
            let name = frame
                .function
                .as_ref()
                .and_then(|f| f.raw_name().ok())
                .map(|n| clean(&n));
            let location = frame.location.as_ref();
            out.push(NativeLocation {
                function: name.unwrap_or_default(),
                // `a/../b` folded as the SymCache's paths are.
                file: location
                    .and_then(|l| l.file)
                    .map(|f| symbolic::common::clean_path(f).into_owned()),
                line: location.and_then(|l| l.line).filter(|&l| l > 0),
            });
        }
        // Code with no DWARF at all (`_start`): the symbol table's name alone, where a sized
        // symbol holds the address (a last symbol with no size does not run on for ever).
        // A symbol whose function DWARF describes is that function's: past its end (padding)
        // nothing answers, as in the SymCache.
        if out.is_empty()
            && let Some((start, name)) = self.sized_symbol_at(addr)
            && !self.has_function(start)
        {
            out.push(NativeLocation {
                function: clean(name),
                file: None,
                line: None,
            });
            return out;
        }
        // The outermost function is named by the symbol table where it has the function, as
        // the SymCache names it (a clone keeps its own name: `f() [clone .constprop.1]`);
        // line-table-only code gets that name too.
        if let Some(outer) = out.last_mut()
            && let Some(name) = self.symbol_at(addr)
        {
            outer.function = clean(name);
        }
        out
    }
}
