//! Plain data shared by every layer: traces and the traits that read and write them, frames,
//! resolved frames, CPU profiles, file kinds, progress and the seam for running pieces on several cores.

mod blob;
mod kind;
mod profile;
mod progress;
mod resolved;
mod runner;
mod text;
mod trace;

pub use blob::Blob;
pub use kind::{FileKind, LogFormat};
pub use profile::{LocationInterner, NodeTotals, Profile, ProfileLocation, ProfileNode, Weight};
pub use progress::{NoProgress, Progress};
pub use resolved::{
    Coverage, FrameStatus, ModuleCoverage, NameSource, ResolvedLocation, SymbolicatedFrame,
    SymbolicatedStack, SymbolicatedTrace, Timing,
};
pub use runner::{ChunkRunner, Serial};
pub use text::{SourceText, Utf16Cursor, utf16_col_to_byte, utf16_len, utf16_len_lossy};
pub use trace::{Frame, FrameInput, FrameView, Module, Stack, Trace, TraceSink, TraceView};
