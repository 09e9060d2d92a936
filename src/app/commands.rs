//! What the UI asks the app to do, and how the state applies it at the end of the frame.

use super::loading::Source;
use super::{AppState, DialogRequest, ExportFormat, Folds, InputEntry, InputId, InputState};
use crate::engine::Detected;
use crate::jobs::JobId;
use crate::model::{Blob, FileKind};
use crate::workspace;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One request from the UI, grouped by the panel that owns what it changes; each group is
/// applied in that panel's app file.
#[derive(Debug)]
pub enum Command {
    /// For the workspace's inputs: adding, pasting, removing, locating files; source folders; jobs cancelled (applied in `app/commands.rs`).
    Inputs(InputCommand),
    /// For the stack list and the frame detail: selection, folds, filter, notes, copying, the editor (applied in `app/stack_list.rs`).
    Stack(StackCommand),
    /// For the segment inspector and its tools (applied in `app/inspector.rs`).
    Inspector(InspectorCommand),
    /// For the Buckets view and the comparison of two logs or stacks (applied in `app/buckets.rs`).
    Buckets(BucketsCommand),
    /// For the workspace file: opening, saving, exporting, file dialogs (applied in `app/persist.rs`).
    Workspace(WorkspaceCommand),
    /// For the window itself: theme, panels and their sizes, messages, the shortcuts (applied in `app/frame.rs`).
    Window(WindowCommand),
    /// For the profile pane: which profile, view, range, selection (applied in `app/profile.rs`).
    Profile(super::ProfileCommand),
    /// For the Memory pane: filter, order, classes opened, the object selected (applied in `app/memory.rs`).
    Memory(super::MemoryCommand),
}

/// A request for the workspace's inputs: adding, pasting, removing, locating files; source folders; jobs cancelled.
#[derive(Debug)]
pub enum InputCommand {
    /// Files whose bytes are in hand (dropped): add and load them.
    AddFiles(Vec<(PathBuf, Vec<u8>)>),
    /// Files to read from disk (File → Open, command line).
    AddPaths(Vec<PathBuf>),
    /// A trace pasted from the clipboard: becomes a log input.
    PasteTrace(String),
    /// Remove an input from the workspace.
    RemoveInput(InputId),
    /// A missing input is at this path now: point the workspace at it and load it.
    Locate(InputId, PathBuf),
    /// Look for original sources under this folder too.
    AddSourceRoot(PathBuf),
    /// Stop looking under this source folder (its index in the workspace's list).
    RemoveSourceRoot(usize),
    /// Stop a running job.
    CancelJob(JobId),
}

impl From<InputCommand> for Command {
    fn from(c: InputCommand) -> Self {
        Self::Inputs(c)
    }
}

/// A request for the stack list and the frame detail: selection, folds, filter, notes, copying, the editor.
#[derive(Debug)]
pub enum StackCommand {
    /// Show this log in the stack list.
    SelectLog(InputId),
    /// Select a frame of the selected log.
    SelectFrame {
        /// Stack index.
        stack: usize,
        /// Frame index in the stack.
        frame: usize,
    },
    /// List or hide the other candidates of an ambiguous frame.
    ToggleCandidates {
        /// Stack index.
        stack: usize,
        /// Frame index.
        frame: usize,
    },
    /// Expand or collapse a run of library frames, or of frames the mapping hides.
    ToggleGroup {
        /// Stack index.
        stack: usize,
        /// The run's first frame.
        first: usize,
    },
    /// Fold a stack (an exception or a `Caused by:`) to its header, or unfold it.
    ToggleStack(usize),
    /// Filter the stack list.
    SetFilter(String),
    /// Switch between raw and resolved frames.
    ToggleRaw,
    /// Set the triage note on a stack (`frame: None`) or a frame of the selected log (an
    /// empty text removes it).
    SetNote {
        /// Stack index.
        stack: usize,
        /// Frame index, or `None` for the whole stack.
        frame: Option<usize>,
        /// The note.
        text: String,
    },
    /// Copy the selected frame to the system clipboard (Ctrl+C).
    CopyFrame,
    /// Copy the selected log's whole symbolicated trace, as `symscope symbolicate` prints
    /// it (Ctrl+Shift+C).
    CopyTrace,
    /// Copy this text (a location, a function name).
    CopyText(String),
    /// Open a source file at a line in the user's editor (their setting; never one a
    /// workspace names).
    OpenInEditor {
        /// The file on disk.
        file: PathBuf,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
    },
}

impl From<StackCommand> for Command {
    fn from(c: StackCommand) -> Self {
        Self::Stack(c)
    }
}

/// A request for the segment inspector and its tools.
#[derive(Debug)]
pub enum InspectorCommand {
    /// Show or hide the segment inspector.
    ToggleInspector,
    /// Inspect this map (its input path in the workspace).
    InspectMap(String),
    /// Show this generated line (0-based) in the inspector.
    InspectLine(u32),
    /// Show this generated position (0-based line and column) in the inspector, its segment
    /// selected.
    GoToGenerated {
        /// 0-based generated line.
        line: u32,
        /// 0-based generated column (UTF-16 code units).
        column: u32,
    },
    /// Run the map doctor on the inspected map (against its bundle when loaded).
    CheckMap,
    /// Close the map doctor's report.
    CloseMapReport,
    /// Write the inspected map's original sources into this folder.
    ExtractSources(PathBuf),
    /// Compare the inspected map with another map (its input path) of the same bundle.
    CompareWith(String),
    /// Show this differing line (an index into the comparison's lines) side by side.
    ShowDiffLine(usize),
    /// Close the comparison.
    CloseCompare,
    /// Search the inspected map's names and sources, and its bundle's text (in a job).
    SearchMap(String),
    /// Close the search's hits.
    CloseSearch,
    /// Open the "go to original" window on the inspected map (its index built in a job).
    OpenOriginal,
    /// Index the inspected map's segments by original position (in a job, once per map).
    IndexOriginals,
    /// Close the "go to original" window.
    CloseOriginal,
    /// Filter the window's sources.
    SetOriginalFilter(String),
    /// Choose a source in the window.
    PickOriginalSource(u32),
    /// Go to an original line (0-based) of the chosen source: its segments are listed and
    /// the inspector shows the first.
    GoToOriginalLine(u32),
    /// Select a segment of the inspected line.
    SelectSegment(usize),
    /// Open the inspector at the selected frame's segment.
    InspectSelectedFrame,
}

impl From<InspectorCommand> for Command {
    fn from(c: InspectorCommand) -> Self {
        Self::Inspector(c)
    }
}

/// A request for the Buckets view and the comparison of two logs or stacks.
#[derive(Debug)]
pub enum BucketsCommand {
    /// Bucket these crash logs and folders of them (read recursively) by signature.
    BucketCrashes(Vec<PathBuf>),
    /// Forget the bucketed logs (the notes on buckets stay).
    CloseBuckets,
    /// Select a bucket (its fingerprint), or none.
    SelectBucket(Option<String>),
    /// Put a note on a bucket (its fingerprint); an empty note removes it.
    SetBucketNote(String, String),
    /// Filter the Buckets table.
    SetBucketFilter(String),
    /// Sort the Buckets table by this column (again: the other way).
    SortBuckets(super::BucketSort),
    /// Open a crash log in the stack list (added to the workspace, or selected if it is).
    OpenCrashLog(PathBuf),
    /// Pick a log or stack as side A (`false`) or B (`true`) of a comparison; once both are
    /// picked they are compared.
    PickCompare(bool, super::ComparePick),
    /// Compare two logs (or stacks) frame by frame (in a job).
    CompareLogs(super::ComparePick, super::ComparePick),
    /// Close the comparison of two logs.
    CloseLogCompare,
}

impl From<BucketsCommand> for Command {
    fn from(c: BucketsCommand) -> Self {
        Self::Buckets(c)
    }
}

/// A request for the workspace file: opening, saving, exporting, file dialogs.
#[derive(Debug)]
pub enum WorkspaceCommand {
    /// Open a workspace file.
    OpenWorkspace(PathBuf),
    /// Save the workspace: to its file, or to the given path (Save as). A workspace never
    /// saved, or one Symscope must not write (a template such as the demo, a read-only
    /// file), asks where to save instead.
    SaveWorkspace(Option<PathBuf>),
    /// Export the selected log to a file.
    Export(ExportFormat, PathBuf),
    /// Open a file dialog (it never blocks painting; its answer comes in a later frame).
    Dialog(DialogRequest),
    /// The answer to "Restore unsaved work?" (true: restore) for the first work on offer.
    Recover(bool),
}

impl From<WorkspaceCommand> for Command {
    fn from(c: WorkspaceCommand) -> Self {
        Self::Workspace(c)
    }
}

/// A request for the window itself: theme, tiles, messages, the shortcuts.
#[derive(Debug)]
pub enum WindowCommand {
    /// Switch between dark and light.
    ToggleTheme,
    /// Open a pane (or bring its tab to the front).
    OpenPane(super::Pane),
    /// Close a pane (its tab's close button).
    ClosePane(super::Pane),
    /// The user moved, resized or picked tiles: the tree as they left it.
    SetTiles(Box<egui_tiles::Tree<super::Pane>>),
    /// Put the tiles back as they were at first.
    ResetLayout,
    /// Dismiss every message.
    DismissErrors,
    /// Dismiss one message (its index in the list).
    DismissError(usize),
    /// Open or close the list of messages.
    ToggleErrors,
    /// Show or hide the shortcuts window (F1).
    ToggleShortcuts,
    /// The answer to "Save changes before closing?".
    Close(super::CloseAnswer),
}

impl From<WindowCommand> for Command {
    fn from(c: WindowCommand) -> Self {
        Self::Window(c)
    }
}

/// The frame's command queue.
#[derive(Debug, Default)]
pub struct Commands(Vec<Command>);

impl Commands {
    /// Queues a command (of any group).
    pub fn send(&mut self, c: impl Into<Command>) {
        self.0.push(c.into());
    }

    /// Whether nothing was asked.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The queued commands, in order.
    pub fn into_vec(self) -> Vec<Command> {
        self.0
    }
}

impl AppState {
    /// Applies the frame's commands.
    pub fn apply(&mut self, commands: Commands) {
        for command in commands.into_vec() {
            self.apply_one(command);
        }
    }

    /// Applies one command, in the file of the panel whose state it changes.
    pub(super) fn apply_one(&mut self, command: impl Into<Command>) {
        match command.into() {
            Command::Inputs(c) => self.apply_input(c),
            Command::Stack(c) => self.apply_stack(c),
            Command::Inspector(c) => self.apply_inspector(c),
            Command::Buckets(c) => self.apply_buckets(c),
            Command::Workspace(c) => self.apply_workspace(c),
            Command::Window(c) => self.apply_window(c),
            Command::Profile(c) => self.apply_profile(c),
            Command::Memory(c) => self.apply_memory(c),
        }
    }

    /// Starts loading a file whose bytes are in hand (dropped without a path, or read by
    /// the caller).
    pub fn add_file(&mut self, path: PathBuf, bytes: impl Into<Blob>) {
        let file = Detected::new(path.display().to_string(), bytes.into());
        let kind = file.kind;
        self.add_input(path, kind, Source::Detected(file));
    }

    /// Adds a file by its path; the job reads, fingerprints and detects it (the window's
    /// thread reads no file).
    pub fn add_path(&mut self, path: PathBuf) {
        self.add_input(path.clone(), FileKind::Unknown, Source::Path(path));
    }

    /// Adds an input (or reloads it when the workspace has it) and starts its load.
    pub(super) fn add_input(&mut self, path: PathBuf, kind: FileKind, source: Source) {
        let dir = self.workspace_dir();
        let before = self.workspace.inputs.len();
        let index = self.workspace.add_input(&dir, &path, kind);
        if index < before {
            // Already in the workspace: reload it (its contents may have changed).
            if let Some(entry) = self.inputs.get(index) {
                let id = entry.id;
                self.start_load(id, source);
            }
            return;
        }
        let id = InputId(self.next_input);
        self.next_input += 1;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.inputs.push(InputEntry {
            id,
            name,
            path,
            kind,
            state: InputState::Loading,
            loaded: None,
        });
        self.autosave.changed(Instant::now());
        self.start_load(id, source);
    }

    /// Where an original source file is on disk, for the editor: the path itself, or under
    /// the workspace's folder, or under a source folder the user added.
    pub fn source_on_disk(&self, file: &str) -> Option<PathBuf> {
        let dir = self.workspace_dir();
        let direct = [PathBuf::from(file), dir.join(file)];
        if let Some(p) = direct.into_iter().find(|p| p.is_file()) {
            return Some(p);
        }
        super::find_under_roots(&self.source_roots(), file)
    }

    /// The source folders the user added, as paths (they are kept relative to the workspace).
    pub fn source_roots(&self) -> Vec<PathBuf> {
        let dir = self.workspace_dir();
        self.workspace
            .source_roots
            .iter()
            .map(|r| dir.join(r))
            .collect()
    }

    /// The selected log's note on a stack (`frame: None`) or a frame.
    pub fn note(&self, stack: usize, frame: Option<usize>) -> Option<&str> {
        let log = self.workspace.selection.log.as_deref()?;
        self.workspace
            .notes
            .iter()
            .find(|n| n.input == log && n.stack == stack && n.frame == frame)
            .map(|n| n.text.as_str())
    }

    /// The selected log's notes on frames, for the stack list (shown and searched).
    pub fn frame_notes(&self) -> super::FrameNotes {
        let Some(log) = self.workspace.selection.log.as_deref() else {
            return super::FrameNotes::new();
        };
        self.workspace
            .notes
            .iter()
            .filter(|n| n.input == log)
            .filter_map(|n| Some(((n.stack, n.frame?), n.text.clone())))
            .collect()
    }

    pub(super) fn set_note(&mut self, stack: usize, frame: Option<usize>, text: String) {
        let Some(log) = self.workspace.selection.log.clone() else {
            return;
        };
        let notes = &mut self.workspace.notes;
        let at = notes
            .iter()
            .position(|n| n.input == log && n.stack == stack && n.frame == frame);
        match (at, text.trim().is_empty()) {
            (Some(i), true) => {
                notes.remove(i);
            }
            (Some(i), false) => notes[i].text = text,
            (None, false) => notes.push(workspace::Note {
                input: log,
                stack,
                frame,
                text,
            }),
            (None, true) => {}
        }
    }

    /// Points input `id` (missing) at `path`, where the user found it, and loads it.
    fn locate(&mut self, id: InputId, path: &Path) {
        let Some(i) = self.inputs.iter().position(|e| e.id == id) else {
            return;
        };
        let new = workspace::relative_path(&self.workspace_dir(), path);
        if let Some(doc) = self.workspace.inputs.get_mut(i) {
            if self.workspace.selection.log.as_deref() == Some(&doc.path) {
                self.workspace.selection.log = Some(new.clone());
            }
            for note in &mut self.workspace.notes {
                if note.input == doc.path {
                    note.input.clone_from(&new);
                }
            }
            doc.path = new;
        }
        if let Some(entry) = self.inputs.get_mut(i) {
            entry.path = path.to_path_buf();
            entry.name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
        }
        self.autosave.changed(Instant::now());
        self.start_load(id, Source::Path(path.to_path_buf()));
    }

    /// Adds a pasted trace as a new log kept in the workspace (no file is written), selects
    /// it and symbolicates it.
    pub fn add_pasted(&mut self, text: String) {
        let index = self.workspace.add_pasted(text);
        let Some(doc) = self.workspace.inputs.get(index) else {
            return;
        };
        let name = doc.path.clone();
        let file = Detected::new(
            name.clone(),
            Blob::from(doc.text.clone().unwrap_or_default().into_bytes()),
        );
        let id = InputId(self.next_input);
        self.next_input += 1;
        self.inputs.push(InputEntry {
            id,
            name: name.clone(),
            path: PathBuf::from(&name),
            kind: file.kind,
            state: InputState::Loading,
            loaded: None,
        });
        if let Some(doc) = self.workspace.inputs.get_mut(index) {
            // Whatever it reads as, a paste is shown as a log.
            doc.kind = file.kind;
        }
        self.workspace.selection.log = Some(name);
        self.workspace.selection.stack = 0;
        self.workspace.selection.frame = None;
        self.view.stack.folds = Folds::default();
        self.autosave.changed(Instant::now());
        self.start_load(id, Source::Detected(file));
    }

    /// Opens a crash log in the stack list: selected when the workspace has it, else added.
    pub(super) fn open_crash_log(&mut self, path: PathBuf) {
        let dir = self.workspace_dir();
        let rel = crate::workspace::relative_path(&dir, &path);
        match self.workspace.inputs.iter().position(|x| x.path == rel) {
            Some(i) => {
                if let Some(id) = self.inputs.get(i).map(|e| e.id) {
                    self.apply_one(StackCommand::SelectLog(id));
                }
            }
            None => {
                self.add_path(path);
                self.workspace.selection.log = Some(rel);
                self.workspace.selection.stack = 0;
                self.workspace.selection.frame = None;
                self.view.stack.folds = Folds::default();
            }
        }
    }

    /// Adds a dropped folder (a `.dSYM` bundle, a build's output): a job searches it for
    /// symbol files and logs with frames, which are then added.
    pub fn add_folder(&mut self, dir: PathBuf) {
        let name = format!(
            "search {}",
            dir.file_name().map_or_else(
                || dir.display().to_string(),
                |n| n.to_string_lossy().into_owned()
            )
        );
        let job = self
            .jobs
            .spawn(move |ctx| super::loading::search_folder(ctx, dir));
        self.running.names.insert(job, name);
    }
}

impl AppState {
    /// Applies a request for the workspace's inputs: adding, pasting, removing, locating files; source folders; jobs cancelled.
    pub(super) fn apply_input(&mut self, command: InputCommand) {
        let changed = Instant::now();
        match command {
            InputCommand::AddFiles(files) => {
                // Paths are kept and shown without `.` and `..` (`/a/../b` is `/b`).
                for (path, bytes) in files {
                    self.add_file(workspace::normalized(&path), bytes);
                }
            }
            InputCommand::AddPaths(paths) => {
                let mut added = std::collections::HashSet::new();
                for path in paths.iter().map(|p| workspace::normalized(p)) {
                    if path.is_dir() {
                        self.add_folder(path);
                    } else {
                        let before = self.inputs.len();
                        self.add_path(path.clone());
                        // A new input is the last; one the workspace had is reloaded.
                        let entry = if self.inputs.len() > before {
                            self.inputs.last()
                        } else {
                            self.inputs.iter().find(|e| e.path == path)
                        };
                        added.extend(entry.map(|e| e.id));
                    }
                }
                if added.len() >= 2 {
                    self.running.added_together = added;
                }
            }
            InputCommand::PasteTrace(text) => self.add_pasted(text),
            InputCommand::RemoveInput(id) => {
                if let Some(i) = self.inputs.iter().position(|e| e.id == id) {
                    self.inputs.remove(i);
                    self.workspace.remove_input(i);
                    self.results.remove(&id);
                    self.autosave.changed(changed);
                    self.symbolicate_all();
                }
            }
            InputCommand::Locate(id, path) => self.locate(id, &path),
            InputCommand::AddSourceRoot(dir) => {
                let root = workspace::relative_path(&self.workspace_dir(), &dir);
                if !self.workspace.source_roots.contains(&root) {
                    self.workspace.source_roots.push(root);
                    self.caches.changed();
                    self.autosave.changed(changed);
                }
            }
            InputCommand::RemoveSourceRoot(i) => {
                if i < self.workspace.source_roots.len() {
                    self.workspace.source_roots.remove(i);
                    self.caches.changed();
                    self.autosave.changed(changed);
                }
            }
            InputCommand::CancelJob(id) => self.jobs.cancel(id),
        }
    }
}
