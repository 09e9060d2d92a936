//! Symscope: a symbol and trace explorer. The library holds everything; `src/main.rs` is a
//! thin shell that opens the window or runs [`cli`].
//!
//! The CLI and the window are two faces of one engine:
//!
//! ```text
//!           the window                            headless
//!   ui ──▶ app ──▶ jobs, workspace ◀──────────── cli
//!            │                                     │
//!            └──────────────▶ engine ◀─────────────┘
//!                               │
//!                          symbolicate
//!                            │      │
//!                       symbols    formats
//!                            │      │
//!                             model
//! ```
//!
//! The CLI takes what the window takes of `jobs` and `workspace`: the batch runner and the
//! index pass on all cores (`jobs::batch`, `jobs::ParallelIndex`), files read or mapped
//! (`jobs::read_or_map`), folders expanded into their files (`workspace::expand_paths`,
//! `workspace::files_under`) and a map's sources written out (`workspace::extract_sources`).
//!
//! The layers, each using only those before it (`tests/layers.rs` checks this, and that the
//! parts of a layer do not use each other in a circle):
//!
//! | layer | what |
//! |---|---|
//! | [`model`] | plain data: traces and the traits that read and write them (`TraceView`, `TraceSink`), resolved frames, file kinds, `Blob`, `SourceText`, `Progress`, the `ChunkRunner` seam |
//! | [`formats`] | pure log parsers (JavaScript engines, Java/Android, Apple reports, minidumps, Sentry events, tombstones, gdb, sanitizers, address lists), CPU profiles (V8, Chrome trace events with their threads' events, Hermes, `perf script`), V8 heap snapshots streamed into columns, and file-kind detection from bytes |
//! | [`symbols`] | pure symbol-file readers and look-ups: [`symbols::sourcemap`] (our lazy decoder), [`symbols::proguard`] (a class-header index over the `proguard` crate), [`symbols::native`] (SymCaches through `symbolic`, ELF and Mach-O read by our adapted reader on two threads) |
//! | [`symbolicate`] | pure: matching frames to symbol files, resolving, naming functions, explaining failures, frame by frame into a result sink |
//! | [`engine`] | pure: the one journey of the CLI and the window: detect once, load by one route with one cache scheme, read a log into its compact table, symbolicate it, write it out (text, the JSON contract), or a JavaScript log all three window by window as it streams; a profile's locations resolved once and its views (flame chart, call trees) computed; a heap snapshot's dominator tree, Summary and comparison, its classes named through the maps |
//! | [`jobs`] | background work: a named rayon pool whose jobs report progress, can be cancelled, record timing spans and turn panics into failed jobs; the `ChunkRunner` on all cores |
//! | [`workspace`] | the RON document (`workspaces/*.ron`): atomic saves, schema checks, missing and changed inputs, autosave debounce, recovery files of unsaved work |
//! | [`app`] | state, commands, the frame loop and view models, the tiles' tree and the user's layout (knows eframe) |
//! | [`ui`] | egui only: a file per pane, drawn in tiles, that reads state and emits commands; the theme's tokens |
//!
//! The pure layers start no threads and take no cancel flag: they report progress through
//! [`model::Progress`], whose answer says whether to go on, and run pieces on several cores
//! only through a [`model::ChunkRunner`] the caller gives. [`fuzzing`] holds the fuzz
//! targets' entry points.

pub mod app;
pub mod cli;
pub mod engine;
pub mod formats;
pub mod fuzzing;
pub mod jobs;
pub mod model;
pub mod symbolicate;
pub mod symbols;
pub mod ui;
pub mod workspace;
