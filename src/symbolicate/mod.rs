//! Pure symbolication: matches frames to symbol files, resolves them, explains failures.
//!
//! One resolver per ecosystem: `js.rs` (source maps, function names), `java.rs`
//! (ProGuard/R8 mappings) and `native.rs` (native debug files), with `wasm.rs` for the
//! WebAssembly frames of JavaScript stacks; `symbols.rs` holds the set of
//! symbol files and how a frame's file finds its map, `names.rs` reads callee names from
//! original sources. A resolver reads a log through [`TraceView`] (a parsed [`Trace`], or the
//! engine's compact table) and writes its results in trace order into a [`ResultSink`], one
//! frame at a time: the engine stores them compactly as they come, and [`symbolicate`]
//! collects them into a [`SymbolicatedTrace`].

mod java;
mod js;
mod names;
mod native;
mod scope_names;
mod symbols;
mod wasm;

pub use java::{OUTLINE_NOTE, REWRITE_NOTE, SYNTHESIZED_NOTE, stack_shape};
pub use names::callee_at;

pub use symbols::{
    BundleFile, MapFile, MappingFile, Match, NativeFile, Resolver, SymbolSet, basename,
};

use crate::model::{
    FrameStatus, FrameView, ModuleCoverage, Progress, SymbolicatedFrame, SymbolicatedStack,
    SymbolicatedTrace, Timing, Trace, TraceView,
};
use std::collections::BTreeMap;
use std::ops::ControlFlow;

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

/// Where a resolver writes its results, in trace order: each stack's header, then the
/// stack's frames.
pub trait ResultSink {
    /// The next stack begins; `title` is its header as symbolicated (Java class names
    /// deobfuscated), `crashed` whether it is the crashing one.
    fn stack(&mut self, title: &str, crashed: bool);
    /// The next frame of the current stack.
    fn frame(&mut self, frame: SymbolicatedFrame);

    /// [`ResultSink::frame`], returning a mark by which [`ResultSink::repeat`] can write the
    /// same result for a later frame (`None`: this sink keeps no marks).
    fn frame_marked(&mut self, frame: SymbolicatedFrame) -> Option<u32> {
        self.frame(frame);
        None
    }

    /// Writes the result marked `mark` as the next frame's; `false` when the sink cannot
    /// (then nothing is written). A resolver repeats a result only for a frame whose every
    /// input the result depends on is the same.
    fn repeat(&mut self, _mark: u32) -> bool {
        false
    }
}

/// What a run found besides its frames.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Skipped symbol files, ambiguous matches and other things a person should know.
    pub warnings: Vec<String>,
    /// Timed phases.
    pub timings: Vec<Timing>,
    /// Native: the modules the frames are in, most frames first, with their debug files.
    pub modules: Vec<ModuleCoverage>,
    /// Progress said stop: the sink holds only the frames done until then.
    pub cancelled: bool,
}

/// Symbolicates every frame of `trace` against `symbols`, collecting the results.
pub fn symbolicate(
    trace: &Trace,
    symbols: &SymbolSet,
    options: Options,
    progress: &mut dyn Progress,
) -> Outcome {
    let mut stacks: Vec<SymbolicatedStack> = Vec::with_capacity(trace.stacks.len());
    let summary = symbolicate_into(trace, symbols, options, progress, &mut stacks);
    let result = SymbolicatedTrace {
        format: trace.format,
        stacks,
        warnings: summary.warnings,
        timings: summary.timings,
        modules: summary.modules,
    };
    if summary.cancelled {
        Outcome::Cancelled(result)
    } else {
        Outcome::Done(result)
    }
}

/// Symbolicates every frame of `trace` against `symbols` into `sink`, frame by frame.
pub fn symbolicate_into(
    trace: &dyn TraceView,
    symbols: &SymbolSet,
    options: Options,
    progress: &mut dyn Progress,
    sink: &mut dyn ResultSink,
) -> Summary {
    let format = trace.format();
    if format == crate::model::LogFormat::Java {
        java::symbolicate(trace, symbols, progress, sink)
    } else if format.is_native() {
        native::symbolicate(trace, symbols, progress, sink)
    } else {
        js::symbolicate(trace, symbols, options, progress, sink)
    }
}

/// A JavaScript log symbolicated a window at a time, as it is read (a log too large to hold):
/// the run's state (each distinct position looked up once, the enclosing functions found
/// once, the warnings) is kept from window to window, so the frames come out as one run over
/// the whole log would write them, given windows cut as [`Windowed::window`] says.
pub struct Windowed<'s>(js::Windowed<'s>);

impl<'s> Windowed<'s> {
    /// A run against `symbols`, the log's columns counting from `base` (0 or 1: see
    /// [`crate::model::LogFormat::default_column_base`]).
    pub fn new(symbols: &'s SymbolSet, base: u32) -> Self {
        Self(js::Windowed::new(symbols, base))
    }

    /// Symbolicates one window of the log into `sink`, its stacks and frames in order. A
    /// stack cut by the window's edge is written as one of its own (a frame is named from
    /// its caller, the frame after it): the window that ends inside a stack holds that
    /// stack's next frame as its last, the window after starts with that frame again, and
    /// the first window's result for it is to be dropped. Returns whether progress said stop.
    pub fn window(
        &mut self,
        trace: &dyn TraceView,
        progress: &mut dyn Progress,
        sink: &mut dyn ResultSink,
    ) -> bool {
        self.0.window(trace, progress, sink)
    }

    /// The run's warnings and timings (its look-up: the windows' time).
    pub fn finish(self) -> Summary {
        self.0.finish()
    }
}

impl ResultSink for Vec<SymbolicatedStack> {
    fn stack(&mut self, title: &str, crashed: bool) {
        self.push(SymbolicatedStack {
            title: title.to_owned(),
            crashed,
            frames: Vec::new(),
        });
    }

    fn frame(&mut self, frame: SymbolicatedFrame) {
        if let Some(stack) = self.last_mut() {
            stack.frames.push(frame);
        }
    }
}

/// A resolver's work per stack and per frame; [`walk`] drives it over a trace.
trait Resolve {
    /// Stack `s` begins: writes its header (the default: as in the log).
    fn stack(&mut self, trace: &dyn TraceView, s: usize, sink: &mut dyn ResultSink) {
        sink.stack(trace.stack_title(s), trace.stack_crashed(s));
    }

    /// Resolves one frame of the current stack, writing it now or later (JS names a frame
    /// from its caller's, the frame after it).
    fn frame(&mut self, frame: &FrameView<'_>, sink: &mut dyn ResultSink);

    /// The current stack ends (also when cut short by a stop): writes what it holds back.
    fn end_stack(&mut self, _sink: &mut dyn ResultSink) {}
}

/// A [`Resolve`] that resolves each frame on its own.
struct EachFrame<F>(F);

impl<F: FnMut(&FrameView<'_>) -> SymbolicatedFrame> Resolve for EachFrame<F> {
    fn frame(&mut self, frame: &FrameView<'_>, sink: &mut dyn ResultSink) {
        sink.frame((self.0)(frame));
    }
}

/// Runs `resolver` over every frame of `trace` in order, reporting each frame to `progress`
/// as `phase`; returns whether progress said stop (then the run ends at once, the stack cut
/// short, later ones left out).
fn walk(
    trace: &dyn TraceView,
    resolver: &mut dyn Resolve,
    progress: &mut dyn Progress,
    phase: &str,
    sink: &mut dyn ResultSink,
) -> bool {
    let total = trace.total_frames() as u64;
    let mut done = 0;
    for s in 0..trace.stack_count() {
        resolver.stack(trace, s, sink);
        for f in 0..trace.frame_count(s) {
            let Some(frame) = trace.frame(s, f) else {
                continue;
            };
            resolver.frame(&frame, sink);
            done += 1;
            if progress.step(phase, done, total) == ControlFlow::Break(()) {
                resolver.end_stack(sink);
                return true;
            }
        }
        resolver.end_stack(sink);
    }
    false
}

/// A run's timed phases: loading each of its symbol files (`loads`, name and milliseconds),
/// then the look-up that began at `start`.
fn timings(loads: impl Iterator<Item = (String, f64)>, start: std::time::Instant) -> Vec<Timing> {
    let mut timings: Vec<Timing> = loads.map(|(name, ms)| Timing { name, ms }).collect();
    timings.push(Timing {
        name: "look-up".to_owned(),
        ms: start.elapsed().as_secs_f64() * 1e3,
    });
    timings
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
