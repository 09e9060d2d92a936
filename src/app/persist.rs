//! Opening and saving workspaces, the recent list, and saving a change once it has settled.

use super::loading::Source;
use super::{
    AppState, DialogRequest, ExportFormat, InputEntry, InputId, InputState, NO_DIALOG,
    dialog_available,
};
use super::{InputCommand, InspectorCommand, WorkspaceCommand};
use crate::workspace;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The file listing recent workspaces (`~/.config/symscope/recent`).
fn recent_file() -> Option<PathBuf> {
    workspace::user_dirs::config_file("recent")
}

impl AppState {
    /// Opens a workspace file: inputs that exist are loaded, missing ones are shown as missing.
    pub fn open_workspace(&mut self, path: &Path) -> Result<(), workspace::WorkspaceError> {
        let ws = workspace::load(path)?;
        self.remember_recent(path);
        self.show_document(ws, Some(path.to_path_buf()));
        Ok(())
    }

    /// Shows `ws`, the document of the file at `path` (or of none): its inputs that exist
    /// are loaded, missing ones shown as missing.
    fn show_document(&mut self, ws: workspace::Workspace, path: Option<PathBuf>) {
        self.view.inspector.when_ready = ws.layout.inspector_open && ws.selection.frame.is_some();
        self.workspace = ws;
        self.workspace_path = path;
        // Opened, not saved: nothing is written to it until the user saves.
        self.adopted = false;
        self.autosave.clear();
        self.inputs.clear();
        self.results.clear();
        self.caches.clear();
        self.view.buckets.bucketed = None;
        self.view.buckets.log_compare = None;
        self.view.buckets.compare_pick = (None, None);
        let dir = self.workspace_dir();
        let docs = self.workspace.inputs.clone();
        for doc in docs {
            let id = InputId(self.next_input);
            self.next_input += 1;
            let abs = dir.join(&doc.path);
            let name = abs
                .file_name()
                .map_or_else(|| doc.path.clone(), |n| n.to_string_lossy().into_owned());
            // Only whether it is there: the job reads it, and its fingerprint says whether
            // it changed (the window's thread reads no file).
            let missing = doc.text.is_none() && !abs.exists();
            let state = if missing {
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
            if let Some(text) = &doc.text {
                // A pasted log lives in the document.
                let file = crate::engine::Detected::new(
                    doc.path.clone(),
                    crate::model::Blob::from(text.clone().into_bytes()),
                );
                if let Some(entry) = self.inputs.last_mut() {
                    entry.path = PathBuf::from(&doc.path);
                }
                self.start_load(id, Source::Detected(file));
            } else if !missing {
                self.start_load(id, Source::Path(abs));
            }
        }
        // Bucketed and compared now, and again as symbol files finish loading.
        self.start_bucketing();
        self.compare_again();
    }

    /// Restores (or drops) the work of the first recovery file on offer: restored, it is
    /// the open document again, as unsaved changes to its own file (which is untouched).
    pub(super) fn answer_recovery(&mut self, restore: bool) {
        if self.recovered.is_empty() {
            return;
        }
        let orphan = self.recovered.remove(0);
        if restore {
            let doc = orphan.doc.clone();
            self.show_document(doc.workspace, doc.original);
            self.autosave.changed(Instant::now());
        }
        orphan.forget();
    }

    /// Writes the work to this session's recovery file a moment after each change while it
    /// is unsaved, and removes it once saved. Returns when to look again.
    pub fn tick_recovery(&mut self) -> Option<Duration> {
        let dir = self.recovery_dir.clone()?;
        if !self.unsaved() {
            if let Some(s) = &mut self.recovery {
                s.clear();
            }
            return None;
        }
        let now = Instant::now();
        let never = self.recovery.as_ref().is_none_or(|s| !s.is_written());
        if !(self.autosave.recovery_due(now) || never) {
            return self.autosave.recovery_wait(now);
        }
        if self.recovery.is_none() {
            match workspace::recovery::Session::start(&dir) {
                Ok(s) => self.recovery = Some(s),
                Err(e) => {
                    // Once: the work cannot be kept here; say so and stop trying.
                    self.errors
                        .push(format!("unsaved work is not kept for recovery: {e}"));
                    self.recovery_dir = None;
                    return None;
                }
            }
        }
        let (original, dir) = (self.workspace_path.clone(), self.workspace_dir());
        if let Some(s) = &mut self.recovery
            && let Err(e) = s.write(&self.workspace, original.as_deref(), &dir)
        {
            self.errors
                .push(format!("unsaved work is not kept for recovery: {e}"));
            self.recovery_dir = None;
        }
        None
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
        self.settings = super::Settings::load();
        if self.cache_root.is_none() {
            self.cache_root = workspace::user_dirs::cache_root();
        }
        if self.layout_file.is_none() {
            self.layout_file = super::layout_file();
        }
        self.layout = super::LayoutPrefs::load(self.layout_file.as_deref());
        if self.recovery_dir.is_none() {
            self.recovery_dir = workspace::recovery::recovery_dir();
        }
        // Work left by a Symscope that crashed or was killed is offered back.
        if let Some(dir) = &self.recovery_dir {
            self.recovered = workspace::recovery::orphans(dir);
        }
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
            files => self.apply_one(InputCommand::AddPaths(files.to_vec())),
        }
    }

    /// Whether Ctrl+S may write the workspace to its file: it has one, it is no template
    /// (the demo), and the file is writable.
    pub fn may_write_workspace(&self) -> bool {
        let Some(path) = &self.workspace_path else {
            return false;
        };
        !self.workspace.template
            && std::fs::metadata(path).map_or(true, |m| !m.permissions().readonly())
    }

    /// Whether the workspace has changes not saved to a file.
    pub fn unsaved(&self) -> bool {
        self.autosave.is_dirty()
            || (self.workspace_path.is_none() && !self.workspace.inputs.is_empty())
    }

    /// The window title: the workspace's file name, and a mark while changes are unsaved.
    pub fn window_title(&self) -> String {
        let name = self.workspace_path.as_deref().map_or_else(
            || "Unsaved workspace".to_owned(),
            |p| {
                p.file_name().map_or_else(
                    || p.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                )
            },
        );
        let mark = if self.unsaved() { " •" } else { "" };
        let template = if self.workspace.template {
            " (template: Save as… keeps your changes)"
        } else {
            ""
        };
        format!("{name}{mark}{template} — Symscope")
    }

    /// Saves the workspace to its file (or to `path`: Save as), atomically. A workspace that
    /// has no file, or that Symscope must not write (a template, a read-only file), needs a
    /// `path`; nothing is ever written to the working directory.
    pub fn save_workspace(
        &mut self,
        path: Option<PathBuf>,
    ) -> Result<PathBuf, workspace::WorkspaceError> {
        let save_as = path.is_some();
        let refused = |why: &str| workspace::WorkspaceError::Io {
            path: self.workspace_path.as_deref().map_or_else(
                || "the unsaved workspace".to_owned(),
                |p| p.display().to_string(),
            ),
            source: std::io::Error::other(why.to_owned()),
        };
        let path = match path {
            Some(p) => p,
            None if !self.may_write_workspace() => {
                return Err(refused(
                    "not written: a template or read-only workspace, or one never saved; use Save as…",
                ));
            }
            None => self
                .workspace_path
                .clone()
                .ok_or_else(|| refused("never saved; use Save as…"))?,
        };
        if self.workspace_path.as_deref() != Some(&path) {
            // Paths are relative to the document: rebase them on the new folder.
            let old_dir = self.workspace_dir();
            let new_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let selected = self.workspace.selection.log.clone();
            for doc in &mut self.workspace.inputs {
                // A pasted log's path is its name, not a file's.
                if doc.text.is_some() {
                    continue;
                }
                let new = workspace::relative_path(&new_dir, &old_dir.join(&doc.path));
                if selected.as_deref() == Some(&doc.path) {
                    self.workspace.selection.log = Some(new.clone());
                }
                doc.path = new;
            }
        }
        // A copy of a template is the user's own workspace.
        let template = std::mem::replace(&mut self.workspace.template, false);
        if let Err(e) = workspace::save(&path, &self.workspace) {
            self.workspace.template = template && !save_as;
            return Err(e);
        }
        self.workspace_path = Some(path.clone());
        self.adopted = true;
        self.autosave.clear();
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.notice = Some((Instant::now(), format!("Saved {name}")));
        self.remember_recent(&path);
        Ok(path)
    }

    /// Opens a file dialog for `request` (answered in a later frame), or says that none
    /// can be shown.
    pub(super) fn show_dialog(&mut self, request: DialogRequest) {
        if !self.dialogs.is_scripted() && !dialog_available() {
            self.errors.push(NO_DIALOG.to_owned());
            return;
        }
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let saved_dir = self
            .workspace_path
            .as_deref()
            .filter(|_| self.may_write_workspace())
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        let stem = |p: &str| {
            Path::new(p)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        };
        let (dir, name) = match &request {
            DialogRequest::SaveWorkspaceAs => {
                let name = match (&self.workspace_path, self.workspace.template) {
                    (Some(p), true) => {
                        stem(&p.display().to_string()).map(|s| format!("{s}-copy.ron"))
                    }
                    (Some(p), false) => p.file_name().map(|n| n.to_string_lossy().into_owned()),
                    (None, _) => self
                        .workspace
                        .inputs
                        .iter()
                        .find(|i| i.kind == crate::model::FileKind::Log)
                        .and_then(|i| stem(&i.path))
                        .map(|s| format!("{s}.ron")),
                };
                (
                    saved_dir.or(home),
                    Some(name.unwrap_or_else(|| "workspace.ron".to_owned())),
                )
            }
            DialogRequest::Export(format) => {
                let log = self
                    .workspace
                    .selection
                    .log
                    .as_deref()
                    .and_then(stem)
                    .unwrap_or_else(|| "trace".to_owned());
                (
                    saved_dir.or(home),
                    Some(format!("{log}-symbolicated.{}", format.extension())),
                )
            }
            _ => (saved_dir.or(home), None),
        };
        self.dialogs.show(request, dir, name, self.waker.clone());
    }

    /// Acts on the answers of the dialogs closed since the last frame.
    pub(super) fn poll_dialogs(&mut self) {
        for (request, paths) in self.dialogs.poll() {
            let closing = request == DialogRequest::SaveWorkspaceAs
                && self.closing == super::Closing::SaveThenClose;
            let Some(first) = paths.first().cloned() else {
                if closing {
                    // Save as… cancelled: the window stays open.
                    self.closing = super::Closing::Open;
                }
                continue;
            };
            let command: super::Command = match request {
                DialogRequest::OpenFiles => InputCommand::AddPaths(paths).into(),
                DialogRequest::OpenWorkspace => WorkspaceCommand::OpenWorkspace(first).into(),
                DialogRequest::SaveWorkspaceAs => {
                    let path = if first.extension().is_some_and(|e| e == "ron") {
                        first
                    } else {
                        first.with_extension("ron")
                    };
                    WorkspaceCommand::SaveWorkspace(Some(path)).into()
                }
                DialogRequest::Export(format) => WorkspaceCommand::Export(format, first).into(),
                DialogRequest::AddSourceRoot => InputCommand::AddSourceRoot(first).into(),
                DialogRequest::ExtractSources => InspectorCommand::ExtractSources(first).into(),
                DialogRequest::Locate(id) => InputCommand::Locate(id, first).into(),
            };
            self.apply_one(command);
            if closing {
                self.closing = if self.unsaved() {
                    super::Closing::Open
                } else {
                    super::Closing::Close
                };
            }
        }
    }

    /// Writes the selected log to `path` as `format` says: the CLI's text or JSON, or
    /// Markdown for a ticket.
    pub fn export(&mut self, format: ExportFormat, path: &Path) -> std::io::Result<()> {
        use crate::engine::report;
        use std::io::Write as _;
        let (_, table) = self
            .selected_table()
            .ok_or_else(|| std::io::Error::other("no log is selected"))?;
        let log = self
            .selected_log()
            .map_or_else(|| "log".to_owned(), |e| e.name.clone());
        // The user's notes on the log go with it: its stacks' and frames', in order.
        let mut notes: Vec<(usize, Option<usize>, String)> = self
            .workspace
            .selection
            .log
            .as_deref()
            .map(|log| {
                self.workspace
                    .notes
                    .iter()
                    .filter(|n| n.input == log)
                    .map(|n| (n.stack, n.frame, n.text.clone()))
                    .collect()
            })
            .unwrap_or_default();
        notes.sort();
        let where_ = |stack: usize, frame: Option<usize>| match frame {
            Some(f) => {
                let raw = table.frame(stack, f).map_or("", |fr| fr.raw()).trim();
                format!("stack {stack}, frame {f} ({raw})")
            }
            None => format!("stack {stack}"),
        };
        let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
        match format {
            ExportFormat::Text => {
                report::write_text(&table, &[], &mut out)?;
                if !notes.is_empty() {
                    writeln!(out, "\nNotes:")?;
                    for (stack, frame, text) in &notes {
                        writeln!(out, "  {}: {text}", where_(*stack, *frame))?;
                    }
                }
            }
            ExportFormat::Json => {
                let total_ms = table.timings().iter().map(|t| t.ms).sum();
                let json = report::Json {
                    table: &table,
                    warnings: &[],
                    total_ms,
                };
                let mut doc = serde_json::to_value(&json).map_err(std::io::Error::other)?;
                if let Some(map) = doc.as_object_mut() {
                    let list: Vec<serde_json::Value> = notes
                        .iter()
                        .map(|(stack, frame, text)| {
                            serde_json::json!({"stack": stack, "frame": frame, "text": text})
                        })
                        .collect();
                    map.insert("notes".to_owned(), serde_json::Value::Array(list));
                }
                serde_json::to_writer_pretty(&mut out, &doc).map_err(std::io::Error::other)?;
                writeln!(out)?;
            }
            ExportFormat::Markdown => {
                report::write_markdown(&table, &log, &mut out)?;
                if !notes.is_empty() {
                    writeln!(out, "\n**Notes**\n")?;
                    for (stack, frame, text) in &notes {
                        writeln!(out, "- {}: {text}", where_(*stack, *frame))?;
                    }
                }
            }
        }
        out.flush()?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        self.notice = Some((Instant::now(), format!("Exported {log} to {name}")));
        Ok(())
    }

    /// Saves when a change has settled (autosave); returns how long until the next check.
    /// Only a workspace this session saved is written (never one merely opened, such as the
    /// demo), and never a template or a read-only file.
    pub fn tick_autosave(&mut self) -> Option<Duration> {
        if !self.adopted || !self.may_write_workspace() {
            return None;
        }
        let now = Instant::now();
        if self.autosave.due(now) {
            if let Err(e) = self.save_workspace(None) {
                self.errors.push(e.to_string());
            }
            return None;
        }
        self.autosave.wait(now)
    }
}

impl AppState {
    /// Applies a request for the workspace file: opening, saving, exporting, file dialogs.
    pub(super) fn apply_workspace(&mut self, command: WorkspaceCommand) {
        match command {
            WorkspaceCommand::OpenWorkspace(path) => {
                if let Err(e) = self.open_workspace(&path) {
                    self.errors.push(e.to_string());
                }
            }
            WorkspaceCommand::SaveWorkspace(None) if !self.may_write_workspace() => {
                self.apply_one(WorkspaceCommand::Dialog(DialogRequest::SaveWorkspaceAs));
            }
            WorkspaceCommand::SaveWorkspace(path) => {
                if let Err(e) = self.save_workspace(path) {
                    self.errors.push(e.to_string());
                }
            }
            WorkspaceCommand::Export(format, path) => {
                if let Err(e) = self.export(format, &path) {
                    self.errors.push(format!("{}: {e}", path.display()));
                }
            }

            WorkspaceCommand::Dialog(request) => self.show_dialog(request),
            WorkspaceCommand::Recover(restore) => self.answer_recovery(restore),
        }
    }
}
