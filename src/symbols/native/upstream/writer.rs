//! Our SymCache writer: byte for byte what `symbolic`'s `SymCacheConverter` writes (format
//! version 8) for functions and symbols, with less work per line record.
//!
//! Adapted from `symbolic-symcache` 12.18's `writer.rs` (MIT, Sentry; see
//! `LICENSE-symbolic.txt`). The algorithm, the order in which strings, files, functions and
//! locations are numbered, and the bytes written are theirs; what differs is cost. Their
//! converter hashes three strings and a file record for every line record (2.4 million on our
//! benchmark binary); ours remembers, per top-level function, which file a `FileInfo` became,
//! and hashes small records with FxHash. Function names are cleaned (demangled) here, each
//! distinct name once, as symbolic's converter would write them through a transformer that
//! cleans every name. Range starts are logged per function and applied, sorted, at the end,
//! and two writers can be merged ([`CacheWriter::merge`]). The converter's PE/PDB-only parts
//! (undecorating names, transformers) are left out: those files still go through
//! `symbolic`'s own `process_object`.

use std::collections::BTreeMap;
use std::hash::BuildHasherDefault;

use indexmap::IndexSet;
use rustc_hash::FxHasher;
use symbolic::common::{Arch, DebugId};
use symbolic::debuginfo::{FileInfo, Function, Symbol};
use symbolic::symcache::SymCacheConverter;
use watto::StringTable;

use super::function_builder::FlatFunction;

type FxIndexSet<T> = IndexSet<T, BuildHasherDefault<FxHasher>>;

/// A function's inlinee ranges, and their `(start, call location index)`.
type Scratch = (Vec<std::ops::Range<u32>>, Vec<(u32, u32)>);

/// Names as read → the string offsets of their clean forms.
type Names = rustc_hash::FxHashMap<Box<str>, u32>;

/// Cleans a function name: `None` when it stays as it is.
pub(in crate::symbols::native) type CleanName = fn(&str) -> Option<String>;

/// A file record: string offsets of its compilation directory, directory and name.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
struct File {
    comp_dir_offset: u32,
    directory_offset: u32,
    name_offset: u32,
}

/// A function record.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
struct FunctionRecord {
    name_offset: u32,
    comp_dir_offset: u32,
    entry_pc: u32,
    lang: u32,
}

/// A source location: file, line, function, and the call location it was inlined into.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
struct SourceLocation {
    file_idx: u32,
    line: u32,
    function_idx: u32,
    inlined_into_idx: u32,
}

/// What taking a function does at a range start.
#[derive(Clone, Copy, Debug)]
enum RangeOp {
    /// A line record's location: replaces whatever is there.
    Write(SourceLocation),
    /// A function's entry: only where nothing is, or "no location".
    Entry(SourceLocation),
    /// A function's end: "no location", only where nothing is.
    End,
}

/// Marks an address that belongs to no function (after a function's end).
const NO_SOURCE_LOCATION: SourceLocation = SourceLocation {
    file_idx: u32::MAX,
    line: u32::MAX,
    function_idx: u32::MAX,
    inlined_into_idx: u32::MAX,
};

/// Bytes before the file records: version (8) and header (72).
const HEADER_LEN: usize = 80;

/// The SymCache writer: takes functions and then symbols, in `process_object`'s order.
pub(in crate::symbols::native) struct CacheWriter {
    clean_name: CleanName,
    /// A function or symbol name as read → the string offset of its clean form.
    names: Names,
    /// The `names` of writers merged into this one, with their string offsets → ours: looked
    /// up only when `names` misses (re-hashing them all at the merge cost more).
    merged_names: Vec<(Names, rustc_hash::FxHashMap<u32, u32>)>,
    /// Where the file's bytes are: a name read from them (most are) is known by its place.
    file: std::ops::Range<usize>,
    /// The place (address and length) of a name in the file's bytes → as in `names`.
    names_by_place: rustc_hash::FxHashMap<(usize, usize), u32>,
    /// The place of an inlinee's name in the file's bytes, and its language → the index of
    /// its function record.
    inlinees_by_place: rustc_hash::FxHashMap<(usize, usize, u32), u32>,
    arch: Arch,
    debug_id: DebugId,
    string_table: StringTable,
    files: FxIndexSet<File>,
    functions: FxIndexSet<FunctionRecord>,
    call_locations: FxIndexSet<SourceLocation>,
    /// What taking functions did to range starts, in order: applied all at once when the
    /// writer is sealed (sorting them costs less than keeping a map in order all along).
    ops: Vec<(u32, RangeOp)>,
    /// Range start → its location, and whether a line record's location was written there
    /// (which [`CacheWriter::merge`] lets win over what an earlier writer had): the starts
    /// added after sealing (by symbols), joined after all the others, so that a symbol's
    /// location put where the others have only "no location" replaces it.
    ranges: BTreeMap<u32, (SourceLocation, bool)>,
    /// Range starts in order, as sealing applies `ops`.
    sealed: Vec<(u32, SourceLocation, bool)>,
    /// The range starts of the writers merged into this one, in their own numbering, in
    /// the order merged: joined with `sealed` (and then `ranges`) only as they are written
    /// out, in one sweep.
    merged: Vec<MergedRanges>,
    last_addr: Option<u32>,
    /// Room for the inlinee ranges and call locations of a function being taken, one pair
    /// per inline depth, kept from one function to the next.
    scratch: Vec<Scratch>,
}

impl CacheWriter {
    /// A writer for an object of `arch` with `debug_id`.
    ///
    /// `file` is the file's bytes, which outlive the writer: names read from them are looked
    /// up by their place, without hashing their text.
    pub(in crate::symbols::native) fn new(
        arch: Arch,
        debug_id: DebugId,
        clean_name: CleanName,
        file: &[u8],
    ) -> Self {
        let file = file.as_ptr_range();
        Self {
            clean_name,
            names: Default::default(),
            merged_names: Vec::new(),
            file: file.start as usize..file.end as usize,
            names_by_place: Default::default(),
            inlinees_by_place: Default::default(),
            arch,
            debug_id,
            string_table: StringTable::new(),
            files: Default::default(),
            functions: Default::default(),
            call_locations: Default::default(),
            ops: Vec::new(),
            ranges: BTreeMap::new(),
            sealed: Vec::new(),
            merged: Vec::new(),
            last_addr: None,
            scratch: Vec::new(),
        }
    }

    /// The string offset of `raw`'s clean form.
    fn name_offset(&mut self, raw: &str) -> u32 {
        let place = self
            .in_file(raw)
            .then_some((raw.as_ptr() as usize, raw.len()));
        if let Some(place) = place
            && let Some(&offset) = self.names_by_place.get(&place)
        {
            return offset;
        }
        let offset = self.name_offset_by_text(raw);
        if let Some(place) = place {
            self.names_by_place.insert(place, offset);
        }
        offset
    }

    /// Whether `text` lies in the file's bytes (and outlives the writer).
    fn in_file(&self, text: &str) -> bool {
        let at = text.as_ptr() as usize;
        self.file.contains(&at) && at + text.len() <= self.file.end
    }

    /// The string offset of `raw`'s clean form, looked up by its text.
    fn name_offset_by_text(&mut self, raw: &str) -> u32 {
        if let Some(&offset) = self.names.get(raw) {
            return offset;
        }
        let mut merged = self.merged_names.iter();
        if let Some(offset) = merged.find_map(|(names, strings)| Some(strings[names.get(raw)?])) {
            self.names.insert(raw.into(), offset);
            return offset;
        }
        let offset = match (self.clean_name)(raw) {
            Some(clean) => self.string_table.insert(&clean),
            None => self.string_table.insert(raw),
        } as u32;
        self.names.insert(raw.into(), offset);
        offset
    }

    /// Takes one function and its inlinees (`process_symbolic_function`).
    pub(in crate::symbols::native) fn take_function(&mut self, function: &Function<'_>) {
        self.take_flat(&FlatFunction::from_function(function));
    }

    /// Takes one function and its inlinees, flattened (`process_symbolic_function`).
    pub(in crate::symbols::native) fn take_flat(&mut self, function: &FlatFunction<'_>) {
        let mut memo = FileMemo::default();
        let from = self.ops.len();
        self.function_recursive(function, 0, &[(0x0, u32::MAX)], &mut memo);
        // Sorted now, while in cache: the functions mostly come in address order, so the
        // sort when sealing mostly finds them in order.
        self.ops[from..].sort_by_key(|op| op.0);
    }

    /// The file index of `file` seen from a function compiled in `comp_dir`.
    fn file_index<'f>(
        &mut self,
        memo: &mut FileMemo<'f>,
        file: &'f FileInfo<'f>,
        comp_dir: Option<&'f str>,
    ) -> u32 {
        if let Some(idx) = memo.find(file, comp_dir) {
            return idx;
        }
        let string_table = &mut self.string_table;
        let name_offset = string_table.insert(&file.name_str()) as u32;
        let directory_offset = string_table.insert(&file.dir_str()) as u32;
        let comp_dir_offset = comp_dir.map_or(u32::MAX, |cd| string_table.insert(cd) as u32);
        let (idx, _) = self.files.insert_full(File {
            comp_dir_offset,
            directory_offset,
            name_offset,
        });
        let idx = idx as u32;
        memo.remember(file, comp_dir, idx);
        idx
    }

    /// `process_symbolic_function_recursive` for node `node` of `flat`: inserts this
    /// function's own ranges (those not covered by an inlinee), then recurses into its
    /// inlinees with their call locations. `call_locations` is a non-empty sorted list of
    /// `(address, call location index)`.
    fn function_recursive<'f>(
        &mut self,
        flat: &'f FlatFunction<'f>,
        node: usize,
        call_locations: &[(u32, u32)],
        memo: &mut FileMemo<'f>,
    ) {
        let function = &flat.nodes[node];
        // Empty functions, and those whose address does not fit in a u32, are skipped.
        if function.size == 0 || function.address > u32::MAX as u64 {
            return;
        }
        let comp_dir = std::str::from_utf8(function.compilation_dir).ok();
        let entry_pc = if function.inline {
            u32::MAX
        } else {
            function.address as u32
        };
        let lang = function.name.language() as u32;
        let name = function.name.as_str();
        // An inlinee's record is its name and language alone: one look-up by the name's
        // place finds it, once its first one is numbered.
        let place = (function.inline && self.in_file(name)).then_some((
            name.as_ptr() as usize,
            name.len(),
            lang,
        ));
        let known = place.and_then(|place| self.inlinees_by_place.get(&place).copied());
        let function_idx = known.unwrap_or_else(|| {
            let name_offset = self.name_offset(name);
            let (idx, _) = self.functions.insert_full(FunctionRecord {
                name_offset,
                comp_dir_offset: u32::MAX,
                entry_pc,
                lang,
            });
            if let Some(place) = place {
                self.inlinees_by_place.insert(place, idx as u32);
            }
            idx as u32
        });

        let (mut inlinee_ranges, mut callee_call_locations) =
            self.scratch.pop().unwrap_or_default();
        inlinee_ranges.clear();
        callee_call_locations.clear();
        for inlinee in flat.inlinees_of(node) {
            for line in flat.lines_of(inlinee) {
                let (start, end) = line_boundaries(line.address, line.size);
                inlinee_ranges.push(start..end);
            }
        }
        inlinee_ranges.sort_unstable_by_key(|range| range.start);

        let mut line_iter = flat.lines_of(node).iter();
        let mut call_location_iter = call_locations.iter();
        let mut inline_iter = inlinee_ranges.iter().cloned();
        let mut current_call_location = call_location_iter.next().expect("non-empty");
        let mut next_call_location = call_location_iter.next();
        let mut next_line = line_iter.next();
        let mut next_inline = inline_iter.next();

        while let Some(line) = next_line.take() {
            let (line_range_start, line_range_end) = line_boundaries(line.address, line.size);
            while let Some(next) = next_call_location.filter(|next| next.0 <= line_range_start) {
                current_call_location = next;
                next_call_location = call_location_iter.next();
            }
            let source_location = SourceLocation {
                file_idx: self.file_index(memo, &line.file, comp_dir),
                line: line.line as u32,
                function_idx,
                inlined_into_idx: current_call_location.1,
            };

            // The line is split where inlinee ranges cover it: the uncovered parts are this
            // function's own ranges, the covered parts become its inlinees' call locations.
            let mut current_address = line_range_start;
            while current_address < line_range_end {
                if next_inline
                    .as_ref()
                    .is_none_or(|next| next.start > current_address)
                {
                    self.ops
                        .push((current_address, RangeOp::Write(source_location)));
                }
                if let Some(inline_range) = next_inline.take_if(|next| next.start < line_range_end)
                {
                    let (call_location_idx, _) = self.call_locations.insert_full(source_location);
                    callee_call_locations.push((inline_range.start, call_location_idx as u32));
                    current_address = inline_range.end;
                    next_inline = inline_iter.next();
                } else {
                    current_address = line_range_end;
                }
            }

            next_line = line_iter.next();
            // Lines starting before `current_address` (faulty debug information, or several
            // call-line records for one inlinee range) are skipped.
            while next_line.is_some_and(|next| (next.address as u32) < current_address) {
                next_line = line_iter.next();
            }
        }

        if !function.inline {
            let entry = SourceLocation {
                file_idx: u32::MAX,
                line: 0,
                function_idx,
                inlined_into_idx: u32::MAX,
            };
            self.ops.push((entry_pc, RangeOp::Entry(entry)));
        }

        if !callee_call_locations.is_empty() {
            for inlinee in flat.inlinees_of(node) {
                self.function_recursive(flat, inlinee, &callee_call_locations, memo);
            }
        }
        self.scratch.push((inlinee_ranges, callee_call_locations));

        let function_end = function.address.saturating_add(function.size) as u32;
        let last_addr = self.last_addr.get_or_insert(0);
        if function_end > *last_addr {
            *last_addr = function_end;
        }
        // An explicit "no location" at the function's end, unless something is there.
        self.ops.push((function_end, RangeOp::End));
    }

    /// Appends what `later` took (functions only, no symbols yet) to what this writer took,
    /// as if this writer had taken `later`'s functions itself, after its own.
    ///
    /// Strings, files, functions and call locations are numbered in order of first use, so
    /// `later`'s new ones follow this writer's, renumbered. A range start is `later`'s where
    /// a line record wrote it there (a plain insert, as this writer would have done), or where
    /// this writer has nothing or only "no location"; otherwise (`later` only marked a
    /// function's end or entry, which never replace a real location) it stays this writer's.
    /// The caller makes sure `later` holds no function range this writer already had (that
    /// one would have been skipped by the DWARF reader).
    pub(in crate::symbols::native) fn merge(&mut self, mut later: CacheWriter) {
        later.seal();
        let bytes = later.string_table.into_bytes();
        let mut strings: rustc_hash::FxHashMap<u32, u32> = Default::default();
        let mut at = 0;
        while let Some((len, n)) = bytes.get(at..).and_then(read_leb128) {
            let Some(text) = bytes
                .get(at + n..at + n + len)
                .and_then(|b| std::str::from_utf8(b).ok())
            else {
                break;
            };
            strings.insert(at as u32, self.string_table.insert(text) as u32);
            at += n + len;
        }
        let string = |offset: u32| match offset {
            u32::MAX => u32::MAX,
            offset => strings[&offset],
        };
        let index = |map: &[u32], idx: u32| match idx {
            u32::MAX => u32::MAX,
            idx => map[idx as usize],
        };
        // A writer merged into `later` (never the case for a share) has its names moved here.
        for (names, theirs) in later.merged_names {
            for (raw, offset) in names {
                self.names
                    .entry(raw)
                    .or_insert_with(|| string(theirs[&offset]));
            }
        }
        self.files.reserve(later.files.len());
        self.functions.reserve(later.functions.len());
        self.call_locations.reserve(later.call_locations.len());
        let files: Vec<u32> = later
            .files
            .iter()
            .map(|f| {
                let file = File {
                    comp_dir_offset: string(f.comp_dir_offset),
                    directory_offset: string(f.directory_offset),
                    name_offset: string(f.name_offset),
                };
                self.files.insert_full(file).0 as u32
            })
            .collect();
        let functions: Vec<u32> = later
            .functions
            .iter()
            .map(|f| {
                let function = FunctionRecord {
                    name_offset: string(f.name_offset),
                    ..*f
                };
                self.functions.insert_full(function).0 as u32
            })
            .collect();
        let mut calls: Vec<u32> = Vec::with_capacity(later.call_locations.len());
        for s in &later.call_locations {
            let renumbered = SourceLocation {
                file_idx: index(&files, s.file_idx),
                line: s.line,
                function_idx: index(&functions, s.function_idx),
                // A call location only refers to call locations made before it.
                inlined_into_idx: index(&calls, s.inlined_into_idx),
            };
            calls.push(self.call_locations.insert_full(renumbered).0 as u32);
        }
        self.merged_names.push((later.names, strings));
        // Range starts this writer takes later go after `later`'s.
        self.seal();
        let compose = |inner: &[u32], outer: &[u32]| -> Vec<u32> {
            inner.iter().map(|&idx| index(outer, idx)).collect()
        };
        let theirs = later.merged.into_iter().map(|m| MergedRanges {
            sealed: m.sealed,
            files: compose(&m.files, &files),
            functions: compose(&m.functions, &functions),
            calls: compose(&m.calls, &calls),
        });
        let theirs: Vec<MergedRanges> = theirs.collect();
        let own = MergedRanges {
            sealed: later.sealed,
            files,
            functions,
            calls,
        };
        self.merged.extend(std::iter::once(own).chain(theirs));
        self.last_addr = match (self.last_addr, later.last_addr) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }

    /// Applies the range starts taken so far: into `sealed` (a share does it when it has
    /// read its functions, so that merging it has nothing to apply), or, after a merge, as
    /// one more list of them after the merged ones.
    pub(in crate::symbols::native) fn seal(&mut self) {
        for later in [self.applied_ops(), self.take_ranges()]
            .into_iter()
            .flatten()
        {
            if self.merged.is_empty() {
                if self.sealed.is_empty() {
                    self.sealed = later;
                } else {
                    let earlier = std::mem::take(&mut self.sealed);
                    let mut merged = Vec::with_capacity(earlier.len() + later.len());
                    merged.extend(merge_ranges(earlier.into_iter(), later.into_iter()));
                    self.sealed = merged;
                }
            } else {
                // Numbered as this writer numbers: renumbered to itself.
                let same = |len: usize| (0..len as u32).collect();
                self.merged.push(MergedRanges {
                    sealed: later,
                    files: same(self.files.len()),
                    functions: same(self.functions.len()),
                    calls: same(self.call_locations.len()),
                });
            }
        }
    }

    /// `ops` applied in order: the range starts they leave, in order (`None`: no ops).
    fn applied_ops(&mut self) -> Option<Vec<(u32, SourceLocation, bool)>> {
        if self.ops.is_empty() {
            return None;
        }
        Some(self.take_ops().apply().0)
    }

    /// Takes the range starts not applied yet, to be applied elsewhere and put back with
    /// [`CacheWriter::put_first`] before anything else is sealed.
    pub(in crate::symbols::native) fn take_ops(&mut self) -> RangeOps {
        RangeOps(std::mem::take(&mut self.ops))
    }

    /// Puts back what [`CacheWriter::take_ops`] took, applied: after what was sealed before
    /// they were taken, before the writers merged since.
    pub(in crate::symbols::native) fn put_first(&mut self, applied: AppliedRanges) {
        let earlier = std::mem::take(&mut self.sealed);
        self.sealed = if earlier.is_empty() {
            applied.0
        } else {
            merge_ranges(earlier.into_iter(), applied.0.into_iter()).collect()
        };
    }

    /// The range starts added after sealing, in order (`None`: none).
    fn take_ranges(&mut self) -> Option<Vec<(u32, SourceLocation, bool)>> {
        if self.ranges.is_empty() {
            return None;
        }
        let ranges = std::mem::take(&mut self.ranges);
        Some(ranges.into_iter().map(|(k, (s, w))| (k, s, w)).collect())
    }

    /// Whether range start `key` has a location other than "no location" (`None`: nothing
    /// is there), in `sealed`, the merged lists and `ranges` taken in turn.
    fn location_at(&self, key: u32) -> Option<bool> {
        let at = |list: &[(u32, SourceLocation, bool)]| {
            let k = list.binary_search_by_key(&key, |r| r.0).ok()?;
            Some((list[k].1 != NO_SOURCE_LOCATION, list[k].2))
        };
        let lists =
            std::iter::once(&self.sealed[..]).chain(self.merged.iter().map(|m| &m.sealed[..]));
        let added = self
            .ranges
            .get(&key)
            .map(|&(s, w)| (s != NO_SOURCE_LOCATION, w));
        let mut here: Option<(bool, bool)> = None;
        for there in lists.map(at).chain(std::iter::once(added)).flatten() {
            // As `merge_ranges` joins them: the later one where a line record wrote it or
            // where the earlier has "no location".
            here = Some(match here {
                Some(here) if !there.1 && here.0 => (here.0, here.1 || there.1),
                Some(here) => (there.0, here.1 || there.1),
                None => there,
            });
        }
        here.map(|(real, _)| real)
    }

    /// Whether nothing is at range start `key`.
    fn vacant(&self, key: u32) -> bool {
        self.location_at(key).is_none()
    }

    /// Puts `val` at `key` unless a location other than "no location" is there.
    fn insert_source_location(&mut self, key: u32, val: impl FnOnce() -> SourceLocation) {
        if self.location_at(key) != Some(true) {
            // Joined last, it wins over "no location" (or is all there is).
            self.ranges.insert(key, (val(), false));
        }
    }

    /// Takes one symbol of the symbol table (`process_symbolic_symbol`).
    pub(in crate::symbols::native) fn take_symbol(&mut self, symbol: &Symbol<'_>) {
        let Some(name) = symbol.name.as_deref() else {
            return;
        };
        if !self.ops.is_empty() {
            self.seal();
        }
        let name_offset = self.name_offset(name);
        let mut functions = std::mem::take(&mut self.functions);
        // A symbol replaces a "no location" marker but not a location from a function.
        self.insert_source_location(symbol.address as u32, || {
            let (function_idx, _) = functions.insert_full(FunctionRecord {
                name_offset,
                comp_dir_offset: u32::MAX,
                entry_pc: symbol.address as u32,
                lang: u32::MAX,
            });
            SourceLocation {
                file_idx: u32::MAX,
                line: 0,
                function_idx: function_idx as u32,
                inlined_into_idx: u32::MAX,
            }
        });
        self.functions = functions;
        let last_addr = self.last_addr.get_or_insert(0);
        if symbol.address as u32 >= *last_addr {
            self.last_addr = None;
        }
        if symbol.size > 0 {
            let end_address = (symbol.address + symbol.size) as u32;
            if self.vacant(end_address) {
                self.ranges.insert(end_address, (NO_SOURCE_LOCATION, false));
            }
        }
    }

    /// The SymCache's bytes (`serialize`).
    pub(in crate::symbols::native) fn finish(mut self) -> std::io::Result<Vec<u8>> {
        if !self.ops.is_empty() {
            self.seal();
        }
        if let Some(last_addr) = self.last_addr
            && self.vacant(last_addr)
        {
            self.ranges.insert(last_addr, (NO_SOURCE_LOCATION, false));
        }
        // The merged writers' range starts and those added after the merge (by symbols)
        // join this writer's as they are written: `count` is how many there can be.
        let sealed = std::mem::take(&mut self.sealed);
        let merged = std::mem::take(&mut self.merged);
        let added = std::mem::take(&mut self.ranges);
        let count =
            sealed.len() + merged.iter().map(|m| m.sealed.len()).sum::<usize>() + added.len();
        // The version and header as symbolic writes them (its `DebugId` layout included),
        // from an empty converter; the counts are filled in below.
        let mut out = Vec::new();
        let mut empty = SymCacheConverter::new();
        empty.set_arch(self.arch);
        empty.set_debug_id(self.debug_id);
        empty.serialize(&mut out)?;
        if out.len() < HEADER_LEN {
            return Err(std::io::Error::other("unexpected SymCache header"));
        }
        out.truncate(HEADER_LEN);
        let string_bytes = self.string_table.into_bytes();
        let total = HEADER_LEN
            + 12 * self.files.len()
            + 16 * self.functions.len()
            + 16 * (self.call_locations.len() + count)
            + 4 * count
            + string_bytes.len()
            + 32;
        out.reserve(total.saturating_sub(out.len()));
        let put = |out: &mut Vec<u8>, words: &[u32]| {
            for w in words {
                out.extend_from_slice(&w.to_ne_bytes());
            }
        };
        let align = |out: &mut Vec<u8>| out.resize(out.len().next_multiple_of(8), 0);
        for f in &self.files {
            put(
                &mut out,
                &[f.comp_dir_offset, f.directory_offset, f.name_offset],
            );
        }
        align(&mut out);
        for f in &self.functions {
            put(
                &mut out,
                &[f.name_offset, f.comp_dir_offset, f.entry_pc, f.lang],
            );
        }
        align(&mut out);
        let mut ranges: Box<dyn Iterator<Item = (u32, SourceLocation, bool)>> =
            Box::new(sealed.into_iter());
        for later in merged {
            ranges = Box::new(merge_ranges(ranges, later.into_renumbered()));
        }
        let added = added
            .into_iter()
            .map(|(start, (s, written))| (start, s, written));
        let ranges = merge_ranges(ranges, added);
        let mut starts = Vec::with_capacity(count);
        let locations = ranges.map(|(start, location, _)| {
            starts.push(start);
            location
        });
        for s in self.call_locations.iter().cloned().chain(locations) {
            put(
                &mut out,
                &[s.file_idx, s.line, s.function_idx, s.inlined_into_idx],
            );
        }
        align(&mut out);
        let count = starts.len();
        for start in starts {
            put(&mut out, &[start]);
        }
        align(&mut out);
        out.extend_from_slice(&string_bytes);
        let counts = [
            self.files.len(),
            self.functions.len(),
            self.call_locations.len() + count,
            count,
            string_bytes.len(),
        ];
        for (k, count) in counts.into_iter().enumerate() {
            let at = 44 + 4 * k;
            out[at..at + 4].copy_from_slice(&(count as u32).to_ne_bytes());
        }
        Ok(out)
    }
}

/// Range starts taken from a writer, not applied yet.
pub(in crate::symbols::native) struct RangeOps(Vec<(u32, RangeOp)>);

/// Range starts applied: each start once, in order.
pub(in crate::symbols::native) struct AppliedRanges(Vec<(u32, SourceLocation, bool)>);

impl RangeOps {
    /// The range starts these operations leave, made in order.
    pub(in crate::symbols::native) fn apply(self) -> AppliedRanges {
        let mut ops = self.0;
        // Stable: the operations on one start stay in the order they were made.
        ops.sort_by_key(|op| op.0);
        let mut applied: Vec<(u32, SourceLocation, bool)> = Vec::with_capacity(ops.len());
        for (start, op) in ops {
            let here = match applied.last_mut() {
                Some(last) if last.0 == start => Some(last),
                _ => None,
            };
            match (op, here) {
                (RangeOp::Write(location), Some(here)) => *here = (start, location, true),
                (RangeOp::Write(location), None) => applied.push((start, location, true)),
                (RangeOp::Entry(location), Some(here)) => {
                    if here.1 == NO_SOURCE_LOCATION {
                        here.1 = location;
                    }
                }
                (RangeOp::Entry(location), None) => applied.push((start, location, false)),
                (RangeOp::End, Some(_)) => {}
                (RangeOp::End, None) => applied.push((start, NO_SOURCE_LOCATION, false)),
            }
        }
        AppliedRanges(applied)
    }
}

/// The range starts of a writer merged into another, in its own numbering, and how its
/// files, functions and call locations are numbered in the writer it was merged into.
struct MergedRanges {
    sealed: Vec<(u32, SourceLocation, bool)>,
    files: Vec<u32>,
    functions: Vec<u32>,
    calls: Vec<u32>,
}

impl MergedRanges {
    /// The range starts, numbered as in the writer merged into.
    fn into_renumbered(self) -> impl Iterator<Item = (u32, SourceLocation, bool)> {
        let MergedRanges {
            sealed,
            files,
            functions,
            calls,
        } = self;
        sealed.into_iter().map(move |(start, s, written)| {
            let location = SourceLocation {
                file_idx: renumbered(&files, s.file_idx),
                line: s.line,
                function_idx: renumbered(&functions, s.function_idx),
                inlined_into_idx: renumbered(&calls, s.inlined_into_idx),
            };
            (start, location, written)
        })
    }
}

/// `idx` as `map` numbers it; `u32::MAX` (none) stays as it is.
fn renumbered(map: &[u32], idx: u32) -> u32 {
    match idx {
        u32::MAX => u32::MAX,
        idx => map[idx as usize],
    }
}

/// Files numbered while writing one top-level function and its inlinees: most line records
/// repeat the file of the record before them.
#[derive(Default)]
struct FileMemo<'f> {
    seen: Vec<(&'f FileInfo<'f>, Option<&'f str>, u32)>,
    last: usize,
}

impl<'f> FileMemo<'f> {
    /// The file index remembered for `file` in `comp_dir`, compared by content.
    fn find(&mut self, file: &FileInfo<'_>, comp_dir: Option<&str>) -> Option<u32> {
        let hit = |(f, c, _): &(&FileInfo<'_>, Option<&str>, u32)| *c == comp_dir && **f == *file;
        if let Some(entry) = self.seen.get(self.last)
            && hit(entry)
        {
            return Some(entry.2);
        }
        let k = self.seen.iter().position(hit)?;
        self.last = k;
        Some(self.seen[k].2)
    }

    /// Remembers that `file` in `comp_dir` is file `idx`.
    fn remember(&mut self, file: &'f FileInfo<'f>, comp_dir: Option<&'f str>, idx: u32) {
        self.last = self.seen.len();
        self.seen.push((file, comp_dir, idx));
    }
}

/// `earlier`'s range starts and `later`'s, both in order, as one writer taking `earlier`'s
/// functions and then `later`'s would have them: at a start both have, `later`'s location
/// where a line record wrote it there or where `earlier` only has "no location".
fn merge_ranges(
    earlier: impl Iterator<Item = (u32, SourceLocation, bool)>,
    later: impl Iterator<Item = (u32, SourceLocation, bool)>,
) -> impl Iterator<Item = (u32, SourceLocation, bool)> {
    let mut earlier = earlier.peekable();
    let mut later = later.peekable();
    std::iter::from_fn(move || match (earlier.peek(), later.peek()) {
        (Some(here), Some(there)) if there.0 < here.0 => later.next(),
        (Some(here), Some(there)) if there.0 == here.0 => {
            let (here, there) = (earlier.next()?, later.next()?);
            if there.2 || here.1 == NO_SOURCE_LOCATION {
                Some((there.0, there.1, there.2 || here.2))
            } else {
                Some(here)
            }
        }
        (Some(_), _) => earlier.next(),
        (None, _) => later.next(),
    })
}

/// Reads the LEB128 number at the start of `bytes`: its value and length.
fn read_leb128(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut value = 0usize;
    for (k, &b) in bytes.iter().enumerate().take(9) {
        value |= usize::from(b & 0x7f) << (7 * k);
        if b & 0x80 == 0 {
            return Some((value, k + 1));
        }
    }
    None
}

/// A line record's start and end address, clamped to `u32`.
fn line_boundaries(address: u64, size: Option<u64>) -> (u32, u32) {
    let start = address.try_into().unwrap_or(u32::MAX);
    let end = start.saturating_add(size.unwrap_or(1).try_into().unwrap_or(u32::MAX));
    (start, end)
}
