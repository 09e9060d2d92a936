//! The tiles: panes closed and opened again, the user's layout kept in the user's config
//! (not in the workspace) and put back by "Reset layout", the window's size kept.

mod common;

use common::harness::*;
use symscope::app::{LayoutPrefs, Pane};

/// The share of its split the stack list's tile has (the vertical split it is in).
fn list_share(tree: &egui_tiles::Tree<Pane>) -> f32 {
    let stack = tree.tiles.find_pane(&Pane::Stack).unwrap();
    let tabs = tree.tiles.parent_of(stack).unwrap();
    let split = tree.tiles.parent_of(tabs).unwrap();
    let Some(egui_tiles::Container::Linear(lin)) = tree.tiles.get_container(split) else {
        panic!("the list is not in a split");
    };
    let total: f32 = lin.children.iter().map(|&c| lin.shares[c]).sum();
    lin.shares[tabs] / total
}

/// Drags the pointer from `from` to `to` with the primary button down, as a hand does.
fn drag(h: &mut Harness<'static, AppState>, from: egui::Pos2, to: egui::Pos2) {
    let button = |pressed| egui::Event::PointerButton {
        pos: if pressed { from } else { to },
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    h.input_mut().events.push(egui::Event::PointerMoved(from));
    h.step();
    h.input_mut().events.push(button(true));
    h.step();
    for k in 1..=8 {
        let p = from + (to - from) * (k as f32 / 8.0);
        h.input_mut().events.push(egui::Event::PointerMoved(p));
        h.step();
    }
    h.input_mut().events.push(button(false));
    h.run_steps(3);
}

#[test]
fn a_closed_pane_comes_back_from_the_view_menu() {
    let mut h = three_with_frame_0();
    assert!(has_tab(&h, "Frame detail"));
    close_tab(&mut h, "Frame detail");
    assert!(!has_tab(&h, "Frame detail"));
    assert!(!has_label(&h, "Copy frame  Ctrl+C"));
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Show frame detail").click();
    h.run_steps(3);
    assert!(tab_active(&h, "Frame detail"));
    assert!(has_label(&h, "Copy frame  Ctrl+C"));
    // The inspector's tab closes the inspector.
    h.get_by_label("Inspect segment").click();
    settle(&mut h, |h| has_label(h, "Check map"));
    assert!(h.state().workspace.layout.inspector_open);
    close_tab(&mut h, "Segment inspector");
    assert!(!h.state().workspace.layout.inspector_open);
    assert!(!has_label(&h, "Check map"));
}

#[test]
fn the_layout_is_the_users_and_reset_puts_it_back() {
    let mut h = three_with_frame_0();
    let file = h.state().layout_file.clone().unwrap();
    let first = list_share(&h.state().layout.tree);
    // Drag the border between the list and the frame detail down by 100 points.
    let stacks = tab(&h, "Stacks").rect();
    let detail = tab(&h, "Frame detail").rect();
    let border = egui::pos2(stacks.center().x + 200.0, detail.top() - 2.0);
    drag(&mut h, border, border + egui::vec2(0.0, 100.0));
    let moved = list_share(&h.state().layout.tree);
    assert!(moved > first + 0.05, "{first} → {moved}");
    // Kept in the user's layout file, not in the workspace.
    let kept = LayoutPrefs::load(Some(&file));
    assert!((list_share(&kept.tree) - moved).abs() < 1e-3);
    let ws = symscope::workspace::to_ron(&h.state().workspace);
    assert!(!ws.contains("share") && !ws.contains("tiles"), "{ws}");
    // The next launch (same user) has it.
    let dir = temp_dir("tiles-next");
    let saved = dir.join("w.ron");
    symscope::workspace::save(&saved, &h.state().workspace).unwrap();
    let mut h2 = app();
    h2.state_mut().layout_file = Some(file.clone());
    h2.state_mut().start(std::slice::from_ref(&saved));
    h2.run_steps(3);
    assert!((list_share(&h2.state().layout.tree) - moved).abs() < 1e-3);
    // Reset layout: the first layout again, written too.
    h2.get_by_label("View").click();
    h2.run_steps(2);
    h2.get_by_label("Reset layout").click();
    h2.run_steps(3);
    assert!((list_share(&h2.state().layout.tree) - first).abs() < 1e-3);
    assert!((list_share(&LayoutPrefs::load(Some(&file)).tree) - first).abs() < 1e-3);
    std::fs::remove_dir_all(&dir).ok();
}

/// A layout file from another version, or broken, never keeps the window from opening: the
/// first layout is used.
#[test]
fn a_broken_layout_file_gives_the_first_layout() {
    let dir = temp_dir("tiles-broken");
    let file = dir.join("layout.ron");
    for text in [
        "(tree: (root: Some(",
        "not ron at all",
        "(open: [Nonsense])",
    ] {
        std::fs::write(&file, text).unwrap();
        let prefs = LayoutPrefs::load(Some(&file));
        assert!(prefs.tree.tiles.find_pane(&Pane::Stack).is_some(), "{text}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The frame detail's source shows the frame's line centred, at every window size, and
/// centred again when the window changes size.
#[test]
fn the_frame_line_is_centred_in_the_source_at_every_size() {
    let line_of = |h: &Harness<'static, AppState>| {
        // The highlighted line: three.core.js line 16222 (`  16222  …`).
        h.get_all_by_label_contains(" 16222  ")
            .next()
            .unwrap_or_else(|| panic!("the frame's line is not shown"))
            .rect()
    };
    let check = |h: &Harness<'static, AppState>, size: egui::Vec2| {
        let line = line_of(h);
        let top = h.get_by_label("Note on this exception").rect().bottom();
        let bottom = h.get_by_label("Ready").rect().top();
        let middle = (top + bottom) / 2.0;
        assert!(
            (line.center().y - middle).abs() <= line.height() * 1.5,
            "{size:?}: the line at {:?}, the source from {top} to {bottom}",
            line
        );
    };
    for size in [
        egui::vec2(1280.0, 800.0),
        egui::vec2(900.0, 600.0),
        egui::vec2(1920.0, 1080.0),
    ] {
        let mut h = app_sized(size.x, size.y);
        resolve_three(&mut h);
        h.get_all_by_label_contains(
            "expandByObject  ../node_modules/three/build/three.core.js:16222:39",
        )
        .next()
        .unwrap()
        .click();
        settle(&mut h, |h| has_label(h, " 16222  "));
        h.run_steps(3);
        check(&h, size);
        // A taller window: centred again.
        let bigger = size + egui::vec2(0.0, 200.0);
        h.set_size(bigger);
        h.run_steps(4);
        check(&h, bigger);
    }
}
