//! The stack list and the frame detail as a person uses them: dropping a trace and its map, selecting,
//! filtering, the keyboard, pasting, copying and exporting, notes, a small window, and the jobs
//! behind them (the timing panel, cancelling).

mod common;

use common::harness::*;

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
    // Named by the method that encloses the line in three.core.js (V8 names it
    // `expandByObject`; ours, as everywhere, with its class).
    h.get_by_label_contains("name of the enclosing function in the original source");
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
            "at De.expandByObject (out/three.min.js:1:98188)\n    → Box3.expandByObject (../node_modules/three/build/three.core.js:16222:39)"
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
        format: symscope::cli::SymbolicateFormat::Text,
        column_base: None,
        pretty: false,
        cache: None,
        logs: vec![js("three-esbuild/trace.txt")],
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
    // Notes go with the log into every export.
    command(
        &mut h,
        symscope::app::StackCommand::SetNote {
            stack: 0,
            frame: Some(0),
            text: "the mesh was disposed".to_owned(),
        },
    );
    for (format, name) in [
        (symscope::app::ExportFormat::Text, "t.txt"),
        (symscope::app::ExportFormat::Json, "t.json"),
        (symscope::app::ExportFormat::Markdown, "t.md"),
    ] {
        h.state_mut().dialogs.script([vec![dir.join(name)]]);
        command(
            &mut h,
            symscope::app::WorkspaceCommand::Dialog(symscope::app::DialogRequest::Export(format)),
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
    assert!(
        text.contains("→ Box3.expandByObject (../node_modules/three/build/three.core.js:16222:39)")
    );
    assert!(
        text.contains(
            "Notes:\n  stack 0, frame 0 (at De.expandByObject (out/three.min.js:1:98188)): the mesh was disposed"
        ),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("t.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], 1);
    assert_eq!(json["stacks"][0]["frames"][0]["status"], "resolved");
    assert_eq!(
        json["notes"],
        serde_json::json!([{"stack": 0, "frame": 0, "text": "the mesh was disposed"}])
    );
    let md = std::fs::read_to_string(dir.join("t.md")).unwrap();
    assert!(md.starts_with("### TypeError"), "{md}");
    let trace = &text[..text.find("\nNotes:").unwrap()];
    assert!(md.contains("```text\n") && md.contains(trace), "{md}");
    assert!(
        md.contains("- stack 0, frame 0 (at De.expandByObject"),
        "{md}"
    );
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
            "at De.expandByObject (out/three.min.js:1:98188)\n    → Box3.expandByObject (../node_modules/three/build/three.core.js:16222:39)"
        )
    );
    // The status bar says what went onto the clipboard.
    h.run_steps(2);
    assert!(has_label(
        &h,
        "Copied 2 lines to the clipboard: at De.expandByObject (out/three.min.js:1:98188)…"
    ));
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
    assert!(h.state().view.inspector.segment.is_some());
    // Esc clears the filter.
    command(
        &mut h,
        symscope::app::StackCommand::SetFilter("f12".to_owned()),
    );
    h.run_steps(2);
    assert!(has_label(&h, "frames hidden by the filter"));
    h.key_press(egui::Key::Escape);
    h.run_steps(2);
    assert!(h.state().view.stack.filter.is_empty());
    // F1 lists the shortcuts.
    h.key_press(egui::Key::F1);
    h.run_steps(3);
    assert!(has_label(
        &h,
        "copy the whole symbolicated trace (as the CLI prints it)"
    ));
    std::fs::remove_dir_all(&dir).ok();
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
    h.run_steps(1);
    // Enter ends the note; it does not also inspect the frame, as Enter in the list does.
    h.key_press(egui::Key::Enter);
    h.run_steps(3);
    assert!(
        !h.state().workspace.layout.inspector_open,
        "Enter opened the inspector"
    );
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
    command(&mut h, symscope::app::WorkspaceCommand::SaveWorkspace(None));
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

/// At 900×600 with every tile open (inputs, frame detail, inspector, timings) the stack
/// list keeps its least room, and every control of the tiles in front lies inside the
/// window and inside its own column (none clipped).
#[test]
fn a_small_window_keeps_the_list_and_every_control() {
    let mut h = app_sized(900.0, 600.0);
    resolve_three(&mut h);
    h.get_all_by_label_contains(
        "expandByObject  ../node_modules/three/build/three.core.js:16222:39",
    )
    .next()
    .unwrap()
    .click();
    h.run_steps(3);
    h.get_by_label("Inspect segment").click();
    settle(&mut h, |h| has_label(h, "More tools…"));
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Show timings").click();
    h.run_steps(4);
    for t in [
        "Inputs",
        "Stacks",
        "Frame detail",
        "Segment inspector",
        "Timings",
    ] {
        assert!(has_tab(&h, t), "{t}");
    }
    assert!(tab_active(&h, "Segment inspector"));
    // The stack list's tile: from its tab bar down to the tiles below it, and across to
    // the timings' column.
    let stacks = tab(&h, "Stacks").rect();
    let below = tab(&h, "Segment inspector").rect();
    let right = tab(&h, "Timings").rect();
    let (min_w, min_h) = (420.0, 220.0);
    assert!(below.top() - stacks.top() >= min_h, "{stacks:?} {below:?}");
    assert!(
        right.left() - stacks.left() >= min_w,
        "{stacks:?} {right:?}"
    );
    // Its rows show, full width of the tile.
    let row = h
        .get_all_by_label_contains("setFromObject  ../node_modules/three/build/three.core.js:")
        .next()
        .unwrap()
        .rect();
    assert!(
        row.bottom() < below.top() && row.left() >= stacks.left(),
        "{row:?}"
    );
    // Every control in front is inside the window and inside its column.
    let window = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(900.0, 600.0));
    let inside = |h: &Harness<'static, AppState>, label: &str| {
        let r = h.get_by_label(label).rect();
        assert!(window.contains_rect(r), "{label}: {r:?}");
        if r.top() > stacks.top() {
            assert!(r.right() <= right.left() + 1.0, "{label} is clipped: {r:?}");
        }
    };
    for label in [
        "File",
        "View",
        "Raw frames",
        "Copy symbolicated trace",
        "Jump to the selected frame's segment",
        "More tools…",
    ] {
        inside(&h, label);
    }
    // The map's tools that do not fit the inspector's tile are in its overflow menu.
    assert!(!has_label(&h, "Check map"));
    h.get_by_label("More tools…").click();
    h.run_steps(2);
    for label in ["Check map", "Go to original…", "Extract sources…"] {
        let r = h.get_by_label(label).rect();
        assert!(window.contains_rect(r), "{label}: {r:?}");
    }
    h.get_by_label("Check map").click();
    settle(&mut h, |h| has_label(h, "Map doctor: "));
}

#[test]
fn the_timing_panel_lists_each_jobs_phases() {
    let mut h = three_resolved();
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Show timings").click();
    h.run_steps(3);
    // A column right of the stack list, in front.
    assert!(tab_active(&h, "Timings"));
    assert!(tab(&h, "Timings").rect().left() > tab(&h, "Stacks").rect().right());
    // The index job's phases and the look-up, with their figures.
    assert!(has_label(&h, "load three.min.js.map"));
    let phases = h.get_by_label_contains("parse + index");
    assert!(format!("{phases:?}").contains(" ms"));
    assert!(has_label(&h, "symbolicate trace.txt"));
    assert!(has_label(&h, "look-up"));
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

/// Deep recursion folds: a 3,000-frame `StackOverflowError` (read as Java whatever its
/// length) shows its first round, one row for the 2,999 repeats, and the frame below; the
/// row opens to every frame.
#[test]
fn deep_recursion_folds_into_one_row() {
    let mut text = String::from("Exception in thread \"main\" java.lang.StackOverflowError\n");
    for _ in 0..3_000 {
        text.push_str("\tat com.example.Tree.walk(Tree.java:12)\n");
    }
    text.push_str("\tat com.example.Main.main(Main.java:3)\n");
    let mut h = app();
    h.run_steps(2);
    let mut c = symscope::app::Commands::default();
    c.send(symscope::app::InputCommand::PasteTrace(text));
    h.state_mut().apply(c);
    let fold = "× 2,999 the frame above (recursion)";
    settle(&mut h, |h| has_label(h, fold));
    assert_eq!(labels_containing(&h, "Tree.walk").len(), 1);
    assert!(has_label(&h, "Main.main"));
    h.get_by_label_contains(fold).click();
    h.run_steps(3);
    assert!(labels_containing(&h, "Tree.walk").len() > 10, "opened");
}

/// Menus open from the keyboard: F10 opens File, Alt and a menu's first letter that menu.
#[test]
fn menus_open_from_the_keyboard() {
    let mut h = app();
    h.run_steps(2);
    assert!(!has_label(&h, "Open files…"));
    h.key_press(egui::Key::F10);
    h.run_steps(3);
    assert!(has_label(&h, "Open files…"), "F10 opens File");
    h.key_press(egui::Key::Escape);
    h.run_steps(3);
    assert!(!has_label(&h, "Shortcuts  F1"));
    h.key_press_modifiers(egui::Modifiers::ALT, egui::Key::H);
    h.run_steps(3);
    assert!(has_label(&h, "Shortcuts  F1"), "Alt+H opens Help");
}
