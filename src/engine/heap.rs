//! Heap snapshots analysed: the graph checked and indexed, its dominator tree and retained
//! sizes, the Summary by constructor, an object's retainers and retaining path, the comparison
//! of two snapshots, and the functions' and classes' source locations resolved through the
//! workspace's maps.
//!
//! Definitions (DevTools' Memory panel, as memlab reproduces them):
//! - An edge retains unless it is weak, a shortcut from any node but the root, a self edge, or
//!   an edge into an object reachable from the root's own edges from one that is not (edges
//!   a debugger adds). Nodes the root cannot reach (retained only weakly or by each other)
//!   hang from the root.
//! - A node's retained size is its self size plus that of every node it dominates (every
//!   path from the root to them goes through it): Lengauer–Tarjan over those edges.
//! - A node's class: `(system)` for hidden nodes, its name for objects and native nodes,
//!   `(compiled code)` for code, `(<type>)` otherwise (`(closure)`, `(string)`, `(array)`…).
//!   The Summary counts the nodes of non-zero self size (native ones always); a class's
//!   retained size adds up its nodes that no node of the same class dominates (so nested
//!   objects of one class are not counted twice).

use crate::formats::heapsnapshot::{HeapError, HeapSnapshot};
use rustc_hash::FxHashMap;
use std::collections::HashMap;

/// Why a heap was not built: the snapshot is wrong, or the caller said stop.
#[derive(Debug)]
pub enum Stopped {
    /// What is wrong with the snapshot.
    Heap(HeapError),
    /// The progress said stop.
    Cancelled,
}

impl From<HeapError> for Stopped {
    fn from(e: HeapError) -> Self {
        Self::Heap(e)
    }
}

/// Each node's retained size: 4 bytes a node when the heap is under 4 GB.
#[derive(Debug)]
enum Retained {
    Small(Vec<u32>),
    Large(Vec<u64>),
}

/// A snapshot's graph, indexed, with its dominator tree.
#[derive(Debug)]
pub struct Heap {
    snap: HeapSnapshot,
    node_types: Vec<String>,
    edge_types: Vec<String>,
    /// Each node's first edge (an edge ordinal); one more entry for the end.
    first_edge: Vec<u32>,
    /// Each node's first retainer in `retainers`; one more entry for the end.
    first_retainer: Vec<u32>,
    /// The edges into each node, grouped by node: the source node and the edge's type,
    /// packed (`from << 3 | type`).
    retainers: Vec<u32>,
    /// Each node's immediate dominator (the root's: itself).
    dominator: Vec<u32>,
    /// Each node's retained size.
    retained: Retained,
    /// Each node's class, an index into `classes`.
    class_of: Vec<u32>,
    /// The class names.
    classes: Vec<String>,
    /// `locations` by node ordinal: (script id, line, column), 0-based.
    locations: Vec<u32>,
    /// The allocation stacks' frames (timelines).
    trace_functions: Vec<crate::formats::heapsnapshot::TraceFunction>,
    /// Edge type numbers that matter.
    weak: u8,
    shortcut: u8,
    element: u8,
    hidden: u8,
    /// Node type numbers that matter.
    native: u8,
    object: u8,
    closure: u8,
}

/// One class of the Summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassRow {
    /// The class name as the snapshot has it (minified names included).
    pub name: String,
    /// Its objects (non-zero self size, or native).
    pub count: u64,
    /// Their self sizes, bytes.
    pub self_size: u64,
    /// Their retained size, bytes, counted once where objects of the class nest.
    pub retained_size: u64,
    /// The class's number in this snapshot ([`Heap::objects_of`] lists its objects).
    pub class: u32,
}

/// One class's change between two snapshots, by node id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassChange {
    /// The class name.
    pub name: String,
    /// Objects in the second snapshot whose id the first lacks.
    pub added: u64,
    /// Their self sizes.
    pub added_size: u64,
    /// Objects of the first snapshot whose id the second lacks.
    pub freed: u64,
    /// Their self sizes.
    pub freed_size: u64,
    /// The added objects, node ordinals in the second snapshot.
    pub new_objects: Vec<u32>,
}

impl ClassChange {
    /// Added less freed bytes.
    pub fn delta(&self) -> i64 {
        self.added_size as i64 - self.freed_size as i64
    }
}

/// The position of `name` among `fields`.
fn field(fields: &[String], name: &str) -> Result<usize, HeapError> {
    fields
        .iter()
        .position(|f| f == name)
        .ok_or_else(|| HeapError::Field(format!("no `{name}` field in the meta")))
}

/// A list of type names (the first entry of `node_types` / `edge_types`).
fn type_names(types: &[serde_json::Value], what: &str) -> Result<Vec<String>, HeapError> {
    types
        .first()
        .and_then(|t| t.as_array())
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .ok_or_else(|| HeapError::Field(format!("no list of {what} types in the meta")))
}

const ROOT: u32 = 0;

/// Which nodes are detached (DOM or embedder objects no document holds): the snapshot's
/// `detachedness` (1 attached, 2 detached) where V8 knows it, carried from native node to
/// native node along their edges (not hidden, invisible or weak ones), attached first, as
/// DevTools does; JavaScript objects keep their own state. Their classes read `Detached …`.
fn detachedness(
    snap: &HeapSnapshot,
    first_edge: &[u32],
    edge_types: &[String],
    native: u8,
) -> Vec<bool> {
    let n = first_edge.len() - 1;
    if snap.detachedness.len() != n {
        return vec![false; n];
    }
    let skip: Vec<u8> = ["hidden", "invisible", "weak"]
        .iter()
        .filter_map(|t| edge_types.iter().position(|e| e == t).map(|e| e as u8))
        .collect();
    let mut state = snap.detachedness.clone();
    let mut visited = vec![false; n];
    let mut attached = Vec::new();
    let mut detached = Vec::new();
    let mut set = |k: usize,
                   s: u8,
                   state: &mut Vec<u8>,
                   attached: &mut Vec<usize>,
                   detached: &mut Vec<usize>| {
        if visited[k] {
            return;
        }
        visited[k] = true;
        if snap.node_types[k] != native {
            return;
        }
        state[k] = s;
        match s {
            1 => attached.push(k),
            2 => detached.push(k),
            _ => {}
        }
    };
    for k in 0..n {
        let s = state[k];
        if s != 0 {
            set(k, s, &mut state, &mut attached, &mut detached);
        }
    }
    let children = |k: usize| {
        (first_edge[k] as usize..first_edge[k + 1] as usize)
            .filter(|&e| !skip.contains(&snap.edge_types[e]))
            .map(|e| snap.edge_to[e] as usize)
            .collect::<Vec<_>>()
    };
    while let Some(k) = attached.pop() {
        for c in children(k) {
            set(c, 1, &mut state, &mut attached, &mut detached);
        }
    }
    while let Some(k) = detached.pop() {
        if state[k] == 1 {
            continue;
        }
        for c in children(k) {
            set(c, 2, &mut state, &mut attached, &mut detached);
        }
    }
    state.iter().map(|&s| s == 2).collect()
}

impl Heap {
    /// Checks and indexes `snap`, and computes its dominator tree and retained sizes.
    pub fn new(snap: HeapSnapshot) -> Result<Self, HeapError> {
        Self::new_with(snap, &mut crate::model::NoProgress).map_err(|e| match e {
            Stopped::Heap(e) => e,
            Stopped::Cancelled => unreachable!("NoProgress never stops"),
        })
    }

    /// [`Self::new`], `progress` told of each phase (index, dominators, classes) and asked
    /// between them whether to go on.
    pub fn new_with(
        snap: HeapSnapshot,
        progress: &mut dyn crate::model::Progress,
    ) -> Result<Self, Stopped> {
        let mut go_on = |name: &str| progress.step(name, 0, 0).is_continue();
        Self::build(snap, &mut go_on)?.ok_or(Stopped::Cancelled)
    }

    /// [`Self::new_with`]'s work; `None`: `go_on` said stop before a phase.
    fn build(
        mut snap: HeapSnapshot,
        go_on: &mut dyn FnMut(&str) -> bool,
    ) -> Result<Option<Self>, HeapError> {
        if !go_on("index the heap graph") {
            return Ok(None);
        }
        let m = &snap.meta;
        for f in ["type", "name", "id", "self_size", "edge_count"] {
            field(&m.node_fields, f)?;
        }
        for f in ["type", "name_or_index", "to_node"] {
            field(&m.edge_fields, f)?;
        }
        let nf = m.node_fields.len();
        let trace_functions = crate::formats::heapsnapshot::trace_functions(&snap)?;
        let m = &snap.meta;
        let node_types = type_names(&m.node_types, "node")?;
        let edge_types = type_names(&m.edge_types, "edge")?;
        let n = snap.node_types.len();
        if n == 0 {
            return Err(HeapError::Empty);
        }
        for (array, len) in [
            ("node names", snap.node_names.len()),
            ("node ids", snap.node_ids.len()),
            ("self sizes", snap.self_sizes.len()),
            ("edge counts", snap.edge_counts.len()),
        ] {
            if len != n {
                return Err(HeapError::Field(format!("{array}: {len} for {n} nodes")));
            }
        }
        let edge_count = snap.edge_types.len();
        if snap.edge_names.len() != edge_count || snap.edge_to.len() != edge_count {
            return Err(HeapError::Field(
                "the edges' fields differ in number".into(),
            ));
        }
        if n >= 1 << 29 || edge_count >= u32::MAX as usize || edge_types.len() > 8 {
            return Err(HeapError::Field(
                "more nodes, edges or edge types than Symscope indexes".into(),
            ));
        }
        let type_at = |name: &str, types: &[String]| {
            types
                .iter()
                .position(|t| t == name)
                .map_or(u8::MAX, |t| t as u8)
        };
        // Nodes: types and names in range; edges add up.
        let mut first_edge = Vec::with_capacity(n + 1);
        let mut at: u64 = 0;
        for k in 0..n {
            if snap.node_types[k] as usize >= node_types.len() {
                return Err(HeapError::BadIndex {
                    what: "node type",
                    index: u32::from(snap.node_types[k]),
                });
            }
            if snap.node_names[k] as usize >= snap.strings.len() {
                return Err(HeapError::BadIndex {
                    what: "string",
                    index: snap.node_names[k],
                });
            }
            first_edge.push(at.min(u64::from(u32::MAX)) as u32);
            at += u64::from(snap.edge_counts[k]);
        }
        if at != edge_count as u64 {
            return Err(HeapError::EdgeCount {
                counted: at,
                edges: edge_count,
            });
        }
        first_edge.push(edge_count as u32);
        snap.edge_counts = Vec::new();
        let element = type_at("element", &edge_types);
        let hidden = type_at("hidden", &edge_types);
        // Edges: targets made node ordinals, types and names in range.
        let mut retainer_count = vec![0u32; n + 1];
        for e in 0..edge_count {
            let to = snap.edge_to[e];
            if !(to as usize).is_multiple_of(nf) || to as usize / nf >= n {
                return Err(HeapError::BadEdge { edge: e, to });
            }
            let t = snap.edge_types[e];
            if t as usize >= edge_types.len() {
                return Err(HeapError::BadIndex {
                    what: "edge type",
                    index: u32::from(t),
                });
            }
            if t != element && t != hidden && snap.edge_names[e] as usize >= snap.strings.len() {
                return Err(HeapError::BadIndex {
                    what: "string",
                    index: snap.edge_names[e],
                });
            }
            let to = to / nf as u32;
            snap.edge_to[e] = to;
            retainer_count[to as usize] += 1;
        }
        // Retainers grouped by target node, each its source and the edge's type.
        let mut first_retainer = Vec::with_capacity(n + 1);
        let mut sum = 0u32;
        for c in &retainer_count[..n] {
            first_retainer.push(sum);
            sum += c;
        }
        first_retainer.push(sum);
        drop(retainer_count);
        let mut fill = first_retainer.clone();
        let mut retainers = vec![0u32; edge_count];
        for k in 0..n {
            for e in first_edge[k] as usize..first_edge[k + 1] as usize {
                let to = snap.edge_to[e] as usize;
                retainers[fill[to] as usize] = (k as u32) << 3 | u32::from(snap.edge_types[e]);
                fill[to] += 1;
            }
        }
        drop(fill);
        let native = type_at("native", &node_types);
        // Locations as (node, script, line, column) records, by node (V8 writes them so),
        // in the read array's own memory.
        let lf = m.location_fields.len().max(4);
        let l_obj = field(&m.location_fields, "object_index").unwrap_or(0);
        let l_script = field(&m.location_fields, "script_id").unwrap_or(1);
        let l_line = field(&m.location_fields, "line").unwrap_or(2);
        let l_col = field(&m.location_fields, "column").unwrap_or(3);
        let mut locations = std::mem::take(&mut snap.locations);
        let mut kept = 0;
        for at in (0..locations.len() / lf * lf).step_by(lf) {
            let r = &locations[at..at + lf];
            if (r[l_obj] as usize).is_multiple_of(nf) && (r[l_obj] as usize / nf) < n {
                let record = [r[l_obj] / nf as u32, r[l_script], r[l_line], r[l_col]];
                locations[kept..kept + 4].copy_from_slice(&record);
                kept += 4;
            }
        }
        locations.truncate(kept);
        let by_node = |l: &[u32]| l.chunks_exact(4).map(|r| r[0]).is_sorted();
        if !by_node(&locations) {
            let mut records: Vec<[u32; 4]> = locations
                .chunks_exact(4)
                .map(|r| [r[0], r[1], r[2], r[3]])
                .collect();
            records.sort_by_key(|r| r[0]);
            locations = records.concat();
        }
        // One location per node: the last written, as a map would keep it.
        let mut out = 0;
        for at in (0..locations.len()).step_by(4) {
            if out > 0 && locations[out - 4] == locations[at] {
                out -= 4;
            }
            locations.copy_within(at..at + 4, out);
            out += 4;
        }
        locations.truncate(out);
        locations.shrink_to_fit();
        let mut heap = Heap {
            weak: type_at("weak", &edge_types),
            shortcut: type_at("shortcut", &edge_types),
            element,
            hidden,
            native,
            object: type_at("object", &node_types),
            closure: type_at("closure", &node_types),
            node_types,
            edge_types,
            first_edge,
            first_retainer,
            retainers,
            dominator: Vec::new(),
            retained: Retained::Small(Vec::new()),
            class_of: Vec::new(),
            classes: Vec::new(),
            locations,
            trace_functions,
            snap,
        };
        if !go_on("dominator tree") {
            return Ok(None);
        }
        heap.dominators();
        if !go_on("classes") {
            return Ok(None);
        }
        heap.classify();
        Ok(Some(heap))
    }

    /// Each node's class (after the dominator tree: its arrays are gone by then).
    fn classify(&mut self) {
        let snap = &self.snap;
        let n = self.node_count();
        let node_types = &self.node_types;
        let detached = detachedness(snap, &self.first_edge, &self.edge_types, self.native);
        // A class per (type, name, detached) for objects and native nodes, per type for the
        // rest: keyed by numbers, each name made once.
        let named = |t: u8| matches!(node_types[t as usize].as_str(), "object" | "native");
        // Looked up once a node: a fast hash (the keys are the snapshot's own numbers).
        let mut class_index: FxHashMap<u64, u32> = FxHashMap::default();
        let mut by_name: FxHashMap<String, u32> = FxHashMap::default();
        let mut classes: Vec<String> = Vec::new();
        let mut class_of = Vec::with_capacity(n);
        for (k, &gone) in detached.iter().enumerate() {
            let t = snap.node_types[k];
            let key = if named(t) {
                (u64::from(gone) << 32 | u64::from(snap.node_names[k])) << 8 | u64::from(t)
            } else {
                u64::from(u32::MAX) << 8 | u64::from(t)
            };
            let c = match class_index.get(&key) {
                Some(&c) => c,
                None => {
                    let name = match node_types[t as usize].as_str() {
                        "hidden" => "(system)".to_owned(),
                        "object" | "native" if gone => {
                            format!("Detached {}", snap.strings.get(snap.node_names[k]))
                        }
                        "object" | "native" => snap.strings.get(snap.node_names[k]).to_owned(),
                        "code" => "(compiled code)".to_owned(),
                        other => format!("({other})"),
                    };
                    // Objects and native nodes of one name are one class.
                    let c = *by_name.entry(name.clone()).or_insert_with(|| {
                        classes.push(name);
                        classes.len() as u32 - 1
                    });
                    class_index.insert(key, c);
                    c
                }
            };
            class_of.push(c);
        }
        self.class_of = class_of;
        self.classes = classes;
        self.snap.detachedness = Vec::new();
    }

    /// The allocation stacks' frames (`trace_function_infos`; timelines only).
    pub fn trace_functions(&self) -> &[crate::formats::heapsnapshot::TraceFunction] {
        &self.trace_functions
    }

    /// The allocation tree's nodes, parents first (`trace_tree`; timelines only).
    pub fn trace_nodes(&self) -> &[crate::formats::heapsnapshot::TraceNode] {
        &self.snap.trace_nodes
    }

    /// The snapshot's field and type names.
    pub fn meta(&self) -> &crate::formats::heapsnapshot::Meta {
        &self.snap.meta
    }

    /// String `i` of the snapshot (empty when out of range).
    pub fn string(&self, i: u32) -> &str {
        self.snap.strings.get(i)
    }

    /// How many strings the snapshot has.
    pub fn string_count(&self) -> usize {
        self.snap.strings.len()
    }

    /// The number of nodes.
    pub fn node_count(&self) -> usize {
        self.first_edge.len() - 1
    }

    /// The number of edges.
    pub fn edge_count(&self) -> usize {
        self.snap.edge_types.len()
    }

    /// A node's type name (`object`, `closure`, `hidden`…).
    pub fn type_name(&self, node: u32) -> &str {
        &self.node_types[self.snap.node_types[node as usize] as usize]
    }

    /// A node's name as the snapshot has it.
    pub fn name(&self, node: u32) -> &str {
        self.snap.strings.get(self.snap.node_names[node as usize])
    }

    /// A node's id (stable across snapshots of one process).
    pub fn id(&self, node: u32) -> u32 {
        self.snap.node_ids[node as usize]
    }

    /// A node's self size, bytes.
    pub fn self_size(&self, node: u32) -> u64 {
        u64::from(self.snap.self_sizes[node as usize])
    }

    /// A node's retained size, bytes.
    pub fn retained_size(&self, node: u32) -> u64 {
        match &self.retained {
            Retained::Small(r) => u64::from(r[node as usize]),
            Retained::Large(r) => r[node as usize],
        }
    }

    /// A node's immediate dominator (the root's: the root).
    pub fn dominator(&self, node: u32) -> u32 {
        self.dominator[node as usize]
    }

    /// A node's class name.
    pub fn class_name(&self, node: u32) -> &str {
        &self.classes[self.class_of[node as usize] as usize]
    }

    /// The sum of every node's self size.
    pub fn total_size(&self) -> u64 {
        self.snap.self_sizes.iter().map(|&s| u64::from(s)).sum()
    }

    /// An edge's type name (`property`, `element`, `weak`…).
    pub fn edge_type(&self, e: u32) -> &str {
        &self.edge_types[self.snap.edge_types[e as usize] as usize]
    }

    /// An edge's name: a property's name, an element's index.
    pub fn edge_name(&self, e: u32) -> String {
        let t = self.snap.edge_types[e as usize];
        let name = self.snap.edge_names[e as usize];
        if t == self.element || t == self.hidden {
            name.to_string()
        } else {
            self.snap.strings.get(name).to_owned()
        }
    }

    /// Whether an edge is named `name` (without making its name).
    fn edge_named(&self, e: u32, name: &str) -> bool {
        let t = self.snap.edge_types[e as usize];
        t != self.element
            && t != self.hidden
            && self.snap.strings.get(self.snap.edge_names[e as usize]) == name
    }

    /// An edge's target node.
    pub fn edge_to(&self, e: u32) -> u32 {
        self.snap.edge_to[e as usize]
    }

    /// An edge's source node.
    pub fn edge_from(&self, e: u32) -> u32 {
        (self.first_edge.partition_point(|&f| f <= e) - 1) as u32
    }

    /// A node's outgoing edges, by ordinal.
    pub fn edges(&self, node: u32) -> std::ops::Range<u32> {
        self.first_edge[node as usize]..self.first_edge[node as usize + 1]
    }

    /// The edges into a node, by ordinal (each source's edges to it, in order).
    pub fn retainers(&self, node: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut last = u32::MAX;
        for (from, _) in self.retaining(node) {
            if from == last {
                continue;
            }
            last = from;
            out.extend(self.edges(from).filter(|&e| self.edge_to(e) == node));
        }
        out
    }

    /// The sources of the edges into a node, with each edge's type number.
    fn retaining(&self, node: u32) -> impl Iterator<Item = (u32, u8)> + '_ {
        let a = self.first_retainer[node as usize] as usize;
        let b = self.first_retainer[node as usize + 1] as usize;
        self.retainers[a..b]
            .iter()
            .map(|&r| (r >> 3, (r & 7) as u8))
    }

    /// Where V8 says a function (a closure node) is: script id, 0-based line and column.
    pub fn location(&self, node: u32) -> Option<(u32, u32, u32)> {
        let records = self.locations.len() / 4;
        let (mut lo, mut hi) = (0, records);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.locations[mid * 4].cmp(&node) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let r = &self.locations[mid * 4..mid * 4 + 4];
                    return Some((r[1], r[2], r[3]));
                }
            }
        }
        None
    }

    /// The node an edge of `node` named `name` points at.
    fn follow(&self, node: u32, name: &str) -> Option<u32> {
        self.edges(node)
            .find(|&e| self.edge_named(e, name))
            .map(|e| self.edge_to(e))
    }

    /// The script a closure's code is in, by name (its URL or path): the closure's shared
    /// function info's script.
    pub fn script_name(&self, closure: u32) -> Option<&str> {
        let sfi = self.follow(closure, "shared")?;
        let script = self
            .follow(sfi, "script_or_debug_info")
            .or_else(|| self.follow(sfi, "script"))?;
        let name = self.name(script);
        (!name.is_empty() && !name.starts_with("system /")).then_some(name)
    }

    /// The constructor function of an object: its map's prototype's `constructor`.
    pub fn constructor_of(&self, object: u32) -> Option<u32> {
        let map = self.follow(object, "map")?;
        let proto = self.follow(map, "prototype")?;
        let ctor = self.follow(proto, "constructor")?;
        (self.snap.node_types[ctor as usize] == self.closure).then_some(ctor)
    }

    /// Whether an edge retains (see the module's docs), `page` marking the nodes the root's
    /// own edges reach.
    fn essential(&self, from: u32, to: u32, t: u8, page: &[bool]) -> bool {
        if from == to || t == self.weak || (t == self.shortcut && from != ROOT) {
            return false;
        }
        !(from != ROOT && page[to as usize] && !page[from as usize])
    }

    /// The nodes reachable from the root's own (non-shortcut) edges, the DOM trees' root
    /// left out, through non-weak edges.
    fn page_nodes(&self) -> Vec<bool> {
        let mut page = vec![false; self.node_count()];
        let mut stack = Vec::new();
        for e in self.edges(ROOT) {
            let to = self.edge_to(e);
            let t = self.snap.edge_types[e as usize];
            if (t == self.element && self.name(to) == "(Document DOM trees)") || t == self.shortcut
            {
                continue;
            }
            page[to as usize] = true;
            stack.push(to);
        }
        while let Some(n) = stack.pop() {
            for e in self.edges(n) {
                let to = self.edge_to(e);
                if page[to as usize] || self.snap.edge_types[e as usize] == self.weak {
                    continue;
                }
                page[to as usize] = true;
                stack.push(to);
            }
        }
        page
    }

    /// Lengauer–Tarjan, vertices numbered from 1 (0: none); then the retained sizes. The
    /// working arrays are dropped as soon as each is done with.
    fn dominators(&mut self) {
        let n = self.node_count();
        let page = self.page_nodes();
        let len = n + 1;
        let mut parent = vec![0u32; len];
        let mut vertex = vec![0u32; len];
        let mut label = vec![0u32; len];
        let mut semi = vec![0u32; len];
        let mut count = 0u32;
        {
            let mut next_edge = vec![0u32; len];
            // Iterative depth-first search from `root` over retaining edges.
            let mut dfs = |root: u32,
                           parent: &mut Vec<u32>,
                           semi: &mut Vec<u32>,
                           vertex: &mut Vec<u32>,
                           label: &mut Vec<u32>,
                           count: &mut u32| {
                next_edge[root as usize - 1] = self.first_edge[root as usize - 1];
                let mut v = root;
                while v != 0 {
                    if semi[v as usize] == 0 {
                        *count += 1;
                        semi[v as usize] = *count;
                        vertex[*count as usize] = v;
                        label[v as usize] = v;
                    }
                    let mut v_next = parent[v as usize];
                    let vo = v as usize - 1;
                    let end = self.first_edge[vo + 1];
                    while next_edge[vo] < end {
                        let e = next_edge[vo];
                        next_edge[vo] += 1;
                        let to = self.snap.edge_to[e as usize];
                        if !self.essential(vo as u32, to, self.snap.edge_types[e as usize], &page) {
                            continue;
                        }
                        let w = to + 1;
                        if semi[w as usize] == 0 {
                            parent[w as usize] = v;
                            next_edge[w as usize - 1] = self.first_edge[w as usize - 1];
                            v_next = w;
                            break;
                        }
                    }
                    v = v_next;
                }
            };
            let r = ROOT + 1;
            dfs(
                r,
                &mut parent,
                &mut semi,
                &mut vertex,
                &mut label,
                &mut count,
            );
            // Nodes retained only weakly (or by shortcuts): searched from, under the root.
            if (count as usize) < n {
                for v in 1..=n as u32 {
                    if semi[v as usize] == 0
                        && self
                            .retaining(v - 1)
                            .all(|(_, t)| t == self.weak || t == self.shortcut)
                    {
                        parent[v as usize] = r;
                        dfs(
                            v,
                            &mut parent,
                            &mut semi,
                            &mut vertex,
                            &mut label,
                            &mut count,
                        );
                    }
                }
            }
        }
        let r = ROOT + 1;
        // What is left is retained only by itself: under the root.
        if (count as usize) < n {
            for v in 1..=n as u32 {
                if semi[v as usize] == 0 {
                    parent[v as usize] = r;
                    count += 1;
                    semi[v as usize] = count;
                    vertex[count as usize] = v;
                    label[v as usize] = v;
                }
            }
        }
        // Semi-NCA (Georgiadis; LLVM's dominator trees): semi-dominators as Lengauer–Tarjan
        // finds them, then each immediate dominator as the nearest ancestor of the DFS
        // parent numbered at most the semi-dominator. No buckets: one array fewer.
        // `dom` starts as the DFS parents.
        let mut dom = parent.clone();
        {
            // A vertex's ancestor in the forest is its DFS parent when it is linked, and
            // the parent is read for the last time then: one array holds both, a bit says
            // which vertices are linked.
            let ancestor = &mut parent;
            let mut linked = vec![0u64; len.div_ceil(64)];
            let is_linked = |linked: &[u64], v: u32| linked[v as usize / 64] >> (v % 64) & 1 == 1;
            let mut stack: Vec<u32> = Vec::new();
            let eval = |v: u32,
                        ancestor: &mut Vec<u32>,
                        linked: &[u64],
                        label: &mut Vec<u32>,
                        semi: &Vec<u32>,
                        stack: &mut Vec<u32>| {
                if !is_linked(linked, v) {
                    return v;
                }
                // Path compression, iteratively.
                let mut x = v;
                while is_linked(linked, ancestor[x as usize]) {
                    stack.push(x);
                    x = ancestor[x as usize];
                }
                while let Some(w) = stack.pop() {
                    let a = ancestor[w as usize];
                    if semi[label[a as usize] as usize] < semi[label[w as usize] as usize] {
                        label[w as usize] = label[a as usize];
                    }
                    ancestor[w as usize] = ancestor[a as usize];
                }
                label[v as usize]
            };
            for i in (2..=count).rev() {
                let w = vertex[i as usize];
                let wo = w - 1;
                let mut orphan = true;
                for (from, t) in self.retaining(wo) {
                    if !self.essential(from, wo, t, &page) {
                        continue;
                    }
                    orphan = false;
                    let u = eval(from + 1, ancestor, &linked, &mut label, &semi, &mut stack);
                    if semi[u as usize] < semi[w as usize] {
                        semi[w as usize] = semi[u as usize];
                    }
                }
                if orphan {
                    semi[w as usize] = semi[r as usize];
                }
                // Linked: `ancestor[w]` is `parent[w]` already.
                linked[w as usize / 64] |= 1 << (w % 64);
            }
        }
        drop(parent);
        drop(page);
        // Each vertex's DFS number (in `label`, free now), then the dominators in DFS order.
        let number = &mut label;
        for i in 1..=count {
            number[vertex[i as usize] as usize] = i;
        }
        dom[0] = r;
        dom[r as usize] = r;
        for i in 2..=count {
            let w = vertex[i as usize];
            let mut d = dom[w as usize];
            while number[d as usize] > semi[w as usize] {
                d = dom[d as usize];
            }
            dom[w as usize] = d;
        }
        drop(label);
        drop(semi);
        // Ordinals, in place.
        for k in 0..n {
            dom[k] = dom[k + 1].saturating_sub(1);
        }
        dom.truncate(n);
        // Each node's size added to its dominator's, children before parents. No retained
        // size exceeds the total: under 4 GB, 4 bytes a node hold them.
        fn accumulate<T: Copy + std::ops::Add<Output = T>>(
            retained: &mut [T],
            vertex: &[u32],
            dom: &[u32],
            count: u32,
        ) {
            for i in (2..=count).rev() {
                let o = vertex[i as usize] as usize - 1;
                let d = dom[o] as usize;
                retained[d] = retained[d] + retained[o];
            }
        }
        let total: u64 = self.snap.self_sizes.iter().map(|&s| u64::from(s)).sum();
        self.retained = if total <= u64::from(u32::MAX) {
            let mut r = self.snap.self_sizes.clone();
            accumulate(&mut r, &vertex, &dom, count);
            Retained::Small(r)
        } else {
            let mut r: Vec<u64> = self.snap.self_sizes.iter().map(|&s| u64::from(s)).collect();
            accumulate(&mut r, &vertex, &dom, count);
            Retained::Large(r)
        };
        self.dominator = dom;
    }

    /// The first `limit` objects of class `class` (a [`ClassRow::class`]) the Summary counts,
    /// in node order.
    pub fn objects_of(&self, class: u32, limit: usize) -> Vec<u32> {
        (0..self.node_count() as u32)
            .filter(|&k| self.class_of[k as usize] == class && self.counted(k))
            .take(limit)
            .collect()
    }

    /// The `limit` objects of class `class` the Summary counts with the largest retained
    /// sizes, largest first (one pass over the nodes, whatever the class's size).
    pub fn largest_objects(&self, class: u32, limit: usize) -> Vec<u32> {
        let mut all = self.objects_of(class, usize::MAX);
        let by_size = |&o: &u32| (std::cmp::Reverse(self.retained_size(o)), o);
        if all.len() > limit && limit > 0 {
            all.select_nth_unstable_by_key(limit - 1, by_size);
            all.truncate(limit);
        }
        all.sort_by_key(by_size);
        all.truncate(limit);
        all
    }

    /// Whether the Summary counts a node (non-zero self size, or native; the root is none).
    fn counted(&self, node: u32) -> bool {
        node != ROOT
            && (self.snap.self_sizes[node as usize] != 0
                || self.snap.node_types[node as usize] == self.native)
    }

    /// The Summary: each class's count, self and retained size, by retained size.
    pub fn summary(&self) -> Vec<ClassRow> {
        let n = self.node_count();
        let mut rows: Vec<ClassRow> = self
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| ClassRow {
                name: c.clone(),
                count: 0,
                self_size: 0,
                retained_size: 0,
                class: i as u32,
            })
            .collect();
        for k in 0..n as u32 {
            if !self.counted(k) {
                continue;
            }
            let row = &mut rows[self.class_of[k as usize] as usize];
            row.count += 1;
            row.self_size += self.self_size(k);
        }
        // Retained: a node counts unless a dominator above it is of its class. Walk the
        // dominator tree from the root, keeping the classes on the path.
        // The dominator tree's children lists: counted, each range's start found, filled by
        // moving each start to its end, then the starts shifted back.
        let mut first_child = vec![0u32; n + 1];
        for k in 1..n {
            first_child[self.dominator[k] as usize] += 1;
        }
        let mut sum = 0;
        for c in first_child.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        let mut children = vec![0u32; sum as usize];
        for k in 1..n {
            let d = self.dominator[k] as usize;
            children[first_child[d] as usize] = k as u32;
            first_child[d] += 1;
        }
        for i in (1..=n).rev() {
            first_child[i] = first_child[i - 1];
        }
        first_child[0] = 0;
        let mut on_path = vec![false; self.classes.len()];
        // Depth first, one entry per node on the path: the node, its next child, and whether
        // it put its class on the path (a wide node's children are not all pushed at once).
        let mut stack: Vec<(u32, u32, bool)> = Vec::new();
        let enter = |k: u32,
                     stack: &mut Vec<(u32, u32, bool)>,
                     rows: &mut Vec<ClassRow>,
                     on_path: &mut Vec<bool>| {
            let c = self.class_of[k as usize] as usize;
            // A node nested in one of its class is counted there.
            let marks = k != ROOT && self.counted(k) && !on_path[c];
            if marks {
                rows[c].retained_size += self.retained_size(k);
                on_path[c] = true;
            }
            stack.push((k, first_child[k as usize], marks));
        };
        enter(ROOT, &mut stack, &mut rows, &mut on_path);
        while let Some(top) = stack.last_mut() {
            let (k, next, marks) = *top;
            if next < first_child[k as usize + 1] {
                top.1 += 1;
                enter(children[next as usize], &mut stack, &mut rows, &mut on_path);
            } else {
                stack.pop();
                if marks {
                    on_path[self.class_of[k as usize] as usize] = false;
                }
            }
        }
        rows.retain(|r| r.count > 0);
        rows.sort_by(|a, b| {
            b.retained_size
                .cmp(&a.retained_size)
                .then(b.self_size.cmp(&a.self_size))
                .then_with(|| a.name.cmp(&b.name))
        });
        rows
    }

    /// The change from `self` (before) to `after`, by node id, per class; classes by the
    /// bytes added less freed, largest first.
    pub fn compare(&self, after: &Heap) -> Vec<ClassChange> {
        let ids = |h: &Heap| -> FxHashMap<u32, u32> {
            (0..h.node_count() as u32)
                .filter(|&k| h.counted(k))
                .map(|k| (h.id(k), k))
                .collect()
        };
        let (a, b) = (ids(self), ids(after));
        let mut by: HashMap<String, ClassChange> = HashMap::new();
        fn entry<'m>(by: &'m mut HashMap<String, ClassChange>, name: &str) -> &'m mut ClassChange {
            by.entry(name.to_owned()).or_insert_with(|| ClassChange {
                name: name.to_owned(),
                ..ClassChange::default()
            })
        }
        for (id, &k) in &b {
            if !a.contains_key(id) {
                let c = entry(&mut by, after.class_name(k));
                c.added += 1;
                c.added_size += after.self_size(k);
                c.new_objects.push(k);
            }
        }
        for (id, &k) in &a {
            if !b.contains_key(id) {
                let c = entry(&mut by, self.class_name(k));
                c.freed += 1;
                c.freed_size += self.self_size(k);
            }
        }
        let mut out: Vec<ClassChange> = by.into_values().collect();
        for c in &mut out {
            c.new_objects.sort_unstable();
        }
        out.sort_by(|x, y| {
            y.delta()
                .cmp(&x.delta())
                .then(y.added.cmp(&x.added))
                .then_with(|| x.name.cmp(&y.name))
        });
        out
    }

    /// The shortest retaining path from the root to `node` (edge ordinals, root first), over
    /// retaining edges; `None` when the root does not reach it that way.
    pub fn retaining_path(&self, node: u32) -> Option<Vec<u32>> {
        self.retaining_path_in(&self.path_tree(), node)
    }

    /// Every node's last edge on a shortest retaining path from the root (`u32::MAX`: none,
    /// or the root), breadth first over retaining edges: one search answers
    /// [`Self::retaining_path_in`] for every node.
    pub fn path_tree(&self) -> Vec<u32> {
        let page = self.page_nodes();
        let n = self.node_count();
        let mut via = vec![u32::MAX; n];
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::new();
        seen[ROOT as usize] = true;
        queue.push_back(ROOT);
        while let Some(k) = queue.pop_front() {
            for e in self.edges(k) {
                let to = self.edge_to(e);
                if seen[to as usize]
                    || !self.essential(k, to, self.snap.edge_types[e as usize], &page)
                {
                    continue;
                }
                seen[to as usize] = true;
                via[to as usize] = e;
                queue.push_back(to);
            }
        }
        via
    }

    /// [`Self::retaining_path`] through a [`Self::path_tree`] of this heap.
    pub fn retaining_path_in(&self, tree: &[u32], node: u32) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut at = node;
        while at != ROOT {
            let e = *tree.get(at as usize)?;
            if e == u32::MAX || path.len() > tree.len() {
                return None;
            }
            path.push(e);
            at = self.edge_from(e);
        }
        path.reverse();
        Some(path)
    }

    /// The nodes `node` immediately dominates, largest retained size first.
    pub fn dominated(&self, node: u32) -> Vec<u32> {
        let mut out: Vec<u32> = (0..self.node_count() as u32)
            .filter(|&k| k != node && self.dominator[k as usize] == node)
            .collect();
        out.sort_by_key(|&k| std::cmp::Reverse(self.retained_size(k)));
        out
    }
}

/// Where a class or function is defined, as the snapshot records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Defined {
    /// The constructor (or function) as named in the snapshot (minified names included).
    pub generated_name: String,
    /// Its script's name (URL or path).
    pub url: String,
    /// 0-based line.
    pub line: u32,
    /// 0-based column.
    pub column: u32,
}

impl Heap {
    /// Where each class of `rows` is defined: its objects' constructor (their map's
    /// prototype's `constructor`), else the one function of its name with a location. One
    /// pass over the nodes for all of them.
    pub fn definitions(&self, rows: &[ClassRow]) -> Vec<Option<Defined>> {
        let at = |closure: u32| {
            let (_, line, column) = self.location(closure)?;
            Some(Defined {
                generated_name: self.name(closure).to_owned(),
                url: self.script_name(closure)?.to_owned(),
                line,
                column,
            })
        };
        // The first objects of each class asked about.
        let mut wanted: FxHashMap<u32, Vec<u32>> =
            rows.iter().map(|r| (r.class, Vec::new())).collect();
        for k in 0..self.node_count() as u32 {
            if let Some(list) = wanted.get_mut(&self.class_of[k as usize])
                && list.len() < 8
                && self.counted(k)
            {
                list.push(k);
            }
        }
        // Functions with a location by name: `None` where several share it.
        let mut by_name: FxHashMap<&str, Option<u32>> = FxHashMap::default();
        for k in self.locations.iter().step_by(4).copied() {
            if self.snap.node_types[k as usize] == self.closure {
                by_name
                    .entry(self.name(k))
                    .and_modify(|e| *e = None)
                    .or_insert(Some(k));
            }
        }
        rows.iter()
            .map(|row| {
                let objects = &wanted[&row.class];
                let first = *objects.first()?;
                if self.snap.node_types[first as usize] == self.object
                    && let Some(d) = objects
                        .iter()
                        .find_map(|&o| self.constructor_of(o).and_then(at))
                {
                    return Some(d);
                }
                by_name
                    .get(row.name.as_str())
                    .copied()
                    .flatten()
                    .and_then(at)
            })
            .collect()
    }
}

/// A class of the Summary with its definition resolved where the symbol files allow.
#[derive(Clone, Debug)]
pub struct ResolvedClass {
    /// The class.
    pub row: ClassRow,
    /// Where the snapshot says it is defined.
    pub defined: Option<Defined>,
    /// Its original place (function name, file, 1-based line, 0-based column), resolved.
    pub original: Option<super::profile::Place>,
    /// Why it was not resolved, when it was defined somewhere.
    pub note: Option<String>,
    /// Where it was looked up when resolved: the symbol file and the generated position
    /// there (what the segment inspector opens at).
    pub looked_up: Option<(String, u32, u32)>,
}

impl ResolvedClass {
    /// The name shown: the original name where resolved, else the snapshot's.
    pub fn name(&self) -> &str {
        self.original
            .as_ref()
            .and_then(|p| p.function.as_deref())
            .unwrap_or(&self.row.name)
    }
}

/// Resolves each class's definition through `symbols` (the route CPU profiles' functions
/// take: maps, chains, scope names, Hermes maps), each distinct place once.
pub fn resolve_classes(
    rows: Vec<ClassRow>,
    heap: &Heap,
    symbols: &crate::symbolicate::SymbolSet,
    progress: &mut dyn crate::model::Progress,
) -> Result<Vec<ResolvedClass>, super::Error> {
    use crate::model::{LocationInterner, Profile, ProfileLocation};
    let defined = heap.definitions(&rows);
    let mut interner = LocationInterner::default();
    let loc_of: Vec<Option<u32>> = defined
        .iter()
        .map(|d| {
            d.as_ref().map(|d| {
                interner.intern(ProfileLocation {
                    function: d.generated_name.clone(),
                    url: d.url.clone(),
                    script_id: String::new(),
                    line: i64::from(d.line),
                    column: i64::from(d.column),
                    function_start: -1,
                    return_address: false,
                })
            })
        })
        .collect();
    let profile = Profile {
        locations: interner.locations,
        ..Profile::default()
    };
    let resolved = super::profile::symbolicate_profile(
        "heap",
        std::sync::Arc::new(profile),
        symbols,
        progress,
    )?;
    Ok(rows
        .into_iter()
        .zip(defined)
        .zip(loc_of)
        .map(|((row, defined), loc)| {
            let (original, note) = match loc {
                Some(l) => {
                    let (status, note) = resolved.status(l);
                    if status == Some(crate::model::FrameStatus::Resolved) {
                        (Some(resolved.function_place(l)), None)
                    } else {
                        (None, note.map(str::to_owned))
                    }
                }
                None => (None, None),
            };
            let looked_up = loc
                .filter(|_| original.is_some())
                .and_then(|l| resolved.frame(l))
                .and_then(|f| Some((f.symbol_file()?.to_owned(), f.generated()?)))
                .map(|(file, (line, column))| (file, line, column));
            ResolvedClass {
                row,
                defined,
                original,
                note,
                looked_up,
            }
        })
        .collect())
}

/// The JSON document of `symscope heap` (its contract):
///
/// ```text
/// {"snapshot": "after.heapsnapshot", "nodes": 98234, "edges": 402114, "self_size": 6123456,
///  "retained_size": "DevTools' (dominator tree from the root; weak edges and shortcuts other
///                    than the root's do not retain)",
///  "constructors": [            // by retained size, the first --top N
///    {"name": "MapCache",        // the original name where the map resolves it, else as recorded
///     "generated_name": "Gr",    // as the snapshot records it
///     "file": "node_modules/lodash/lodash.js", "line": 2178, "column": 4,  // 1-based line,
///                                //   0-based column of the definition; null when unknown
///     "url": "/app/out/lodash.min.js", "generated_line": 8, "generated_column": 11636,
///                                //   where the snapshot puts it (0-based), null when unknown
///     "status": "resolved" | "no_symbols" | …, "note": "why not resolved" | null,
///     "count": 101, "self_size": 4040, "retained_size": 147520}],
///  "compare": {                  // with --compare OTHER: SNAPSHOT against OTHER, by node id
///    "baseline": "before.heapsnapshot",
///    "constructors": [{"name", "generated_name", "added", "added_size", "freed",
///                      "freed_size"}]},  // by added less freed bytes
///  "allocations": […]}          // timelines: the allocating functions, by bytes
///                               //   (contract: `engine::allocations::to_json`)
/// ```
///
/// Sizes are bytes; counts and sizes cover the objects of non-zero self size (native ones
/// always), as DevTools' Summary does.
pub fn to_json(
    name: &str,
    heap: &Heap,
    classes: &[ResolvedClass],
    compare: Option<(&str, &[ClassChange], &[ResolvedClass])>,
) -> serde_json::Value {
    use serde_json::json;
    let constructors: Vec<serde_json::Value> = classes
        .iter()
        .map(|c| {
            let o = c.original.as_ref();
            json!({
                "name": c.name(),
                "generated_name": c.row.name,
                "file": o.and_then(|p| p.file.clone()),
                "line": o.and_then(|p| p.line),
                "column": o.and_then(|p| p.column),
                "url": c.defined.as_ref().map(|d| d.url.clone()),
                "generated_line": c.defined.as_ref().map(|d| d.line),
                "generated_column": c.defined.as_ref().map(|d| d.column),
                "status": if o.is_some() { Some("resolved") } else if c.defined.is_some() { Some("no_symbols") } else { None },
                "note": c.note,
                "count": c.row.count,
                "self_size": c.row.self_size,
                "retained_size": c.row.retained_size,
            })
        })
        .collect();
    let mut doc = json!({
        "snapshot": name,
        "nodes": heap.node_count(),
        "edges": heap.edge_count(),
        "self_size": heap.total_size(),
        "retained_size": "DevTools' (dominator tree from the root; weak edges and shortcuts other than the root's do not retain)",
        "constructors": constructors,
    });
    if let Some((baseline, changes, names)) = compare {
        let original = |generated: &str| {
            names
                .iter()
                .find(|c| c.row.name == generated)
                .map_or(generated.to_owned(), |c| c.name().to_owned())
        };
        doc["compare"] = json!({
            "baseline": baseline,
            "constructors": changes.iter().map(|c| json!({
                "name": original(&c.name),
                "generated_name": c.name,
                "added": c.added, "added_size": c.added_size,
                "freed": c.freed, "freed_size": c.freed_size,
            })).collect::<Vec<_>>(),
        });
    }
    doc
}

/// The Summary (and the comparison) as text tables.
pub fn to_text(
    name: &str,
    heap: &Heap,
    classes: &[ResolvedClass],
    compare: Option<(&str, &[ClassChange], &[ResolvedClass])>,
) -> String {
    let mut out = format!(
        "{name}: {} objects, {} edges, {} bytes\n{:>8} {:>12} {:>12}  constructor\n",
        heap.node_count(),
        heap.edge_count(),
        heap.total_size(),
        "count",
        "self",
        "retained"
    );
    for c in classes {
        let place = match c.original.as_ref() {
            Some(p) => format!(
                "  {}:{}{}",
                p.file.as_deref().unwrap_or("?"),
                p.line.map_or(String::new(), |l| l.to_string()),
                if c.row.name != c.name() {
                    format!(" (was {})", c.row.name)
                } else {
                    String::new()
                }
            ),
            None => String::new(),
        };
        out.push_str(&format!(
            "{:>8} {:>12} {:>12}  {}{place}\n",
            c.row.count,
            c.row.self_size,
            c.row.retained_size,
            c.name()
        ));
    }
    if let Some((baseline, changes, names)) = compare {
        out.push_str(&format!(
            "\nagainst {baseline}, by node id:\n{:>8} {:>12} {:>8} {:>12}  constructor\n",
            "added", "bytes", "freed", "bytes"
        ));
        for c in changes {
            let shown = names
                .iter()
                .find(|r| r.row.name == c.name)
                .map_or(c.name.as_str(), |r| r.name());
            out.push_str(&format!(
                "{:>8} {:>12} {:>8} {:>12}  {shown}\n",
                c.added, c.added_size, c.freed, c.freed_size
            ));
        }
    }
    out
}

/// Reads a heap snapshot file's graph from `input` (`name` names it in errors).
pub fn read_heap(name: &str, input: impl std::io::Read) -> Result<Heap, super::Error> {
    read_heap_with(name, input, 0, None, &mut crate::model::NoProgress)
}

/// [`read_heap`], `progress` told how many of `total` bytes (the file's size; 0: unknown)
/// are read (every few megabytes) and of each phase after, and asked each time whether to
/// go on: a cancelled read stops within megabytes. With `beside` (the file opened again at
/// an offset, and a runner), the edges are read on a second thread while the nodes are
/// read on this one ([`crate::formats::heapsnapshot::read_beside`]).
pub fn read_heap_with(
    name: &str,
    input: impl std::io::Read,
    total: u64,
    beside: Option<crate::formats::heapsnapshot::Beside<'_>>,
    progress: &mut dyn crate::model::Progress,
) -> Result<Heap, super::Error> {
    /// The input, reporting as it is read.
    struct Reporting<'p, R> {
        input: R,
        read: u64,
        next: u64,
        total: u64,
        progress: &'p mut dyn crate::model::Progress,
        cancelled: bool,
    }
    const EVERY: u64 = 4 << 20;
    impl<R: std::io::Read> std::io::Read for Reporting<'_, R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.read >= self.next {
                self.next = self.read + EVERY;
                let step = self
                    .progress
                    .step("read heap snapshot", self.read, self.total);
                if step.is_break() {
                    self.cancelled = true;
                    return Err(std::io::Error::other("cancelled"));
                }
            }
            let n = self.input.read(buf)?;
            self.read += n as u64;
            Ok(n)
        }
    }
    let error = |r| super::Error::new(name, r);
    let mut reporting = Reporting {
        input,
        read: 0,
        next: 0,
        total,
        progress,
        cancelled: false,
    };
    let snap = crate::formats::heapsnapshot::read_beside(&mut reporting, total, beside);
    if reporting.cancelled {
        return Err(error(super::Reason::Cancelled));
    }
    let snap = snap.map_err(|e| error(super::Reason::Heap(e)))?;
    Heap::new_with(snap, reporting.progress).map_err(|e| match e {
        Stopped::Heap(e) => error(super::Reason::Heap(e)),
        Stopped::Cancelled => error(super::Reason::Cancelled),
    })
}
