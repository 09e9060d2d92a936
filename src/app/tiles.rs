//! The window's tiles (rerun's `egui_tiles`): the stack list is the main tile; the inputs,
//! the frame detail, the segment inspector, Buckets, the two comparisons and the timings are
//! tabs the user drags, splits, resizes and closes.
//!
//! Which panes exist follows the app's state, one rule ([`AppState::wanted_panes`]): the
//! inspector while it is open, Buckets while crash folders are bucketed, a comparison while
//! one is shown, the inputs, the frame detail and the timings while the user keeps them
//! open. The [`Tree`] only says where they are, and it is the user's preference, kept in
//! the user's config ([`LayoutPrefs`], `layout.ron`), never in a workspace; "Reset layout"
//! puts it back. A pane that appears goes to its home: Buckets and the comparisons become
//! main tabs (as wide as the main area), the inspector a tab beside the frame detail, the
//! timings a column on the right.

use super::AppState;
use egui_tiles::{Container, LinearDir, SimplificationOptions, Tile, TileId, Tree};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// A tile's content: small and stable (the data lives in the app's state).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Pane {
    /// The inputs (symbol files, logs, source folders).
    Inputs,
    /// The selected log's stacks: the main tile.
    Stack,
    /// The selected frame.
    Detail,
    /// The source-map segment inspector.
    Inspector,
    /// Crash logs grouped by signature.
    Buckets,
    /// Two stacks side by side.
    LogCompare,
    /// Two maps of one bundle compared.
    MapCompare,
    /// The jobs' phases.
    Timings,
    /// A CPU profile: flame chart, call trees, comparison.
    Profile,
    /// A heap snapshot: the Summary by constructor, objects, retainers.
    Memory,
}

impl Pane {
    /// Every pane, in the order the View menu lists them.
    pub const ALL: [Pane; 10] = [
        Pane::Stack,
        Pane::Profile,
        Pane::Memory,
        Pane::Inputs,
        Pane::Detail,
        Pane::Inspector,
        Pane::Buckets,
        Pane::LogCompare,
        Pane::MapCompare,
        Pane::Timings,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Pane::Inputs => "Inputs",
            Pane::Stack => "Stacks",
            Pane::Detail => "Frame detail",
            Pane::Inspector => "Segment inspector",
            Pane::Buckets => "Buckets",
            Pane::LogCompare => "Compare stacks",
            Pane::MapCompare => "Compare maps",
            Pane::Timings => "Timings",
            Pane::Profile => "Profile",
            Pane::Memory => "Memory",
        }
    }

    /// Whether the user may close it (the stack list stays).
    pub fn closable(self) -> bool {
        self != Pane::Stack
    }

    /// Whether it is open while the user keeps it so (else it follows data: an open
    /// inspector, bucketed folders, a comparison).
    pub fn kept_by_user(self) -> bool {
        matches!(self, Pane::Inputs | Pane::Detail | Pane::Timings)
    }

    fn home(self) -> Home {
        match self {
            Pane::Stack
            | Pane::Buckets
            | Pane::LogCompare
            | Pane::MapCompare
            | Pane::Profile
            | Pane::Memory => Home::Main,
            Pane::Detail | Pane::Inspector => Home::Below,
            Pane::Inputs => Home::Left,
            Pane::Timings => Home::Right,
        }
    }
}

/// Where a pane goes when it appears.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Home {
    /// A tab beside the stack list.
    Main,
    /// A tab below the stack list (beside the frame detail).
    Below,
    /// A column left of everything.
    Left,
    /// A column right of everything.
    Right,
}

/// The window's place on the screen, in points.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowPlace {
    /// Left edge of the window's content.
    pub x: f32,
    /// Top edge of the window's content.
    pub y: f32,
    /// Width of the window's content.
    pub width: f32,
    /// Height of the window's content.
    pub height: f32,
}

/// The user's layout: where the tiles are, which optional panes are open, and the window's
/// size and place. Kept in `~/.config/symscope/layout.ron`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub struct LayoutPrefs {
    /// The tiles.
    pub tree: Tree<Pane>,
    /// The panes the user keeps open ([`Pane::kept_by_user`]).
    pub open: BTreeSet<Pane>,
    /// The window, as it was last closed.
    pub window: Option<WindowPlace>,
}

impl Default for LayoutPrefs {
    fn default() -> Self {
        Self {
            tree: default_tree(),
            open: [Pane::Inputs, Pane::Detail].into_iter().collect(),
            window: None,
        }
    }
}

/// Where the layout is kept.
pub fn layout_file() -> Option<PathBuf> {
    crate::workspace::user_dirs::config_file("layout.ron")
}

impl LayoutPrefs {
    /// The layout in `file`, or the default when it is missing or unreadable (a layout
    /// from another version must never keep the window from opening).
    pub fn load(file: Option<&std::path::Path>) -> Self {
        let mut prefs: Self = file
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|t| ron::from_str(&t).ok())
            .unwrap_or_default();
        prefs.tree.tiles.recompute_next_tile_id();
        if prefs.tree.tiles.find_pane(&Pane::Stack).is_none() {
            prefs.tree = default_tree();
        }
        prefs
    }

    /// Writes the layout to `file` (atomically; a failure only loses the layout).
    pub fn save(&self, file: &std::path::Path) -> std::io::Result<()> {
        let text = ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default())
            .map_err(std::io::Error::other)?;
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        crate::engine::write_atomically(file, text.as_bytes())
    }
}

/// The first layout: inputs on the left; the stack list above the frame detail.
pub fn default_tree() -> Tree<Pane> {
    let mut tiles = egui_tiles::Tiles::default();
    let inputs = tiles.insert_pane(Pane::Inputs);
    let left = tiles.insert_tab_tile(vec![inputs]);
    let stack = tiles.insert_pane(Pane::Stack);
    let main = tiles.insert_tab_tile(vec![stack]);
    let detail = tiles.insert_pane(Pane::Detail);
    let below = tiles.insert_tab_tile(vec![detail]);
    let mut center = egui_tiles::Linear::new(LinearDir::Vertical, vec![main, below]);
    center.shares.set_share(main, 3.0);
    center.shares.set_share(below, 2.0);
    let center = tiles.insert_container(center);
    let mut root = egui_tiles::Linear::new(LinearDir::Horizontal, vec![left, center]);
    root.shares.set_share(left, 1.0);
    root.shares.set_share(center, 4.0);
    let root = tiles.insert_container(root);
    Tree::new(egui::Id::unique("symscope-tiles"), root, tiles)
}

/// How the tree is tidied after every change: every pane keeps its tab bar (its title and
/// close button), empty containers go.
pub fn simplification() -> SimplificationOptions {
    SimplificationOptions {
        prune_empty_tabs: true,
        prune_empty_containers: true,
        prune_single_child_tabs: false,
        prune_single_child_containers: true,
        all_panes_must_have_tabs: true,
        join_nested_linear_containers: true,
        ..SimplificationOptions::OFF
    }
}

/// Makes the tree hold exactly the `wanted` panes: removes the others, puts a new one in
/// its home and makes it the active tab. Returns whether the tree changed.
pub fn sync(tree: &mut Tree<Pane>, wanted: &BTreeSet<Pane>) -> bool {
    let mut changed = false;
    let present: Vec<(TileId, Pane)> = tree
        .tiles
        .iter()
        .filter_map(|(id, t)| match t {
            Tile::Pane(p) => Some((*id, *p)),
            Tile::Container(_) => None,
        })
        .collect();
    let mut seen = BTreeSet::new();
    for (id, pane) in present {
        // A pane twice (a hand-edited layout) or one no longer wanted goes.
        if !wanted.contains(&pane) || !seen.insert(pane) {
            tree.remove_recursively(id);
            changed = true;
        }
    }
    for &pane in wanted {
        if !seen.contains(&pane) {
            place(tree, pane);
            changed = true;
        }
    }
    if changed {
        tree.simplify(&simplification());
        tree.tiles.recompute_next_tile_id();
    }
    changed
}

/// Makes `pane`'s tab the active one in its tab bar (and its ancestors').
pub fn show(tree: &mut Tree<Pane>, pane: Pane) -> bool {
    tree.make_active(|_, t| matches!(t, Tile::Pane(p) if *p == pane))
}

/// The tab container holding `pane`, if any.
fn tabs_of(tree: &Tree<Pane>, pane: Pane) -> Option<TileId> {
    let id = tree.tiles.find_pane(&pane)?;
    let parent = tree.tiles.parent_of(id)?;
    matches!(tree.tiles.get_container(parent), Some(Container::Tabs(_))).then_some(parent)
}

/// Adds `pane` at its home (see [`Pane::home`]), active.
fn place(tree: &mut Tree<Pane>, pane: Pane) {
    let id = tree.tiles.insert_pane(pane);
    let main = match tabs_of(tree, Pane::Stack) {
        Some(t) => Some(t),
        None if pane == Pane::Stack => None,
        None => {
            place(tree, Pane::Stack);
            tabs_of(tree, Pane::Stack)
        }
    };
    let Some(main) = main else {
        // The stack list itself, into an empty tree (or beside what is there).
        let tabs = tree.tiles.insert_tab_tile(vec![id]);
        wrap_root(tree, tabs, LinearDir::Horizontal, false, 0.7);
        return;
    };
    match pane.home() {
        Home::Main => add_tab(tree, main, id),
        Home::Below => {
            let below = [Pane::Detail, Pane::Inspector]
                .into_iter()
                .filter(|&p| p != pane)
                .find_map(|p| tabs_of(tree, p))
                .filter(|&t| t != main);
            match below {
                Some(t) => add_tab(tree, t, id),
                None => {
                    let tabs = tree.tiles.insert_tab_tile(vec![id]);
                    split(tree, main, tabs, LinearDir::Vertical, 0.35);
                }
            }
        }
        Home::Left => {
            let tabs = tree.tiles.insert_tab_tile(vec![id]);
            wrap_root(tree, tabs, LinearDir::Horizontal, true, 0.2);
        }
        Home::Right => {
            let tabs = tree.tiles.insert_tab_tile(vec![id]);
            wrap_root(tree, tabs, LinearDir::Horizontal, false, 0.28);
        }
    }
}

fn add_tab(tree: &mut Tree<Pane>, tabs: TileId, id: TileId) {
    if let Some(Tile::Container(Container::Tabs(t))) = tree.tiles.get_mut(tabs) {
        t.add_child(id);
        t.set_active(id);
    }
}

/// Puts `new` after `old` in `dir`, taking `fraction` of `old`'s room.
fn split(tree: &mut Tree<Pane>, old: TileId, new: TileId, dir: LinearDir, fraction: f32) {
    let parent = tree.tiles.parent_of(old);
    if let Some(p) = parent
        && let Some(Tile::Container(Container::Linear(lin))) = tree.tiles.get_mut(p)
        && lin.dir == dir
    {
        let at = lin.children.iter().position(|&c| c == old).unwrap_or(0);
        let share = lin.shares[old];
        lin.shares.set_share(old, share * (1.0 - fraction));
        lin.shares.set_share(new, share * fraction);
        lin.children.insert(at + 1, new);
        return;
    }
    let lin = egui_tiles::Linear::new_binary(dir, [old, new], 1.0 - fraction);
    let both = tree.tiles.insert_container(lin);
    match parent {
        Some(p) => {
            if let Some(Tile::Container(c)) = tree.tiles.get_mut(p) {
                let _index = c.replace_child(old, both);
            }
        }
        None => tree.root = Some(both),
    }
}

/// Puts `new` before (`first`) or after the whole tree in `dir`, taking `fraction` of it.
fn wrap_root(tree: &mut Tree<Pane>, new: TileId, dir: LinearDir, first: bool, fraction: f32) {
    let Some(root) = tree.root else {
        tree.root = Some(new);
        return;
    };
    if let Some(Tile::Container(Container::Linear(lin))) = tree.tiles.get_mut(root)
        && lin.dir == dir
    {
        let total: f32 = lin.children.iter().map(|&c| lin.shares[c]).sum();
        lin.shares
            .set_share(new, total * fraction / (1.0 - fraction));
        if first {
            lin.children.insert(0, new);
        } else {
            lin.children.push(new);
        }
        return;
    }
    let pair = if first { [new, root] } else { [root, new] };
    let f = if first { fraction } else { 1.0 - fraction };
    let lin = egui_tiles::Linear::new_binary(dir, pair, f);
    tree.root = Some(tree.tiles.insert_container(lin));
}

/// Gives the stack list's tile at least `min` (width, height) of `size`, the room the tree
/// is drawn in, by raising its shares on the way down from the root (the user's shares
/// are kept otherwise). Never more than `cap` of a container.
pub fn keep_main_room(tree: &mut Tree<Pane>, size: egui::Vec2, min: egui::Vec2, cap: f32) {
    let Some(target) = tabs_of(tree, Pane::Stack) else {
        return;
    };
    let mut path = vec![target];
    while let Some(p) = tree.tiles.parent_of(*path.last().unwrap_or(&target)) {
        path.push(p);
    }
    path.reverse();
    let mut room = size;
    for pair in path.windows(2) {
        let (parent, child) = (pair[0], pair[1]);
        let Some(Tile::Container(Container::Linear(lin))) = tree.tiles.get_mut(parent) else {
            continue;
        };
        let visible = lin.children.clone();
        let (along, need) = match lin.dir {
            LinearDir::Horizontal => (room.x, min.x),
            LinearDir::Vertical => (room.y, min.y),
        };
        let rest: f32 = visible
            .iter()
            .filter(|&&c| c != child)
            .map(|&c| lin.shares[c])
            .sum();
        let mine = lin.shares[child];
        let total = mine + rest;
        if rest > 0.0 && along > 0.0 {
            let m = (need / along).min(cap);
            if mine / total < m {
                lin.shares.set_share(child, m * rest / (1.0 - m));
            }
            let got = lin.shares[child] / (lin.shares[child] + rest) * along;
            match lin.dir {
                LinearDir::Horizontal => room.x = got,
                LinearDir::Vertical => room.y = got,
            }
        }
    }
}

impl AppState {
    /// The panes the state asks for (see the module's docs).
    pub fn wanted_panes(&self) -> BTreeSet<Pane> {
        let mut wanted: BTreeSet<Pane> = self
            .layout
            .open
            .iter()
            .copied()
            .filter(|p| p.kept_by_user())
            .collect();
        wanted.insert(Pane::Stack);
        if self.workspace.layout.inspector_open {
            wanted.insert(Pane::Inspector);
        }
        if !self.workspace.buckets.sources.is_empty() && !self.view.buckets.closed {
            wanted.insert(Pane::Buckets);
        }
        if !self.view.profile.closed && self.shown_profile().is_some() {
            wanted.insert(Pane::Profile);
        }
        if !self.view.memory.closed && self.shown_heap().is_some() {
            wanted.insert(Pane::Memory);
        }
        if self.view.buckets.log_compare.is_some() || self.workspace.compare.is_some() {
            wanted.insert(Pane::LogCompare);
        }
        if self
            .view
            .inspector
            .map_diff
            .as_ref()
            .is_some_and(|c| self.workspace.selection.inspected_map.as_ref() == Some(&c.a))
        {
            wanted.insert(Pane::MapCompare);
        }
        wanted
    }

    /// Brings the tree in line with the state (panes added or removed), shows the pane
    /// last asked for, and keeps the layout to be written when it changed.
    pub(super) fn sync_tiles(&mut self) {
        let wanted = self.wanted_panes();
        let mut changed = sync(&mut self.layout.tree, &wanted);
        if let Some(pane) = self.show_pane.take() {
            changed |= show(&mut self.layout.tree, pane);
        }
        if changed {
            self.layout_changed = true;
        }
    }

    /// Opens `pane` (what it shows stays as it was) and brings it to the front.
    pub(super) fn open_pane(&mut self, pane: Pane) {
        match pane {
            Pane::Inputs | Pane::Detail | Pane::Timings => {
                self.layout.open.insert(pane);
                self.layout_changed = true;
            }
            Pane::Inspector => self.workspace.layout.inspector_open = true,
            Pane::Buckets => self.view.buckets.closed = false,
            Pane::Profile => self.view.profile.closed = false,
            Pane::Memory => self.view.memory.closed = false,
            Pane::Stack | Pane::LogCompare | Pane::MapCompare => {}
        }
        self.show_pane = Some(pane);
    }

    /// Closes `pane`: what it shows is put away (the inspector closed, a comparison
    /// dropped, Buckets hidden until logs are bucketed again).
    pub(super) fn close_pane(&mut self, pane: Pane) {
        match pane {
            Pane::Stack => {}
            Pane::Inputs | Pane::Detail | Pane::Timings => {
                self.layout.open.remove(&pane);
                self.layout_changed = true;
            }
            Pane::Inspector => self.workspace.layout.inspector_open = false,
            Pane::Buckets => self.view.buckets.closed = true,
            Pane::Profile => self.view.profile.closed = true,
            Pane::Memory => self.view.memory.closed = true,
            Pane::LogCompare => self.apply_one(super::BucketsCommand::CloseLogCompare),
            Pane::MapCompare => self.apply_one(super::InspectorCommand::CloseCompare),
        }
    }

    /// Writes the layout when it changed and no drag is under way (a resize writes once,
    /// when it ends). Nothing is written without a layout file (tests).
    pub(super) fn keep_layout(&mut self, ctx: &egui::Context) {
        let place = ctx.input(|i| {
            let v = i.viewport();
            let inner = v.inner_rect?;
            let outer = v.outer_rect.unwrap_or(inner);
            (!v.minimized.unwrap_or(false) && !v.maximized.unwrap_or(false)).then_some(
                WindowPlace {
                    x: outer.min.x,
                    y: outer.min.y,
                    width: inner.width(),
                    height: inner.height(),
                },
            )
        });
        if let Some(p) = place
            && self.layout.window != Some(p)
        {
            self.layout.window = Some(p);
            self.layout_changed = true;
        }
        let dragging = ctx.input(|i| i.pointer.any_down());
        if !self.layout_changed || dragging {
            return;
        }
        self.layout_changed = false;
        if let Some(file) = &self.layout_file
            && let Err(e) = self.layout.save(file)
        {
            self.errors
                .push(format!("{}: the layout was not kept: {e}", file.display()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panes(tree: &Tree<Pane>) -> BTreeSet<Pane> {
        tree.tiles
            .tiles()
            .filter_map(|t| match t {
                Tile::Pane(p) => Some(*p),
                Tile::Container(_) => None,
            })
            .collect()
    }

    #[test]
    fn panes_follow_what_is_wanted_and_land_at_home() {
        let mut tree = default_tree();
        let mut wanted: BTreeSet<Pane> = [Pane::Stack, Pane::Inputs, Pane::Detail].into();
        assert!(!sync(&mut tree, &wanted));
        wanted.insert(Pane::Buckets);
        wanted.insert(Pane::Inspector);
        assert!(sync(&mut tree, &wanted));
        assert_eq!(panes(&tree), wanted);
        // Buckets is a tab beside the stack list, the inspector one beside the detail.
        assert_eq!(tabs_of(&tree, Pane::Buckets), tabs_of(&tree, Pane::Stack));
        assert_eq!(
            tabs_of(&tree, Pane::Inspector),
            tabs_of(&tree, Pane::Detail)
        );
        let active = tree.active_tiles();
        let id = |p| tree.tiles.find_pane(&p).unwrap();
        assert!(active.contains(&id(Pane::Buckets)) && active.contains(&id(Pane::Inspector)));
        wanted.remove(&Pane::Detail);
        wanted.remove(&Pane::Inspector);
        wanted.insert(Pane::Timings);
        assert!(sync(&mut tree, &wanted));
        assert_eq!(panes(&tree), wanted);
        // The round trip through the user's file keeps it.
        let text = ron::to_string(&LayoutPrefs {
            tree: tree.clone(),
            ..LayoutPrefs::default()
        })
        .unwrap();
        let back: LayoutPrefs = ron::from_str(&text).unwrap();
        assert_eq!(panes(&back.tree), wanted);
    }

    #[test]
    fn the_stack_list_keeps_its_room() {
        let mut tree = default_tree();
        let wanted: BTreeSet<Pane> = [Pane::Stack, Pane::Inputs, Pane::Detail, Pane::Timings]
            .into_iter()
            .collect();
        sync(&mut tree, &wanted);
        // The user made the list tiny.
        let main = tabs_of(&tree, Pane::Stack).unwrap();
        let parent = tree.tiles.parent_of(main).unwrap();
        if let Some(Tile::Container(Container::Linear(l))) = tree.tiles.get_mut(parent) {
            l.shares.set_share(main, 0.01);
        }
        let size = egui::vec2(900.0, 600.0);
        keep_main_room(&mut tree, size, egui::vec2(400.0, 300.0), 0.8);
        // Its share of each container on the way down is what the minimum needs.
        let mut room = size;
        let mut at = main;
        let mut path = vec![];
        while let Some(p) = tree.tiles.parent_of(at) {
            path.push((p, at));
            at = p;
        }
        for (p, c) in path.into_iter().rev() {
            if let Some(Container::Linear(l)) = tree.tiles.get_container(p) {
                let total: f32 = l.children.iter().map(|&k| l.shares[k]).sum();
                let f = l.shares[c] / total;
                match l.dir {
                    LinearDir::Horizontal => room.x *= f,
                    LinearDir::Vertical => room.y *= f,
                }
            }
        }
        assert!(room.x >= 399.0 && room.y >= 299.0, "{room:?}");
    }
}
