//! Plain data shared by every layer: traces, frames, resolved frames, file kinds.

mod blob;
mod kind;
mod progress;
mod resolved;
mod text;
mod trace;

pub use blob::Blob;
pub use kind::{FileKind, LogFormat};
pub use progress::{NoProgress, Progress};
pub use resolved::{
    FrameStatus, NameSource, ResolvedLocation, SymbolicatedFrame, SymbolicatedStack,
    SymbolicatedTrace, Timing,
};
pub use text::{SourceText, utf16_col_to_byte};
pub use trace::{Frame, FrameInput, Stack, Trace};
