//! What the UI asks the app to do; applied at the end of the frame.

use super::InputId;
use crate::jobs::JobId;
use std::path::PathBuf;

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
    /// Expand or collapse a run of library frames.
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
    /// Select a segment of the inspected line.
    SelectSegment(usize),
    /// Open the inspector at the selected frame's segment.
    InspectSelectedFrame,
    /// Open a workspace file.
    OpenWorkspace(PathBuf),
    /// Save the workspace (to its file, or to the given path).
    SaveWorkspace(Option<PathBuf>),
    /// Clear the error list.
    DismissErrors,
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
