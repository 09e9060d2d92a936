//! The real app under egui_kittest, for the GUI tests, the snapshot tests and the window's
//! benchmarks: the app in a window of a size, files dropped as winit drops them, frames run
//! until the jobs settle, the labels AccessKit sees, commands given as a menu gives them, and
//! the journeys several tests start from. A test file takes it all with
//! `use common::harness::*;` (the types it needs come along).
#![allow(
    unused_imports,
    reason = "a prelude: each test file takes what it needs"
)]

pub use super::{fixture, js, temp_dir};
pub use egui_kittest::Harness;
pub use egui_kittest::kittest::Queryable as _;
pub use std::path::{Path, PathBuf};
pub use std::sync::Arc;
pub use std::time::{Duration, Instant};
pub use symscope::app::{AppState, InputState, Loaded};
pub use symscope::engine::SymbolFile;

/// A dropped file, as winit hands it to egui.
#[derive(Debug)]
pub struct Dropped(pub PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

pub fn app() -> Harness<'static, AppState> {
    app_sized(1280.0, 800.0)
}

/// The real app in a window of this size, with a waker that does nothing: the test polls
/// frames itself.
pub fn app_sized(width: f32, height: f32) -> Harness<'static, AppState> {
    let mut state = AppState::new(Arc::new(|| {}));
    // The user's layout file is never read or written by a test.
    static HARNESSES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = HARNESSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    state.layout_file = Some(temp_dir(&format!("layout-{n}")).join("layout.ron"));
    Harness::builder()
        .with_size(egui::vec2(width, height))
        .build_ui_state(
            |ui, state: &mut AppState| state.frame(ui, symscope::ui::app_ui),
            state,
        )
}

pub fn drop_files(h: &mut Harness<'static, AppState>, files: &[PathBuf]) {
    for f in files {
        h.input_mut().hovered_files.push(egui::HoveredFile {
            path: Some(f.clone()),
            mime: String::new(),
        });
    }
    // Two frames: a new overlay is laid out invisibly on its first.
    h.run_steps(2);
    h.get_by_label_contains("Drop to add"); // the overlay says what will be added
    // As winit does: the hover ends when the drop happens.
    h.input_mut().hovered_files.clear();
    for f in files {
        h.input_mut()
            .dropped_files
            .push(Arc::new(Dropped(f.clone())));
    }
    h.step();
}

/// Runs frames until `done` holds (jobs run on the pool meanwhile).
pub fn settle(
    h: &mut Harness<'static, AppState>,
    done: impl Fn(&Harness<'static, AppState>) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        h.run_steps(2);
        if done(h) && h.state().jobs.running().is_empty() {
            h.run_steps(2);
            return;
        }
        assert!(Instant::now() < deadline, "the app did not settle");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The app with three.js's crash and its map loaded and resolved, frame 0 selected.
/// The app with three.min.js's trace and map dropped and the trace resolved.
pub fn three_resolved() -> Harness<'static, AppState> {
    let mut h = app();
    resolve_three(&mut h);
    h
}

/// Drops three.min.js's trace and map on `h` and waits until the trace is resolved.
pub fn resolve_three(h: &mut Harness<'static, AppState>) {
    h.run_steps(2);
    drop_files(
        h,
        &[
            js("three-esbuild/trace.txt"),
            js("three-esbuild/three.min.js.map"),
        ],
    );
    settle(h, |h| has_label(h, "16222:39"));
}

pub fn three_with_frame_0() -> Harness<'static, AppState> {
    let mut h = three_resolved();
    h.get_all_by_label_contains(
        "expandByObject  ../node_modules/three/build/three.core.js:16222:39",
    )
    .next()
    .unwrap()
    .click();
    h.run_steps(3);
    h
}

/// Types `text` into the text field labelled `label`, then presses Enter.
pub fn enter_text(h: &mut Harness<'static, AppState>, label: &str, text: &str) {
    fn field<'h>(h: &'h Harness<'static, AppState>, label: &str) -> egui_kittest::Node<'h> {
        h.get_all_by_role(egui::Role::TextInput)
            .find(|n| format!("{n:?}").contains(label))
            .expect("the text field")
    }
    field(h, label).click();
    h.run_steps(1);
    field(h, label).type_text(text);
    h.run_steps(1);
    h.key_press(egui::Key::Enter);
}

/// three.js's trace, map and bundle (and `more` files) dropped, the first expandByObject
/// frame selected and inspected.
pub fn three_inspected(more: &[PathBuf]) -> Harness<'static, AppState> {
    let mut h = app();
    h.run_steps(2);
    let mut files = vec![
        js("three-esbuild/trace.txt"),
        js("three-esbuild/three.min.js.map"),
        js("three-esbuild/three.min.js"),
    ];
    files.extend_from_slice(more);
    drop_files(&mut h, &files);
    settle(&mut h, |h| has_label(h, "16287:9"));
    h.get_all_by_label_contains("expandByObject")
        .next()
        .unwrap()
        .click();
    h.run_steps(3);
    h.get_by_label("Inspect segment").click();
    h.run_steps(4);
    h
}

pub fn has_label(h: &Harness<'static, AppState>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

/// The labels containing `text`, in the window's order (the stack list's rows top down).
pub fn labels_containing(h: &Harness<'static, AppState>, text: &str) -> Vec<String> {
    use egui_kittest::kittest::NodeT as _;
    h.query_all_by_label_contains(text)
        .filter_map(|n| {
            let node = n.accesskit_node();
            node.label().or_else(|| node.value())
        })
        .collect()
}

/// Gives the app a command, as a menu item would.
pub fn command(h: &mut Harness<'static, AppState>, c: impl Into<symscope::app::Command>) {
    let mut commands = symscope::app::Commands::default();
    commands.send(c);
    h.state_mut().apply(commands);
}

/// The text put on the clipboard this frame (kittest sees egui's output, not the system
/// clipboard; eframe's `clipboard` feature hands the same text to it).
pub fn clipboard(h: &Harness<'static, AppState>) -> Option<String> {
    h.output()
        .platform_output
        .commands
        .iter()
        .find_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
}

/// The shop's tree crash and its mapping in a workspace saved (Ctrl+S) as `android.ron` in a
/// fresh folder, caches under a user cache folder of the test's own: (the folder, the file,
/// the app).
pub fn saved_shop_workspace(name: &str) -> (PathBuf, PathBuf, Harness<'static, AppState>) {
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/java/shop");
    let dir = temp_dir(name);
    let file = dir.join("android.ron");
    let mut h = app();
    h.state_mut().cache_root = Some(user_cache(name));
    h.state_mut().workspace_path = Some(file.clone());
    h.run_steps(2);
    drop_files(
        &mut h,
        &[shop.join("obf-tree.txt"), shop.join("shop-mapping.txt")],
    );
    settle(&mut h, |h| has_label(h, "com.example.shop.util.Tree.walk"));
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(2);
    (dir, file, h)
}

/// The user cache folder of test `name` (in place of `~/.cache/symscope`).
pub fn user_cache(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("symscope-{name}-{}-user-cache", std::process::id()))
}

/// The cache folder of workspace `file` under test `name`'s user cache folder.
pub fn cache_of(name: &str, file: &Path) -> PathBuf {
    symscope::workspace::user_dirs::cache_dir(&user_cache(name), file)
}

/// The files in folder `dir`, by name.
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// three.js's trace without its `drivers/three.cjs` frame: 10 of the 11 frames.
pub fn three_trace_without_driver(title: &str) -> String {
    let trace = std::fs::read_to_string(js("three-esbuild/trace.txt")).unwrap();
    let mut lines: Vec<&str> = trace
        .lines()
        .filter(|l| !l.contains("drivers/three.cjs"))
        .collect();
    lines[0] = title;
    lines.join("\n") + "\n"
}

/// Polls the app's jobs (no window) until none runs and no input is loading.
pub fn settle_jobs(app: &mut AppState) {
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        app.poll_jobs();
        let settled = app.jobs.running().is_empty()
            && app
                .inputs
                .iter()
                .all(|e| !matches!(e.state, InputState::Loading));
        if settled {
            // Polled once more: a finished load may have started a symbolication.
            app.poll_jobs();
            if app.jobs.running().is_empty() {
                return;
            }
        }
        assert!(Instant::now() < deadline, "the app did not settle");
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// The tab titled `title` (a tile's tab: a button that says whether it is the active one).
pub fn tab<'h>(h: &'h Harness<'static, AppState>, title: &str) -> egui_kittest::Node<'h> {
    use egui_kittest::kittest::NodeT as _;
    h.get_all_by_role(egui::Role::Button)
        .find(|n| {
            let node = n.accesskit_node();
            node.label().as_deref() == Some(title) && node.toggled().is_some()
        })
        .unwrap_or_else(|| panic!("no tab {title:?}"))
}

/// Whether a tab titled `title` is shown.
pub fn has_tab(h: &Harness<'static, AppState>, title: &str) -> bool {
    use egui_kittest::kittest::NodeT as _;
    h.get_all_by_role(egui::Role::Button).any(|n| {
        let node = n.accesskit_node();
        node.label().as_deref() == Some(title) && node.toggled().is_some()
    })
}

/// Whether the tab titled `title` is its tab bar's active one.
pub fn tab_active(h: &Harness<'static, AppState>, title: &str) -> bool {
    use egui_kittest::kittest::NodeT as _;
    tab(h, title).accesskit_node().toggled() == Some(egui::accesskit::Toggled::True)
}

/// Clicks the close button of the tab titled `title` (the "Close" button inside its tab).
pub fn close_tab(h: &mut Harness<'static, AppState>, title: &str) {
    let at = tab(h, title).rect();
    h.get_all_by_label("Close")
        .find(|n| at.contains_rect(n.rect()))
        .unwrap_or_else(|| panic!("no close button on the tab {title:?}"))
        .click();
    h.run_steps(3);
}

/// The shown profile's widest flame-chart bar of function `name`: its depth and bar.
pub fn widest_bar(state: &AppState, name: &str) -> (usize, symscope::engine::flame::Span) {
    let p = state.profile(state.shown_profile().unwrap()).unwrap();
    p.chart
        .rows
        .iter()
        .enumerate()
        .flat_map(|(d, row)| row.iter().map(move |s| (d, *s)))
        .filter(|(_, s)| {
            p.functions
                .name(p.functions.of_node(&p.resolved.profile, s.id))
                == name
        })
        .max_by_key(|(_, s)| s.end - s.start)
        .unwrap_or_else(|| panic!("no bar of {name}"))
}
