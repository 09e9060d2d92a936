//! Heap snapshots recorded from node (`fixtures/heap/leak.cjs`: a lodash workload keeping
//! memoized functions, chains and deep clones) read and analysed, against memlab's reading
//! of the same files (`fixtures/heap/oracle.cjs`, @memlab/core 2.0.5: its dominator tree and
//! retained sizes, grouped by DevTools' Summary rules).

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
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["heap", "--format", "json", "-s"])
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/js/lodash-terser/lodash.min.js.map"),
        )
        .arg(dir().join("after.heapsnapshot"))
        .arg("--compare")
        .arg(dir().join("before.heapsnapshot"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
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
