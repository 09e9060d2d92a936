//! Answering a crash's addresses without building a SymCache (issue #21, in progress): only the
//! compilation units that hold the addresses are read, their line programs and function DIEs
//! (inline chains included), through the `addr2line` crate (gimli), as llvm-symbolizer and
//! gimli's `addr2line` do. A crash has tens of frames; a SymCache pays only for thousands.
//!
//! Two steps, because the context borrows the sections: [`LazySections::load`] takes the
//! DWARF sections from the object's bytes (borrowed; a compressed section is inflated and
//! owned), then [`LazySections::context`] gives a [`LazyObject`] to look addresses up in.
//! Addresses are relative to the object's load address, as [`super::NativeObject::lookup`]
//! takes them. Names are those the SymCache writer gives: the outermost function's from the
//! symbol table where it has one, else DWARF's, demangled and without clone suffixes; code
//! that the line table covers but no DWARF function does gets its file and line and the
//! symbol table's name.
//!
//! Not used by the engine yet: `tests/native_lazy.rs` checks that its answers equal the
//! SymCache's on the corpus.

use super::{NativeError, NativeLocation, names};
use gimli::{EndianSlice, RunTimeEndian};
use std::borrow::Cow;

/// The DWARF sections of one object, and what else a look-up needs.
pub struct LazySections<'d> {
    sections: Vec<(gimli::SectionId, Cow<'d, [u8]>)>,
    endian: RunTimeEndian,
    base: u64,
    symbols: symbolic::debuginfo::SymbolMap<'d>,
}

impl std::fmt::Debug for LazySections<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazySections")
            .field("sections", &self.sections.len())
            .field("base", &self.base)
            .finish()
    }
}

/// Looks addresses up in one object's DWARF, reading units as they are asked for.
pub struct LazyObject<'s> {
    ctx: addr2line::Context<EndianSlice<'s, RunTimeEndian>>,
    sections: &'s LazySections<'s>,
}

impl<'d> LazySections<'d> {
    /// The sections of the object in `bytes`: an ELF or Mach-O file (a universal file's
    /// first object), read by `symbolic` as the SymCache conversion reads it.
    pub fn load(bytes: &'d [u8]) -> Result<Self, NativeError> {
        use symbolic::debuginfo::dwarf::{Dwarf as _, Endian};
        use symbolic::debuginfo::{Archive, Object};
        let archive = Archive::parse(bytes).map_err(|e| NativeError::NotAnObject(e.to_string()))?;
        let object = archive
            .object_by_index(0)
            .map_err(|e| NativeError::NotAnObject(e.to_string()))?
            .ok_or_else(|| NativeError::NoArch("any".to_owned()))?;
        let section = |name: &str| -> Option<Cow<'d, [u8]>> {
            match &object {
                Object::Elf(o) => o.section(name).map(|s| s.data),
                Object::MachO(o) => o.section(name).map(|s| s.data),
                _ => None,
            }
        };
        let endian = match &object {
            Object::Elf(o) => o.endianity(),
            Object::MachO(o) => o.endianity(),
            _ => return Err(NativeError::NotAnObject("not ELF or Mach-O".to_owned())),
        };
        let endian = match endian {
            Endian::Little => RunTimeEndian::Little,
            Endian::Big => RunTimeEndian::Big,
        };
        let sections = ALL_SECTIONS
            .iter()
            .filter_map(|id| Some((*id, section(id.name().trim_start_matches('.'))?)))
            .collect();
        // The symbol table's functions, by address (as the SymCache writer reads them):
        // names for code no DWARF function covers.
        let symbols = object.symbol_map();
        Ok(Self {
            sections,
            endian,
            base: object.load_address(),
            symbols,
        })
    }

    /// A context over these sections.
    pub fn context(&'d self) -> Result<LazyObject<'d>, NativeError> {
        let dwarf = gimli::Dwarf::load(|id| -> Result<_, gimli::Error> {
            let data = self
                .sections
                .iter()
                .find(|(s, _)| *s == id)
                .map_or(&[][..], |(_, d)| d.as_ref());
            Ok(EndianSlice::new(data, self.endian))
        })
        .map_err(|e| NativeError::Cache(e.to_string()))?;
        let ctx =
            addr2line::Context::from_dwarf(dwarf).map_err(|e| NativeError::Cache(e.to_string()))?;
        Ok(LazyObject {
            ctx,
            sections: self,
        })
    }

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
}

/// The DWARF sections a look-up reads.
const ALL_SECTIONS: [gimli::SectionId; 12] = [
    gimli::SectionId::DebugAbbrev,
    gimli::SectionId::DebugAddr,
    gimli::SectionId::DebugAranges,
    gimli::SectionId::DebugInfo,
    gimli::SectionId::DebugLine,
    gimli::SectionId::DebugLineStr,
    gimli::SectionId::DebugRanges,
    gimli::SectionId::DebugRngLists,
    gimli::SectionId::DebugStr,
    gimli::SectionId::DebugStrOffsets,
    gimli::SectionId::DebugLoc,
    gimli::SectionId::DebugLocLists,
];

/// A name as the SymCache writer leaves it: demangled, without clone suffixes.
fn clean(raw: &str) -> String {
    names::clean_name(raw).unwrap_or_else(|| raw.to_owned())
}

impl LazyObject<'_> {
    /// The address `addr` as DWARF states it (plus the load address); `None` for the very
    /// last address, where no code can be (addr2line looks up `probe..probe + 1`).
    fn probe(&self, addr: u64) -> Option<u64> {
        addr.checked_add(self.sections.base)
            .filter(|&p| p < u64::MAX)
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

    /// The original locations at `addr` (relative to the object's load address), innermost
    /// inline frame first.
    pub fn lookup(&self, addr: u64) -> Vec<NativeLocation> {
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
            && let Some((start, name)) = self.sections.sized_symbol_at(addr)
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
            && let Some(name) = self.sections.symbol_at(addr)
        {
            outer.function = clean(name);
        }
        out
    }
}
