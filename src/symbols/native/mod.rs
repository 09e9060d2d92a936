//! Native debug files (ELF/DWARF, Mach-O/dSYM, PE/PDB, Breakpad `.sym`) through `symbolic`:
//! each file is converted once into a SymCache (kept by the caller, e.g. in the workspace
//! cache), and addresses are looked up in it, inline chains innermost first, names demangled.

use crate::model::{ChunkRunner, NoProgress, Progress, Serial};
use std::borrow::Cow;
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use symbolic::common::{Arch, DebugId, Language, Name, NameMangling};
use symbolic::debuginfo::{
    Archive, FileFormat, Function as DebugFunction, Object, ObjectDebugSession, Symbol,
};
use symbolic::demangle::{Demangle, DemangleOptions};
use symbolic::symcache::transform::{Function, Transformer};
use symbolic::symcache::{SymCache, SymCacheConverter};

mod dwarf;
use dwarf::{DwarfInfo, DwarfSections, RangeScan};
mod function_builder;
mod writer;

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

/// One object of a native debug file (a universal Mach-O file has one per architecture)
/// converted to a SymCache: the bytes, read on every look-up.
#[derive(Clone)]
pub struct NativeObject {
    info: NativeInfo,
    /// The SymCache: `range` of `data` (a cache file read back shares one buffer, uncopied).
    data: Arc<Vec<u8>>,
    range: Range<usize>,
    /// A Breakpad file's `MODULE` and `STACK` lines: the call-frame information a minidump's
    /// stacks are walked with.
    cfi: Option<String>,
}

impl std::fmt::Debug for NativeObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeObject")
            .field("info", &self.info)
            .field("cache_bytes", &self.range.len())
            .finish()
    }
}

/// A native debug file converted to SymCaches: one [`NativeObject`] per architecture it
/// holds (never none).
#[derive(Clone, Debug)]
pub struct NativeSymbols {
    objects: Vec<NativeObject>,
}

/// An identifier reduced to lowercase hex digits (`5B85B938-CD9C-…` → `5b85b938cd9c…`).
fn id_digits(id: &str) -> String {
    id.chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The debug ID that Breakpad and symbolic derive from an ELF build ID (hex digits): its
/// first 16 bytes read as a little-endian GUID, so the first three fields are byte-swapped.
fn elf_debug_id(build_id: &str) -> Option<String> {
    let b = build_id.get(..32)?;
    let swap = |s: &str| -> String {
        (0..s.len() / 2)
            .rev()
            .map(|i| &s[2 * i..2 * i + 2])
            .collect()
    };
    Some(format!(
        "{}{}{}{}",
        swap(&b[..8]),
        swap(&b[8..12]),
        swap(&b[12..16]),
        &b[16..]
    ))
}

impl NativeInfo {
    /// Whether a module identifier as a log prints it names this object: an ELF build ID
    /// or a Mach-O UUID (the code ID), a breakpad debug ID, or a UUID without its age.
    pub fn matches_id(&self, id: &str) -> bool {
        let id = id_digits(id);
        if id.is_empty() || id.chars().all(|c| c == '0') {
            return false;
        }
        let debug = id_digits(&self.debug_id);
        self.code_id.as_deref().is_some_and(|c| id_digits(c) == id)
            || debug == id
            || (id.len() == 32 && debug.len() > 32 && debug.starts_with(&id))
            || elf_debug_id(&id).is_some_and(|d| debug.len() >= 32 && debug[..32] == d)
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
const CACHE_MAGIC: &[u8; 8] = b"SYMNAT\x05\0";

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

/// The `MODULE` line, `STACK CFI`/`STACK WIN` records and function records (`FUNC`,
/// `PUBLIC`, which the stack walker uses to check scanned return addresses) of a Breakpad
/// file with CFI; line and inline records are left out.
fn breakpad_cfi(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut out = String::new();
    for line in text.lines() {
        let kept = ["MODULE ", "STACK ", "FUNC ", "PUBLIC "];
        if kept.iter().any(|k| line.starts_with(k)) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.contains("\nSTACK ").then_some(out)
}

/// The demangled, clone-suffix-free form of a function name (C++, Rust legacy and v0; the
/// language is told from the name), or `None` when `raw` is already clean.
fn clean_name(raw: &str) -> Option<String> {
    let name = Name::new(raw, NameMangling::Unknown, Language::Unknown);
    let demangled = name.try_demangle(DemangleOptions::complete());
    let clean = without_clone_suffix(&demangled);
    (clean != raw).then(|| clean.to_owned())
}

/// Clean function names as the SymCache is written. Each distinct name is demangled once:
/// an optimised binary inlines the same functions thousands of times.
#[derive(Default)]
struct NameCleaner {
    /// Mangled name → clean name (`None`: the name stays as it is).
    seen: std::collections::HashMap<String, Option<Arc<str>>>,
}

impl NameCleaner {
    /// The clean form of `raw`, or `None` when it is already clean.
    fn clean(&mut self, raw: &str) -> Option<Arc<str>> {
        if let Some(known) = self.seen.get(raw) {
            return known.clone();
        }
        let clean: Option<Arc<str>> = clean_name(raw).map(Arc::from);
        self.seen.insert(raw.to_owned(), clean.clone());
        clean
    }
}

/// The [`NameCleaner`] as a SymCache transformer, for the objects converted through
/// `symbolic`'s own `process_object` (PE and PDB, whose names it also undecorates).
#[derive(Default)]
struct Demangler(NameCleaner);

impl Transformer for Demangler {
    fn transform_function<'f>(&'f mut self, mut f: Function<'f>) -> Function<'f> {
        if let Some(clean) = self.0.clean(&f.name) {
            f.name = Cow::Owned(clean.to_string());
        }
        f
    }
}

/// What the reading half of a conversion hands to the writing half, in `process_object`'s
/// order: every function of the debug information, then every symbol.
enum Item<'s> {
    Function(DebugFunction<'s>),
    Symbol(Symbol<'s>),
}

fn cache_error(e: impl std::fmt::Display) -> NativeError {
    NativeError::Cache(format!("bad debug file: {e}"))
}

/// The progress phase of a conversion; its unit is a function read (the total is unknown).
pub const BUILD_PHASE: &str = "build SymCache";

/// Reads `object`'s functions and symbols into `emit` (which answers whether to go on),
/// reporting each function to `progress`. Names are cleaned by the writer.
fn read_items<'s>(
    session: &'s ObjectDebugSession<'_>,
    object: &'s Object<'_>,
    progress: &mut dyn Progress,
    emit: &mut dyn FnMut(Item<'s>) -> bool,
) -> Result<(), NativeError> {
    for (n, function) in session.functions().enumerate() {
        if progress.step(BUILD_PHASE, n as u64, 0).is_break() {
            return Err(NativeError::Cancelled);
        }
        let function = function.map_err(cache_error)?;
        if !emit(Item::Function(function)) {
            return Ok(());
        }
    }
    for symbol in object.symbols() {
        if !emit(Item::Symbol(symbol)) {
            return Ok(());
        }
    }
    Ok(())
}

/// The writing half: our SymCache writer fed [`Item`]s.
struct CacheWriter(writer::CacheWriter);

impl CacheWriter {
    fn new(arch: Arch, debug_id: DebugId, file: &[u8]) -> Self {
        Self(writer::CacheWriter::new(arch, debug_id, clean_name, file))
    }

    fn take(&mut self, item: &Item<'_>) {
        match item {
            Item::Function(f) => self.0.take_function(f),
            Item::Symbol(s) => self.0.take_symbol(s),
        }
    }

    fn finish(self) -> Result<Vec<u8>, NativeError> {
        self.0
            .finish()
            .map_err(|e| NativeError::Cache(e.to_string()))
    }
}

/// The SymCache's bytes from a converter that has taken everything.
fn serialize(converter: SymCacheConverter<'_>) -> Result<Vec<u8>, NativeError> {
    let mut out = Vec::new();
    converter
        .serialize(&mut out)
        .map_err(|e| NativeError::Cache(e.to_string()))?;
    Ok(out)
}

/// Functions handed from the reading half to the writing half at most this many ahead.
const PIPE_DEPTH: usize = 64;

/// Builds `object`'s SymCache: what `SymCacheConverter::process_object` does, with names
/// cleaned. PE and PDB files go through `process_object` itself; ELF and Mach-O files through
/// our DWARF reader, in shares ([`build_from_dwarf`]); others (Breakpad) are read by
/// `symbolic` while our writer writes them beside, when `runner` has a second thread.
fn build_symcache(
    object: &Object<'_>,
    runner: &dyn ChunkRunner,
    progress: &mut dyn Progress,
) -> Result<Vec<u8>, NativeError> {
    if matches!(
        object.file_format(),
        FileFormat::Pe | FileFormat::Pdb | FileFormat::PortablePdb
    ) {
        // `process_object` undecorates Windows names, which only it knows to do.
        let mut converter = SymCacheConverter::new();
        converter.add_transformer(Demangler::default());
        converter
            .process_object(object)
            .map_err(|e| NativeError::Cache(e.to_string()))?;
        return serialize(converter);
    }
    if let Some(sections) = dwarf_sections(object) {
        let info = parse_dwarf(object, &sections).map_err(cache_error)?;
        return build_from_dwarf(object, &info, SHARES, runner, progress);
    }
    let session = object.debug_session().map_err(cache_error)?;
    let (arch, debug_id) = (object.arch(), object.debug_id());
    let (tx, rx) = std::sync::mpsc::sync_channel::<Item<'_>>(PIPE_DEPTH);
    // Written items go back to be freed where they were allocated: the reader's allocator
    // then reuses its memory at once (freed elsewhere, it costs fresh pages and locks).
    let (done_tx, done_rx) = std::sync::mpsc::channel::<Item<'_>>();
    let (mut tx, mut rx, mut done_tx) = (Some(tx), Some(rx), Some(done_tx));
    let mut read_result = Ok(());
    let mut written = None;
    // Set when the reader stops early (an error, or cancelled): the writer then skips
    // serializing what it has, so a cancel is honoured at once.
    let read_failed = AtomicBool::new(false);
    let beside = runner.run_beside(
        &mut || {
            if let Some(tx) = tx.take() {
                read_result = read_items(&session, object, &mut *progress, &mut |item| {
                    done_rx.try_iter().for_each(drop);
                    tx.send(item).is_ok()
                });
                read_failed.store(read_result.is_err(), Ordering::Relaxed);
                drop(tx);
                done_rx.iter().for_each(drop);
            }
        },
        &mut || {
            if let (Some(rx), Some(done)) = (rx.take(), done_tx.take()) {
                let mut writer = CacheWriter::new(arch, debug_id, object.data());
                for item in rx {
                    // After a failed or cancelled read, what is queued is only freed.
                    if !read_failed.load(Ordering::Relaxed) {
                        writer.take(&item);
                    }
                    // The reader is gone only when it failed; then the item is freed here.
                    let _ = done.send(item);
                }
                drop(done);
                if !read_failed.load(Ordering::Relaxed) {
                    written = Some(writer.finish());
                }
            }
        },
    );
    if !beside {
        let mut writer = CacheWriter::new(arch, debug_id, object.data());
        read_items(&session, object, progress, &mut |item| {
            writer.take(&item);
            true
        })?;
        return writer.finish();
    }
    read_result?;
    written.unwrap_or_else(|| Err(NativeError::Cache("the SymCache writer stopped".into())))
}

/// How many shares of its units an ELF or Mach-O file's DWARF is read in, side by side.
const SHARES: usize = 2;

/// The DWARF sections of an ELF or Mach-O object, which our reader reads (`None` for other
/// formats).
fn dwarf_sections<'d>(object: &Object<'d>) -> Option<DwarfSections<'d>> {
    match object {
        Object::Elf(elf) => Some(DwarfSections::from_dwarf(elf)),
        Object::MachO(macho) => Some(DwarfSections::from_dwarf(macho)),
        _ => None,
    }
}

/// `object`'s DWARF from its `sections`, ready to be read unit by unit.
fn parse_dwarf<'d, 'o: 'd>(
    object: &Object<'o>,
    sections: &'d DwarfSections<'d>,
) -> Result<DwarfInfo<'d>, symbolic::debuginfo::dwarf::DwarfError> {
    DwarfInfo::parse(
        sections,
        object.symbol_map(),
        object.load_address() as i64,
        object.kind(),
    )
}

/// How much more of the units the first share reads than the second: the second also scans
/// the first's function ranges (about a tenth of reading them) before it reads its own, and
/// is meant to finish first, so that it is the one taking over (which costs it little).
const LEAD: f64 = 1.4;

/// The least the first thread takes over from the second: 1/`STEAL_MIN` of all units'
/// bytes (it must first scan the function ranges of the second's units read so far).
const STEAL_MIN: usize = 64;

/// The least the second thread takes over from the first: 1/`TAKE_BACK_MIN` of all units'
/// bytes (it has scanned all the first's units already, so small halves pay).
const TAKE_BACK_MIN: usize = 1024;

/// What reading one share of a file's units gave.
struct Share {
    /// The share's units, `start..end` (shares are merged in this order).
    start: usize,
    end: usize,
    writer: writer::CacheWriter,
    /// The `(address, size)` of every function range of the units before and in the share.
    seen: BTreeSet<(u64, u64)>,
    /// `Ok` also when the share stopped because another one failed or the build was
    /// cancelled; then its writer is incomplete, and never used.
    result: Result<(), NativeError>,
}

/// Reads the functions of the units `next_unit` hands out (in increasing order, from unit
/// `start` on, with none left out) into a fresh writer; `seen` holds the function ranges of
/// the units before them. `step` is called before each function and answers whether to go on.
/// The writer is sealed unless `seal` is `false` (then [`write_shares`] seals it, beside the
/// merge: the first thread's own share, whose sealing would keep the other waiting).
fn read_share<'d>(
    info: &'d DwarfInfo<'d>,
    start: usize,
    next_unit: &mut dyn FnMut() -> Option<usize>,
    mut seen: BTreeSet<(u64, u64)>,
    new_writer: &dyn Fn() -> writer::CacheWriter,
    step: &mut dyn FnMut() -> bool,
    seal: bool,
) -> Share {
    let mut writer = new_writer();
    let mut end = start;
    let mut claim = || {
        let unit = next_unit()?;
        end = unit + 1;
        Some(unit)
    };
    let result = info
        .functions_of_claimed(&mut claim, &mut seen, &mut |function| {
            if !step() {
                return false;
            }
            writer.take_flat(&function);
            true
        })
        .map_err(cache_error);
    if seal {
        writer.seal();
    }
    Share {
        start,
        end,
        writer,
        seen,
        result,
    }
}

/// [`read_share`] of the units `units`.
fn read_units<'d>(
    info: &'d DwarfInfo<'d>,
    units: Range<usize>,
    seen: BTreeSet<(u64, u64)>,
    new_writer: &dyn Fn() -> writer::CacheWriter,
    step: &mut dyn FnMut() -> bool,
) -> Share {
    let start = units.start;
    let mut units = units;
    read_share(
        info,
        start,
        &mut || units.next(),
        seen,
        new_writer,
        step,
        true,
    )
}

/// Takes the back half, by `.debug_info` bytes, of the units `left` still holds, when they
/// are at least `min` bytes (all of them, if they are one unit): what the thread that is
/// done with its own share reads while the other reads the front half.
fn steal_back_half(
    left: &Mutex<Range<usize>>,
    info: &DwarfInfo<'_>,
    min: usize,
) -> Option<Range<usize>> {
    let mut left = left.lock().ok()?;
    if left.is_empty() {
        return None;
    }
    let begin = match left.start {
        0 => 0,
        start => info.unit_end(start - 1),
    };
    let bytes = info.unit_end(left.end - 1).saturating_sub(begin);
    if bytes < min {
        return None;
    }
    // The first unit that starts in the back half (the last unit, if none does).
    let half = begin + bytes / 2;
    let mut mid = left.start;
    while mid + 1 < left.end && (mid == 0 || info.unit_end(mid - 1) < half) {
        mid += 1;
    }
    let stolen = mid..left.end;
    left.end = mid;
    Some(stolen)
}

/// Reads the units taken over from `units_of` (the other thread's units not started), the
/// back half at a time while that pays, each half a share of its own. A share skips the
/// ranges in `base` and those `scan` found in the units before it; `scan` goes on to the
/// units before a half taken over first. Stops at the first share that fails, or when
/// `stop` answers `true`.
#[allow(
    clippy::too_many_arguments,
    reason = "what a thread brings to the units it takes over: where, what to skip, how to stop"
)]
fn take_over<'d>(
    info: &'d DwarfInfo<'d>,
    units_of: &Mutex<Range<usize>>,
    base: &BTreeSet<(u64, u64)>,
    scan: &mut RangeScan,
    min: usize,
    new_writer: &dyn Fn() -> writer::CacheWriter,
    stop: &dyn Fn() -> bool,
    step: &mut dyn FnMut() -> bool,
) -> Vec<Share> {
    let mut taken = Vec::new();
    while !stop() {
        let Some(units) = steal_back_half(units_of, info, min) else {
            break;
        };
        let between = scan.end()..units.start;
        if let Err(e) = info.function_ranges_of(between, scan, &mut || !stop()) {
            // The other thread meets this error reading these units, and it is reported
            // from there (it comes first in unit order).
            taken.push(Share {
                start: units.start,
                end: units.start,
                writer: new_writer(),
                seen: BTreeSet::new(),
                result: Err(cache_error(e)),
            });
            break;
        }
        if scan.end() < units.start {
            // Stopped while scanning: the build ends without these units.
            break;
        }
        let mut seen = base.clone();
        seen.extend(scan.before(units.start));
        let share = read_units(info, units, seen, new_writer, step);
        let failed = share.result.is_err();
        taken.push(share);
        if failed {
            break;
        }
    }
    taken
}

/// `info`'s units cut into at most `shares` runs of about equal `.debug_info` bytes, the
/// first `lead` times as many as the others.
fn cut_units(info: &DwarfInfo<'_>, shares: usize, lead: f64) -> Vec<Range<usize>> {
    let n = info.unit_count();
    if n == 0 {
        return std::iter::once(0..0).collect();
    }
    let total = info.unit_end(n - 1) as f64;
    let weights = lead + shares.saturating_sub(1) as f64;
    let mut cuts = Vec::new();
    let mut start = 0;
    for k in 1..shares.min(n) {
        let target = (total * (lead + (k - 1) as f64) / weights) as usize;
        let mut end = start + 1;
        while end < n && info.unit_end(end - 1) < target {
            end += 1;
        }
        if end < n {
            cuts.push(start..end);
            start = end;
        }
    }
    cuts.push(start..n);
    cuts
}

/// Builds the SymCache of an ELF or Mach-O object from its DWARF, byte for byte what
/// `process_object` builds: its units are cut into `shares` runs, each read into a writer of
/// its own (the first two side by side when `runner` has a second thread), and the writers
/// merged in unit order; then the symbol table is added. Side by side, the thread done
/// first with its own run takes over the back half of the units the other has not started,
/// each half again a share of its own, as long as that pays.
///
/// `symbolic` skips a function range that an earlier unit already had (C++ inline and
/// template functions are often described in several units), so a share starts from the
/// ranges of the units before it: read in order, it carries them over; beside the first
/// share, it first scans the first share's units for their function ranges alone (and a
/// thread taking over later units scans the ones between).
///
/// When a share fails, the others stop, and the error of the first share that failed is
/// returned (reading in order might have met another error of the first share first).
fn build_from_dwarf<'d>(
    object: &Object<'_>,
    info: &'d DwarfInfo<'d>,
    shares: usize,
    runner: &dyn ChunkRunner,
    progress: &mut dyn Progress,
) -> Result<Vec<u8>, NativeError> {
    let (arch, debug_id) = (object.arch(), object.debug_id());
    let new_writer = || writer::CacheWriter::new(arch, debug_id, clean_name, object.data());
    let cuts = cut_units(info, shares, LEAD);
    let read_count = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let mut cancelled = false;
    let step = |progress: &mut dyn Progress, cancelled: &mut bool| {
        let n = read_count.fetch_add(1, Ordering::Relaxed);
        if progress.step(BUILD_PHASE, n, 0).is_break() {
            *cancelled = true;
            stop.store(true, Ordering::Relaxed);
        }
        !stop.load(Ordering::Relaxed)
    };
    let mut done: Vec<Share> = Vec::new();
    if let [first, second] = &cuts[..] {
        // The units of each thread's share not handed out yet. A thread done with its own
        // share takes the back half of the other's, again and again while that pays: units
        // differ in cost far more than in size, so no cut made beforehand keeps both busy.
        let (left, right) = (Mutex::new(first.clone()), Mutex::new(second.clone()));
        let min = info.unit_end(info.unit_count() - 1) / STEAL_MIN;
        let back_min = info.unit_end(info.unit_count() - 1) / TAKE_BACK_MIN;
        let (mut mine, mut theirs) = (Vec::new(), Vec::new());
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let mut done_tx = Some(done_tx);
        let beside = runner.run_beside(
            &mut || {
                let mut step = || step(progress, &mut cancelled);
                let share = read_share(
                    info,
                    first.start,
                    &mut || left.lock().ok()?.next(),
                    BTreeSet::new(),
                    &new_writer,
                    &mut step,
                    false,
                );
                let mut failed = share.result.is_err();
                // When this share read all its units, the ranges they had are the set to
                // skip from in the other's units, with those of the other's units before.
                if share.end == first.end && !failed {
                    let stop = || stop.load(Ordering::Relaxed);
                    let mut scan = RangeScan::from(second.start);
                    let taken = take_over(
                        info,
                        &right,
                        &share.seen,
                        &mut scan,
                        min,
                        &new_writer,
                        &stop,
                        &mut step,
                    );
                    failed = taken.iter().any(|share| share.result.is_err());
                    mine.extend(taken);
                }
                mine.push(share);
                if failed {
                    stop.store(true, Ordering::Relaxed);
                }
                // Progress and cancelling go on while the other thread reads.
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    done_rx.recv_timeout(std::time::Duration::from_millis(20))
                {
                    let n = read_count.load(Ordering::Relaxed);
                    if progress.step(BUILD_PHASE, n, 0).is_break() {
                        cancelled = true;
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            },
            &mut || {
                let _done = done_tx.take();
                let mut count = || {
                    read_count.fetch_add(1, Ordering::Relaxed);
                    !stop.load(Ordering::Relaxed)
                };
                // The first share's function ranges, which `symbolic` skips in this share
                // and in any units taken over from the first.
                let mut scan = RangeScan::default();
                let scanned = info.function_ranges_of(first.clone(), &mut scan, &mut || {
                    !stop.load(Ordering::Relaxed)
                });
                if let Err(e) = scanned {
                    // Reading the first share meets this error too (or an earlier one),
                    // and that is the one reported.
                    stop.store(true, Ordering::Relaxed);
                    theirs.push(Share {
                        start: second.start,
                        end: second.start,
                        writer: new_writer(),
                        seen: BTreeSet::new(),
                        result: Err(cache_error(e)),
                    });
                    return;
                }
                let share = read_share(
                    info,
                    second.start,
                    &mut || right.lock().ok()?.next(),
                    scan.before(second.start),
                    &new_writer,
                    &mut count,
                    true,
                );
                let mut failed = share.result.is_err();
                theirs.push(share);
                if !failed {
                    let stop = || stop.load(Ordering::Relaxed);
                    let none = BTreeSet::new();
                    let taken = take_over(
                        info,
                        &left,
                        &none,
                        &mut scan,
                        back_min,
                        &new_writer,
                        &stop,
                        &mut count,
                    );
                    failed = taken.iter().any(|share| share.result.is_err());
                    theirs.extend(taken);
                }
                if failed {
                    stop.store(true, Ordering::Relaxed);
                }
            },
        );
        if beside {
            done.append(&mut mine);
            done.append(&mut theirs);
        }
    }
    if done.is_empty() {
        let mut seen = BTreeSet::new();
        for units in &cuts {
            let mut share = read_units(info, units.clone(), seen, &new_writer, &mut || {
                step(progress, &mut cancelled)
            });
            seen = std::mem::take(&mut share.seen);
            let failed = share.result.is_err();
            done.push(share);
            if failed || cancelled {
                break;
            }
        }
    }
    if cancelled {
        return Err(NativeError::Cancelled);
    }
    done.sort_by_key(|share| share.start);
    for share in &mut done {
        std::mem::replace(&mut share.result, Ok(()))?;
    }
    let covered = done.first().is_some_and(|share| share.start == 0)
        && done.windows(2).all(|w| w[0].end == w[1].start)
        && done.last().map(|share| share.end) == Some(info.unit_count());
    if !covered {
        return Err(NativeError::Cache(
            "a share of the debug information was not read".into(),
        ));
    }
    let mut go_on = || {
        let n = read_count.load(Ordering::Relaxed);
        progress.step(BUILD_PHASE, n, 0).is_continue()
    };
    write_shares(object, done, &new_writer, runner, &mut go_on)
}

/// Merges `shares` (read from all the units, in unit order) into the first, adds the symbol
/// table and writes the SymCache; `go_on` is asked between the steps. The range starts the
/// first share's writer has not applied yet are applied beside the merge when `runner` has a
/// second thread.
fn write_shares(
    object: &Object<'_>,
    shares: Vec<Share>,
    new_writer: &dyn Fn() -> writer::CacheWriter,
    runner: &dyn ChunkRunner,
    go_on: &mut dyn FnMut() -> bool,
) -> Result<Vec<u8>, NativeError> {
    let mut shares = shares.into_iter();
    let mut writer = shares.next().map_or_else(new_writer, |share| share.writer);
    let mut ops = Some(writer.take_ops());
    let mut applied = None;
    let mut cancelled = false;
    let mut merge = || {
        for share in shares.by_ref() {
            if !go_on() {
                cancelled = true;
                return;
            }
            writer.merge(share.writer);
        }
    };
    let mut apply = || applied = ops.take().map(writer::RangeOps::apply);
    if !runner.run_beside(&mut merge, &mut apply) {
        merge();
        apply();
    }
    if cancelled {
        return Err(NativeError::Cancelled);
    }
    if let Some(applied) = applied {
        writer.put_first(applied);
    }
    if !go_on() {
        return Err(NativeError::Cancelled);
    }
    for symbol in object.symbols() {
        writer.take_symbol(&symbol);
    }
    if !go_on() {
        return Err(NativeError::Cancelled);
    }
    writer
        .finish()
        .map_err(|e| NativeError::Cache(e.to_string()))
}

/// For the fuzz target: every ELF or Mach-O object of `bytes` gives the same SymCache, or
/// the same error, read in one share, in `shares`, and in two whose second takes over units
/// from the first; the same SymCache as `symbolic`'s own converter; and scanning its units'
/// function ranges gives the ranges reading them adds. Panics when not.
pub(crate) fn check_shares(bytes: &[u8], shares: usize) {
    let Ok(archive) = Archive::parse(bytes) else {
        return;
    };
    for object in archive.objects().flatten() {
        let Some(sections) = dwarf_sections(&object) else {
            continue;
        };
        let Ok(info) = parse_dwarf(&object, &sections) else {
            continue;
        };
        let one = build_from_dwarf(&object, &info, 1, &Serial, &mut NoProgress);
        let many = build_from_dwarf(&object, &info, shares, &Serial, &mut NoProgress);
        assert!(one == many, "one share and {shares} differ");
        let mut converter = SymCacheConverter::new();
        converter.add_transformer(Demangler::default());
        let reference = converter
            .process_object(&object)
            .ok()
            .and_then(|()| serialize(converter).ok());
        assert_eq!(
            one.is_ok(),
            reference.is_some(),
            "symbolic's converter and ours disagree on whether the file converts"
        );
        if let (Ok(ours), Some(theirs)) = (&one, &reference) {
            assert!(ours == theirs, "our SymCache differs from symbolic's");
        }
        // The other thread taking over units from the first (its work run first, so that
        // it takes over all it can).
        let stolen = build_from_dwarf(&object, &info, 2, &OtherFirst, &mut NoProgress);
        assert!(one == stolen, "one share and shares taken over differ");
        let n = info.unit_count();
        let (mut read, mut scan) = (BTreeSet::new(), RangeScan::default());
        if info.functions_of(0..n, &mut read, &mut |_| true).is_ok() {
            let scanned = info.function_ranges_of(0..n, &mut scan, &mut || true);
            assert!(
                scanned.is_ok(),
                "the range scan failed where reading did not"
            );
            assert!(
                scan.before(n) == read,
                "the range scan differs from reading"
            );
        }
    }
}

/// A runner that runs the work meant for a second thread first, then the caller's, on the
/// calling thread: the second thread's share then takes over every unit it can from the
/// first (for checks; the order is the worst case of real threads).
struct OtherFirst;

impl ChunkRunner for OtherFirst {
    fn chunks_for(&self, _len: usize) -> usize {
        1
    }

    fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..n).for_each(task);
    }

    fn run_beside(&self, read: &mut dyn FnMut(), write: &mut (dyn FnMut() + Send)) -> bool {
        write();
        read();
        true
    }
}

fn convert_object(
    object: &Object<'_>,
    bytes: &[u8],
    runner: &dyn ChunkRunner,
    progress: &mut dyn Progress,
) -> Result<NativeObject, NativeError> {
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
    // Names are demangled once here, so look-ups (the warm path) only read them.
    let symcache = build_symcache(object, runner, progress)?;
    let cfi = match object {
        Object::Breakpad(_) => breakpad_cfi(bytes),
        _ => None,
    };
    let this = NativeObject {
        info,
        range: 0..symcache.len(),
        data: Arc::new(symcache),
        cfi,
    };
    this.symcache()?;
    Ok(this)
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
        let archive = Archive::parse(bytes).map_err(|e| NativeError::NotAnObject(e.to_string()))?;
        let mut objects = Vec::new();
        let mut first_error = None;
        for object in archive.objects() {
            let object = object.map_err(|e| NativeError::NotAnObject(e.to_string()))?;
            if arch.is_some_and(|a| object.arch().name() != a) {
                continue;
            }
            match convert_object(&object, bytes, runner, progress) {
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

    /// Bytes of the SymCaches.
    pub fn cache_len(&self) -> usize {
        self.objects.iter().map(|o| o.range.len()).sum()
    }

    /// Our cache file: each object's info and SymCache, to write beside a workspace.
    pub fn to_cache_bytes(&self) -> Vec<u8> {
        let mut out = CACHE_MAGIC.to_vec();
        out.extend_from_slice(&(self.objects.len() as u32).to_le_bytes());
        for o in &self.objects {
            let fields = [
                o.info.format.as_str(),
                o.info.arch.as_str(),
                o.info.debug_id.as_str(),
                o.info.code_id.as_deref().unwrap_or(""),
                if o.info.has_debug_info { "1" } else { "0" },
                o.cfi.as_deref().unwrap_or(""),
            ];
            for f in fields {
                out.extend_from_slice(&(f.len() as u32).to_le_bytes());
                out.extend_from_slice(f.as_bytes());
            }
            out.extend_from_slice(&(o.range.len() as u64).to_le_bytes());
            // SymCaches are read in place, and their records want 8-byte alignment.
            out.resize(out.len().next_multiple_of(8), 0);
            out.extend_from_slice(o.bytes());
        }
        out
    }

    /// Reads [`Self::to_cache_bytes`] back; `None` when the bytes are not such a file or a
    /// SymCache in it does not parse.
    pub fn from_cache_bytes(bytes: &[u8]) -> Option<Self> {
        Self::from_cache(Arc::new(bytes.to_vec()))
    }

    /// [`Self::from_cache_bytes`] on a buffer it keeps: the SymCaches are read in place.
    pub fn from_cache(data: Arc<Vec<u8>>) -> Option<Self> {
        let mut at = CACHE_MAGIC.len();
        if !data.starts_with(CACHE_MAGIC) {
            return None;
        }
        let mut take = |n: usize| -> Option<Range<usize>> {
            let range = at..at.checked_add(n).filter(|&e| e <= data.len())?;
            at = range.end;
            Some(range)
        };
        let bytes = |r: Range<usize>| &data[r];
        let count = u32::from_le_bytes(bytes(take(4)?).try_into().ok()?);
        let mut objects = Vec::new();
        for _ in 0..count {
            let mut field = || -> Option<String> {
                let len = u32::from_le_bytes(bytes(take(4)?).try_into().ok()?) as usize;
                Some(std::str::from_utf8(bytes(take(len)?)).ok()?.to_owned())
            };
            let (format, arch, debug_id, code_id, debug, cfi) =
                (field()?, field()?, field()?, field()?, field()?, field()?);
            let len_at = take(8)?;
            let len = u64::from_le_bytes(bytes(len_at.clone()).try_into().ok()?);
            take(len_at.end.next_multiple_of(8) - len_at.end)?;
            let range = take(usize::try_from(len).ok()?)?;
            let mut o = NativeObject {
                info: NativeInfo {
                    format,
                    arch,
                    debug_id,
                    code_id: (!code_id.is_empty()).then_some(code_id),
                    has_debug_info: debug == "1",
                },
                data: data.clone(),
                range,
                cfi: (!cfi.is_empty()).then_some(cfi),
            };
            if o.symcache().is_err() {
                // A buffer not 8-byte aligned in memory: the SymCache gets its own copy.
                o.data = Arc::new(o.bytes().to_vec());
                o.range = 0..o.data.len();
                o.symcache().ok()?;
            }
            objects.push(o);
        }
        (!objects.is_empty() && at == data.len()).then_some(Self { objects })
    }
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

    /// The SymCache's bytes (symbolic's format).
    pub fn symcache_bytes(&self) -> &[u8] {
        self.bytes()
    }

    fn bytes(&self) -> &[u8] {
        &self.data[self.range.clone()]
    }

    fn symcache(&self) -> Result<SymCache<'_>, NativeError> {
        SymCache::parse(self.bytes()).map_err(|e| NativeError::Cache(e.to_string()))
    }

    /// The original locations at `addr` (relative to the object's load address: a module
    /// offset for position-independent code, `address − image base` for Mach-O), innermost
    /// inline frame first.
    pub fn lookup(&self, addr: u64) -> Vec<NativeLocation> {
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
    use function_builder::FlatFunction;

    /// Read in shares (up to one writer per unit, all merged in order, and with units taken
    /// over by another thread), every corpus file with DWARF still gives symbolic's own
    /// `process_object`'s SymCache, byte for byte.
    #[test]
    fn units_read_in_shares_and_merged_give_symbolics_symcache() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
        let mut merged = 0;
        for file in [
            "crashy/crashy",
            "crashy/crashy.debug",
            "macho/macho_crash.dSYM/Contents/Resources/DWARF/macho_crash",
            "sentry-symbolic/fixtures/linux/crash.debug",
            "sentry-symbolic/fixtures/macos/crash.dSYM/Contents/Resources/DWARF/crash",
            "sentry-symbolic/crashprobe/simulator-CrashProbeiOS.app.dSYM/Contents/Resources/DWARF/CrashProbeiOS",
        ] {
            let bytes = std::fs::read(root.join(file)).unwrap();
            let archive = Archive::parse(&bytes).unwrap();
            for object in archive.objects() {
                let object = object.unwrap();
                let mut converter = SymCacheConverter::new();
                converter.add_transformer(Demangler::default());
                converter.process_object(&object).unwrap();
                let reference = serialize(converter).unwrap();
                let sections = dwarf_sections(&object).expect("ELF or Mach-O");
                let info = parse_dwarf(&object, &sections).unwrap();
                let units = info.unit_count();
                for shares in [1, 2, 3, units] {
                    let cuts = cut_units(&info, shares, LEAD);
                    assert!(cuts.len() <= shares.max(1), "{file}");
                    merged += cuts.len() - 1;
                    let ours =
                        build_from_dwarf(&object, &info, shares, &Serial, &mut NoProgress).unwrap();
                    assert!(
                        ours == reference,
                        "{file}: {units} units in {} shares: not symbolic's SymCache",
                        cuts.len()
                    );
                }
                // Two threads, the second done first (its work runs first) and taking over
                // all it can of the first's units.
                let taken = build_from_dwarf(&object, &info, 2, &OtherFirst, &mut NoProgress);
                assert!(taken.unwrap() == reference, "{file}: units taken over");
            }
        }
        assert!(merged > 20, "only {merged} merges were tried");
    }

    /// A writer that takes functions after a merge, and one whose range starts were applied
    /// apart and put back, write what one writer taking them all in order writes.
    #[test]
    fn functions_taken_after_a_merge_follow_the_merged_ones() {
        let mut tried = 0;
        with_dwarf_objects(&MANY_UNITS, |file, object, info| {
            let new_writer = || new_writer_for(object);
            let n = info.unit_count();
            let (a, b) = (n / 3, 2 * n / 3);
            if a == 0 || b == a {
                return;
            }
            let first = read_units(info, 0..a, BTreeSet::new(), &new_writer, &mut || true);
            let second = read_units(info, a..b, first.seen.clone(), &new_writer, &mut || true);
            let mut writer = first.writer;
            writer.merge(second.writer);
            let (mut seen, mut units) = (second.seen, b..n);
            info.functions_of_claimed(&mut || units.next(), &mut seen, &mut |function| {
                writer.take_flat(&function);
                true
            })
            .unwrap();
            for symbol in object.symbols() {
                writer.take_symbol(&symbol);
            }
            let ours = writer.finish().unwrap();
            let in_order = build_from_dwarf(object, info, 1, &Serial, &mut NoProgress).unwrap();
            assert!(ours == in_order, "{file}: functions taken after a merge");

            // The first share's range starts left unapplied, as the first thread leaves
            // them, and applied while the others merge.
            let mut units = 0..a;
            let first = read_share(
                info,
                0,
                &mut || units.next(),
                BTreeSet::new(),
                &new_writer,
                &mut || true,
                false,
            );
            let rest = read_units(info, a..n, first.seen.clone(), &new_writer, &mut || true);
            let shares = vec![first, rest];
            let ours = write_shares(object, shares, &new_writer, &Serial, &mut || true).unwrap();
            assert!(ours == in_order, "{file}: applied apart");
            tried += 1;
        });
        assert!(tried >= 2, "only {tried} files tried");
    }

    /// A function read flat, made a tree and flattened again is the same (the tree is how
    /// `symbolic` and the Breakpad reader hand functions over).
    #[test]
    fn flat_functions_and_their_trees_are_the_same() {
        let mut inlinees = 0;
        with_dwarf_objects(&MANY_UNITS, |file, _, info| {
            let mut seen = BTreeSet::new();
            info.functions_of(0..info.unit_count(), &mut seen, &mut |flat| {
                inlinees += flat.nodes.len() - 1;
                let tree = flat.to_function();
                assert_eq!(tree.inlinees.len(), flat.inlinees_of(0).count(), "{file}");
                assert!(FlatFunction::from_function(&tree) == flat, "{file}");
                true
            })
            .unwrap();
        });
        assert!(inlinees > 100, "only {inlinees} inlinees");
    }

    /// Corpus files with several units of DWARF.
    const MANY_UNITS: [&str; 3] = [
        "macho/macho_crash.dSYM/Contents/Resources/DWARF/macho_crash",
        "sentry-symbolic/fixtures/linux/crash.debug",
        "sentry-symbolic/crashprobe/simulator-CrashProbeiOS.app.dSYM/Contents/Resources/DWARF/CrashProbeiOS",
    ];

    /// Calls `f` with each file of `files`, each of its objects, and the object's DWARF.
    fn with_dwarf_objects(
        files: &[&str],
        mut f: impl for<'d> FnMut(&str, &Object<'_>, &'d DwarfInfo<'d>),
    ) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
        for file in files {
            let bytes = std::fs::read(root.join(file)).unwrap();
            let archive = Archive::parse(&bytes).unwrap();
            for object in archive.objects() {
                let object = object.unwrap();
                let sections = dwarf_sections(&object).expect("ELF or Mach-O");
                let info = parse_dwarf(&object, &sections).unwrap();
                f(file, &object, &info);
            }
        }
    }

    /// Checks shares read by two threads, one of which took over units from the other: each
    /// share taken over skipped exactly the ranges of the units before it (the bytes alone
    /// would not tell: a duplicate read twice often writes the same bytes), the shares cover
    /// the units, and merged in unit order they give the SymCache read in order.
    fn check_taken_over<'d>(
        file: &str,
        object: &Object<'_>,
        info: &'d DwarfInfo<'d>,
        mut shares: Vec<Share>,
        taken: Vec<Share>,
    ) {
        let n = info.unit_count();
        let mut all = RangeScan::default();
        info.function_ranges_of(0..n, &mut all, &mut || true)
            .unwrap();
        for share in &taken {
            assert!(
                share.seen == all.before(share.end),
                "{file}: units {:?} taken over skip from the wrong ranges",
                share.start..share.end
            );
        }
        shares.extend(taken);
        shares.sort_by_key(|share| share.start);
        assert!(
            shares.windows(2).all(|w| w[0].end == w[1].start)
                && shares.last().map(|s| s.end) == Some(n),
            "{file}: the shares do not cover the units"
        );
        let new_writer = || new_writer_for(object);
        let ours = write_shares(object, shares, &new_writer, &Serial, &mut || true).unwrap();
        let in_order = build_from_dwarf(object, info, 1, &Serial, &mut NoProgress).unwrap();
        assert!(ours == in_order, "{file}: not the SymCache read in order");
    }

    fn new_writer_for(object: &Object<'_>) -> writer::CacheWriter {
        writer::CacheWriter::new(object.arch(), object.debug_id(), clean_name, object.data())
    }

    /// The first thread, done with its own units, takes over the back half of the units the
    /// other has not started, again and again, scanning the ranges of the other's units
    /// before them.
    #[test]
    fn units_taken_over_by_the_first_thread_give_the_symcache_read_in_order() {
        let mut taken_over = 0;
        with_dwarf_objects(&MANY_UNITS, |file, object, info| {
            let new_writer = || new_writer_for(object);
            let n = info.unit_count();
            for k in 1..n.min(6) {
                // The first thread read units 0..k; the other one started k..m.
                let m = k + (n - k) / 3;
                let first = read_units(info, 0..k, BTreeSet::new(), &new_writer, &mut || true);
                let right = Mutex::new(m..n);
                let mut scan = RangeScan::from(k);
                let (seen, stop) = (&first.seen, &|| false);
                let taken = take_over(
                    info,
                    &right,
                    seen,
                    &mut scan,
                    0,
                    &new_writer,
                    stop,
                    &mut || true,
                );
                taken_over += taken.len();
                let mut scan = RangeScan::default();
                info.function_ranges_of(0..k, &mut scan, &mut || true)
                    .unwrap();
                let end = right.into_inner().unwrap().end;
                let other = read_units(info, k..end, scan.before(k), &new_writer, &mut || true);
                check_taken_over(file, object, info, vec![first, other], taken);
            }
        });
        assert!(taken_over > 20, "only {taken_over} shares were taken over");
    }

    /// The same the other way round: the second thread, done with its own units, takes over
    /// the back half of the first's units not started, skipping the ranges its scan of the
    /// first's units found before each.
    #[test]
    fn units_taken_over_by_the_second_thread_give_the_symcache_read_in_order() {
        let mut taken_over = 0;
        with_dwarf_objects(&MANY_UNITS, |file, object, info| {
            let new_writer = || new_writer_for(object);
            let n = info.unit_count();
            for k in (n / 2).max(1)..n {
                // The second thread scanned units 0..k and read k..n; the first one has
                // started 0..j.
                let j = k / 3;
                let mut scan = RangeScan::default();
                info.function_ranges_of(0..k, &mut scan, &mut || true)
                    .unwrap();
                let other = read_units(info, k..n, scan.before(k), &new_writer, &mut || true);
                let left = Mutex::new(j..k);
                let (none, stop) = (&BTreeSet::new(), &|| false);
                let taken = take_over(
                    info,
                    &left,
                    none,
                    &mut scan,
                    0,
                    &new_writer,
                    stop,
                    &mut || true,
                );
                taken_over += taken.len();
                let end = left.into_inner().unwrap().end;
                let first = read_units(info, 0..end, BTreeSet::new(), &new_writer, &mut || true);
                check_taken_over(file, object, info, vec![first, other], taken);
            }
        });
        assert!(taken_over > 20, "only {taken_over} shares were taken over");
    }

    /// The thread done with its own share takes the back half (by bytes) of the units the
    /// other has left, again and again until what is left is too small to pay.
    #[test]
    fn the_back_half_of_the_units_left_is_taken_over() {
        with_cpp_units(|info| {
            let n = info.unit_count();
            let total = info.unit_end(n - 1);
            let bytes = |r: &Range<usize>| match r.start {
                0 => info.unit_end(r.end - 1),
                start => info.unit_end(r.end - 1) - info.unit_end(start - 1),
            };
            let left = Mutex::new(0..n);
            let mut taken = Vec::new();
            while let Some(stolen) = steal_back_half(&left, info, total / STEAL_MIN) {
                let before = left.lock().unwrap().start..stolen.end;
                assert!(bytes(&stolen) <= bytes(&before) / 2 || stolen.len() == 1);
                taken.push(stolen);
            }
            assert!(taken.len() >= 3, "{taken:?}");
            let mut end = n;
            for stolen in &taken {
                assert_eq!(stolen.end, end, "{taken:?}");
                assert!(!stolen.is_empty());
                end = stolen.start;
            }
            let left = left.into_inner().unwrap();
            assert_eq!(left, 0..end);
            assert!(left.is_empty() || bytes(&left) < total / STEAL_MIN);
        });
    }

    /// Calls `f` with the DWARF of `linux/crash.debug`, a C++ file with 20 units, some of
    /// them describing the same inline functions.
    fn with_cpp_units(f: impl for<'d> FnOnce(&'d DwarfInfo<'d>)) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
        let bytes = std::fs::read(root.join("sentry-symbolic/fixtures/linux/crash.debug")).unwrap();
        let archive = Archive::parse(&bytes).unwrap();
        let object = archive.object_by_index(0).unwrap().unwrap();
        let sections = dwarf_sections(&object).expect("ELF");
        let info = parse_dwarf(&object, &sections).unwrap();
        f(&info);
    }

    /// A later share must skip the function ranges the units before it had, as `symbolic`
    /// skips them reading all units in order. Scanning the earlier units' ranges gives exactly
    /// the ranges reading them adds, and with them a share's functions are the serial run's.
    /// Without them, duplicate functions across units would be read twice.
    #[test]
    fn the_range_scan_lets_a_share_skip_what_symbolic_skips() {
        with_cpp_units(|info| {
            let n = info.unit_count();
            let read = |units: Range<usize>, seen: &mut BTreeSet<(u64, u64)>| {
                let mut functions = Vec::new();
                info.functions_of(units, seen, &mut |f| {
                    functions.push((
                        f.nodes[0].address,
                        f.nodes[0].size,
                        f.nodes[0].name.to_string(),
                    ));
                    true
                })
                .unwrap();
                functions
            };
            let mut read_ranges = BTreeSet::new();
            let all = read(0..n, &mut read_ranges);
            let mut scan = RangeScan::default();
            info.function_ranges_of(0..n, &mut scan, &mut || true)
                .unwrap();
            assert_eq!(scan.before(n), read_ranges);
            let mut duplicates_skipped = 0;
            for cut in 1..n {
                let mut seen = scan.before(cut);
                let mut scanned = RangeScan::default();
                info.function_ranges_of(0..cut, &mut scanned, &mut || true)
                    .unwrap();
                assert_eq!(scanned.before(n), seen, "cut at unit {cut}");
                let mut head = read(0..cut, &mut BTreeSet::new());
                let tail = read(cut..n, &mut seen);
                let unskipped = read(cut..n, &mut BTreeSet::new());
                duplicates_skipped += unskipped.len() - tail.len();
                head.extend(tail);
                assert_eq!(head, all, "cut at unit {cut}");
            }
            assert!(duplicates_skipped > 0);
        });
    }

    /// Units are cut into runs that cover them all, in order, none empty.
    #[test]
    fn units_are_cut_into_runs_covering_all() {
        with_cpp_units(|info| {
            let n = info.unit_count();
            assert!(n > 10);
            for shares in 1..=n + 2 {
                let cuts = cut_units(info, shares, LEAD);
                assert!(cuts.len() <= shares);
                assert_eq!(cuts.first().unwrap().start, 0);
                assert_eq!(cuts.last().unwrap().end, n);
                assert!(cuts.iter().all(|r| !r.is_empty()));
                assert!(cuts.windows(2).all(|w| w[0].end == w[1].start));
            }
            assert_eq!(cut_units(info, 2, 1.1).len(), 2);
        });
    }

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
            whole.to_cache_bytes()
                == NativeSymbols::convert(&bytes, None)
                    .unwrap()
                    .to_cache_bytes()
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

    #[test]
    fn elf_build_ids_give_breakpad_debug_ids() {
        // crashy's build ID and the MODULE line of `dump_syms crashy`.
        assert_eq!(
            elf_debug_id("e54b69733c5597151ab4ce8884b9a502430e85c7").as_deref(),
            Some("73694be5553c15971ab4ce8884b9a502")
        );
        let info = NativeInfo {
            format: "breakpad".into(),
            arch: "x86_64".into(),
            debug_id: "73694BE5553C15971AB4CE8884B9A5020".into(),
            code_id: None,
            has_debug_info: true,
        };
        assert!(info.matches_id("e54b69733c5597151ab4ce8884b9a502430e85c7"));
        assert!(info.matches_id("73694BE5-553C-1597-1AB4-CE8884B9A502"));
        assert!(!info.matches_id("00000000-0000-0000-0000-000000000000"));
        assert!(!info.matches_id("e54b69733c5597151ab4ce8884b9a503430e85c7"));
    }

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
