//! The Buckets view (crash logs grouped by signature: a sortable, filterable table of
//! buckets; the selected one's signature, note and logs) and the comparison of two logs
//! (their crashed stacks side by side, frames aligned, differences marked).

use super::theme;
use crate::app::BucketsCommand;
use crate::app::{AppState, BucketSort, Commands, ComparePick, CrashBuckets, LogCompare};
use crate::engine::buckets::Bucket;
use egui::RichText;
use egui_extras::{Column, TableBuilder};

/// The Buckets tab: the buckets of the crash folders, once bucketed.
pub fn buckets_ui(ui: &mut egui::Ui, state: &AppState, commands: &mut Commands) {
    match &state.view.buckets.bucketed {
        None => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Bucketing crash logs…");
            });
        }
        Some(b) => panel_ui(ui, state, b, commands),
    }
}

/// The buckets that pass the filter, in the chosen order.
fn shown<'a>(state: &AppState, all: &'a CrashBuckets) -> Vec<&'a Bucket> {
    let filter = state.view.buckets.filter.to_lowercase();
    let notes = &state.workspace.buckets.notes;
    let mut rows: Vec<&Bucket> = all
        .buckets
        .iter()
        .filter(|b| {
            filter.is_empty()
                || [
                    b.title().to_lowercase(),
                    b.top_frame().to_lowercase(),
                    b.signature.platform.as_str().to_owned(),
                    b.fingerprint.to_string(),
                    notes
                        .get(&b.fingerprint.to_string())
                        .map(|n| n.to_lowercase())
                        .unwrap_or_default(),
                ]
                .iter()
                .any(|t| t.contains(&filter))
        })
        .collect();
    let (sort, reversed) = state.view.buckets.sort;
    match sort {
        // Already largest first.
        BucketSort::Count => {}
        BucketSort::Title => rows.sort_by_cached_key(|b| b.title()),
        BucketSort::TopFrame => rows.sort_by_key(|b| b.top_frame()),
        BucketSort::Platform => rows.sort_by_key(|b| b.signature.platform),
    }
    if reversed {
        rows.reverse();
    }
    rows
}

fn panel_ui(ui: &mut egui::Ui, state: &AppState, all: &CrashBuckets, commands: &mut Commands) {
    let rows = shown(state, all);
    let logs: usize = all.buckets.iter().map(Bucket::count).sum();
    ui.horizontal(|ui| {
        let mut summary = format!("Buckets: {logs} logs in {} buckets", all.buckets.len());
        if !all.unreadable.is_empty() {
            summary.push_str(&format!(", {} unreadable", all.unreadable.len()));
        }
        ui.label(RichText::new(summary).strong());
        let mut filter = state.view.buckets.filter.clone();
        let label = ui.label("Filter buckets:");
        let edit = ui
            .add(
                egui::TextEdit::singleline(&mut filter)
                    .hint_text("title, frame, platform, note")
                    .desired_width(theme::FILTER_WIDTH),
            )
            .labelled_by(label.id);
        if edit.changed() {
            commands.send(BucketsCommand::SetBucketFilter(filter));
        }
        super::widgets::take_enter(ui, &edit);
        if ui.small_button("Close buckets").clicked() {
            commands.send(BucketsCommand::CloseBuckets);
        }
    });
    ui.separator();
    let selected = state.workspace.buckets.selected.as_deref();
    let chosen =
        selected.and_then(|fp| all.buckets.iter().find(|b| b.fingerprint.to_string() == fp));
    let width = ui.available_width();
    ui.horizontal_top(|ui| {
        ui.allocate_ui_with_layout(
            egui::vec2(width * theme::BUCKETS_TABLE_SHARE, ui.available_height()),
            egui::Layout::top_down(egui::Align::Min),
            |ui| table_ui(ui, state, &rows, selected, commands),
        );
        ui.separator();
        ui.vertical(|ui| match chosen {
            Some(b) => {
                egui::ScrollArea::vertical()
                    .id_salt("bucket-detail")
                    .auto_shrink([false, false])
                    .show(ui, |ui| bucket_detail_ui(ui, state, all, b, commands));
            }
            None => {
                ui.label(RichText::new("Select a bucket to see its logs.").color(theme::MUTED));
                if !all.unreadable.is_empty() {
                    unreadable_ui(ui, all);
                }
            }
        });
    });
}

fn table_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    rows: &[&Bucket],
    selected: Option<&str>,
    commands: &mut Commands,
) {
    let (sort, reversed) = state.view.buckets.sort;
    let header = |ui: &mut egui::Ui, label: &str, column: BucketSort, commands: &mut Commands| {
        if ui.button(RichText::new(label).strong()).clicked() {
            commands.send(BucketsCommand::SortBuckets(column));
        }
        // The order's arrow, in the monospace font (which has it).
        if sort == column {
            ui.label(RichText::new(if reversed { "▲" } else { "▼" }).monospace());
        }
    };
    TableBuilder::new(ui)
        .id_salt("buckets-table")
        .striped(true)
        .sense(egui::Sense::click())
        .column(Column::exact(theme::BUCKETS_COUNT_WIDTH))
        .column(Column::remainder().at_least(160.0).clip(true))
        .column(Column::initial(theme::BUCKETS_FRAME_WIDTH).clip(true))
        .column(Column::exact(theme::BUCKETS_PLATFORM_WIDTH))
        .header(theme::ROW_HEIGHT, |mut h| {
            h.col(|ui| header(ui, "Count", BucketSort::Count, commands));
            h.col(|ui| header(ui, "Title", BucketSort::Title, commands));
            h.col(|ui| header(ui, "Top frame", BucketSort::TopFrame, commands));
            h.col(|ui| header(ui, "Platform", BucketSort::Platform, commands));
        })
        .body(|body| {
            body.rows(theme::ROW_HEIGHT, rows.len(), |mut row| {
                let b = rows[row.index()];
                let fp = b.fingerprint.to_string();
                let is_selected = selected == Some(fp.as_str());
                row.set_selected(is_selected);
                let mut clicked = false;
                row.col(|ui| {
                    clicked |= ui.label(b.count().to_string()).clicked();
                });
                row.col(|ui| {
                    let mut title = b.title().to_owned();
                    if state.workspace.buckets.notes.contains_key(&fp) {
                        title.push_str("  · note");
                    }
                    clicked |= ui.selectable_label(is_selected, title).clicked();
                });
                row.col(|ui| {
                    clicked |= ui.label(RichText::new(b.top_frame()).monospace()).clicked();
                });
                row.col(|ui| {
                    clicked |= ui.label(b.signature.platform.as_str()).clicked();
                });
                if clicked || row.response().clicked() {
                    commands.send(BucketsCommand::SelectBucket((!is_selected).then_some(fp)));
                }
            });
        });
}

fn bucket_detail_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    all: &CrashBuckets,
    b: &Bucket,
    commands: &mut Commands,
) {
    let fp = b.fingerprint.to_string();
    ui.label(RichText::new(b.title()).strong());
    ui.label(
        RichText::new(format!(
            "{} logs · {} · {} · fingerprint {fp}",
            b.count(),
            b.signature.platform.as_str(),
            b.signature.exception
        ))
        .color(theme::MUTED),
    );
    let mut note = state
        .workspace
        .buckets
        .notes
        .get(&fp)
        .cloned()
        .unwrap_or_default();
    let edit = ui
        .horizontal(|ui| {
            let label = ui.label("Note:");
            ui.add(
                egui::TextEdit::singleline(&mut note)
                    .hint_text("what is known about this crash")
                    .desired_width(f32::INFINITY),
            )
            .labelled_by(label.id)
        })
        .inner;
    if edit.changed() {
        commands.send(BucketsCommand::SetBucketNote(fp.clone(), note));
    }
    super::widgets::take_enter(ui, &edit);
    ui.label(
        RichText::new("Logs (click to open; A and B pick two to compare)").color(theme::MUTED),
    );
    let (pick_a, pick_b) = &state.view.buckets.compare_pick;
    // Windowed: a bucket may hold thousands of logs.
    egui::ScrollArea::vertical()
        .id_salt(("bucket-members", &fp))
        .max_height(theme::BUCKET_MEMBERS_HEIGHT)
        .auto_shrink([false, true])
        .show_rows(ui, theme::ROW_HEIGHT, b.members.len(), |ui, range| {
            for &m in &b.members[range] {
                let Some(path) = all.paths.get(m) else {
                    continue;
                };
                ui.horizontal(|ui| {
                    let pick = ComparePick::log(path.clone());
                    let a_on = pick_a.as_ref() == Some(&pick);
                    let b_on = pick_b.as_ref() == Some(&pick);
                    if ui.selectable_label(a_on, "A").clicked() {
                        commands.send(BucketsCommand::PickCompare(false, pick.clone()));
                    }
                    if ui.selectable_label(b_on, "B").clicked() {
                        commands.send(BucketsCommand::PickCompare(true, pick));
                    }
                    if ui.link(member_name(state, path)).clicked() {
                        commands.send(BucketsCommand::OpenCrashLog(path.clone()));
                    }
                });
            }
        });
    ui.label(RichText::new("Signature").color(theme::MUTED));
    for f in &b.signature.frames {
        let function = if f.function.is_empty() {
            "?"
        } else {
            &f.function
        };
        ui.label(RichText::new(format!("{function}  ({})", f.file)).monospace());
    }
}

/// The context-menu entries that pick `pick` as side A or B of a comparison (`what` names
/// it: "this stack", "this log"); B says what it will be compared with.
pub(super) fn compare_menu(
    ui: &mut egui::Ui,
    state: &AppState,
    pick: &ComparePick,
    what: &str,
    commands: &mut Commands,
) {
    if ui
        .button(format!("Compare {what} as A"))
        .on_hover_text("then pick B: a stack, a log, or a bucket's log")
        .clicked()
    {
        commands.send(BucketsCommand::PickCompare(false, pick.clone()));
        ui.close();
    }
    let a = state.view.buckets.compare_pick.0.as_ref();
    let hover = a.map_or_else(
        || "then pick A".to_owned(),
        |a| format!("compared with A: {}", a.label()),
    );
    if ui
        .button(format!("Compare {what} as B"))
        .on_hover_text(hover)
        .clicked()
    {
        commands.send(BucketsCommand::PickCompare(true, pick.clone()));
        ui.close();
    }
}

/// A member's path inside the bucketed folder it was found in (else as it is).
fn member_name(state: &AppState, path: &std::path::Path) -> String {
    let dir = state.workspace_dir();
    state
        .workspace
        .buckets
        .sources
        .iter()
        .find_map(|s| {
            let root = dir.join(s);
            let rel = path.strip_prefix(&root).ok()?;
            let folder = root.file_name()?.to_string_lossy().into_owned();
            Some(format!("{folder}/{}", rel.display()))
        })
        .unwrap_or_else(|| path.display().to_string())
}

fn unreadable_ui(ui: &mut egui::Ui, all: &CrashBuckets) {
    ui.label(RichText::new("Could not be used:").color(theme::WARNING));
    egui::ScrollArea::vertical()
        .id_salt("buckets-unreadable")
        .show(ui, |ui| {
            for (i, error) in &all.unreadable {
                let path = all
                    .paths
                    .get(*i)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                ui.label(format!("{path}: {}", error.reason));
            }
        });
}

/// The comparison of two logs (or two stacks), in a tab: side by side, frames aligned.
pub fn log_compare_ui(ui: &mut egui::Ui, state: &AppState) {
    match &state.view.buckets.log_compare {
        Some(c) => compare_body_ui(ui, c),
        None => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("Comparing…");
            });
        }
    }
}

fn compare_body_ui(ui: &mut egui::Ui, c: &LogCompare) {
    let d = &c.diff;
    let [same, changed, only_a, only_b] = d.counts();
    ui.label(
        RichText::new(format!(
            "{same} same, {changed} changed, {only_a} only in A, {only_b} only in B{}",
            if d.title_changed {
                "; titles differ"
            } else {
                ""
            }
        ))
        .strong(),
    );
    let title = |t: &crate::engine::FrameTable, s: usize| {
        crate::engine::signature::headline(t.stack_title(s))
    };
    egui::Grid::new("log-compare-titles").show(ui, |ui| {
        ui.label(RichText::new(format!("A: {}", c.a.label())).strong());
        ui.label(title(&c.table_a, d.stack_a));
        ui.end_row();
        ui.label(RichText::new(format!("B: {}", c.b.label())).strong());
        let tb = title(&c.table_b, d.stack_b);
        ui.label(if d.title_changed {
            RichText::new(tb).color(theme::WARNING)
        } else {
            RichText::new(tb)
        });
        ui.end_row();
    });
    ui.separator();
    // A side's frame: the function and the file's name with the line (what differs shows
    // in a narrow column), and the whole summary for the tooltip.
    let side = |t: &crate::engine::FrameTable, s: usize, i: Option<usize>| {
        i.and_then(|i| t.frame(s, i))
            .map(|f| (short_summary(&f), crate::engine::report::frame_summary(&f)))
            .unwrap_or_default()
    };
    let half = (ui.available_width() - theme::LOG_COMPARE_MARK_WIDTH) / 2.0;
    egui::ScrollArea::both()
        .id_salt("log-compare-rows")
        .auto_shrink([false, true])
        .max_height(theme::LOG_COMPARE_HEIGHT)
        .show_rows(ui, theme::ROW_HEIGHT, d.rows.len(), |ui, range| {
            for row in &d.rows[range] {
                let (mark, color) = match row.kind() {
                    "same" => ("=", theme::MUTED),
                    "changed" => ("~", theme::WARNING),
                    "only_a" => ("−", theme::ERROR),
                    _ => ("+", theme::RESOLVED),
                };
                let what: Vec<&str> = row.changes.iter().map(|c| c.as_str()).collect();
                ui.horizontal(|ui| {
                    let m = ui.add_sized(
                        [theme::LOG_COMPARE_MARK_WIDTH, theme::ROW_HEIGHT],
                        egui::Label::new(RichText::new(mark).monospace().color(color)),
                    );
                    if !what.is_empty() {
                        m.on_hover_text(format!("differs: {}", what.join(", ")));
                    }
                    for (text, full) in [
                        side(&c.table_a, d.stack_a, row.a),
                        side(&c.table_b, d.stack_b, row.b),
                    ] {
                        let text = RichText::new(text)
                            .monospace()
                            .color(if row.kind() == "same" {
                                theme::TEXT
                            } else {
                                color
                            });
                        // Left-aligned in its half (`add_sized` would centre it).
                        ui.allocate_ui_with_layout(
                            egui::vec2(half, theme::ROW_HEIGHT),
                            egui::Layout::left_to_right(egui::Align::Center),
                            |ui| {
                                ui.set_width(half);
                                let label = ui.add(egui::Label::new(text).truncate());
                                if !full.is_empty() {
                                    label.on_hover_text(RichText::new(full).monospace());
                                }
                            },
                        );
                    }
                });
            }
        });
}

/// A frame in a few words: each function of its inline chain with its file's name and line
/// (a frame not resolved: its line as the log has it).
fn short_summary(frame: &crate::engine::FrameRef<'_>) -> String {
    if frame.status() != Some(crate::model::FrameStatus::Resolved) {
        return frame.raw().trim().to_owned();
    }
    frame
        .locations()
        .map(|l| {
            let file = l.file.unwrap_or("?");
            let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
            format!(
                "{} ({name}:{})",
                l.function.or(l.token_name).unwrap_or("?"),
                l.line.unwrap_or(0)
            )
        })
        .collect::<Vec<_>>()
        .join(" → ")
}
