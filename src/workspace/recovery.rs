//! Recovery files: every open workspace with unsaved changes is written, a moment after each
//! change, to a file of its own in the user's data folder
//! (`~/.local/share/symscope/recovery/`), never over the user's file. A running Symscope
//! holds a lock on its session's lock file; a recovery file whose lock nobody holds was left
//! by a Symscope that crashed or was killed, and the next launch offers it back.
//!
//! A session's files are `SESSION.ron` (the document, [`RecoveryDoc`]) and `SESSION.lock`.
//! The lock is the operating system's (`File::try_lock`): a killed process's lock goes with
//! it, so no stale lock ever hides work.

use super::{Workspace, WorkspaceError, normalized};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::path::{Path, PathBuf};

/// What a recovery file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecoveryDoc {
    /// The user's workspace file the work belongs to (`None`: never saved).
    pub original: Option<PathBuf>,
    /// When it was written, in seconds since the Unix epoch.
    pub written: u64,
    /// The document, its input paths absolute when it has no file of its own.
    pub workspace: Workspace,
}

/// A recovery file left by a Symscope that did not close: its work can be restored.
#[derive(Debug)]
pub struct Orphan {
    /// The recovery file.
    pub file: PathBuf,
    /// What it holds.
    pub doc: RecoveryDoc,
    /// Held while the offer stands, so that a second Symscope does not offer it too.
    _lock: File,
}

impl Orphan {
    /// Deletes the recovery file and its lock (the work was restored or discarded).
    pub fn forget(self) {
        std::fs::remove_file(&self.file).ok();
        std::fs::remove_file(self.file.with_extension("lock")).ok();
    }
}

/// This session's recovery file, locked for as long as the session lives.
#[derive(Debug)]
pub struct Session {
    file: PathBuf,
    _lock: File,
    written: bool,
}

/// The folder of recovery files (`~/.local/share/symscope/recovery`), if there is a home.
pub fn recovery_dir() -> Option<PathBuf> {
    Some(dirs::data_dir()?.join("symscope").join("recovery"))
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> WorkspaceError + '_ {
    move |source| WorkspaceError::Io {
        path: path.display().to_string(),
        source,
    }
}

impl Session {
    /// Starts this session's recovery in `dir`: a lock file named by the process and time,
    /// locked.
    pub fn start(dir: &Path) -> Result<Self, WorkspaceError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let stem = format!("session-{}-{nanos}", std::process::id());
        let lock_path = dir.join(format!("{stem}.lock"));
        let lock = File::create(&lock_path).map_err(io_err(&lock_path))?;
        lock.try_lock().map_err(|e| WorkspaceError::Io {
            path: lock_path.display().to_string(),
            source: std::io::Error::other(e.to_string()),
        })?;
        Ok(Self {
            file: dir.join(format!("{stem}.ron")),
            _lock: lock,
            written: false,
        })
    }

    /// The recovery file.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Writes the work (atomically): `workspace` as it stands, belonging to `original`,
    /// its input paths relative to `dir`.
    pub fn write(
        &mut self,
        workspace: &Workspace,
        original: Option<&Path>,
        dir: &Path,
    ) -> Result<(), WorkspaceError> {
        let mut workspace = workspace.clone();
        if original.is_none() {
            // No document folder to be relative to: absolute paths.
            for input in &mut workspace.inputs {
                if input.text.is_none() {
                    input.path = normalized(&dir.join(&input.path)).display().to_string();
                }
            }
            if let Some(log) = &mut workspace.selection.log
                && !workspace.inputs.iter().any(|i| &i.path == log)
            {
                *log = normalized(&dir.join(&*log)).display().to_string();
            }
        }
        let doc = RecoveryDoc {
            // Absolute: the next launch may start elsewhere.
            original: original.map(|p| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())),
            written: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            workspace,
        };
        let text =
            ron::ser::to_string_pretty(&doc, ron::ser::PrettyConfig::default()).map_err(|e| {
                WorkspaceError::Malformed {
                    path: self.file.display().to_string(),
                    message: e.to_string(),
                }
            })?;
        crate::engine::write_atomically(&self.file, text.as_bytes()).map_err(io_err(&self.file))?;
        self.written = true;
        Ok(())
    }

    /// Removes the recovery file: the work is saved (or the user chose to drop it).
    pub fn clear(&mut self) {
        if self.written {
            std::fs::remove_file(&self.file).ok();
            self.written = false;
        }
    }

    /// Whether a recovery file is on disk.
    pub fn is_written(&self) -> bool {
        self.written
    }
}

impl Drop for Session {
    /// A session that ends normally leaves nothing behind.
    fn drop(&mut self) {
        self.clear();
        std::fs::remove_file(self.file.with_extension("lock")).ok();
    }
}

/// The recovery files in `dir` left by sessions that did not end (their lock is free),
/// newest first. Unreadable ones are skipped; lock files without work are removed.
pub fn orphans(dir: &Path) -> Vec<Orphan> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let lock_path = entry.path();
        if lock_path.extension().is_none_or(|e| e != "lock") {
            continue;
        }
        let Ok(lock) = File::options().write(true).open(&lock_path) else {
            continue;
        };
        if lock.try_lock().is_err() {
            // A running Symscope's.
            continue;
        }
        let file = lock_path.with_extension("ron");
        let doc = std::fs::read_to_string(&file)
            .ok()
            .and_then(|t| ron::from_str::<RecoveryDoc>(&t).ok());
        match doc {
            Some(doc) => found.push(Orphan {
                file,
                doc,
                _lock: lock,
            }),
            None => {
                // Nothing to recover (the session never wrote, or wrote nothing readable).
                std::fs::remove_file(&lock_path).ok();
            }
        }
    }
    found.sort_by_key(|o| std::cmp::Reverse(o.doc.written));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_session_is_not_an_orphan_and_a_dropped_one_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("symscope-recovery-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        let mut ws = Workspace::default();
        ws.inputs.push(super::super::Input {
            path: "logs/a.txt".to_owned(),
            ..Default::default()
        });
        let mut s = Session::start(&dir).unwrap();
        s.write(&ws, None, Path::new("/w")).unwrap();
        assert!(s.file().exists());
        // Its lock is held: not offered.
        assert!(orphans(&dir).is_empty());
        let file = s.file().to_path_buf();
        drop(s);
        assert!(!file.exists());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).ok();
    }
}
