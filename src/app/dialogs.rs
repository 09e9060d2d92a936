//! File dialogs that never block painting: each runs rfd's async dialog on a thread of its
//! own and hands its answer back through a channel the frame loop polls (a dialog can stay
//! open for minutes; the window keeps drawing and its jobs keep reporting).
//!
//! rfd talks to the desktop's file-chooser portal over D-Bus and falls back to `zenity`.
//! Where neither can be reached, asking for a dialog says so instead of silently doing
//! nothing ([`NO_DIALOG`]).

use super::Waker;
use std::path::PathBuf;
use std::sync::mpsc;

/// What the window says when no dialog can be shown.
pub const NO_DIALOG: &str = "no file dialog available: install xdg-desktop-portal or zenity; you can drop files or pass them on the command line";

/// What a dialog is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialogRequest {
    /// Pick symbol files and logs to add.
    OpenFiles,
    /// Pick a workspace to open.
    OpenWorkspace,
    /// Pick where to save the workspace (a workspace never saved, or a template).
    SaveWorkspaceAs,
    /// Pick where to export the selected log.
    Export(ExportFormat),
    /// Pick a folder of original sources.
    AddSourceRoot,
    /// Pick the folder to extract the inspected map's sources into.
    ExtractSources,
    /// Point at where a missing input is now.
    Locate(super::InputId),
}

/// The formats the selected log can be exported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// `symscope symbolicate`'s text.
    Text,
    /// `symscope symbolicate --format json`'s document.
    Json,
    /// A Markdown block for a ticket.
    Markdown,
}

impl ExportFormat {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Text => "txt",
            Self::Json => "json",
            Self::Markdown => "md",
        }
    }

    /// The name shown in menus.
    pub fn label(self) -> &'static str {
        match self {
            Self::Text => "Text",
            Self::Json => "JSON (the CLI's schema)",
            Self::Markdown => "Markdown (for a ticket)",
        }
    }
}

/// The dialogs the window has open, and their answers.
pub struct Dialogs {
    tx: mpsc::Sender<(DialogRequest, Vec<PathBuf>)>,
    rx: mpsc::Receiver<(DialogRequest, Vec<PathBuf>)>,
    open: usize,
    /// Tests answer dialogs from here instead of showing them (tests never open a dialog).
    scripted: Option<std::collections::VecDeque<Vec<PathBuf>>>,
    /// What was asked, with the folder and name suggested (kept in scripted mode).
    pub asked: Vec<(DialogRequest, Option<PathBuf>, Option<String>)>,
}

impl Default for Dialogs {
    fn default() -> Self {
        let (tx, rx) = mpsc::channel();
        Self {
            tx,
            rx,
            open: 0,
            scripted: None,
            asked: Vec::new(),
        }
    }
}

impl std::fmt::Debug for Dialogs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dialogs").field("open", &self.open).finish()
    }
}

/// Whether a dialog can be shown: a D-Bus session (the portal) or `zenity` on `PATH`. Only
/// looked up, never run.
pub fn dialog_available() -> bool {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty()) {
        return true;
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join("zenity").is_file()))
}

impl Dialogs {
    /// How many dialogs are open.
    pub fn open(&self) -> usize {
        self.open
    }

    /// Answers the next dialogs with these paths (an empty list: cancelled) instead of
    /// showing them: for tests, which never open a dialog.
    pub fn script(&mut self, answers: impl IntoIterator<Item = Vec<PathBuf>>) {
        self.scripted
            .get_or_insert_with(Default::default)
            .extend(answers);
    }

    /// Whether dialogs are answered by [`Dialogs::script`].
    pub fn is_scripted(&self) -> bool {
        self.scripted.is_some()
    }

    /// Opens a dialog on a thread of its own; its answer comes from [`Dialogs::poll`].
    /// `dir` is where it starts, `name` the file name it suggests.
    pub fn show(
        &mut self,
        request: DialogRequest,
        dir: Option<PathBuf>,
        name: Option<String>,
        waker: Waker,
    ) {
        if let Some(answers) = self.scripted.as_mut() {
            self.asked.push((request.clone(), dir, name));
            let answer = answers.pop_front().unwrap_or_default();
            self.open += 1;
            self.tx.send((request, answer)).ok();
            return;
        }
        let tx = self.tx.clone();
        self.open += 1;
        let spawned = std::thread::Builder::new()
            .name("symscope-dialog".to_owned())
            .spawn(move || {
                let paths = futures_executor::block_on(run(&request, dir, name));
                tx.send((request, paths)).ok();
                waker();
            });
        if spawned.is_err() {
            self.open -= 1;
        }
    }

    /// The answers of the dialogs closed since the last call (no paths: cancelled).
    pub fn poll(&mut self) -> Vec<(DialogRequest, Vec<PathBuf>)> {
        let answers: Vec<_> = self.rx.try_iter().collect();
        self.open = self.open.saturating_sub(answers.len());
        answers
    }
}

/// Whether a dialog picks files or folders in a folder (no file name is suggested).
fn dir_only(request: &DialogRequest) -> bool {
    !matches!(
        request,
        DialogRequest::SaveWorkspaceAs | DialogRequest::Export(_)
    )
}

/// Runs one dialog to its answer.
async fn run(request: &DialogRequest, dir: Option<PathBuf>, name: Option<String>) -> Vec<PathBuf> {
    let mut dialog = rfd::AsyncFileDialog::new();
    // rfd's zenity fallback (no D-Bus session, so no portal) passes only the file name on,
    // as `--filename`: there the name carries the folder, or zenity starts in the working
    // directory.
    let zenity = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none_or(|v| v.is_empty());
    match (dir, name) {
        (Some(dir), name) if zenity => {
            let mut path = dir.join(name.unwrap_or_default()).display().to_string();
            if !path.ends_with('/') && dir_only(request) {
                path.push('/');
            }
            dialog = dialog.set_file_name(path);
        }
        (dir, name) => {
            if let Some(dir) = dir {
                dialog = dialog.set_directory(dir);
            }
            if let Some(name) = name {
                dialog = dialog.set_file_name(name);
            }
        }
    }
    let one = |h: Option<rfd::FileHandle>| h.map(|h| h.path().to_path_buf()).into_iter().collect();
    match request {
        DialogRequest::OpenFiles => dialog
            .pick_files()
            .await
            .unwrap_or_default()
            .iter()
            .map(|h| h.path().to_path_buf())
            .collect(),
        DialogRequest::OpenWorkspace => {
            one(dialog.add_filter("workspace", &["ron"]).pick_file().await)
        }
        DialogRequest::SaveWorkspaceAs => {
            one(dialog.add_filter("workspace", &["ron"]).save_file().await)
        }
        DialogRequest::Export(format) => one(dialog
            .add_filter(format.label(), &[format.extension()])
            .save_file()
            .await),
        DialogRequest::AddSourceRoot | DialogRequest::ExtractSources => {
            one(dialog.pick_folder().await)
        }
        DialogRequest::Locate(_) => one(dialog.pick_file().await),
    }
}
