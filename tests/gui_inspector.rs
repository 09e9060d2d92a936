//! The segment inspector as a person uses it: jumping to a frame's segment, long lines decoded
//! in a job, going to a position or an original line (index maps too), searching a map,
//! checking it and comparing it with another.

mod common;

use common::harness::*;

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
    // The frame's segment is selected: generated column 98700 (1-based, as the trace says it)
    // → three.core.js 16287:9, and
    // the table scrolled to it although the line has thousands of segments.
    let view = h.state_mut().inspector_view().unwrap();
    let at = h.state().view.inspector.segment.unwrap();
    assert!(
        view.segments.len() >= 4_000 && at >= 1_000,
        "{} {at}",
        view.segments.len()
    );
    h.get_by_label_contains("98700 → ../node_modules/three/build/three.core.js:16287:9");
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
        symscope::app::StackCommand::SelectFrame { stack: 0, frame: 0 },
    );
    command(
        &mut h,
        symscope::app::InspectorCommand::InspectSelectedFrame,
    );
    // The window draws on while the line is decoded.
    h.run_steps(1);
    settle(&mut h, |h| h.state().view.inspector.segment.is_some());
    assert_eq!(h.state().view.inspector.segment, Some(70_000));
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
    let at = h.state().view.inspector.segment.unwrap();
    let view = h.state_mut().inspector_view().unwrap();
    assert_eq!(view.line, 0);
    assert_eq!(view.segments[at].gen_col, 98699);
    h.get_by_label("Original, ../node_modules/three/build/three.core.js:16287:9");
    // The whole source is in the pane, scrolled to the mapped line; once the map's segments
    // are indexed by original position (a job of the inspector's own), the lines no segment
    // maps to are told apart.
    settle(&mut h, |h| h.state().view.inspector.originals.is_some());
    assert!(has_label(
        &h,
        "this.expandByObject( children[ i ], precise );"
    ));
    let index = h.state().view.inspector.originals.clone().unwrap().1;
    let mapped = index.mapped_lines(1);
    assert!(mapped.binary_search(&16286).is_ok());
    assert!(mapped.len() < 38_000, "{} lines mapped", mapped.len());
    // The line's coverage strip: three.js's line 1 has 426 columns no segment maps (the
    // doctor counts them too); a click in its middle shows the column there.
    let strip = "Coverage of generated line 1: 426 of 253553 columns unmapped";
    h.get_by_label(strip).click();
    h.run_steps(3);
    let at = h.state().view.inspector.segment.unwrap();
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
    // Kinds are named in words; no internal name reaches the screen.
    assert!(labels_containing(&h, "unmapped_generated").is_empty());
    h.get_by_label_contains("info  generated columns no segment maps: ")
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
    commands.send(symscope::app::InspectorCommand::GoToOriginalLine(16286));
    h.state_mut().apply(commands);
    h.run_steps(3);
    // The frame's own segment is among them, a click away; the inspector shows the first.
    assert!(has_label(&h, "16287:9  at generated 1:98700"));
    let at = h.state().view.inspector.segment.unwrap();
    let view = h.state_mut().inspector_view().unwrap();
    assert_eq!(view.segments[at].src_line, 16286);
    h.get_by_label("16287:9  at generated 1:98700").click();
    h.run_steps(3);
    let at = h.state().view.inspector.segment.unwrap();
    let view = h.state_mut().inspector_view().unwrap();
    assert_eq!(view.segments[at].gen_col, 98699);
    // It lands on screen as Jump does: the table scrolled to the segment (its row is among
    // the rows drawn), both code panes at it.
    assert_lands(&h, at, 98699, "three.core.js:16287:9");
}

/// The segment `at` (at 0-based generated column `column`) is on screen: its row among the
/// table's visible rows, the original pane titled with `original`, the generated pane
/// centred on it (its window starts 60 columns before).
fn assert_lands(h: &Harness<'static, AppState>, at: usize, column: u32, original: &str) {
    let row = format!("segment {at}: ");
    assert!(
        has_label(h, &row),
        "the table is not scrolled to segment {at}: {:?}",
        labels_containing(h, "segment ")
            .iter()
            .take(3)
            .collect::<Vec<_>>()
    );
    let title = labels_containing(h, "Original, ");
    assert!(
        title.iter().any(|t| t.ends_with(original)),
        "the original pane shows {title:?}, not {original}"
    );
    let from = format!("… from column {}", column.saturating_sub(60) + 1);
    assert!(
        has_label(h, &from),
        "the generated pane is elsewhere: {:?}",
        labels_containing(h, "from column")
    );
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
    commands.send(symscope::app::InspectorCommand::InspectMap(path));
    if !h.state().workspace.layout.inspector_open {
        commands.send(symscope::app::InspectorCommand::ToggleInspector);
    }
    commands.send(symscope::app::InspectorCommand::OpenOriginal);
    h.state_mut().apply(commands);
    settle(&mut h, |h| has_label(h, "Sources"));
    // The folders are many; filtered to lodash, its folder opens.
    enter_text(&mut h, "Sources", "lodash");
    settle(&mut h, |h| has_label(h, "lodash.js  ("));
    // 223 rxjs sources and lodash, in one list.
    assert_eq!(
        h.state()
            .view
            .inspector
            .originals
            .as_ref()
            .unwrap()
            .1
            .sources()
            .len(),
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
    let hits = h.state().view.inspector.map_search.clone().unwrap().1;
    let at = hits.generated[0];
    h.get_by_label(&format!("{}:{}", at.line + 1, at.column + 1))
        .click();
    h.run_steps(3);
    let view = h.state_mut().inspector_view().unwrap();
    assert_eq!(view.line, at.line);
    let seg = h.state().view.inspector.segment.unwrap();
    assert_eq!(view.gen_col(seg), Some(at.column));
    let place = format!(
        "{}:{}",
        view.segments[seg].src_line + 1,
        view.segments[seg].src_col + 1
    );
    assert_lands(&h, seg, at.column, &place);
    h.get_by_label("Close search").click();
    h.run_steps(2);
    assert!(!has_label(&h, "Close search"));
}

/// Two maps of one bundle compared in the inspector: the line where they differ is listed
/// and shown side by side.
#[test]
fn the_inspector_compares_two_maps() {
    // A variant of three.js's map with two generated lines more (segments without source).
    let dir = temp_dir("gui-compare");
    let original = std::fs::read_to_string(js("three-esbuild/three.min.js.map")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&original).unwrap();
    let mappings = format!("{};A;A", json["mappings"].as_str().unwrap());
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
            "three.min.js.map / three-variant.js.map: 2 of 4227 lines differ"
        ),
        "{:?}",
        labels_containing(&h, "differ")
    );
    // A main tab in front, beside the stack list's, as wide as the main area.
    assert!(tab_active(&h, "Compare maps") && !tab_active(&h, "Stacks"));
    assert_eq!(
        tab(&h, "Compare maps").rect().top(),
        tab(&h, "Stacks").rect().top()
    );
    // It starts at the first difference: the inspector is there already (the inspected map
    // has no line 4226: it shows its last), and each side is titled with its full path.
    assert_eq!(h.state_mut().inspector_view().unwrap().line, 4224);
    assert!(has_label(&h, "1 → (no source)"));
    // The label is the whole path, not a tail of it.
    let full = variant.display().to_string();
    assert!(
        labels_containing(&h, "three-variant.js.map").contains(&full),
        "{:?}",
        labels_containing(&h, "three-variant.js.map")
    );
    // F7 goes to the next difference, Shift+F7 back; past the ends, nowhere.
    let shown =
        |h: &Harness<'static, AppState>| h.state().view.inspector.map_diff.as_ref().unwrap().shown;
    h.key_press(egui::Key::F7);
    h.run_steps(2);
    assert_eq!(shown(&h), 1);
    h.key_press(egui::Key::F7);
    h.run_steps(2);
    assert_eq!(shown(&h), 1);
    h.key_press_modifiers(egui::Modifiers::SHIFT, egui::Key::F7);
    h.run_steps(2);
    assert_eq!(shown(&h), 0);
    h.get_by_label("line 4226: 0 / 1").click();
    h.run_steps(3);
    assert!(has_label(&h, "1 → (no source)"));
    // The inspected map has no line 4226: the inspector shows its last.
    assert_eq!(h.state_mut().inspector_view().unwrap().line, 4224);
    h.get_by_label("Close comparison").click();
    h.run_steps(2);
    assert!(!has_label(&h, "Close comparison"));
    assert!(!has_tab(&h, "Compare maps"));
    std::fs::remove_dir_all(&dir).ok();
}
