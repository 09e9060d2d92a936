//! How the stack list and the frame detail: selection, folds, filter, notes, copying, the editor apply what the UI asks of them.

use super::StackCommand;
use super::*;

impl AppState {
    /// Applies a request for the stack list and the frame detail: selection, folds, filter, notes, copying, the editor.
    pub(super) fn apply_stack(&mut self, command: StackCommand) {
        let changed = Instant::now();
        match command {
            StackCommand::SelectLog(id) => {
                self.view.stack.folds = Folds::default();
                if let Some(i) = self.inputs.iter().position(|e| e.id == id) {
                    self.workspace.selection.log =
                        self.workspace.inputs.get(i).map(|d| d.path.clone());
                    self.workspace.selection.stack = 0;
                    self.workspace.selection.frame = None;
                    self.autosave.changed(changed);
                }
            }
            StackCommand::SelectFrame { stack, frame } => {
                self.view.profile.detail_shown = false;
                self.workspace.selection.stack = stack;
                self.workspace.selection.frame = Some(frame);
                self.autosave.changed(changed);
            }
            StackCommand::ToggleCandidates { stack, frame } => {
                if !self.view.stack.folds.candidates.remove(&(stack, frame)) {
                    self.view.stack.folds.candidates.insert((stack, frame));
                }
                self.caches.changed();
            }
            StackCommand::ToggleGroup { stack, first } => {
                if !self.view.stack.folds.expanded.remove(&(stack, first)) {
                    self.view.stack.folds.expanded.insert((stack, first));
                }
                self.caches.changed();
            }
            StackCommand::ToggleStack(stack) => {
                if !self.view.stack.folds.collapsed.remove(&stack) {
                    self.view.stack.folds.collapsed.insert(stack);
                }
                self.caches.changed();
            }
            StackCommand::SetFilter(f) => self.view.stack.filter = f,
            StackCommand::ToggleRaw => {
                self.workspace.layout.raw_frames = !self.workspace.layout.raw_frames;
                // Raw lines have no inline rows.
                self.caches.changed();
                self.autosave.changed(changed);
            }
            StackCommand::SetNote { stack, frame, text } => {
                self.set_note(stack, frame, text);
                self.autosave.changed(changed);
                self.caches.changed();
            }
            StackCommand::CopyFrame => {
                if let Some(d) = self.selected_frame_detail() {
                    self.pending_copy = Some(d.copy_text());
                }
            }
            StackCommand::CopyTrace => {
                if let Some((_, table)) = self.selected_table() {
                    self.pending_copy = Some(crate::engine::report::text(&table, &[]));
                }
            }
            StackCommand::CopyText(text) => self.pending_copy = Some(text),
            StackCommand::OpenInEditor { file, line, column } => {
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
        }
    }
}
