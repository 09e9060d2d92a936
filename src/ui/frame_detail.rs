//! The frame detail: the selected frame's resolution (function, place, how it was named,
//! the inline chain, other candidates), why it is not resolved, its address, and the
//! original source around it.

use super::theme;
use super::widgets::place;
use crate::app::{AppState, Commands};
use crate::app::{InspectorCommand, StackCommand, WorkspaceCommand};
use crate::model::FrameStatus;
use egui::RichText;

/// The selected frame: where it maps, why it does not, and the original source around it.
pub(super) fn frame_detail_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    detail: Option<&crate::app::FrameDetail>,
    commands: &mut Commands,
) {
    let selection = &state.workspace.selection;
    let Some(d) = detail else {
        ui.label(RichText::new("Select a frame to see its source.").weak());
        return;
    };
    // The actions first, so a short panel never hides them.
    // A profile's function selected last: its location, resolved as a frame.
    let profile = state.view.profile.detail_shown;
    ui.horizontal(|ui| {
        if d.generated.is_some() && ui.small_button("Inspect segment").clicked() {
            if profile {
                commands.send(crate::app::ProfileCommand::InspectSelected);
            } else {
                commands.send(InspectorCommand::InspectSelectedFrame);
            }
        }
        if profile {
            if ui.small_button("Copy frame").clicked() {
                commands.send(StackCommand::CopyText(d.raw.trim().to_owned()));
            }
        } else if ui.small_button("Copy frame  Ctrl+C").clicked() {
            commands.send(StackCommand::CopyFrame);
        }
        ui.label(RichText::new(d.raw.trim()).monospace());
    });
    if let Some(loc) = &d.location {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(loc.function.as_deref().unwrap_or("<unknown>")).strong());
            ui.label(place(loc.file.as_deref(), loc.line, loc.column));
            if let Some(src) = loc.name_source {
                ui.label(RichText::new(name_source_text(src)).weak());
            }
            if let Some(map) = &d.symbol_file {
                ui.label(RichText::new(format!("via {map}")).weak());
            }
            if let Some((l, c)) = d.generated {
                ui.label(RichText::new(format!("generated {}:{}", l + 1, c + 1)).weak());
            }
        });
    }
    // An inline chain: the inlined callees first, each "inlined into" the next.
    for loc in d.chain.iter().skip(1) {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("  inlined into").weak());
            ui.label(RichText::new(loc.function.as_deref().unwrap_or("<unknown>")).strong());
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
    if let Some((module, index, offset)) = &d.wasm {
        let mut text = format!("WebAssembly function {index}");
        if let Some(o) = offset {
            text.push_str(&format!(" at offset {o:#x}"));
        }
        if let Some(m) = module {
            text.push_str(&format!(" in {m}"));
        }
        ui.label(RichText::new(text).monospace().weak());
    }
    if let Some(note) = &d.note {
        // A resolved frame's note says how it was resolved, a skipped one's why it was
        // skipped: nothing to act on.
        let text = RichText::new(note);
        let calm = matches!(d.status, Some(FrameStatus::Resolved | FrameStatus::Skipped));
        ui.label(if calm {
            text.weak()
        } else {
            text.color(theme::WARNING)
        });
    }
    if let Some(frame) = selection.frame.filter(|_| !profile) {
        notes_ui(ui, state, selection.stack, frame, commands);
    }
    if d.source_pending {
        ui.label(RichText::new("Reading the source…").weak());
    }
    let no_source = d.context.is_none()
        && !d.source_pending
        && d.location
            .as_ref()
            .is_some_and(|l| l.file.is_some() && l.line.is_some());
    if no_source {
        ui.horizontal(|ui| {
            ui.label(RichText::new("The source is not in the symbol file.").weak());
            if ui
                .small_button("Add source folder…")
                .on_hover_text("Sources are looked for under it by ever shorter tails of the path")
                .clicked()
            {
                commands.send(WorkspaceCommand::Dialog(
                    crate::app::DialogRequest::AddSourceRoot,
                ));
            }
        });
    }
    if let Some(ctx) = &d.context {
        ui.separator();
        // The room the source has: when it changes (a resized tile or window), the line is
        // centred again.
        let room = ui.available_size().round();
        egui::ScrollArea::vertical()
            .id_salt("source")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (i, line) in ctx.lines.iter().enumerate() {
                    let n = ctx.first_line as usize + i;
                    let text = RichText::new(format!("{n:>6}  {line}")).monospace();
                    if i == ctx.highlight {
                        let line = ui.label(text.background_color(theme::SOURCE_HIGHLIGHT));
                        // Centre the frame's line when the selection or the room changes
                        // (not every frame, so the user can still scroll).
                        let key = ui.scope_id().with("source-shown");
                        let shown = (
                            selection.stack,
                            selection.frame,
                            ctx.file.clone(),
                            room.x as i32,
                            room.y as i32,
                        );
                        let last = ui
                            .data(|d| d.get_temp::<(usize, Option<usize>, String, i32, i32)>(key));
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
}

/// The user's triage notes on the selected frame and on its exception: kept in the
/// workspace, shown in the list, found by the filter (Ctrl+F).
fn notes_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    stack: usize,
    frame: usize,
    commands: &mut Commands,
) {
    for (what, target) in [
        ("Note on this frame", Some(frame)),
        ("Note on this exception", None),
    ] {
        ui.horizontal(|ui| {
            let label = ui.label(RichText::new(what).weak());
            let mut text = state.note(stack, target).unwrap_or_default().to_owned();
            let edit = ui
                .add(
                    egui::TextEdit::singleline(&mut text)
                        .id_salt((what, stack, target))
                        .hint_text("a triage note (kept in the workspace; Ctrl+F finds it)")
                        .desired_width(f32::INFINITY),
                )
                .labelled_by(label.id);
            super::widgets::take_enter(ui, &edit);
            if edit.changed() {
                commands.send(StackCommand::SetNote {
                    stack,
                    frame: target,
                    text,
                });
            }
        });
    }
}

fn name_source_text(src: crate::model::NameSource) -> &'static str {
    use crate::model::NameSource;
    match src {
        NameSource::FunctionMap => "name from Metro's function map",
        NameSource::Scope => "name of the enclosing function in the bundle",
        NameSource::OriginalScope => "name of the enclosing function in the original source",
        NameSource::CallerToken => "name from the caller's call-site token",
        NameSource::CallerSource => "name from the caller's call in the source",
        NameSource::Token => "name of the token here",
        NameSource::Trace => "name as the engine printed it (minified)",
    }
}
