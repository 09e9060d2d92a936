//! Heap snapshots in the window: the Memory pane's state and commands. A snapshot shows its
//! Summary as soon as it is read (classes named as recorded); a job names the classes
//! through the symbol files, and again when they change.

use super::{AppState, InputId, Loaded, LoadedHeap};
use std::sync::Arc;

/// What the Memory pane shows.
#[derive(Clone, Debug, Default)]
pub struct MemoryView {
    /// The snapshot shown.
    pub shown: Option<InputId>,
    /// The pane was closed.
    pub closed: bool,
    /// Classes whose name contains this (case-insensitive).
    pub filter: String,
    /// The order of the classes.
    pub sort: MemorySort,
    /// The class opened to its objects (by [`crate::engine::heap::ClassRow::class`]; when
    /// comparing, the change opened to its new objects, by its index).
    pub expanded: Option<u32>,
    /// The object selected: its retainers, path from the root and what it dominates show.
    pub selected: Option<u32>,
    /// The snapshot the shown one is compared with (its baseline), by node id.
    pub compare_with: Option<InputId>,
}

/// Two snapshots compared by node id, and which (their graphs, not kept alive: a snapshot
/// named again keeps its graph, so its comparison stands).
#[derive(Debug)]
pub struct HeapComparison {
    /// The later snapshot's graph.
    pub after: std::sync::Weak<crate::engine::heap::Heap>,
    /// The baseline's graph.
    pub before: std::sync::Weak<crate::engine::heap::Heap>,
    /// Per class: added and freed objects and bytes, by added less freed bytes.
    pub changes: Vec<crate::engine::heap::ClassChange>,
}

/// An order of the Summary's classes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemorySort {
    /// Largest retained size first (DevTools' default).
    #[default]
    Retained,
    /// Largest self size first.
    SelfSize,
    /// Most objects first.
    Count,
    /// By name.
    Name,
}

/// A request for the Memory pane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemoryCommand {
    /// Filter the classes.
    Filter(String),
    /// Order the classes.
    Sort(MemorySort),
    /// Open a class to its objects (again: close it).
    Toggle(u32),
    /// Select an object.
    Select(Option<u32>),
    /// Compare the shown snapshot with this one (its baseline), or stop comparing.
    CompareWith(Option<InputId>),
    /// Open the segment inspector where a class (an index into the shown snapshot's
    /// classes) is defined: its generated code and original source.
    Inspect(usize),
}

impl AppState {
    /// The snapshot the Memory pane shows, and its input.
    pub fn shown_heap(&self) -> Option<(InputId, Arc<LoadedHeap>)> {
        let id = self.view.memory.shown?;
        self.inputs
            .iter()
            .find(|e| e.id == id)
            .and_then(|e| match &e.loaded {
                Some(Loaded::Heap(h)) => Some((id, h.clone())),
                _ => None,
            })
    }

    /// Applies a request for the Memory pane.
    pub(super) fn apply_memory(&mut self, c: MemoryCommand) {
        let view = &mut self.view.memory;
        match c {
            MemoryCommand::Filter(f) => view.filter = f,
            MemoryCommand::Sort(s) => view.sort = s,
            MemoryCommand::Toggle(class) => {
                view.expanded = (view.expanded != Some(class)).then_some(class);
            }
            MemoryCommand::Select(node) => view.selected = node,
            MemoryCommand::Inspect(i) => {
                let at = self
                    .shown_heap()
                    .and_then(|(_, h)| h.classes.get(i)?.looked_up.clone());
                if let Some((file, line, column)) = at {
                    self.inspect_generated(&file, line, column);
                }
            }
            MemoryCommand::CompareWith(other) => {
                view.compare_with = other;
                view.expanded = None;
                self.compare_heaps();
            }
        }
    }

    /// Every loaded snapshot: input and name.
    pub fn loaded_heaps(&self) -> Vec<(InputId, String)> {
        self.inputs
            .iter()
            .filter(|e| matches!(e.loaded, Some(Loaded::Heap(_))))
            .map(|e| (e.id, e.name.clone()))
            .collect()
    }

    /// A loaded snapshot's graph.
    fn heap_of(&self, input: InputId) -> Option<Arc<crate::engine::heap::Heap>> {
        match &self.inputs.iter().find(|e| e.id == input)?.loaded {
            Some(Loaded::Heap(h)) => Some(h.heap.clone()),
            _ => None,
        }
    }

    /// The comparison the view asks for, when it is done.
    fn comparison(&self) -> Option<Arc<HeapComparison>> {
        let after = self.heap_of(self.view.memory.shown?)?;
        let before = self.heap_of(self.view.memory.compare_with?)?;
        self.heap_comparison.clone().filter(|c| {
            std::ptr::eq(c.after.as_ptr(), Arc::as_ptr(&after))
                && std::ptr::eq(c.before.as_ptr(), Arc::as_ptr(&before))
        })
    }

    /// Starts comparing the shown snapshot with its baseline, unless that is done.
    fn compare_heaps(&mut self) {
        if let Some(old) = self.running.comparing_heaps.take() {
            self.jobs.cancel(old);
        }
        let view = &self.view.memory;
        if view.shown == view.compare_with {
            return;
        }
        let (Some(after), Some(before)) = (
            view.shown.and_then(|i| self.heap_of(i)),
            view.compare_with.and_then(|i| self.heap_of(i)),
        ) else {
            return;
        };
        if self.comparison().is_some() {
            return;
        }
        let job = self.jobs.spawn(move |ctx| {
            let changes = ctx.phase("compare", |_| before.compare(&after));
            Ok::<_, std::convert::Infallible>(super::JobOutput::HeapCompared(Arc::new(
                HeapComparison {
                    after: Arc::downgrade(&after),
                    before: Arc::downgrade(&before),
                    changes,
                },
            )))
        });
        self.running
            .names
            .insert(job, "compare two heap snapshots".to_owned());
        self.running.comparing_heaps = Some(job);
    }
}

/// How many objects an opened class lists (its largest by retained size).
pub const OBJECTS_SHOWN: usize = 50;

/// What the Memory pane draws, computed when the snapshot or the view changes (never per
/// frame: each piece walks the whole graph).
#[derive(Debug)]
pub struct MemoryModel {
    /// The snapshot's input.
    pub input: InputId,
    /// The snapshot.
    pub heap: Arc<LoadedHeap>,
    /// The table's lines: a class (index into `heap.classes`), and under an opened class
    /// its largest objects.
    pub lines: Vec<(usize, Option<u32>)>,
    /// The selected object's retaining path, retainers and dominated objects.
    pub detail: Option<ObjectDetail>,
    /// The other snapshots (what the shown one can be compared with).
    pub others: Vec<(InputId, String)>,
    /// The comparison with the baseline, when asked for and done.
    pub compare: Option<Arc<HeapComparison>>,
    /// Each change's class as the Summary names it (original names through the maps).
    pub compare_names: Vec<String>,
    /// The comparison's lines: a change (index into `compare.changes`), and under an opened
    /// one its first new objects.
    pub compare_lines: Vec<(usize, Option<u32>)>,
    /// The comparison is being computed.
    pub comparing: bool,
}

/// A selected object's relations.
#[derive(Debug)]
pub struct ObjectDetail {
    /// The object.
    pub node: u32,
    /// The shortest retaining path from the root (edges), when the root reaches it.
    pub path: Option<Vec<u32>>,
    /// The edges into it (the first [`OBJECTS_SHOWN`]).
    pub retainers: Vec<u32>,
    /// What it dominates, largest first (the first [`OBJECTS_SHOWN`]).
    pub dominated: Vec<u32>,
}

/// What the Memory pane's model depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct MemoryKey {
    heap: usize,
    filter: String,
    sort: MemorySort,
    expanded: Option<u32>,
    selected: Option<u32>,
    compare_with: Option<InputId>,
    compare: Option<usize>,
    comparing: bool,
    others: Vec<InputId>,
}

impl AppState {
    /// The Memory pane's model (cached until the snapshot or the view changes).
    pub fn memory_model(&mut self) -> Option<Arc<MemoryModel>> {
        let (input, heap) = self.shown_heap()?;
        let compare = self.comparison();
        let others: Vec<(InputId, String)> = self
            .loaded_heaps()
            .into_iter()
            .filter(|(i, _)| *i != input)
            .collect();
        let view = &self.view.memory;
        let key = MemoryKey {
            heap: Arc::as_ptr(&heap) as usize,
            filter: view.filter.clone(),
            sort: view.sort,
            expanded: view.expanded,
            selected: view.selected,
            compare_with: view.compare_with,
            compare: compare.as_ref().map(|c| Arc::as_ptr(c) as usize),
            comparing: self.running.comparing_heaps.is_some(),
            others: others.iter().map(|(i, _)| *i).collect(),
        };
        if let Some((k, model)) = &self.memory_cache
            && *k == key
        {
            return Some(model.clone());
        }
        let h = &heap.heap;
        let mut lines = Vec::new();
        for i in memory_rows(&heap, view) {
            lines.push((i, None));
            let class = heap.classes[i].row.class;
            if view.expanded == Some(class) {
                let objects = h.largest_objects(class, OBJECTS_SHOWN);
                lines.extend(objects.into_iter().map(|o| (i, Some(o))));
            }
        }
        let detail = view
            .selected
            .filter(|&n| (n as usize) < h.node_count())
            .map(|node| ObjectDetail {
                node,
                path: h.retaining_path_in(&heap.paths, node),
                retainers: h.retainers(node).into_iter().take(OBJECTS_SHOWN).collect(),
                dominated: h.dominated(node).into_iter().take(OBJECTS_SHOWN).collect(),
            });
        // The comparison: changes named as the Summary names their classes, filtered; an
        // opened change lists its first new objects.
        let needle = view.filter.trim().to_lowercase();
        let mut compare_names = Vec::new();
        let mut compare_lines = Vec::new();
        if let Some(c) = compare.as_ref().filter(|_| view.compare_with.is_some()) {
            let shown: std::collections::HashMap<&str, &str> = heap
                .classes
                .iter()
                .map(|r| (r.row.name.as_str(), r.name()))
                .collect();
            for (i, change) in c.changes.iter().enumerate() {
                let name = shown
                    .get(change.name.as_str())
                    .copied()
                    .unwrap_or(&change.name)
                    .to_owned();
                if needle.is_empty()
                    || name.to_lowercase().contains(&needle)
                    || change.name.to_lowercase().contains(&needle)
                {
                    compare_lines.push((i, None));
                    if view.expanded == Some(i as u32) {
                        compare_lines.extend(
                            change
                                .new_objects
                                .iter()
                                .take(OBJECTS_SHOWN)
                                .map(|&o| (i, Some(o))),
                        );
                    }
                }
                compare_names.push(name);
            }
        }
        let model = Arc::new(MemoryModel {
            input,
            heap,
            lines,
            detail,
            others,
            comparing: self.running.comparing_heaps.is_some(),
            compare: compare.filter(|_| view.compare_with.is_some()),
            compare_names,
            compare_lines,
        });
        self.memory_cache = Some((key, model.clone()));
        Some(model)
    }
}

/// The classes of `heap` in the view's order, filtered: indexes into `heap.classes`.
pub fn memory_rows(heap: &LoadedHeap, view: &MemoryView) -> Vec<usize> {
    let needle = view.filter.trim().to_lowercase();
    let mut rows: Vec<usize> = (0..heap.classes.len())
        .filter(|&i| {
            needle.is_empty() || {
                let c = &heap.classes[i];
                c.name().to_lowercase().contains(&needle)
                    || c.row.name.to_lowercase().contains(&needle)
            }
        })
        .collect();
    let c = &heap.classes;
    match view.sort {
        MemorySort::Retained => rows.sort_by_key(|&i| std::cmp::Reverse(c[i].row.retained_size)),
        MemorySort::SelfSize => rows.sort_by_key(|&i| std::cmp::Reverse(c[i].row.self_size)),
        MemorySort::Count => rows.sort_by_key(|&i| std::cmp::Reverse(c[i].row.count)),
        MemorySort::Name => rows.sort_by(|&a, &b| c[a].name().cmp(c[b].name())),
    }
    rows
}

impl From<MemoryCommand> for super::Command {
    fn from(c: MemoryCommand) -> Self {
        Self::Memory(c)
    }
}
