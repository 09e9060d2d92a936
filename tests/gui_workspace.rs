//! Workspaces as a person keeps them: saving and reopening, the demo and other templates never
//! written, caches in the user's cache folder, inputs missing, removed, broken or sharing a
//! file name, a workspace from elsewhere that runs nothing.

mod common;

use common::harness::*;

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
    command(&mut h, symscope::app::WindowCommand::ToggleTheme);
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
fn save_and_reopen_gives_the_same_workspace() {
    let dir = temp_dir("save");
    let file = dir.join("triage.ron");
    let mut h = app();
    h.state_mut().workspace_path = Some(file.clone());
    resolve_three(&mut h);
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
        symscope::app::StackCommand::OpenInEditor {
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
    // Failed, with the engine's own error (typed until it is drawn): the file and why.
    let InputState::Failed(failure) = state_of(&x.join("a.map")) else {
        panic!("{:?}", state_of(&x.join("a.map")))
    };
    let error = failure
        .error::<symscope::engine::Error>()
        .expect("the engine's error");
    assert_eq!(error.file, x.join("a.map").display().to_string());
    assert!(matches!(
        error.reason,
        symscope::engine::Reason::SourceMap(_)
    ));
    assert_eq!(state_of(&y.join("a.map")), InputState::Ready);
    std::fs::remove_dir_all(&dir).ok();
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

/// Paths are kept and shown normalized: a file dropped as `…/three-esbuild/../three-esbuild/
/// trace.txt` is `…/three-esbuild/trace.txt`, in the inputs and in the workspace.
#[test]
fn dropped_paths_are_normalized() {
    let odd = js("three-esbuild/../three-esbuild/./trace.txt");
    assert!(odd.to_string_lossy().contains(".."));
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, std::slice::from_ref(&odd));
    settle(&mut h, |h| !h.state().inputs.is_empty());
    let input = &h.state().inputs[0];
    assert_eq!(input.path, js("three-esbuild/trace.txt"));
    assert!(!h.state().workspace.inputs[0].path.contains(".."));
}

/// Closes the window as its close button does, and steps one frame.
fn close_window(h: &mut Harness<'static, AppState>) {
    h.input_mut()
        .viewports
        .entry(egui::ViewportId::ROOT)
        .or_default()
        .events
        .push(egui::ViewportEvent::Close);
    h.step();
}

/// Whether the last frame told the window `command`.
fn told(h: &Harness<'static, AppState>, command: &egui::ViewportCommand) -> bool {
    h.output()
        .viewport_output
        .get(&egui::ViewportId::ROOT)
        .is_some_and(|v| v.commands.contains(command))
}

const QUESTION: &str = "Save changes to this workspace before closing?";

/// Closing with unsaved changes keeps the window open and asks: Cancel (or Escape) stays,
/// Don't save closes; closing with nothing unsaved just closes.
#[test]
fn closing_with_unsaved_changes_asks_first() {
    let mut h = three_resolved();
    assert!(h.state().unsaved());
    close_window(&mut h);
    assert!(told(&h, &egui::ViewportCommand::CancelClose));
    h.run_steps(2);
    h.get_by_label(QUESTION);
    h.get_by_label("Cancel").click();
    h.run_steps(2);
    assert!(!has_label(&h, QUESTION));
    assert!(!told(&h, &egui::ViewportCommand::Close));

    close_window(&mut h);
    h.run_steps(2);
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(!has_label(&h, QUESTION), "Escape is Cancel");

    close_window(&mut h);
    h.run_steps(2);
    h.get_by_label("Don't save").click();
    h.step();
    h.step();
    assert!(told(&h, &egui::ViewportCommand::Close));
    close_window(&mut h);
    assert!(!told(&h, &egui::ViewportCommand::CancelClose));

    // Nothing unsaved: no question.
    let mut h = app();
    h.run_steps(2);
    close_window(&mut h);
    assert!(!told(&h, &egui::ViewportCommand::CancelClose));
    h.run_steps(2);
    assert!(!has_label(&h, QUESTION));
}

/// Save in the question writes the workspace's own file, then closes.
#[test]
fn save_before_closing_writes_the_file() {
    let (dir, file, mut h) = saved_shop_workspace("close-save");
    let dark = h.state().workspace.layout.dark;
    command(&mut h, symscope::app::WindowCommand::ToggleTheme);
    assert!(h.state().unsaved());
    close_window(&mut h);
    h.run_steps(2);
    h.get_by_label("Save changes to android.ron before closing?");
    h.get_by_label("Save").click();
    h.step();
    h.step();
    assert!(told(&h, &egui::ViewportCommand::Close));
    assert_eq!(symscope::workspace::load(&file).unwrap().layout.dark, !dark);
    std::fs::remove_dir_all(&dir).ok();
}

/// A workspace never saved asks where on Save: cancelling that dialog keeps the window
/// open; choosing a file saves there, then closes.
#[test]
fn save_before_closing_asks_where_for_a_new_workspace() {
    let dir = temp_dir("close-save-as");
    let file = dir.join("kept.ron");
    let mut h = three_resolved();
    h.state_mut().dialogs.script([vec![], vec![file.clone()]]);
    for round in 0..2 {
        close_window(&mut h);
        h.run_steps(2);
        h.get_by_label(QUESTION);
        h.get_by_label("Save").click();
        h.run_steps(3);
        if round == 0 {
            assert!(
                !told(&h, &egui::ViewportCommand::Close),
                "Save as… cancelled"
            );
            assert!(h.state().unsaved() && !has_label(&h, QUESTION));
        }
    }
    assert_eq!(h.state().dialogs.asked.len(), 2);
    assert_eq!(h.state().dialogs.asked[1].2.as_deref(), Some("trace.ron"));
    assert!(told(&h, &egui::ViewportCommand::Close));
    assert_eq!(symscope::workspace::load(&file).unwrap().inputs.len(), 2);
    std::fs::remove_dir_all(&dir).ok();
}
