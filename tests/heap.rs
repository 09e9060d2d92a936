//! Heap snapshots recorded from node (`fixtures/heap/leak.cjs`: a lodash workload keeping
//! memoized functions, chains and deep clones) read and analysed, against memlab's reading
//! of the same files (`fixtures/heap/oracle.cjs`, @memlab/core 2.0.5: its dominator tree and
//! retained sizes, grouped by DevTools' Summary rules).

mod common;

use common::{arg, json_of, symscope};
use serde_json::Value;
use std::path::{Path, PathBuf};
use symscope::engine::heap::Heap;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/heap")
}

fn heap(name: &str) -> Heap {
    let file = std::fs::File::open(dir().join(name)).unwrap();
    let snap = symscope::formats::heapsnapshot::read(std::io::BufReader::new(file)).unwrap();
    Heap::new(snap).unwrap()
}

/// The map of the minified lodash the snapshots were recorded on.
fn lodash_map() -> PathBuf {
    common::js("lodash-terser/lodash.min.js.map")
}

fn oracle(name: &str) -> Value {
    serde_json::from_slice(&std::fs::read(dir().join(name)).unwrap()).unwrap()
}

#[test]
fn every_constructor_counts_and_retains_what_memlab_says() {
    for (snapshot, expected) in [
        ("before.heapsnapshot", "before.oracle.json"),
        ("after.heapsnapshot", "after.oracle.json"),
    ] {
        let h = heap(snapshot);
        let o = oracle(expected);
        assert_eq!(h.node_count() as u64, o["nodes"].as_u64().unwrap());
        assert_eq!(h.total_size(), o["self_size"].as_u64().unwrap());
        let summary = h.summary();
        let want = o["constructors"].as_object().unwrap();
        let mut wrong = Vec::new();
        for row in &summary {
            let Some(w) = want.get(&row.name) else {
                wrong.push(format!(
                    "{}: not in memlab ({} objects)",
                    row.name, row.count
                ));
                continue;
            };
            let got = (row.count, row.self_size, row.retained_size);
            let exp = (
                w["count"].as_u64().unwrap(),
                w["self_size"].as_u64().unwrap(),
                w["retained_size"].as_u64().unwrap(),
            );
            if got != exp {
                wrong.push(format!("{}: {got:?} vs memlab {exp:?}", row.name));
            }
        }
        for name in want.keys() {
            if !summary.iter().any(|r| r.name == *name) {
                wrong.push(format!("{name}: memlab's, not ours"));
            }
        }
        assert!(
            wrong.is_empty(),
            "{snapshot}: {} wrong\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }
}

#[test]
fn the_comparison_by_node_id_is_memlabs() {
    let (a, b) = (heap("before.heapsnapshot"), heap("after.heapsnapshot"));
    let o = oracle("after.compare.oracle.json");
    let want = o["compare"].as_object().unwrap();
    let got = a.compare(&b);
    assert_eq!(got.len(), want.len());
    for c in &got {
        let w = &want[&c.name];
        assert_eq!(
            (c.added, c.added_size, c.freed, c.freed_size),
            (
                w["added"].as_u64().unwrap(),
                w["added_size"].as_u64().unwrap(),
                w["freed"].as_u64().unwrap(),
                w["freed_size"].as_u64().unwrap()
            ),
            "{}",
            c.name
        );
        assert_eq!(c.new_objects.len() as u64, c.added);
    }
    // The leak: 400 more rounds each keep a memoized function's cache, a chain and a clone.
    assert!(
        got.iter().take(8).any(|c| c.name == "qr"),
        "{:?}",
        &got[..8]
    );
}

/// `symscope heap --format json` on the minified run's snapshot, with lodash's map: each
/// lodash constructor is named, counted and placed as V8 named, counted and placed it when
/// the same workload ran on lodash's original source (`unminified.oracle.json`, written by
/// `unminified.mjs`); `--compare` names the added objects' classes the same way, with
/// memlab's counts.
#[test]
fn the_cli_names_minified_classes_as_the_unminified_run_does() {
    let doc = heap_json(&[
        "-s",
        arg(&lodash_map()),
        arg(&dir().join("after.heapsnapshot")),
        "--compare",
        arg(&dir().join("before.heapsnapshot")),
    ]);
    let unmin = oracle("unminified.oracle.json");
    let mut compared = 0;
    for (name, want) in unmin["constructors"].as_object().unwrap() {
        if want["count"].as_u64() == Some(0) {
            continue;
        }
        let got = doc["constructors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == *name)
            .unwrap_or_else(|| panic!("{name} not named"));
        assert_ne!(got["generated_name"], *name, "{got}");
        assert_eq!(got["count"], want["count"], "{name}");
        assert_eq!(got["self_size"], want["self_size"], "{name}");
        assert_eq!(got["file"], unmin["file"], "{name}");
        assert_eq!(
            got["line"].as_u64(),
            want["line"].as_u64().map(|l| l + 1),
            "{name}"
        );
        compared += 1;
    }
    assert_eq!(compared, 4);
    // Sorted by retained size, as the Summary is.
    let retained: Vec<u64> = doc["constructors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["retained_size"].as_u64().unwrap())
        .collect();
    assert!(retained.windows(2).all(|w| w[0] >= w[1]));
    let memlab = oracle("after.compare.oracle.json");
    let changes = doc["compare"]["constructors"].as_array().unwrap();
    let wrapper = changes
        .iter()
        .find(|c| c["name"] == "LodashWrapper")
        .unwrap();
    let generated = wrapper["generated_name"].as_str().unwrap();
    assert_eq!(wrapper["added"], memlab["compare"][generated]["added"]);
    assert_eq!(wrapper["freed"], memlab["compare"][generated]["freed"]);
}

/// Broken snapshots get an error naming the problem, never a panic: cut short, a node
/// array that is not whole records, edges that do not add up, an edge to no node, a name
/// that is not a string.
#[test]
fn broken_snapshots_name_their_problem() {
    const TINY: &str = r#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],
        "node_types":[["hidden","object","closure","synthetic"],"string","number","number","number"],
        "edge_fields":["type","name_or_index","to_node"],
        "edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]}},
        "nodes":[3,0,1,0,2, 1,1,3,40,1, 2,2,5,32,0],
        "edges":[2,1,5, 6,2,10, 2,1,10],
        "strings":["","Point","f"]}"#;
    let read = |text: &str| symscope::engine::heap::read_heap("x.heapsnapshot", text.as_bytes());
    let h = read(TINY).unwrap();
    // The root retains the Point, the Point the function; the weak edge does not retain.
    assert_eq!(h.retained_size(0), 72);
    assert_eq!(h.retained_size(1), 72);
    assert_eq!(h.dominator(2), 1);
    for (from, to, says) in [
        (
            "\"strings\":[\"\",\"Point\",\"f\"]}",
            "\"strings\":[\"\",\"Po",
            "not JSON",
        ),
        (
            "2,2,5,32,0]",
            "2,2,5,32,0,1]",
            "not a multiple of its 5 fields",
        ),
        ("1,1,3,40,1,", "1,1,3,40,2,", "edge counts add up to 4"),
        ("2,1,10]", "2,1,11]", "not a node"),
        ("[3,0,1,0,2,", "[3,9,1,0,2,", "string 9 is out of range"),
        (
            "\"node_fields\":[\"type\",",
            "\"node_fields\":[\"kind\",",
            "no `type` field",
        ),
    ] {
        let text = TINY.replace(from, to);
        assert_ne!(text, TINY);
        let e = read(&text).unwrap_err().to_string();
        assert!(e.contains("x.heapsnapshot") && e.contains(says), "{e}");
    }
}

/// The edges read on a second thread beside the nodes (what the CLI does) give the heap
/// the serial read gives, on every recorded snapshot, and the same errors on broken ones.
#[test]
fn edges_read_beside_the_nodes_read_as_the_serial_reader_reads_them() {
    use symscope::engine::heap::{read_heap, read_heap_with};
    let beside = |text: &[u8]| {
        let bytes: std::sync::Arc<[u8]> = text.into();
        let reopen = move |at: u64| -> std::io::Result<Box<dyn std::io::Read>> {
            let mut c = std::io::Cursor::new(bytes.clone());
            c.set_position(at);
            Ok(Box::new(c))
        };
        read_heap_with(
            "x.heapsnapshot",
            text,
            text.len() as u64,
            Some((&reopen, &symscope::jobs::ParallelIndex)),
            &mut symscope::model::NoProgress,
        )
    };
    for name in [
        "before.heapsnapshot",
        "after.heapsnapshot",
        "lodash.heaptimeline",
    ] {
        let bytes = std::fs::read(dir().join(name)).unwrap();
        let (a, b) = (
            read_heap("x.heapsnapshot", bytes.as_slice()).unwrap(),
            beside(&bytes).unwrap(),
        );
        assert_eq!(a.summary(), b.summary(), "{name}");
        assert_eq!(a.edge_count(), b.edge_count());
        for e in (0..a.edge_count() as u32).step_by(97) {
            assert_eq!(
                (a.edge_to(e), a.edge_type(e), a.edge_name(e)),
                (b.edge_to(e), b.edge_type(e), b.edge_name(e))
            );
        }
        // Broken edges (ragged, a fraction, a key after the nodes that is not `edges`):
        // the serial reader's error, word for word.
        let text = String::from_utf8(bytes).unwrap();
        let edges = text.find("\"edges\":[").unwrap() + "\"edges\":[".len();
        for (at, insert) in [(edges, "1,"), (edges + 1, ".5"), (edges - 9, "\"x\":0,")] {
            let mut broken = text.clone();
            broken.insert_str(at, insert);
            let serial = read_heap("x.heapsnapshot", broken.as_bytes()).map(|_| ());
            let two = beside(broken.as_bytes()).map(|_| ());
            assert_eq!(
                serial.map_err(|e| e.to_string()),
                two.map_err(|e| e.to_string()),
                "{name}: {insert}"
            );
        }
    }
}

/// `symscope heap --format json ARGS…`'s document (the run must succeed).
fn heap_json(args: &[&str]) -> Value {
    json_of(&symscope(&[&["heap", "--format", "json"], args].concat()))
}

#[test]
fn write_symbolicated_writes_the_allocation_frames_metro_symbolicate_writes() {
    let lodash_map = lodash_map();
    for (snapshot, map, oracle_file) in [
        (
            dir().join("lodash.heaptimeline"),
            lodash_map,
            "lodash.metro.json",
        ),
        (
            dir().join("metro/GenSampleHeapSnapshotBundle.js.heaptimeline"),
            dir().join("metro/GenSampleHeapSnapshotBundle.js.map"),
            "metro/GenSampleHeapSnapshotBundle.metro.json",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let written = tmp.path().join("out.heaptimeline");
        heap_json(&[
            "-s",
            arg(&map),
            "--write-symbolicated",
            arg(&written),
            arg(&snapshot),
        ]);
        let want = oracle(oracle_file);
        let before: Value = serde_json::from_slice(&std::fs::read(&snapshot).unwrap()).unwrap();
        let after: Value = serde_json::from_slice(&std::fs::read(&written).unwrap()).unwrap();
        assert_eq!(
            after["trace_function_infos"], want["trace_function_infos"],
            "{oracle_file}"
        );
        let strings = after["strings"].as_array().unwrap();
        let old = before["strings"].as_array().unwrap();
        assert_eq!(&strings[..old.len()], &old[..]);
        assert_eq!(
            &strings[old.len()..],
            want["strings_added"].as_array().unwrap(),
            "{oracle_file}"
        );
        // Nothing else changes.
        for (key, value) in before.as_object().unwrap() {
            if key != "trace_function_infos" && key != "strings" {
                assert_eq!(&after[key], value, "{key}");
            }
        }
    }
}

#[test]
fn allocation_frames_are_named_as_the_unminified_run_names_them() {
    let snapshot = dir().join("lodash.heaptimeline");
    let doc = heap_json(&["-s", arg(&lodash_map()), arg(&snapshot)]);
    let ours: Vec<&Value> = doc["allocations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["file"] == "node_modules/lodash/lodash.js")
        .collect();
    let unmin = oracle("lodash.unminified.oracle.json");
    let theirs = unmin["functions"].as_array().unwrap();
    // V8 names a function assigned to a computed property `X.<computed>`; it is anonymous.
    let name = |v: &Value| {
        let n = v.as_str().unwrap();
        if n.is_empty() || n.ends_with(".<computed>") {
            "(anonymous)".to_owned()
        } else {
            n.to_owned()
        }
    };
    let mut same = 0;
    for t in theirs {
        if let Some(o) = ours.iter().find(|o| o["line"] == t["line"]) {
            assert_eq!(name(&o["function"]), name(&t["name"]), "line {}", t["line"]);
            same += 1;
        }
    }
    assert!(same >= 45, "{same} functions in both runs");
    // The heaviest allocators are where the unminified run puts them (the JIT inlines a few
    // small functions differently in the two runs: those are further down).
    for o in &ours[..8] {
        assert!(
            theirs.iter().any(|t| t["line"] == o["line"]),
            "{o} is not in the unminified run"
        );
    }
}

#[test]
fn allocation_totals_are_the_trace_trees() {
    // Unresolved, each frame is its own row: objects and bytes are the sums of the trace
    // tree's nodes for it, read here with serde_json.
    let snapshot = dir().join("lodash.heaptimeline");
    let doc = heap_json(&[arg(&snapshot)]);
    let raw: Value = serde_json::from_slice(&std::fs::read(&snapshot).unwrap()).unwrap();
    let meta = &raw["snapshot"]["meta"];
    let fields = |k: &str| -> Vec<String> { serde_json::from_value(meta[k].clone()).unwrap() };
    let (ff, nf) = (
        fields("trace_function_info_fields"),
        fields("trace_node_fields"),
    );
    let at = |fields: &[String], k: &str| fields.iter().position(|f| f == k).unwrap();
    let infos = raw["trace_function_infos"].as_array().unwrap();
    let strings = raw["strings"].as_array().unwrap();
    let mut want: std::collections::HashMap<(String, String, u64, u64), (u64, u64)> =
        Default::default();
    let mut stack = vec![raw["trace_tree"].as_array().unwrap().clone()];
    let mut root = true;
    while let Some(node) = stack.pop() {
        let f = node[at(&nf, "function_info_index")].as_u64().unwrap() as usize;
        let r = &infos[f * ff.len()..(f + 1) * ff.len()];
        let s = |k: &str| {
            strings[r[at(&ff, k)].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
                .to_owned()
        };
        let n = |k: &str| r[at(&ff, k)].as_u64().unwrap();
        let count = node[at(&nf, "count")].as_u64().unwrap();
        if !root && count > 0 {
            let e = want
                .entry((s("name"), s("script_name"), n("line"), n("column")))
                .or_default();
            e.0 += count;
            e.1 += node[at(&nf, "size")].as_u64().unwrap();
        }
        root = false;
        let kids = node[at(&nf, "children")].as_array().unwrap();
        for k in kids.chunks(nf.len()) {
            stack.push(k.to_vec());
        }
    }
    // (Functions that only call allocators have a total, no objects of their own.)
    let rows: Vec<&Value> = doc["allocations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["count"] != 0)
        .collect();
    assert_eq!(rows.len(), want.len());
    for r in rows {
        let name = match r["function"].as_str().unwrap() {
            "(anonymous)" => String::new(),
            n => n.to_owned(),
        };
        let file = r["file"].as_str().unwrap_or_default().to_owned();
        // Rows carry 1-based lines and 0-based columns; the trace 1-based both (0: none).
        let line = r["line"].as_u64().unwrap_or(0);
        let column = r["column"].as_u64().map_or(0, |c| c + 1);
        let key = (name, file, line, column);
        let &(count, size) = want
            .get(&key)
            .unwrap_or_else(|| panic!("{key:?} not in the trace"));
        assert_eq!(
            (r["count"].as_u64().unwrap(), r["size"].as_u64().unwrap()),
            (count, size),
            "{key:?}"
        );
    }
}

#[test]
fn broken_allocation_stacks_name_their_problem() {
    const TIMELINE: &str = r#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count","trace_node_id"],
        "node_types":[["hidden","object","closure","synthetic"],"string","number","number","number","number"],
        "edge_fields":["type","name_or_index","to_node"],
        "edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],
        "trace_function_info_fields":["function_id","name","script_name","script_id","line","column"],
        "trace_node_fields":["id","function_info_index","count","size","children"]},
        "trace_function_count":2},
        "nodes":[3,0,1,0,1,0, 1,1,3,40,0,2],
        "edges":[2,1,6],
        "trace_function_infos":[0,0,0,0,0,0, 1,2,3,7,4,10],
        "trace_tree":[1,0,0,0,[2,1,1,40,[]]],
        "strings":["","Point","f","app.min.js"]}"#;
    let read = |text: &str| symscope::engine::heap::read_heap("x.heaptimeline", text.as_bytes());
    let h = read(TIMELINE).unwrap();
    let (profile, _) = symscope::engine::allocations::allocation_profile(&h).unwrap();
    assert_eq!(profile.nodes.len(), 2);
    assert_eq!(
        profile.locations[profile.nodes[1].location as usize].url,
        "app.min.js"
    );
    for (from, to, says) in [
        ("1,2,3,7,4,10]", "1,2,3,7,4]", "trace_function_infos"),
        ("1,2,3,7,4,10]", "1,9,3,7,4,10]", "string 9 is out of range"),
        ("[2,1,1,40,[]]", "[2,5,1,40,[]]", "trace function 5"),
        ("[2,1,1,40,[]]", "[2,1,1,[]]", "not JSON"),
        ("\"script_name\",", "\"script\",", "no `script_name` field"),
    ] {
        let text = TIMELINE.replace(from, to);
        assert_ne!(text, TIMELINE);
        let e = read(&text).unwrap_err().to_string();
        assert!(e.contains("x.heaptimeline") && e.contains(says), "{e}");
    }
    // A snapshot without allocation stacks has nothing to rewrite: the CLI says so.
    let tmp = tempfile::tempdir().unwrap();
    let out = symscope(&[
        "heap",
        "--write-symbolicated",
        arg(&tmp.path().join("out.heapsnapshot")),
        arg(&dir().join("before.heapsnapshot")),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("before.heapsnapshot") && err.contains("no allocation stacks"),
        "{err}"
    );
    assert!(!tmp.path().join("out.heapsnapshot").exists());
}

/// `symscope profile --format json ARGS…`'s first profile.
fn profile_json(args: &[&str]) -> Value {
    json_of(&symscope(
        &[&["profile", "--format", "json"], args].concat(),
    ))["profiles"][0]
        .clone()
}

#[test]
fn a_sampling_heap_profile_names_allocators_as_the_unminified_run_does() {
    let doc = profile_json(&[
        "-s",
        arg(&lodash_map()),
        arg(&dir().join("lodash.heapprofile")),
    ]);
    assert_eq!(doc["weight"], "bytes");
    let unmin = oracle("lodash.heapprofile.unminified.json");
    let name = |v: &Value| match v.as_str() {
        None | Some("") => "(anonymous)".to_owned(),
        Some(n) if n.ends_with(".<computed>") => "(anonymous)".to_owned(),
        Some(n) => n.to_owned(),
    };
    // Sampling picks other allocations in each run: the functions both runs sampled.
    let mut same = 0;
    for t in unmin["functions"].as_array().unwrap() {
        let ours = doc["functions"].as_array().unwrap().iter().find(|f| {
            f["file"] == "node_modules/lodash/lodash.js"
                && f["line"] == t["line"]
                && f["self_size"] != 0
        });
        if let Some(o) = ours {
            assert_eq!(name(&o["function"]), name(&t["name"]), "line {}", t["line"]);
            same += 1;
        }
    }
    assert!(same >= 12, "{same} functions in both runs");
}

#[test]
fn sampling_heap_profile_sizes_are_devtools_self_and_total_sizes() {
    // Unresolved, each call frame is its own function: self size is the sum of its nodes'
    // `selfSize`, total the sum over the nodes with it on their path (once per path), as
    // DevTools' bottom-up view counts them. The tree read here with serde_json.
    let file = dir().join("lodash.heapprofile");
    let doc = profile_json(&[arg(&file)]);
    let raw: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    type Key = (String, String, i64, i64);
    let mut want: std::collections::HashMap<Key, (i64, i64)> = Default::default();
    let mut stack: Vec<(&Value, Vec<Key>)> = vec![(&raw["head"], Vec::new())];
    while let Some((n, path)) = stack.pop() {
        let f = &n["callFrame"];
        let key: Key = (
            f["functionName"].as_str().unwrap().to_owned(),
            f["url"].as_str().unwrap().to_owned(),
            f["lineNumber"].as_i64().unwrap(),
            f["columnNumber"].as_i64().unwrap(),
        );
        let mut path = path;
        let root = f["functionName"] == "(root)" && f["url"] == "";
        if !root && !path.contains(&key) {
            path.push(key.clone());
        }
        let size = n["selfSize"].as_i64().unwrap();
        if !root {
            want.entry(key).or_default().0 += size;
        }
        for k in &path {
            want.entry(k.clone()).or_default().1 += size;
        }
        for c in n["children"].as_array().unwrap() {
            stack.push((c, path.clone()));
        }
    }
    want.retain(|_, &mut (_, total)| total > 0);
    let rows = doc["functions"].as_array().unwrap();
    assert_eq!(rows.len(), want.len());
    for r in rows {
        let key: Key = (
            r["function"].as_str().unwrap_or_default().to_owned(),
            r["file"].as_str().unwrap_or_default().to_owned(),
            r["line"].as_i64().map_or(-1, |l| l - 1),
            r["column"].as_i64().unwrap_or(-1),
        );
        let &(own, total) = want
            .get(&key)
            .unwrap_or_else(|| panic!("{key:?} not in the tree"));
        assert_eq!(
            (
                r["self_size"].as_i64().unwrap(),
                r["total_size"].as_i64().unwrap()
            ),
            (own, total),
            "{key:?}"
        );
    }
}

#[test]
fn broken_sampling_heap_profiles_name_their_problem() {
    let text = std::fs::read_to_string(dir().join("lodash.heapprofile")).unwrap();
    let run = |text: &str| {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("x.heapprofile");
        std::fs::write(&f, text).unwrap();
        let out = symscope(&["profile", arg(&f)]);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = run(&text[..text.len() / 2]);
    assert!(e.contains("x.heapprofile") && e.contains("not JSON"), "{e}");
    let e = run(&text.replacen("\"id\":1,", "\"ident\":1,", 1));
    assert!(
        e.contains("x.heapprofile") && e.contains("without a numeric `id`"),
        "{e}"
    );
}

#[test]
fn reading_a_snapshot_reports_progress_and_stops_when_told() {
    use std::ops::ControlFlow;
    use symscope::engine::heap::read_heap_with;
    let bytes = std::fs::read(dir().join("after.heapsnapshot")).unwrap();
    let total = bytes.len() as u64;
    // Told of the bytes read as it goes, then of each phase.
    let mut seen: Vec<(String, u64)> = Vec::new();
    let mut record = |phase: &str, done: u64, _total: u64| {
        seen.push((phase.to_owned(), done));
        ControlFlow::Continue(())
    };
    read_heap_with(
        "after.heapsnapshot",
        bytes.as_slice(),
        total,
        None,
        &mut record,
    )
    .unwrap();
    let reads: Vec<u64> = seen
        .iter()
        .filter(|(p, _)| p == "read heap snapshot")
        .map(|&(_, d)| d)
        .collect();
    assert!(reads.len() >= 2, "{seen:?}");
    assert!(reads.windows(2).all(|w| w[0] < w[1]) && *reads.last().unwrap() < total);
    assert!(seen.iter().any(|(p, _)| p == "dominator tree"));
    // Cancelled during the read (the second report), and between the phases after it: it
    // stops there, and says so.
    let stop_when = |stop: &dyn Fn(&str, usize) -> bool| {
        let mut calls = 0;
        let mut progress = |phase: &str, _: u64, _: u64| {
            calls += 1;
            if stop(phase, calls) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let e = read_heap_with(
            "after.heapsnapshot",
            bytes.as_slice(),
            total,
            None,
            &mut progress,
        )
        .unwrap_err();
        assert!(
            matches!(e.reason, symscope::engine::Reason::Cancelled),
            "{e}"
        );
        calls
    };
    assert_eq!(stop_when(&|_, calls| calls == 2), 2);
    stop_when(&|phase, _| phase == "dominator tree");
}
