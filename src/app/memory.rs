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
