//! The application: state, commands and view models (with `main.rs`, the only code that knows
//! eframe). The UI (`src/ui`) reads [`AppState`] and emits [`Command`]s, which the state
//! applies at the end of the frame, as rerun's viewer does.

mod commands;
mod inspector;
mod loading;
mod view;

pub use commands::{Command, Commands};
pub use inspector::{InspectorView, window};
pub use loading::{InputId, JobOutput, Loaded};
pub use view::{FrameDetail, Row, SourceContext, StackRows, frame_detail};

use crate::jobs::{JobEvent, JobId, JobState, Jobs, Span, Waker};
use crate::model::{Blob, FileKind, FrameTable};
use crate::symbolicate::SymbolSet;
use crate::workspace::{self, Autosave, InputStatus, Workspace};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The file listing recent workspaces (`$XDG_CONFIG_HOME/symscope/recent` or
/// `~/.config/symscope/recent`).
fn recent_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("symscope").join("recent"))
}

/// What a frame detail depends on: the log, the stack, the frame and the result generation.
type DetailKey = (InputId, usize, usize, usize);

/// Where an input stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputState {
    /// Being read, detected and indexed.
    Loading,
    /// Loaded.
    Ready,
    /// Could not be used; the message names the problem.
    Failed(String),
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

/// Everything the app knows. `workspace` is the saved document; the rest is derived.
pub struct AppState {
    /// The document.
    pub workspace: Workspace,
    /// Where the document lives (`None`: not saved yet).
    pub workspace_path: Option<PathBuf>,
    /// Inputs, parallel to `workspace.inputs`.
    pub inputs: Vec<InputEntry>,
    /// Symbolicated logs by input (the same tables their inputs' `Loaded::Log` now hold).
    pub results: HashMap<InputId, Arc<FrameTable>>,
    /// The job pool.
    pub jobs: Jobs<JobOutput>,
    /// What each running job does.
    pub job_names: HashMap<JobId, String>,
    /// Finished jobs, newest last.
    pub timings: Vec<JobTiming>,
    /// Messages for the user (newest last).
    pub errors: Vec<String>,
    /// The stack-list filter.
    pub filter: String,
    /// Files hovering over the window.
    pub hovered: Vec<String>,
    /// Recently opened workspaces.
    pub recent: Vec<PathBuf>,
    /// Library-frame runs the user expanded, as (stack, first frame).
    pub expanded: std::collections::HashSet<(usize, usize)>,
    /// Stacks (an exception, each `Caused by:`) the user folded to their header.
    pub collapsed: std::collections::HashSet<usize>,
    /// The segment inspector's generated line (0-based) and selected segment.
    pub inspector_line: u32,
    /// The selected segment (index in the line).
    pub inspector_segment: Option<usize>,
    inspector_cache: Option<(String, u32, Arc<InspectorView>)>,
    /// Point the open inspector at the selected frame once its log is symbolicated (a
    /// workspace saved with the inspector open reopens on the frame's segment).
    inspect_when_ready: bool,
    autosave: Autosave,
    started: Instant,
    next_input: u64,
    /// The running symbolication job per log, to cancel it when a newer one starts.
    symbolicating: HashMap<InputId, JobId>,
    /// The load job per input, for its progress bar.
    loading: HashMap<InputId, JobId>,
    rows_cache: Option<(InputId, String, usize, Arc<StackRows>)>,
    detail_cache: Option<(DetailKey, Option<Arc<FrameDetail>>)>,
    generation: usize,
}

/// A log to symbolicate: its input, name, table, column base and file.
type LogToSymbolicate = (InputId, String, Arc<FrameTable>, Option<u32>, PathBuf);

impl AppState {
    /// An empty app; `waker` is called from workers (the UI's `request_repaint`).
    pub fn new(waker: Waker) -> Self {
        let jobs = Jobs::new(0, waker).unwrap_or_else(|_| {
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
            job_names: HashMap::new(),
            timings: Vec::new(),
            errors: Vec::new(),
            filter: String::new(),
            hovered: Vec::new(),
            recent: Vec::new(),
            expanded: std::collections::HashSet::new(),
            collapsed: std::collections::HashSet::new(),
            inspector_line: 0,
            inspector_segment: None,
            inspector_cache: None,
            inspect_when_ready: false,
            autosave: Autosave::new(Duration::from_millis(800)),
            started: Instant::now(),
            next_input: 1,
            symbolicating: HashMap::new(),
            loading: HashMap::new(),
            rows_cache: None,
            detail_cache: None,
            generation: 0,
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

    /// The rows of the selected log's stack list (cached per log, filter and result).
    pub fn stack_rows(&mut self) -> Option<Arc<StackRows>> {
        let entry = self.selected_log()?;
        let id = entry.id;
        let Some(Loaded::Log(table)) = &entry.loaded else {
            return None;
        };
        if let Some((cid, f, g, rows)) = &self.rows_cache
            && *cid == id
            && *f == self.filter
            && *g == self.generation
        {
            return Some(rows.clone());
        }
        let rows = Arc::new(StackRows::build(
            table,
            &self.filter,
            &self.expanded,
            &self.collapsed,
            !self.workspace.layout.raw_frames,
        ));
        self.rows_cache = Some((id, self.filter.clone(), self.generation, rows.clone()));
        Some(rows)
    }

    /// The selected frame's detail, computed once per selection and result (its source
    /// context decodes a `sourcesContent` entry, which must not happen every frame).
    pub fn selected_frame_detail(&mut self) -> Option<Arc<FrameDetail>> {
        let (id, table) = self.selected_table()?;
        let sel = &self.workspace.selection;
        let key = (id, sel.stack, sel.frame?, self.generation);
        if let Some((k, d)) = &self.detail_cache
            && *k == key
        {
            return d.clone();
        }
        let maps = self.loaded_maps();
        let dir = self.workspace_dir();
        let roots: Vec<PathBuf> = self
            .workspace
            .source_roots
            .iter()
            .map(|r| dir.join(r))
            .collect();
        let detail = frame_detail(&table, &maps, &roots, key.1, key.2).map(Arc::new);
        self.detail_cache = Some((key, detail.clone()));
        detail
    }

    /// The selected log's table (symbolicated once its job finished).
    pub fn selected_table(&self) -> Option<(InputId, Arc<FrameTable>)> {
        let entry = self.selected_log()?;
        let Some(Loaded::Log(table)) = &entry.loaded else {
            return None;
        };
        Some((entry.id, table.clone()))
    }

    /// Maps that are loaded, with their names.
    pub fn loaded_maps(&self) -> Vec<(String, Arc<crate::symbols::sourcemap::SourceMap>)> {
        self.inputs
            .iter()
            .filter_map(|e| match &e.loaded {
                Some(Loaded::Map(m, _)) => Some((e.name.clone(), m.clone())),
                _ => None,
            })
            .collect()
    }

    /// The inspected map's input: the one chosen, else the first loaded map.
    pub fn inspected_map(&self) -> Option<(String, Arc<crate::symbols::sourcemap::SourceMap>)> {
        let chosen = self.workspace.selection.inspected_map.as_deref();
        let mut maps = self
            .inputs
            .iter()
            .zip(&self.workspace.inputs)
            .filter_map(|(e, d)| match &e.loaded {
                Some(Loaded::Map(m, _)) => Some((d.path.as_str(), e.name.clone(), m.clone())),
                _ => None,
            });
        let first = maps.next()?;
        let found = std::iter::once(first.clone())
            .chain(maps)
            .find(|(p, _, _)| Some(*p) == chosen);
        let (_, name, map) = found.unwrap_or(first);
        Some((name, map))
    }

    /// The inspector's view of the current map and line (decoded once, then cached).
    pub fn inspector_view(&mut self) -> Option<Arc<InspectorView>> {
        let (name, map) = self.inspected_map()?;
        if let Some((n, l, v)) = &self.inspector_cache
            && *n == name
            && *l == self.inspector_line
        {
            return Some(v.clone());
        }
        // The generated text, when the bundle the map describes is loaded.
        let stem = name.strip_suffix(".map").unwrap_or(&name).to_owned();
        let file = map
            .file()
            .map(|f| crate::symbolicate::basename(f).to_owned());
        let generated = self.inputs.iter().find_map(|e| match &e.loaded {
            Some(Loaded::Bundle(_, text)) if e.name == stem || Some(&e.name) == file.as_ref() => {
                Some(text.clone())
            }
            _ => None,
        });
        let view = Arc::new(InspectorView::new(
            &name,
            map,
            self.inspector_line,
            generated,
        ));
        self.inspector_cache = Some((name, self.inspector_line, view.clone()));
        Some(view)
    }

    /// Points the inspector at the selected frame's map and segment.
    fn inspect_selected_frame(&mut self) {
        let sel = self.workspace.selection.clone();
        let Some((_, table)) = self.selected_table() else {
            return;
        };
        let Some(frame) = sel.frame.and_then(|f| table.frame(sel.stack, f)) else {
            return;
        };
        let (Some(file), Some((line, col))) = (frame.symbol_file(), frame.generated()) else {
            return;
        };
        // A chained result names "outer + inner"; the frame's position is in the outer map.
        let outer = file.split(" + ").next().unwrap_or(file);
        let Some(path) = self
            .inputs
            .iter()
            .zip(&self.workspace.inputs)
            .find(|(e, _)| e.name == outer)
            .map(|(_, d)| d.path.clone())
        else {
            return;
        };
        self.workspace.selection.inspected_map = Some(path);
        self.workspace.layout.inspector_open = true;
        self.inspector_line = line;
        self.inspector_segment = self.inspector_view().and_then(|v| v.segment_at(col));
    }

    fn now_ns(&self) -> u64 {
        self.started.elapsed().as_nanos() as u64
    }

    /// Handles job events; call once per frame. Returns whether anything changed.
    pub fn poll_jobs(&mut self) -> bool {
        let events = self.jobs.poll();
        let mut changed = false;
        // A new map or bundle re-runs every log; a new log only needs itself.
        let mut resymbolicate = false;
        let mut new_logs: Vec<InputId> = Vec::new();
        for event in events {
            let JobEvent::Finished {
                id,
                state,
                result,
                spans,
                elapsed,
            } = event
            else {
                changed = true;
                continue;
            };
            changed = true;
            let name = self
                .job_names
                .remove(&id)
                .unwrap_or_else(|| format!("job {}", id.0));
            let loaded_input = self
                .loading
                .iter()
                .find_map(|(input, job)| (*job == id).then_some(*input));
            self.loading.retain(|_, job| *job != id);
            self.timings.push(JobTiming {
                name: name.clone(),
                end_ns: self.now_ns(),
                spans,
                elapsed,
                state: state.clone(),
            });
            match (state, result) {
                (
                    JobState::Done,
                    Some(JobOutput::Loaded {
                        input,
                        kind,
                        loaded,
                    }),
                ) => {
                    if matches!(loaded, Loaded::Log(_)) {
                        new_logs.push(input);
                    } else {
                        resymbolicate = true;
                    }
                    if let Some(e) = self.inputs.iter_mut().find(|e| e.id == input) {
                        e.kind = kind;
                        e.state = InputState::Ready;
                        e.loaded = Some(loaded);
                    }
                    if let Some(i) = self.inputs.iter().position(|e| e.id == input)
                        && let Some(doc) = self.workspace.inputs.get_mut(i)
                        && doc.kind != kind
                    {
                        doc.kind = kind;
                        self.autosave.changed(Instant::now());
                    }
                }
                (JobState::Done, Some(JobOutput::Symbolicated { log, table }))
                    if self.symbolicating.get(&log) == Some(&id) =>
                {
                    // Only the newest run of a log counts (an older one may finish later).
                    self.symbolicating.remove(&log);
                    // The symbolicated table replaces the parsed one: one table per log.
                    let table: Arc<FrameTable> = Arc::from(table);
                    if let Some(e) = self.inputs.iter_mut().find(|e| e.id == log) {
                        e.loaded = Some(Loaded::Log(table.clone()));
                    }
                    self.results.insert(log, table);
                    self.generation += 1;
                    if self.inspect_when_ready && self.selected_log().is_some_and(|e| e.id == log) {
                        self.inspect_when_ready = false;
                        self.inspect_selected_frame();
                    }
                }
                (JobState::Failed(message), _) => {
                    if let Some(input) = self.input_of_job(&name)
                        && let Some(e) = self.inputs.iter_mut().find(|e| e.id == input)
                    {
                        e.state = InputState::Failed(message.clone());
                    }
                    self.errors.push(format!("{name}: {message}"));
                }
                (JobState::Cancelled, _) => {
                    if let Some(e) = loaded_input
                        .and_then(|input| self.inputs.iter_mut().find(|e| e.id == input))
                        .filter(|e| e.state == InputState::Loading)
                    {
                        e.state = InputState::Cancelled;
                    }
                }
                _ => {}
            }
        }
        if resymbolicate {
            self.symbolicate_all();
        } else {
            for log in new_logs {
                self.symbolicate_logs(Some(log));
            }
        }
        changed
    }

    fn input_of_job(&self, job_name: &str) -> Option<InputId> {
        let name = job_name.strip_prefix("load ")?;
        self.inputs
            .iter()
            .find(|e| e.name == name && e.state == InputState::Loading)
            .map(|e| e.id)
    }

    /// Starts loading a file whose bytes are in hand (dropped, pasted or read by the caller).
    pub fn add_file(&mut self, path: PathBuf, bytes: impl Into<Blob>) {
        let bytes: Blob = bytes.into();
        let dir = self.workspace_dir();
        let kind = crate::formats::peek(bytes.as_slice());
        let before = self.workspace.inputs.len();
        let index = self
            .workspace
            .add_input(&dir, &path, kind, bytes.as_slice());
        if index < before {
            // Already in the workspace: reload it (its contents may have changed).
            if let Some(doc) = self.workspace.inputs.get_mut(index) {
                doc.size = bytes.len() as u64;
                doc.hash = workspace::fingerprint(bytes.as_slice());
            }
            if let Some(entry) = self.inputs.get(index) {
                let id = entry.id;
                self.start_load(id, bytes);
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
        if kind == FileKind::Log && self.workspace.selection.log.is_none() {
            self.workspace.selection.log = self.workspace.inputs.get(index).map(|i| i.path.clone());
        }
        self.autosave.changed(Instant::now());
        self.start_load(id, bytes);
    }

    /// Adds a dropped folder (a `.dSYM` bundle, a build's output): every symbol file under
    /// it, and every log in it with frames; other files (an `Info.plist`) are passed over.
    pub fn add_folder(&mut self, dir: &Path) {
        let (files, errors) = workspace::files_under(dir);
        self.errors.extend(errors);
        let mut added = 0;
        for file in files {
            let bytes = match input_bytes(&file) {
                Ok(b) => b,
                Err(e) => {
                    self.errors.push(format!("{}: {e}", file.display()));
                    continue;
                }
            };
            let wanted = match crate::formats::peek(bytes.as_slice()) {
                FileKind::SourceMap | FileKind::ProguardMapping | FileKind::NativeSymbols => true,
                FileKind::Log => crate::formats::parse_log(bytes.as_slice())
                    .stacks
                    .iter()
                    .flat_map(|s| &s.frames)
                    .any(|f| f.input.is_some()),
                _ => false,
            };
            if wanted {
                self.add_file(file, bytes);
                added += 1;
            }
        }
        if added == 0 {
            self.errors.push(format!(
                "{}: no symbol files or crash logs in this folder",
                dir.display()
            ));
        }
    }

    fn start_load(&mut self, id: InputId, bytes: Blob) {
        let Some(entry) = self.inputs.iter_mut().find(|e| e.id == id) else {
            return;
        };
        entry.state = InputState::Loading;
        let name = entry.name.clone();
        let path = entry.path.display().to_string();
        // Derived data (a mapping's index) is cached beside a saved workspace, keyed by the
        // file's fingerprint.
        let cache = self.workspace_path.as_deref().and_then(|ws| {
            let i = self.inputs.iter().position(|e| e.id == id)?;
            let hash = self.workspace.inputs.get(i)?.hash.clone();
            Some(loading::CacheKey {
                dir: workspace::cache_dir(ws),
                fingerprint: hash,
            })
        });
        let job = self
            .jobs
            .spawn(move |ctx| loading::load(ctx, id, &path, bytes, cache.as_ref()));
        self.job_names.insert(job, format!("load {name}"));
        self.loading.insert(id, job);
    }

    /// The progress of the job loading or symbolicating input `id`, while one runs.
    pub fn input_progress(&self, id: InputId) -> Option<&crate::jobs::JobProgress> {
        [self.loading.get(&id), self.symbolicating.get(&id)]
            .into_iter()
            .flatten()
            .find_map(|&job| self.jobs.progress_of(job))
    }

    /// Re-symbolicates every loaded log against the loaded maps (after any map changes).
    pub fn symbolicate_all(&mut self) {
        self.symbolicate_logs(None);
    }

    /// Symbolicates one log (`Some`) or every loaded log (`None`) against the loaded maps.
    fn symbolicate_logs(&mut self, only: Option<InputId>) {
        let mut symbols = SymbolSet::new();
        for e in &self.inputs {
            match &e.loaded {
                Some(Loaded::Map(map, ms)) => {
                    symbols.add_shared_map(&e.path.display().to_string(), map.clone(), *ms)
                }
                Some(Loaded::Bundle(b, _)) => symbols.bundles.push(b.clone()),
                Some(Loaded::ProguardMapping(m, ms)) => {
                    symbols.add_shared_mapping(&e.path.display().to_string(), m.clone(), *ms)
                }
                Some(Loaded::Native(n, ms)) => {
                    symbols.add_shared_native(&e.path.display().to_string(), n.clone(), *ms)
                }
                _ => {}
            }
        }
        let symbols = Arc::new(symbols);
        let logs: Vec<LogToSymbolicate> = self
            .inputs
            .iter()
            .zip(&self.workspace.inputs)
            .filter(|(e, _)| only.is_none_or(|id| id == e.id))
            .filter_map(|(e, doc)| match &e.loaded {
                Some(Loaded::Log(t)) => Some((
                    e.id,
                    e.name.clone(),
                    t.clone(),
                    doc.settings.column_base,
                    e.path.clone(),
                )),
                _ => None,
            })
            .collect();
        for (id, name, trace, column_base, path) in logs {
            if let Some(old) = self.symbolicating.remove(&id) {
                self.jobs.cancel(old);
            }
            let symbols = symbols.clone();
            let job = self.jobs.spawn(move |ctx| {
                loading::symbolicate_log(ctx, id, &trace, &symbols, column_base, &path)
            });
            self.job_names.insert(job, format!("symbolicate {name}"));
            self.symbolicating.insert(id, job);
        }
    }

    /// Opens a workspace file: inputs that exist are loaded, missing ones are shown as missing.
    pub fn open_workspace(&mut self, path: &Path) -> Result<(), workspace::WorkspaceError> {
        let ws = workspace::load(path)?;
        self.inspect_when_ready = ws.layout.inspector_open && ws.selection.frame.is_some();
        self.workspace = ws;
        self.workspace_path = Some(path.to_path_buf());
        self.inputs.clear();
        self.results.clear();
        self.rows_cache = None;
        self.remember_recent(path);
        let dir = self.workspace_dir();
        let docs = self.workspace.inputs.clone();
        for doc in docs {
            let id = InputId(self.next_input);
            self.next_input += 1;
            let abs = dir.join(&doc.path);
            let name = abs
                .file_name()
                .map_or_else(|| doc.path.clone(), |n| n.to_string_lossy().into_owned());
            let status = self.workspace.check_input(&dir, &doc);
            let state = if status == InputStatus::Missing {
                InputState::Missing
            } else {
                InputState::Loading
            };
            self.inputs.push(InputEntry {
                id,
                name,
                path: abs.clone(),
                kind: doc.kind,
                state: state.clone(),
                loaded: None,
            });
            if state == InputState::Loading {
                match input_bytes(&abs) {
                    Ok(bytes) => {
                        if let InputStatus::Changed { size, hash } = status
                            && let Some(d) = self
                                .workspace
                                .inputs
                                .iter_mut()
                                .find(|d| d.path == doc.path)
                        {
                            // A changed file is re-indexed and its new fingerprint recorded.
                            d.size = size;
                            d.hash = hash;
                            self.autosave.changed(Instant::now());
                        }
                        self.start_load(id, bytes);
                    }
                    Err(e) => {
                        if let Some(entry) = self.inputs.last_mut() {
                            entry.state = InputState::Failed(e.to_string());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn remember_recent(&mut self, path: &Path) {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| *p != path);
        self.recent.insert(0, path);
        self.recent.truncate(8);
        if let Some(file) = recent_file() {
            let text = self
                .recent
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join("\n");
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir).ok();
            }
            // Losing the recent list is harmless; the workspace itself is saved atomically.
            std::fs::write(&file, text).ok();
        }
    }

    /// Starts the app from the command line: a workspace (`.ron`), files for a new workspace,
    /// or nothing (the last workspace, when there is one).
    pub fn start(&mut self, paths: &[PathBuf]) {
        self.recent = recent_file()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .map(|t| {
                t.lines()
                    .filter(|l| !l.is_empty())
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        match paths {
            [one] if one.extension().is_some_and(|e| e == "ron") => {
                if let Err(e) = self.open_workspace(one) {
                    self.errors.push(e.to_string());
                }
            }
            [] => {
                if let Some(last) = self.recent.first().cloned().filter(|p| p.exists())
                    && let Err(e) = self.open_workspace(&last)
                {
                    self.errors.push(e.to_string());
                }
            }
            files => self.apply_one(Command::AddPaths(files.to_vec())),
        }
    }

    /// Saves the workspace to its file (or to `path`), atomically.
    pub fn save_workspace(
        &mut self,
        path: Option<PathBuf>,
    ) -> Result<PathBuf, workspace::WorkspaceError> {
        let path = path
            .or_else(|| self.workspace_path.clone())
            .unwrap_or_else(|| PathBuf::from("workspaces/untitled.ron"));
        if self.workspace_path.as_deref() != Some(&path) {
            // Paths are relative to the document: rebase them on the new folder.
            let old_dir = self.workspace_dir();
            let new_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            for doc in &mut self.workspace.inputs {
                doc.path = workspace::relative_path(&new_dir, &old_dir.join(&doc.path));
            }
            if let Some(log) = &self.workspace.selection.log {
                self.workspace.selection.log =
                    Some(workspace::relative_path(&new_dir, &old_dir.join(log)));
            }
        }
        workspace::save(&path, &self.workspace)?;
        self.workspace_path = Some(path.clone());
        self.remember_recent(&path);
        Ok(path)
    }

    /// Saves when a change has settled (autosave); returns how long until the next check.
    pub fn tick_autosave(&mut self) -> Option<Duration> {
        let now = Instant::now();
        if self.workspace_path.is_some() && self.autosave.due(now) {
            if let Err(e) = self.save_workspace(None) {
                self.errors.push(e.to_string());
            }
            return None;
        }
        if self.workspace_path.is_some() {
            self.autosave.wait(now)
        } else {
            None
        }
    }

    /// Applies the frame's commands.
    pub fn apply(&mut self, commands: Commands) {
        for command in commands.into_vec() {
            self.apply_one(command);
        }
    }

    fn apply_one(&mut self, command: Command) {
        let changed = Instant::now();
        match command {
            Command::AddFiles(files) => {
                for (path, bytes) in files {
                    self.add_file(path, bytes);
                }
            }
            Command::AddPaths(paths) => {
                for path in paths {
                    if path.is_dir() {
                        self.add_folder(&path);
                        continue;
                    }
                    match input_bytes(&path) {
                        Ok(bytes) => self.add_file(path, bytes),
                        Err(e) => self.errors.push(format!("{}: {e}", path.display())),
                    }
                }
            }
            Command::PasteTrace(text) => {
                let n = self
                    .inputs
                    .iter()
                    .filter(|e| e.name.starts_with("pasted-"))
                    .count()
                    + 1;
                let path = self.workspace_dir().join(format!("pasted-{n}.txt"));
                if let Err(e) = std::fs::write(&path, &text) {
                    self.errors.push(format!("{}: {e}", path.display()));
                } else {
                    self.add_file(path, text.into_bytes());
                }
            }
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
                self.expanded.clear();
                self.collapsed.clear();
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
            Command::SetFilter(f) => self.filter = f,
            Command::ToggleGroup { stack, first } => {
                if !self.expanded.remove(&(stack, first)) {
                    self.expanded.insert((stack, first));
                }
                self.generation += 1;
            }
            Command::ToggleStack(stack) => {
                if !self.collapsed.remove(&stack) {
                    self.collapsed.insert(stack);
                }
                self.generation += 1;
            }
            Command::ToggleRaw => {
                self.workspace.layout.raw_frames = !self.workspace.layout.raw_frames;
                // Raw lines have no inline rows.
                self.generation += 1;
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
                    self.detail_cache = None;
                    self.autosave.changed(changed);
                }
            }
            Command::RemoveSourceRoot(i) => {
                if i < self.workspace.source_roots.len() {
                    self.workspace.source_roots.remove(i);
                    self.detail_cache = None;
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
                self.inspector_line = 0;
                self.inspector_segment = None;
                self.autosave.changed(changed);
            }
            Command::InspectLine(line) => {
                self.inspector_line = line;
                self.inspector_segment = None;
            }
            Command::SelectSegment(i) => self.inspector_segment = Some(i),
            Command::InspectSelectedFrame => self.inspect_selected_frame(),
            Command::OpenWorkspace(path) => {
                if let Err(e) = self.open_workspace(&path) {
                    self.errors.push(e.to_string());
                }
            }
            Command::SaveWorkspace(path) => {
                if let Err(e) = self.save_workspace(path) {
                    self.errors.push(e.to_string());
                }
            }
            Command::DismissErrors => self.errors.clear(),
        }
    }
}

/// The bytes of an input's file, off the UI thread's hands fast: a large file stays
/// memory-mapped when it is only read while it loads (a native debug file: its SymCache is
/// built from it and the bytes let go), and is copied into memory when its bytes are kept
/// (a map, a mapping, a bundle or a log is read for as long as it is open, and its file may
/// be rewritten meanwhile, by a rebuild).
fn input_bytes(path: &Path) -> std::io::Result<Blob> {
    let blob = crate::jobs::read_or_map(path)?;
    let mapped = blob.len() as u64 >= crate::jobs::MAP_MIN;
    Ok(match crate::formats::peek(blob.as_slice()) {
        FileKind::Log | FileKind::SourceMap | FileKind::JavaScript | FileKind::ProguardMapping
            if mapped =>
        {
            Blob::from(blob.as_slice().to_vec())
        }
        _ => blob,
    })
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
            let blob = input_bytes(&path).unwrap();
            assert_eq!(crate::formats::peek(blob.as_slice()), kind, "{path:?}");
            assert!(blob.as_slice() == std::fs::read(&path).unwrap(), "{path:?}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
