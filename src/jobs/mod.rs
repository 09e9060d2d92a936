//! Background work: a named rayon pool running jobs that report progress, can be cancelled,
//! record timing spans per phase and turn panics into failed jobs. No egui: the UI passes a
//! waker (its `request_repaint`) and drains events with [`Jobs::poll`].
//!
//! The pure layers never start threads; this layer runs their pieces (see [`ParallelIndex`]).

pub mod batch;
mod index;
mod memory;
mod pool;

pub use index::{ParallelIndex, ReportingIndex};
pub use memory::{MAP_MIN, read_or_map, release_freed_memory};
pub use pool::{
    JobContext, JobEvent, JobFailure, JobId, JobProgress, JobState, Jobs, Reporter, Span, Waker,
};
