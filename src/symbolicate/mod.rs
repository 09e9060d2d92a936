//! Pure symbolication: matches frames to symbol files, resolves them, explains failures.

mod java;
mod names;
mod native;
pub mod report;
mod symbols;

pub use names::{SourceCache, callee_at};

pub use symbols::{
    BundleFile, LoadError, MapFile, MappingFile, Match, NativeFile, Resolver, SymbolSet, basename,
    scan_bundle,
};

use crate::model::{
    Frame, FrameStatus, NameSource, Progress, ResolvedLocation, SymbolicatedFrame,
    SymbolicatedStack, SymbolicatedTrace, Timing, Trace,
};
use crate::symbols::sourcemap::{SourceMap, Token};
use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::time::Instant;

/// Options of one symbolication.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Base of the columns in the log (0 or 1); `None` uses the format's default.
    pub column_base: Option<u32>,
}

/// The outcome: a full result, or the part done before the caller said stop.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every frame was processed.
    Done(SymbolicatedTrace),
    /// Progress answered `Break`: the stacks and frames done until then (the last stack may
    /// be short, later ones absent), so the result is not parallel to the trace.
    Cancelled(SymbolicatedTrace),
}

/// Symbolicates every frame of `trace` against `symbols`.
pub fn symbolicate(
    trace: &Trace,
    symbols: &SymbolSet,
    options: Options,
    progress: &mut dyn Progress,
) -> Outcome {
    if trace.format == crate::model::LogFormat::Java {
        return java::symbolicate(trace, symbols, progress);
    }
    if trace.format.is_native() {
        return native::symbolicate(trace, symbols, progress);
    }
    let start = Instant::now();
    let base = options
        .column_base
        .unwrap_or_else(|| trace.format.default_column_base());
    let total: u64 = trace.stacks.iter().map(|s| s.frames.len() as u64).sum();
    let mut done = 0u64;
    let mut warnings: Vec<String> = Vec::new();
    let mut matches: HashMap<String, Option<Resolver>> = HashMap::new();
    let mut cancelled = false;
    let mut sources = SourceCache::default();
    let mut stacks = Vec::with_capacity(trace.stacks.len());

    for stack in &trace.stacks {
        let mut frames = Vec::with_capacity(stack.frames.len());
        // Tokens found per frame, for naming (the caller's call-site token names the callee).
        let mut tokens: Vec<Option<NamedToken>> = Vec::with_capacity(stack.frames.len());
        for frame in &stack.frames {
            if cancelled {
                break;
            }
            let (sym, tok) = resolve_frame(
                frame,
                base,
                symbols,
                &mut matches,
                &mut warnings,
                &mut sources,
            );
            frames.push(sym);
            tokens.push(tok);
            done += 1;
            if progress.step("look-up", done, total) == ControlFlow::Break(()) {
                cancelled = true;
            }
        }
        name_functions(&mut frames, &tokens, stack);
        stacks.push(SymbolicatedStack {
            title: stack.title.clone(),
            crashed: stack.crashed,
            frames,
        });
        if cancelled {
            // Stop at once: a cancelled run is thrown away, so the rest is not filled in.
            break;
        }
    }

    let mut timings: Vec<Timing> = symbols
        .maps
        .iter()
        .map(|m| Timing {
            name: format!("index {}", m.name),
            ms: m.parse_ms,
        })
        .collect();
    timings.push(Timing {
        name: "look-up".to_owned(),
        ms: start.elapsed().as_secs_f64() * 1e3,
    });
    let result = SymbolicatedTrace {
        modules: Vec::new(),
        format: trace.format,
        stacks,
        warnings,
        timings,
    };
    outcome(result, cancelled)
}

/// What naming needs from a resolved frame's token.
#[derive(Clone, Debug)]
struct NamedToken {
    function_map: Option<String>,
    token_name: Option<String>,
    /// The callee of the call expression at this position in the original source.
    callee: Option<String>,
}

/// The outcome of a run that may have been cut short.
fn outcome(result: SymbolicatedTrace, cancelled: bool) -> Outcome {
    if cancelled {
        Outcome::Cancelled(result)
    } else {
        Outcome::Done(result)
    }
}

/// Resolves every frame of `trace` with `resolve`, one stack after another, reporting each
/// frame as `phase`; returns the stacks and whether progress said stop.
fn each_frame(
    trace: &Trace,
    progress: &mut dyn Progress,
    phase: &str,
    mut resolve: impl FnMut(&Frame) -> SymbolicatedFrame,
) -> (Vec<SymbolicatedStack>, bool) {
    let total: u64 = trace.stacks.iter().map(|s| s.frames.len() as u64).sum();
    let mut done = 0;
    let mut stacks = Vec::with_capacity(trace.stacks.len());
    for stack in &trace.stacks {
        let mut frames = Vec::with_capacity(stack.frames.len());
        for frame in &stack.frames {
            frames.push(resolve(frame));
            done += 1;
            if progress.step(phase, done, total) == ControlFlow::Break(()) {
                stacks.push(SymbolicatedStack {
                    title: stack.title.clone(),
                    crashed: stack.crashed,
                    frames,
                });
                return (stacks, true);
            }
        }
        stacks.push(SymbolicatedStack {
            title: stack.title.clone(),
            crashed: stack.crashed,
            frames,
        });
    }
    (stacks, false)
}

fn unresolved(status: FrameStatus, symbol_file: Option<String>, note: String) -> SymbolicatedFrame {
    SymbolicatedFrame {
        status,
        symbol_file,
        generated: None,
        resolved: Vec::new(),
        alternatives: Vec::new(),
        note: Some(note),
    }
}

fn resolve_frame(
    frame: &Frame,
    base: u32,
    symbols: &SymbolSet,
    matches: &mut HashMap<String, Option<Resolver>>,
    warnings: &mut Vec<String>,
    sources: &mut SourceCache,
) -> (SymbolicatedFrame, Option<NamedToken>) {
    let Some(input) = &frame.input else {
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
    let (Some(file), Some(line)) = (input.file.as_deref(), input.line) else {
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
    let column = input.column.unwrap_or(base);
    let gen_col = column.saturating_sub(base);
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
        let text = sources.get(token.map(), idx)?;
        callee_at(text.line(src_line as usize)?, token.src_col()?)
    });
    let named = NamedToken {
        function_map: token.function_map_name(),
        token_name,
        callee,
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

fn no_source_note() -> String {
    "the mapping here has no original source (generated code, such as a bundler's runtime helper)"
        .to_owned()
}

fn lookup(map: &SourceMap, line: u32, col: u32) -> Result<Token<'_>, String> {
    match map.lookup(line, col) {
        Err(e) => Err(format!(
            "the index-map section for this position is broken: {e}"
        )),
        Ok(None) => Err(format!(
            "the map has no mapping on generated line {} at or before column {}",
            line + 1,
            col + 1
        )),
        Ok(Some(t)) => Ok(t),
    }
}

/// Names each resolved frame: the Metro function map where present, else the caller frame's
/// call-site token (the Sentry heuristic), else the callee of the caller's call expression in
/// the original source, else the frame's own token.
fn name_functions(
    frames: &mut [SymbolicatedFrame],
    tokens: &[Option<NamedToken>],
    stack: &crate::model::Stack,
) {
    for (i, frame) in frames.iter_mut().enumerate() {
        let Some(Some(own)) = tokens.get(i) else {
            continue;
        };
        let caller = tokens.get(i + 1).and_then(|t| t.as_ref());
        let (function, source) = if let Some(f) = &own.function_map {
            (Some(f.clone()), Some(NameSource::FunctionMap))
        } else if let Some(c) = caller.and_then(|c| c.token_name.clone()) {
            (Some(c), Some(NameSource::CallerToken))
        } else if let Some(c) = caller.and_then(|c| c.callee.clone()) {
            (Some(c), Some(NameSource::CallerSource))
        } else if let Some(t) = &own.token_name {
            (Some(t.clone()), Some(NameSource::Token))
        } else if let Some(t) = stack
            .frames
            .get(i)
            .and_then(|f| printed_name(f.input.as_ref()?.function.as_deref()?))
        {
            (Some(t), Some(NameSource::Trace))
        } else {
            (None, None)
        };
        if let Some(loc) = frame.resolved.first_mut() {
            loc.function = function;
            loc.name_source = source;
        }
    }
}

/// The method name in a function as an engine prints it: `De.setFromObject` →
/// `setFromObject`, `new Foo` → `Foo`, `Function.of [as map]` → `of`; nothing for anonymous
/// frames (`<anonymous>`, `anonymous`, SpiderMonkey's `a/b<`).
fn printed_name(function: &str) -> Option<String> {
    let f = function.split(" [as ").next().unwrap_or(function);
    let f = f.strip_prefix("async ").unwrap_or(f);
    let f = f.strip_prefix("new ").unwrap_or(f);
    let last = f.rsplit('.').next().unwrap_or(f).trim();
    let plain = !last.is_empty()
        && last != "anonymous"
        && last != "global"
        && last
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    plain.then(|| last.to_owned())
}

/// Counts of frame statuses, for summaries.
pub fn status_counts(result: &SymbolicatedTrace) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for frame in result.stacks.iter().flat_map(|s| &s.frames) {
        *counts.entry(frame.status.as_str()).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::js;

    /// Progress that says stop after three frames ends the run there.
    #[test]
    fn cancel_stops_at_once() {
        let trace = js::parse(
            "Error: x\n    at a (a.js:1:1)\n    at b (a.js:1:2)\n    at c (a.js:1:3)\n    at d (a.js:1:4)\n\nError: y\n    at e (a.js:1:5)\n",
        );
        let mut seen = 0;
        let mut stop_after_three = |_: &str, done: u64, _: u64| {
            seen = done;
            if done >= 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let Outcome::Cancelled(partial) = symbolicate(
            &trace,
            &SymbolSet::new(),
            Options::default(),
            &mut stop_after_three,
        ) else {
            panic!("not cancelled");
        };
        assert_eq!(seen, 3);
        assert_eq!(partial.stacks.len(), 1);
        assert_eq!(partial.stacks[0].frames.len(), 3);
        let Outcome::Done(all) = symbolicate(
            &trace,
            &SymbolSet::new(),
            Options::default(),
            &mut crate::model::NoProgress,
        ) else {
            panic!("cancelled");
        };
        assert_eq!((all.stacks.len(), all.stacks[0].frames.len()), (2, 4));
    }
}
