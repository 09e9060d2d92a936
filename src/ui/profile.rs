//! The profile pane: a CPU profile as a flame chart (time on x), a left-heavy flame graph,
//! call trees top-down and bottom-up (self and total time, sortable, windowed), and two
//! profiles compared by self time. A search highlights matching functions in every view; a
//! range dragged on the flame chart's ruler limits every view to it; a click selects a
//! function, shown below with where its name came from (I opens the segment inspector there).

use super::theme;
use super::timeline::{Timeline, ms};
use crate::app::{
    AppState, Commands, ProfileCommand, ProfileMode, ProfileModel, Selected, TreeSort,
};
use crate::engine::flame::{CallTree, Span};
use crate::model::Weight;
use egui::RichText;

/// The profile pane.
pub(super) fn profile_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    model: Option<&ProfileModel>,
    rows: Option<&[(u32, usize)]>,
    commands: &mut Commands,
) {
    let Some(model) = model else {
        ui.label(
            RichText::new(
                "Drop a .cpuprofile, a Chrome trace, a Hermes profile or a .heapprofile.",
            )
            .weak(),
        );
        return;
    };
    toolbar_ui(ui, state, model, commands);
    selected_ui(ui, state, model, commands);
    ui.separator();
    match model.mode {
        ProfileMode::FlameChart => flame_chart_ui(ui, state, model, commands),
        ProfileMode::FlameGraph => flame_graph_ui(ui, state, model, commands),
        ProfileMode::TopDown | ProfileMode::BottomUp => {
            tree_ui(ui, state, model, rows.unwrap_or_default(), commands)
        }
        ProfileMode::Compare => compare_ui(ui, state, model, commands),
    }
}

/// The profile picker, the views, the search and the range.
fn toolbar_ui(ui: &mut egui::Ui, state: &AppState, model: &ProfileModel, commands: &mut Commands) {
    let view = &state.view.profile;
    ui.horizontal_wrapped(|ui| {
        if model.all.len() > 1 {
            egui::ComboBox::from_id_salt("profile-pick")
                .selected_text(short(&model.profile.label, 48))
                .show_ui(ui, |ui| {
                    for (input, index, label) in &model.all {
                        if ui
                            .selectable_label(model.shown == (*input, *index), label)
                            .clicked()
                        {
                            commands.send(ProfileCommand::Show(*input, *index));
                        }
                    }
                });
        } else {
            ui.label(RichText::new(short(&model.profile.label, 48)).strong());
        }
        ui.separator();
        // A profile without a timeline (allocations) has no flame chart.
        let timed = model.profile.weight() == Weight::Time;
        for mode in ProfileMode::ALL {
            if mode == ProfileMode::FlameChart && !timed {
                continue;
            }
            if ui
                .selectable_label(model.mode == mode, mode.title())
                .clicked()
            {
                commands.send(ProfileCommand::Mode(mode));
            }
        }
        ui.separator();
        let mut search = view.search.clone();
        let r = ui.add(
            egui::TextEdit::singleline(&mut search)
                .hint_text("Search functions")
                .desired_width(theme::FILTER_WIDTH),
        );
        if r.changed() {
            commands.send(ProfileCommand::Search(search));
        }
        let mut hide = view.hide_library;
        if ui
            .checkbox(&mut hide, "Hide library frames")
            .on_hover_text(
                "The flame chart, flame graph and call trees leave library functions out (the \
                 runtime's own, \
                 unmapped node_modules, sources on the map's ignore list); their time counts \
                 for their callers",
            )
            .changed()
        {
            commands.send(ProfileCommand::HideLibrary(hide));
        }
        if let Some((a, b)) = view.range {
            let start = model.profile.chart.start as f64;
            ui.label(format!(
                "Range {} – {} ({})",
                ms(a as f64 - start),
                ms(b as f64 - start),
                ms((b - a) as f64)
            ));
            if ui.small_button("Clear range").clicked() {
                commands.send(ProfileCommand::SetRange(None));
            }
        }
        if model.resolving {
            ui.spinner();
            ui.label(RichText::new("resolving names…").weak());
        }
        let warnings = &model.profile.resolved.profile.warnings;
        if !warnings.is_empty() {
            ui.label(RichText::new(format!("{} warnings", warnings.len())).color(theme::WARNING))
                .on_hover_text(warnings.join("\n"));
        }
    });
}

/// A weight as the profile measures it: time, or bytes allocated.
fn amount(model: &ProfileModel, v: f64) -> String {
    match model.profile.weight() {
        Weight::Time => ms(v),
        Weight::Bytes => {
            let b = super::memory::bytes(v.abs() as u64);
            if v < 0.0 { format!("-{b}") } else { b }
        }
    }
}

/// A label cut to `n` characters.
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_owned();
    }
    let tail: String = s
        .chars()
        .rev()
        .take(n - 1)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("…{tail}")
}

/// Whether a place is faint: a search is on and it does not match.
fn faint(model: &ProfileModel, place: u32) -> bool {
    !model.matches.is_empty() && !model.matches.get(place as usize).copied().unwrap_or(false)
}

/// `file:line:column` of a place (1-based line, 1-based column as editors count).
fn where_text(model: &ProfileModel, place: u32) -> String {
    let p = &model.profile.functions.places[place as usize];
    match (&p.file, p.line) {
        (Some(f), Some(l)) => match p.column {
            Some(c) => format!("{f}:{l}:{}", c + 1),
            None => format!("{f}:{l}"),
        },
        (Some(f), None) => f.clone(),
        _ => String::new(),
    }
}

/// A function's bar colour: by its file (its name when it has none).
fn place_color(functions: &crate::engine::flame::Functions, f: u32) -> egui::Color32 {
    theme::frame_color(
        functions.places[f as usize].file.as_deref(),
        functions.name(f),
    )
}

/// Time on x, depth on y; a click selects, the ruler selects a range.
fn flame_chart_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    model: &ProfileModel,
    commands: &mut Commands,
) {
    let view = &state.view.profile;
    let p = &model.profile;
    let profile = &p.resolved.profile;
    let functions = &p.functions;
    let place = |s: Span| functions.of_node(profile, s.id);
    let (chart, levels) = &model.chart;
    let timeline = Timeline {
        id: "Flame chart",
        rows: chart,
        levels,
        window: view.chart_window,
        range: Some(view.range),
        label: &|_, s| functions.name(place(s)).to_owned(),
        color: &|_, s| place_color(functions, place(s)),
        faint: &|s| faint(model, place(s)),
        selected: &|s| view.selected.is_some_and(|sel| sel.node == Some(s.id)),
        tooltip: &|row, s| {
            let f = place(s);
            format!(
                "{}\n{}\ntotal {} · self {}",
                functions.name(f),
                where_text(model, f),
                ms(s.end.saturating_sub(s.start) as f64),
                ms(chart.self_len(row, s) as f64)
            )
        },
        unit: &ms,
        // With a trace's thread tracks below, the CPU profile leaves them room.
        max_height: if p.tracks.is_empty() {
            theme::PROFILE_BARS_HEIGHT
        } else {
            (ui.available_height() * theme::PROFILE_CPU_SHARE).max(theme::PROFILE_CPU_MIN)
        },
        compact: false,
    };
    let r = timeline.show(ui);
    if let Some(w) = r.window {
        commands.send(ProfileCommand::ChartWindow(w));
    }
    if let Some(range) = r.range {
        commands.send(ProfileCommand::SetRange(range));
    }
    if let Some((_, s)) = r.clicked {
        commands.send(ProfileCommand::Select(Some(Selected {
            function: place(s),
            node: Some(s.id),
        })));
    }
    if !p.tracks.is_empty() {
        tracks_ui(ui, state, model, commands);
    }
}

/// A trace's threads' duration events, each thread a track under the CPU profile, on its
/// clock and window.
fn tracks_ui(ui: &mut egui::Ui, state: &AppState, model: &ProfileModel, commands: &mut Commands) {
    let view = &state.view.profile;
    let needle = view.search.trim().to_lowercase();
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("profile-tracks")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for track in model.profile.tracks.iter() {
                ui.label(RichText::new(&track.label).small().strong());
                let names = &track.names;
                let name = |s: Span| names.get(s.id as usize).map_or("", String::as_str);
                let id = format!("Track {}", track.label);
                let timeline = Timeline {
                    id: &id,
                    rows: &track.rows,
                    levels: &[],
                    window: view.chart_window,
                    range: Some(view.range),
                    label: &|_, s| name(s).to_owned(),
                    color: &|_, s| theme::frame_color(None, name(s)),
                    faint: &|s| !needle.is_empty() && !name(s).to_lowercase().contains(&needle),
                    selected: &|_| false,
                    tooltip: &|_, s| {
                        format!("{}\n{}", name(s), ms(s.end.saturating_sub(s.start) as f64))
                    },
                    unit: &ms,
                    max_height: f32::INFINITY,
                    compact: true,
                };
                if let Some(w) = timeline.show(ui).window {
                    commands.send(ProfileCommand::ChartWindow(w));
                }
            }
        });
}

/// The top-down tree as a left-heavy flame graph.
fn flame_graph_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    model: &ProfileModel,
    commands: &mut Commands,
) {
    let (Some(tree), Some(graph)) = (&model.tree, &model.graph) else {
        return;
    };
    let view = &state.view.profile;
    let functions = &model.profile.functions;
    let place = |s: Span| tree.nodes[s.id as usize].function;
    let total = tree.total_us.max(1) as f64;
    let timeline = Timeline {
        id: "Flame graph",
        rows: graph,
        levels: &[],
        window: view.graph_window,
        range: None,
        label: &|_, s| functions.name(place(s)).to_owned(),
        color: &|_, s| place_color(functions, place(s)),
        faint: &|s| faint(model, place(s)),
        selected: &|s| {
            view.selected
                .is_some_and(|sel| sel.node.is_none() && sel.function == place(s))
        },
        tooltip: &|_, s| {
            let n = &tree.nodes[s.id as usize];
            format!(
                "{}\n{}\ntotal {} ({:.1}%) · self {}",
                functions.name(n.function),
                where_text(model, n.function),
                amount(model, n.total_us as f64),
                100.0 * n.total_us as f64 / total,
                amount(model, n.self_us as f64)
            )
        },
        unit: &|v| amount(model, v),
        max_height: theme::PROFILE_BARS_HEIGHT,
        compact: false,
    };
    let r = timeline.show(ui);
    if let Some(w) = r.window {
        commands.send(ProfileCommand::GraphWindow(w));
    }
    if let Some((_, s)) = r.clicked {
        commands.send(ProfileCommand::Select(Some(Selected {
            function: place(s),
            node: None,
        })));
    }
}

/// The call tree (top-down or bottom-up): a windowed table of self and total time.
fn tree_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    model: &ProfileModel,
    rows: &[(u32, usize)],
    commands: &mut Commands,
) {
    let Some(tree) = &model.tree else {
        return;
    };
    let view = &state.view.profile;
    let total = tree.total_us.max(1) as f64;
    let bytes = model.profile.weight() == Weight::Bytes;
    ui.horizontal(|ui| {
        for (sort, title) in [
            (
                TreeSort::SelfTime,
                if bytes { "Self size" } else { "Self time" },
            ),
            (
                TreeSort::Total,
                if bytes { "Total size" } else { "Total time" },
            ),
            (TreeSort::Name, "Function"),
        ] {
            let w = if sort == TreeSort::Name {
                ui.available_width()
            } else {
                theme::PROFILE_TIME_WIDTH
            };
            let text = if view.sort == sort {
                RichText::new(title).strong().underline()
            } else {
                RichText::new(title)
            };
            if ui
                .add_sized([w, theme::ROW_HEIGHT], egui::Button::new(text).frame(false))
                .clicked()
            {
                commands.send(ProfileCommand::Sort(sort));
            }
        }
    });
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("profile-tree")
        .auto_shrink([false, false])
        .show_rows(ui, theme::ROW_HEIGHT, rows.len(), |ui, visible| {
            for &(id, depth) in &rows[visible] {
                tree_row_ui(ui, state, model, tree, id, depth, total, commands);
            }
        });
}

/// One row of the call tree.
#[allow(clippy::too_many_arguments)]
fn tree_row_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    model: &ProfileModel,
    tree: &CallTree,
    id: u32,
    depth: usize,
    total: f64,
    commands: &mut Commands,
) {
    let view = &state.view.profile;
    let functions = &model.profile.functions;
    let node = &tree.nodes[id as usize];
    let path = tree.path(id);
    ui.horizontal(|ui| {
        ui.set_height(theme::ROW_HEIGHT);
        let time = |ui: &mut egui::Ui, us: i64| {
            ui.add_sized(
                [theme::PROFILE_TIME_WIDTH, theme::ROW_HEIGHT],
                egui::Label::new(
                    RichText::new(format!(
                        "{}  {:>5.1}%",
                        amount(model, us as f64),
                        100.0 * us as f64 / total
                    ))
                    .monospace(),
                ),
            );
        };
        time(ui, node.self_us);
        time(ui, node.total_us);
        ui.add_space(depth as f32 * theme::PROFILE_INDENT);
        if node.children.is_empty() {
            ui.add_space(theme::PROFILE_INDENT + 4.0);
        } else {
            let open = view.expanded.contains(&path);
            if ui
                .add(
                    egui::Button::new(RichText::new(if open { "▼" } else { "▶" }).monospace())
                        .frame(false)
                        .small(),
                )
                .clicked()
            {
                commands.send(ProfileCommand::Toggle(path.clone()));
            }
        }
        let mut name = RichText::new(functions.name(node.function));
        if !model.matches.is_empty() && !faint(model, node.function) {
            name = name.background_color(theme::SOURCE_HIGHLIGHT).strong();
        }
        let selected = view
            .selected
            .is_some_and(|s| s.node.is_none() && s.function == node.function);
        if ui.selectable_label(selected, name).clicked() {
            commands.send(ProfileCommand::Select(Some(Selected {
                function: node.function,
                node: None,
            })));
        }
        ui.label(
            RichText::new(where_text(model, node.function))
                .weak()
                .small(),
        );
    });
}

/// Functions by change in self time against another profile.
fn compare_ui(ui: &mut egui::Ui, state: &AppState, model: &ProfileModel, commands: &mut Commands) {
    let view = &state.view.profile;
    let others = &model.comparable;
    if others.is_empty() {
        ui.label(RichText::new("Load a second profile to compare this one with.").weak());
        return;
    }
    ui.horizontal(|ui| {
        ui.label("Compare with");
        let current = view
            .compare_with
            .and_then(|c| model.all.iter().find(|(i, n, _)| (*i, *n) == c))
            .map_or("…".to_owned(), |(_, _, l)| short(l, 48));
        egui::ComboBox::from_id_salt("profile-compare")
            .selected_text(current)
            .show_ui(ui, |ui| {
                for (input, index, label) in others {
                    if ui
                        .selectable_label(view.compare_with == Some((*input, *index)), label)
                        .clicked()
                    {
                        commands.send(ProfileCommand::CompareWith(Some((*input, *index))));
                    }
                }
            });
        ui.label(RichText::new("(this profile is A, the other B)").weak());
        ui.separator();
        for (graph, title) in [(false, "Functions"), (true, "Differential flame graph")] {
            if ui
                .selectable_label(view.compare_graph == graph, title)
                .clicked()
            {
                commands.send(ProfileCommand::CompareGraph(graph));
            }
        }
    });
    if view.compare_graph {
        if let Some(diff) = &model.diff {
            diff_graph_ui(ui, state, model, diff, commands);
        }
        return;
    }
    let Some(rows) = &model.compare else {
        return;
    };
    ui.separator();
    let w = theme::PROFILE_TIME_WIDTH;
    ui.horizontal(|ui| {
        for t in ["Δ self", "Self A", "Self B"] {
            ui.add_sized(
                [w, theme::ROW_HEIGHT],
                egui::Label::new(RichText::new(t).strong()),
            );
        }
        ui.label(RichText::new("Function").strong());
    });
    egui::ScrollArea::vertical()
        .id_salt("profile-compare-rows")
        .auto_shrink([false, false])
        .show_rows(ui, theme::ROW_HEIGHT, rows.len(), |ui, visible| {
            for row in &rows[visible] {
                ui.horizontal(|ui| {
                    let d = row.delta();
                    let color = if d > 0 {
                        theme::SLOWER
                    } else if d < 0 {
                        theme::FASTER
                    } else {
                        theme::MUTED
                    };
                    let sign = if d > 0 { "+" } else { "" };
                    ui.add_sized(
                        [w, theme::ROW_HEIGHT],
                        egui::Label::new(
                            RichText::new(format!("{sign}{}", amount(model, d as f64)))
                                .monospace()
                                .color(color),
                        ),
                    );
                    for v in [row.self_a, row.self_b] {
                        ui.add_sized(
                            [w, theme::ROW_HEIGHT],
                            egui::Label::new(RichText::new(amount(model, v as f64)).monospace()),
                        );
                    }
                    let name = row.place.function.as_deref().unwrap_or("(anonymous)");
                    let tag = match (row.total_a, row.total_b) {
                        (0, _) => " (new)",
                        (_, 0) => " (gone)",
                        _ => "",
                    };
                    ui.label(format!("{name}{tag}"));
                    if let Some(f) = &row.place.file {
                        ui.label(RichText::new(f).weak().small());
                    }
                });
            }
        });
}

/// The selected function: where it is, how it was named, the inspector one key away.
fn selected_ui(ui: &mut egui::Ui, state: &AppState, model: &ProfileModel, commands: &mut Commands) {
    let Some(sel) = state.view.profile.selected else {
        ui.label(RichText::new("Click a function to see where it is and how it was named.").weak());
        return;
    };
    let p = &model.profile;
    let Some(place) = p.functions.places.get(sel.function as usize) else {
        return;
    };
    let loc = match sel.node {
        Some(n) => p.resolved.profile.nodes.get(n as usize).map(|n| n.location),
        None => p
            .functions
            .of_location
            .iter()
            .position(|&f| f == sel.function)
            .map(|l| l as u32),
    };
    let frame = loc.and_then(|l| p.resolved.frame(l));
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(p.functions.name(sel.function)).strong());
        ui.label(where_text(model, sel.function));
        if let Some(l) = loc.and_then(|l| p.resolved.profile.locations.get(l as usize)) {
            let function = if l.function.is_empty() {
                "(anonymous)"
            } else {
                &l.function
            };
            // A native sample's column is its address; a JIT's Java method has none.
            let recorded = match (p.resolved.profile.native, l.column) {
                (true, c) if c >= 0 => format!("recorded: {function} ({}) at {c:#x}", l.url),
                (true, _) => format!("recorded: {function} ({})", l.url),
                (false, _) => format!(
                    "recorded: {function} {}:{}:{}",
                    l.url,
                    l.line + 1,
                    l.column + 1
                ),
            };
            ui.label(RichText::new(recorded).weak().small());
        }
    });
    ui.horizontal_wrapped(|ui| {
        if let Some(f) = &frame {
            if let Some(status) = f.status() {
                ui.colored_label(
                    theme::status_color(status),
                    status.as_str().replace('_', " "),
                );
            }
            if let Some(note) = f.note() {
                ui.label(RichText::new(note).weak());
            }
            if let Some(file) = f.symbol_file() {
                ui.label(RichText::new(format!("via {file}")).weak().small());
            }
            let inspectable = f.symbol_file().is_some() && f.generated().is_some();
            if inspectable
                && (ui.button("Inspect segment (I)").clicked()
                    || ui.input(|i| i.key_pressed(egui::Key::I) && i.modifiers.is_none())
                        && !ui.ctx().egui_wants_keyboard_input())
            {
                commands.send(ProfileCommand::InspectSelected);
            }
        } else if place.file.is_none() {
            ui.label(RichText::new("The engine's own entry: no script to resolve.").weak());
        }
    });
}

/// B's call tree as a flame graph, each bar coloured by its change against the same call
/// path in A: red slower, blue faster, as strong as the change is large.
fn diff_graph_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    model: &ProfileModel,
    diff: &crate::app::DiffGraph,
    commands: &mut Commands,
) {
    let view = &state.view.profile;
    let functions = &diff.functions;
    let needle = view.search.trim().to_lowercase();
    let node = |s: Span| &diff.tree.nodes[s.id as usize];
    let delta = |s: Span| diff.deltas.get(s.id as usize).copied().unwrap_or(0);
    let timeline = Timeline {
        id: "Differential flame graph",
        rows: &diff.rows,
        levels: &[],
        window: view.graph_window,
        range: None,
        label: &|_, s| functions.name(node(s).function).to_owned(),
        color: &|_, s| theme::diff_color(delta(s), diff.largest),
        faint: &|s| {
            !model.matches.is_empty()
                && !functions
                    .name(node(s).function)
                    .to_lowercase()
                    .contains(&needle)
        },
        selected: &|_| false,
        tooltip: &|_, s| {
            let n = node(s);
            let d = delta(s);
            let what = if d >= n.total_us && d > 0 {
                "new in B".to_owned()
            } else {
                format!(
                    "{}{} against A",
                    if d > 0 { "+" } else { "" },
                    amount(model, d as f64)
                )
            };
            format!(
                "{}\n{}\nB total {} · {what}",
                functions.name(n.function),
                functions.places[n.function as usize]
                    .file
                    .as_deref()
                    .unwrap_or_default(),
                amount(model, n.total_us as f64)
            )
        },
        unit: &|v| amount(model, v),
        max_height: theme::PROFILE_BARS_HEIGHT,
        compact: false,
    };
    if let Some(w) = timeline.show(ui).window {
        commands.send(ProfileCommand::GraphWindow(w));
    }
}
