//! The engine: one journey from files to answers, taken by the CLI and the window alike.
//!
//! 1. A file is detected once ([`Detected`]) and loaded by its kind ([`load`],
//!    [`load_symbols`]): source maps, bundles, ProGuard/R8 mappings and native debug files
//!    become a [`SymbolFile`] (added to a `SymbolSet`), logs a [`LogFile`]. Derived data (a
//!    mapping's index, a native file's SymCaches) goes through one [`Cache`] scheme: a file
//!    per input and kind, named by the input's fingerprint. Every failure is an [`Error`]
//!    naming the file and the reason.
//! 2. A log is read into its compact [`FrameTable`] as the parser goes ([`read_log`]; a
//!    minidump's stacks are walked), then symbolicated ([`LogFile::symbolicate`]): the
//!    resolvers write each frame's result into the table as they go. A minidump is walked
//!    again when other call-frame information arrives.
//! 3. The [`report`] module writes the table out, as text or as the CLI's JSON (its contract
//!    is documented there), frame by frame.
//! 4. The [`doctor`] checks a source map (and its bundle) for what is wrong with it;
//!    [`map_search`] searches one; [`map_diff`] compares two of one bundle.
//! 5. Many logs: each symbolicated stack has a [`signature`] (its fingerprint is in the
//!    JSON); [`buckets`] groups logs by it; [`stack_diff`] aligns two stacks frame by frame.
//! 6. A CPU profile's distinct locations are resolved once each on the same journey
//!    ([`profile`]), and its samples ranked by function; the window's views of it (flame
//!    chart, call trees, flame graph, comparison) are computed in [`flame`].
//! 7. A heap snapshot is read into columns and analysed in [`heap`] (dominator tree,
//!    Summary, retainers, comparison, classes named through the maps); a timeline's
//!    allocation stacks become a profile weighted in bytes, resolved on the CPU profiles'
//!    route, and can be written back symbolicated ([`allocations`]).
//!
//! Pure: no threads (a `ChunkRunner` given by the caller spreads a map's index pass over
//! cores) and no cancel flag (progress answers whether to go on).

pub mod allocations;
pub mod buckets;
mod bundle;
mod cache;
mod detect;
pub mod doctor;
mod error;
pub mod flame;
pub mod heap;
mod load;
mod log;
pub mod map_diff;
pub mod map_search;
pub mod profile;
pub mod report;
pub mod signature;
pub mod stack_diff;
pub mod stream;
mod table;

pub use cache::{
    Cache, STALE_TEMPORARY, fingerprint, remove_stale_temporaries, write_atomically,
    write_atomically_with,
};
pub use detect::{Detected, Role};
pub use error::{Error, Reason};
pub use load::{
    AddSymbols, Input, Loader, MapRoute, NativeRoute, OPEN_PHASE, SymbolFile, load, load_symbols,
};
pub use log::{BINARY_SNIFF, Cfi, LogFile, read_log};
pub use table::{FrameRef, FrameTable};
