//! The real app driven through AccessKit as a person would: dropping files, clicking frames,
//! typing a filter, pasting a trace, saving and reopening a workspace.

mod common;

use common::{js, temp_dir};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use symscope::app::{AppState, InputState, Loaded};
use symscope::engine::SymbolFile;

/// A dropped file, as winit hands it to egui.
#[derive(Debug)]
struct Dropped(PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

fn app() -> Harness<'static, AppState> {
    app_sized(1280.0, 800.0)
}

/// The real app in a window of this size, with a waker that does nothing: the test polls
/// frames itself.
fn app_sized(width: f32, height: f32) -> Harness<'static, AppState> {
    let state = AppState::new(Arc::new(|| {}));
    Harness::builder()
        .with_size(egui::vec2(width, height))
        .build_ui_state(
            |ui, state: &mut AppState| state.frame(ui, symscope::ui::app_ui),
            state,
        )
}

fn drop_files(h: &mut Harness<'static, AppState>, files: &[PathBuf]) {
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
fn settle(h: &mut Harness<'static, AppState>, done: impl Fn(&Harness<'static, AppState>) -> bool) {
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
fn three_resolved() -> Harness<'static, AppState> {
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            js("three-esbuild/trace.txt"),
            js("three-esbuild/three.min.js.map"),
        ],
    );
    settle(&mut h, |h| has_label(h, "16222:39"));
    h
}

fn three_with_frame_0() -> Harness<'static, AppState> {
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
fn enter_text(h: &mut Harness<'static, AppState>, label: &str, text: &str) {
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
fn three_inspected(more: &[PathBuf]) -> Harness<'static, AppState> {
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

fn has_label(h: &Harness<'static, AppState>, text: &str) -> bool {
    h.query_all_by_label_contains(text).next().is_some()
}

/// The labels containing `text`, in the window's order (the stack list's rows top down).
fn labels_containing(h: &Harness<'static, AppState>, text: &str) -> Vec<String> {
    use egui_kittest::kittest::NodeT as _;
    h.query_all_by_label_contains(text)
        .filter_map(|n| {
            let node = n.accesskit_node();
            node.label().or_else(|| node.value())
        })
        .collect()
}

#[test]
fn drop_a_trace_and_its_map_shows_original_names() {
    let mut h = app();
    h.run_steps(2);
    h.get_by_label_contains("Drop symbol files and crash logs here");
    drop_files(
        &mut h,
        &[
            js("three-esbuild/trace.txt"),
            js("three-esbuild/three.min.js.map"),
        ],
    );
    settle(&mut h, |h| {
        has_label(
            h,
            "expandByObject  ../node_modules/three/build/three.core.js:16222:39",
        )
    });
    // The raw line is replaced by the original function and location; unmapped frames stay raw.
    // Node's own frames are folded into one row; a click shows them, raw, since no map covers them.
    assert!(!has_label(&h, "at Module._compile"));
    h.get_by_label("    ▶ 6 library frames (show)").click();
    h.run_steps(2);
    assert!(has_label(
        &h,
        "at Module._compile (node:internal/modules/cjs/loader:1521:14)"
    ));
    h.get_by_label("    ▼ 6 library frames (hide)");
    assert!(
        h.state()
            .inputs
            .iter()
            .all(|e| e.state == InputState::Ready)
    );
    // The raw/resolved toggle shows the lines as written.
    h.get_by_label("Raw frames").click();
    h.run_steps(2);
    assert!(has_label(
        &h,
        "at De.expandByObject (out/three.min.js:1:98188)"
    ));
}

#[test]
fn a_map_dropped_after_its_trace_resymbolicates_it() {
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, &[js("lodash-terser/trace.txt")]);
    settle(&mut h, |h| has_label(h, "at Ct (out/lodash.min.js:9:5583)"));
    assert!(
        !has_label(&h, "node_modules/lodash/lodash.js"),
        "nothing resolves without the map"
    );
    drop_files(&mut h, &[js("lodash-terser/lodash.min.js.map")]);
    settle(&mut h, |h| has_label(h, "node_modules/lodash/lodash.js"));
}

#[test]
fn select_a_frame_to_see_its_source_and_filter_the_list() {
    let mut h = three_with_frame_0();
    // The detail panel shows the original source with the frame's line.
    let line =
        h.get_by_label_contains("const positionAttribute = geometry.getAttribute( 'position' );");
    assert!(
        format!("{line:?}").contains("16222"),
        "the line is shown with its number: {line:?}"
    );
    h.get_by_label_contains("name from the caller's call in the source");
    // Typing a filter hides the frames that do not match.
    // The filter is the window's first text field (its hint says "Filter frames (Ctrl+F)").
    h.get_all_by_role(egui::Role::TextInput)
        .next()
        .unwrap()
        .click();
    h.run_steps(1);
    h.get_all_by_role(egui::Role::TextInput)
        .next()
        .unwrap()
        .type_text("Module.");
    h.run_steps(3);
    h.get_by_label_contains("frames hidden by the filter");
    assert!(
        !has_label(&h, "expandByObject  ../node_modules/three"),
        "the resolved frames are filtered out of the list (the detail still shows the selection)"
    );
    assert!(has_label(&h, "at Module.load"));
}

/// Arrow keys move the selection among the shown frames, except while a text field has the
/// keyboard (a focused row or button does not stop them).
#[test]
fn arrow_keys_move_the_selection_after_a_click() {
    let mut h = three_with_frame_0();
    assert_eq!(h.state().workspace.selection.frame, Some(0));
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    assert_eq!(h.state().workspace.selection.frame, Some(2));
    h.key_press(egui::Key::ArrowUp);
    h.run_steps(2);
    assert_eq!(h.state().workspace.selection.frame, Some(1));
    // End, Home and the page keys move through the shown frames; Enter inspects.
    h.key_press(egui::Key::End);
    h.run_steps(2);
    assert_eq!(
        h.state().workspace.selection.frame,
        Some(4),
        "the last frame shown"
    );
    h.key_press(egui::Key::Home);
    h.run_steps(2);
    assert_eq!(h.state().workspace.selection.frame, Some(0));
    h.key_press(egui::Key::PageDown);
    h.run_steps(2);
    assert_eq!(h.state().workspace.selection.frame, Some(4));
    // Right opens the folded library frames below the frame, Left folds them again.
    h.key_press(egui::Key::ArrowRight);
    h.run_steps(2);
    assert!(has_label(&h, "6 library frames (hide)"));
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    assert_eq!(h.state().workspace.selection.frame, Some(5));
    h.key_press(egui::Key::ArrowLeft);
    h.run_steps(2);
    assert!(has_label(&h, "6 library frames (show)"));
    h.key_press(egui::Key::Home);
    h.run_steps(2);
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    assert_eq!(h.state().workspace.selection.frame, Some(1));
    // While the filter is being typed in, arrows belong to the text field.
    h.get_all_by_role(egui::Role::TextInput)
        .next()
        .unwrap()
        .click();
    h.run_steps(1);
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(2);
    assert_eq!(h.state().workspace.selection.frame, Some(1));
}

/// Gives the app a command, as a menu item would.
fn command(h: &mut Harness<'static, AppState>, c: symscope::app::Command) {
    let mut commands = symscope::app::Commands::default();
    commands.send(c);
    h.state_mut().apply(commands);
}

/// The text put on the clipboard this frame (kittest sees egui's output, not the system
/// clipboard; eframe's `clipboard` feature hands the same text to it).
fn clipboard(h: &Harness<'static, AppState>) -> Option<String> {
    h.output()
        .platform_output
        .commands
        .iter()
        .find_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        })
}

/// Ctrl+V: a trace pasted into an unsaved workspace becomes a selected, symbolicated log
/// kept in memory (no file is written anywhere); saved, it lives in the workspace document,
/// and reopening the workspace brings it back.
#[test]
fn a_pasted_trace_becomes_a_log() {
    let dir = temp_dir("paste");
    let before: Vec<_> = std::fs::read_dir(".")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, &[js("rxjs-esbuild/rxjs.min.js.map")]);
    settle(&mut h, |h| {
        h.state()
            .inputs
            .iter()
            .all(|e| e.state == InputState::Ready)
    });
    let trace = std::fs::read_to_string(js("rxjs-esbuild/trace.txt")).unwrap();
    h.event(egui::Event::Paste(trace.clone()));
    settle(&mut h, |h| {
        h.state().inputs.iter().any(|e| e.name == "pasted-1.txt")
    });
    h.get_by_label("pasted-1.txt");
    assert_eq!(
        h.state().workspace.selection.log.as_deref(),
        Some("pasted-1.txt")
    );

    settle(&mut h, |h| {
        has_label(h, "../node_modules/rxjs/src/internal/")
    });
    let after: Vec<_> = std::fs::read_dir(".")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after, "nothing is written to the working directory");
    // Saved (Ctrl+S asks where: the dialog is answered by the test), the text is in the
    // document.
    let file = dir.join("pasted.ron");
    h.state_mut().dialogs.script([vec![file.clone()]]);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(3);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("pasted-1.txt") && text.contains("r._subscribe"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "only the workspace"
    );
    let mut h2 = app();
    h2.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h2, |h| {
        has_label(h, "../node_modules/rxjs/src/internal/")
    });
    h2.get_by_label("pasted-1.txt");
    std::fs::remove_dir_all(&dir).ok();
}

/// Ctrl+C copies the selected frame, Ctrl+Shift+C the whole symbolicated trace exactly as
/// `symscope symbolicate` prints it; the right-click menu copies a location or a function.
#[test]
fn copy_the_frame_and_the_trace_with_keys_and_the_menu() {
    let mut h = three_with_frame_0();
    h.event(egui::Event::Copy);
    h.run_steps(1);
    assert_eq!(
        clipboard(&h).as_deref(),
        Some(
            "at De.expandByObject (out/three.min.js:1:98188)\n    → expandByObject (../node_modules/three/build/three.core.js:16222:39)"
        )
    );
    h.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::C,
    );
    h.run_steps(2);
    // (Two frames: the key's press and release; the text the app put out is kept.)
    let copied = h.state().copied.clone().unwrap();
    let mut cli = Vec::new();
    let args = symscope::cli::SymbolicateArgs {
        symbols: vec![js("three-esbuild/three.min.js.map")],
        format: symscope::cli::OutputFormat::Text,
        column_base: None,
        cache: None,
        log: js("three-esbuild/trace.txt"),
    };
    symscope::cli::symbolicate_command(&args, &mut cli).unwrap();
    assert_eq!(copied, String::from_utf8(cli).unwrap());
    // Right-click a frame: copy its location.
    h.get_all_by_label_contains("setFromObject  ../node_modules/three/build/three.core.js:")
        .next()
        .unwrap()
        .click_secondary();
    h.run_steps(2);
    h.get_by_label("Copy location").click();
    h.run_steps(2);
    let location = h.state().copied.clone().unwrap();
    assert!(
        location.starts_with("../node_modules/three/build/three.core.js:"),
        "{location}"
    );
    assert_eq!(
        h.state().workspace.selection.frame,
        Some(0),
        "copying a location does not move the selection"
    );
}

/// File → Export writes the selected log as the CLI's text, its JSON (schema 1) or Markdown
/// for a ticket, where the save dialog says (answered by the test).
#[test]
fn export_the_selected_log() {
    let dir = temp_dir("export");
    let mut h = three_resolved();
    for (format, name) in [
        (symscope::app::ExportFormat::Text, "t.txt"),
        (symscope::app::ExportFormat::Json, "t.json"),
        (symscope::app::ExportFormat::Markdown, "t.md"),
    ] {
        h.state_mut().dialogs.script([vec![dir.join(name)]]);
        command(
            &mut h,
            symscope::app::Command::Dialog(symscope::app::DialogRequest::Export(format)),
        );
        h.run_steps(3);
        assert!(
            has_label(&h, &format!("to {name}")),
            "the status bar says so"
        );
    }
    let (_, asked_dir, asked_name) = h.state().dialogs.asked[0].clone();
    assert_eq!(asked_name.as_deref(), Some("trace-symbolicated.txt"));
    assert!(asked_dir.is_some());
    let text = std::fs::read_to_string(dir.join("t.txt")).unwrap();
    assert!(text.contains("→ expandByObject (../node_modules/three/build/three.core.js:16222:39)"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("t.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], 1);
    assert_eq!(json["stacks"][0]["frames"][0]["status"], "resolved");
    let md = std::fs::read_to_string(dir.join("t.md")).unwrap();
    assert!(md.starts_with("### TypeError"), "{md}");
    assert!(md.contains("```text\n") && md.contains(&text), "{md}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The demo workspace (a template) is never written: clicking around leaves it byte for
/// byte unchanged, the title marks the changes, and Ctrl+S asks for a new file (suggested
/// `demo-copy.ron`) that is then saved and autosaved.
#[test]
fn the_demo_is_never_overwritten() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("workspaces/demo.ron");
    let bytes = std::fs::read(&demo).unwrap();
    let mut h = app();
    h.state_mut().start(std::slice::from_ref(&demo));
    settle(&mut h, |h| has_label(h, "Box3.expandByObject"));
    assert!(h.state().window_title().starts_with("demo.ron"));
    assert!(!h.state().window_title().contains('•'));
    h.get_all_by_label_contains("Box3.setFromObject")
        .next()
        .unwrap()
        .click();
    command(&mut h, symscope::app::Command::ToggleTheme);
    // Longer than the autosave delay.
    for _ in 0..12 {
        h.run_steps(2);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        h.state().window_title().contains("demo.ron •"),
        "{}",
        h.state().window_title()
    );
    assert_eq!(
        std::fs::read(&demo).unwrap(),
        bytes,
        "the demo is unchanged"
    );
    let dir = temp_dir("demo-copy");
    let copy = dir.join("mine.ron");
    h.state_mut().dialogs.script([vec![copy.clone()]]);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(3);
    assert_eq!(
        std::fs::read(&demo).unwrap(),
        bytes,
        "the demo is unchanged"
    );
    let asked = h.state().dialogs.asked.clone();
    assert_eq!(asked[0].2.as_deref(), Some("demo-copy.ron"));
    assert!(has_label(&h, "Saved mine.ron"));
    assert!(
        h.state().window_title().starts_with("mine.ron — "),
        "{}",
        h.state().window_title()
    );
    let saved = symscope::workspace::load(&copy).unwrap();
    assert!(!saved.template);
    assert_eq!(saved.inputs.len(), h.state().workspace.inputs.len());
    // The copy's paths still find the demo's files.
    let mut h2 = app();
    h2.state_mut().start(std::slice::from_ref(&copy));
    settle(&mut h2, |h| has_label(h, "Box3.expandByObject"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A template (the demo is one) gets no file beside it, not even a cache folder, when a
/// mapping and a native debug file are dropped on it: their derived data goes to the
/// user's cache folder, and the template stays byte for byte as it was.
#[test]
fn a_template_never_gets_a_file_beside_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let dir = temp_dir("template-files");
    let file = dir.join("demo.ron");
    let template = symscope::workspace::Workspace {
        template: true,
        ..Default::default()
    };
    symscope::workspace::save(&file, &template).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    let mut h = app();
    h.state_mut().cache_root = Some(user_cache("template-files"));
    h.state_mut().start(std::slice::from_ref(&file));
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            root.join("java/shop/obf-tree.txt"),
            root.join("java/shop/shop-mapping.txt"),
            root.join("native/crashy/crashy.debug"),
        ],
    );
    settle(&mut h, |h| has_label(h, "com.example.shop.util.Tree.walk"));
    // Past the autosave delay, and until the native file's SymCache job is done.
    for _ in 0..30 {
        h.run_steps(2);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(names_in(&dir), ["demo.ron"]);
    assert_eq!(
        std::fs::read(&file).unwrap(),
        bytes,
        "the template is unchanged"
    );
    // The derived data went where it belongs.
    assert!(!names_in(&cache_of("template-files", &file)).is_empty());
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(user_cache("template-files")).ok();
}

/// Ctrl+S on a workspace never saved asks where to save; cancelling writes nothing.
#[test]
fn saving_a_new_workspace_asks_where() {
    let mut h = three_resolved();
    assert!(h.state().window_title().starts_with("Unsaved workspace •"));
    h.state_mut().dialogs.script([vec![]]);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(3);
    let asked = h.state().dialogs.asked.clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].2.as_deref(), Some("trace.ron"));
    assert!(h.state().workspace_path.is_none());
    assert!(!Path::new("trace.ron").exists() && !Path::new("workspaces/untitled.ron").exists());
}

#[test]
fn a_broken_map_shows_its_error_and_the_rest_still_works() {
    let dir = temp_dir("broken");
    let bad = dir.join("three.min.js.map");
    let map = std::fs::read(js("three-esbuild/three.min.js.map")).unwrap();
    std::fs::write(&bad, &map[..map.len() / 3]).unwrap();
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            js("lodash-terser/trace.txt"),
            bad,
            js("lodash-terser/lodash.min.js.map"),
        ],
    );
    settle(&mut h, |h| has_label(h, "node_modules/lodash/lodash.js"));
    h.get_by_label_contains("malformed or truncated JSON");
    // The badge opens the list and discards nothing; each error is dismissed on its own.
    h.get_by_label("1 error").click();
    h.run_steps(4);
    assert_eq!(h.state().errors.len(), 1);
    assert!(has_label(&h, "Dismiss all"), "the list is open");
    assert!(has_label(&h, "malformed or truncated JSON"));
    h.get_by_label("Dismiss error 1").click();
    h.run_steps(2);
    assert!(h.state().errors.is_empty());
    assert!(!has_label(&h, "1 error"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Two inputs with one file name (`x/a.map` broken, `y/a.map` whole): the load that fails
/// marks its own input, found by its job, never the other one with the same name. The whole
/// map is the big one, added first, so it is still loading when the broken one fails.
#[test]
fn two_inputs_with_one_file_name_are_told_apart() {
    let dir = temp_dir("same-name");
    let (x, y) = (dir.join("x"), dir.join("y"));
    std::fs::create_dir_all(&x).unwrap();
    std::fs::create_dir_all(&y).unwrap();
    let map = std::fs::read(js("pdfjs-dist-worker/pdf.worker.mjs.map")).unwrap();
    std::fs::write(y.join("a.map"), &map).unwrap();
    std::fs::write(x.join("a.map"), &map[..100]).unwrap();
    let mut h = app();
    h.state_mut().add_file(y.join("a.map"), map.clone());
    h.state_mut().add_file(x.join("a.map"), map[..100].to_vec());
    settle(&mut h, |h| {
        h.state()
            .inputs
            .iter()
            .all(|e| !matches!(e.state, InputState::Loading))
    });
    let state_of = |p: &Path| {
        h.state()
            .inputs
            .iter()
            .find(|e| e.path == p)
            .map(|e| e.state.clone())
            .unwrap()
    };
    assert!(
        matches!(state_of(&x.join("a.map")), InputState::Failed(_)),
        "{:?}",
        state_of(&x.join("a.map"))
    );
    assert_eq!(state_of(&y.join("a.map")), InputState::Ready);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn save_and_reopen_gives_the_same_workspace() {
    let dir = temp_dir("save");
    let file = dir.join("triage.ron");
    let mut h = app();
    h.state_mut().workspace_path = Some(file.clone());
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            js("three-esbuild/trace.txt"),
            js("three-esbuild/three.min.js.map"),
        ],
    );
    settle(&mut h, |h| has_label(h, "16222:39"));
    h.get_by_label_contains("expandByObject  ../node_modules/three/build/three.core.js:16222:39")
        .click();
    h.run_steps(2);
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(2);
    let saved = h.state().workspace.clone();
    assert_eq!(saved.inputs.len(), 2);
    assert_eq!(saved.selection.frame, Some(0));

    // A fresh app opens the file and shows the same thing.
    let mut h2 = app();
    h2.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h2, |h| has_label(h, "16222:39"));
    assert_eq!(h2.state().workspace, saved);
    h2.get_by_label("triage.ron");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn removing_an_input_updates_the_list() {
    let mut h = three_resolved();
    h.get_by_label("Remove three.min.js.map").click();
    settle(&mut h, |h| !has_label(h, "16222:39"));
    assert_eq!(h.state().inputs.len(), 1);
    assert!(has_label(
        &h,
        "at De.expandByObject (out/three.min.js:1:98188)"
    ));
}

#[test]
fn the_timing_panel_lists_each_jobs_phases() {
    let mut h = three_resolved();
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Show timings").click();
    h.run_steps(3);
    h.get_by_label("Timings");
    // The index job's phases and the look-up, with their figures.
    assert!(has_label(&h, "load three.min.js.map"));
    let phases = h.get_by_label_contains("parse + index");
    assert!(format!("{phases:?}").contains(" ms"));
    assert!(has_label(&h, "symbolicate trace.txt"));
    assert!(has_label(&h, "look-up"));
}

#[test]
fn the_segment_inspector_jumps_to_a_frame_and_links_both_sides() {
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            js("three-esbuild/trace.txt"),
            js("three-esbuild/three.min.js.map"),
            js("three-esbuild/three.min.js"),
        ],
    );
    settle(&mut h, |h| has_label(h, "16287:9"));
    h.get_all_by_label_contains(
        "expandByObject  ../node_modules/three/build/three.core.js:16287:9",
    )
    .next()
    .unwrap()
    .click();
    h.run_steps(3);
    h.get_by_label("Inspect segment").click();
    h.run_steps(4);
    // The frame's segment is selected: generated column 98699 → three.core.js 16287:9, and
    // the table scrolled to it although the line has thousands of segments.
    let view = h.state_mut().inspector_view().unwrap();
    let at = h.state().view.inspector_segment.unwrap();
    assert!(
        view.segments.len() >= 4_000 && at >= 1_000,
        "{} {at}",
        view.segments.len()
    );
    h.get_by_label_contains("98699 → ../node_modules/three/build/three.core.js:16287:9");
    h.get_by_label("Original, ../node_modules/three/build/three.core.js:16287:9");
    // The generated code around it comes from the bundle, the original line from sourcesContent.
    assert!(has_label(&h, "this.expandByObject(i[r],e)"));
    assert!(has_label(
        &h,
        "this.expandByObject( children[ i ], precise );"
    ));
    // Hovering another segment makes it the one both sides show.
    let other = h
        .get_all_by_label_contains("→ ../node_modules/three/build/three.core.js:16285:")
        .next()
        .expect("a segment of the for loop on the same generated line");
    other.hover();
    h.run_steps(3);
    h.get_by_label_contains("Original, ../node_modules/three/build/three.core.js:16285:");
}

/// A generated line of 80,000 segments (a minified bundle's one line) is decoded in a job:
/// the window goes on drawing, and the frame's segment is selected once the line is there.
#[test]
fn a_long_line_is_decoded_in_a_job() {
    let dir = temp_dir("gui-long-line");
    let n = 80_000;
    let mappings = format!("AAAA{}", ",CAAC".repeat(n - 1));
    let content = "y".repeat(n + 10);
    std::fs::write(
        dir.join("big.js.map"),
        serde_json::json!({
            "version": 3,
            "file": "big.js",
            "sources": ["src/big.ts"],
            "sourcesContent": [content],
            "names": [],
            "mappings": mappings,
        })
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.join("big.js"),
        format!("function f(){{{}}}", "x".repeat(n)),
    )
    .unwrap();
    std::fs::write(
        dir.join("trace.txt"),
        "TypeError: boom\n    at f (big.js:1:70001)\n",
    )
    .unwrap();
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            dir.join("big.js.map"),
            dir.join("big.js"),
            dir.join("trace.txt"),
        ],
    );
    settle(&mut h, |h| has_label(h, "src/big.ts:1:70001"));
    command(
        &mut h,
        symscope::app::Command::SelectFrame { stack: 0, frame: 0 },
    );
    command(&mut h, symscope::app::Command::InspectSelectedFrame);
    // The window draws on while the line is decoded.
    h.run_steps(1);
    settle(&mut h, |h| h.state().view.inspector_segment.is_some());
    assert_eq!(h.state().view.inspector_segment, Some(70_000));
    assert!(
        h.state()
            .timings
            .iter()
            .any(|t| t.name == "decode line 1 of big.js.map"),
        "{:?}",
        h.state()
            .timings
            .iter()
            .map(|t| &t.name)
            .collect::<Vec<_>>()
    );
    let view = h.state_mut().inspector_view().unwrap();
    assert_eq!(view.segments.len(), n);
    h.run_steps(3);
    assert!(has_label(&h, "Original, src/big.ts:1:70001"));
    std::fs::remove_dir_all(&dir).ok();
}

/// In the inspector, a pasted frame's position jumps to its segment; Check map runs the map
/// doctor against the loaded bundle, and an example's position is a click away.
#[test]
fn the_inspector_goes_to_a_position_and_checks_the_map() {
    let mut h = three_inspected(&[]);
    // A pasted V8 frame: generated 1:98700 (1-based) is column 98699, three.core.js 16287:9.
    enter_text(
        &mut h,
        "Go to",
        "    at De.expandByObject (out/three.min.js:1:98700)",
    );
    h.run_steps(4);
    let at = h.state().view.inspector_segment.unwrap();
    let view = h.state_mut().inspector_view().unwrap();
    assert_eq!(view.line, 0);
    assert_eq!(view.segments[at].gen_col, 98699);
    h.get_by_label("Original, ../node_modules/three/build/three.core.js:16287:9");
    // The whole source is in the pane, scrolled to the mapped line; once the map's segments
    // are indexed by original position (a job of the inspector's own), the lines no segment
    // maps to are told apart.
    settle(&mut h, |h| h.state().view.originals.is_some());
    assert!(has_label(
        &h,
        "this.expandByObject( children[ i ], precise );"
    ));
    let index = h.state().view.originals.clone().unwrap().1;
    let mapped = index.mapped_lines(1);
    assert!(mapped.binary_search(&16286).is_ok());
    assert!(mapped.len() < 38_000, "{} lines mapped", mapped.len());
    // The line's coverage strip: three.js's line 1 has 426 columns no segment maps (the
    // doctor counts them too); a click in its middle shows the column there.
    let strip = "Coverage of generated line 1: 426 of 253553 columns unmapped";
    h.get_by_label(strip).click();
    h.run_steps(3);
    let at = h.state().view.inspector_segment.unwrap();
    let col = h.state_mut().inspector_view().unwrap().segments[at].gen_col;
    assert!((120_000..=135_000).contains(&col), "{col}");
    // The map doctor: no errors, and generated code no segment maps (with the bundle).
    h.get_by_label("Check map").click();
    settle(&mut h, |h| has_label(h, "Map doctor"));
    assert!(
        has_label(&h, "Map doctor: no errors"),
        "{:?}",
        labels_containing(&h, "doctor")
    );
    assert!(has_label(&h, "133515 segments"));
    h.get_by_label_contains("info  unmapped_generated: ")
        .click();
    h.run_steps(3);
    assert!(has_label(&h, "map to no source"));
    h.get_by_label("Close report").click();
    h.run_steps(2);
    assert!(!has_label(&h, "Map doctor"));
    // Extract sources…: the folder comes from the dialog; the map's two sources are written
    // under it, `../node_modules/...` kept inside.
    let dir = temp_dir("gui-extract");
    h.state_mut().dialogs.script([vec![dir.clone()]]);
    h.get_by_label("Extract sources…").click();
    settle(&mut h, |h| has_label(h, "Extracted 2 sources to"));
    let core = dir.join("__/node_modules/three/build/three.core.js");
    assert!(
        std::fs::read_to_string(&core)
            .unwrap()
            .contains("expandByObject( object, precise );"),
        "{core:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Go to original: the map's sources as folders with segment counts, filtered by path; a
/// source's line lists every generated segment that maps to it (trace-mapping's
/// allGeneratedPositionsFor, checked in tests/generated_positions.rs), and the inspector
/// shows the first.
#[test]
fn the_inspector_goes_to_an_original_line() {
    let mut h = three_inspected(&[]);
    h.get_by_label("Go to original…").click();
    settle(&mut h, |h| has_label(h, "three.core.js  ("));
    // Two sources in one folder, each with its count; both have their content.
    assert!(has_label(&h, "../node_modules/three/build/  (2)"));
    let core = labels_containing(&h, "three.core.js  (");
    assert!(core[0].ends_with(" segments)"), "{core:?}");
    // Filtered by path: only three.core.js is left.
    fn sources<'h>(h: &'h Harness<'static, AppState>) -> egui_kittest::Node<'h> {
        h.get_all_by_role(egui::Role::TextInput)
            .find(|n| format!("{n:?}").contains("Sources"))
            .expect("the sources filter")
    }
    sources(&h).click();
    h.run_steps(1);
    sources(&h).type_text("core");
    h.run_steps(3);
    assert!(!has_label(&h, "three.module.js  ("));
    h.get_by_label_contains("three.core.js  (").click();
    h.run_steps(2);
    // Go: the first mapped line; then line 16287 (the frame's).
    h.get_by_label("Go").click();
    h.run_steps(3);
    assert!(has_label(&h, "segments map to line"));
    let mut commands = symscope::app::Commands::default();
    commands.send(symscope::app::Command::GoToOriginalLine(16286));
    h.state_mut().apply(commands);
    h.run_steps(3);
    // The frame's own segment is among them, a click away; the inspector shows the first.
    assert!(has_label(&h, "16287:9  at generated 1:98700"));
    let at = h.state().view.inspector_segment.unwrap();
    let view = h.state_mut().inspector_view().unwrap();
    assert_eq!(view.segments[at].src_line, 16286);
    h.get_by_label("16287:9  at generated 1:98700").click();
    h.run_steps(3);
    let at = h.state().view.inspector_segment.unwrap();
    let view = h.state_mut().inspector_view().unwrap();
    assert_eq!(view.segments[at].gen_col, 98699);
}

/// Go to original on an index map: its sections' sources, one list, and a line of lodash
/// (the second section's) leads to generated positions past the section's offset.
#[test]
fn go_to_original_in_an_index_map() {
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, &[js("index-map-rxjs-lodash/vendor.min.js.map")]);
    settle(&mut h, |h| has_label(h, "vendor.min.js.map"));
    let path = h.state().workspace.inputs[0].path.clone();
    let mut commands = symscope::app::Commands::default();
    commands.send(symscope::app::Command::InspectMap(path));
    if !h.state().workspace.layout.inspector_open {
        commands.send(symscope::app::Command::ToggleInspector);
    }
    commands.send(symscope::app::Command::OpenOriginal);
    h.state_mut().apply(commands);
    settle(&mut h, |h| has_label(h, "Sources"));
    // The folders are many; filtered to lodash, its folder opens.
    enter_text(&mut h, "Sources", "lodash");
    settle(&mut h, |h| has_label(h, "lodash.js  ("));
    // 223 rxjs sources and lodash, in one list.
    assert_eq!(
        h.state().view.originals.as_ref().unwrap().1.sources().len(),
        224
    );
    h.get_by_label_contains("lodash.js  (").click();
    h.run_steps(2);
    h.get_by_label("Go").click();
    h.run_steps(3);
    let hits = labels_containing(&h, "at generated ");
    assert!(!hits.is_empty());
    // The lodash section starts at generated line 4 (0-based offset 3).
    assert!(
        hits.iter().all(|l| {
            let line: u32 = l
                .rsplit("generated ")
                .next()
                .unwrap()
                .split(':')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            line >= 4
        }),
        "{hits:?}"
    );
}

/// Search in the inspector: names with their uses, sources, places in the generated code;
/// a place is a click away.
#[test]
fn the_inspector_searches_the_map() {
    let mut h = three_inspected(&[]);
    enter_text(&mut h, "Search", "Box3Helper");
    settle(&mut h, |h| has_label(h, "Close search"));
    assert!(
        has_label(&h, "Names (2)"),
        "{:?}",
        labels_containing(&h, "Names")
    );
    assert!(has_label(&h, "Box3Helper  ("));
    assert!(has_label(&h, "Sources (0)"));
    let places = labels_containing(&h, "Generated code (");
    assert!(places[0] != "Generated code (0)", "{places:?}");
    // The first place in the code, a click away.
    let hits = h.state().view.map_search.clone().unwrap().1;
    let at = hits.generated[0];
    h.get_by_label(&format!("{}:{}", at.line + 1, at.column + 1))
        .click();
    h.run_steps(3);
    let view = h.state_mut().inspector_view().unwrap();
    assert_eq!(view.line, at.line);
    h.get_by_label("Close search").click();
    h.run_steps(2);
    assert!(!has_label(&h, "Close search"));
}

/// Two maps of one bundle compared in the inspector: the line where they differ is listed
/// and shown side by side.
#[test]
fn the_inspector_compares_two_maps() {
    // A variant of three.js's map with one generated line more (a segment without source).
    let dir = temp_dir("gui-compare");
    let original = std::fs::read_to_string(js("three-esbuild/three.min.js.map")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&original).unwrap();
    let mappings = format!("{};A", json["mappings"].as_str().unwrap());
    json["mappings"] = serde_json::Value::String(mappings);
    let variant = dir.join("three-variant.js.map");
    std::fs::write(&variant, serde_json::to_vec(&json).unwrap()).unwrap();
    let mut h = three_inspected(std::slice::from_ref(&variant));
    h.get_by_label("Compare with…").click();
    h.run_steps(2);
    // The menu's entry (the inputs panel names the file too).
    h.get_all_by_label("three-variant.js.map")
        .find(|n| !format!("{n:?}").contains("toggled"))
        .unwrap()
        .click();
    settle(&mut h, |h| has_label(h, "Close comparison"));
    assert!(
        has_label(
            &h,
            "three.min.js.map / three-variant.js.map: 1 of 4226 lines differ"
        ),
        "{:?}",
        labels_containing(&h, "differ")
    );
    h.get_by_label("line 4226: 0 / 1").click();
    h.run_steps(3);
    assert!(has_label(&h, "0 → (no source)"));
    // The inspected map has no line 4226: the inspector shows its last.
    assert_eq!(h.state_mut().inspector_view().unwrap().line, 4224);
    h.get_by_label("Close comparison").click();
    h.run_steps(2);
    assert!(!has_label(&h, "Close comparison"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn copy_a_frame() {
    let mut h = three_with_frame_0();
    h.get_by_label("Copy frame  Ctrl+C").click();
    h.run_steps(1);
    let copied = h
        .output()
        .platform_output
        .commands
        .iter()
        .find_map(|c| match c {
            egui::OutputCommand::CopyText(t) => Some(t.clone()),
            _ => None,
        });
    assert_eq!(
        copied.as_deref(),
        Some(
            "at De.expandByObject (out/three.min.js:1:98188)\n    → expandByObject (../node_modules/three/build/three.core.js:16222:39)"
        )
    );
}

/// A long symbolication (200,000 frames) stops when its Cancel button is clicked, and the app
/// keeps working.
/// Cancelling a file's loading keeps the input, marked "cancelled", with a button that loads
/// it again from disk; loaded again, it is ready and used.
#[test]
fn a_cancelled_load_can_be_loaded_again() {
    let mut h = app();
    h.run_steps(2);
    // A map with five million generated lines: its index pass runs long enough to be caught.
    let dir = temp_dir("cancel-load");
    let path = dir.join("huge.js.map");
    let mut json = String::from(r#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"#);
    json.push_str(&";AACA".repeat(5_000_000));
    json.push_str(r#""}"#);
    std::fs::write(&path, json).unwrap();
    drop_files(&mut h, std::slice::from_ref(&path));
    let deadline = Instant::now() + Duration::from_secs(60);
    // Wait until the job reports how far its index pass is (as a person sees the bar move).
    let indexing = |h: &Harness<'static, AppState>| {
        h.state()
            .jobs
            .running()
            .iter()
            .any(|(_, p)| p.total > 0 && p.done > 0)
    };
    while !(indexing(&h) && has_label(&h, "Cancel load huge.js.map")) {
        assert!(
            Instant::now() < deadline,
            "the load never showed its progress"
        );
        h.run_steps(1);
    }
    h.get_by_label("Cancel load huge.js.map").click();
    settle(&mut h, |h| !has_label(h, "Cancel load huge.js.map"));
    let input = |h: &Harness<'static, AppState>| h.state().inputs[0].state.clone();
    let last = h.state().timings.last().unwrap();
    assert_eq!(
        last.state,
        symscope::jobs::JobState::Cancelled,
        "{}",
        last.name
    );
    assert_eq!(input(&h), InputState::Cancelled);
    assert!(h.state().inputs[0].loaded.is_none());
    h.get_by_label("cancelled");
    h.get_by_label("Load huge.js.map again").click();
    settle(&mut h, |h| input(h) == InputState::Ready);
    assert_eq!(h.state().inputs.len(), 1, "loaded again, not added twice");
    assert!(!has_label(&h, "Load huge.js.map again"));
    assert!(matches!(
        h.state().inputs[0].loaded,
        Some(Loaded::Symbols(SymbolFile::Map(..), _))
    ));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn cancel_a_long_job() {
    let mut h = app();
    h.run_steps(2);
    let mut trace = String::from("TypeError: synthetic\n");
    for i in 0..200_000 {
        trace.push_str(&format!(
            "    at f{i} (out/three.min.js:1:{})\n",
            97_000 + i % 1_700
        ));
    }
    let map = std::fs::read(js("three-esbuild/three.min.js.map")).unwrap();
    h.state_mut()
        .add_file(PathBuf::from("three.min.js.map"), map);
    settle(&mut h, |h| {
        h.state()
            .inputs
            .iter()
            .all(|e| e.state == InputState::Ready)
    });
    h.state_mut()
        .add_file(PathBuf::from("big.txt"), trace.into_bytes());
    // Wait until the symbolication is running and reporting progress.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !has_label(&h, "Cancel symbolicate big.txt") {
        assert!(Instant::now() < deadline, "the symbolication never started");
        h.run_steps(1);
        std::thread::sleep(Duration::from_millis(5));
    }
    // The workspace panel shows how far the log's symbolication is, as a bar.
    let bar = |h: &Harness<'static, AppState>| {
        let by = egui_kittest::kittest::By::new()
            .role(egui::accesskit::Role::ProgressIndicator)
            .label_contains("look-up ");
        h.query(by).is_some()
    };
    while !bar(&h) {
        assert!(
            Instant::now() < deadline,
            "no progress bar for the running log"
        );
        h.run_steps(1);
        std::thread::sleep(Duration::from_millis(5));
    }
    h.get_by_label("Cancel symbolicate big.txt").click();
    settle(&mut h, |h| !has_label(h, "Cancel symbolicate big.txt"));
    let last = h
        .state()
        .timings
        .iter()
        .rev()
        .find(|t| t.name == "symbolicate big.txt")
        .unwrap();
    assert_eq!(last.state, symscope::jobs::JobState::Cancelled);
    assert!(
        h.state().results.is_empty(),
        "a cancelled run leaves no result"
    );
    // The app still works: a small trace resolves.
    drop_files(&mut h, &[js("three-esbuild/trace.txt")]);
    settle(&mut h, |h| has_label(h, "trace.txt"));
    assert!(
        !has_label(&h, "Cancel symbolicate big.txt"),
        "adding a log re-runs no other log"
    );
    h.get_by_label("trace.txt").click();
    settle(&mut h, |h| has_label(h, "16222:39"));
}

/// An obfuscated Android-style crash and its ProGuard mapping, dropped together: headers and
/// frames deobfuscated, an inline chain counted on its row and listed in the detail, an
/// ambiguous frame's candidates behind an expander, and each `Caused by:` folding away.
#[test]
fn drop_a_java_crash_and_its_mapping() {
    let java = |rel: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/java/shop")
            .join(rel)
    };
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, &[java("obf-config.txt"), java("shop-mapping.txt")]);
    settle(&mut h, |h| has_label(h, "ConfigLoader.parseValue"));
    // The timing panel's jobs: the mapping's scan, and the log's class parse and remap.
    let phases: Vec<String> = h
        .state()
        .timings
        .iter()
        .flat_map(|t| t.spans.iter().map(|s| s.phase.clone()))
        .collect();
    for phase in ["scan", "class parse", "remap"] {
        assert!(phases.iter().any(|p| p == phase), "{phase} in {phases:?}");
    }
    // The `Caused by:` header names the original exception class.
    assert!(has_label(
        &h,
        "▼ Caused by: com.example.shop.config.ConfigException: line 2: timeout=30s"
    ));
    // Three original frames inlined into one obfuscated frame: a row for the innermost,
    // then a sub-row for each function it was inlined into, outward.
    let row = "com.example.shop.config.ConfigLoader.parseValue  ConfigLoader.java:34";
    let rows = labels_containing(&h, "ConfigLoader.java:");
    let at = rows
        .iter()
        .position(|l| l.contains(row))
        .expect("the frame's row");
    assert!(
        rows[at + 1].contains(
            "inlined into com.example.shop.config.ConfigLoader.parseEntry  ConfigLoader.java:"
        ),
        "{rows:#?}"
    );
    assert!(
        rows[at + 2].contains("inlined into com.example.shop.config.ConfigLoader."),
        "{rows:#?}"
    );
    h.get_by_label_contains(row).click();
    h.run_steps(3);
    assert!(has_label(&h, "inlined into"));
    assert!(has_label(
        &h,
        "com.example.shop.config.ConfigLoader.parseEntry"
    ));
    // Folding the first `Caused by:` hides its frames, not the others'.
    assert!(has_label(
        &h,
        "com.example.shop.config.ConfigLoader.parseLines  ConfigLoader.java:22"
    ));
    h.get_by_label_contains("▼ Caused by: com.example.shop.config.ConfigException")
        .click();
    h.run_steps(2);
    assert!(has_label(
        &h,
        "▶ Caused by: com.example.shop.config.ConfigException: line 2: timeout=30s  (3 frames)"
    ));
    assert!(!has_label(
        &h,
        "com.example.shop.config.ConfigLoader.parseLines  ConfigLoader.java:22"
    ));
    assert!(has_label(&h, row));

    // The pricing crash has a frame two methods fit: an expander below it, as retrace
    // groups them, lists the other candidate chain.
    drop_files(&mut h, &[java("obf-pricing.txt")]);
    settle(&mut h, |h| has_label(h, "obf-pricing.txt"));
    h.get_by_label("obf-pricing.txt").click();
    let expander = "2 candidates: the symbol file cannot tell which ran (show the other 1)";
    settle(&mut h, |h| has_label(h, expander));
    // The frame is near the end of the list, behind the detail panel: scroll to it first.
    h.get_by_label_contains(expander).scroll_to_me();
    h.run_steps(3);
    // The other method (retrace sorts the lambda first) appears only once the candidates
    // are shown.
    let other = "or com.example.shop.service.OrderService.processAll  OrderService.java:";
    assert!(labels_containing(&h, other).is_empty());
    h.get_by_label_contains(expander).click();
    h.run_steps(3);
    assert!(has_label(&h, "(hide the other 1)"));
    assert_eq!(
        labels_containing(&h, other).len(),
        1,
        "{:#?}",
        labels_containing(&h, "or ")
    );
    // The candidate's row selects its frame, whose detail lists both.
    h.get_by_label_contains(other).click();
    h.run_steps(3);
    assert!(has_label(&h, "2 candidates"));
}

/// Frames an R8 mapping hides (a synthesized lambda class's frame) fold into a row that
/// says why, as retrace leaves them out, and show on demand.
#[test]
fn frames_the_mapping_hides_fold_into_one_row() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/java/r8-retrace/SyntheticLambdaMethodStackTrace");
    let mut h = app();
    drop_files(
        &mut h,
        &[case.join("mapping.txt"), case.join("obfuscated.txt")],
    );
    settle(&mut h, |h| has_label(h, "example.Foo.runIt"));
    h.get_by_label("obfuscated.txt").click();
    let folded = "▶ 1 frame hidden: methods the compiler made (show)";
    settle(&mut h, |h| has_label(h, folded));
    let rows = labels_containing(&h, "example.");
    let at = |needle: &str| rows.iter().position(|l| l.contains(needle));
    assert!(at("lambda$main$0") < at("Foo.runIt"), "{rows:#?}");
    assert!(labels_containing(&h, "a.b.a(Unknown Source)").is_empty());
    h.get_by_label_contains(folded).click();
    h.run_steps(3);
    assert!(has_label(
        &h,
        "▼ 1 frame hidden: methods the compiler made (hide)"
    ));
    assert_eq!(labels_containing(&h, "a.b.a(Unknown Source)").len(), 1);
}

/// The shop's tree crash and its mapping in a workspace saved (Ctrl+S) as `android.ron` in a
/// fresh folder, caches under a user cache folder of the test's own: (the folder, the file,
/// the app).
fn saved_shop_workspace(name: &str) -> (PathBuf, PathBuf, Harness<'static, AppState>) {
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
fn user_cache(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("symscope-{name}-{}-user-cache", std::process::id()))
}

/// The cache folder of workspace `file` under test `name`'s user cache folder.
fn cache_of(name: &str, file: &Path) -> PathBuf {
    symscope::workspace::user_dirs::cache_dir(&user_cache(name), file)
}

/// The files in folder `dir`, by name.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A saved workspace keeps a mapping's class index in its cache folder, in the user's
/// cache, never beside the workspace: reopening it reads the index instead of scanning,
/// and the answers are the same.
#[test]
fn a_reopened_workspace_reads_the_mapping_index_from_its_cache() {
    let (dir, file, h) = saved_shop_workspace("pgcache");
    assert_eq!(names_in(&dir), ["android.ron"]);
    let cached: Vec<PathBuf> = std::fs::read_dir(cache_of("pgcache", &file))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    let phases = |h: &Harness<'static, AppState>| -> Vec<String> {
        h.state()
            .timings
            .iter()
            .filter(|t| t.name.contains("shop-mapping.txt"))
            .flat_map(|t| t.spans.iter().map(|s| s.phase.clone()))
            .collect()
    };
    assert!(phases(&h).contains(&"scan".to_owned()));

    let mut h2 = app();
    h2.state_mut().cache_root = Some(user_cache("pgcache"));
    h2.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h2, |h| has_label(h, "com.example.shop.util.Tree.walk"));
    let p = phases(&h2);
    assert!(p.contains(&"read cached index".to_owned()), "{p:?}");
    assert!(!p.contains(&"scan".to_owned()), "{p:?}");
    // A damaged cache is not trusted: the file is scanned again.
    std::fs::write(&cached[0], b"junk").unwrap();
    let mut h3 = app();
    h3.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h3, |h| has_label(h, "com.example.shop.util.Tree.walk"));
    assert!(phases(&h3).contains(&"scan".to_owned()));
    std::fs::remove_dir_all(&dir).ok();
}

/// A native crash record and the binary's split debug file, dropped together: the crashing
/// frame and an inline chain resolved.
#[test]
fn drop_a_native_crash_and_its_debug_file() {
    let native = |rel: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/native/crashy")
            .join(rel)
    };
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[native("crash-aslr-1.txt"), native("crashy.debug")],
    );
    settle(&mut h, |h| {
        has_label(h, "store_result  /build/crashy/crash.c:24")
    });
    // The inline chain of the crashing frame: a row for each function it was inlined into.
    assert_eq!(
        labels_containing(&h, "inlined into"),
        [
            "        inlined into app::Pipeline::run(int*)  /build/crashy/pipeline.cpp:39",
            "        inlined into cxx_pipeline_run  /build/crashy/pipeline.cpp:49"
        ]
    );
    assert!(has_label(&h, "signal 11 (SIGSEGV)"));
    // The debug file was answered lazily first; its SymCache was built by a job of its own
    // and now answers the frames that follow.
    let names: Vec<&str> = h.state().timings.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"load crashy.debug"), "{names:?}");
    assert!(names.contains(&"build SymCache crashy.debug"), "{names:?}");
    let native = h
        .state()
        .inputs
        .iter()
        .find_map(|e| match &e.loaded {
            Some(Loaded::Symbols(SymbolFile::Native(n), _)) => Some(n.symbols.clone()),
            _ => None,
        })
        .unwrap();
    assert!(!native.is_lazy());
    assert!(native.cache_len() > 0);
}

/// A `.dSYM` bundle dropped as a folder, with a minidump: the dump's threads are walked
/// (the crashed thread first) and its frames resolved through the bundle's DWARF file,
/// found by the module's debug ID.
#[test]
fn drop_a_dsym_folder_and_a_minidump() {
    let macos = |rel: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/native/sentry-symbolic/fixtures/macos")
            .join(rel)
    };
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, &[macos("crash.dSYM"), macos("mini.dmp")]);
    settle(&mut h, |h| {
        has_label(
            h,
            "(anonymous namespace)::crash()  /Users/travis/build/getsentry/breakpad-tools/macos/main.cpp:21",
        )
    });
    assert!(has_label(&h, "Thread 0 Crashed"));
    // The row shows the frame's number once (the dump's report line starts with it too).
    assert!(
        has_label(&h, "×   1  crash "),
        "{:#?}",
        labels_containing(&h, "crash")
    );
    assert_eq!(
        labels_containing(&h, "inlined into"),
        [
            "        inlined into (anonymous namespace)::start()  /Users/travis/build/getsentry/breakpad-tools/macos/main.cpp:25",
            "        inlined into main  /Users/travis/build/getsentry/breakpad-tools/macos/main.cpp:32"
        ]
    );
    // The coverage report (open while modules lack symbols) names the module without
    // symbols and its debug ID.
    assert!(has_label(&h, "Modules: 1 with symbols, 1 without"));
    assert!(has_label(&h, "missing: add its debug file"));
    assert!(has_label(&h, "67E9247C814E392BA027DBDE6748FCBF0"));
    h.get_by_label_contains("Modules: 1 with symbols").click();
    h.run_steps(3);
    assert!(!has_label(&h, "missing: add its debug file"));
    // The bundle's Info.plist was passed over: one symbol file, one log.
    assert_eq!(h.state().inputs.len(), 2);
}

/// A native frame names its build machine's path (`/build/crashy/crash.c`); once the user
/// adds the folder holding the sources, the frame detail shows the file found there by the
/// path's tail, the frame's line marked. Removing the folder takes it away again.
#[test]
fn a_source_folder_gives_native_frames_their_source() {
    let native = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native/crashy");
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[native.join("crash-aslr-1.txt"), native.join("crashy.debug")],
    );
    let row = "store_result  /build/crashy/crash.c:24";
    settle(&mut h, |h| has_label(h, row));
    h.get_all_by_label_contains(row).next().unwrap().click();
    h.run_steps(3);
    assert!(has_label(&h, "Add source folder"));
    assert!(!has_label(&h, "*slot = value;"));
    // The frame's address and its offset in the module the maps put it in.
    assert!(has_label(
        &h,
        "address 0x563054cbb500 in crashy at offset 0x1500"
    ));
    let mut c = symscope::app::Commands::default();
    c.send(symscope::app::Command::AddSourceRoot(native.clone()));
    h.state_mut().apply(c);
    let source_line = "    24      *slot = value; /* SIGSEGV when slot == NULL */";
    settle(&mut h, |h| has_label(h, source_line));
    // Read by a job: the window's thread reads no file.
    assert!(
        h.state()
            .timings
            .iter()
            .any(|t| t.name == "read the frame's source")
    );
    assert!(has_label(&h, "Source folders"));
    h.get_by_label_contains("Remove source folder").click();
    h.run_steps(3);
    assert!(!has_label(&h, "*slot = value;"));
}

/// At 900×600 the stack list keeps most of the window: the side panels and the frame detail
/// are held to a share of it; a resized panel's size is kept in the workspace.
#[test]
fn a_small_window_leaves_the_list_most_of_the_room() {
    let mut h = app_sized(900.0, 600.0);
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            js("three-esbuild/trace.txt"),
            js("three-esbuild/three.min.js.map"),
        ],
    );
    settle(&mut h, |h| has_label(h, "16222:39"));
    h.get_all_by_label_contains(
        "expandByObject  ../node_modules/three/build/three.core.js:16222:39",
    )
    .next()
    .unwrap()
    .click();
    h.run_steps(3);
    let row = h
        .get_all_by_label_contains("setFromObject  ../node_modules/three/build/three.core.js:")
        .next()
        .unwrap()
        .rect();
    let detail = h.get_by_label("Copy frame  Ctrl+C").rect();
    assert!(row.width() >= 900.0 * 0.6, "the list's rows: {row:?}");
    assert!(
        detail.top() >= 600.0 * 0.6,
        "the detail starts low: {detail:?}"
    );
    // A size the user gives a panel is kept in the workspace (and saved with it).
    command(
        &mut h,
        symscope::app::Command::PanelSize(symscope::app::Panel::Detail, 150.0),
    );
    assert_eq!(h.state().workspace.layout.detail_height, 150.0);
}

/// Triage notes: typed on a frame and on its exception, shown in the list, found by the
/// filter, and kept in the saved workspace.
#[test]
fn triage_notes_are_shown_found_and_kept() {
    let dir = temp_dir("notes");
    let file = dir.join("notes.ron");
    let mut h = three_with_frame_0();
    h.get_by_label("Note on this frame").click();
    h.run_steps(1);
    h.get_by_label("Note on this frame")
        .type_text("the null comes from an unloaded mesh");
    h.run_steps(3);
    h.get_by_label("Note on this exception").click();
    h.run_steps(1);
    h.get_by_label("Note on this exception")
        .type_text("seen since 4.2");
    h.run_steps(3);
    assert_eq!(h.state().workspace.notes.len(), 2);
    assert!(has_label(&h, "[note] the null comes from an unloaded mesh"));
    assert!(has_label(&h, "[note] seen since 4.2"));
    // The filter finds the frame by its note.
    h.get_all_by_role(egui::Role::TextInput)
        .next()
        .unwrap()
        .click();
    h.run_steps(1);
    h.get_all_by_role(egui::Role::TextInput)
        .next()
        .unwrap()
        .type_text("unloaded mesh");
    h.run_steps(3);
    assert!(has_label(&h, "frames hidden by the filter"));
    assert!(has_label(
        &h,
        "expandByObject  ../node_modules/three/build/three.core.js:16222:39"
    ));
    // Saved with the workspace.
    h.state_mut().dialogs.script([vec![file.clone()]]);
    command(&mut h, symscope::app::Command::SaveWorkspace(None));
    h.run_steps(3);
    let saved = symscope::workspace::load(&file).unwrap();
    let texts: Vec<&str> = saved.notes.iter().map(|n| n.text.as_str()).collect();
    assert_eq!(
        texts,
        ["the null comes from an unloaded mesh", "seen since 4.2"]
    );
    assert_eq!(saved.notes[0].frame, Some(0));
    assert_eq!(saved.notes[1].frame, None);
    std::fs::remove_dir_all(&dir).ok();
}

/// A workspace naming files outside its folder opens (the paths are kept as written), and
/// nothing in a workspace makes Symscope run a program: an `editor` there is not read (the
/// editor is the user's own setting).
#[test]
fn a_workspace_from_elsewhere_opens_and_runs_nothing() {
    let dir = temp_dir("elsewhere");
    let file = dir.join("sent.ron");
    let trace = js("three-esbuild/trace.txt");
    let map = js("three-esbuild/three.min.js.map");
    let rel = |p: &Path| symscope::workspace::relative_path(&dir, p);
    let marker = dir.join("ran");
    let text = format!(
        "(schema: 1, editor: \"touch {}\", inputs: [(path: \"{}\", kind: log), (path: \"{}\", kind: source_map)])",
        marker.display(),
        rel(&trace),
        map.display()
    );
    std::fs::write(&file, &text).unwrap();
    let mut h = app();
    h.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h, |h| has_label(h, "16222:39"));
    assert!(
        h.state().workspace.inputs[0].path.starts_with(".."),
        "kept as written"
    );
    assert_eq!(
        h.state().workspace.inputs[1].path,
        map.display().to_string()
    );
    assert_eq!(h.state().settings.editor, None, "not from the workspace");
    // Asking to open a source in the editor with none set says how to set one.
    command(
        &mut h,
        symscope::app::Command::OpenInEditor {
            file: trace.clone(),
            line: 1,
            column: 1,
        },
    );
    assert!(
        h.state()
            .errors
            .iter()
            .any(|e| e.message.starts_with("no editor set"))
    );
    assert!(!marker.exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// A corrupted entry of a workspace's cache folder is ignored and rebuilt: the mapping's
/// index is scanned again, the answers are the same, and the entry is whole again.
#[test]
fn a_corrupted_cache_entry_is_rebuilt() {
    let (dir, file, _h) = saved_shop_workspace("corrupt-cache");
    let entry = std::fs::read_dir(cache_of("corrupt-cache", &file))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let good = std::fs::read(&entry).unwrap();
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad.truncate(mid);
    bad.extend_from_slice(b"garbage");
    std::fs::write(&entry, &bad).unwrap();
    let mut h2 = app();
    h2.state_mut().cache_root = Some(user_cache("corrupt-cache"));
    h2.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h2, |h| has_label(h, "com.example.shop.util.Tree.walk"));
    assert!(h2.state().errors.is_empty(), "{:?}", h2.state().errors);
    let phases: Vec<String> = h2
        .state()
        .timings
        .iter()
        .filter(|t| t.name.contains("shop-mapping.txt"))
        .flat_map(|t| t.spans.iter().map(|s| s.phase.clone()))
        .collect();
    assert!(phases.contains(&"scan".to_owned()), "{phases:?}");
    assert_eq!(std::fs::read(&entry).unwrap(), good, "rebuilt");
    std::fs::remove_dir_all(&dir).ok();
}

/// Keys on a long list: End brings the last frame into view (the list is windowed, so only
/// rows in view exist), Home the first; Enter inspects the frame's segment; Esc clears the
/// filter; F1 lists the shortcuts.
#[test]
fn keys_keep_the_selection_in_view() {
    let mut trace = String::from("TypeError: synthetic\n");
    for i in 0..400 {
        let col = 97_000 + (i * 37) % 1_700;
        trace.push_str(&format!("    at f{i} (out/three.min.js:1:{col})\n"));
    }
    let dir = temp_dir("keys");
    let log = dir.join("long.txt");
    std::fs::write(&log, trace).unwrap();
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, &[log, js("three-esbuild/three.min.js.map")]);
    settle(&mut h, |h| {
        h.state()
            .selected_table()
            .is_some_and(|(_, t)| t.is_symbolicated())
    });
    h.get_all_by_label_contains("  0  ").next().unwrap().click();
    h.run_steps(2);
    let last = "399  ";
    assert!(!has_label(&h, last), "the last rows are not laid out yet");
    h.key_press(egui::Key::End);
    h.run_steps(4);
    assert_eq!(h.state().workspace.selection.frame, Some(399));
    assert!(has_label(&h, last), "the list scrolled to the selection");
    h.key_press(egui::Key::Home);
    h.run_steps(4);
    assert!(has_label(&h, "  0  "));
    // Enter inspects the selected frame's segment.
    h.key_press(egui::Key::Enter);
    h.run_steps(4);
    assert!(h.state().workspace.layout.inspector_open);
    assert!(h.state().view.inspector_segment.is_some());
    // Esc clears the filter.
    command(&mut h, symscope::app::Command::SetFilter("f12".to_owned()));
    h.run_steps(2);
    assert!(has_label(&h, "frames hidden by the filter"));
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(h.state().view.filter.is_empty());
    // F1 lists the shortcuts.
    h.key_press(egui::Key::F1);
    h.run_steps(3);
    assert!(has_label(
        &h,
        "copy the whole symbolicated trace (as the CLI prints it)"
    ));
    std::fs::remove_dir_all(&dir).ok();
}

/// A missing input offers Locate… (the dialog answered by the test) and loads from the new
/// place; a file that is neither a symbol file nor a log says it is not used.
#[test]
fn locate_a_missing_input_and_see_what_is_not_used() {
    let dir = temp_dir("locate");
    let moved = dir.join("moved-trace.txt");
    std::fs::copy(js("three-esbuild/trace.txt"), &moved).unwrap();
    let other = dir.join("notes.bin");
    std::fs::write(&other, [0u8, 159, 146, 150, 1, 2, 3]).unwrap();
    let file = dir.join("ws.ron");
    let text = format!(
        "(schema: 1, inputs: [(path: \"gone/trace.txt\", kind: log), (path: \"{}\", kind: source_map), (path: \"notes.bin\")])",
        js("three-esbuild/three.min.js.map").display()
    );
    std::fs::write(&file, text).unwrap();
    let mut h = app();
    h.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h, |h| has_label(h, "Locate trace.txt"));
    assert!(has_label(&h, "not used"));
    h.state_mut().dialogs.script([vec![moved.clone()]]);
    h.get_by_label("Locate trace.txt").click();
    settle(&mut h, |h| has_label(h, "16222:39"));
    assert_eq!(h.state().workspace.inputs[0].path, "moved-trace.txt");
    std::fs::remove_dir_all(&dir).ok();
}

/// A folder of crash logs dropped with their symbol files (three variants of each corpus
/// crash, `common::crashgen`): the Buckets view shows one bucket per crash, sorted and
/// filtered; a bucket's logs open in the stack list; two of them picked as A and B compare
/// frame by frame; the note on a bucket and the comparison are kept in the saved workspace
/// and come back with it.
#[test]
fn a_folder_of_crashes_is_bucketed_and_two_logs_compared() {
    use common::crashgen::{self, SOURCES, SYMBOLS};
    let dir = temp_dir("gui-buckets");
    let crashes = dir.join("crashes");
    std::fs::create_dir_all(&crashes).unwrap();
    let logs = crashgen::generate(&crashes, SOURCES.len() * 3, 5);
    let file = dir.join("triage.ron");
    let mut h = app_sized(1280.0, 1000.0);
    h.state_mut().workspace_path = Some(file.clone());
    h.run_steps(2);
    let mut dropped: Vec<PathBuf> = SYMBOLS
        .iter()
        .map(|s| crashgen::fixtures().join(s))
        .collect();
    dropped.push(crashes.clone());
    drop_files(&mut h, &dropped);
    let summary = format!("Buckets: {} logs in {} buckets", logs.len(), SOURCES.len());
    settle(&mut h, |h| has_label(h, &summary));
    // The logs are not inputs: only the symbol files are.
    assert_eq!(h.state().inputs.len(), SYMBOLS.len());
    // Sorted by title (and back), then filtered: one bucket is left.
    h.get_by_label("Title").click();
    h.run_steps(2);
    assert!(has_label(&h, "▼"));
    h.get_by_label("Title").click();
    h.run_steps(2);
    assert!(has_label(&h, "▲"));
    enter_text(&mut h, "Filter buckets:", "ArithmeticException");
    h.run_steps(2);
    let titles = labels_containing(&h, "Exception in thread");
    assert_eq!(titles.len(), 1, "{titles:?}");
    h.get_by_label_contains("java.lang.ArithmeticException: ")
        .click();
    h.run_steps(2);
    // The tree crash is source 9: logs 9, 27 and 45.
    let tree = SOURCES.iter().position(|s| s.id == "java-tree").unwrap();
    let member = |k: usize| format!("crashes/night-00/crash-{k:06}.txt");
    for k in [tree, tree + SOURCES.len(), tree + 2 * SOURCES.len()] {
        assert!(
            has_label(&h, &member(k)),
            "{:#?}",
            labels_containing(&h, "crash-")
        );
    }
    assert!(has_label(
        &h,
        "com.example.shop.util.Tree.walk  (Tree.java)"
    ));
    // A note on the bucket.
    h.get_all_by_role(egui::Role::TextInput)
        .find(|n| format!("{n:?}").contains("Note:"))
        .unwrap()
        .click();
    h.run_steps(1);
    enter_text(&mut h, "Note:", "depth 0: fixed in 2.3");
    h.run_steps(2);
    // Enter ended the note; it opened nothing.
    assert_eq!(h.state().inputs.len(), SYMBOLS.len());
    // Two of its logs compared: the same frames, titles differing as the messages do.
    h.get_all_by_label("A").next().unwrap().click();
    h.run_steps(2);
    h.get_all_by_label("B").nth(1).unwrap().click();
    settle(&mut h, |h| has_label(h, "Compare stacks"));
    let verdict = labels_containing(&h, " same, ");
    assert_eq!(verdict.len(), 1, "{verdict:?}");
    assert!(
        verdict[0].starts_with("8 same, 0 changed, 0 only in A, 0 only in B"),
        "{verdict:?}"
    );
    // A log of the bucket opens in the stack list, resolved.
    h.get_by_label(&member(tree + SOURCES.len())).click();
    settle(&mut h, |h| {
        has_label(h, "com.example.shop.util.Tree.walk  Tree.java:28")
    });
    let names: Vec<&str> = h.state().inputs.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.len(), SYMBOLS.len() + 1, "{names:?}");
    // Saved, the note and the comparison are in the document; a fresh app brings back both.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(2);
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("depth 0: fixed in 2.3"), "{saved}");
    assert!(saved.contains("compare:"), "{saved}");
    let mut h2 = app_sized(1280.0, 1000.0);
    h2.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h2, |h| {
        has_label(h, &summary) && has_label(h, "Compare stacks")
    });
    assert_eq!(h2.state().workspace.buckets, h.state().workspace.buckets);
    std::fs::remove_dir_all(&dir).ok();
}

/// Several crash logs dropped at once (with symbol files) are inputs as any log, and bucketed:
/// two variants of one crash in one bucket, a third crash in its own.
#[test]
fn several_logs_dropped_at_once_are_bucketed() {
    use common::crashgen::{self, SOURCES, SYMBOLS};
    let dir = temp_dir("gui-several-logs");
    let logs = crashgen::generate(&dir, SOURCES.len() + 1, 9);
    let mut h = app_sized(1280.0, 1000.0);
    h.run_steps(2);
    let mut dropped: Vec<PathBuf> = SYMBOLS
        .iter()
        .map(|s| crashgen::fixtures().join(s))
        .collect();
    // Two variants of the first crash, one of the second.
    dropped.extend([&logs[0].0, &logs[SOURCES.len()].0, &logs[1].0].map(|p| p.to_path_buf()));
    drop_files(&mut h, &dropped);
    settle(&mut h, |h| has_label(h, "Buckets: 3 logs in 2 buckets"));
    assert_eq!(h.state().inputs.len(), SYMBOLS.len() + 3);
    let buckets = h.state().view.buckets.clone().unwrap();
    let mut counts: Vec<usize> = buckets.buckets.iter().map(|b| b.count()).collect();
    counts.sort_unstable();
    assert_eq!(counts, [1, 2]);
    // Two files, one of them a log: no buckets.
    let h = three_resolved();
    assert!(h.state().view.buckets.is_none());
    assert!(h.state().workspace.buckets.is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

/// three.js's trace without its `drivers/three.cjs` frame: 10 of the 11 frames.
fn three_trace_without_driver(title: &str) -> String {
    let trace = std::fs::read_to_string(js("three-esbuild/trace.txt")).unwrap();
    let mut lines: Vec<&str> = trace
        .lines()
        .filter(|l| !l.contains("drivers/three.cjs"))
        .collect();
    lines[0] = title;
    lines.join("\n") + "\n"
}

/// Right-click a stack's header in the stack list to compare two stacks of one log (here a
/// pasted one), or a log's name in the workspace panel to compare two logs' crashed stacks:
/// frames aligned, the frame only one has marked; the comparison is kept in the saved
/// workspace, pasted log and stacks included, and comes back with it.
#[test]
fn two_stacks_of_a_log_and_two_logs_of_the_workspace_compared() {
    let dir = temp_dir("gui-compare-stacks");
    let mut h = three_resolved();
    let file = dir.join("stacks.ron");
    h.state_mut().workspace_path = Some(file.clone());
    // One pasted log, two stacks: the whole trace, then the trace without one frame.
    let trace = std::fs::read_to_string(js("three-esbuild/trace.txt")).unwrap();
    let first = trace.replacen("TypeError: Cannot read", "TypeError: First, cannot read", 1);
    let second = three_trace_without_driver("TypeError: Second, the driver frame gone");
    h.event(egui::Event::Paste(format!("{first}{second}")));
    settle(&mut h, |h| {
        h.state().inputs.iter().any(|e| e.name == "pasted-1.txt")
            && has_label(h, "▼ TypeError: Second, the driver frame gone")
    });
    h.get_by_label_contains("▼ TypeError: First")
        .click_secondary();
    h.run_steps(2);
    h.get_by_label("Compare this stack as A").click();
    h.run_steps(2);
    assert!(has_label(
        &h,
        "▼ TypeError: First, cannot read properties of null (reading 'getAttribute')  [compare A]"
    ));
    h.get_by_label_contains("▼ TypeError: Second")
        .click_secondary();
    h.run_steps(2);
    h.get_by_label("Compare this stack as B").click();
    settle(&mut h, |h| has_label(h, "Compare stacks"));
    let verdict = labels_containing(&h, " same, ");
    assert_eq!(
        verdict,
        ["10 same, 0 changed, 1 only in A, 0 only in B; titles differ"]
    );
    assert!(has_label(&h, "A: pasted-1.txt, stack 1"));
    assert!(has_label(&h, "B: pasted-1.txt, stack 2"));
    let only_a = labels_containing(&h, "drivers/three.cjs");
    assert!(!only_a.is_empty(), "the frame only A has is listed");
    // Resolved frames by function, file name and line (the whole path on hover).
    assert_eq!(
        labels_containing(&h, "expandByObject (three.core.js:16222)").len(),
        2
    );
    // Saved and reopened: the same comparison, of the pasted log's two stacks.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(2);
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("stack_b: Some(1)"), "{saved}");
    let mut h2 = app();
    h2.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h2, |h| has_label(h, "B: pasted-1.txt, stack 2"));
    assert_eq!(
        labels_containing(&h2, " same, "),
        ["10 same, 0 changed, 1 only in A, 0 only in B; titles differ"]
    );

    // Two logs of the workspace, by their names in the workspace panel.
    h.get_by_label("Close window").click();
    h.run_steps(2);
    assert!(h.state().workspace.compare.is_none());
    let other = dir.join("without-driver.txt");
    std::fs::write(
        &other,
        three_trace_without_driver(
            "TypeError: Cannot read properties of null (reading 'getAttribute')",
        ),
    )
    .unwrap();
    drop_files(&mut h, &[other]);
    settle(&mut h, |h| has_label(h, "without-driver.txt"));
    h.get_by_label("trace.txt").click_secondary();
    h.run_steps(2);
    h.get_by_label("Compare this log's crashed stack as A")
        .click();
    h.run_steps(2);
    h.get_by_label("without-driver.txt").click_secondary();
    h.run_steps(2);
    h.get_by_label("Compare this log's crashed stack as B")
        .click();
    settle(&mut h, |h| has_label(h, "B: without-driver.txt"));
    assert_eq!(
        labels_containing(&h, " same, "),
        ["10 same, 0 changed, 1 only in A, 0 only in B"]
    );
    std::fs::remove_dir_all(&dir).ok();
}
