//! What the UI asks the app to do, and how the state applies it at the end of the frame.

use super::loading::Source;
use super::{AppState, DialogRequest, ExportFormat, Folds, InputEntry, InputId, InputState};
use crate::engine::Detected;
use crate::jobs::JobId;
use crate::model::{Blob, FileKind};
use crate::workspace;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One request from the UI.
#[derive(Debug)]
pub enum Command {
    /// Files whose bytes are in hand (dropped): add and load them.
    AddFiles(Vec<(PathBuf, Vec<u8>)>),
    /// Files to read from disk (File → Open, command line).
    AddPaths(Vec<PathBuf>),
    /// A trace pasted from the clipboard: becomes a log input.
    PasteTrace(String),
    /// Remove an input from the workspace.
    RemoveInput(InputId),
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
    /// Switch between dark and light.
    ToggleTheme,
    /// Look for original sources under this folder too.
    AddSourceRoot(PathBuf),
    /// Stop looking under this source folder (its index in the workspace's list).
    RemoveSourceRoot(usize),
    /// Show or hide the timing panel.
    ToggleTiming,
    /// Stop a running job.
    CancelJob(JobId),
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
    /// Open a workspace file.
    OpenWorkspace(PathBuf),
    /// Save the workspace: to its file, or to the given path (Save as). A workspace never
    /// saved, or one Symscope must not write (a template such as the demo, a read-only
    /// file), asks where to save instead.
    SaveWorkspace(Option<PathBuf>),
    /// Dismiss every message.
    DismissErrors,
    /// Dismiss one message (its index in the list).
    DismissError(usize),
    /// Open or close the list of messages.
    ToggleErrors,
    /// Copy the selected frame to the system clipboard (Ctrl+C).
    CopyFrame,
    /// Copy the selected log's whole symbolicated trace, as `symscope symbolicate` prints
    /// it (Ctrl+Shift+C).
    CopyTrace,
    /// Copy this text (a location, a function name).
    CopyText(String),
    /// Open a file dialog (it never blocks painting; its answer comes in a later frame).
    Dialog(DialogRequest),
    /// Export the selected log to a file.
    Export(ExportFormat, PathBuf),
    /// Show or hide the shortcuts window (F1).
    ToggleShortcuts,
    /// The user resized a panel: keep its size in the workspace.
    PanelSize(Panel, f32),
    /// A missing input is at this path now: point the workspace at it and load it.
    Locate(InputId, PathBuf),
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
}

/// The window's resizable panels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Panel {
    /// The inputs, on the left.
    Workspace,
    /// The timings, on the right.
    Timing,
    /// The selected frame, below the list.
    Detail,
    /// The segment inspector, docked below the list.
    Inspector,
}

/// The frame's command queue.
#[derive(Debug, Default)]
pub struct Commands(Vec<Command>);

impl Commands {
    /// Queues a command.
    pub fn send(&mut self, c: Command) {
        self.0.push(c);
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

    /// Applies one command.
    pub(super) fn apply_one(&mut self, command: Command) {
        let changed = Instant::now();
        match command {
            Command::AddFiles(files) => {
                for (path, bytes) in files {
                    self.add_file(path, bytes);
                }
            }
            Command::AddPaths(paths) => {
                let mut added = std::collections::HashSet::new();
                for path in paths {
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
            Command::PasteTrace(text) => self.add_pasted(text),
            Command::RemoveInput(id) => {
                if let Some(i) = self.inputs.iter().position(|e| e.id == id) {
                    self.inputs.remove(i);
                    self.workspace.remove_input(i);
                    self.results.remove(&id);
                    self.autosave.changed(changed);
                    self.symbolicate_all();
                }
            }
            Command::SelectLog(id) => {
                self.view.folds = Folds::default();
                if let Some(i) = self.inputs.iter().position(|e| e.id == id) {
                    self.workspace.selection.log =
                        self.workspace.inputs.get(i).map(|d| d.path.clone());
                    self.workspace.selection.stack = 0;
                    self.workspace.selection.frame = None;
                    self.autosave.changed(changed);
                }
            }
            Command::SelectFrame { stack, frame } => {
                self.workspace.selection.stack = stack;
                self.workspace.selection.frame = Some(frame);
                self.autosave.changed(changed);
            }
            Command::SetFilter(f) => self.view.filter = f,
            Command::ToggleGroup { stack, first } => {
                if !self.view.folds.expanded.remove(&(stack, first)) {
                    self.view.folds.expanded.insert((stack, first));
                }
                self.caches.changed();
            }
            Command::ToggleStack(stack) => {
                if !self.view.folds.collapsed.remove(&stack) {
                    self.view.folds.collapsed.insert(stack);
                }
                self.caches.changed();
            }
            Command::ToggleCandidates { stack, frame } => {
                if !self.view.folds.candidates.remove(&(stack, frame)) {
                    self.view.folds.candidates.insert((stack, frame));
                }
                self.caches.changed();
            }
            Command::ToggleRaw => {
                self.workspace.layout.raw_frames = !self.workspace.layout.raw_frames;
                // Raw lines have no inline rows.
                self.caches.changed();
                self.autosave.changed(changed);
            }
            Command::ToggleTheme => {
                self.workspace.layout.dark = !self.workspace.layout.dark;
                self.autosave.changed(changed);
            }
            Command::AddSourceRoot(dir) => {
                let root = workspace::relative_path(&self.workspace_dir(), &dir);
                if !self.workspace.source_roots.contains(&root) {
                    self.workspace.source_roots.push(root);
                    self.caches.changed();
                    self.autosave.changed(changed);
                }
            }
            Command::RemoveSourceRoot(i) => {
                if i < self.workspace.source_roots.len() {
                    self.workspace.source_roots.remove(i);
                    self.caches.changed();
                    self.autosave.changed(changed);
                }
            }
            Command::ToggleTiming => {
                self.workspace.layout.timing_open = !self.workspace.layout.timing_open;
                self.autosave.changed(changed);
            }
            Command::CancelJob(id) => self.jobs.cancel(id),
            Command::ToggleInspector => {
                self.workspace.layout.inspector_open = !self.workspace.layout.inspector_open;
                self.autosave.changed(changed);
            }
            Command::InspectMap(path) => {
                self.workspace.selection.inspected_map = Some(path);
                self.view.inspector_line = 0;
                self.view.inspector_segment = None;
                self.autosave.changed(changed);
            }
            Command::InspectLine(line) => {
                self.view.inspector_line = line;
                self.view.inspector_segment = None;
            }
            Command::GoToGenerated { line, column } => {
                self.view.inspector_line = line;
                self.focus_inspector(column);
            }
            Command::CheckMap => self.start_map_check(),
            Command::CloseMapReport => self.view.map_report = None,
            Command::ExtractSources(dir) => self.start_extract(dir),
            Command::CompareWith(other) => self.start_compare(other),
            Command::ShowDiffLine(k) => {
                let line = self.view.map_diff.as_mut().and_then(|c| {
                    c.shown = k;
                    Some(c.diff.differing.get(k)?.line)
                });
                if let Some(line) = line {
                    self.apply_one(Command::InspectLine(line));
                }
            }
            Command::CloseCompare => self.view.map_diff = None,
            Command::BucketCrashes(paths) => {
                let dir = self.workspace_dir();
                let mut known: std::collections::HashSet<String> =
                    self.workspace.buckets.sources.iter().cloned().collect();
                for p in &paths {
                    let rel = crate::workspace::relative_path(&dir, p);
                    if known.insert(rel.clone()) {
                        self.workspace.buckets.sources.push(rel);
                    }
                }
                self.autosave.changed(changed);
                self.start_bucketing();
            }
            Command::CloseBuckets => {
                self.workspace.buckets.sources.clear();
                self.workspace.buckets.selected = None;
                self.view.buckets = None;
                if let Some(job) = self.running.bucketing.take() {
                    self.jobs.cancel(job);
                }
                self.autosave.changed(changed);
            }
            Command::SelectBucket(fp) => {
                self.workspace.buckets.selected = fp;
                self.autosave.changed(changed);
            }
            Command::SetBucketNote(fp, note) => {
                if note.trim().is_empty() {
                    self.workspace.buckets.notes.remove(&fp);
                } else {
                    self.workspace.buckets.notes.insert(fp, note);
                }
                self.autosave.changed(changed);
            }
            Command::SetBucketFilter(f) => self.view.bucket_filter = f,
            Command::SortBuckets(column) => {
                let (current, reversed) = self.view.bucket_sort;
                self.view.bucket_sort = (column, current == column && !reversed);
            }
            Command::OpenCrashLog(path) => self.open_crash_log(path),
            Command::PickCompare(b_side, path) => {
                if b_side {
                    self.view.compare_pick.1 = Some(path);
                } else {
                    self.view.compare_pick.0 = Some(path);
                }
                if let (Some(a), Some(b)) = self.view.compare_pick.clone() {
                    self.apply_one(Command::CompareLogs(a, b));
                }
            }
            Command::CompareLogs(a, b) => {
                self.workspace.compare = Some(crate::workspace::Compare {
                    a: self.compare_name(&a.log),
                    b: self.compare_name(&b.log),
                    stack_a: a.stack,
                    stack_b: b.stack,
                });
                self.view.compare_pick = (Some(a.clone()), Some(b.clone()));
                self.autosave.changed(changed);
                self.start_log_compare(a, b);
            }
            Command::CloseLogCompare => {
                self.view.log_compare = None;
                self.view.compare_pick = (None, None);
                self.workspace.compare = None;
                self.autosave.changed(changed);
            }
            Command::SearchMap(query) => self.start_map_search(query),
            Command::CloseSearch => self.view.map_search = None,
            Command::OpenOriginal => self.open_original(),
            Command::IndexOriginals => self.ensure_originals(),
            Command::CloseOriginal => self.view.original = None,
            Command::SetOriginalFilter(filter) => {
                if let Some(nav) = &mut self.view.original {
                    nav.filter = filter;
                }
            }
            Command::PickOriginalSource(source) => {
                if let Some(nav) = &mut self.view.original {
                    nav.source = Some(source);
                    nav.line = None;
                }
            }
            Command::GoToOriginalLine(line) => {
                let first = self.view.original.as_mut().and_then(|nav| {
                    nav.line = Some(line);
                    let index = nav.index.as_ref()?;
                    index
                        .on_line(nav.source?, line)
                        .into_iter()
                        .map(|(_, at)| at)
                        .min()
                });
                if let Some(at) = first {
                    self.apply_one(Command::GoToGenerated {
                        line: at.line,
                        column: at.column,
                    });
                }
            }
            Command::SelectSegment(i) => self.view.inspector_segment = Some(i),
            Command::InspectSelectedFrame => self.inspect_selected_frame(),
            Command::OpenWorkspace(path) => {
                if let Err(e) = self.open_workspace(&path) {
                    self.errors.push(e.to_string());
                }
            }
            Command::SaveWorkspace(None) if !self.may_write_workspace() => {
                self.apply_one(Command::Dialog(DialogRequest::SaveWorkspaceAs));
            }
            Command::SaveWorkspace(path) => {
                if let Err(e) = self.save_workspace(path) {
                    self.errors.push(e.to_string());
                }
            }
            Command::DismissErrors => self.errors.clear(),
            Command::DismissError(i) => self.errors.dismiss(i),
            Command::ToggleErrors => self.errors_open = !self.errors_open,
            Command::CopyFrame => {
                if let Some(d) = self.selected_frame_detail() {
                    self.pending_copy = Some(d.copy_text());
                }
            }
            Command::CopyTrace => {
                if let Some((_, table)) = self.selected_table() {
                    self.pending_copy = Some(crate::engine::report::text(&table, &[]));
                }
            }
            Command::CopyText(text) => self.pending_copy = Some(text),
            Command::ToggleShortcuts => self.view.shortcuts_open = !self.view.shortcuts_open,
            Command::PanelSize(panel, size) => {
                let layout = &mut self.workspace.layout;
                let slot = match panel {
                    Panel::Workspace => &mut layout.side_panel_width,
                    Panel::Timing => &mut layout.timing_width,
                    Panel::Detail => &mut layout.detail_height,
                    Panel::Inspector => &mut layout.inspector_height,
                };
                if (*slot - size).abs() >= 1.0 {
                    *slot = size;
                    self.autosave.changed(changed);
                }
            }
            Command::Locate(id, path) => self.locate(id, &path),
            Command::OpenInEditor { file, line, column } => {
                match self.settings.editor_command(&file, line, column) {
                    Some(words) => {
                        if let Err(e) = std::process::Command::new(&words[0])
                            .args(&words[1..])
                            .stdin(std::process::Stdio::null())
                            .spawn()
                        {
                            self.errors.push(format!("editor {}: {e}", words[0]));
                        }
                    }
                    None => self.errors.push(format!(
                        "no editor set: put (editor: Some(\"code --goto {{file}}:{{line}}:{{column}}\")) in {}",
                        super::settings_file()
                            .map_or_else(|| "settings.ron".to_owned(), |f| f.display().to_string())
                    )),
                }
            }
            Command::SetNote { stack, frame, text } => {
                self.set_note(stack, frame, text);
                self.autosave.changed(changed);
                self.caches.changed();
            }
            Command::Dialog(request) => self.show_dialog(request),
            Command::Export(format, path) => {
                if let Err(e) = self.export(format, &path) {
                    self.errors.push(format!("{}: {e}", path.display()));
                }
            }
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
    fn add_input(&mut self, path: PathBuf, kind: FileKind, source: Source) {
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

    fn set_note(&mut self, stack: usize, frame: Option<usize>, text: String) {
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
        self.view.folds = Folds::default();
        self.autosave.changed(Instant::now());
        self.start_load(id, Source::Detected(file));
    }

    /// Opens a crash log in the stack list: selected when the workspace has it, else added.
    fn open_crash_log(&mut self, path: PathBuf) {
        let dir = self.workspace_dir();
        let rel = crate::workspace::relative_path(&dir, &path);
        match self.workspace.inputs.iter().position(|x| x.path == rel) {
            Some(i) => {
                if let Some(id) = self.inputs.get(i).map(|e| e.id) {
                    self.apply_one(Command::SelectLog(id));
                }
            }
            None => {
                self.add_path(path);
                self.workspace.selection.log = Some(rel);
                self.workspace.selection.stack = 0;
                self.workspace.selection.frame = None;
                self.view.folds = Folds::default();
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
