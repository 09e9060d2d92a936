//! The timing panel: the finished jobs on the app's clock, each split into its phases, drawn
//! by the same timeline widget as a profile's flame chart (zoom, pan, exact figures on
//! hover), and the phases as a table.

use super::theme;
use super::timeline::{Timeline, ms};
use crate::app::AppState;
use crate::engine::flame::{Rows, Span};
use egui::RichText;

/// The jobs' timeline and their phases as a table. What does not fit its tile scrolls
/// inside it.
pub(super) fn timing_panel_ui(ui: &mut egui::Ui, state: &AppState) {
    timeline_ui(ui, state);
    ui.separator();
    egui::ScrollArea::both()
        .id_salt("timing-scroll")
        .show(ui, |ui| timing_table_ui(ui, state));
}

/// The jobs on the app's clock, drawn by the timeline widget every track uses: a job's bar
/// with its phases under it, jobs that overlap in lanes of their own.
fn timeline_ui(ui: &mut egui::Ui, state: &AppState) {
    let jobs: Vec<&crate::app::JobTiming> = state.timings.iter().rev().take(40).collect();
    if jobs.is_empty() {
        ui.label(RichText::new("No job has finished yet.").weak());
        return;
    }
    let (rows, labels) = job_rows(&jobs);
    let window_id = ui.make_persistent_id("timing-window");
    let window = ui
        .data(|d| d.get_temp::<Option<(f64, f64)>>(window_id))
        .flatten();
    let timeline = Timeline {
        id: "Jobs",
        rows: &rows,
        levels: &[],
        window,
        range: None,
        label: &|_, s| labels[s.id as usize].0.clone(),
        color: &|_, s| labels[s.id as usize].1,
        faint: &|_| false,
        selected: &|_| false,
        tooltip: &|_, s| {
            format!(
                "{}: {:.3} ms",
                labels[s.id as usize].0,
                s.end.saturating_sub(s.start) as f64 / 1e3
            )
        },
        unit: &ms,
        max_height: theme::TIMING_BARS_HEIGHT,
        compact: false,
    };
    if let Some(w) = timeline.show(ui).window {
        ui.data_mut(|d| d.insert_temp(window_id, w));
    }
}

/// The jobs as rows of bars (µs on the app's clock): each lane a row of jobs and a row of
/// their phases; each bar's label and colour by its id.
fn job_rows(jobs: &[&crate::app::JobTiming]) -> (Rows, Vec<(String, egui::Color32)>) {
    let mut labels = Vec::new();
    let mut lanes: Vec<i64> = Vec::new();
    let mut rows: Vec<Vec<Span>> = Vec::new();
    let mut placed: Vec<(i64, &crate::app::JobTiming)> = jobs
        .iter()
        .map(|t| {
            let end = (t.end_ns / 1000) as i64;
            (end - t.elapsed.as_micros() as i64, *t)
        })
        .collect();
    placed.sort_by_key(|&(start, _)| start);
    for (start, t) in placed {
        let end = start + (t.elapsed.as_micros() as i64).max(1);
        let lane = match lanes.iter().position(|&free| free <= start) {
            Some(l) => l,
            None => {
                lanes.push(0);
                lanes.len() - 1
            }
        };
        lanes[lane] = end;
        if rows.len() < 2 * lane + 2 {
            rows.resize_with(2 * lane + 2, Vec::new);
        }
        labels.push((t.name.clone(), theme::TIMING_JOB));
        rows[2 * lane].push(Span {
            start,
            end,
            id: labels.len() as u32 - 1,
        });
        for p in &t.spans {
            let (a, b) = (
                start + (p.start_ns / 1000) as i64,
                start + (p.end_ns / 1000) as i64,
            );
            labels.push((p.phase.clone(), theme::color_for(&p.phase)));
            rows[2 * lane + 1].push(Span {
                start: a,
                end: b.max(a + 1),
                id: labels.len() as u32 - 1,
            });
        }
    }
    for row in &mut rows {
        row.sort_by_key(|s| s.start);
        // Phases of one job never overlap; clipping keeps the widget's rule if rounding did.
        for i in 1..row.len() {
            if row[i].start < row[i - 1].end {
                row[i].start = row[i - 1].end.min(row[i].end - 1);
            }
        }
    }
    let start = rows.iter().flatten().map(|s| s.start).min().unwrap_or(0);
    let end = rows.iter().flatten().map(|s| s.end).max().unwrap_or(1);
    (Rows { rows, start, end }, labels)
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
