//! CPU profiles in the window: what a loaded profile holds, how the user looks at it (the
//! profile pane's state and commands), and its view model, computed once per change. A
//! profile shows as soon as it is read (names as recorded); its symbolication runs in a job
//! like a log's, and the names fill in when it finishes.

use super::{AppState, InputId, Loaded};
use crate::engine::flame::{self, CallTree, FunctionChange, Functions, Rows};

use crate::engine::profile::ResolvedProfile;
use crate::model::Weight;
use std::collections::HashSet;
use std::sync::Arc;

/// One CPU profile of an input, resolved as far as the symbol files allow.
#[derive(Clone, Debug)]
pub struct LoadedProfile {
    /// Its label: the file, or a trace's process, thread and id.
    pub label: String,
    /// Each distinct location resolved.
    pub resolved: Arc<ResolvedProfile>,
    /// The locations' places (what the views group by).
    pub functions: Arc<Functions>,
    /// The flame chart (it depends on the samples only, so it is built once).
    pub chart: Arc<Rows>,
    /// The flame chart's coarser levels for zoomed-out views.
    pub levels: Levels,
    /// A trace's threads' duration events, on the profile's clock (none: not a trace).
    pub tracks: Arc<Vec<Track>>,
}

/// One thread's duration events as a timeline track.
#[derive(Clone, Debug)]
pub struct Track {
    /// `thread name (tid N)`.
    pub label: String,
    /// The events as bars (each bar's id: its name's index in `names`), on the profile's axis.
    pub rows: Rows,
    /// The events' names.
    pub names: Arc<Vec<String>>,
}

/// The threads of `tracks` as timeline tracks on `chart`'s axis.
pub fn thread_tracks(tracks: &crate::formats::trace_events::Tracks, chart: &Rows) -> Vec<Track> {
    let names = Arc::new(tracks.names.clone());
    tracks
        .threads
        .iter()
        .map(|t| {
            let mut rows: Vec<Vec<flame::Span>> = Vec::new();
            for e in &t.events {
                let d = e.depth as usize;
                if rows.len() <= d {
                    rows.resize_with(d + 1, Vec::new);
                }
                rows[d].push(flame::Span {
                    start: e.start_us,
                    end: e.end_us.max(e.start_us + 1),
                    id: e.name,
                });
            }
            for row in &mut rows {
                row.sort_by_key(|s| s.start);
            }
            let label = if t.name.is_empty() {
                format!("thread {} (pid {})", t.tid, t.pid)
            } else {
                format!("{} (tid {})", t.name, t.tid)
            };
            Track {
                label,
                rows: Rows {
                    rows,
                    start: chart.start,
                    end: chart.end,
                },
                names: names.clone(),
            }
        })
        .collect()
}

/// A flame chart's coarser levels, with the length under which each merged bars
/// ([`Rows::levels`]).
pub type Levels = Arc<Vec<(i64, Rows)>>;

impl LoadedProfile {
    /// What its weights measure.
    pub fn weight(&self) -> Weight {
        self.resolved.profile.weight
    }

    /// A profile as read, or resolved again (the flame chart and its levels kept from before
    /// when given).
    pub fn new(
        label: String,
        resolved: ResolvedProfile,
        chart: Option<(Arc<Rows>, Levels)>,
    ) -> Self {
        let (chart, levels) = chart.unwrap_or_else(|| {
            let chart = flame::flame_chart(&resolved.profile);
            let levels = Arc::new(chart.levels());
            (Arc::new(chart), levels)
        });
        Self {
            levels,
            tracks: Arc::new(Vec::new()),
            label,
            functions: Arc::new(Functions::new(&resolved)),
            resolved: Arc::new(resolved),
            chart,
        }
    }
}

/// What the profile pane shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ProfileMode {
    /// Time on x, depth on y.
    #[default]
    FlameChart,
    /// The call tree as a left-heavy flame graph.
    FlameGraph,
    /// Callers above callees, with self and total time.
    TopDown,
    /// Every function with its callers under it.
    BottomUp,
    /// Functions by change in self time against another profile.
    Compare,
}

impl ProfileMode {
    /// Every mode, as the pane's tabs list them.
    pub const ALL: [ProfileMode; 5] = [
        Self::FlameChart,
        Self::FlameGraph,
        Self::TopDown,
        Self::BottomUp,
        Self::Compare,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Self::FlameChart => "Flame chart",
            Self::FlameGraph => "Flame graph",
            Self::TopDown => "Top-down",
            Self::BottomUp => "Bottom-up",
            Self::Compare => "Compare",
        }
    }
}

/// How the call tree's rows are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreeSort {
    /// Largest total time first.
    #[default]
    Total,
    /// Largest self time first.
    SelfTime,
    /// By name.
    Name,
}

/// A span of a timeline on the axis, in the axis's units (µs).
pub type Window = (f64, f64);

/// How the user looks at a profile: never saved.
#[derive(Clone, Debug, Default)]
pub struct ProfileView {
    /// The profile shown: an input and the index of its profile (`None`: the first loaded).
    pub shown: Option<(InputId, usize)>,
    /// The view.
    pub mode: ProfileMode,
    /// Function names matching this are highlighted in every view.
    pub search: String,
    /// The time range selected on the axis (µs, profile clock): every view counts only it.
    pub range: Option<(i64, i64)>,
    /// The flame chart's visible window (`None`: the whole profile).
    pub chart_window: Option<Window>,
    /// The flame graph's visible window.
    pub graph_window: Option<Window>,
    /// The selected function (an index into the profile's places) and node, when one was
    /// clicked.
    pub selected: Option<Selected>,
    /// The call tree rows the user opened, by their path of functions.
    pub expanded: HashSet<Vec<u32>>,
    /// The call tree's order.
    pub sort: TreeSort,
    /// The profile compared with.
    pub compare_with: Option<(InputId, usize)>,
    /// The user closed the pane (it comes back when a profile is added or chosen).
    pub closed: bool,
    /// The frame detail shows the selected function (it was selected after any frame).
    pub detail_shown: bool,
    /// The call trees and the flame graph leave library functions out, their time counted
    /// for their callers (as the stack list folds library frames).
    pub hide_library: bool,
    /// The comparison shows the differential flame graph (else the functions table).
    pub compare_graph: bool,
}

/// The differential flame graph of a comparison: the other profile's (B's) top-down tree,
/// each node coloured by its change against the same call path in the shown one (A).
#[derive(Clone, Debug)]
pub struct DiffGraph {
    /// B's top-down tree.
    pub tree: CallTree,
    /// B's places.
    pub functions: Arc<Functions>,
    /// The tree as a left-heavy flame graph.
    pub rows: Rows,
    /// Each node's total time less A's on the same path, µs.
    pub deltas: Vec<i64>,
    /// The largest change either way (what the colours scale to).
    pub largest: i64,
}

/// What was clicked in a profile view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selected {
    /// Its place.
    pub function: u32,
    /// The profile node (flame chart) it was clicked on, when there is one.
    pub node: Option<u32>,
}

/// A request for the profile pane.
#[derive(Debug)]
pub enum ProfileCommand {
    /// Show this profile (an input and the index of its profile).
    Show(InputId, usize),
    /// Switch view.
    Mode(ProfileMode),
    /// Highlight the functions matching this.
    Search(String),
    /// Select a time range (µs), or none.
    SetRange(Option<(i64, i64)>),
    /// The flame chart's visible window (`None`: all).
    ChartWindow(Option<Window>),
    /// The flame graph's visible window.
    GraphWindow(Option<Window>),
    /// Select a function (and node), or none.
    Select(Option<Selected>),
    /// Open or close a call tree row (its path of functions).
    Toggle(Vec<u32>),
    /// Order the call tree.
    Sort(TreeSort),
    /// Compare with this profile, or stop.
    CompareWith(Option<(InputId, usize)>),
    /// Open the segment inspector at the selected function's generated position.
    InspectSelected,
    /// Leave library functions out of the call trees and the flame graph, or show them.
    HideLibrary(bool),
    /// Show the comparison as a differential flame graph (`true`) or a table.
    CompareGraph(bool),
}

impl From<ProfileCommand> for super::Command {
    fn from(c: ProfileCommand) -> Self {
        Self::Profile(c)
    }
}

/// What the profile pane draws this frame.
#[derive(Clone, Debug)]
pub struct ProfileModel {
    /// The input and index shown.
    pub shown: (InputId, usize),
    /// The view shown: the chosen one, the flame graph for a profile without a timeline
    /// (allocations are weighed in bytes, not laid out in time).
    pub mode: ProfileMode,
    /// The profile.
    pub profile: LoadedProfile,
    /// Every loaded profile: input, index and label (for the picker).
    pub all: Vec<(InputId, usize, String)>,
    /// The other profiles weighed as this one is (what it can be compared with).
    pub comparable: Vec<(InputId, usize, String)>,
    /// The call tree of the mode (top-down for the flame graph), over the range.
    pub tree: Option<Arc<CallTree>>,
    /// The flame graph, in the flame graph mode.
    pub graph: Option<Arc<Rows>>,
    /// The comparison, in the compare mode with a profile to compare with.
    pub compare: Option<Arc<Vec<FunctionChange>>>,
    /// The differential flame graph, when the comparison shows it.
    pub diff: Option<Arc<DiffGraph>>,
    /// Which places match the search (empty: no search).
    pub matches: Arc<Vec<bool>>,
    /// The profile is being resolved.
    pub resolving: bool,
    /// The flame chart shown and its coarser levels: the profile's, or with library frames
    /// hidden.
    pub chart: (Arc<Rows>, Levels),
}

/// What the model depends on.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct ModelKey {
    shown: (InputId, usize),
    resolved: usize,
    mode: ProfileMode,
    hide_library: bool,
    compare_graph: bool,
    range: Option<(i64, i64)>,
    search: String,
    compare: Option<(InputId, usize, usize)>,
}

impl AppState {
    /// Every loaded profile: input, index, label.
    /// (A heap timeline's allocation stacks are its profile 0.)
    pub fn loaded_profiles(&self) -> Vec<(InputId, usize, String)> {
        self.inputs
            .iter()
            .filter_map(|e| match &e.loaded {
                Some(Loaded::Profiles(list)) => Some((e.id, list.as_slice())),
                Some(Loaded::Heap(h)) => {
                    Some((e.id, std::slice::from_ref(h.allocations.as_ref()?)))
                }
                _ => None,
            })
            .flat_map(|(id, list)| {
                list.iter()
                    .enumerate()
                    .map(move |(i, p)| (id, i, p.label.clone()))
            })
            .collect()
    }

    /// A loaded profile (a heap timeline's allocation stacks: its profile 0).
    pub fn profile(&self, (input, index): (InputId, usize)) -> Option<&LoadedProfile> {
        match &self.inputs.iter().find(|e| e.id == input)?.loaded {
            Some(Loaded::Profiles(list)) => list.get(index),
            Some(Loaded::Heap(h)) if index == 0 => h.allocations.as_ref(),
            _ => None,
        }
    }

    /// The profile shown: the one chosen, else the first loaded.
    pub fn shown_profile(&self) -> Option<(InputId, usize)> {
        self.view
            .profile
            .shown
            .filter(|&s| self.profile(s).is_some())
            .or_else(|| {
                self.loaded_profiles()
                    .first()
                    .map(|&(input, index, _)| (input, index))
            })
    }

    /// The profile pane's model (cached per profile, resolution, view, range and search).
    pub fn profile_model(&mut self) -> Option<Arc<ProfileModel>> {
        let shown = self.shown_profile()?;
        let profile = self.profile(shown)?.clone();
        let view = &self.view.profile;
        let other = view
            .compare_with
            .filter(|_| view.mode == ProfileMode::Compare)
            .and_then(|s| Some((s, self.profile(s)?.clone())));
        let key = ModelKey {
            shown,
            resolved: Arc::as_ptr(&profile.resolved) as usize,
            mode: view.mode,
            hide_library: view.hide_library,
            compare_graph: view.compare_graph,
            range: view.range,
            search: view.search.clone(),
            compare: other
                .as_ref()
                .map(|((i, n), p)| (*i, *n, Arc::as_ptr(&p.resolved) as usize)),
        };
        if let Some((k, model)) = &self.profile_cache
            && *k == key
        {
            return Some(model.clone());
        }
        let p = &profile.resolved.profile;
        let mode = match view.mode {
            ProfileMode::FlameChart if p.weight == Weight::Bytes => ProfileMode::FlameGraph,
            m => m,
        };
        let tree = match mode {
            ProfileMode::TopDown | ProfileMode::FlameGraph => Some(Arc::new(flame::top_down(
                p,
                &profile.functions,
                view.range,
                view.hide_library,
            ))),
            ProfileMode::BottomUp => Some(Arc::new(flame::bottom_up(
                p,
                &profile.functions,
                view.range,
                view.hide_library,
            ))),
            _ => None,
        };
        let graph = (mode == ProfileMode::FlameGraph)
            .then(|| tree.as_ref().map(|t| Arc::new(t.flame_graph())))
            .flatten();
        let diff = other.as_ref().filter(|_| view.compare_graph).map(|(_, o)| {
            let a = flame::top_down(p, &profile.functions, None, view.hide_library);
            let tree = flame::top_down(&o.resolved.profile, &o.functions, None, view.hide_library);
            let deltas = flame::path_deltas(&a, &profile.functions, &tree, &o.functions);
            let largest = deltas.iter().map(|d| d.saturating_abs()).max().unwrap_or(0);
            Arc::new(DiffGraph {
                rows: tree.flame_graph(),
                tree,
                functions: o.functions.clone(),
                deltas,
                largest,
            })
        });
        let compare = other.map(|(_, o)| Arc::new(flame::compare(&profile.resolved, &o.resolved)));
        let needle = view.search.trim().to_lowercase();
        let matches = if needle.is_empty() {
            Vec::new()
        } else {
            (0..profile.functions.places.len() as u32)
                .map(|f| {
                    let place = &profile.functions.places[f as usize];
                    profile.functions.name(f).to_lowercase().contains(&needle)
                        || place
                            .file
                            .as_deref()
                            .is_some_and(|file| file.to_lowercase().contains(&needle))
                })
                .collect()
        };
        // The chart without library frames is built once per resolution of the profile.
        let chart = if view.hide_library && mode == ProfileMode::FlameChart {
            match &self.library_chart {
                Some((k, chart)) if *k == key.resolved => chart.clone(),
                _ => {
                    let rows = flame::flame_chart_without_library(p, &profile.functions);
                    let levels = Arc::new(rows.levels());
                    let chart = (Arc::new(rows), levels);
                    self.library_chart = Some((key.resolved, chart.clone()));
                    chart
                }
            }
        } else {
            (profile.chart.clone(), profile.levels.clone())
        };
        let model = Arc::new(ProfileModel {
            chart,
            shown,
            mode,
            comparable: self
                .loaded_profiles()
                .into_iter()
                .filter(|&(i, n, _)| {
                    (i, n) != shown
                        && self.profile((i, n)).map(LoadedProfile::weight) == Some(p.weight)
                })
                .collect(),
            all: self.loaded_profiles(),
            resolving: self.running.symbolicating.contains_key(&shown.0),
            profile,
            tree,
            graph,
            compare,
            diff,
            matches: Arc::new(matches),
        });
        self.profile_cache = Some((key, model.clone()));
        Some(model)
    }

    /// Applies a request for the profile pane.
    pub(super) fn apply_profile(&mut self, c: ProfileCommand) {
        let view = &mut self.view.profile;
        match c {
            ProfileCommand::Show(input, index) => {
                if view.shown != Some((input, index)) {
                    *view = ProfileView {
                        shown: Some((input, index)),
                        mode: view.mode,
                        hide_library: view.hide_library,
                        compare_graph: view.compare_graph,
                        sort: view.sort,
                        compare_with: view.compare_with,
                        ..ProfileView::default()
                    };
                }
                view.closed = false;
                self.show_pane = Some(super::Pane::Profile);
            }
            ProfileCommand::Mode(mode) => {
                view.mode = mode;
                if mode == ProfileMode::Compare && view.compare_with.is_none() {
                    let shown = self.shown_profile();
                    let weight = shown
                        .and_then(|s| self.profile(s))
                        .map(LoadedProfile::weight);
                    self.view.profile.compare_with = self
                        .loaded_profiles()
                        .into_iter()
                        .map(|(i, n, _)| (i, n))
                        .find(|&s| {
                            Some(s) != shown && self.profile(s).map(LoadedProfile::weight) == weight
                        });
                }
            }
            ProfileCommand::Search(s) => view.search = s,
            ProfileCommand::SetRange(r) => {
                view.range = r.filter(|(a, b)| b > a);
                view.expanded.clear();
            }
            ProfileCommand::ChartWindow(w) => view.chart_window = w,
            ProfileCommand::GraphWindow(w) => view.graph_window = w,
            ProfileCommand::Select(s) => {
                view.selected = s;
                view.detail_shown = s.is_some();
            }
            ProfileCommand::Toggle(path) => {
                if !view.expanded.remove(&path) {
                    view.expanded.insert(path);
                }
            }
            ProfileCommand::Sort(s) => view.sort = s,
            ProfileCommand::CompareWith(w) => view.compare_with = w,
            ProfileCommand::InspectSelected => self.inspect_selected_function(),
            ProfileCommand::CompareGraph(graph) => view.compare_graph = graph,
            ProfileCommand::HideLibrary(hide) => {
                view.hide_library = hide;
                view.expanded.clear();
            }
        }
    }

    /// Opens the inspector at the selected function's generated position (a location of
    /// the shown profile with that place, resolved through a map).
    fn inspect_selected_function(&mut self) {
        let Some(selected) = self.view.profile.selected else {
            return;
        };
        let Some(profile) = self.shown_profile().and_then(|s| self.profile(s)) else {
            return;
        };
        let r = profile.resolved.clone();
        let loc = match selected.node {
            Some(n) => r.profile.nodes.get(n as usize).map(|n| n.location),
            None => profile
                .functions
                .of_location
                .iter()
                .position(|&f| f == selected.function)
                .map(|l| l as u32),
        };
        let Some(frame) = loc.and_then(|l| r.frame(l)) else {
            return;
        };
        if let (Some(file), Some((line, col))) = (frame.symbol_file(), frame.generated()) {
            let file = file.to_owned();
            self.inspect_generated(&file, line, col);
        }
    }
}

/// What the call tree's rows depend on: the tree, its order and the rows opened.
pub(super) type RowsKey = (usize, TreeSort, HashSet<Vec<u32>>);

/// The call tree's rows as shown (node, depth).
pub type TreeRows = Arc<Vec<(u32, usize)>>;

impl AppState {
    /// The call tree's rows as shown, computed once per tree, order and opened rows (not
    /// every frame).
    pub(super) fn profile_tree_rows(&mut self, model: &ProfileModel) -> Option<TreeRows> {
        let tree = model.tree.as_ref()?;
        let view = &self.view.profile;
        let key: RowsKey = (Arc::as_ptr(tree) as usize, view.sort, view.expanded.clone());
        if let Some((k, rows)) = &self.profile_rows_cache
            && *k == key
        {
            return Some(rows.clone());
        }
        let rows = Arc::new(tree_rows(
            tree,
            &model.profile.functions,
            view.sort,
            &view.expanded,
        ));
        self.profile_rows_cache = Some((key, rows.clone()));
        Some(rows)
    }
}

/// The rows of a call tree as shown: each row's node and depth, children in `sort` order
/// under the rows the user opened (`expanded`, by path of functions).
pub fn tree_rows(
    tree: &CallTree,
    functions: &Functions,
    sort: TreeSort,
    expanded: &HashSet<Vec<u32>>,
) -> Vec<(u32, usize)> {
    let order = |ids: &[u32]| {
        let mut ids = ids.to_vec();
        match sort {
            TreeSort::Total => {
                ids.sort_by_key(|&i| std::cmp::Reverse(tree.nodes[i as usize].total_us));
            }
            TreeSort::SelfTime => {
                ids.sort_by_key(|&i| std::cmp::Reverse(tree.nodes[i as usize].self_us));
            }
            TreeSort::Name => {
                ids.sort_by(|&a, &b| {
                    functions
                        .name(tree.nodes[a as usize].function)
                        .cmp(functions.name(tree.nodes[b as usize].function))
                });
            }
        }
        ids
    };
    let mut out = Vec::new();
    let mut stack: Vec<(u32, usize)> = order(&tree.roots)
        .into_iter()
        .rev()
        .map(|i| (i, 0))
        .collect();
    while let Some((id, depth)) = stack.pop() {
        out.push((id, depth));
        let node = &tree.nodes[id as usize];
        if !node.children.is_empty() && expanded.contains(&tree.path(id)) {
            stack.extend(
                order(&node.children)
                    .into_iter()
                    .rev()
                    .map(|c| (c, depth + 1)),
            );
        }
    }
    out
}
