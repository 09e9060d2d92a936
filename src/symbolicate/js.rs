//! JavaScript frames against source maps: a frame's file finds its map (see `symbols.rs`),
//! its position is looked up (through two maps for Hermes bytecode: hermesc's, then Metro's),
//! then followed through the map of its original file while that file is itself generated
//! and its map is loaded (bundle → TypeScript output → original: the tc39 suite's transitive
//! cases), and its function is named, in this order: Metro's function map (`x_facebook_sources`,
//! exactly as metro-symbolicate finds it); the function that encloses the frame in the bundle,
//! when the bundle is loaded (`scope_names.rs`: parsed, its name mapped to original names; an
//! anonymous function stays anonymous); the name the engine printed, for an unminified bundle
//! that could not be parsed there; the name of the caller frame's call-site token (Sentry's
//! heuristic); the callee of the caller's call expression read from the original source
//! (`this.expandByObject(` → `expandByObject`), for maps whose tokens carry no names
//! (esbuild's); the frame's own token; the name the engine printed. The location's
//! `name_source` says which answered. An unresolved frame says why: `no_symbols` (and which
//! map to add), `not_covered` (no mapping there, or one without a source, as in a bundler's
//! runtime helper), `skipped` (native and built-in frames), `unparsed` (kept, not understood).
//! Each distinct position of a run is looked up once; frames that share it share the answer,
//! then are named each from its own caller. WebAssembly frames go through `wasm.rs` (a wasm
//! source map's answer comes back here, at line 1, column = offset).
//! A frame in eval'd code is looked up at the eval call and its note gives the eval'd
//! position; a loaded map that breaks a rule of the spec engines let pass says so in the
//! run's warnings.

use super::names::{callee_at, is_ident};
use super::scope_names::{OriginalName, OriginalNames, ScopeAnswer, ScopeNames};
use super::scope_names::{original_scope_pass, scope_pass};
use super::{Options, Resolver, ResultSink, Summary, SymbolSet, basename, unresolved, walk};
use crate::model::{
    FrameInput, FrameStatus, FrameView, NameSource, Progress, ResolvedLocation, SymbolicatedFrame,
    TraceView,
};
use crate::symbols::sourcemap::{SourceMap, Token};
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::time::Instant;

/// Symbolicates a JavaScript trace.
pub(super) fn symbolicate(
    trace: &dyn TraceView,
    symbols: &SymbolSet,
    options: Options,
    progress: &mut dyn Progress,
    sink: &mut dyn ResultSink,
) -> Summary {
    let start = Instant::now();
    let base = options
        .column_base
        .unwrap_or_else(|| trace.format().default_column_base());
    let scopes = scope_pass(trace, symbols, base);
    let originals = original_scope_pass(trace, symbols, base, &scopes);
    let mut js = Js::new(symbols, base);
    js.scopes = scopes;
    js.originals = originals;
    js.look_up_in_order(trace);
    let cancelled = walk(trace, &mut js, progress, "look-up", sink);
    js.summary(start.elapsed(), cancelled)
}

/// A JavaScript run over a log read a window at a time (see [`super::Windowed`]).
pub(super) struct Windowed<'s> {
    js: Js<'s>,
    /// Time spent in the windows' look-ups.
    spent: std::time::Duration,
}

impl<'s> Windowed<'s> {
    pub(super) fn new(symbols: &'s SymbolSet, base: u32) -> Self {
        Self {
            js: Js::new(symbols, base),
            spent: std::time::Duration::ZERO,
        }
    }

    pub(super) fn window(
        &mut self,
        trace: &dyn TraceView,
        progress: &mut dyn Progress,
        sink: &mut dyn ResultSink,
    ) -> bool {
        let start = Instant::now();
        let js = &mut self.js;
        // What is kept of each distinct position is bounded, so that a log whose every frame
        // is somewhere else takes the same memory however long it is: past the bound the
        // positions are forgotten and looked up again as they come.
        if js.positions.len() > KEPT_POSITIONS {
            js.looked_up.clear();
            js.positions.clear();
            js.scopes.clear();
            js.originals.clear();
        }
        // The enclosing functions of the positions no window before had (each bundle and
        // original source parsed again only for new positions).
        let fresh = Fresh::new(trace, &js.looked_up);
        let (symbols, base) = (js.symbols, js.base);
        for (file, answers) in scope_pass(&fresh, symbols, base) {
            js.scopes.entry(file).or_default().extend(answers);
        }
        for (file, answers) in original_scope_pass(&fresh, symbols, base, &js.scopes) {
            js.originals.entry(file).or_default().extend(answers);
        }
        js.look_up_in_order(&fresh);
        // A mark of the last window's sink means nothing to this one's.
        js.named_as.clear();
        let cancelled = walk(trace, js, progress, "look-up", sink);
        self.spent += start.elapsed();
        cancelled
    }

    pub(super) fn finish(self) -> Summary {
        self.js.summary(self.spent, false)
    }
}

/// How many distinct positions a windowed run keeps the look-ups of (see
/// [`Windowed::window`]).
const KEPT_POSITIONS: usize = 1 << 14;

/// A window's frames whose positions no window before it looked up (the others' enclosing
/// functions are known).
struct Fresh<'a> {
    trace: &'a dyn TraceView,
    /// Per stack, the frames kept.
    kept: Vec<Vec<usize>>,
}

impl<'a> Fresh<'a> {
    fn new(
        trace: &'a dyn TraceView,
        looked_up: &FxHashMap<String, FxHashMap<Position, u32>>,
    ) -> Self {
        let kept = (0..trace.stack_count())
            .map(|s| {
                (0..trace.frame_count(s))
                    .filter(|&f| {
                        let Some(input) = trace.frame(s, f).and_then(|v| v.input) else {
                            return false;
                        };
                        let Some(file) = input.file else {
                            return false;
                        };
                        !looked_up
                            .get(file)
                            .is_some_and(|known| known.contains_key(&position(&input)))
                    })
                    .collect()
            })
            .collect();
        Self { trace, kept }
    }
}

impl TraceView for Fresh<'_> {
    fn format(&self) -> crate::model::LogFormat {
        self.trace.format()
    }

    fn stack_count(&self) -> usize {
        self.kept.len()
    }

    fn stack_title(&self, s: usize) -> &str {
        self.trace.stack_title(s)
    }

    fn stack_crashed(&self, s: usize) -> bool {
        self.trace.stack_crashed(s)
    }

    fn frame_count(&self, s: usize) -> usize {
        self.kept.get(s).map_or(0, Vec::len)
    }

    fn frame(&self, s: usize, f: usize) -> Option<FrameView<'_>> {
        self.trace.frame(s, *self.kept.get(s)?.get(f)?)
    }
}

/// What of a frame's input, besides its file, its look-up reads.
fn position(i: &FrameInput<&str>) -> Position {
    (
        i.line,
        i.column,
        i.builtin,
        i.wasm_function,
        i.module_offset,
    )
}

impl<'s> Js<'s> {
    /// A run's resolver, no frame looked up yet.
    fn new(symbols: &'s SymbolSet, base: u32) -> Self {
        Js {
            symbols,
            base,
            scopes: ScopeNames::new(),
            originals: OriginalNames::new(),
            matches: HashMap::new(),
            next_maps: HashMap::new(),
            // A map that breaks a rule of the spec but is read anyway says so.
            warnings: symbols
                .maps
                .iter()
                .flat_map(|m| m.violations.iter().map(move |v| format!("{}: {v}", m.name)))
                .collect(),
            pending: None,
            looked_up: FxHashMap::default(),
            positions: Vec::new(),
            named_as: FxHashMap::default(),
        }
    }

    /// The run's summary, its look-up having taken `spent`.
    fn summary(self, spent: std::time::Duration, cancelled: bool) -> Summary {
        let loads = self
            .symbols
            .maps
            .iter()
            .map(|m| (format!("index {}", m.name), m.parse_ms));
        let mut timings: Vec<crate::model::Timing> = loads
            .map(|(name, ms)| crate::model::Timing { name, ms })
            .collect();
        timings.push(crate::model::Timing {
            name: "look-up".to_owned(),
            ms: spent.as_secs_f64() * 1e3,
        });
        Summary {
            warnings: self.warnings,
            timings,
            modules: Vec::new(),
            cancelled,
        }
    }
}

/// The JavaScript resolver's state through one run.
struct Js<'s> {
    symbols: &'s SymbolSet,
    /// Base of the log's columns.
    base: u32,
    /// What the bundles say about each frame's enclosing function.
    scopes: ScopeNames,
    /// What the original sources say, where the bundle is not here.
    originals: OriginalNames,
    /// One match per frame file name and run; the name is copied only the first time.
    matches: HashMap<String, Option<Resolver>>,
    /// The next map of a transitive chain, by map and original source.
    next_maps: NextMaps,
    warnings: Vec<String>,
    /// The frame before this one, held back until its caller (this frame) is resolved: its
    /// name may come from the caller's call site.
    pending: Option<Pending>,
    /// Each distinct position looked up once: by file, then by what else of the frame's
    /// input the look-up reads; the id of its look-up in `positions`.
    looked_up: FxHashMap<String, FxHashMap<Position, u32>>,
    /// The look-ups, by id: the frame as resolved before naming, and what naming needs (the
    /// enclosing function's answers filled in).
    positions: Vec<Looked>,
    /// A named frame's result in the sink, by its position and its caller's (`NO_CALLER`: the
    /// stack's last frame): frames named from those alone (no name of their own line) write
    /// it again. Marks are the sink's, so this is emptied when the sink changes.
    named_as: FxHashMap<(u32, u32), u32>,
}

/// The caller of a stack's last frame, in [`Js::named_as`].
const NO_CALLER: u32 = u32::MAX;

/// What of a frame's input, besides its file, its look-up reads.
type Position = (Option<u32>, Option<u32>, bool, Option<u32>, Option<u64>);

/// A position's look-up: the frame as resolved before naming, and what naming needs.
type Looked = (SymbolicatedFrame, Option<NamedToken>);

/// A resolved frame waiting for its caller, with what naming it needs.
struct Pending {
    resolved: Resolved,
    /// The function as the engine printed it (the names of the last resorts come from it).
    printed_as: Option<String>,
}

/// A waiting frame's resolution before naming.
enum Resolved {
    /// A position's look-up as it is (no eval'd code, no WebAssembly name): by id.
    At(u32),
    /// The frame's own: resolved on its own, or a look-up with the frame's own note or name.
    Own(Box<OwnResolution>),
}

/// A frame's resolution of its own (see [`Resolved::Own`]).
struct OwnResolution {
    frame: SymbolicatedFrame,
    token: Option<NamedToken>,
    /// The WebAssembly function's name, which is the frame's printed name.
    wasm_name: Option<String>,
}

/// What naming reads of a waiting frame.
struct Naming {
    frame: SymbolicatedFrame,
    token: Option<NamedToken>,
    /// The method name as the engine printed it (the last resort).
    printed: Option<String>,
    /// The whole name the engine printed (`XRef.parse`), for unminified bundles.
    printed_full: Option<String>,
    /// The receiver of an anonymous function as the engine printed it (`Object` of
    /// `Object.<anonymous>`).
    receiver: Option<String>,
    /// The frame's own note or name was added (eval'd code, WebAssembly).
    own: bool,
}

impl super::Resolve for Js<'_> {
    fn frame(&mut self, frame: &FrameView<'_>, sink: &mut dyn ResultSink) {
        let input = frame.input.as_ref();
        // A log repeats positions (a loop's frames, a million lines into one bundle): each
        // distinct one is looked up once.
        let at = input
            .and_then(|i| Some((i.file?, position(i))))
            .map(|(file, at)| self.look_up(file, at, input));
        let printed_as = input.and_then(|i| i.function);
        let eval = input.and_then(|i| i.eval);
        let wasm = input.and_then(|i| i.wasm_function);
        let resolved = match at {
            Some(id) if eval.is_none() && wasm.is_none() => Resolved::At(id),
            _ => {
                let (mut resolved, token) = match at {
                    Some(id) => self.positions[id as usize].clone(),
                    None => self.resolve(input),
                };
                if let Some(eval) = eval {
                    let note = format!(
                        "runs in eval'd code (at {eval} there); shown at the eval call, the position a source map can map"
                    );
                    resolved.note = Some(match resolved.note.take() {
                        Some(n) => format!("{n}; {note}"),
                        None => note,
                    });
                }
                // A WebAssembly frame's printed name is whole (`game::play(int, int)`), else
                // the module's name section names it.
                let wasm_name = input.and_then(|i| {
                    let index = i.wasm_function.filter(|_| token.is_some())?;
                    Some(match printed_as {
                        Some(p) => super::wasm::printed_name(p, i.file),
                        None => super::wasm::printed_name(
                            super::wasm::section_name(self.symbols, i, index)?,
                            None,
                        ),
                    })
                });
                Resolved::Own(Box::new(OwnResolution {
                    frame: resolved,
                    token,
                    wasm_name,
                }))
            }
        };
        let next = Pending {
            resolved,
            printed_as: printed_as.map(str::to_owned),
        };
        if let Some(before) = self.pending.replace(next) {
            self.write_named(before, sink);
        }
    }

    fn end_stack(&mut self, sink: &mut dyn ResultSink) {
        if let Some(last) = self.pending.take() {
            self.write_named(last, sink);
        }
    }
}

impl Js<'_> {
    /// A frame's input resolved, before naming.
    fn resolve(&mut self, input: Option<&FrameInput<&str>>) -> Looked {
        resolve_frame(
            input,
            self.base,
            self.symbols,
            &mut self.matches,
            &mut self.next_maps,
            &mut self.warnings,
        )
    }

    /// Looks up the positions of `trace` that no frame had before, in position order: files
    /// in the order they first appear (so their warnings come in the trace's order), each
    /// file's positions by line and column, so that a map's lines are walked forward, each
    /// decoded once. The walk then finds every frame's look-up done.
    fn look_up_in_order(&mut self, trace: &dyn TraceView) {
        let mut files: FxHashMap<&str, usize> = FxHashMap::default();
        let mut wanted = Vec::new();
        for s in 0..trace.stack_count() {
            for f in 0..trace.frame_count(s) {
                let Some(input) = trace.frame(s, f).and_then(|v| v.input) else {
                    continue;
                };
                let Some(file) = input.file else {
                    continue;
                };
                if self
                    .looked_up
                    .get(file)
                    .is_some_and(|known| known.contains_key(&position(&input)))
                {
                    continue;
                }
                let next = files.len();
                let order = *files.entry(file).or_insert(next);
                wanted.push((order, input.line, input.column, s, f));
            }
        }
        wanted.sort_unstable();
        for (_, _, _, s, f) in wanted {
            if let Some(input) = trace.frame(s, f).and_then(|v| v.input)
                && let Some(file) = input.file
            {
                self.look_up(file, position(&input), Some(&input));
            }
        }
    }

    /// The id of the look-up of `file` at `at`, looked up now if no frame had it (`input`:
    /// the frame's).
    fn look_up(&mut self, file: &str, at: Position, input: Option<&FrameInput<&str>>) -> u32 {
        if let Some(&id) = self.looked_up.get(file).and_then(|p| p.get(&at)) {
            return id;
        }
        let (resolved, mut token) = self.resolve(input);
        // What the bundle says about the enclosing function (found before the walk).
        if let (Some(t), Some((l, c))) = (token.as_mut(), resolved.generated) {
            t.scope = self.scopes.get(file).and_then(|s| s.get(&(l, c))).cloned();
            // The original source's answer holds where the frame resolved to (not past a
            // chain of maps).
            let here = resolved.resolved.first().map(|r| {
                (
                    r.file.clone(),
                    r.line.unwrap_or(0).saturating_sub(1),
                    r.column.unwrap_or(0).saturating_sub(1),
                )
            });
            t.original = self
                .originals
                .get(file)
                .and_then(|s| s.get(&(l, c)))
                .filter(|o| Some(&o.at) == here.as_ref())
                .cloned();
        }
        let id = self.positions.len() as u32;
        self.positions.push((resolved, token));
        self.looked_up
            .entry(file.to_owned())
            .or_default()
            .insert(at, id);
        id
    }

    /// Names `before` from its caller (the waiting frame, if any) and writes it.
    fn write_named(&mut self, before: Pending, sink: &mut dyn ResultSink) {
        let caller = self.pending.as_ref().map(|p| match &p.resolved {
            Resolved::At(id) => (Some(*id), self.positions[*id as usize].1.as_ref()),
            Resolved::Own(own) => (None, own.token.as_ref()),
        });
        // Named from its position and its caller's alone, as an earlier frame was.
        let key = match (&before.resolved, caller) {
            (Resolved::At(id), None) => Some((*id, NO_CALLER)),
            (Resolved::At(id), Some((Some(c), _))) => Some((*id, c)),
            _ => None,
        };
        if let Some(&mark) = key.and_then(|k| self.named_as.get(&k))
            && sink.repeat(mark)
        {
            return;
        }
        let naming = match before.resolved {
            Resolved::At(id) => {
                let (frame, token) = self.positions[id as usize].clone();
                Naming::new(frame, token, None, before.printed_as.as_deref(), false)
            }
            Resolved::Own(own) => {
                let own = *own;
                Naming::new(
                    own.frame,
                    own.token,
                    own.wasm_name,
                    before.printed_as.as_deref(),
                    true,
                )
            }
        };
        let (frame, from_own_line) = named(naming, caller.and_then(|(_, t)| t));
        let mark = sink.frame_marked(frame);
        if let (Some(key), Some(mark), false) = (key, mark, from_own_line) {
            self.named_as.insert(key, mark);
        }
    }
}

impl Naming {
    /// What naming reads: `wasm_name` (else the printed method) as the last resort's name.
    fn new(
        frame: SymbolicatedFrame,
        token: Option<NamedToken>,
        wasm_name: Option<String>,
        printed_as: Option<&str>,
        own: bool,
    ) -> Self {
        let printed_as = printed_as.filter(|_| token.is_some());
        Self {
            frame,
            token,
            printed: wasm_name.or_else(|| printed_as.and_then(printed_name)),
            printed_full: printed_as.and_then(printed_full_name),
            receiver: printed_as.and_then(printed_receiver),
            own,
        }
    }
}

/// What naming needs from a resolved frame's token.
#[derive(Clone, Debug)]
struct NamedToken {
    function_map: Option<String>,
    token_name: Option<String>,
    /// The callee of the call expression at this position in the original source.
    callee: Option<String>,
    /// The enclosing function in the bundle, when the bundle is here.
    scope: Option<ScopeAnswer>,
    /// The enclosing function in the original source, when the bundle is not here.
    original: Option<OriginalName>,
}
fn resolve_frame(
    input: Option<&FrameInput<&str>>,
    base: u32,
    symbols: &SymbolSet,
    matches: &mut HashMap<String, Option<Resolver>>,
    next_maps: &mut NextMaps,
    warnings: &mut Vec<String>,
) -> (SymbolicatedFrame, Option<NamedToken>) {
    let Some(input) = input else {
        return (
            unresolved(
                FrameStatus::Unparsed,
                None,
                "this line was not understood as a stack frame".to_owned(),
            ),
            None,
        );
    };
    if input.builtin {
        return (
            unresolved(
                FrameStatus::Skipped,
                None,
                "built-in or native frame: it has no position in a source file".to_owned(),
            ),
            None,
        );
    }
    if let Some(index) = input.wasm_function {
        return match super::wasm::resolve(input, index, symbols) {
            super::wasm::Wasm::Done(frame) => (frame, None),
            // A wasm source map: line 1, the byte offset as the column.
            super::wasm::Wasm::Map(found, offset) => {
                resolve_at(found, 1, offset, symbols, next_maps)
            }
        };
    }
    let (Some(file), Some(line)) = (input.file, input.line) else {
        return (
            unresolved(
                FrameStatus::Skipped,
                None,
                "the frame has no file and line to look up".to_owned(),
            ),
            None,
        );
    };
    // One match per file name and run; the name is copied only the first time.
    let found = match matches.get(file) {
        Some(resolver) => *resolver,
        None => {
            let m = symbols.find(file);
            let resolver = m.map(|m| {
                warnings.extend(m.warning);
                m.resolver
            });
            matches.insert(file.to_owned(), resolver);
            resolver
        }
    };
    let Some(found) = found else {
        let base_name = basename(file);
        return (
            unresolved(
                FrameStatus::NoSymbols,
                None,
                format!(
                    "no source map matches {base_name}: add {base_name}.map, or the bundle with its sourceMappingURL"
                ),
            ),
            None,
        );
    };
    let column = input.column.unwrap_or(base);
    resolve_at(found, line, column.saturating_sub(base), symbols, next_maps)
}

/// Looks a frame up at 1-based `line` and 0-based `gen_col` through the map(s) `found`
/// names, following transitive maps.
fn resolve_at(
    found: Resolver,
    line: u32,
    gen_col: u32,
    symbols: &SymbolSet,
    next_maps: &mut NextMaps,
) -> (SymbolicatedFrame, Option<NamedToken>) {
    let (outer, inner) = match found {
        Resolver::Map(i) => (i, None),
        Resolver::Chain(i, j) => (i, Some(j)),
    };
    let Some(map_file) = symbols.maps.get(outer) else {
        return (
            unresolved(
                FrameStatus::NoSymbols,
                None,
                "internal: map index out of range".to_owned(),
            ),
            None,
        );
    };
    let mut symbol_file = map_file.name.clone();
    if let Some(j) = inner.and_then(|j| symbols.maps.get(j)) {
        symbol_file = format!("{} + {}", map_file.name, j.name);
    }
    if line == 0 {
        return (
            unresolved(
                FrameStatus::NotCovered,
                Some(symbol_file),
                "line 0 does not exist (lines are 1-based)".to_owned(),
            ),
            None,
        );
    }
    let gen_line = line - 1;
    let looked_up = lookup(&map_file.map, gen_line, gen_col);
    let token = match looked_up {
        Err(note) => {
            return (
                unresolved(FrameStatus::NotCovered, Some(symbol_file), note),
                None,
            );
        }
        Ok(t) => t,
    };
    // A chained look-up: hermesc's map gives a bundle position, Metro's map the original.
    let token = match inner.and_then(|j| symbols.maps.get(j)) {
        None => Ok(token),
        Some(inner_map) => match (token.src_line(), token.src_col()) {
            (Some(l), Some(c)) => lookup(&inner_map.map, l, c),
            _ => Err(no_source_note()),
        },
    };
    let token = match token {
        Ok(t) => t,
        Err(note) => {
            return (
                unresolved(FrameStatus::NotCovered, Some(symbol_file), note),
                None,
            );
        }
    };
    // Transitive maps: while the original file is itself generated and its map is here,
    // follow the position into that map (a position it does not map ends the chain). With
    // one map loaded there is no chain, and nothing is allocated here.
    let mut token = token;
    let mut at = inner.unwrap_or(outer);
    let mut seen = Vec::new();
    while symbols.maps.len() > 1
        && let Some(next) = token
            .source_path()
            .and_then(|src| next_map(symbols, next_maps, at, &src))
            .filter(|&n| n != outer && n != at && !seen.contains(&n) && seen.len() < MAX_CHAIN)
    {
        let (Some(l), Some(c)) = (token.src_line(), token.src_col()) else {
            break;
        };
        let Ok(t) = lookup(&symbols.maps[next].map, l, c) else {
            break;
        };
        if t.src_line().is_none() {
            break;
        }
        token = t;
        at = next;
        seen.push(next);
        symbol_file = format!("{symbol_file} + {}", symbols.maps[next].name);
    }
    let Some(src_line) = token.src_line() else {
        return (
            unresolved(FrameStatus::NotCovered, Some(symbol_file), no_source_note()),
            None,
        );
    };
    let token_name = token.name().map(|n| n.into_owned());
    let location = ResolvedLocation {
        function: None,
        name_source: None,
        token_name: token_name.clone(),
        file: token.source_path(),
        source_index: token.source_index(),
        line: Some(src_line + 1),
        column: token.src_col().map(|c| c + 1),
        inlined: false,
        ignored: token.is_ignored(),
    };
    let callee = token.source_index().and_then(|idx| {
        let text = token.map().source_text(idx)?;
        callee_at(text.line(src_line as usize)?, token.src_col()?)
    });
    let named = NamedToken {
        function_map: token.function_map_name(),
        token_name,
        callee,
        scope: None,
        original: None,
    };
    (
        SymbolicatedFrame {
            status: FrameStatus::Resolved,
            symbol_file: Some(symbol_file),
            generated: Some((gen_line, gen_col)),
            resolved: vec![location],
            alternatives: Vec::new(),
            note: None,
        },
        Some(named),
    )
}

/// The longest chain of maps followed (a guard against maps that name each other).
const MAX_CHAIN: usize = 16;

/// The next map of a chain, by map index and original source.
type NextMaps = HashMap<usize, HashMap<String, Option<usize>>>;

fn next_map(symbols: &SymbolSet, cache: &mut NextMaps, from: usize, source: &str) -> Option<usize> {
    let by_source = cache.entry(from).or_default();
    if let Some(&n) = by_source.get(source) {
        return n;
    }
    let n = symbols.map_of_source(source, from);
    by_source.insert(source.to_owned(), n);
    n
}

fn no_source_note() -> String {
    "the mapping here has no original source (generated code, such as a bundler's runtime helper)"
        .to_owned()
}

fn lookup(map: &SourceMap, line: u32, col: u32) -> Result<Token<'_>, String> {
    match map.lookup(line, col) {
        Err(e) if matches!(map, SourceMap::Index(_)) => Err(format!(
            "the index-map section for this position is broken: {e}"
        )),
        // A map read lazily: its `mappings` is indexed as far as this line only now.
        Err(e) => Err(format!(
            "the map's `mappings` is broken on or before this line: {e}"
        )),
        Ok(None) => Err(format!(
            "the map has no mapping on generated line {} at or before column {}",
            line + 1,
            col + 1
        )),
        Ok(Some(t)) => Ok(t),
    }
}
/// A frame with its function named, in this order: Metro's function map; the enclosing
/// function in the bundle (anonymous stays anonymous); the name the engine printed, when the
/// bundle is here, unminified, but could not be parsed there; the named function enclosing
/// the original position in `sourcesContent` (the bundle not here); the caller frame's call-site
/// token (the Sentry heuristic); the callee of the caller's call expression in the original
/// source; the frame's own token; the method name the engine printed.
/// `pending` named (see the module documentation), and whether the answer comes from the
/// frame's own line (a name it printed, an eval note): a frame at the same position under the
/// same caller could be named otherwise.
fn named(pending: Naming, caller: Option<&NamedToken>) -> (SymbolicatedFrame, bool) {
    let Naming {
        mut frame,
        token,
        printed,
        printed_full,
        receiver,
        own,
    } = pending;
    let Some(own_token) = token else {
        return (frame, true);
    };
    let mut note = None;
    // The unminified bundle's answer takes the printed name, when there is one.
    let mut from_line = own || matches!(own_token.scope, Some(ScopeAnswer::Unminified));
    let (function, source) = if let Some(f) = own_token.function_map {
        (Some(f), Some(NameSource::FunctionMap))
    } else if let Some(ScopeAnswer::Found { name, note: n }) = own_token.scope {
        note = Some(n);
        // An anonymous function keeps the receiver V8 printed: `Object.<anonymous>`.
        from_line |= name.is_none();
        let name = name.or_else(|| receiver.map(|r| format!("{r}.<anonymous>")));
        (name, Some(NameSource::Scope))
    } else if let (Some(ScopeAnswer::Unminified), Some(p)) = (&own_token.scope, printed_full) {
        (Some(p), Some(NameSource::Trace))
    } else if let Some(o) = own_token.original {
        note = Some(o.note);
        // As in the bundle: an anonymous function keeps the receiver V8 printed.
        from_line |= o.name.is_none();
        let name = o
            .name
            .or_else(|| receiver.map(|r| format!("{r}.<anonymous>")));
        (name, Some(NameSource::OriginalScope))
    } else if let Some(c) = caller.and_then(|c| c.token_name.clone()) {
        (Some(c), Some(NameSource::CallerToken))
    } else if let Some(c) = caller.and_then(|c| c.callee.clone()) {
        (Some(c), Some(NameSource::CallerSource))
    } else if let Some(t) = own_token.token_name {
        (Some(t), Some(NameSource::Token))
    } else {
        from_line = true;
        match printed {
            Some(t) => (Some(t), Some(NameSource::Trace)),
            None => (None, None),
        }
    };
    if let Some(loc) = frame.resolved.first_mut() {
        loc.function = function;
        loc.name_source = source;
    }
    if let Some(n) = note {
        frame.note = Some(match frame.note.take() {
            Some(before) => format!("{before}; {n}"),
            None => n,
        });
    }
    (frame, from_line)
}

/// The whole name an engine printed, when it names a function: `XRef.parse`, `new Foo` →
/// `Foo`, `async load` → `load`, `Function.of [as map]` → `Function.of`; nothing for
/// anonymous frames.
fn printed_full_name(function: &str) -> Option<String> {
    let f = printed_core(function);
    let plain = !f.is_empty()
        && f.split('.').all(|part| {
            !part.is_empty()
                && part != "<anonymous>"
                && part.chars().all(|c| is_ident(c) || c == '#')
        })
        && !matches!(f, "anonymous" | "global code" | "eval");
    plain.then(|| f.to_owned())
}

/// The receiver of an anonymous function as V8 prints it: `Object.<anonymous>` → `Object`.
fn printed_receiver(function: &str) -> Option<String> {
    let r = printed_core(function).strip_suffix(".<anonymous>")?;
    (!r.is_empty() && r.chars().all(|c| is_ident(c) || c == '.')).then(|| r.to_owned())
}

/// The method name in a function as an engine prints it: `De.setFromObject` →
/// `setFromObject`, `new Foo` → `Foo`, `Function.of [as map]` → `of`; nothing for anonymous
/// frames (`<anonymous>`, `anonymous`, SpiderMonkey's `a/b<`).
fn printed_name(function: &str) -> Option<String> {
    let f = printed_core(function);
    let last = f.rsplit('.').next().unwrap_or(f).trim();
    let plain =
        !last.is_empty() && last != "anonymous" && last != "global" && last.chars().all(is_ident);
    plain.then(|| last.to_owned())
}

/// A printed function without its alias and prefixes: `new Foo [as bar]` → `Foo`.
fn printed_core(function: &str) -> &str {
    let f = function.split(" [as ").next().unwrap_or(function).trim();
    let f = f.strip_prefix("async ").unwrap_or(f);
    f.strip_prefix("new ").unwrap_or(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_names() {
        assert_eq!(
            printed_name("De.setFromObject").as_deref(),
            Some("setFromObject")
        );
        assert_eq!(printed_name("new Foo").as_deref(), Some("Foo"));
        assert_eq!(printed_name("Function.of [as map]").as_deref(), Some("of"));
        assert_eq!(printed_name("Object.<anonymous>"), None);
        assert_eq!(printed_name("en/Fr.mapValues/<"), None);
        assert_eq!(printed_name("anonymous"), None);
        assert_eq!(
            printed_receiver("Object.<anonymous>").as_deref(),
            Some("Object")
        );
        assert_eq!(
            printed_receiver("async t.<anonymous>").as_deref(),
            Some("t")
        );
        assert_eq!(printed_receiver("<anonymous>"), None);
        assert_eq!(printed_receiver("XRef.parse"), None);
    }

    #[test]
    fn printed_full_names() {
        assert_eq!(
            printed_full_name("XRef.parse").as_deref(),
            Some("XRef.parse")
        );
        assert_eq!(printed_full_name("new Foo").as_deref(), Some("Foo"));
        assert_eq!(
            printed_full_name("Function.of [as map]").as_deref(),
            Some("Function.of")
        );
        assert_eq!(printed_full_name("Object.<anonymous>"), None);
        assert_eq!(printed_full_name("en/Fr.mapValues/<"), None);
        assert_eq!(printed_full_name("anonymous"), None);
    }
}
