//! The Memory pane: a heap snapshot's Summary by constructor as a windowed table (count,
//! self and retained size; sort, filter), minified classes shown by their original names; a
//! class opens to its largest objects, an object to its retainers, its retaining path from
//! the root and the objects it dominates; a class's definition opens in the segment inspector
//! (right-click). With two snapshots open, one is compared with the other by node id
//! (DevTools' Comparison view); a timeline's allocation stacks open in the profile views.

use super::theme;
use crate::app::{
    AppState, Commands, LoadedHeap, MemoryCommand, MemoryModel, MemorySort, ObjectDetail,
};
use crate::engine::heap::Heap;
use egui::RichText;

/// The Memory pane.
pub(super) fn memory_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    model: Option<&MemoryModel>,
    commands: &mut Commands,
) {
    let Some(model) = model else {
        ui.label(
            RichText::new("Drop a .heapsnapshot (v8.writeHeapSnapshot, DevTools' Memory panel).")
                .weak(),
        );
        return;
    };
    let view = &state.view.memory;
    let heap = &model.heap;
    let h = &heap.heap;
    ui.horizontal_wrapped(|ui| {
        ui.label(format!(
            "{} objects · {} · retained sizes as DevTools computes them",
            h.node_count(),
            bytes(h.total_size())
        ));
        let mut filter = view.filter.clone();
        if ui
            .add(
                egui::TextEdit::singleline(&mut filter)
                    .hint_text("Filter constructors")
                    .desired_width(theme::FILTER_WIDTH),
            )
            .changed()
        {
            commands.send(MemoryCommand::Filter(filter));
        }
        if !model.others.is_empty() {
            ui.separator();
            // Few snapshots are open at once: a button each, as the profile views' tabs.
            if ui
                .selectable_label(view.compare_with.is_none(), "Summary")
                .clicked()
            {
                commands.send(MemoryCommand::CompareWith(None));
            }
            for (input, name) in &model.others {
                if ui
                    .selectable_label(
                        view.compare_with == Some(*input),
                        format!("Compared with {name}"),
                    )
                    .on_hover_text("Objects added and freed since that snapshot, by node id")
                    .clicked()
                {
                    commands.send(MemoryCommand::CompareWith(Some(*input)));
                }
            }
        }
        if heap.allocations.is_some() {
            ui.separator();
            if ui
                .button("Allocation stacks")
                .on_hover_text(
                    "The timeline's allocation stacks by bytes allocated, in the profile views: \
                     flame graph, call trees",
                )
                .clicked()
            {
                commands.send(crate::app::ProfileCommand::Show(model.input, 0));
            }
        }
    });
    ui.separator();
    if view.compare_with.is_some() {
        compare_ui(ui, state, model, commands);
        return;
    }
    let name_w = name_width(ui, 3.0);
    header_ui(ui, state, name_w, commands);
    let lines = &model.lines;
    let height = if model.detail.is_some() {
        ui.available_height() * 0.6
    } else {
        ui.available_height()
    };
    egui::ScrollArea::vertical()
        .id_salt("memory-summary")
        .max_height(height)
        .auto_shrink([false, false])
        .show_rows(ui, theme::ROW_HEIGHT, lines.len(), |ui, visible| {
            for &(i, object) in &lines[visible] {
                match object {
                    None => class_row_ui(ui, state, heap, i, name_w, commands),
                    Some(o) => {
                        object_row_ui(ui, state, h, heap.classes[i].name(), o, name_w, commands)
                    }
                }
            }
        });
    if let Some(detail) = &model.detail {
        ui.separator();
        object_detail_ui(ui, heap, detail, commands);
    }
}

/// The name column's width: what `numbers` number columns leave, up to its width.
fn name_width(ui: &egui::Ui, numbers: f32) -> f32 {
    let gap = ui.spacing().item_spacing.x;
    (ui.available_width()
        - numbers * (theme::MEMORY_NUMBER_WIDTH + gap)
        - ui.spacing().scroll.bar_width
        - gap)
        .clamp(theme::MEMORY_NAME_MIN, theme::MEMORY_NAME_WIDTH)
}

/// The shown snapshot against its baseline, by node id: per class the objects and bytes
/// added and freed (DevTools' Comparison view), a class opening to its new objects.
fn compare_ui(ui: &mut egui::Ui, state: &AppState, model: &MemoryModel, commands: &mut Commands) {
    let Some(c) = &model.compare else {
        ui.horizontal(|ui| {
            if model.comparing {
                ui.spinner();
                ui.label(RichText::new("comparing the snapshots by node id…").weak());
            } else {
                ui.label(RichText::new("Pick the snapshot to compare with.").weak());
            }
        });
        return;
    };
    let h = &model.heap.heap;
    // Six number columns: narrower before the names get too narrow.
    let gap = ui.spacing().item_spacing.x;
    let room = ui.available_width() - ui.spacing().scroll.bar_width - gap;
    let num_w = ((room - theme::MEMORY_NAME_MIN) / 6.0 - gap)
        .clamp(theme::MEMORY_NUMBER_MIN, theme::MEMORY_NUMBER_WIDTH);
    let name_w =
        (room - 6.0 * (num_w + gap)).clamp(theme::MEMORY_NAME_MIN, theme::MEMORY_NAME_WIDTH);
    ui.horizontal(|ui| {
        name_cell(ui, name_w, |ui| ui.strong("Constructor"));
        for title in [
            "New",
            "Deleted",
            "Delta",
            "Alloc. size",
            "Freed size",
            "Size delta",
        ] {
            number_cell(ui, num_w, RichText::new(title).strong());
        }
    });
    egui::ScrollArea::vertical()
        .id_salt("memory-compare")
        .auto_shrink([false, false])
        .max_height(if model.detail.is_some() {
            ui.available_height() * 0.6
        } else {
            ui.available_height()
        })
        .show_rows(
            ui,
            theme::ROW_HEIGHT,
            model.compare_lines.len(),
            |ui, visible| {
                for &(i, object) in &model.compare_lines[visible] {
                    let name = &model.compare_names[i];
                    if let Some(o) = object {
                        object_row_ui(ui, state, h, name, o, name_w, commands);
                        continue;
                    }
                    let change = &c.changes[i];
                    let open = state.view.memory.expanded == Some(i as u32);
                    ui.horizontal(|ui| {
                        ui.set_height(theme::ROW_HEIGHT);
                        let mut label = format!("{} {name}", if open { "▼" } else { "▶" });
                        if *name != change.name {
                            label.push_str(&format!("  (was {})", change.name));
                        }
                        let r = name_cell(ui, name_w, |ui| {
                            ui.add(
                                egui::Button::new(RichText::new(label).monospace())
                                    .frame(false)
                                    .truncate(),
                            )
                        });
                        if r.clicked() && !change.new_objects.is_empty() {
                            commands.send(MemoryCommand::Toggle(i as u32));
                        }
                        let signed = |d: i64, text: String| {
                            let color = match d.signum() {
                                1 => theme::SLOWER,
                                -1 => theme::FASTER,
                                _ => theme::MUTED,
                            };
                            RichText::new(text).monospace().color(color)
                        };
                        let delta = change.added as i64 - change.freed as i64;
                        let plain = |t: String| RichText::new(t).monospace();
                        number_cell(ui, num_w, plain(counted(change.added, '+')));
                        number_cell(ui, num_w, plain(counted(change.freed, '-')));
                        number_cell(ui, num_w, signed(delta, format!("{delta:+}")));
                        number_cell(ui, num_w, plain(bytes(change.added_size)));
                        number_cell(ui, num_w, plain(bytes(change.freed_size)));
                        let d = change.delta();
                        let text = if d < 0 {
                            format!("-{}", bytes(d.unsigned_abs()))
                        } else {
                            format!("+{}", bytes(d as u64))
                        };
                        number_cell(ui, num_w, signed(d, text));
                    });
                }
            },
        );
    if let Some(detail) = &model.detail {
        ui.separator();
        object_detail_ui(ui, &model.heap, detail, commands);
    }
}

/// The table's header: each column sorts.
fn header_ui(ui: &mut egui::Ui, state: &AppState, name_w: f32, commands: &mut Commands) {
    let view = &state.view.memory;
    ui.horizontal(|ui| {
        for (sort, title) in [
            (MemorySort::Name, "Constructor"),
            (MemorySort::Count, "Count"),
            (MemorySort::SelfSize, "Self size"),
            (MemorySort::Retained, "Retained size"),
        ] {
            let w = if sort == MemorySort::Name {
                name_w
            } else {
                theme::MEMORY_NUMBER_WIDTH
            };
            let text = if view.sort == sort {
                RichText::new(title).strong().underline()
            } else {
                RichText::new(title)
            };
            let layout = if sort == MemorySort::Name {
                egui::Layout::left_to_right(egui::Align::Center)
            } else {
                egui::Layout::right_to_left(egui::Align::Center)
            };
            let clicked = ui
                .allocate_ui_with_layout(egui::vec2(w, theme::ROW_HEIGHT), layout, |ui| {
                    ui.set_min_width(w);
                    ui.add(egui::Button::new(text).frame(false)).clicked()
                })
                .inner;
            if clicked {
                commands.send(MemoryCommand::Sort(sort));
            }
        }
    });
}

/// One class of the Summary.
fn class_row_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    heap: &LoadedHeap,
    i: usize,
    name_w: f32,
    commands: &mut Commands,
) {
    let c = &heap.classes[i];
    let open = state.view.memory.expanded == Some(c.row.class);
    ui.horizontal(|ui| {
        ui.set_height(theme::ROW_HEIGHT);
        let mut name = format!("{} {}", if open { "▼" } else { "▶" }, c.name());
        if c.name() != c.row.name {
            name.push_str(&format!("  (was {})", c.row.name));
        }
        let r = name_cell(ui, name_w, |ui| {
            ui.add(
                egui::Button::new(RichText::new(name).monospace())
                    .frame(false)
                    .truncate(),
            )
        });
        let r = match c.original.as_ref() {
            Some(p) => r.on_hover_text(format!(
                "{}:{} (right-click: open in the segment inspector)",
                p.file.as_deref().unwrap_or("?"),
                p.line.unwrap_or(0)
            )),
            None => r,
        };
        if r.clicked() {
            commands.send(MemoryCommand::Toggle(c.row.class));
        }
        if c.looked_up.is_some() {
            r.context_menu(|ui| {
                if ui
                    .button("Open the definition in the segment inspector")
                    .clicked()
                {
                    commands.send(MemoryCommand::Inspect(i));
                    ui.close();
                }
            });
        }
        number(ui, c.row.count.to_string());
        number(ui, bytes(c.row.self_size));
        number(ui, bytes(c.row.retained_size));
    });
}

/// One object of an opened class.
fn object_row_ui(
    ui: &mut egui::Ui,
    state: &AppState,
    h: &Heap,
    name: &str,
    o: u32,
    name_w: f32,
    commands: &mut Commands,
) {
    ui.horizontal(|ui| {
        ui.set_height(theme::ROW_HEIGHT);
        let selected = state.view.memory.selected == Some(o);
        let r = name_cell(ui, name_w, |ui| {
            ui.add_space(theme::PROFILE_INDENT * 2.0);
            ui.add(
                egui::Button::selectable(
                    selected,
                    RichText::new(format!("{name} @{}", h.id(o))).monospace(),
                )
                .truncate(),
            )
        });
        if r.clicked() {
            commands.send(MemoryCommand::Select((!selected).then_some(o)));
        }
        number(ui, String::new());
        number(ui, bytes(h.self_size(o)));
        number(ui, bytes(h.retained_size(o)));
    });
}

/// The selected object: its retaining path from the root, its retainers, what it dominates.
fn object_detail_ui(
    ui: &mut egui::Ui,
    heap: &LoadedHeap,
    detail: &ObjectDetail,
    commands: &mut Commands,
) {
    let h = &heap.heap;
    let node = detail.node;
    // Classes by the names the Summary shows (original where the maps name them).
    let names: std::collections::HashMap<&str, &str> = heap
        .classes
        .iter()
        .map(|c| (c.row.name.as_str(), c.name()))
        .collect();
    let class = |n: u32| {
        let raw = h.class_name(n);
        names.get(raw).copied().unwrap_or(raw)
    };
    egui::ScrollArea::vertical()
        .id_salt("memory-object")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.label(
                RichText::new(format!(
                    "{} @{}: self {}, retained {}",
                    class(node),
                    h.id(node),
                    bytes(h.self_size(node)),
                    bytes(h.retained_size(node))
                ))
                .strong(),
            );
            if let Some(path) = &detail.path {
                let steps: Vec<String> = path
                    .iter()
                    .map(|&e| format!("{} {}", h.edge_name(e), class(h.edge_to(e))))
                    .collect();
                ui.label(format!("Retained through: (root) > {}", steps.join(" > ")));
            }
            ui.label(RichText::new("Retainers").strong());
            for &e in &detail.retainers {
                let from = h.edge_from(e);
                if ui
                    .link(format!(
                        "{} `{}` of {} @{} ({})",
                        h.edge_type(e),
                        h.edge_name(e),
                        class(from),
                        h.id(from),
                        bytes(h.retained_size(from))
                    ))
                    .clicked()
                {
                    commands.send(MemoryCommand::Select(Some(from)));
                }
            }
            ui.label(RichText::new("Dominates").strong());
            for &d in &detail.dominated {
                if ui
                    .link(format!(
                        "{} @{} ({})",
                        class(d),
                        h.id(d),
                        bytes(h.retained_size(d))
                    ))
                    .clicked()
                {
                    commands.send(MemoryCommand::Select(Some(d)));
                }
            }
        });
}

/// A number, right-aligned in its column.
fn number(ui: &mut egui::Ui, text: String) {
    number_rich(ui, RichText::new(text).monospace());
}

/// A number cell with its own colour.
fn number_rich(ui: &mut egui::Ui, text: RichText) {
    number_cell(ui, theme::MEMORY_NUMBER_WIDTH, text);
}

/// A number cell `width` wide.
fn number_cell(ui: &mut egui::Ui, width: f32, text: RichText) {
    ui.allocate_ui_with_layout(
        egui::vec2(width, theme::ROW_HEIGHT),
        egui::Layout::right_to_left(egui::Align::Center),
        |ui| {
            ui.set_min_width(width);
            ui.label(text)
        },
    );
}

/// A count of objects added (`+`) or freed (`-`): its sign, or `0`.
fn counted(n: u64, sign: char) -> String {
    if n == 0 {
        "0".to_owned()
    } else {
        format!("{sign}{n}")
    }
}

/// A name, left-aligned in the first column.
fn name_cell(
    ui: &mut egui::Ui,
    width: f32,
    add: impl FnOnce(&mut egui::Ui) -> egui::Response,
) -> egui::Response {
    ui.allocate_ui_with_layout(
        egui::vec2(width, theme::ROW_HEIGHT),
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| {
            ui.set_min_width(width);
            ui.set_max_width(width);
            add(ui)
        },
    )
    .inner
}

/// Bytes as DevTools shows them (B, kB, MB).
pub(super) fn bytes(b: u64) -> String {
    match b {
        0..1_000 => format!("{b} B"),
        1_000..1_000_000 => format!("{:.1} kB", b as f64 / 1e3),
        _ => format!("{:.1} MB", b as f64 / 1e6),
    }
}
