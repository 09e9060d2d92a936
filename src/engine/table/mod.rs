//! `FrameTable`: a log in compact form, parsed and, once symbolicated, with its results; what
//! the window keeps and what the CLI's text and JSON are written from.
//!
//! A parsed `Trace` and its `SymbolicatedTrace` hold several `String`s per frame, about
//! 500 bytes a frame. The table keeps, per frame, its line (an interned string: a million-frame
//! stack overflow repeats a handful of lines) and two ids: what the parser read (an input
//! record) and, once symbolicated, where the frame went (a resolution record). Records are
//! deduplicated, their strings interned, and a name or file read off the frame's own line is
//! a span of that line ([`Text`]), so records that differ only there are one: a million
//! frames each printing another function name still share their records. This is Ruby's
//! "locindex" idea.
//!
//! The parsed part ([`Log`]) is shared: symbolicating the log again (a new map was dropped)
//! builds new results beside the same parsed frames.

mod build;
mod strings;

pub(super) use build::{LogBuilder, ResultsBuilder};

use crate::model::{
    FrameInput, FrameStatus, FrameView, LogFormat, Module, ModuleCoverage, NameSource,
    ResolvedLocation, SymbolicatedFrame, SymbolicatedStack, SymbolicatedTrace, Timing, Trace,
    TraceView,
};
use crate::symbolicate::{ResultSink as _, Summary};
use std::sync::Arc;
use strings::{NONE, Strings, Text};

/// One stack of the log.
#[derive(Clone, Copy, Debug)]
struct StackRec {
    title: u32,
    title_line: u32,
    crashed: bool,
    first: u32,
    len: u32,
}

/// One frame: its line and what the parser read ([`NONE`]: not understood).
#[derive(Clone, Copy, Debug)]
struct FrameRec {
    raw: u32,
    input: u32,
}

/// What the parser read from a frame, apart from native addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct InputRec {
    function: Text,
    file: Text,
    line: u32,
    column: u32,
    builtin: bool,
    /// Library code by what the log says (runtime internals, `node_modules`, JDK classes).
    library: bool,
    /// JavaScript: the position inside eval'd code.
    eval: Text,
}

/// A native frame's address and module, by frame index.
#[derive(Clone, Copy, Debug)]
struct NativeRec {
    frame: u32,
    address: Option<u64>,
    module_offset: Option<u64>,
    wasm_function: Option<u32>,
    module: u32,
    build_id: u32,
    arch: u32,
    return_address: bool,
}

/// The parsed log.
#[derive(Clone, Debug)]
struct Log {
    format: LogFormat,
    stacks: Vec<StackRec>,
    frames: Vec<FrameRec>,
    inputs: Vec<InputRec>,
    /// Sorted by frame; only frames with native fields.
    natives: Vec<NativeRec>,
    /// Native: the modules (images) the log lists.
    modules: Vec<Module>,
    strings: Strings,
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

/// What happened to a frame, apart from where it maps: few distinct values per log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct OutcomeRec {
    status: Option<FrameStatus>,
    symbol_file: u32,
    note: u32,
    library: bool,
}

/// One original location; its function is a span of the frame's line when it is the name the
/// engine printed there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct LocRec {
    function: Text,
    token_name: u32,
    file: u32,
    source_index: u32,
    line: u32,
    column: u32,
    name_source: Option<NameSource>,
    inlined: bool,
    ignored: bool,
}

/// A symbolication's results, parallel to the log's frames.
#[derive(Clone, Debug)]
struct Results {
    /// Per frame, its index in `resolutions`.
    res: Vec<u32>,
    /// Per stack, its header as symbolicated (`NONE`: as in the log).
    titles: Vec<u32>,
    resolutions: Vec<ResRec>,
    outcomes: Vec<OutcomeRec>,
    locations: Vec<LocRec>,
    /// `(start, len)` in `chain_locs`.
    chains: Vec<(u32, u32)>,
    chain_locs: Vec<u32>,
    /// Alternative chains per frame (rare: ProGuard ambiguity), sorted by frame.
    alternatives: Vec<(u32, Vec<u32>)>,
    strings: Strings,
    warnings: Vec<String>,
    modules: Vec<ModuleCoverage>,
    timings: Vec<Timing>,
}

/// A log, compact: see the module documentation.
#[derive(Clone, Debug)]
pub struct FrameTable {
    log: Arc<Log>,
    results: Option<Results>,
}

impl FrameTable {
    /// The table of a parsed trace and, when given, its symbolication (stacks parallel).
    pub fn from_trace(trace: &Trace, result: Option<&SymbolicatedTrace>) -> Self {
        let mut builder = LogBuilder::default();
        trace.clone().replay(&mut builder);
        let parsed = builder.finish();
        let Some(result) = result else {
            return parsed;
        };
        let mut results = ResultsBuilder::new(&parsed);
        for stack in &result.stacks {
            results.stack(&stack.title, stack.crashed);
            for frame in &stack.frames {
                results.frame(frame.clone());
            }
        }
        let summary = Summary {
            warnings: result.warnings.clone(),
            timings: result.timings.clone(),
            modules: result.modules.clone(),
            cancelled: false,
        };
        results.finish(summary)
    }

    /// This log with `results` (its parsed part shared).
    fn with_results(&self, results: Results) -> Self {
        Self {
            log: self.log.clone(),
            results: Some(results),
        }
    }

    /// The log's format.
    pub fn format(&self) -> LogFormat {
        self.log.format
    }

    /// Whether the table holds a symbolication result.
    pub fn is_symbolicated(&self) -> bool {
        self.results.is_some()
    }

    /// Number of stacks.
    pub fn stack_count(&self) -> usize {
        self.log.stacks.len()
    }

    /// Total number of frames.
    pub fn frame_count(&self) -> usize {
        self.log.frames.len()
    }

    /// Stack `s`'s title (the error header; empty when the log has none), as symbolicated
    /// (Java class names deobfuscated).
    pub fn stack_title(&self, s: usize) -> &str {
        self.results
            .as_ref()
            .and_then(|r| r.strings.get(*r.titles.get(s)?))
            .unwrap_or_else(|| self.stack_raw_title(s))
    }

    /// Stack `s`'s title exactly as in the log.
    pub fn stack_raw_title(&self, s: usize) -> &str {
        self.log
            .stacks
            .get(s)
            .and_then(|st| self.log.strings.get(st.title))
            .unwrap_or("")
    }

    /// 1-based line of stack `s`'s header in the log (0 when there is none).
    pub fn stack_title_line(&self, s: usize) -> usize {
        self.log
            .stacks
            .get(s)
            .map_or(0, |st| st.title_line as usize)
    }

    /// Whether stack `s` is the crashing one.
    pub fn stack_crashed(&self, s: usize) -> bool {
        self.log.stacks.get(s).is_some_and(|st| st.crashed)
    }

    /// Number of frames in stack `s`.
    pub fn stack_len(&self, s: usize) -> usize {
        self.log.stacks.get(s).map_or(0, |st| st.len as usize)
    }

    /// Frame `f` of stack `s`.
    pub fn frame(&self, s: usize, f: usize) -> Option<FrameRef<'_>> {
        let st = self.log.stacks.get(s)?;
        (f < st.len as usize).then(|| FrameRef {
            table: self,
            index: st.first + f as u32,
        })
    }

    /// Every frame, in log order, with its stack index.
    pub fn frames(&self) -> impl Iterator<Item = (usize, FrameRef<'_>)> {
        (0..self.stack_count()).flat_map(move |s| {
            (0..self.stack_len(s)).filter_map(move |f| Some((s, self.frame(s, f)?)))
        })
    }

    /// Skipped symbol files, ambiguous matches and other things a person should know.
    pub fn warnings(&self) -> &[String] {
        self.results.as_ref().map_or(&[], |r| &r.warnings)
    }

    /// Native: the modules of the log and their debug files (the coverage report).
    pub fn modules(&self) -> &[ModuleCoverage] {
        self.results.as_ref().map_or(&[], |r| &r.modules)
    }

    /// Native: the modules (images) the log lists, with their load addresses and IDs.
    pub fn log_modules(&self) -> &[Module] {
        &self.log.modules
    }

    /// The symbolication's timed phases.
    pub fn timings(&self) -> &[Timing] {
        self.results.as_ref().map_or(&[], |r| &r.timings)
    }

    /// The symbolication result in its owned form (for tests and comparisons; allocates per
    /// frame).
    pub fn to_result(&self) -> Option<SymbolicatedTrace> {
        let results = self.results.as_ref()?;
        let stacks = (0..self.stack_count())
            .map(|s| SymbolicatedStack {
                title: self.stack_title(s).to_owned(),
                crashed: self.stack_crashed(s),
                frames: (0..self.stack_len(s))
                    .filter_map(|f| self.frame(s, f).map(|fr| fr.to_symbolicated()))
                    .collect(),
            })
            .collect();
        Some(SymbolicatedTrace {
            format: self.format(),
            stacks,
            warnings: results.warnings.clone(),
            timings: results.timings.clone(),
            modules: results.modules.clone(),
        })
    }

    /// Bytes this table holds on the heap, the log's lines included.
    pub fn heap_bytes(&self) -> usize {
        let log = &self.log;
        let mut bytes = log.stacks.capacity() * size_of::<StackRec>()
            + log.frames.capacity() * size_of::<FrameRec>()
            + log.inputs.capacity() * size_of::<InputRec>()
            + log.natives.capacity() * size_of::<NativeRec>()
            + log.strings.heap_bytes();
        if let Some(r) = &self.results {
            bytes += r.res.capacity() * 4
                + r.titles.capacity() * 4
                + r.resolutions.capacity() * size_of::<ResRec>()
                + r.outcomes.capacity() * size_of::<OutcomeRec>()
                + r.locations.capacity() * size_of::<LocRec>()
                + r.chains.capacity() * 8
                + r.chain_locs.capacity() * 4
                + r.alternatives
                    .iter()
                    .map(|(_, a)| 32 + a.capacity() * 4)
                    .sum::<usize>()
                + r.strings.heap_bytes()
                + r.warnings.iter().map(|w| 24 + w.capacity()).sum::<usize>()
                + r.timings
                    .iter()
                    .map(|t| 32 + t.name.capacity())
                    .sum::<usize>();
        }
        bytes
    }
}

impl TraceView for FrameTable {
    fn format(&self) -> LogFormat {
        self.log.format
    }

    fn stack_count(&self) -> usize {
        self.log.stacks.len()
    }

    fn stack_title(&self, s: usize) -> &str {
        self.stack_raw_title(s)
    }

    fn stack_crashed(&self, s: usize) -> bool {
        FrameTable::stack_crashed(self, s)
    }

    fn frame_count(&self, s: usize) -> usize {
        self.stack_len(s)
    }

    fn frame(&self, s: usize, f: usize) -> Option<FrameView<'_>> {
        let frame = FrameTable::frame(self, s, f)?;
        Some(FrameView {
            raw: frame.raw(),
            input: frame.input(),
        })
    }

    fn total_frames(&self) -> usize {
        self.log.frames.len()
    }
}

/// One frame of a [`FrameTable`], borrowed.
#[derive(Clone, Copy, Debug)]
pub struct FrameRef<'a> {
    table: &'a FrameTable,
    index: u32,
}

impl<'a> FrameRef<'a> {
    fn rec(&self) -> FrameRec {
        self.table.log.frames[self.index as usize]
    }

    fn results(&self) -> Option<&'a Results> {
        self.table.results.as_ref()
    }

    fn res(&self) -> Option<ResRec> {
        let r = self.results()?;
        r.resolutions
            .get(*r.res.get(self.index as usize)? as usize)
            .copied()
    }

    fn outcome(&self) -> Option<OutcomeRec> {
        let r = self.results()?;
        r.outcomes.get(self.res()?.outcome as usize).copied()
    }

    fn input_rec(&self) -> Option<InputRec> {
        self.table
            .log
            .inputs
            .get(self.rec().input as usize)
            .copied()
    }

    fn native(&self) -> Option<NativeRec> {
        let natives = &self.table.log.natives;
        let i = natives
            .binary_search_by_key(&self.index, |n| n.frame)
            .ok()?;
        Some(natives[i])
    }

    /// The line exactly as in the log (without the line break).
    pub fn raw(&self) -> &'a str {
        self.table.log.strings.get(self.rec().raw).unwrap_or("")
    }

    /// What the parser read from the line (`None`: not understood).
    pub fn input(&self) -> Option<FrameInput<&'a str>> {
        let rec = self.input_rec()?;
        let (raw, strings) = (self.raw(), &self.table.log.strings);
        let native = self.native();
        let text = |id: u32| strings.get(id);
        Some(FrameInput {
            function: rec.function.get(raw, strings),
            file: rec.file.get(raw, strings),
            line: (rec.line != NONE).then_some(rec.line),
            column: (rec.column != NONE).then_some(rec.column),
            address: native.and_then(|n| n.address),
            module: native.and_then(|n| text(n.module)),
            module_offset: native.and_then(|n| n.module_offset),
            wasm_function: native.and_then(|n| n.wasm_function),
            build_id: native.and_then(|n| text(n.build_id)),
            arch: native.and_then(|n| text(n.arch)),
            return_address: native.is_some_and(|n| n.return_address),
            builtin: rec.builtin,
            eval: rec.eval.get(raw, strings),
        })
    }

    /// The status (`None` before symbolication).
    pub fn status(&self) -> Option<FrameStatus> {
        self.outcome()?.status
    }

    /// File name of the symbol file used.
    pub fn symbol_file(&self) -> Option<&'a str> {
        self.results()?.strings.get(self.outcome()?.symbol_file)
    }

    /// Why the frame is not resolved.
    pub fn note(&self) -> Option<&'a str> {
        self.results()?.strings.get(self.outcome()?.note)
    }

    /// Whether the frame is library code: a resolved frame when its source is on the map's
    /// ignore list (the map's author decides, as in Chrome DevTools); otherwise when it is the
    /// runtime's own (`node:internal`, native, built-in), an unmapped `node_modules` file or a
    /// JDK, Android or Kotlin class.
    pub fn is_library(&self) -> bool {
        match self.outcome() {
            Some(o) => o.library,
            None => self.input_rec().is_some_and(|i| i.library),
        }
    }

    /// Whether the symbol file hides the frame (status `skipped` with a symbol file): a
    /// ProGuard/R8 mapping's `rewriteFrame` rule, outline or synthesized method, which
    /// retrace leaves out of its output.
    pub fn hidden_by_mapping(&self) -> bool {
        self.status() == Some(FrameStatus::Skipped) && self.symbol_file().is_some()
    }

    /// The generated position looked up (0-based line and column).
    pub fn generated(&self) -> Option<(u32, u32)> {
        let r = self.res()?;
        (r.gen_line != NONE).then_some((r.gen_line, r.gen_col))
    }

    fn location_of(&self, id: u32) -> Option<ResolvedLocation<&'a str>> {
        let results = self.results()?;
        let l = results.locations.get(id as usize)?;
        let opt = |v: u32| (v != NONE).then_some(v);
        let strings = &results.strings;
        let function = match l.function {
            Text::None => None,
            Text::Str(id) => strings.get(id),
            // A span of the frame's line, which the log's strings hold.
            Text::Span(..) => l.function.get(self.raw(), &self.table.log.strings),
        };
        Some(ResolvedLocation {
            function,
            name_source: l.name_source,
            token_name: strings.get(l.token_name),
            file: strings.get(l.file),
            source_index: opt(l.source_index),
            line: opt(l.line),
            column: opt(l.column),
            inlined: l.inlined,
            ignored: l.ignored,
        })
    }

    fn chain(&self, id: u32) -> impl Iterator<Item = ResolvedLocation<&'a str>> + 'a {
        let this = *self;
        let locs: &'a [u32] = self
            .results()
            .and_then(|r| {
                let (start, len) = *r.chains.get(id as usize)?;
                r.chain_locs.get(start as usize..(start + len) as usize)
            })
            .unwrap_or(&[]);
        locs.iter().filter_map(move |&l| this.location_of(l))
    }

    /// The frame's resolution, when every frame that shares it writes the same status,
    /// symbol file, locations, alternatives and note (no name taken from the frame's own
    /// line, no alternatives of its own): what a writer may write once and copy.
    pub fn shared_resolution(&self) -> Option<u32> {
        let r = self.results()?;
        let id = *r.res.get(self.index as usize)?;
        let res = r.resolutions.get(id as usize)?;
        if res.chain != NONE {
            let (start, len) = *r.chains.get(res.chain as usize)?;
            let locs = r.chain_locs.get(start as usize..(start + len) as usize)?;
            if locs.iter().any(|&l| {
                r.locations
                    .get(l as usize)
                    .is_none_or(|l| matches!(l.function, Text::Span(..)))
            }) {
                return None;
            }
        }
        if r.alternatives
            .binary_search_by_key(&self.index, |(f, _)| *f)
            .is_ok()
        {
            return None;
        }
        Some(id)
    }

    /// Original locations, innermost first (empty unless resolved).
    pub fn locations(&self) -> impl Iterator<Item = ResolvedLocation<&'a str>> + 'a {
        let chain = self.res().map_or(NONE, |r| r.chain);
        (chain != NONE)
            .then(|| self.chain(chain))
            .into_iter()
            .flatten()
    }

    /// The first (innermost) original location.
    pub fn location(&self) -> Option<ResolvedLocation<&'a str>> {
        self.locations().next()
    }

    /// A native frame's address, its module and its offset in the module (when the log's
    /// module map or image list places it).
    pub fn address(&self) -> Option<(u64, Option<&'a str>, Option<u64>)> {
        if !self.table.log.format.is_native() {
            return None;
        }
        let n = self.native()?;
        Some((
            n.address?,
            self.table.log.strings.get(n.module),
            n.module_offset,
        ))
    }

    /// Other possible chains, best first.
    pub fn alternatives(&self) -> Vec<Vec<ResolvedLocation<&'a str>>> {
        let Some(results) = self.results() else {
            return Vec::new();
        };
        let Ok(i) = results
            .alternatives
            .binary_search_by_key(&self.index, |(f, _)| *f)
        else {
            return Vec::new();
        };
        results.alternatives[i]
            .1
            .iter()
            .map(|&c| self.chain(c).collect())
            .collect()
    }

    /// The frame's result in its owned form.
    pub fn to_symbolicated(&self) -> SymbolicatedFrame {
        SymbolicatedFrame {
            status: self.status().unwrap_or(FrameStatus::Skipped),
            symbol_file: self.symbol_file().map(str::to_owned),
            generated: self.generated(),
            resolved: self.locations().map(|l| l.to_owned()).collect(),
            alternatives: self
                .alternatives()
                .into_iter()
                .map(|c| c.iter().map(ResolvedLocation::to_owned).collect())
                .collect(),
            note: self.note().map(str::to_owned),
        }
    }
}

#[cfg(test)]
mod tests;
