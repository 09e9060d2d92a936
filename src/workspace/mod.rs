//! The workspace: a RON document under `workspaces/` listing the inputs (paths relative to the
//! document), per-log settings, the user's triage notes, selection and view options.
//!
//! Saving writes a temporary file, fsyncs it and renames it over the old one, so a crash or a
//! kill during a save loses nothing. A file written by a newer Symscope, or one that is not a
//! workspace, is refused with a clear error and never overwritten. Derived data (indexes,
//! caches) lives in the user's cache folder, keyed by the document ([`user_dirs`]), never beside
//! the user's file, and is never needed for correctness. Unsaved work is kept in a recovery
//! file in the user's data folder ([`recovery`]) until it is saved.

mod extract;
mod paths;
pub mod recovery;
pub mod user_dirs;

pub use extract::{Extracted, extract_sources};
pub use paths::{expand_paths, files_under, normalized, relative_path};

use crate::model::FileKind;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The schema this version writes and the newest it reads.
pub const SCHEMA: u32 = 1;

/// The document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Workspace {
    /// Schema version of the file.
    pub schema: u32,
    /// The files, in the order they were added.
    pub inputs: Vec<Input>,
    /// The user's triage notes on traces and frames.
    pub notes: Vec<Note>,
    /// What is selected.
    pub selection: Selection,
    /// Panels and view options.
    pub layout: Layout,
    /// Folders where original sources are looked for (native frames name build paths such
    /// as `/build/app/src/main.c`; the frame detail shows the file found under one of these),
    /// relative to the workspace file like the inputs.
    pub source_roots: Vec<String>,
    /// A template (the demo): Symscope never writes to it; saving asks for a new file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub template: bool,
    /// Folders of crash logs grouped into buckets, with the user's notes on buckets.
    #[serde(skip_serializing_if = "Buckets::is_empty")]
    pub buckets: Buckets,
    /// Two logs (or two stacks) compared frame by frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<Compare>,
}

/// Two stacks compared frame by frame: of two logs, or two stacks of one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Compare {
    /// Log A, relative to the document like the inputs (a pasted log: its name).
    pub a: String,
    /// Log B.
    pub b: String,
    /// A's stack by its index; none: its crashed stack.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack_a: Option<usize>,
    /// B's stack.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stack_b: Option<usize>,
}

/// Crash logs bucketed by signature: where they are, and what the user wrote on buckets.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Buckets {
    /// Folders (read recursively) and logs, relative to the document like the inputs.
    pub sources: Vec<String>,
    /// Notes by bucket fingerprint.
    pub notes: std::collections::BTreeMap<String, String>,
    /// The selected bucket's fingerprint.
    pub selected: Option<String>,
}

impl Buckets {
    /// Nothing bucketed and no notes.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty() && self.notes.is_empty()
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Self {
            schema: SCHEMA,
            inputs: Vec::new(),
            notes: Vec::new(),
            selection: Selection::default(),
            layout: Layout::default(),
            source_roots: Vec::new(),
            template: false,
            buckets: Buckets::default(),
            compare: None,
        }
    }
}

/// One input file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Input {
    /// Path relative to the workspace file's folder, with `/` separators.
    pub path: String,
    /// What the file was detected as.
    pub kind: FileKind,
    /// Size in bytes when added or last indexed.
    pub size: u64,
    /// Content hash when added or last indexed (`xxh3:<hex>`).
    pub hash: String,
    /// Settings for a log.
    pub settings: LogSettings,
    /// A pasted log's text: it lives in the document (never written out as a file), and
    /// `path` is only its name (`pasted-1.txt`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Default for Input {
    fn default() -> Self {
        Self {
            path: String::new(),
            kind: FileKind::Unknown,
            size: 0,
            hash: String::new(),
            settings: LogSettings::default(),
            text: None,
        }
    }
}

/// Per-log settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogSettings {
    /// Column base override (0 or 1); `None` uses the detected format's.
    pub column_base: Option<u32>,
}

/// A triage note on a stack or a frame of a log.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Note {
    /// The log's `path` (as in [`Input::path`]).
    pub input: String,
    /// Stack index in the log.
    pub stack: usize,
    /// Frame index in the stack; `None` for a note on the whole stack.
    pub frame: Option<usize>,
    /// The note.
    pub text: String,
}

/// The selection.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Selection {
    /// The selected log's `path`.
    pub log: Option<String>,
    /// The selected stack.
    pub stack: usize,
    /// The selected frame.
    pub frame: Option<usize>,
    /// The map shown in the segment inspector.
    pub inspected_map: Option<String>,
}

/// View options of the document. Where the panels are is the user's, not the
/// workspace's (`app::LayoutPrefs`); sizes written by older versions are ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Layout {
    /// Dark theme (else light).
    pub dark: bool,
    /// Show frames as written (else resolved).
    pub raw_frames: bool,
    /// Segment inspector open.
    pub inspector_open: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            dark: true,
            raw_frames: false,
            inspector_open: false,
        }
    }
}

/// Why a workspace could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not a Symscope workspace.
    #[error("{path}: not a Symscope workspace ({message}); it was left unchanged")]
    Malformed {
        /// The file.
        path: String,
        /// What the RON reader said.
        message: String,
    },
    /// The file was written by a newer Symscope.
    #[error(
        "{path}: written by a newer Symscope (workspace schema {found}; this version reads up to {SCHEMA}); it was left unchanged"
    )]
    TooNew {
        /// The file.
        path: String,
        /// Its schema.
        found: u32,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> WorkspaceError + '_ {
    move |source| WorkspaceError::Io {
        path: path.display().to_string(),
        source,
    }
}

#[derive(Deserialize)]
struct SchemaProbe {
    #[serde(default)]
    schema: u32,
}

/// Reads a workspace, refusing newer schemas and files that are not workspaces.
pub fn load(path: &Path) -> Result<Workspace, WorkspaceError> {
    // A save killed mid-write left its temporary file: it is of no use to anyone.
    crate::engine::remove_stale_temporaries(path);
    let text = std::fs::read_to_string(path).map_err(io_err(path))?;
    parse(&text, path)
}

/// Parses workspace text (`path` is only used in messages).
pub fn parse(text: &str, path: &Path) -> Result<Workspace, WorkspaceError> {
    let malformed = |e: ron::error::SpannedError| WorkspaceError::Malformed {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let probe: SchemaProbe = ron::from_str(text).map_err(malformed)?;
    let found = probe.schema;
    if found > SCHEMA {
        return Err(WorkspaceError::TooNew {
            path: path.display().to_string(),
            found,
        });
    }
    if found == 0 {
        return Err(WorkspaceError::Malformed {
            path: path.display().to_string(),
            message: "no `schema` field".to_owned(),
        });
    }
    // Schema 1 is the first; later schemas migrate older documents here.
    let mut ws: Workspace = ron::from_str(text).map_err(malformed)?;
    ws.schema = SCHEMA;
    Ok(ws)
}

/// Serialises a workspace as pretty RON.
pub fn to_ron(ws: &Workspace) -> String {
    let config = ron::ser::PrettyConfig::new()
        .depth_limit(4)
        .indentor("  ".to_owned());
    // Serialising plain data to a string cannot fail; fall back to compact if it ever does.
    ron::ser::to_string_pretty(ws, config)
        .unwrap_or_else(|_| ron::to_string(ws).unwrap_or_default())
}

/// Writes a workspace atomically ([`crate::engine::write_atomically`]): on any error the old
/// file is untouched and no temporary file is left.
pub fn save(path: &Path, ws: &Workspace) -> Result<(), WorkspaceError> {
    let mut text = to_ron(ws);
    text.push('\n');
    crate::engine::write_atomically(path, text.as_bytes()).map_err(io_err(path))
}

/// The content hash stored in [`Input::hash`] (the engine's fingerprint, which also names
/// the input's files in the cache folder).
pub fn fingerprint(bytes: &[u8]) -> String {
    crate::engine::fingerprint(bytes)
}

/// The state of an input file on disk compared with the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputStatus {
    /// Present and unchanged.
    Unchanged,
    /// Not found (the rest of the workspace still opens).
    Missing,
    /// Present with different contents: to be re-indexed.
    Changed {
        /// Its size now.
        size: u64,
        /// Its hash now.
        hash: String,
    },
}

impl Workspace {
    /// Adds a file with a path relative to `workspace_dir`; its size and fingerprint are
    /// recorded once it is read (by the job that loads it). Returns its index; a file already
    /// present is not added twice.
    pub fn add_input(&mut self, workspace_dir: &Path, file: &Path, kind: FileKind) -> usize {
        let path = relative_path(workspace_dir, file);
        if let Some(i) = self.inputs.iter().position(|x| x.path == path) {
            return i;
        }
        self.inputs.push(Input {
            path,
            kind,
            ..Input::default()
        });
        self.inputs.len() - 1
    }

    /// Adds a pasted log, kept in the document under a new name (`pasted-N.txt`); returns
    /// its index.
    pub fn add_pasted(&mut self, text: String) -> usize {
        let name = (1..)
            .map(|n| format!("pasted-{n}.txt"))
            .find(|name| !self.inputs.iter().any(|x| x.path == *name))
            .unwrap_or_default();
        self.inputs.push(Input {
            path: name,
            kind: FileKind::Log,
            size: text.len() as u64,
            hash: fingerprint(text.as_bytes()),
            settings: LogSettings::default(),
            text: Some(text),
        });
        self.inputs.len() - 1
    }

    /// Removes an input and the notes on it.
    pub fn remove_input(&mut self, index: usize) -> Option<Input> {
        if index >= self.inputs.len() {
            return None;
        }
        let input = self.inputs.remove(index);
        self.notes.retain(|n| n.input != input.path);
        if self.selection.log.as_deref() == Some(&input.path) {
            self.selection = Selection::default();
        }
        Some(input)
    }

    /// The absolute path of an input.
    pub fn input_path(&self, workspace_dir: &Path, input: &Input) -> PathBuf {
        workspace_dir.join(&input.path)
    }

    /// Compares an input with the file on disk (reads and hashes it when the size matches).
    pub fn check_input(&self, workspace_dir: &Path, input: &Input) -> InputStatus {
        if input.text.is_some() {
            return InputStatus::Unchanged;
        }
        let path = self.input_path(workspace_dir, input);
        let Ok(bytes) = std::fs::read(&path) else {
            return InputStatus::Missing;
        };
        let hash = fingerprint(&bytes);
        if bytes.len() as u64 == input.size && hash == input.hash {
            InputStatus::Unchanged
        } else {
            InputStatus::Changed {
                size: bytes.len() as u64,
                hash,
            }
        }
    }
}

/// Debounces autosave: a save is due a moment after the last change; so is the write of
/// the recovery file ([`recovery`]), which a save does not make due.
#[derive(Clone, Copy, Debug)]
pub struct Autosave {
    delay: Duration,
    dirty_since: Option<Instant>,
    recovery_since: Option<Instant>,
}

impl Autosave {
    /// Saves `delay` after the last change.
    pub fn new(delay: Duration) -> Self {
        Self {
            delay,
            dirty_since: None,
            recovery_since: None,
        }
    }

    /// Records a change at `now`.
    pub fn changed(&mut self, now: Instant) {
        self.dirty_since = Some(now);
        self.recovery_since = Some(now);
    }

    /// Whether the recovery file is due at `now`; if so, it counts as written.
    pub fn recovery_due(&mut self, now: Instant) -> bool {
        match self.recovery_since {
            Some(t) if now.duration_since(t) >= self.delay => {
                self.recovery_since = None;
                true
            }
            _ => false,
        }
    }

    /// How long until the recovery file is due.
    pub fn recovery_wait(&self, now: Instant) -> Option<Duration> {
        self.recovery_since
            .map(|t| self.delay.saturating_sub(now.duration_since(t)))
    }

    /// Whether there are unsaved changes.
    pub fn is_dirty(&self) -> bool {
        self.dirty_since.is_some()
    }

    /// The document was just saved: nothing is pending.
    pub fn clear(&mut self) {
        self.dirty_since = None;
    }

    /// Whether a save is due at `now`; if so, the changes count as saved.
    pub fn due(&mut self, now: Instant) -> bool {
        match self.dirty_since {
            Some(t) if now.duration_since(t) >= self.delay => {
                self.dirty_since = None;
                true
            }
            _ => false,
        }
    }

    /// How long until the pending save is due (for scheduling a repaint).
    pub fn wait(&self, now: Instant) -> Option<Duration> {
        self.dirty_since
            .map(|t| self.delay.saturating_sub(now.duration_since(t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_defaults() {
        let mut ws = Workspace::default();
        ws.inputs.push(Input {
            path: "maps/a.js.map".to_owned(),
            kind: FileKind::SourceMap,
            size: 10,
            hash: fingerprint(b"0123456789"),
            settings: LogSettings {
                column_base: Some(0),
            },
            text: None,
        });
        ws.notes.push(Note {
            input: "trace.txt".to_owned(),
            stack: 0,
            frame: Some(3),
            text: "the null comes from here".to_owned(),
        });
        ws.layout.inspector_open = true;
        let text = to_ron(&ws);
        assert_eq!(parse(&text, Path::new("x.ron")).unwrap(), ws);
        // Missing fields take their defaults (older or hand-written files).
        let minimal = parse("(schema: 1)", Path::new("m.ron")).unwrap();
        assert_eq!(minimal, Workspace::default());
    }

    #[test]
    fn newer_and_broken_files_are_refused() {
        let e = parse("(schema: 9, inputs: [])", Path::new("new.ron")).unwrap_err();
        assert!(matches!(e, WorkspaceError::TooNew { found: 9, .. }), "{e}");
        assert!(e.to_string().contains("newer Symscope"));
        let e = parse("(schema: 1, inputs: [(path: ", Path::new("cut.ron")).unwrap_err();
        assert!(matches!(e, WorkspaceError::Malformed { .. }), "{e}");
        assert!(
            e.to_string()
                .starts_with("cut.ron: not a Symscope workspace")
        );
        let e = parse("{\"version\": 3}", Path::new("map.json")).unwrap_err();
        assert!(matches!(e, WorkspaceError::Malformed { .. }), "{e}");
        let e = parse("(inputs: [])", Path::new("noschema.ron")).unwrap_err();
        assert!(e.to_string().contains("no `schema` field"), "{e}");
    }

    #[test]
    fn autosave_waits_for_a_quiet_moment() {
        let t0 = Instant::now();
        let mut a = Autosave::new(Duration::from_millis(500));
        assert!(!a.due(t0));
        a.changed(t0);
        assert!(!a.due(t0 + Duration::from_millis(300)));
        a.changed(t0 + Duration::from_millis(300));
        assert!(
            !a.due(t0 + Duration::from_millis(700)),
            "a later change postpones it"
        );
        assert_eq!(
            a.wait(t0 + Duration::from_millis(700)),
            Some(Duration::from_millis(100))
        );
        assert!(a.due(t0 + Duration::from_millis(800)));
        assert!(!a.is_dirty() && !a.due(t0 + Duration::from_secs(9)));
    }
}
