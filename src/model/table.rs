//! `FrameTable`: a loaded log in compact form, for the app to keep.
//!
//! A parsed `Trace` and its `SymbolicatedTrace` hold several `String`s per frame, about
//! 500 bytes a frame. The table keeps the log's text as interned lines (one `u32` per line)
//! and, per frame, an 8-byte record: its raw line and its resolution. A resolution (interned)
//! is the outcome (status, symbol file, note; few distinct ones, interned), the chain of
//! original locations (interned, and each location interned, its strings too) and the
//! generated position looked up. This is Ruby's "locindex" idea: a million-frame stack
//! overflow repeats a handful of lines and locations, so it costs little more than its
//! records. A function name taken from the trace itself is a span of the frame's line, so a
//! million frames named differently by the engine still share their locations.

use super::{
    FrameStatus, LogFormat, NameSource, ResolvedLocation, SymbolicatedFrame, SymbolicatedStack,
    SymbolicatedTrace, Timing, Trace,
};
use std::collections::HashMap;
use std::hash::Hash;

/// "No value" in a `u32` id field.
const NONE: u32 = u32::MAX;

/// Interned strings: one buffer and the end of each string in it.
#[derive(Clone, Debug, Default)]
pub struct Strings {
    bytes: String,
    ends: Vec<u32>,
}

impl Strings {
    /// The string `id` (`None` for the "no string" id or an unknown one).
    pub fn get(&self, id: u32) -> Option<&str> {
        let end = *self.ends.get(id as usize)? as usize;
        let start = match id {
            0 => 0,
            _ => self.ends[id as usize - 1] as usize,
        };
        self.bytes.get(start..end)
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * 4
    }
}

/// Builds [`Strings`], deduplicating by a 64-bit hash (checked, so a collision only costs a
/// duplicate). The map is dropped when the table is finished.
#[derive(Default)]
struct StringsBuilder {
    strings: Strings,
    map: HashMap<u64, u32>,
}

impl StringsBuilder {
    fn intern(&mut self, s: &str) -> u32 {
        let h = xxhash_rust::xxh3::xxh3_64(s.as_bytes());
        if let Some(&id) = self.map.get(&h)
            && self.strings.get(id) == Some(s)
        {
            return id;
        }
        let id = self.strings.ends.len() as u32;
        self.strings.bytes.push_str(s);
        self.strings.ends.push(self.strings.bytes.len() as u32);
        self.map.entry(h).or_insert(id);
        id
    }

    fn intern_opt(&mut self, s: Option<&str>) -> u32 {
        s.map_or(NONE, |s| self.intern(s))
    }
}

/// Deduplicates records of any `Copy + Eq + Hash` type into a vector of distinct ones.
struct Dedup<T> {
    items: Vec<T>,
    map: HashMap<T, u32>,
}

impl<T: Copy + Eq + Hash> Dedup<T> {
    fn new() -> Self {
        Self {
            items: Vec::new(),
            map: HashMap::new(),
        }
    }

    fn id(&mut self, item: T) -> u32 {
        *self.map.entry(item).or_insert_with(|| {
            self.items.push(item);
            self.items.len() as u32 - 1
        })
    }
}

/// One stack of the table.
#[derive(Clone, Copy, Debug)]
struct StackRec {
    title: u32,
    /// The header as symbolicated (class names deobfuscated); `title` when not.
    resolved_title: u32,
    title_line: u32,
    crashed: bool,
    first: u32,
    len: u32,
}

/// One frame: 8 bytes of ids.
#[derive(Clone, Copy, Debug)]
struct FrameRec {
    /// The raw line's string id.
    raw: u32,
    /// Index in `resolutions`.
    res: u32,
}

/// Where a frame went: few distinct values when frames repeat, so shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct ResRec {
    /// Index in `outcomes`.
    outcome: u32,
    /// Index in `chains`, or `NONE` when no location.
    chain: u32,
    /// Generated position looked up (0-based), `NONE` line when none.
    gen_line: u32,
    gen_col: u32,
}

/// A location's `function` that is the frame's own name as the engine printed it, kept as a
/// span of the frame's raw line (see `FrameTable::trace_names`): a million different printed
/// names then cost no strings and no locations of their own.
const TRACE_NAME: u32 = u32::MAX - 1;

/// What happened to a frame, apart from where it maps: few distinct values per log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct OutcomeRec {
    status: Option<FrameStatus>,
    symbol_file: u32,
    note: u32,
    library: bool,
}

/// One original location, its strings interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct LocRec {
    function: u32,
    token_name: u32,
    file: u32,
    source_index: u32,
    line: u32,
    column: u32,
    name_source: Option<NameSource>,
    inlined: bool,
    ignored: bool,
}

/// A native frame's address, module offset and module (a string id), by frame index.
#[derive(Clone, Copy, Debug)]
struct AddressRec {
    frame: u32,
    module: u32,
    address: u64,
    module_offset: u64,
}

/// A loaded log, compact: see the module documentation.
#[derive(Clone, Debug)]
pub struct FrameTable {
    /// The log's lines, as string ids.
    lines: Vec<u32>,
    format: LogFormat,
    symbolicated: bool,
    stacks: Vec<StackRec>,
    frames: Vec<FrameRec>,
    resolutions: Vec<ResRec>,
    outcomes: Vec<OutcomeRec>,
    locations: Vec<LocRec>,
    /// `(start, len)` in `chain_locs`.
    chains: Vec<(u32, u32)>,
    chain_locs: Vec<u32>,
    /// Alternative chains per frame (rare: ProGuard ambiguity), sorted by frame.
    alternatives: Vec<(u32, Vec<u32>)>,
    /// Native frames' addresses, sorted by frame (empty for other logs).
    addresses: Vec<AddressRec>,
    /// `(frame, start, len)`: the span of the frame's raw line that its locations' `TRACE_NAME`
    /// function stands for, sorted by frame.
    trace_names: Vec<(u32, u16, u16)>,
    strings: Strings,
    warnings: Vec<String>,
    modules: Vec<crate::model::ModuleCoverage>,
    timings: Vec<Timing>,
}

/// The span `(start, len)` of `raw` that is the function name the frame's locations took from
/// the trace (`NameSource::Trace`), when there is one and it fits in 16 bits.
fn trace_name_span(raw: &str, sym: &SymbolicatedFrame) -> Option<(u16, u16)> {
    let name = std::iter::once(&sym.resolved)
        .chain(&sym.alternatives)
        .flatten()
        .find(|l| l.name_source == Some(NameSource::Trace))?
        .function
        .as_deref()?;
    let start = raw.find(name)?;
    Some((u16::try_from(start).ok()?, u16::try_from(name.len()).ok()?))
}

/// Whether a frame is library code. A resolved frame is when its source is on the map's
/// ignore list (the map's author decides, as in Chrome DevTools); an unresolved one when it is
/// the runtime's own (`node:internal`, native, built-in) or an unmapped `node_modules` file.
fn is_library(frame: &super::Frame, sym: Option<&SymbolicatedFrame>) -> bool {
    if let Some(loc) = sym.and_then(|s| s.resolved.first()) {
        return loc.ignored;
    }
    let Some(input) = &frame.input else {
        return false;
    };
    input.builtin
        || input
            .file
            .as_deref()
            .is_some_and(|p| p.starts_with("node:") || p.contains("node_modules/"))
        || is_java_platform(input)
}

/// Java platform classes (JDK, Android, Kotlin runtime), which no mapping covers.
fn is_java_platform(input: &super::FrameInput) -> bool {
    const PREFIXES: [&str; 10] = [
        "java.",
        "javax.",
        "jdk.",
        "sun.",
        "android.",
        "androidx.",
        "dalvik.",
        "kotlin.",
        "kotlinx.",
        "com.android.internal.",
    ];
    input.column.is_none()
        && input
            .function
            .as_deref()
            .is_some_and(|f| !f.contains(' ') && PREFIXES.iter().any(|p| f.starts_with(p)))
        && input
            .file
            .as_deref()
            .is_none_or(|f| f.ends_with(".java") || f.ends_with(".kt"))
}

impl FrameTable {
    /// The table of `trace` (parsed from `text`) and, once symbolicated, of its `result`.
    pub fn build(text: &str, trace: &Trace, result: Option<&SymbolicatedTrace>) -> Self {
        let mut strings = StringsBuilder::default();
        let mut lines: Vec<u32> = text.lines().map(|l| strings.intern(l)).collect();
        lines.shrink_to_fit();
        let mut outcomes = Dedup::<OutcomeRec>::new();
        let mut resolutions = Dedup::<ResRec>::new();
        let mut trace_names = Vec::new();
        let mut locations = Dedup::<LocRec>::new();
        let mut chains: Vec<(u32, u32)> = Vec::new();
        let mut chain_locs: Vec<u32> = Vec::new();
        let mut chain_ids: HashMap<Vec<u32>, u32> = HashMap::new();
        let mut alternatives = Vec::new();
        let mut addresses = Vec::new();
        let total: usize = trace.stacks.iter().map(|s| s.frames.len()).sum();
        let mut frames = Vec::with_capacity(total);
        let mut stacks = Vec::with_capacity(trace.stacks.len());
        let mut chain_of = |locs: &[ResolvedLocation],
                            trace_name: Option<&str>,
                            strings: &mut StringsBuilder|
         -> u32 {
            if locs.is_empty() {
                return NONE;
            }
            let ids: Vec<u32> = locs
                .iter()
                .map(|l| {
                    let function = match l.function.as_deref() {
                        Some(f)
                            if l.name_source == Some(NameSource::Trace)
                                && trace_name == Some(f) =>
                        {
                            TRACE_NAME
                        }
                        f => strings.intern_opt(f),
                    };
                    locations.id(LocRec {
                        function,
                        token_name: strings.intern_opt(l.token_name.as_deref()),
                        file: strings.intern_opt(l.file.as_deref()),
                        source_index: l.source_index.unwrap_or(NONE),
                        line: l.line.unwrap_or(NONE),
                        column: l.column.unwrap_or(NONE),
                        name_source: l.name_source,
                        inlined: l.inlined,
                        ignored: l.ignored,
                    })
                })
                .collect();
            *chain_ids.entry(ids).or_insert_with_key(|ids| {
                chains.push((chain_locs.len() as u32, ids.len() as u32));
                chain_locs.extend_from_slice(ids);
                chains.len() as u32 - 1
            })
        };
        for (s, stack) in trace.stacks.iter().enumerate() {
            let sym_stack = result.and_then(|r| r.stacks.get(s));
            stacks.push(StackRec {
                title: strings.intern(&stack.title),
                resolved_title: match sym_stack {
                    Some(st) if st.title != stack.title => strings.intern(&st.title),
                    _ => strings.intern(&stack.title),
                },
                title_line: stack.title_line as u32,
                crashed: sym_stack.is_some_and(|st| st.crashed),
                first: frames.len() as u32,
                len: stack.frames.len() as u32,
            });
            for (f, frame) in stack.frames.iter().enumerate() {
                let sym = sym_stack.and_then(|st| st.frames.get(f));
                // The parsers keep each frame's line as it is in the text.
                let raw = match frame.line_no.checked_sub(1).and_then(|i| lines.get(i)) {
                    Some(&id) if strings.strings.get(id) == Some(frame.raw.as_str()) => id,
                    _ => strings.intern(&frame.raw),
                };
                let outcome = outcomes.id(OutcomeRec {
                    status: sym.map(|s| s.status),
                    symbol_file: strings.intern_opt(sym.and_then(|s| s.symbol_file.as_deref())),
                    note: strings.intern_opt(sym.and_then(|s| s.note.as_deref())),
                    library: is_library(frame, sym),
                });
                // A name the engine printed is a span of the raw line, not a string.
                let trace_name =
                    sym.and_then(|s| trace_name_span(&frame.raw, s))
                        .map(|(start, len)| {
                            trace_names.push((frames.len() as u32, start, len));
                            &frame.raw[start as usize..][..len as usize]
                        });
                let chain = sym.map_or(NONE, |s| chain_of(&s.resolved, trace_name, &mut strings));
                if let Some(sym) = sym.filter(|s| !s.alternatives.is_empty()) {
                    let alts = sym
                        .alternatives
                        .iter()
                        .map(|a| chain_of(a, trace_name, &mut strings))
                        .collect();
                    alternatives.push((frames.len() as u32, alts));
                }
                if let Some(input) = frame.input.as_ref().filter(|_| trace.format.is_native())
                    && let Some(address) = input.address
                {
                    addresses.push(AddressRec {
                        frame: frames.len() as u32,
                        module: strings.intern_opt(input.module.as_deref()),
                        address,
                        module_offset: input.module_offset.unwrap_or(u64::MAX),
                    });
                }
                let (gen_line, gen_col) = sym.and_then(|s| s.generated).unwrap_or((NONE, 0));
                let res = resolutions.id(ResRec {
                    outcome,
                    chain,
                    gen_line,
                    gen_col,
                });
                frames.push(FrameRec { raw, res });
            }
        }
        let mut locations = locations.items;
        locations.shrink_to_fit();
        let mut resolutions = resolutions.items;
        resolutions.shrink_to_fit();
        trace_names.shrink_to_fit();
        chains.shrink_to_fit();
        chain_locs.shrink_to_fit();
        let mut strings = strings.strings;
        strings.bytes.shrink_to_fit();
        strings.ends.shrink_to_fit();
        Self {
            lines,
            format: trace.format,
            symbolicated: result.is_some(),
            stacks,
            frames,
            resolutions,
            outcomes: outcomes.items,
            locations,
            chains,
            chain_locs,
            alternatives,
            addresses,
            trace_names,
            strings,
            warnings: result.map(|r| r.warnings.clone()).unwrap_or_default(),
            modules: result.map(|r| r.modules.clone()).unwrap_or_default(),
            timings: result.map(|r| r.timings.clone()).unwrap_or_default(),
        }
    }

    /// The log's text, rebuilt from its lines (line breaks become `\n`), to parse it again.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for &id in &self.lines {
            out.push_str(self.strings.get(id).unwrap_or(""));
            out.push('\n');
        }
        out
    }

    /// Number of lines in the log.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The log's format.
    pub fn format(&self) -> LogFormat {
        self.format
    }

    /// Whether the table holds a symbolication result.
    pub fn is_symbolicated(&self) -> bool {
        self.symbolicated
    }

    /// Number of stacks.
    pub fn stack_count(&self) -> usize {
        self.stacks.len()
    }

    /// Total number of frames.
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// Stack `s`'s title (the error header; empty when the log has none), as symbolicated
    /// (Java class names deobfuscated).
    pub fn stack_title(&self, s: usize) -> &str {
        self.stacks
            .get(s)
            .and_then(|st| self.strings.get(st.resolved_title))
            .unwrap_or("")
    }

    /// Stack `s`'s title exactly as in the log.
    pub fn stack_raw_title(&self, s: usize) -> &str {
        self.stacks
            .get(s)
            .and_then(|st| self.strings.get(st.title))
            .unwrap_or("")
    }

    /// 1-based line of stack `s`'s header in the log (0 when there is none).
    pub fn stack_title_line(&self, s: usize) -> usize {
        self.stacks.get(s).map_or(0, |st| st.title_line as usize)
    }

    /// Number of frames in stack `s`.
    pub fn stack_len(&self, s: usize) -> usize {
        self.stacks.get(s).map_or(0, |st| st.len as usize)
    }

    /// Frame `f` of stack `s`.
    pub fn frame(&self, s: usize, f: usize) -> Option<FrameRef<'_>> {
        let st = self.stacks.get(s)?;
        if f >= st.len as usize {
            return None;
        }
        let index = st.first as usize + f;
        Some(FrameRef {
            table: self,
            rec: self.frames[index],
            index: index as u32,
        })
    }

    /// Skipped symbol files, ambiguous matches and other things a person should know.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Native: the modules of the log and their debug files (the coverage report).
    pub fn modules(&self) -> &[crate::model::ModuleCoverage] {
        &self.modules
    }

    /// The symbolication's timed phases.
    pub fn timings(&self) -> &[Timing] {
        &self.timings
    }

    /// The symbolication result in its owned form (for exports; allocates per frame).
    pub fn to_result(&self) -> Option<SymbolicatedTrace> {
        if !self.symbolicated {
            return None;
        }
        let stacks = (0..self.stacks.len())
            .map(|s| SymbolicatedStack {
                title: self.stack_title(s).to_owned(),
                crashed: self.stacks[s].crashed,
                frames: (0..self.stack_len(s))
                    .filter_map(|f| self.frame(s, f).map(|fr| fr.to_symbolicated()))
                    .collect(),
            })
            .collect();
        Some(SymbolicatedTrace {
            format: self.format,
            stacks,
            warnings: self.warnings.clone(),
            timings: self.timings.clone(),
            modules: self.modules.clone(),
        })
    }

    /// Bytes this table holds on the heap, the log's text included.
    pub fn heap_bytes(&self) -> usize {
        self.lines.capacity() * 4
            + self.stacks.capacity() * size_of::<StackRec>()
            + self.frames.capacity() * size_of::<FrameRec>()
            + self.resolutions.capacity() * size_of::<ResRec>()
            + self.trace_names.capacity() * size_of::<(u32, u16, u16)>()
            + self.outcomes.capacity() * size_of::<OutcomeRec>()
            + self.locations.capacity() * size_of::<LocRec>()
            + self.chains.capacity() * 8
            + self.chain_locs.capacity() * 4
            + self
                .alternatives
                .iter()
                .map(|(_, a)| 32 + a.capacity() * 4)
                .sum::<usize>()
            + self.strings.heap_bytes()
            + self
                .warnings
                .iter()
                .map(|w| 24 + w.capacity())
                .sum::<usize>()
            + self
                .timings
                .iter()
                .map(|t| 32 + t.name.capacity())
                .sum::<usize>()
    }

    fn location<'t>(&'t self, id: u32, trace_name: Option<&'t str>) -> Option<Location<'t>> {
        let l = self.locations.get(id as usize)?;
        let opt = |v: u32| (v != NONE).then_some(v);
        Some(Location {
            function: match l.function {
                TRACE_NAME => trace_name,
                f => self.strings.get(f),
            },
            name_source: l.name_source,
            token_name: self.strings.get(l.token_name),
            file: self.strings.get(l.file),
            source_index: opt(l.source_index),
            line: opt(l.line),
            column: opt(l.column),
            inlined: l.inlined,
            ignored: l.ignored,
        })
    }

    fn chain<'t>(
        &'t self,
        id: u32,
        trace_name: Option<&'t str>,
    ) -> impl Iterator<Item = Location<'t>> + 't {
        let (start, len) = self.chains.get(id as usize).copied().unwrap_or((0, 0));
        self.chain_locs[start as usize..(start + len) as usize]
            .iter()
            .filter_map(move |&l| self.location(l, trace_name))
    }
}

/// One frame of a [`FrameTable`], borrowed.
#[derive(Clone, Copy, Debug)]
pub struct FrameRef<'a> {
    table: &'a FrameTable,
    rec: FrameRec,
    index: u32,
}

impl<'a> FrameRef<'a> {
    /// The line exactly as in the log (without the line break).
    pub fn raw(&self) -> &'a str {
        self.table.strings.get(self.rec.raw).unwrap_or("")
    }

    fn res(&self) -> ResRec {
        self.table.resolutions[self.rec.res as usize]
    }

    fn outcome(&self) -> OutcomeRec {
        self.table.outcomes[self.res().outcome as usize]
    }

    /// The span of the raw line that stands for this frame's `TRACE_NAME` functions.
    fn trace_name(&self) -> Option<&'a str> {
        let names = &self.table.trace_names;
        let i = names.binary_search_by_key(&self.index, |n| n.0).ok()?;
        let (_, start, len) = names[i];
        self.raw()
            .get(start as usize..start as usize + len as usize)
    }

    /// The status (`None` before symbolication).
    pub fn status(&self) -> Option<FrameStatus> {
        self.outcome().status
    }

    /// File name of the symbol file used.
    pub fn symbol_file(&self) -> Option<&'a str> {
        self.table.strings.get(self.outcome().symbol_file)
    }

    /// Why the frame is not resolved.
    pub fn note(&self) -> Option<&'a str> {
        self.table.strings.get(self.outcome().note)
    }

    /// Whether the frame is library code (ignore-listed, runtime, unmapped `node_modules`).
    pub fn is_library(&self) -> bool {
        self.outcome().library
    }

    /// The generated position looked up (0-based line and column).
    pub fn generated(&self) -> Option<(u32, u32)> {
        let r = self.res();
        (r.gen_line != NONE).then_some((r.gen_line, r.gen_col))
    }

    /// Original locations, innermost first (empty unless resolved).
    pub fn locations(&self) -> impl Iterator<Item = Location<'a>> + 'a {
        let table = self.table;
        let chain = self.res().chain;
        let name = self.trace_name();
        (chain != NONE)
            .then(|| table.chain(chain, name))
            .into_iter()
            .flatten()
    }

    /// The first (innermost) original location.
    pub fn location(&self) -> Option<Location<'a>> {
        self.locations().next()
    }

    /// A native frame's address, its module and its offset in the module (when the log's
    /// module map or image list places it).
    pub fn address(&self) -> Option<(u64, Option<&'a str>, Option<u64>)> {
        let table = self.table;
        let i = table
            .addresses
            .binary_search_by_key(&self.index, |a| a.frame)
            .ok()?;
        let a = table.addresses[i];
        Some((
            a.address,
            table.strings.get(a.module),
            Some(a.module_offset).filter(|&o| o != u64::MAX),
        ))
    }

    /// Other possible chains, best first.
    pub fn alternatives(&self) -> Vec<Vec<Location<'a>>> {
        let table = self.table;
        let Ok(i) = table
            .alternatives
            .binary_search_by_key(&self.index, |(f, _)| *f)
        else {
            return Vec::new();
        };
        let name = self.trace_name();
        table.alternatives[i]
            .1
            .iter()
            .map(|&c| table.chain(c, name).collect())
            .collect()
    }

    /// The frame in its owned form.
    pub fn to_symbolicated(&self) -> SymbolicatedFrame {
        SymbolicatedFrame {
            status: self.status().unwrap_or(FrameStatus::Skipped),
            symbol_file: self.symbol_file().map(str::to_owned),
            generated: self.generated(),
            resolved: self.locations().map(|l| l.to_owned()).collect(),
            alternatives: self
                .alternatives()
                .into_iter()
                .map(|c| c.into_iter().map(|l| l.to_owned()).collect())
                .collect(),
            note: self.note().map(str::to_owned),
        }
    }
}

/// One original location of a frame, borrowed from a [`FrameTable`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location<'a> {
    /// Original function name, if known.
    pub function: Option<&'a str>,
    /// Where `function` came from.
    pub name_source: Option<NameSource>,
    /// The `names` entry at the looked-up position.
    pub token_name: Option<&'a str>,
    /// Source path.
    pub file: Option<&'a str>,
    /// Index of the source in its map.
    pub source_index: Option<u32>,
    /// 1-based original line.
    pub line: Option<u32>,
    /// 1-based original column.
    pub column: Option<u32>,
    /// This entry was inlined into the next one.
    pub inlined: bool,
    /// The source is on the map's ignore list.
    pub ignored: bool,
}

impl Location<'_> {
    /// The owned form.
    pub fn to_owned(&self) -> ResolvedLocation {
        ResolvedLocation {
            function: self.function.map(str::to_owned),
            name_source: self.name_source,
            token_name: self.token_name.map(str::to_owned),
            file: self.file.map(str::to_owned),
            source_index: self.source_index,
            line: self.line,
            column: self.column,
            inlined: self.inlined,
            ignored: self.ignored,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Frame, FrameInput, Stack};

    fn sample() -> (&'static str, Trace, SymbolicatedTrace) {
        let text = "Error: boom\r\n    at a (x.js:1:2)\n    at b (node_modules/y.js:3:4)\n    at a (x.js:1:2)";
        let frame = |raw: &str, line_no, file: &str| Frame {
            raw: raw.to_owned(),
            line_no,
            input: Some(FrameInput {
                file: Some(file.to_owned()),
                ..FrameInput::default()
            }),
        };
        let trace = Trace {
            format: LogFormat::V8,
            modules: Vec::new(),
            stacks: vec![Stack {
                title: "Error: boom".to_owned(),
                title_line: 1,
                crashed: true,
                frames: vec![
                    frame("    at a (x.js:1:2)", 2, "x.js"),
                    frame("    at b (node_modules/y.js:3:4)", 3, "node_modules/y.js"),
                    frame("    at a (x.js:1:2)", 4, "x.js"),
                ],
            }],
        };
        let resolved = SymbolicatedFrame {
            status: FrameStatus::Resolved,
            symbol_file: Some("x.js.map".to_owned()),
            generated: Some((0, 1)),
            resolved: vec![ResolvedLocation {
                function: Some("alpha".to_owned()),
                name_source: Some(NameSource::Token),
                file: Some("src/a.ts".to_owned()),
                line: Some(10),
                column: Some(5),
                ..ResolvedLocation::default()
            }],
            alternatives: Vec::new(),
            note: None,
        };
        let missing = SymbolicatedFrame {
            status: FrameStatus::NoSymbols,
            symbol_file: None,
            generated: None,
            resolved: Vec::new(),
            alternatives: vec![resolved.resolved.clone()],
            note: Some("no map for y.js".to_owned()),
        };
        let result = SymbolicatedTrace {
            format: LogFormat::V8,
            stacks: vec![SymbolicatedStack {
                title: "Error: boom".to_owned(),
                crashed: true,
                frames: vec![resolved.clone(), missing, resolved],
            }],
            warnings: vec!["w".to_owned()],
            timings: Vec::new(),
            modules: Vec::new(),
        };
        (text, trace, result)
    }

    #[test]
    fn round_trips_the_result_and_shares_repeats() {
        let (text, trace, result) = sample();
        let table = FrameTable::build(text, &trace, Some(&result));
        assert_eq!(table.to_result(), Some(result));
        assert_eq!(table.frame(0, 0).unwrap().raw(), "    at a (x.js:1:2)");
        assert_eq!(table.frame(0, 2).unwrap().raw(), "    at a (x.js:1:2)");
        assert_eq!(table.stack_title(0), "Error: boom");
        assert!(table.frame(0, 1).unwrap().is_library());
        assert!(!table.frame(0, 0).unwrap().is_library());
        assert!(table.frame(0, 3).is_none() && table.frame(1, 0).is_none());
        // Two frames at one place share one outcome, one chain and one location.
        assert_eq!((table.outcomes.len(), table.chains.len()), (2, 1));
        assert_eq!(table.locations.len(), 1);
        // The two equal lines are one string.
        assert_eq!(table.lines[1], table.lines[3]);
        assert_eq!(
            table.text(),
            "Error: boom\n    at a (x.js:1:2)\n    at b (node_modules/y.js:3:4)\n    at a (x.js:1:2)\n"
        );
        assert_eq!(size_of::<FrameRec>(), 8);
    }

    #[test]
    fn printed_names_are_spans_of_their_lines() {
        let (text, mut trace, mut result) = sample();
        let frames = &mut trace.stacks[0].frames;
        frames[0].raw = "    at Qe.foo (x.js:1:2)".to_owned();
        frames[2].raw = "    at Zr.bar (x.js:1:2)".to_owned();
        let stack = &mut result.stacks[0];
        for (f, name) in [(0, "foo"), (2, "bar")] {
            let loc = &mut stack.frames[f].resolved[0];
            loc.function = Some(name.to_owned());
            loc.name_source = Some(NameSource::Trace);
        }
        // A printed name that is not in the line stays a string of its own.
        stack.frames[1].alternatives[0][0].function = Some("elsewhere".to_owned());
        stack.frames[1].alternatives[0][0].name_source = Some(NameSource::Trace);
        let table = FrameTable::build(text, &trace, Some(&result));
        assert_eq!(table.to_result(), Some(result));
        // The two frames differ only in their printed names: one location, one resolution.
        assert_eq!(table.trace_names.len(), 2);
        assert_eq!(table.frames[0].res, table.frames[2].res);
        assert_eq!(
            table.frame(0, 2).unwrap().location().unwrap().function,
            Some("bar")
        );
    }

    #[test]
    fn unsymbolicated_tables_have_raw_frames_only() {
        let (text, trace, _) = sample();
        let table = FrameTable::build(text, &trace, None);
        assert!(!table.is_symbolicated() && table.to_result().is_none());
        let f = table.frame(0, 1).unwrap();
        assert_eq!(f.status(), None);
        assert_eq!(f.location(), None);
        assert_eq!(f.raw(), "    at b (node_modules/y.js:3:4)");
        assert!(
            f.is_library(),
            "unmapped node_modules frames are library code"
        );
    }
}
