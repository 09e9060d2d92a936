//! The views of a CPU profile the window draws, computed here once per question (pure, no
//! drawing): the flame chart (time on x, one row per depth), the call tree top-down and
//! bottom-up with self and total time over a time range, the left-heavy flame graph drawn
//! from the top-down tree, and two profiles' functions compared. Times follow
//! [`Profile::sample_durations_us`] (DevTools' rule), as `symscope profile` counts them; the
//! root entry (a node without parent: V8's `(root)`, Hermes' `[root]`) is left out, as in
//! the folded stacks.

use super::profile::{Place, ResolvedProfile};
use crate::model::Profile;
use std::collections::{HashMap, HashSet};

/// One bar: `[start, end)` on the view's axis (µs of profile time, or of weight in a flame
/// graph), and what it shows (a profile node's index, a call tree node's, a job's…).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Where it starts.
    pub start: i64,
    /// Where it ends (exclusive).
    pub end: i64,
    /// What it shows, by the index its owner gives it.
    pub id: u32,
}

/// Bars in rows (row 0 on top), each row sorted by start, bars of a row never overlapping:
/// what the timeline widget draws.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    /// The rows.
    pub rows: Vec<Vec<Span>>,
    /// Where the axis starts.
    pub start: i64,
    /// Where the axis ends.
    pub end: i64,
}

/// The id of a bar that stands for several bars too short to see apart.
pub const MERGED: u32 = u32::MAX;

impl Rows {
    /// These rows with every run of bars shorter than `min_len` (and the gaps between them)
    /// merged into one bar of id [`MERGED`]: what a zoomed-out view draws, its cost bounded
    /// by the axis over `min_len` per row, whatever the bars.
    pub fn coarsen(&self, min_len: i64) -> Rows {
        let rows = self
            .rows
            .iter()
            .map(|row| {
                let mut out: Vec<Span> = Vec::new();
                // The run being merged: its first bar's index in `out`, and how many.
                let mut run: Option<(usize, usize)> = None;
                for &s in row {
                    if s.end.saturating_sub(s.start) >= min_len {
                        run = None;
                        out.push(s);
                        continue;
                    }
                    match &mut run {
                        Some((at, n)) if s.start.saturating_sub(out[*at].end) < min_len => {
                            out[*at].end = s.end;
                            out[*at].id = MERGED;
                            *n += 1;
                        }
                        _ => {
                            run = Some((out.len(), 1));
                            out.push(s);
                        }
                    }
                }
                out
            })
            .collect();
        Rows {
            rows,
            start: self.start,
            end: self.end,
        }
    }

    /// Coarser copies of these rows for zoomed-out views, coarsest first: each level's
    /// short bars merged below its length (the first 1/16,384 of the axis, each next a
    /// sixteenth of the one before), kept while a level holds under a quarter of the bars.
    pub fn levels(&self) -> Vec<(i64, Rows)> {
        let total: usize = self.rows.iter().map(Vec::len).sum();
        let mut levels = Vec::new();
        let mut min_len = (self.end - self.start) / 16_384;
        while min_len > 0 {
            let level = self.coarsen(min_len);
            let n: usize = level.rows.iter().map(Vec::len).sum();
            if n >= total / 4 {
                break;
            }
            levels.push((min_len, level));
            min_len /= 16;
        }
        levels
    }
    /// The bars of `row` that meet `[from, to)`, found by binary search.
    pub fn visible(&self, row: usize, from: i64, to: i64) -> &[Span] {
        let Some(spans) = self.rows.get(row) else {
            return &[];
        };
        let first = spans.partition_point(|s| s.end <= from);
        let last = spans.partition_point(|s| s.start < to);
        &spans[first..last.max(first)]
    }

    /// The bar of `row` at `at`.
    pub fn at(&self, row: usize, at: i64) -> Option<Span> {
        self.visible(row, at, at.saturating_add(1)).first().copied()
    }

    /// A bar's self length: its length less that of the bars under it in the next row.
    pub fn self_len(&self, row: usize, span: Span) -> i64 {
        let children = self
            .visible(row + 1, span.start, span.end)
            .iter()
            .map(|c| c.end.min(span.end).saturating_sub(c.start.max(span.start)))
            .fold(0i64, i64::saturating_add);
        span.end
            .saturating_sub(span.start)
            .saturating_sub(children)
            .max(0)
    }
}

/// The flame chart of `profile`: a bar per run of consecutive samples with the same node at
/// a depth (its id: the node's index), from the first sample's time to the end of the last
/// one's duration.
pub fn flame_chart(profile: &Profile) -> Rows {
    chart(profile, None)
}

/// [`flame_chart`] with library frames hidden (DevTools' ignore list in its flame chart): a
/// sample's bars are its path without library functions, so their time shows in their
/// callers' bars; a path of library code alone keeps its outermost frame (as the call trees
/// do, [`top_down`]).
pub fn flame_chart_without_library(profile: &Profile, functions: &Functions) -> Rows {
    chart(profile, Some(functions))
}

fn chart(profile: &Profile, hide: Option<&Functions>) -> Rows {
    let library = |n: u32| {
        hide.is_some_and(|f| {
            f.library
                .get(f.of_node(profile, n) as usize)
                .copied()
                .unwrap_or(false)
        })
    };
    let durations = profile.sample_durations_us();
    let mut rows: Vec<Vec<Span>> = Vec::new();
    // The bars still open, outermost first: (node, start).
    let mut open: Vec<(u32, i64)> = Vec::new();
    let mut path: Vec<u32> = Vec::new();
    let close = |rows: &mut Vec<Vec<Span>>, depth: usize, (id, start): (u32, i64), end: i64| {
        if rows.len() <= depth {
            rows.resize_with(depth + 1, Vec::new);
        }
        if end > start {
            rows[depth].push(Span { start, end, id });
        }
    };
    let mut end = profile.start_us;
    for (i, (&leaf, &t)) in profile.samples.iter().zip(&profile.times_us).enumerate() {
        path.clear();
        let mut at = Some(leaf);
        // A cycle cannot occur (the reader refuses one); the bound keeps a hand-made
        // profile finite.
        while let Some(n) = at.filter(|_| path.len() <= profile.nodes.len()) {
            let Some(node) = profile.nodes.get(n as usize) else {
                break;
            };
            if node.parent.is_some() {
                path.push(n);
            }
            at = node.parent;
        }
        path.reverse();
        if hide.is_some() {
            let first = path.first().copied();
            path.retain(|&n| !library(n));
            if path.is_empty() {
                path.extend(first);
            }
        }
        let same = open
            .iter()
            .zip(&path)
            .take_while(|((a, _), b)| a == *b)
            .count();
        while open.len() > same {
            let depth = open.len() - 1;
            let bar = open.pop().unwrap_or_default();
            close(&mut rows, depth, bar, t);
        }
        open.extend(path[same..].iter().map(|&n| (n, t)));
        end = t.saturating_add(durations[i]);
    }
    while let Some(bar) = open.pop() {
        close(&mut rows, open.len(), bar, end);
    }
    Rows {
        rows,
        start: profile
            .start_us
            .min(profile.times_us.first().copied().unwrap_or(i64::MAX)),
        end: profile.end_us.max(end),
    }
}

/// The distinct places of a profile's locations: what its views group by.
#[derive(Clone, Debug, Default)]
pub struct Functions {
    /// Each distinct place once.
    pub places: Vec<Place>,
    /// Each location's place, an index into `places`.
    pub of_location: Vec<u32>,
    /// Whether each place is library code (its frame is, as the stack list folds it: the
    /// runtime's own, an unmapped `node_modules` file, a source on the map's ignore list).
    pub library: Vec<bool>,
}

impl Functions {
    /// The places of `resolved`'s locations (original ones where resolved).
    pub fn new(resolved: &ResolvedProfile) -> Self {
        let mut index: HashMap<Place, u32> = HashMap::new();
        let mut places = Vec::new();
        let mut library = Vec::new();
        let of_location = (0..resolved.profile.locations.len() as u32)
            .map(|l| {
                let place = resolved.function_place(l);
                let k = *index.entry(place.clone()).or_insert_with(|| {
                    places.push(place);
                    library.push(false);
                    places.len() as u32 - 1
                });
                if resolved.frame(l).is_some_and(|f| f.is_library()) {
                    library[k as usize] = true;
                }
                k
            })
            .collect();
        Self {
            places,
            of_location,
            library,
        }
    }

    /// The place of node `node` of `profile`.
    pub fn of_node(&self, profile: &Profile, node: u32) -> u32 {
        self.of_location[profile.nodes[node as usize].location as usize]
    }

    /// A place's name as shown: its function, or `(anonymous)`.
    pub fn name(&self, place: u32) -> &str {
        self.places[place as usize]
            .function
            .as_deref()
            .unwrap_or("(anonymous)")
    }
}

/// Each node's self time (µs) and sample count over the samples whose time is in `range`
/// (`[from, to)`; `None`: all). A profile read as totals (allocations: bytes and objects) has
/// no times: its totals, whatever the range.
pub fn node_weights(profile: &Profile, range: Option<(i64, i64)>) -> (Vec<i64>, Vec<u64>) {
    if let Some(t) = &profile.totals {
        return (t.self_us.clone(), t.hits.clone());
    }
    let durations = profile.sample_durations_us();
    let mut weight = vec![0i64; profile.nodes.len()];
    let mut hits = vec![0u64; profile.nodes.len()];
    let (first, last) = match range {
        Some((from, to)) => (
            profile.times_us.partition_point(|&t| t < from),
            profile.times_us.partition_point(|&t| t < to),
        ),
        None => (0, profile.samples.len()),
    };
    let last = last.min(profile.samples.len());
    for (&n, &d) in profile.samples[first.min(last)..last]
        .iter()
        .zip(&durations[first.min(last)..last])
    {
        if let (Some(w), Some(h)) = (weight.get_mut(n as usize), hits.get_mut(n as usize)) {
            *w = w.saturating_add(d);
            *h += 1;
        }
    }
    (weight, hits)
}

/// One node of a call tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallNode {
    /// Its function, an index into [`Functions::places`].
    pub function: u32,
    /// Its parent (top-down: the caller; bottom-up: the callee).
    pub parent: Option<u32>,
    /// Its children.
    pub children: Vec<u32>,
    /// Self time, µs: top-down, the samples it is the leaf of; bottom-up, those of the
    /// top-level function through this path.
    pub self_us: i64,
    /// Total time, µs: the samples under it, each once.
    pub total_us: i64,
}

/// A call tree: nodes merged by function along each path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallTree {
    /// The nodes; a parent before its children.
    pub nodes: Vec<CallNode>,
    /// The top-level nodes.
    pub roots: Vec<u32>,
    /// The time of every sample counted, µs (what percentages are of).
    pub total_us: i64,
}

impl CallTree {
    fn child(
        &mut self,
        index: &mut HashMap<(Option<u32>, u32), u32>,
        parent: Option<u32>,
        function: u32,
    ) -> u32 {
        *index.entry((parent, function)).or_insert_with(|| {
            let id = self.nodes.len() as u32;
            self.nodes.push(CallNode {
                function,
                parent,
                ..CallNode::default()
            });
            match parent {
                Some(p) => self.nodes[p as usize].children.push(id),
                None => self.roots.push(id),
            }
            id
        })
    }

    /// The left-heavy flame graph of this tree: a bar per node as wide as its total time,
    /// children under it from the left, largest first (its id: the node's index).
    pub fn flame_graph(&self) -> Rows {
        let mut rows: Vec<Vec<Span>> = Vec::new();
        let mut stack: Vec<(u32, i64, usize)> = Vec::new();
        let by_total = |ids: &[u32]| {
            let mut ids = ids.to_vec();
            ids.sort_by_key(|&i| std::cmp::Reverse(self.nodes[i as usize].total_us));
            ids
        };
        let mut x = 0;
        for id in by_total(&self.roots) {
            stack.push((id, x, 0));
            x = x.saturating_add(self.nodes[id as usize].total_us);
        }
        // Depth-first; each row stays sorted because a row's bars are laid out left to right.
        stack.reverse();
        while let Some((id, start, depth)) = stack.pop() {
            let node = &self.nodes[id as usize];
            if node.total_us <= 0 {
                continue;
            }
            if rows.len() <= depth {
                rows.resize_with(depth + 1, Vec::new);
            }
            rows[depth].push(Span {
                start,
                end: start.saturating_add(node.total_us),
                id,
            });
            let mut x = start;
            let mut children = Vec::new();
            for c in by_total(&node.children) {
                children.push((c, x, depth + 1));
                x = x.saturating_add(self.nodes[c as usize].total_us);
            }
            stack.extend(children.into_iter().rev());
        }
        for row in &mut rows {
            row.sort_by_key(|s| s.start);
        }
        Rows {
            rows,
            start: 0,
            end: x.max(self.total_us),
        }
    }

    /// The path of function indexes from the top to `node`.
    pub fn path(&self, node: u32) -> Vec<u32> {
        let mut path = Vec::new();
        let mut at = Some(node);
        while let Some(n) = at {
            path.push(self.nodes[n as usize].function);
            at = self.nodes[n as usize].parent;
        }
        path.reverse();
        path
    }
}

/// Each node's path of functions from the top (root entry left out), outermost first; with
/// `hide_library`, library functions left out too (their time goes to the nearest caller
/// shown, as DevTools' ignore list does; a path of library code alone keeps its outermost).
fn node_path(
    profile: &Profile,
    functions: &Functions,
    node: u32,
    hide_library: bool,
    path: &mut Vec<u32>,
) {
    path.clear();
    let mut at = Some(node);
    while let Some(n) = at.filter(|_| path.len() <= profile.nodes.len()) {
        let node = profile.nodes[n as usize];
        if node.parent.is_some() {
            path.push(functions.of_location[node.location as usize]);
        }
        at = node.parent;
    }
    path.reverse();
    if hide_library {
        let first = path.first().copied();
        path.retain(|&f| !functions.library.get(f as usize).copied().unwrap_or(false));
        if path.is_empty() {
            path.extend(first);
        }
    }
}

/// The top-down call tree over the samples in `range`: callers above callees, nodes merged
/// by function along each path (DevTools' Call Tree).
pub fn top_down(
    profile: &Profile,
    functions: &Functions,
    range: Option<(i64, i64)>,
    hide_library: bool,
) -> CallTree {
    let mut tree = CallTree::default();
    let mut index = HashMap::new();
    for_each_path(profile, functions, range, hide_library, |path, w| {
        let mut at = None;
        for &f in path {
            let id = tree.child(&mut index, at, f);
            let node = &mut tree.nodes[id as usize];
            node.total_us = node.total_us.saturating_add(w);
            at = Some(id);
        }
        if let Some(id) = at {
            let node = &mut tree.nodes[id as usize];
            node.self_us = node.self_us.saturating_add(w);
            tree.total_us = tree.total_us.saturating_add(w);
        }
    });
    tree
}

/// Calls `each` with the path of functions (outermost first, see [`node_path`]) of every
/// node with samples in `range`, and their time; a node of the root entry alone is passed
/// over (no function to count it for).
fn for_each_path(
    profile: &Profile,
    functions: &Functions,
    range: Option<(i64, i64)>,
    hide_library: bool,
    mut each: impl FnMut(&[u32], i64),
) {
    let (weight, _) = node_weights(profile, range);
    let mut path = Vec::new();
    for (n, &w) in weight.iter().enumerate() {
        if w <= 0 {
            continue;
        }
        node_path(profile, functions, n as u32, hide_library, &mut path);
        if !path.is_empty() {
            each(&path, w);
        }
    }
}

/// The bottom-up call tree over the samples in `range` (DevTools' Bottom-Up): every function
/// on top with its self and total time (each sample once however deep the recursion), its
/// callers under it, each with the top function's time through that path.
pub fn bottom_up(
    profile: &Profile,
    functions: &Functions,
    range: Option<(i64, i64)>,
    hide_library: bool,
) -> CallTree {
    let mut tree = CallTree::default();
    let mut index = HashMap::new();
    let mut seen = HashSet::new();
    for_each_path(profile, functions, range, hide_library, |path, w| {
        tree.total_us = tree.total_us.saturating_add(w);
        seen.clear();
        // Each function from its innermost call, with its callers outward.
        for j in (0..path.len()).rev() {
            if !seen.insert(path[j]) {
                continue;
            }
            let mut at = None;
            for &f in path[..=j].iter().rev() {
                let id = tree.child(&mut index, at, f);
                let node = &mut tree.nodes[id as usize];
                node.total_us = node.total_us.saturating_add(w);
                if j == path.len() - 1 {
                    node.self_us = node.self_us.saturating_add(w);
                }
                at = Some(id);
            }
        }
    });
    tree
}

/// One function in two profiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionChange {
    /// Where it is.
    pub place: Place,
    /// Self time in the first profile, µs.
    pub self_a: i64,
    /// Self time in the second.
    pub self_b: i64,
    /// Total time in the first.
    pub total_a: i64,
    /// Total time in the second.
    pub total_b: i64,
}

impl FunctionChange {
    /// The change in self time, µs (positive: slower in the second).
    pub fn delta(&self) -> i64 {
        self.self_b.saturating_sub(self.self_a)
    }
}

/// The functions of two profiles by change in self time, largest change first; a function
/// of one only (new, or gone) counts zero in the other. Functions match by original name
/// and file name (positions move between builds; a map's source path and a recorded URL
/// name one file differently).
pub fn compare(a: &ResolvedProfile, b: &ResolvedProfile) -> Vec<FunctionChange> {
    let key = |p: &Place| {
        let base = p
            .file
            .as_deref()
            .map(|f| f.rsplit(['/', '\\']).next().unwrap_or(f).to_owned());
        (p.function.clone(), base)
    };
    let mut rows: Vec<FunctionChange> = Vec::new();
    let mut index: HashMap<(Option<String>, Option<String>), usize> = HashMap::new();
    for (side, profile) in [a, b].into_iter().enumerate() {
        for f in profile.functions() {
            let i = *index.entry(key(&f.place)).or_insert_with(|| {
                rows.push(FunctionChange {
                    place: f.place.clone(),
                    self_a: 0,
                    self_b: 0,
                    total_a: 0,
                    total_b: 0,
                });
                rows.len() - 1
            });
            let row = &mut rows[i];
            if side == 0 {
                row.self_a = row.self_a.saturating_add(f.self_us);
                row.total_a = row.total_a.saturating_add(f.total_us);
            } else {
                row.self_b = row.self_b.saturating_add(f.self_us);
                row.total_b = row.total_b.saturating_add(f.total_us);
            }
        }
    }
    rows.sort_by(|x, y| {
        y.delta()
            .unsigned_abs()
            .cmp(&x.delta().unsigned_abs())
            .then_with(|| x.place.function.cmp(&y.place.function))
    });
    rows
}

/// A function's identity across two profiles: its name, file name and line (directories
/// differ between a map's sources and a recorded URL, and a function's column between a
/// map's segment and V8's own record; the original line does not).
fn across(functions: &Functions, f: u32) -> (String, String, Option<u32>) {
    let p = &functions.places[f as usize];
    let file = p
        .file
        .as_deref()
        .map(|f| f.rsplit(['/', '\\']).next().unwrap_or(f).to_owned())
        .unwrap_or_default();
    (functions.name(f).to_owned(), file, p.line)
}

/// The differential flame graph's colours: for each node of `b` (a top-down tree), its total
/// time less that of the same call path in `a` (functions matched by name, file name and
/// original line), µs; a path `a` does not have counts its whole time as new.
pub fn path_deltas(a: &CallTree, fa: &Functions, b: &CallTree, fb: &Functions) -> Vec<i64> {
    type Key = (String, String, Option<u32>);
    // Paths as strings of (name, file) pairs, so that both trees share one key space.
    let path_keys = |t: &CallTree, f: &Functions| -> Vec<Vec<Key>> {
        let mut out: Vec<Vec<Key>> = Vec::with_capacity(t.nodes.len());
        for n in &t.nodes {
            let mut k = n.parent.map_or_else(Vec::new, |p| out[p as usize].clone());
            k.push(across(f, n.function));
            out.push(k);
        }
        out
    };
    let mut in_a: HashMap<Vec<Key>, i64> = HashMap::new();
    for (k, n) in path_keys(a, fa).into_iter().zip(&a.nodes) {
        let e = in_a.entry(k).or_default();
        *e = e.saturating_add(n.total_us);
    }
    // Nodes of one key (two functions alike on one line) share their change.
    let keys_b = path_keys(b, fb);
    let mut in_b: HashMap<&Vec<Key>, i64> = HashMap::new();
    for (k, n) in keys_b.iter().zip(&b.nodes) {
        let e = in_b.entry(k).or_default();
        *e = e.saturating_add(n.total_us);
    }
    keys_b
        .iter()
        .map(|k| in_b[k].saturating_sub(in_a.get(k).copied().unwrap_or(0)))
        .collect()
}
