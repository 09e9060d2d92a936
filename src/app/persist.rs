//! Opening and saving workspaces, the recent list, and saving a change once it has settled.

use super::{AppState, Command, InputEntry, InputId, InputState, input_bytes};
use crate::workspace::{self, InputStatus};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The file listing recent workspaces (`$XDG_CONFIG_HOME/symscope/recent` or
/// `~/.config/symscope/recent`).
fn recent_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("symscope").join("recent"))
}

impl AppState {
    /// Opens a workspace file: inputs that exist are loaded, missing ones are shown as missing.
    pub fn open_workspace(&mut self, path: &Path) -> Result<(), workspace::WorkspaceError> {
        let ws = workspace::load(path)?;
        self.view.inspect_when_ready = ws.layout.inspector_open && ws.selection.frame.is_some();
        self.workspace = ws;
        self.workspace_path = Some(path.to_path_buf());
        self.inputs.clear();
        self.results.clear();
        self.caches.clear();
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
                    Ok(file) => {
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
                        self.start_load(id, file);
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
}
