//! The application: state, commands, the frame loop and view models (with `main.rs`, the only
//! code that knows eframe). Each frame ([`AppState::frame`]) polls the jobs, turns the user's
//! input (dropped files, pastes, shortcuts) into [`Command`]s, computes the view models, has
//! the UI draw them (reading state, emitting commands), applies the commands and schedules
//! the autosave, as rerun's viewer does.
//!
//! - `frame.rs`: the frame loop and input handling;
//! - `commands.rs`: what the UI may ask, and how the state applies it;
//! - `events.rs`: starting jobs and taking in what they hand back;
//! - `persist.rs`: opening and saving workspaces, the recent list, autosave, recovery of
//!   unsaved work;
//! - `caches.rs`: the view models the panels read, each computed once per change;
//! - `loading.rs`: the jobs' work, on the engine's journey;
//! - `rows.rs`, `detail.rs`, `inspector.rs`: the stack list's rows, the frame detail, the
//!   segment inspector's line;
//! - `dialogs.rs`: file dialogs on threads of their own (painting never waits for one);
//! - `errors.rs`: the messages for the user, timed, dismissed one by one;
//! - `settings.rs`: the user's own settings (the editor), never read from a workspace;
//! - `tiles.rs`: which panes are open and where (`egui_tiles`), the user's layout;
//! - `profile.rs`: loaded CPU profiles, the profile pane's state, commands and view model.
//!
//! The window's thread reads no input file: a load job reads (or maps) it, fingerprints it
//! and records what it found when it finishes. Nothing is written to the working directory,
//! and a workspace is written only when the user saved it (the demo is a template).

mod buckets;
mod caches;
mod commands;
mod detail;
mod dialogs;
mod errors;
mod events;
mod frame;
mod inspector;
mod loading;
mod memory;
mod persist;
mod profile;
mod rows;
mod settings;
mod stack_list;
mod tiles;

pub use caches::Views;
pub use commands::{
    BucketsCommand, Command, Commands, InputCommand, InspectorCommand, StackCommand, WindowCommand,
    WorkspaceCommand,
};
pub use detail::{FrameDetail, SourceContext, find_under_roots, frame_detail, place};
pub use dialogs::{DialogRequest, Dialogs, ExportFormat, NO_DIALOG, dialog_available};
pub use errors::{ErrorEntry, Errors};
pub use inspector::{InspectorView, window};
pub use loading::{InputId, JobOutput, Loaded, LoadedHeap};
pub use memory::{
    MemoryCommand, MemoryModel, MemorySort, MemoryView, OBJECTS_SHOWN, ObjectDetail, memory_rows,
};
pub use profile::{
    DiffGraph, LoadedProfile, ProfileCommand, ProfileMode, ProfileModel, ProfileView, Selected,
    TreeSort, Window, tree_rows,
};
pub use rows::{Folds, FrameNotes, GroupKind, Row, StackRows, hidden_reason};
pub use settings::{Settings, settings_file};
pub use tiles::{LayoutPrefs, Pane, WindowPlace, default_tree, keep_main_room, layout_file};
pub use tiles::{simplification as tile_simplification, sync as sync_tiles};

use crate::engine::FrameTable;
use crate::jobs::{JobId, JobState, Jobs, Span, Waker};
use crate::model::{Blob, FileKind};
use crate::workspace::{Autosave, Workspace};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where an input stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputState {
    /// Being read, detected and indexed.
    Loading,
    /// Loaded.
    Ready,
    /// Could not be used: the engine's error (the file and the problem), or an internal
    /// error, as its job ended.
    Failed(crate::jobs::JobFailure),
    /// The file is not where the workspace says.
    Missing,
    /// Its loading job was cancelled: kept in the workspace, unused until loaded again.
    Cancelled,
}

/// One input of the workspace with what was loaded from it (never saved).
#[derive(Clone, Debug)]
pub struct InputEntry {
    /// Stable id (indices shift when inputs are removed).
    pub id: InputId,
    /// File name.
    pub name: String,
    /// Absolute path.
    pub path: PathBuf,
    /// Detected kind.
    pub kind: FileKind,
    /// Where it stands.
    pub state: InputState,
    /// What was loaded.
    pub loaded: Option<Loaded>,
}

/// A finished job's timing, for the timing panel.
#[derive(Clone, Debug)]
pub struct JobTiming {
    /// What the job did (`index three.min.js.map`).
    pub name: String,
    /// When it ended, relative to the app start (ns).
    pub end_ns: u64,
    /// Its phases.
    pub spans: Vec<Span>,
    /// Wall time.
    pub elapsed: Duration,
    /// How it ended.
    pub state: JobState,
}

/// How the user looks at the selected log: never saved (the workspace keeps the selection
/// and layout). Split as the panels that own it.
#[derive(Clone, Debug, Default)]
pub struct ViewState {
    /// The stack list's.
    pub stack: StackView,
    /// The segment inspector's and its tools'.
    pub inspector: InspectorState,
    /// The Buckets view's and the comparison of two logs'.
    pub buckets: BucketsView,
    /// The profile pane's.
    pub profile: ProfileView,
    /// The Memory pane's.
    pub memory: MemoryView,
    /// Files hovering over the window.
    pub hovered: Vec<String>,
    /// The shortcuts window is open (F1).
    pub shortcuts_open: bool,
}

/// Closing the window while the workspace has unsaved changes: the app asks Save, Don't
/// save or Cancel first, as an editor does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Closing {
    /// Not closing.
    #[default]
    Open,
    /// The window was asked to close: the question is showing.
    Asking,
    /// The user chose Save for a workspace that needs a file: closes once Save as… saved.
    SaveThenClose,
    /// Closing: the window is told to close and no longer asks.
    Close,
}

/// The answers to "Save changes before closing?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseAnswer {
    /// Save (asking where if the workspace has no file of its own), then close.
    Save,
    /// Close without saving.
    Discard,
    /// Stay open.
    Cancel,
}

/// The stack list's view.
#[derive(Clone, Debug, Default)]
pub struct StackView {
    /// The stack-list filter.
    pub filter: String,
    /// What the user unfolded or folded in the stack list.
    pub folds: Folds,
}

/// The segment inspector's view and its tools' results.
#[derive(Clone, Debug, Default)]
pub struct InspectorState {
    /// The generated line (0-based).
    pub line: u32,
    /// The selected segment (index in the line).
    pub segment: Option<usize>,
    /// The "go to original" window, when open.
    pub original: Option<OriginalNav>,
    /// The inspected map's segments by original position (its input path and the index),
    /// built in a job when the inspector shows a map.
    pub originals: Option<(String, Arc<crate::symbols::sourcemap::OriginalIndex>)>,
    /// The map whose index by original position a job is building.
    pub originals_pending: Option<String>,
    /// The last comparison of two maps: their input paths, the lines that differ, and the
    /// one shown side by side (an index into the differing lines).
    pub map_diff: Option<MapCompare>,
    /// The last search of a map: its input path and the hits.
    pub map_search: Option<(String, Arc<crate::engine::map_search::SearchHits>)>,
    /// The map doctor's last report: the map's input path and what it found.
    pub map_report: Option<(String, Arc<crate::engine::doctor::MapReport>)>,
    /// Point the open inspector at the selected frame once its log is symbolicated (a
    /// workspace saved with the inspector open reopens on the frame's segment).
    when_ready: bool,
}

/// The Buckets view and the comparison of two logs.
#[derive(Clone, Debug, Default)]
pub struct BucketsView {
    /// Crash logs bucketed, once the job finished.
    pub bucketed: Option<Arc<CrashBuckets>>,
    /// The filter (over titles, top frames, platforms, fingerprints).
    pub filter: String,
    /// The table's order, and whether reversed.
    pub sort: (BucketSort, bool),
    /// Logs (or stacks) picked for a comparison: A, then B.
    pub compare_pick: (Option<ComparePick>, Option<ComparePick>),
    /// The last comparison of two logs.
    pub log_compare: Option<Arc<LogCompare>>,
    /// The user closed the Buckets tab (it comes back when logs are bucketed again).
    pub closed: bool,
}

/// The "go to original" window: a source of the inspected map, a line of it, and the
/// generated positions that map there.
#[derive(Clone, Debug, Default)]
pub struct OriginalNav {
    /// The map's input path.
    pub map: String,
    /// Its segments by original position (`None` while the job builds it).
    pub index: Option<Arc<crate::symbols::sourcemap::OriginalIndex>>,
    /// The filter over the sources' paths.
    pub filter: String,
    /// The chosen source.
    pub source: Option<u32>,
    /// The chosen original line (0-based).
    pub line: Option<u32>,
}

/// Two maps compared.
#[derive(Clone, Debug)]
pub struct MapCompare {
    /// The inspected map's input path.
    pub a: String,
    /// The other map's input path.
    pub b: String,
    /// The lines that differ.
    pub diff: Arc<crate::engine::map_diff::MapDiff>,
    /// The differing line shown side by side.
    pub shown: usize,
}

/// Crash logs bucketed by signature: what the Buckets view shows.
#[derive(Clone, Debug, Default)]
pub struct CrashBuckets {
    /// Every log read, by index.
    pub paths: Vec<PathBuf>,
    /// The buckets, largest first; members index `paths`.
    pub buckets: Vec<crate::engine::buckets::Bucket>,
    /// Logs that could not be used (index into `paths`) and why.
    pub unreadable: Vec<(usize, Arc<crate::engine::Error>)>,
    /// Folders that could not be read.
    pub errors: Vec<String>,
}

/// One side of a comparison: a log and which of its stacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComparePick {
    /// The log: a file, or a loaded input's path (a pasted log's name).
    pub log: PathBuf,
    /// The stack by its index; none: the crashed stack.
    pub stack: Option<usize>,
}

impl ComparePick {
    /// The crashed stack of `log`.
    pub fn log(log: PathBuf) -> Self {
        Self { log, stack: None }
    }

    /// What the comparison window calls it: the file's name, and the stack if one was
    /// picked (numbered from 1, as the stack list shows them).
    pub fn label(&self) -> String {
        let name = self
            .log
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        match self.stack {
            Some(s) => format!("{name}, stack {}", s + 1),
            None => name,
        }
    }
}

/// Two stacks compared frame by frame.
#[derive(Clone, Debug)]
pub struct LogCompare {
    /// Side A.
    pub a: ComparePick,
    /// Side B.
    pub b: ComparePick,
    /// A, symbolicated.
    pub table_a: Arc<FrameTable>,
    /// B, symbolicated.
    pub table_b: Arc<FrameTable>,
    /// Their crashed stacks aligned.
    pub diff: crate::engine::stack_diff::StackDiff,
}

/// How the Buckets table is sorted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BucketSort {
    /// Largest first.
    #[default]
    Count,
    /// By title.
    Title,
    /// By top frame.
    TopFrame,
    /// By platform.
    Platform,
}

/// The jobs running for inputs, to show their progress and cancel a superseded one.
#[derive(Debug, Default)]
struct RunningJobs {
    /// The load job per input.
    loading: HashMap<InputId, JobId>,
    /// The symbolication job per log.
    symbolicating: HashMap<InputId, JobId>,
    /// What each running job does.
    names: HashMap<JobId, String>,
    /// The job bucketing crash logs.
    bucketing: Option<JobId>,
    /// The job comparing two heap snapshots.
    comparing_heaps: Option<JobId>,
    /// Files added together (a drop of several files): once all are loaded, those that
    /// are crash logs are bucketed when there are two or more.
    added_together: std::collections::HashSet<InputId>,
    /// Logs read and parsed already (by a folder's search, or loaded as inputs), for the
    /// next bucketing to take instead of reading them again.
    parsed_logs: HashMap<PathBuf, crate::engine::LogFile>,
}

/// Everything the app knows. `workspace` is the saved document; the rest is derived.
pub struct AppState {
    /// The document.
    pub workspace: Workspace,
    /// Where the document lives (`None`: not saved yet).
    pub workspace_path: Option<PathBuf>,
    /// Inputs, parallel to `workspace.inputs`.
    pub inputs: Vec<InputEntry>,
    /// Symbolicated logs by input (the tables their inputs' `Loaded::Log` now hold).
    pub results: HashMap<InputId, Arc<FrameTable>>,
    /// The job pool.
    pub jobs: Jobs<JobOutput>,
    /// Finished jobs, newest last.
    pub timings: Vec<JobTiming>,
    /// Messages for the user (newest last), until dismissed.
    pub errors: Errors,
    /// The error list is open.
    pub errors_open: bool,
    /// The user's layout: the tiles, the panes kept open, the window's place.
    pub layout: LayoutPrefs,
    /// Where the layout is kept (`None`: not kept, as in tests).
    pub layout_file: Option<PathBuf>,
    /// The folder of recovery files (`None`: unsaved work is not kept, as in tests).
    pub recovery_dir: Option<PathBuf>,
    /// Work left by a Symscope that did not close, offered back (newest first).
    pub recovered: Vec<crate::workspace::recovery::Orphan>,
    /// The user's settings (the editor command): never read from a workspace.
    pub settings: Settings,
    /// Recently opened workspaces.
    pub recent: Vec<PathBuf>,
    /// The user's cache folder ([`crate::workspace::user_dirs::cache_root`], set by
    /// [`AppState::start`]): a saved workspace's derived data goes into a folder of its own
    /// under it. `None`: nothing is cached.
    pub cache_root: Option<PathBuf>,
    /// How the user looks at the selected log.
    pub view: ViewState,
    /// File dialogs open, and their answers.
    pub dialogs: Dialogs,
    /// What was last put on the system clipboard (for the status bar and tests).
    pub copied: Option<String>,
    /// What the status bar says for a moment ("Saved demo-copy.ron"), and since when.
    pub notice: Option<(Instant, String)>,
    /// Where closing the window with unsaved changes stands.
    pub closing: Closing,
    /// Text to put on the clipboard at the end of the frame.
    pending_copy: Option<String>,
    /// Whether this session saved the workspace to `workspace_path` (or made it): autosave
    /// writes only to such a file, never to one that was merely opened (the demo, a file
    /// in a repository).
    adopted: bool,
    /// This session's recovery file, once unsaved work was written to it.
    recovery: Option<crate::workspace::recovery::Session>,
    /// The layout changed since it was last written.
    layout_changed: bool,
    /// The pane to bring to the front at the next sync.
    show_pane: Option<Pane>,
    /// The window title last sent.
    title: String,
    waker: Waker,
    running: RunningJobs,
    caches: caches::Caches,
    /// The profile pane's model and what it was computed from.
    profile_cache: Option<(profile::ModelKey, Arc<ProfileModel>)>,
    /// The Memory pane's model and what it was computed from.
    memory_cache: Option<(memory::MemoryKey, Arc<MemoryModel>)>,
    /// The last comparison of two heap snapshots (a job's answer).
    heap_comparison: Option<Arc<memory::HeapComparison>>,
    /// The shown profile's flame chart with library frames hidden, by its resolution.
    library_chart: Option<(usize, (Arc<crate::engine::flame::Rows>, profile::Levels))>,
    /// The call tree's rows and what they were computed from.
    profile_rows_cache: Option<(profile::RowsKey, profile::TreeRows)>,
    autosave: Autosave,
    started: Instant,
    next_input: u64,
}

impl AppState {
    /// An empty app; `waker` is called from workers (the UI's `request_repaint`).
    pub fn new(waker: Waker) -> Self {
        let jobs = Jobs::new(0, waker.clone()).unwrap_or_else(|_| {
            // A pool that cannot start threads is unrecoverable; one thread is the fallback.
            Jobs::new(1, Arc::new(|| {}))
                .unwrap_or_else(|e| panic!("cannot start a worker thread: {e}"))
        });
        Self {
            workspace: Workspace::default(),
            workspace_path: None,
            inputs: Vec::new(),
            results: HashMap::new(),
            jobs,
            timings: Vec::new(),
            errors: Errors::default(),
            errors_open: false,
            layout: LayoutPrefs::default(),
            layout_file: None,
            recovery_dir: None,
            recovered: Vec::new(),
            recovery: None,
            layout_changed: false,
            show_pane: None,
            settings: Settings::default(),
            recent: Vec::new(),
            cache_root: None,
            view: ViewState::default(),
            dialogs: Dialogs::default(),
            copied: None,
            notice: None,
            closing: Closing::Open,
            pending_copy: None,
            adopted: false,
            title: String::new(),
            waker,
            running: RunningJobs::default(),
            caches: caches::Caches::default(),
            profile_cache: None,
            memory_cache: None,
            heap_comparison: None,
            library_chart: None,
            profile_rows_cache: None,
            autosave: Autosave::new(Duration::from_millis(800)),
            started: Instant::now(),
            next_input: 1,
        }
    }

    /// The folder input paths are relative to.
    pub fn workspace_dir(&self) -> PathBuf {
        match self.workspace_path.as_deref().and_then(Path::parent) {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        }
    }

    /// The selected log's input, if any.
    pub fn selected_log(&self) -> Option<&InputEntry> {
        let path = self.workspace.selection.log.as_deref()?;
        let i = self.workspace.inputs.iter().position(|x| x.path == path)?;
        self.inputs.get(i)
    }

    /// The selected log's table (symbolicated once its job finished).
    pub fn selected_table(&self) -> Option<(InputId, Arc<FrameTable>)> {
        let entry = self.selected_log()?;
        Some((entry.id, entry.loaded.as_ref()?.table()?.clone()))
    }

    /// What a running job does.
    pub fn job_name(&self, id: JobId) -> Option<&str> {
        self.running.names.get(&id).map(String::as_str)
    }

    /// The progress of the job loading or symbolicating input `id`, while one runs.
    pub fn input_progress(&self, id: InputId) -> Option<&crate::jobs::JobProgress> {
        [
            self.running.loading.get(&id),
            self.running.symbolicating.get(&id),
        ]
        .into_iter()
        .flatten()
        .find_map(|&job| self.jobs.progress_of(job))
    }

    fn now_ns(&self) -> u64 {
        self.started.elapsed().as_nanos() as u64
    }
}

/// The bytes of an input's file, detected, off the UI thread's hands fast: a large file stays
/// memory-mapped when it is only read while it loads (a native debug file: its SymCache is
/// built from it and the bytes let go), and is copied into memory when its bytes are kept (a
/// map, a mapping, a bundle or a log is read for as long as it is open, and its file may be
/// rewritten meanwhile, by a rebuild).
fn input_bytes(path: &Path) -> std::io::Result<crate::engine::Detected> {
    let blob = crate::jobs::read_or_map(path)?;
    let mapped = blob.len() as u64 >= crate::jobs::MAP_MIN;
    let mut file = crate::engine::Detected::new(path.display().to_string(), blob);
    if mapped
        && matches!(
            file.kind,
            FileKind::Log | FileKind::SourceMap | FileKind::JavaScript | FileKind::ProguardMapping
        )
    {
        file.blob = Blob::from(file.blob.as_slice().to_vec());
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large debug file (mapped) and a large source map (copied) both come whole; a small
    /// file is read.
    #[test]
    fn input_bytes_are_the_files_bytes() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let dir = std::env::temp_dir().join(format!("symscope-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // An ELF debug file padded past the size where files are mapped.
        let mut elf = std::fs::read(root.join("native/crashy/crashy.debug")).unwrap();
        elf.resize(crate::jobs::MAP_MIN as usize + 1, 0);
        let big_elf = dir.join("crashy.debug");
        std::fs::write(&big_elf, &elf).unwrap();
        for (path, kind) in [
            (big_elf.clone(), FileKind::NativeSymbols),
            (
                root.join("js/pdfjs-dist-worker/pdf.worker.mjs.map"),
                FileKind::SourceMap,
            ),
            (root.join("native/crashy/crash-aslr-1.txt"), FileKind::Log),
        ] {
            let file = input_bytes(&path).unwrap();
            assert_eq!(file.kind, kind, "{path:?}");
            assert_eq!(crate::formats::peek(file.blob.as_slice()), kind, "{path:?}");
            assert!(
                file.blob.as_slice() == std::fs::read(&path).unwrap(),
                "{path:?}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
