//! Building a [`FrameTable`]: the parsed log as a parser reads it ([`LogBuilder`], a
//! `TraceSink`), then a symbolication's results as a resolver writes them ([`ResultsBuilder`],
//! a `ResultSink`). Neither keeps more than the current frame.

use super::strings::{Dedup, NONE, StringsBuilder, Text};
use super::{
    FrameRec, FrameTable, InputRec, LocRec, Log, NativeRec, OutcomeRec, ResRec, Results, StackRec,
};
use crate::model::{
    FrameInput, LogFormat, Module, NameSource, ResolvedLocation, SymbolicatedFrame, TraceSink,
};
use crate::symbolicate::{ResultSink, Summary};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Java platform classes (JDK, Android, Kotlin runtime), which no mapping covers.
fn is_java_platform(input: &FrameInput<&str>) -> bool {
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
            .is_some_and(|f| !f.contains(' ') && PREFIXES.iter().any(|p| f.starts_with(p)))
        && input
            .file
            .is_none_or(|f| f.ends_with(".java") || f.ends_with(".kt"))
}

/// Whether a frame is library code by what the log says: the runtime's own (`node:internal`,
/// native, built-in), an unmapped `node_modules` file, a JDK, Android or Kotlin class.
fn is_library_input(input: &FrameInput<&str>) -> bool {
    input.builtin
        || input
            .file
            .is_some_and(|p| p.starts_with("node:") || p.contains("node_modules/"))
        || is_java_platform(input)
}

/// Builds the parsed part of a table from a parser's stacks and frames.
pub(in crate::engine) struct LogBuilder {
    strings: StringsBuilder,
    stacks: Vec<StackRec>,
    frames: Vec<FrameRec>,
    inputs: Dedup<InputRec>,
    natives: Vec<NativeRec>,
    format: LogFormat,
    modules: Vec<Module>,
}

impl Default for LogBuilder {
    fn default() -> Self {
        Self {
            strings: StringsBuilder::default(),
            stacks: Vec::new(),
            frames: Vec::new(),
            inputs: Dedup::new(),
            natives: Vec::new(),
            format: LogFormat::Unknown,
            modules: Vec::new(),
        }
    }
}

impl TraceSink for LogBuilder {
    fn stack(&mut self, title: &str, title_line: usize, crashed: bool) {
        self.stacks.push(StackRec {
            title: self.strings.intern(title),
            title_line: title_line as u32,
            crashed,
            first: self.frames.len() as u32,
            len: 0,
        });
    }

    fn frame(&mut self, raw: &str, _line_no: usize, input: Option<FrameInput<&str>>) {
        let Some(stack) = self.stacks.last_mut() else {
            return;
        };
        stack.len += 1;
        let index = self.frames.len() as u32;
        let raw_id = self.strings.intern(raw);
        let input_id = match &input {
            None => NONE,
            Some(i) => {
                let rec = InputRec {
                    function: Text::of(i.function, raw, &mut self.strings),
                    file: Text::of(i.file, raw, &mut self.strings),
                    line: i.line.unwrap_or(NONE),
                    column: i.column.unwrap_or(NONE),
                    builtin: i.builtin,
                    library: is_library_input(i),
                    eval: Text::of(i.eval, raw, &mut self.strings),
                };
                if i.address.is_some()
                    || i.module.is_some()
                    || i.module_offset.is_some()
                    || i.wasm_function.is_some()
                    || i.build_id.is_some()
                    || i.arch.is_some()
                    || i.return_address
                {
                    self.natives.push(NativeRec {
                        frame: index,
                        address: i.address,
                        module_offset: i.module_offset,
                        wasm_function: i.wasm_function,
                        module: self.strings.intern_opt(i.module),
                        build_id: self.strings.intern_opt(i.build_id),
                        arch: self.strings.intern_opt(i.arch),
                        return_address: i.return_address,
                    });
                }
                self.inputs.id(rec)
            }
        };
        self.frames.push(FrameRec {
            raw: raw_id,
            input: input_id,
        });
    }

    fn end(&mut self, format: LogFormat, modules: Vec<Module>) {
        self.format = format;
        self.modules = modules;
    }
}

impl LogBuilder {
    /// The table of the log read (not symbolicated).
    pub(in crate::engine) fn finish(self) -> FrameTable {
        let mut stacks = self.stacks;
        stacks.shrink_to_fit();
        let mut frames = self.frames;
        frames.shrink_to_fit();
        let mut natives = self.natives;
        natives.shrink_to_fit();
        FrameTable {
            log: Arc::new(Log {
                format: self.format,
                stacks,
                frames,
                inputs: self.inputs.finish(),
                natives,
                modules: self.modules,
                strings: self.strings.finish(),
            }),
            results: None,
        }
    }
}

/// Builds a symbolication's results beside a parsed table, frame by frame.
pub(in crate::engine) struct ResultsBuilder<'t> {
    table: &'t FrameTable,
    strings: StringsBuilder,
    res: Vec<u32>,
    titles: Vec<u32>,
    resolutions: Dedup<ResRec>,
    outcomes: Dedup<OutcomeRec>,
    locations: Dedup<LocRec>,
    chains: Vec<(u32, u32)>,
    chain_locs: Vec<u32>,
    chain_ids: FxHashMap<Vec<u32>, u32>,
    alternatives: Vec<(u32, Vec<u32>)>,
}

impl<'t> ResultsBuilder<'t> {
    pub(in crate::engine) fn new(table: &'t FrameTable) -> Self {
        Self {
            table,
            strings: StringsBuilder::default(),
            res: Vec::with_capacity(table.log.frames.len()),
            titles: Vec::with_capacity(table.log.stacks.len()),
            resolutions: Dedup::new(),
            outcomes: Dedup::new(),
            locations: Dedup::new(),
            chains: Vec::new(),
            chain_locs: Vec::new(),
            chain_ids: FxHashMap::default(),
            alternatives: Vec::new(),
        }
    }

    /// The chain id of `locs` (`NONE` when empty); a function the engine printed on the
    /// frame's line is kept as a span of it.
    fn chain_of(&mut self, locs: &[ResolvedLocation], raw: &str) -> u32 {
        if locs.is_empty() {
            return NONE;
        }
        let ids: Vec<u32> = locs
            .iter()
            .map(|l| {
                let function = match l.function.as_deref() {
                    Some(f) if l.name_source == Some(NameSource::Trace) => {
                        Text::of(Some(f), raw, &mut self.strings)
                    }
                    f => f.map_or(Text::None, |f| Text::Str(self.strings.intern(f))),
                };
                self.locations.id(LocRec {
                    function,
                    token_name: self.strings.intern_opt(l.token_name.as_deref()),
                    file: self.strings.intern_opt(l.file.as_deref()),
                    source_index: l.source_index.unwrap_or(NONE),
                    line: l.line.unwrap_or(NONE),
                    column: l.column.unwrap_or(NONE),
                    name_source: l.name_source,
                    inlined: l.inlined,
                    ignored: l.ignored,
                })
            })
            .collect();
        let (chains, chain_locs) = (&mut self.chains, &mut self.chain_locs);
        *self.chain_ids.entry(ids).or_insert_with_key(|ids| {
            chains.push((chain_locs.len() as u32, ids.len() as u32));
            chain_locs.extend_from_slice(ids);
            chains.len() as u32 - 1
        })
    }

    /// The results, every frame written (frames a stop left out have none).
    pub(in crate::engine) fn finish(self, summary: Summary) -> FrameTable {
        let mut res = self.res;
        res.shrink_to_fit();
        let mut chains = self.chains;
        chains.shrink_to_fit();
        let mut chain_locs = self.chain_locs;
        chain_locs.shrink_to_fit();
        self.table.with_results(Results {
            res,
            titles: self.titles,
            resolutions: self.resolutions.finish(),
            outcomes: self.outcomes.finish(),
            locations: self.locations.finish(),
            chains,
            chain_locs,
            alternatives: self.alternatives,
            strings: self.strings.finish(),
            warnings: summary.warnings,
            modules: summary.modules,
            timings: summary.timings,
        })
    }
}

impl ResultSink for ResultsBuilder<'_> {
    fn stack(&mut self, title: &str, _crashed: bool) {
        let s = self.titles.len();
        let id = if title == self.table.stack_raw_title(s) {
            NONE
        } else {
            self.strings.intern(title)
        };
        self.titles.push(id);
    }

    fn frame(&mut self, sym: SymbolicatedFrame) {
        self.frame_marked(sym);
    }

    fn frame_marked(&mut self, sym: SymbolicatedFrame) -> Option<u32> {
        let index = self.res.len();
        let table = self.table;
        if index >= table.log.frames.len() {
            return None;
        }
        // A result can be another frame's only when nothing of it comes from the frame's
        // own line or input: resolved (else the library flag is the input's), no name kept
        // as a span of the line, no alternatives of its own.
        let shareable = !sym.resolved.is_empty()
            && sym.alternatives.is_empty()
            && sym
                .resolved
                .iter()
                .all(|l| l.name_source != Some(NameSource::Trace));
        let frame = super::FrameRef {
            table,
            index: index as u32,
        };
        let raw = frame.raw();
        let library = match sym.resolved.first() {
            Some(loc) => loc.ignored,
            None => frame.input_rec().is_some_and(|i| i.library),
        };
        let outcome = OutcomeRec {
            status: Some(sym.status),
            symbol_file: self.strings.intern_opt(sym.symbol_file.as_deref()),
            note: self.strings.intern_opt(sym.note.as_deref()),
            library,
        };
        let outcome = self.outcomes.id(outcome);
        let chain = self.chain_of(&sym.resolved, raw);
        if !sym.alternatives.is_empty() {
            let alts = sym
                .alternatives
                .iter()
                .map(|a| self.chain_of(a, raw))
                .collect();
            self.alternatives.push((index as u32, alts));
        }
        let (gen_line, gen_col) = sym.generated.unwrap_or((NONE, 0));
        let res = self.resolutions.id(ResRec {
            outcome,
            chain,
            gen_line,
            gen_col,
        });
        self.res.push(res);
        shareable.then_some(res)
    }

    fn repeat(&mut self, mark: u32) -> bool {
        if self.res.len() >= self.table.log.frames.len() {
            return false;
        }
        self.res.push(mark);
        true
    }
}
