//! The frame loop: what the app does around the UI's drawing, once per frame, and the
//! user's input that is not a widget's (dropped and hovering files, pastes, shortcuts).

use super::{AppState, CloseAnswer, Closing, Commands, DialogRequest, Views};
use super::{InputCommand, StackCommand, WindowCommand, WorkspaceCommand};
use std::time::Instant;

/// How long the status bar shows a notice ("Saved x.ron").
const NOTICE_FOR: std::time::Duration = std::time::Duration::from_secs(4);

impl AppState {
    /// One frame of the app: takes in finished jobs, turns the frame's input into commands,
    /// computes the view models, has `draw` (the UI: `ui::app_ui`) draw them and add the
    /// commands the user gave, applies every command, and schedules the autosave.
    pub fn frame(
        &mut self,
        ui: &mut egui::Ui,
        draw: impl FnOnce(&mut egui::Ui, &AppState, &Views, &mut Commands),
    ) {
        let ctx = ui.ctx().clone();
        self.poll_jobs();
        self.poll_dialogs();
        ctx.set_theme(if self.workspace.layout.dark {
            egui::Theme::Dark
        } else {
            egui::Theme::Light
        });
        if ctx.input(|i| i.viewport().close_requested())
            && self.closing != Closing::Close
            && self.unsaved()
        {
            // Unsaved changes: stay open and ask (see `ui::close_question_ui`).
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.closing = Closing::Asking;
        }
        let mut commands = Commands::default();
        self.read_input(&ctx, &mut commands);
        self.sync_tiles();
        let views = self.views();
        draw(ui, self, &views, &mut commands);
        self.apply(commands);
        self.sync_tiles();
        self.keep_layout(&ctx);
        if self.closing == Closing::Close {
            // Closed on purpose (saved, or changes discarded): no recovery file is left.
            self.recovery = None;
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
        if let Some(text) = self.pending_copy.take() {
            // eframe's `clipboard` feature puts it on the system clipboard.
            ctx.copy_text(text.clone());
            self.notice = Some((Instant::now(), copied_notice(&text)));
            self.copied = Some(text);
        }
        if let Some(wait) = self.tick_autosave() {
            ctx.request_repaint_after(wait);
        }
        if let Some(wait) = self.tick_recovery() {
            ctx.request_repaint_after(wait);
        }
        if let Some((at, _)) = &self.notice {
            let left = NOTICE_FOR.saturating_sub(at.elapsed());
            if left.is_zero() {
                self.notice = None;
            } else {
                ctx.request_repaint_after(left);
            }
        }
        let title = self.window_title();
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    /// Dropped and hovering files, pasted traces and the window's shortcuts.
    fn read_input(&mut self, ctx: &egui::Context, commands: &mut Commands) {
        let (dropped, hovered, events) = ctx.input(|i| {
            (
                i.raw.dropped_files.clone(),
                i.raw.hovered_files.clone(),
                i.events.clone(),
            )
        });
        self.view.hovered = hovered
            .iter()
            .map(|h| {
                h.path.as_ref().map_or_else(
                    || "file".to_owned(),
                    |p| {
                        p.file_name().map_or_else(
                            || p.display().to_string(),
                            |n| n.to_string_lossy().into_owned(),
                        )
                    },
                )
            })
            .collect();
        if !dropped.is_empty() {
            // Files by their paths (the jobs read them); bytes only where a drop has no path.
            let (mut paths, mut files) = (Vec::new(), Vec::new());
            for f in dropped {
                if !f.path().as_os_str().is_empty() {
                    paths.push(f.path().to_path_buf());
                    continue;
                }
                match f.bytes() {
                    Ok(bytes) => files.push((f.path().to_path_buf(), bytes)),
                    Err(e) => self.errors.push(format!("dropped file: {e}")),
                }
            }
            if !files.is_empty() {
                commands.send(InputCommand::AddFiles(files));
            }
            if !paths.is_empty() {
                commands.send(InputCommand::AddPaths(paths));
            }
        }
        let typing = ctx.text_edit_focused();
        for event in events {
            match event {
                egui::Event::Paste(text) if !typing && !text.trim().is_empty() => {
                    commands.send(InputCommand::PasteTrace(text));
                }
                egui::Event::Key {
                    key: egui::Key::F1,
                    pressed: true,
                    ..
                } => commands.send(WindowCommand::ToggleShortcuts),
                // Ctrl+C (a text field copies its own selection).
                egui::Event::Copy if !typing => commands.send(StackCommand::CopyFrame),
                egui::Event::Key {
                    key,
                    pressed: true,
                    modifiers,
                    ..
                } if modifiers.command => match key {
                    egui::Key::S if modifiers.shift => {
                        commands.send(WorkspaceCommand::Dialog(DialogRequest::SaveWorkspaceAs));
                    }
                    egui::Key::S => commands.send(WorkspaceCommand::SaveWorkspace(None)),
                    egui::Key::O => {
                        commands.send(WorkspaceCommand::Dialog(DialogRequest::OpenWorkspace))
                    }
                    egui::Key::C if modifiers.shift && !typing => {
                        commands.send(StackCommand::CopyTrace);
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    }
}

impl AppState {
    /// Applies a request for the window itself: theme, tiles, messages, the shortcuts.
    pub(super) fn apply_window(&mut self, command: WindowCommand) {
        let changed = Instant::now();
        match command {
            WindowCommand::ToggleTheme => {
                self.workspace.layout.dark = !self.workspace.layout.dark;
                self.autosave.changed(changed);
            }
            WindowCommand::OpenPane(pane) => self.open_pane(pane),
            WindowCommand::ClosePane(pane) => self.close_pane(pane),
            WindowCommand::SetTiles(tree) => {
                self.layout.tree = *tree;
                self.layout_changed = true;
            }
            WindowCommand::ResetLayout => {
                self.layout = super::LayoutPrefs {
                    window: self.layout.window,
                    ..super::LayoutPrefs::default()
                };
                self.layout_changed = true;
            }
            WindowCommand::DismissErrors => self.errors.clear(),
            WindowCommand::DismissError(i) => self.errors.dismiss(i),
            WindowCommand::ToggleErrors => self.errors_open = !self.errors_open,
            WindowCommand::ToggleShortcuts => self.view.shortcuts_open = !self.view.shortcuts_open,
            WindowCommand::Close(answer) => self.answer_close(answer),
        }
    }
}

impl AppState {
    /// Acts on the answer to "Save changes before closing?".
    fn answer_close(&mut self, answer: CloseAnswer) {
        self.closing = match answer {
            CloseAnswer::Cancel => Closing::Open,
            CloseAnswer::Discard => Closing::Close,
            CloseAnswer::Save if self.may_write_workspace() => match self.save_workspace(None) {
                Ok(_) => Closing::Close,
                Err(e) => {
                    self.errors.push(e.to_string());
                    Closing::Open
                }
            },
            // No file of its own (never saved, a template, read-only): ask where first.
            CloseAnswer::Save => {
                self.apply_one(WorkspaceCommand::Dialog(DialogRequest::SaveWorkspaceAs));
                Closing::SaveThenClose
            }
        };
    }
}

/// What the status bar says once text is on the clipboard: how much, and how it starts.
fn copied_notice(text: &str) -> String {
    let lines = text.lines().count();
    let first: String = text
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .chars()
        .take(60)
        .collect();
    if lines > 1 {
        format!("Copied {lines} lines to the clipboard: {first}…")
    } else {
        format!("Copied to the clipboard: {first}")
    }
}
