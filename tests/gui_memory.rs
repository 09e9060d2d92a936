//! The Memory pane, driven as a person does: a heap snapshot of the minified lodash run
//! (`fixtures/heap/after.heapsnapshot`) dropped with lodash's map shows its Summary in its own
//! tab, the minified constructors under the names V8 gave them in the unminified run
//! (`unminified.oracle.json`) with the counts it gave; a class opens to its objects, an
//! object shows its retainers, and clicking one selects it.

mod common;

use common::harness::*;
use common::js;
use serde_json::Value;

#[test]
fn a_snapshot_shows_its_classes_by_their_original_names() {
    let heap = common::fixture("heap");
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            heap.join("after.heapsnapshot"),
            js("lodash-terser/lodash.min.js.map"),
        ],
    );
    settle(&mut h, |h| {
        has_tab(h, "Memory") && !labels_containing(h, "MapCache").is_empty()
    });
    let unmin: Value =
        serde_json::from_slice(&std::fs::read(heap.join("unminified.oracle.json")).unwrap())
            .unwrap();
    for name in ["MapCache", "Hash", "LodashWrapper", "LazyWrapper"] {
        let labels = labels_containing(&h, &format!("▶ {name}  (was "));
        assert_eq!(labels.len(), 1, "{name}: {labels:?}");
        let count = unmin["constructors"][name]["count"].as_u64().unwrap();
        assert!(has_label(&h, &count.to_string()), "{name}: count {count}");
    }
    // Open MapCache: its objects listed by their original class name and id.
    h.get_by_label_contains("▶ MapCache").click();
    settle(&mut h, |h| !labels_containing(h, "▼ MapCache").is_empty());
    let objects = labels_containing(&h, "MapCache @");
    assert!(!objects.is_empty(), "{:?}", labels_containing(&h, " @"));
    let first = objects[0].clone();
    h.get_by_label(&first).click();
    settle(&mut h, |h| has_label(h, "Retainers"));
    // The object's header and its retaining path name classes as the Summary does.
    assert!(
        labels_containing(&h, "MapCache @")
            .iter()
            .any(|l| l.contains(": self")),
        "{:?}",
        labels_containing(&h, ": self")
    );
    assert!(labels_containing(&h, "Retained through:")[0].ends_with("cache MapCache"));
    // A memoized function's cache is retained by the function's `cache` property.
    let retainers = labels_containing(&h, "`cache` of");
    assert!(!retainers.is_empty(), "{:?}", labels_containing(&h, " of "));
    // A class's definition opens in the segment inspector: the original source at the line
    // V8 puts MapCache in the unminified run.
    h.get_by_label("▼ MapCache  (was Gr)").click_secondary();
    h.run_steps(2);
    h.get_by_label("Open the definition in the segment inspector")
        .click();
    settle(&mut h, |h| tab_active(h, "Segment inspector"));
    let line = unmin["constructors"]["MapCache"]["line"].as_u64().unwrap() + 1;
    assert!(
        !labels_containing(&h, &format!("node_modules/lodash/lodash.js:{line}:")).is_empty(),
        "{:?}",
        labels_containing(&h, "Original, ")
    );
}

#[test]
fn a_timelines_allocation_stacks_open_in_the_profile_views_by_bytes() {
    // The heap timeline of the same workload: its allocation stacks, the heaviest lodash
    // allocators named as the unminified run names them (`lodash.unminified.oracle.json`).
    let heap = common::fixture("heap");
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            heap.join("lodash.heaptimeline"),
            js("lodash-terser/lodash.min.js.map"),
        ],
    );
    settle(&mut h, |h| {
        has_tab(h, "Memory") && has_label(h, "Allocation stacks")
    });
    h.get_by_label("Allocation stacks").click();
    settle(&mut h, |h| has_label(h, "Top-down"));
    // No timeline: no flame chart; the flame graph first.
    assert!(
        !has_label(&h, "Flame chart"),
        "{:?}",
        labels_containing(&h, "Flame chart")
    );
    h.get_by_label("Bottom-up").click();
    settle(&mut h, |h| !labels_containing(h, "hashSet").is_empty());
    let unmin: Value =
        serde_json::from_slice(&std::fs::read(heap.join("lodash.unminified.oracle.json")).unwrap())
            .unwrap();
    // The two heaviest lodash allocators, where the unminified run puts them.
    for name in ["hashSet", "baseClone"] {
        let line = unmin["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap()["line"]
            .as_u64()
            .unwrap();
        assert!(!labels_containing(&h, name).is_empty(), "{name}");
        assert!(
            has_label(&h, &format!("lodash.js:{line}:")),
            "{name} at {line}: {:?}",
            labels_containing(&h, "lodash.js")
        );
    }
    // Weights read as bytes.
    assert!(
        !labels_containing(&h, " kB").is_empty() || !labels_containing(&h, " MB").is_empty(),
        "{:?}",
        labels_containing(&h, "%")
    );
}

#[test]
fn a_sampling_heap_profile_opens_in_the_profile_views_by_bytes() {
    let heap = common::fixture("heap");
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            heap.join("lodash.heapprofile"),
            js("lodash-terser/lodash.min.js.map"),
        ],
    );
    settle(&mut h, |h| has_label(h, "Bottom-up"));
    assert!(!has_label(&h, "Flame chart"));
    h.get_by_label("Bottom-up").click();
    settle(&mut h, |h| has_label(h, "Self size"));
    h.get_by_label("Self size").click();
    settle(&mut h, |h| !labels_containing(h, "memoized").is_empty());
    // `memoized` as the unminified run names it, at its line.
    let unmin: Value = serde_json::from_slice(
        &std::fs::read(heap.join("lodash.heapprofile.unminified.json")).unwrap(),
    )
    .unwrap();
    let line = unmin["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "memoized")
        .unwrap()["line"]
        .as_u64()
        .unwrap();
    assert!(
        has_label(&h, &format!("lodash.js:{line}:")),
        "{:?}",
        labels_containing(&h, "lodash.js")
    );
    assert!(!labels_containing(&h, " kB").is_empty());
}

#[test]
fn two_snapshots_compare_by_node_id_as_memlab_compares_them() {
    // The later snapshot against the earlier one: per class the objects added and freed by
    // node id, as memlab's comparison (`after.compare.oracle.json`) counts them; a class
    // opens to its new objects, one of them selected shows its retainers.
    let heap = common::fixture("heap");
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            heap.join("before.heapsnapshot"),
            js("lodash-terser/lodash.min.js.map"),
        ],
    );
    settle(&mut h, |h| !labels_containing(h, "MapCache").is_empty());
    drop_files(&mut h, &[heap.join("after.heapsnapshot")]);
    settle(&mut h, |h| h.state().loaded_heaps().len() == 2);
    h.get_by_label("Compared with before.heapsnapshot").click();
    settle(&mut h, |h| {
        !labels_containing(h, "▶ MapCache  (was Gr)").is_empty()
    });
    let oracle: Value =
        serde_json::from_slice(&std::fs::read(heap.join("after.compare.oracle.json")).unwrap())
            .unwrap();
    let want = &oracle["compare"]["Gr"];
    let (added, freed) = (
        want["added"].as_u64().unwrap(),
        want["freed"].as_u64().unwrap(),
    );
    // The texts on MapCache's row.
    let row: Vec<String> = {
        use egui_kittest::kittest::NodeT as _;
        let y = h.get_by_label("▶ MapCache  (was Gr)").rect().center().y;
        h.query_all(egui_kittest::kittest::By::new().predicate(|n| n.bounding_box().is_some()))
            .filter(|n| (n.rect().center().y - y).abs() < 4.0)
            .filter_map(|n| {
                let a = n.accesskit_node();
                a.label().or_else(|| a.value())
            })
            .collect()
    };
    // A count shows its sign, none when 0.
    let counted = |n: u64, sign: char| {
        if n == 0 {
            "0".to_owned()
        } else {
            format!("{sign}{n}")
        }
    };
    for want in [
        counted(added, '+'),
        counted(freed, '-'),
        format!("{:+}", added as i64 - freed as i64),
    ] {
        assert!(row.contains(&want), "{want} not in {row:?}");
    }
    h.get_by_label("▶ MapCache  (was Gr)").click();
    settle(&mut h, |h| !labels_containing(h, "MapCache @").is_empty());
    let first = labels_containing(&h, "MapCache @")[0].clone();
    h.get_by_label(&first).click();
    settle(&mut h, |h| has_label(h, "Retainers"));
}
