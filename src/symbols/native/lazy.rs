//! Answering a crash's addresses without building a SymCache: only the compilation units
//! that hold the addresses are read, their line programs and function DIEs (inline chains
//! included), through the `addr2line` crate (gimli). A crash has tens of frames; a SymCache
//! pays only for thousands.
//!
//! `addr2line`'s context reads every unit's header, abbreviations and root DIE when it is
//! made, which on a large binary costs more than the look-ups. So [`super::units`] indexes
//! the units itself (headers and root DIEs only, through tables of one declaration), and each
//! set of units an address falls in, with the units their functions' names lead into, gets a
//! context of its own over a `.debug_info` written to hold those units alone. Abbreviation
//! tables are parsed once for every context. Past [`MOST_CONTEXTS`] sets (thousands of
//! addresses over a large binary), and where a chosen context fails, one context over every
//! unit answers.
//!
//! A [`LazyDwarf`] owns the file's bytes (a [`Blob`], usually memory-mapped: only the pages
//! of the units asked for are read), the inflated copies of compressed sections and the
//! written `.debug_info`s; the contexts borrow them (`self_cell`). They cache what they
//! parsed behind interior mutability, so look-ups take a lock: one at a time, as a crash's
//! frames come.
//!
//! Addresses are relative to the object's load address, as [`super::NativeObject::lookup`]
//! takes them. Names are those the SymCache writer gives: the outermost function's from the
//! symbol table where it has one, else DWARF's, demangled and without clone suffixes; code
//! that the line table covers but no DWARF function does gets its file and line and the
//! symbol table's name. One difference, where the SymCache is the odd one: a function GCC
//! split into hot and `.cold` parts is named by the SymCache after its lowest symbol (the
//! cold one) everywhere, here after the symbol that holds the address, as llvm-symbolizer
//! names it. `tests/native_lazy.rs` checks the answers against the SymCache's and
//! llvm-symbolizer's.

use super::units::UnitIndex;
use super::{NativeError, NativeLocation, names};
use crate::model::Blob;
use gimli::{EndianSlice, RunTimeEndian, SectionId};
use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
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

/// What the contexts borrow from: the file's bytes, and which object of it.
struct Owner {
    blob: Blob,
    index: usize,
    /// Sections the file stores compressed, inflated once.
    inflated: Vec<(SectionId, Vec<u8>)>,
    /// The `.debug_info`s written for chosen sets of units ([`UnitIndex::debug_info_of`]),
    /// one slot per context.
    written: Vec<OnceLock<memmap2::Mmap>>,
}

/// Contexts over chosen units at most; past this many, one context over every unit answers
/// (a look-up of thousands of addresses across a large binary).
const MOST_CONTEXTS: usize = 64;

type Context<'d> = addr2line::Context<EndianSlice<'d, RunTimeEndian>>;

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
    owner: &'d Owner,
    /// The DWARF sections the file has.
    sections: Vec<(SectionId, &'d [u8])>,
    endian: RunTimeEndian,
    /// Which units hold which code.
    units: UnitIndex,
    /// Abbreviation tables parsed, by offset (many units share one), for every context.
    tables: RefCell<HashMap<u64, Option<Arc<gimli::Abbreviations>>>>,
    /// The slot of each set of units an address fell in.
    keys: RefCell<HashMap<Vec<u32>, usize>>,
    /// A context per slot (`None`: it could not be written).
    contexts: Vec<OnceCell<Option<Context<'d>>>>,
    /// The context over every unit: built when a chosen set's context fails, or when there
    /// are many sets.
    whole: OnceCell<Option<Context<'d>>>,
    /// How many look-ups a context over chosen units failed, answered by the whole one.
    fell_back: std::cell::Cell<u32>,
    /// The object's load address (DWARF states addresses with it).
    base: u64,
    /// WebAssembly: the code section's start, which DWARF's addresses are counted from
    /// while look-ups come as module offsets (0 for other objects).
    code_offset: u64,
    /// The symbol table's functions, by address (as the SymCache writer reads them).
    symbols: symbolic::debuginfo::SymbolMap<'d>,
}

impl<'d> State<'d> {
    fn new(owner: &'d Owner) -> Result<Self, NativeError> {
        use symbolic::debuginfo::dwarf::{Dwarf as _, Endian};
        let bytes: &'d [u8] = owner.blob.as_slice();
        if super::is_wasm(bytes) {
            return Self::new_wasm(owner, bytes);
        }
        let object = object_at(bytes, owner.index)?;
        let endian = match &object {
            Object::Elf(o) => o.endianity(),
            Object::MachO(o) => o.endianity(),
            _ => Endian::Little,
        };
        let endian = match endian {
            Endian::Little => RunTimeEndian::Little,
            Endian::Big => RunTimeEndian::Big,
        };
        let sections: Vec<(SectionId, &'d [u8])> = ALL_SECTIONS
            .iter()
            .filter_map(|&id| {
                let data: &'d [u8] = match owner.inflated.iter().find(|(s, _)| *s == id) {
                    Some((_, d)) => d,
                    None => match section(&object, id)? {
                        Cow::Borrowed(d) => d,
                        // Compressed sections were inflated into the owner already.
                        Cow::Owned(_) => return None,
                    },
                };
                Some((id, data))
            })
            .collect();
        Ok(Self::with(
            owner,
            sections,
            endian,
            (object.load_address(), 0),
            object.symbol_map(),
        ))
    }

    /// A WebAssembly module, read through its layout ([`super::WasmModule`]): `symbolic`'s
    /// reader validates every function body first, which on a large module costs more than
    /// the look-ups. The symbol table is the `name` section's names at the bodies' starts,
    /// each running to the next body, as `symbolic` gives it.
    fn new_wasm(owner: &'d Owner, bytes: &'d [u8]) -> Result<Self, NativeError> {
        let module =
            super::WasmModule::parse(bytes).map_err(|e| NativeError::NotAnObject(e.to_string()))?;
        let sections = ALL_SECTIONS
            .iter()
            .filter_map(|&id| {
                let range = module.debug_section(id.name())?;
                Some((id, bytes.get(range)?))
            })
            .collect();
        let starts = module.bodies.iter().map(|b| b.start).skip(1);
        let symbols = module
            .bodies
            .iter()
            .zip(starts.map(Some).chain([None]))
            .enumerate()
            .map(|(i, (body, next))| symbolic::debuginfo::Symbol {
                name: module
                    .name(module.imported + i as u32)
                    .map(|n| Cow::Owned(n.to_owned())),
                address: body.start,
                size: next.unwrap_or(body.end) - body.start,
            })
            .collect();
        Ok(Self::with(
            owner,
            sections,
            RunTimeEndian::Little,
            (0, module.code_offset),
            symbols,
        ))
    }

    /// The state over `sections`, its units indexed; `at` is the load address and the code
    /// section's start (see the fields).
    fn with(
        owner: &'d Owner,
        sections: Vec<(SectionId, &'d [u8])>,
        endian: RunTimeEndian,
        at: (u64, u64),
        symbols: symbolic::debuginfo::SymbolMap<'d>,
    ) -> Self {
        let mut state = Self {
            owner,
            sections,
            endian,
            units: UnitIndex::default(),
            tables: RefCell::default(),
            keys: RefCell::default(),
            contexts: (0..MOST_CONTEXTS).map(|_| OnceCell::new()).collect(),
            whole: OnceCell::new(),
            fell_back: std::cell::Cell::new(0),
            base: at.0,
            code_offset: at.1,
            symbols,
        };
        state.units = UnitIndex::new(
            &state.dwarf(None),
            state.section(SectionId::DebugInfo),
            state.section(SectionId::DebugAbbrev),
            state.section(SectionId::DebugLine),
            endian,
        );
        state
    }

    /// A section's bytes (empty when the file lacks it).
    fn section(&self, id: SectionId) -> &'d [u8] {
        self.sections
            .iter()
            .find(|(s, _)| *s == id)
            .map_or(&[][..], |(_, d)| d)
    }

    /// The DWARF sections, with `info` for `.debug_info` when given.
    fn dwarf(&self, info: Option<&'d [u8]>) -> gimli::Dwarf<EndianSlice<'d, RunTimeEndian>> {
        let load = |id: SectionId| -> Result<_, ()> {
            let data = match (id, info) {
                (SectionId::DebugInfo, Some(info)) => info,
                _ => self.section(id),
            };
            Ok(EndianSlice::new(data, self.endian))
        };
        match gimli::Dwarf::load(load) {
            Ok(dwarf) => dwarf,
            Err(()) => unreachable!("loading sections cannot fail"),
        }
    }

    /// The abbreviation table at `offset`, parsed once.
    fn table(&self, offset: u64) -> Option<Arc<gimli::Abbreviations>> {
        self.tables
            .borrow_mut()
            .entry(offset)
            .or_insert_with(|| {
                let debug_abbrev =
                    gimli::DebugAbbrev::new(self.section(SectionId::DebugAbbrev), self.endian);
                let offset = gimli::DebugAbbrevOffset(usize::try_from(offset).ok()?);
                debug_abbrev.abbreviations(offset).ok().map(Arc::new)
            })
            .clone()
    }

    /// A context over the units of `info` (every unit when `None`), whose abbreviation
    /// tables are those at `tables` (parsed once for every context).
    fn context_over(&self, info: Option<&'d [u8]>, tables: &[u64]) -> Option<Context<'d>> {
        let mut dwarf = self.dwarf(info);
        for &offset in tables {
            if let Some(table) = self.table(offset) {
                let offset = gimli::DebugAbbrevOffset(usize::try_from(offset).ok()?);
                dwarf
                    .abbreviations_cache
                    .set::<EndianSlice<'d, RunTimeEndian>>(offset, table);
            }
        }
        if info.is_none() {
            dwarf.populate_abbreviations_cache(gimli::AbbreviationsCacheStrategy::Duplicates);
        }
        addr2line::Context::from_dwarf(dwarf).ok()
    }

    /// The context over every unit.
    fn whole(&self) -> Option<&Context<'d>> {
        self.whole
            .get_or_init(|| self.context_over(None, &[]))
            .as_ref()
    }

    /// Runs `f` with a context that holds the units of `probe` (only those, while there are
    /// few such sets), and again with the context over every unit when the first fails (a
    /// reference into a unit left out); `None` when no unit holds `probe`.
    fn with_context<T>(&self, probe: u64, f: impl Fn(&Context<'d>) -> Option<T>) -> Option<T> {
        let key = self.units.units_at(probe);
        if key.is_empty() {
            // No unit has code there: DWARF has nothing to say.
            return None;
        }
        let slot = {
            let mut keys = self.keys.borrow_mut();
            let next = keys.len();
            match keys.get(&key) {
                Some(&slot) => Some((slot, None)),
                None if next < MOST_CONTEXTS => {
                    keys.insert(key.clone(), next);
                    Some((next, Some(key)))
                }
                None => None,
            }
        };
        let chosen = slot.and_then(|(slot, key)| {
            self.contexts[slot]
                .get_or_init(|| {
                    let key = self
                        .units
                        .with_referenced(&self.dwarf(None), &key?, &mut |o| self.table(o));
                    let info = self.units.debug_info_of(
                        self.section(SectionId::DebugInfo),
                        &key,
                        self.endian,
                    )?;
                    let written = &self.owner.written[slot];
                    let info: &'d [u8] = written.get_or_init(|| info);
                    self.context_over(Some(info), &self.units.tables_of(&key))
                })
                .as_ref()
        });
        if let Some(chosen) = chosen {
            if let Some(answer) = f(chosen) {
                return Some(answer);
            }
            self.fell_back.set(self.fell_back.get() + 1);
        }
        f(self.whole()?)
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
    /// architecture), `object` as read from `blob` already. Reads the headers and the units'
    /// address ranges, nothing more.
    pub fn open(blob: Blob, index: usize, object: &Object<'_>) -> Result<Self, NativeError> {
        let inflated = ALL_SECTIONS
            .iter()
            .filter_map(|&id| match section(object, id)? {
                Cow::Owned(data) => Some((id, data)),
                Cow::Borrowed(_) => None,
            })
            .collect();
        let owner = Owner {
            blob,
            index,
            inflated,
            written: (0..MOST_CONTEXTS).map(|_| OnceLock::new()).collect(),
        };
        let cell = Cell::try_new(owner, |owner| State::new(owner))?;
        Ok(Self {
            cell: Mutex::new(cell),
        })
    }

    /// A WebAssembly module with DWARF, read through its own layout (see `State::new_wasm`).
    pub fn open_wasm(blob: Blob) -> Result<Self, NativeError> {
        let owner = Owner {
            blob,
            index: 0,
            inflated: Vec::new(),
            written: (0..MOST_CONTEXTS).map(|_| OnceLock::new()).collect(),
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

    /// The address `addr` as DWARF states it (plus the load address; a WebAssembly module
    /// offset less the code section's start); `None` for the very last address, where no
    /// code can be (addr2line looks up `probe..probe + 1`), and before a module's code.
    fn probe(&self, addr: u64) -> Option<u64> {
        super::wasm::dwarf_address(addr.checked_add(self.base)?, self.code_offset)
            .filter(|&p| p < u64::MAX)
    }

    /// Whether a DWARF function holds `addr` (relative to the load address).
    fn has_function(&self, addr: u64) -> bool {
        let Some(probe) = self.probe(addr) else {
            return false;
        };
        self.with_context(probe, |ctx| {
            let mut frames = ctx.find_frames(probe).skip_all_loads().ok()?;
            match frames.next() {
                Ok(Some(f)) => Some(f.function.is_some()),
                Ok(None) => Some(false),
                Err(_) => None,
            }
        })
        .unwrap_or(false)
    }

    /// The DWARF frames at `probe`, innermost first; `None` when the context fails.
    fn frames(ctx: &Context<'_>, probe: u64) -> Option<Vec<NativeLocation>> {
        let mut out = Vec::new();
        let mut frames = ctx.find_frames(probe).skip_all_loads().ok()?;
        while let Some(frame) = frames.next().ok()? {
            let name = match &frame.function {
                Some(f) => Some(clean(&f.raw_name().ok()?)),
                None => None,
            };
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
        Some(out)
    }

    fn lookup(&self, addr: u64) -> Vec<NativeLocation> {
        let Some(probe) = self.probe(addr) else {
            return Vec::new();
        };
        let mut out = self
            .with_context(probe, |ctx| Self::frames(ctx, probe))
            .unwrap_or_default();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// In a context over only the units an address falls in (and those its names lead into),
    /// every address of every unit's code answers as in the context over every unit, and no
    /// look-up needs the whole context.
    #[test]
    fn chosen_units_answer_as_every_unit() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
        let mut compared = 0;
        for file in [
            "sentry-symbolic/fixtures/linux/crash.debug",
            "sentry-symbolic/fixtures/macos/crash.dSYM/Contents/Resources/DWARF/crash",
            "crashy/crashy.debug",
            "asan/crashy-asan",
            "rust-xcu/xcu.debug",
        ] {
            let bytes = std::fs::read(root.join(file)).unwrap();
            let blob = Blob::from(bytes);
            let object = object_at(blob.as_slice(), 0).unwrap();
            let lazy = LazyDwarf::open(blob.clone(), 0, &object).unwrap();
            let cell = lazy.cell.lock().unwrap();
            cell.with_dependent(|_, state| {
                let spans: Vec<_> = state.units.spans().collect();
                assert!(!spans.is_empty(), "{file}");
                let units: std::collections::BTreeSet<u32> = spans.iter().map(|s| s.2).collect();
                assert!(
                    units.len() > 1 || file.starts_with("crashy"),
                    "{file}: {units:?}"
                );
                // Code the linker dropped sits at 0 (its tombstone), where no code runs: the
                // whole context reads dropped units' line programs there, the chosen ones not.
                let live = spans.into_iter().filter(|s| s.0 > 0);
                for (begin, end, _) in live.take(MOST_CONTEXTS) {
                    let step = ((end - begin) / 16).max(1);
                    for probe in (begin..end).step_by(step as usize) {
                        let chosen = state.with_context(probe, |c| State::frames(c, probe));
                        let whole = State::frames(state.whole().unwrap(), probe);
                        assert_eq!(chosen, whole, "{file} at {probe:#x}");
                        compared += 1;
                    }
                }
                assert_eq!(state.fell_back.get(), 0, "{file}");
                // Rust (and C++ in a dSYM here) names functions across units.
                let leading = units
                    .iter()
                    .filter(|&&u| {
                        let with =
                            state
                                .units
                                .with_referenced(&state.dwarf(None), &[u], &mut |o| state.table(o));
                        with.len() > 1
                    })
                    .count();
                assert!(
                    leading > 0 || !file.starts_with("rust"),
                    "{file}: {leading}"
                );
            });
        }
        assert!(compared > 500, "{compared}");
    }
}
