//! Plain data shared by every layer: traces, frames, resolved frames, file kinds, and the
//! compact frame table the app keeps (interned strings and locations).

mod blob;
mod kind;
mod progress;
mod resolved;
mod runner;
mod table;
mod text;
mod trace;

pub use blob::Blob;
pub use kind::{FileKind, LogFormat};
pub use progress::{NoProgress, Progress};
pub use resolved::{
    Coverage, FrameStatus, ModuleCoverage, NameSource, ResolvedLocation, SymbolicatedFrame,
    SymbolicatedStack, SymbolicatedTrace, Timing,
};
pub use runner::{ChunkRunner, Serial};
pub use table::{FrameRef, FrameTable, Location, Strings};
pub use text::{SourceText, utf16_col_to_byte};
pub use trace::{Frame, FrameInput, FrameView, Module, Stack, Trace, TraceSink, TraceView};
