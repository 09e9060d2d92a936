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
    /// The class opened to its objects (by [`crate::engine::heap::ClassRow::class`]).
    pub expanded: Option<u32>,
    /// The object selected: its retainers, path from the root and what it dominates show.
    pub selected: Option<u32>,
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
        }
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
}

impl AppState {
    /// The Memory pane's model (cached until the snapshot or the view changes).
    pub fn memory_model(&mut self) -> Option<Arc<MemoryModel>> {
        let (input, heap) = self.shown_heap()?;
        let view = &self.view.memory;
        let key = MemoryKey {
            heap: Arc::as_ptr(&heap) as usize,
            filter: view.filter.clone(),
            sort: view.sort,
            expanded: view.expanded,
            selected: view.selected,
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
        let model = Arc::new(MemoryModel {
            input,
            heap,
            lines,
            detail,
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
