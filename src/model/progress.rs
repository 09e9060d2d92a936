//! Progress reporting for the pure layers, which start no threads and hold no cancel flag.

use std::ops::ControlFlow;

/// Receives progress from pure work; its answer says whether to go on (as ripgrep's `Sink`).
pub trait Progress {
    /// Reports that `done` of `total` units of `phase` are finished.
    ///
    /// Return `ControlFlow::Break(())` to stop early (e.g. the job was cancelled).
    fn step(&mut self, phase: &str, done: u64, total: u64) -> ControlFlow<()>;
}

/// A [`Progress`] that ignores every report and never stops.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn step(&mut self, _phase: &str, _done: u64, _total: u64) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

impl<F: FnMut(&str, u64, u64) -> ControlFlow<()>> Progress for F {
    fn step(&mut self, phase: &str, done: u64, total: u64) -> ControlFlow<()> {
        self(phase, done, total)
    }
}
