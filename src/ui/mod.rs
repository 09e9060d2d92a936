//! The window, in egui only: each panel is a `*_ui` function that reads [`AppState`] and
//! emits [`Command`]s; [`app_ui`] applies them at the end of the frame.

mod inspector;

use crate::app::{AppState, Command, Commands, InputState, Loaded, Row, StackRows};
use crate::model::{FileKind, FrameStatus, FrameTable};
use egui::{Color32, RichText};

/// Height of a stack-list row in points.
const ROW_HEIGHT: f32 = 20.0;

/// Draws one frame of the whole app and applies what the user asked for.
pub fn app_ui(ui: &mut egui::Ui, state: &mut AppState) {
    let ctx = ui.ctx().clone();
    state.poll_jobs();
    ctx.set_theme(if state.workspace.layout.dark {
        egui::Theme::Dark
    } else {
        egui::Theme::Light
    });
    let mut commands = Commands::default();
    input_ui(&ctx, state, &mut commands);
    let rows = state.stack_rows();
    let detail = state.selected_frame_detail();
    let inspected = if state.workspace.layout.inspector_open {
        state.inspector_view()
    } else {
        None
    };
    menu_bar_ui(ui, state, &mut commands);
    status_bar_ui(ui, state, &mut commands);
    workspace_panel_ui(ui, state, &mut commands);
    if state.workspace.layout.timing_open {
        timing_panel_ui(ui, state);
    }
    frame_detail_ui(ui, state, detail.as_deref(), &mut commands);
    egui::CentralPanel::default().show(ui, |ui| {
        stack_list_ui(ui, state, rows.as_deref(), &mut commands);
    });
    if let Some(view) = &inspected {
        inspector::inspector_ui(&ctx, state, view, &mut commands);
    }
    if !state.hovered.is_empty() {
        drop_overlay_ui(&ctx, &state.hovered);
    }
    state.apply(commands);
    if let Some(wait) = state.tick_autosave() {
        ctx.request_repaint_after(wait);
    }
}

/// Dropped and hovering files, pasted traces and keyboard shortcuts.
fn input_ui(ctx: &egui::Context, state: &mut AppState, commands: &mut Commands) {
    let (dropped, hovered, events) = ctx.input(|i| {
        (
            i.raw.dropped_files.clone(),
            i.raw.hovered_files.clone(),
            i.events.clone(),
        )
    });
    state.hovered = hovered
        .iter()
        .map(|h| {
            h.path
                .as_ref()
                .map_or_else(|| "file".to_owned(), |p| file_name(p))
        })
        .collect();
    if !dropped.is_empty() {
        let (mut files, mut folders) = (Vec::new(), Vec::new());
        for f in dropped {
            // A folder (a `.dSYM` bundle) is walked for the files in it.
            if f.path().is_dir() {
                folders.push(f.path().to_path_buf());
                continue;
            }
            match f.bytes() {
                Ok(bytes) => files.push((f.path().to_path_buf(), bytes)),
                Err(e) => state.errors.push(format!("{}: {e}", f.path().display())),
            }
        }
        if !files.is_empty() {
            commands.send(Command::AddFiles(files));
        }
        if !folders.is_empty() {
            commands.send(Command::AddPaths(folders));
        }
    }
    let typing = ctx.text_edit_focused();
    for event in events {
        match event {
            egui::Event::Paste(text) if !typing && !text.trim().is_empty() => {
                commands.send(Command::PasteTrace(text))
            }
            egui::Event::Key {
                key,
                pressed: true,
                modifiers,
                ..
            } if modifiers.command => match key {
                egui::Key::S => commands.send(Command::SaveWorkspace(None)),
                egui::Key::O => {
                    if let Some(path) = rfd::FileDialog::new()
                        .add_filter("workspace", &["ron"])
                        .pick_file()
                    {
                        commands.send(Command::OpenWorkspace(path));
                    }
                }
                egui::Key::F => ctx.memory_mut(|m| m.request_focus(egui::Id::unique("filter"))),
                _ => {}
            },
            _ => {}
        }
    }
}

fn file_name(p: &std::path::Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The menu bar: File, View, the filter and the raw/resolved switch.
fn menu_bar_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    egui::Panel::top("menu").show(ui, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                if ui.button("Open files…").clicked() {
                    if let Some(paths) = rfd::FileDialog::new().pick_files() {
                        commands.send(Command::AddPaths(paths));
                    }
                    ui.close();
                }
                if ui.button("Open workspace…  Ctrl+O").clicked() {
                    if let Some(path) = rfd::FileDialog::new()
                        .add_filter("workspace", &["ron"])
                        .pick_file()
                    {
                        commands.send(Command::OpenWorkspace(path));
                    }
                    ui.close();
                }
                if ui.button("Save workspace  Ctrl+S").clicked() {
                    commands.send(Command::SaveWorkspace(None));
                    ui.close();
                }
                if ui.button("Save workspace as…").clicked() {
                    if let Some(path) = rfd::FileDialog::new()
                        .add_filter("workspace", &["ron"])
                        .save_file()
                    {
                        commands.send(Command::SaveWorkspace(Some(path)));
                    }
                    ui.close();
                }
                if !state.recent.is_empty() {
                    ui.separator();
                    ui.label(RichText::new("Recent workspaces").weak());
                    for path in &state.recent {
                        if ui
                            .button(file_name(path))
                            .on_hover_text(path.display().to_string())
                            .clicked()
                        {
                            commands.send(Command::OpenWorkspace(path.clone()));
                            ui.close();
                        }
                    }
                }
            });
            ui.menu_button("View", |ui| {
                let theme = if state.workspace.layout.dark {
                    "Light theme"
                } else {
                    "Dark theme"
                };
                if ui.button(theme).clicked() {
                    commands.send(Command::ToggleTheme);
                    ui.close();
                }
                let timing = if state.workspace.layout.timing_open {
                    "Hide timings"
                } else {
                    "Show timings"
                };
                if ui.button(timing).clicked() {
                    commands.send(Command::ToggleTiming);
                    ui.close();
                }
                let inspector = if state.workspace.layout.inspector_open {
                    "Hide segment inspector"
                } else {
                    "Show segment inspector"
                };
                if ui.button(inspector).clicked() {
                    commands.send(Command::ToggleInspector);
                    ui.close();
                }
            });
            ui.separator();
            let mut filter = state.filter.clone();
            let edit = ui.add(
                egui::TextEdit::singleline(&mut filter)
                    .id(egui::Id::unique("filter"))
                    .hint_text("Filter frames (Ctrl+F)")
                    .desired_width(220.0),
            );
            if edit.changed() {
                commands.send(Command::SetFilter(filter));
            }
            let raw = state.workspace.layout.raw_frames;
            if ui.selectable_label(raw, "Raw frames").clicked() {
                commands.send(Command::ToggleRaw);
            }
        });
    });
}

/// Running jobs with progress and cancel buttons, and the error count.
fn status_bar_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    egui::Panel::bottom("status").show(ui, |ui| {
        ui.horizontal(|ui| {
            let running = state.jobs.running();
            if running.is_empty() {
                ui.label(RichText::new("Ready").weak());
            }
            for (id, progress) in running.iter().take(4) {
                let name = state.job_names.get(id).map_or("job", String::as_str);
                if progress.total == 0 && progress.done > 0 {
                    // A phase that cannot know its total (the functions of a debug file)
                    // says how far it has got.
                    ui.label(format!(
                        "{name}: {}, {} done",
                        progress.phase, progress.done
                    ));
                } else {
                    ui.label(format!("{name}: {}", progress.phase));
                }
                let bar = if progress.total > 0 {
                    egui::ProgressBar::new(progress.done as f32 / progress.total as f32)
                        .show_percentage()
                } else {
                    egui::ProgressBar::new(0.0).animate(true)
                };
                ui.add(bar.desired_width(80.0));
                let what = format!("Cancel {name}");
                let cancel = ui.small_button("Cancel").on_hover_text(&what);
                // Several jobs may run: each button is named after its job.
                cancel.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, &what));
                if cancel.clicked() {
                    commands.send(Command::CancelJob(*id));
                }
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if !state.errors.is_empty() {
                    let label = format!("{} errors", state.errors.len());
                    let last = state.errors.last().cloned().unwrap_or_default();
                    if ui
                        .button(RichText::new(label).color(Color32::from_rgb(230, 90, 80)))
                        .on_hover_text(last)
                        .clicked()
                    {
                        commands.send(Command::DismissErrors);
                    }
                }
            });
        });
    });
}

fn kind_badge(kind: FileKind) -> (&'static str, Color32) {
    match kind {
        FileKind::SourceMap => ("MAP", Color32::from_rgb(90, 150, 230)),
        FileKind::JavaScript => ("JS", Color32::from_rgb(220, 190, 60)),
        FileKind::HermesBytecode => ("HBC", Color32::from_rgb(150, 110, 220)),
        FileKind::ProguardMapping => ("R8", Color32::from_rgb(120, 200, 200)),
        FileKind::NativeSymbols => ("NAT", Color32::from_rgb(200, 140, 90)),
        FileKind::Log => ("LOG", Color32::from_rgb(90, 190, 120)),
        FileKind::Unknown => ("?", Color32::GRAY),
    }
}

/// The inputs, grouped by kind, with status; select a log, remove an input.
fn workspace_panel_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    egui::Panel::left("workspace")
        .resizable(true)
        .default_size(state.workspace.layout.side_panel_width)
        .show(ui, |ui| {
            let title = state
                .workspace_path
                .as_deref()
                .map_or_else(|| "Unsaved workspace".to_owned(), file_name);
            ui.heading(title);
            if state.inputs.is_empty() {
                ui.label(
                    RichText::new(
                        "Drop symbol files and crash logs here, or paste a trace (Ctrl+V).",
                    )
                    .weak(),
                );
            }
            let selected = state.selected_log().map(|e| e.id);
            for (group, kinds) in [
                ("Logs", &[FileKind::Log][..]),
                (
                    "Symbol files",
                    &[
                        FileKind::SourceMap,
                        FileKind::JavaScript,
                        FileKind::HermesBytecode,
                        FileKind::ProguardMapping,
                        FileKind::NativeSymbols,
                    ][..],
                ),
                ("Other", &[FileKind::Unknown][..]),
            ] {
                let members: Vec<_> = state
                    .inputs
                    .iter()
                    .filter(|e| kinds.contains(&e.kind))
                    .collect();
                if members.is_empty() {
                    continue;
                }
                ui.add_space(6.0);
                ui.label(RichText::new(group).strong());
                for e in members {
                    ui.horizontal(|ui| {
                        let (badge, color) = kind_badge(e.kind);
                        ui.label(RichText::new(badge).monospace().color(color));
                        let is_log = e.kind == FileKind::Log;
                        let label = ui.selectable_label(is_log && selected == Some(e.id), &e.name);
                        if label.clicked() && is_log {
                            commands.send(Command::SelectLog(e.id));
                        }
                        label.on_hover_text(e.path.display().to_string());
                        match &e.state {
                            InputState::Loading => progress_ui(ui, state.input_progress(e.id)),
                            // A log being symbolicated shows how far its job is.
                            InputState::Ready if state.input_progress(e.id).is_some() => {
                                progress_ui(ui, state.input_progress(e.id));
                            }
                            InputState::Ready => {
                                let detail = match &e.loaded {
                                    Some(Loaded::Map(m, ms)) => format!(
                                        "indexed in {ms:.1} ms, {} sources",
                                        m.source_count()
                                    ),
                                    Some(Loaded::Log(t)) => {
                                        format!("{} frames", t.frame_count())
                                    }
                                    Some(Loaded::Native(n, ms)) => format!(
                                        "{} {} ({}), debug ID {}, SymCache {} KB in {ms:.1} ms",
                                        n.info().format,
                                        n.info().arch,
                                        if n.info().has_debug_info {
                                            "debug info"
                                        } else {
                                            "symbols only"
                                        },
                                        n.info().debug_id,
                                        n.cache_len().div_ceil(1024)
                                    ),
                                    Some(Loaded::ProguardMapping(m, ms)) => format!(
                                        "scanned in {ms:.1} ms, {} classes{}",
                                        m.class_count(),
                                        m.map_id()
                                            .map(|id| format!(", pg_map_id {id}"))
                                            .unwrap_or_default()
                                    ),
                                    Some(Loaded::Bundle(b, _)) => b
                                        .source_mapping_url
                                        .clone()
                                        .unwrap_or_else(|| "no sourceMappingURL".to_owned()),
                                    _ => "not used".to_owned(),
                                };
                                ui.label(RichText::new("ready").weak())
                                    .on_hover_text(detail);
                            }
                            InputState::Failed(message) => {
                                ui.label(
                                    RichText::new("error").color(Color32::from_rgb(230, 90, 80)),
                                )
                                .on_hover_text(message);
                            }
                            InputState::Missing => {
                                ui.label(
                                    RichText::new("missing").color(Color32::from_rgb(230, 160, 60)),
                                )
                                .on_hover_text(format!("{} is not there", e.path.display()));
                            }
                            InputState::Cancelled => {
                                ui.label(RichText::new("cancelled").weak());
                                let name = format!("Load {} again", e.name);
                                let again = ui.small_button("Load").on_hover_text(&name);
                                again.widget_info(|| {
                                    egui::WidgetInfo::labeled(egui::Role::Button, true, &name)
                                });
                                if again.clicked() {
                                    commands.send(Command::AddPaths(vec![e.path.clone()]));
                                }
                            }
                        }
                        let name = format!("Remove {}", e.name);
                        let remove = ui.small_button("x").on_hover_text(&name);
                        // The visible "x" is terse; screen readers (and tests) get the full name.
                        remove.widget_info(|| {
                            egui::WidgetInfo::labeled(egui::Role::Button, true, &name)
                        });
                        if remove.clicked() {
                            commands.send(Command::RemoveInput(e.id));
                        }
                    });
                    if let InputState::Failed(message) = &e.state {
                        ui.label(
                            RichText::new(message)
                                .small()
                                .color(Color32::from_rgb(230, 90, 80)),
                        );
                    }
                }
            }
            if !state.workspace.source_roots.is_empty() {
                ui.separator();
                ui.label(RichText::new("Source folders").strong());
                for (i, root) in state.workspace.source_roots.iter().enumerate() {
                    ui.horizontal(|ui| {
                        ui.label(RichText::new(root).monospace());
                        let name = format!("Remove source folder {root}");
                        let remove = ui.small_button("x").on_hover_text(&name);
                        remove.widget_info(|| {
                            egui::WidgetInfo::labeled(egui::Role::Button, true, &name)
                        });
                        if remove.clicked() {
                            commands.send(Command::RemoveSourceRoot(i));
                        }
                    });
                }
            }
        });
}

fn status_color(status: FrameStatus) -> Color32 {
    match status {
        FrameStatus::Resolved => Color32::from_rgb(90, 190, 120),
        FrameStatus::NoSymbols => Color32::from_rgb(230, 160, 60),
        FrameStatus::NotCovered => Color32::from_rgb(230, 90, 80),
        FrameStatus::Unparsed | FrameStatus::Skipped => Color32::GRAY,
    }
}

/// The selected log's frames: windowed (only visible rows are laid out).
fn stack_list_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    rows: Option<&StackRows>,
    commands: &mut Commands,
) {
    let Some((_, table)) = state.selected_table() else {
        ui.centered_and_justified(|ui| {
            ui.label(
                RichText::new("Drop a crash log and its symbol files anywhere in this window.")
                    .weak(),
            );
        });
        return;
    };
    let Some(rows) = rows else { return };
    ui.horizontal(|ui| {
        ui.label(RichText::new(format!("{} format", table.format())).weak());
        if !table.is_symbolicated() {
            ui.spinner();
            ui.label("symbolicating…");
        }
        if rows.hidden > 0 {
            ui.label(RichText::new(format!("{} frames hidden by the filter", rows.hidden)).weak());
        }
        if table.is_symbolicated() && ui.small_button("Copy symbolicated trace").clicked() {
            let trace = crate::formats::parse_text(&table.text());
            if let Some(r) = table.to_result() {
                ui.ctx()
                    .copy_text(crate::symbolicate::report::text(&trace, &r));
            }
        }
    });
    modules_ui(ui, table.modules());
    ui.separator();
    let selection = &state.workspace.selection;
    let raw = state.workspace.layout.raw_frames;
    egui::ScrollArea::both()
        .auto_shrink([false, false])
        .show_rows(ui, ROW_HEIGHT, rows.len(), |ui, range| {
            for row in rows.rows(range) {
                match row {
                    Row::Stack { stack } => {
                        let title = if raw {
                            table.stack_raw_title(stack)
                        } else {
                            table.stack_title(stack)
                        };
                        let title = if title.is_empty() {
                            "(no error line)"
                        } else {
                            // The exception line itself: the last header line (logcat puts
                            // `FATAL EXCEPTION` and `Process:` lines before it).
                            title
                                .lines()
                                .rev()
                                .find(|l| crate::formats::java::parse_throwable(l).is_some())
                                .or_else(|| title.lines().next())
                                .unwrap_or("")
                        };
                        let folded = state.collapsed.contains(&stack);
                        let arrow = if folded { "▶" } else { "▼" };
                        let more = if folded {
                            format!("  ({} frames)", table.stack_len(stack))
                        } else {
                            String::new()
                        };
                        let text = RichText::new(format!("{arrow} {title}{more}"))
                            .strong()
                            .color(Color32::from_rgb(230, 120, 110));
                        let response = list_row(ui, text, false, true);
                        if response.clicked() {
                            commands.send(Command::ToggleStack(stack));
                        }
                        response.on_hover_text(if folded {
                            "show this exception's frames"
                        } else {
                            "fold this exception to its header"
                        });
                    }
                    Row::Frame { stack, frame } => {
                        let selected = selection.stack == stack && selection.frame == Some(frame);
                        let text = frame_text(&table, stack, frame, raw);
                        if list_row(ui, text, selected, true).clicked() {
                            commands.send(Command::SelectFrame { stack, frame });
                        }
                    }
                    Row::Inline {
                        stack,
                        frame,
                        depth,
                    } => {
                        let selected = selection.stack == stack && selection.frame == Some(frame);
                        let text = inline_text(&table, stack, frame, depth);
                        if list_row(ui, text, selected, true).clicked() {
                            commands.send(Command::SelectFrame { stack, frame });
                        }
                    }
                    Row::Library {
                        stack,
                        first,
                        count,
                        expanded,
                    } => {
                        let (arrow, verb) = if expanded {
                            ("▼", "hide")
                        } else {
                            ("▶", "show")
                        };
                        let text =
                            RichText::new(format!("    {arrow} {count} library frames ({verb})"))
                                .color(Color32::GRAY)
                                .italics();
                        if list_row(ui, text, false, true).clicked() {
                            commands.send(Command::ToggleGroup { stack, first });
                        }
                    }
                }
            }
        });
    // Keyboard navigation among the visible frames.
    if !ui.ctx().text_edit_focused() {
        let (down, up) = ui.input(|i| {
            (
                i.key_pressed(egui::Key::ArrowDown),
                i.key_pressed(egui::Key::ArrowUp),
            )
        });
        if down || up {
            let current = selection.frame.map(|f| (selection.stack, f));
            if let Some((stack, frame)) = rows.step(current, down)
                && Some((stack, frame)) != current
            {
                commands.send(Command::SelectFrame { stack, frame });
            }
        }
    }
}

/// A running job's bar: its phase and, when the job knows its total, how far it is.
/// The symbol-coverage report of a native log: each module its frames are in, with its ID
/// and the debug file found, or what is missing.
fn modules_ui(ui: &mut egui::Ui, modules: &[crate::model::ModuleCoverage]) {
    use crate::model::Coverage;
    if modules.is_empty() {
        return;
    }
    let missing = modules
        .iter()
        .filter(|m| m.status != Coverage::Found)
        .count();
    let header = format!(
        "Modules: {} with symbols, {missing} without",
        modules.len() - missing
    );
    egui::CollapsingHeader::new(header)
        .id_salt("modules")
        .default_open(missing > 0 && modules.len() <= 8)
        .show(ui, |ui| {
            egui::Grid::new("module-coverage")
                .striped(true)
                .show(ui, |ui| {
                    for m in modules {
                        let (mark, color) = match m.status {
                            Coverage::Found => ("found", Color32::from_rgb(90, 170, 90)),
                            Coverage::Missing => ("missing", Color32::from_rgb(200, 90, 80)),
                            Coverage::Mismatch => ("other build", Color32::from_rgb(210, 160, 60)),
                        };
                        ui.label(RichText::new(mark).color(color));
                        ui.label(&m.name);
                        ui.label(
                            RichText::new(m.id.as_deref().unwrap_or("no ID"))
                                .monospace()
                                .weak(),
                        );
                        ui.label(format!("{}/{} frames resolved", m.resolved, m.frames));
                        ui.label(match (m.status, &m.symbol_file) {
                            (Coverage::Found, Some(f)) => file_name(std::path::Path::new(f)),
                            (Coverage::Mismatch, Some(f)) => format!(
                                "{} is another build: add this build's debug file",
                                file_name(std::path::Path::new(f))
                            ),
                            _ => {
                                "missing: add its debug file (.debug, dSYM, PDB or .sym)".to_owned()
                            }
                        });
                        ui.end_row();
                    }
                });
        });
}

fn progress_ui(ui: &mut egui::Ui, progress: Option<&crate::jobs::JobProgress>) {
    let Some(p) = progress else {
        ui.spinner();
        return;
    };
    let bar = if p.total > 0 {
        let fraction = p.done as f32 / p.total as f32;
        egui::ProgressBar::new(fraction).text(format!("{} {:.0}%", p.phase, fraction * 100.0))
    } else {
        egui::ProgressBar::new(0.0)
            .animate(true)
            .text(p.phase.clone())
    };
    ui.add(bar.desired_width(140.0));
}

/// One full-width, left-aligned row of the stack list, painted directly (only visible rows
/// are laid out at all) and named for screen readers and tests by its text.
fn list_row(ui: &mut egui::Ui, text: RichText, selected: bool, clickable: bool) -> egui::Response {
    let width = ui.available_width().max(ROW_HEIGHT);
    let sense = if clickable {
        egui::Sense::click()
    } else {
        egui::Sense::hover()
    };
    let (rect, response) = ui.allocate_exact_size(egui::vec2(width, ROW_HEIGHT), sense);
    let label = text.text().to_owned();
    let role = if clickable {
        egui::Role::Button
    } else {
        egui::Role::Label
    };
    response.widget_info(|| egui::WidgetInfo::labeled(role, true, &label));
    if ui.is_rect_visible(rect) {
        let visuals = ui.style().interact_selectable(&response, selected);
        if selected || (clickable && response.hovered()) {
            ui.painter().rect_filled(rect, 2.0, visuals.weak_bg_fill);
        }
        let galley = egui::WidgetText::from(text).into_galley(
            ui,
            Some(egui::TextWrapMode::Truncate),
            rect.width() - 8.0,
            egui::TextStyle::Monospace,
        );
        let pos = egui::pos2(rect.left() + 4.0, rect.center().y - galley.size().y / 2.0);
        ui.painter().galley(pos, galley, visuals.text_color());
    }
    response
}

/// `file:line:column`, leaving out what is unknown (Java frames have no column).
fn place(file: Option<&str>, line: Option<u32>, column: Option<u32>) -> String {
    let mut s = file.unwrap_or("?").to_owned();
    if let Some(l) = line {
        s.push_str(&format!(":{l}"));
        if let Some(c) = column {
            s.push_str(&format!(":{c}"));
        }
    }
    s
}

/// One frame's row: index, function, location and status.
fn frame_text(table: &FrameTable, stack: usize, frame: usize, raw: bool) -> RichText {
    let Some(f) = table.frame(stack, frame) else {
        return RichText::new("");
    };
    let status = f.status();
    let text = match (raw, f.location()) {
        (false, Some(loc)) => {
            let function = loc.function.unwrap_or("<unknown>");
            let place = place(loc.file, loc.line, loc.column);
            let library = if loc.ignored { "  [library]" } else { "" };
            // The rest of an inline chain follows as rows of their own ("inlined into").
            let candidates = f.alternatives().len();
            let candidates = if candidates > 0 {
                format!("  [{} candidates]", candidates + 1)
            } else {
                String::new()
            };
            format!("{frame:>3}  {function}  {place}{library}{candidates}")
        }
        _ => format!("{frame:>3}  {}", without_index(f.raw().trim(), frame)),
    };
    // Platform and library frames no symbol file covers are expected, not errors: grey.
    let expected = f.is_library() && status != Some(FrameStatus::Resolved);
    let color = if expected {
        Color32::GRAY
    } else {
        status.map_or(Color32::GRAY, status_color)
    };
    let mark = match status {
        _ if expected => "·",
        Some(FrameStatus::Resolved) => "●",
        Some(FrameStatus::NoSymbols) => "○",
        Some(FrameStatus::NotCovered) => "×",
        Some(_) => "·",
        None => " ",
    };
    RichText::new(format!("{mark} {text}")).monospace().color(
        if status == Some(FrameStatus::Resolved) {
            Color32::PLACEHOLDER
        } else {
            color
        },
    )
}

/// A native log's line without the frame number it starts with (`1   crash  0x…`, `#01 pc …`)
/// when that is the frame's own index, which the row already shows.
fn without_index(line: &str, frame: usize) -> &str {
    let digits = line.strip_prefix('#').unwrap_or(line);
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    match (digits[..end].parse::<usize>(), digits[end..].chars().next()) {
        (Ok(n), Some(c)) if n == frame && c.is_whitespace() => digits[end..].trim_start(),
        _ => line,
    }
}

/// A row below a frame for entry `depth` of its inline chain: the function the entry before
/// it was inlined into, and the line of that call.
fn inline_text(table: &FrameTable, stack: usize, frame: usize, depth: usize) -> RichText {
    let Some(loc) = table
        .frame(stack, frame)
        .and_then(|f| f.locations().nth(depth))
    else {
        return RichText::new("");
    };
    let function = loc.function.unwrap_or("<unknown>");
    let place = place(loc.file, loc.line, loc.column);
    // Under the frame's function, past its index and status mark.
    RichText::new(format!("        inlined into {function}  {place}"))
        .monospace()
        .color(Color32::PLACEHOLDER)
}

/// The selected frame: where it maps, why it does not, and the original source around it.
fn frame_detail_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    detail: Option<&crate::app::FrameDetail>,
    commands: &mut Commands,
) {
    egui::Panel::bottom("frame-detail")
        .resizable(true)
        .default_size(240.0)
        .min_size(160.0)
        .show(ui, |ui| {
            let selection = &state.workspace.selection;
            let Some(d) = detail else {
                ui.label(RichText::new("Select a frame to see its source.").weak());
                return;
            };
            // The actions first, so a short panel never hides them.
            ui.horizontal(|ui| {
                if d.generated.is_some() && ui.small_button("Inspect segment").clicked() {
                    commands.send(Command::InspectSelectedFrame);
                }
                if ui.small_button("Copy frame").clicked() {
                    ui.ctx().copy_text(copied_frame(d));
                }
                ui.label(RichText::new(d.raw.trim()).monospace());
            });
            if let Some(loc) = &d.location {
                ui.horizontal_wrapped(|ui| {
                    ui.label(
                        RichText::new(loc.function.as_deref().unwrap_or("<unknown>")).strong(),
                    );
                    ui.label(place(loc.file.as_deref(), loc.line, loc.column));
                    if let Some(src) = loc.name_source {
                        ui.label(RichText::new(name_source_text(src)).weak());
                    }
                    if let Some(map) = &d.symbol_file {
                        ui.label(RichText::new(format!("via {map}")).weak());
                    }
                    if let Some((l, c)) = d.generated {
                        ui.label(RichText::new(format!("generated {}:{}", l + 1, c)).weak());
                    }
                });
            }
            // An inline chain: the inlined callees first, each "inlined into" the next.
            for loc in d.chain.iter().skip(1) {
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new("  inlined into").weak());
                    ui.label(
                        RichText::new(loc.function.as_deref().unwrap_or("<unknown>")).strong(),
                    );
                    ui.label(place(loc.file.as_deref(), loc.line, loc.column));
                });
            }
            if !d.alternatives.is_empty() {
                egui::CollapsingHeader::new(format!("{} candidates", d.alternatives.len() + 1))
                    .id_salt(("candidates", selection.stack, selection.frame))
                    .show(ui, |ui| {
                        ui.label(RichText::new("shown above (best)").weak());
                        for (n, chain) in d.alternatives.iter().enumerate() {
                            for (i, loc) in chain.iter().enumerate() {
                                let lead = if i == 0 {
                                    format!("{}.", n + 2)
                                } else {
                                    "   inlined into".to_owned()
                                };
                                ui.horizontal_wrapped(|ui| {
                                    ui.label(RichText::new(lead).weak());
                                    ui.label(RichText::new(
                                        loc.function.as_deref().unwrap_or("<unknown>"),
                                    ));
                                    ui.label(place(loc.file.as_deref(), loc.line, loc.column));
                                });
                            }
                        }
                    });
            }
            if !d.inherited.is_empty() {
                ui.label(RichText::new("The frames this line stands for:").weak());
                for f in &d.inherited {
                    ui.label(RichText::new(format!("    {f}")).monospace());
                }
            }
            if let Some((addr, module, offset)) = &d.address {
                let mut text = format!("address {addr:#x}");
                if let Some(m) = module {
                    text.push_str(&format!(" in {m}"));
                }
                if let Some(o) = offset {
                    text.push_str(&format!(" at offset {o:#x}"));
                }
                ui.label(RichText::new(text).monospace().weak());
            }
            if let Some(note) = &d.note {
                ui.label(RichText::new(note).color(Color32::from_rgb(230, 160, 60)));
            }
            let no_source = d.context.is_none()
                && d.location
                    .as_ref()
                    .is_some_and(|l| l.file.is_some() && l.line.is_some());
            if no_source {
                ui.horizontal(|ui| {
                    ui.label(RichText::new("The source is not in the symbol file.").weak());
                    if ui
                        .small_button("Add source folder…")
                        .on_hover_text(
                            "Sources are looked for under it by ever shorter tails of the path",
                        )
                        .clicked()
                        && let Some(dir) = rfd::FileDialog::new().pick_folder()
                    {
                        commands.send(Command::AddSourceRoot(dir));
                    }
                });
            }
            if let Some(ctx) = &d.context {
                ui.separator();
                egui::ScrollArea::vertical()
                    .id_salt("source")
                    .show(ui, |ui| {
                        for (i, line) in ctx.lines.iter().enumerate() {
                            let n = ctx.first_line as usize + i;
                            let text = RichText::new(format!("{n:>6}  {line}")).monospace();
                            if i == ctx.highlight {
                                let line = ui.label(text.background_color(
                                    Color32::from_rgba_unmultiplied(230, 200, 60, 60),
                                ));
                                // Bring the frame's line into view when the selection changes
                                // (not every frame, so the user can still scroll).
                                let key = egui::Id::unique("source-shown");
                                let shown = (selection.stack, selection.frame, ctx.file.clone());
                                let last =
                                    ui.data(|d| d.get_temp::<(usize, Option<usize>, String)>(key));
                                if last.as_ref() != Some(&shown) {
                                    line.scroll_to_me(Some(egui::Align::Center));
                                    ui.data_mut(|d| d.insert_temp(key, shown));
                                }
                            } else {
                                ui.label(text.weak());
                            }
                        }
                    });
            }
        });
}

/// A frame as copied: the line as written and, when resolved, where it maps.
pub fn copied_frame(d: &crate::app::FrameDetail) -> String {
    let mut text = d.raw.trim().to_owned();
    if d.location.is_some() {
        for loc in &d.chain {
            text.push_str(&format!(
                "\n    → {} ({})",
                loc.function.as_deref().unwrap_or("<unknown>"),
                place(loc.file.as_deref(), loc.line, loc.column)
            ));
        }
    } else if let Some(note) = &d.note {
        text.push_str(&format!("\n    ({note})"));
    }
    text
}

fn name_source_text(src: crate::model::NameSource) -> &'static str {
    use crate::model::NameSource;
    match src {
        NameSource::FunctionMap => "name from Metro's function map",
        NameSource::CallerToken => "name from the caller's call-site token",
        NameSource::CallerSource => "name from the caller's call in the source",
        NameSource::Token => "name of the token here",
        NameSource::Trace => "name as the engine printed it (minified)",
    }
}

/// One bar per finished job split into its phases, newest at the bottom.
fn timing_panel_ui(ui: &mut egui::Ui, state: &AppState) {
    egui::Panel::right("timings")
        .resizable(true)
        .default_size(380.0)
        .max_size(640.0)
        .show(ui, |ui| {
            ui.heading("Timings");
            egui::ScrollArea::vertical()
                .id_salt("timing-scroll")
                .show(ui, |ui| {
                    timeline_ui(ui, state, &TimelineOptions::default());
                    ui.separator();
                    timing_table_ui(ui, state);
                });
        });
}

/// Options of the timing timeline (after puffin's flamegraph options).
struct TimelineOptions {
    /// Spans narrower than this (points) are not painted.
    cull_width: f32,
    /// Height of one job's bar.
    bar_height: f32,
}

impl Default for TimelineOptions {
    fn default() -> Self {
        Self {
            cull_width: 0.5,
            bar_height: 14.0,
        }
    }
}

/// What painting one bar needs.
struct PaintCtx {
    canvas: egui::Rect,
    /// The longest job on screen: every bar uses the same scale.
    max_ns: f64,
}

impl PaintCtx {
    fn x_from_ns(&self, ns: u64) -> f32 {
        self.canvas.left() + self.canvas.width() * (ns as f64 / self.max_ns).min(1.0) as f32
    }
}

/// The colours of segments (inspector) and phases (timings).
const PALETTE: [Color32; 6] = [
    Color32::from_rgb(90, 150, 230),
    Color32::from_rgb(90, 190, 120),
    Color32::from_rgb(230, 160, 60),
    Color32::from_rgb(200, 110, 200),
    Color32::from_rgb(80, 190, 200),
    Color32::from_rgb(220, 100, 90),
];

/// A stable colour per phase name.
fn phase_color(phase: &str) -> Color32 {
    let h = phase.bytes().fold(0usize, |a, b| {
        a.wrapping_mul(31).wrapping_add(usize::from(b))
    });
    PALETTE[h % PALETTE.len()]
}

/// One bar per finished job, split into its phases; exact figures on hover.
fn timeline_ui(ui: &mut egui::Ui, state: &AppState, options: &TimelineOptions) {
    let jobs: Vec<&crate::app::JobTiming> = state.timings.iter().rev().take(40).collect();
    let max_ns = jobs
        .iter()
        .map(|t| t.elapsed.as_nanos() as f64)
        .fold(1.0, f64::max);
    for t in jobs {
        ui.label(
            RichText::new(format!(
                "{}  {:.2} ms",
                t.name,
                t.elapsed.as_secs_f64() * 1e3
            ))
            .small(),
        );
        let (canvas, response) = ui.allocate_exact_size(
            egui::vec2(ui.available_width(), options.bar_height),
            egui::Sense::hover(),
        );
        let paint = PaintCtx { canvas, max_ns };
        let painter = ui.painter_at(canvas);
        painter.rect_filled(canvas, 2.0, ui.visuals().faint_bg_color);
        let mut hovered: Option<String> = None;
        for span in &t.spans {
            let (x0, x1) = (paint.x_from_ns(span.start_ns), paint.x_from_ns(span.end_ns));
            if x1 - x0 < options.cull_width {
                continue;
            }
            let rect = egui::Rect::from_x_y_ranges(x0..=x1, canvas.y_range());
            painter.rect_filled(rect, 1.0, phase_color(&span.phase));
            if response.hover_pos().is_some_and(|p| rect.contains(p)) {
                let share = 100.0 * span.ms() / (t.elapsed.as_secs_f64() * 1e3).max(1e-9);
                hovered = Some(format!(
                    "{}: {:.3} ms ({share:.0}% of the job)",
                    span.phase,
                    span.ms()
                ));
            }
        }
        if let Some(text) = hovered {
            response.on_hover_text(text);
        }
    }
}

/// The phases of every job as text.
fn timing_table_ui(ui: &mut egui::Ui, state: &AppState) {
    egui::Grid::new("timing-table")
        .striped(true)
        .show(ui, |ui| {
            ui.label(RichText::new("job").strong());
            ui.label(RichText::new("phases").strong());
            ui.end_row();
            for t in state.timings.iter().rev().take(40) {
                ui.label(&t.name);
                let phases: Vec<String> = t
                    .spans
                    .iter()
                    .map(|s| format!("{} {:.2} ms", s.phase, s.ms()))
                    .collect();
                ui.label(phases.join(" · "));
                ui.end_row();
            }
        });
}

/// Says what a drop will add (a real label, so screen readers and tests see it too).
fn drop_overlay_ui(ctx: &egui::Context, hovered: &[String]) {
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Foreground,
        egui::Id::unique("drop-dim"),
    ));
    let rect = ctx.content_rect();
    painter.rect_filled(rect, 0.0, Color32::from_black_alpha(170));
    egui::Area::new(egui::Id::unique("drop-overlay"))
        .order(egui::Order::Tooltip)
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(ctx, |ui| {
            ui.label(
                RichText::new(format!("Drop to add {}", hovered.join(", ")))
                    .size(22.0)
                    .color(Color32::WHITE),
            );
        });
}

#[cfg(test)]
mod tests {
    #[test]
    fn native_rows_do_not_repeat_the_frame_number() {
        use super::without_index;
        assert_eq!(
            without_index("1   crash  0x0000000109ba8c70", 1),
            "crash  0x0000000109ba8c70"
        );
        assert_eq!(
            without_index("#01 pc 0004c1a4  /system/lib64/libc.so", 1),
            "pc 0004c1a4  /system/lib64/libc.so"
        );
        assert_eq!(
            without_index("2   crash", 1),
            "2   crash",
            "another number stays"
        );
        assert_eq!(without_index("0x1234", 0), "0x1234");
        assert_eq!(
            without_index("1000", 1000),
            "1000",
            "an address alone stays"
        );
        assert_eq!(without_index("... 1 more", 1), "... 1 more");
    }
}
