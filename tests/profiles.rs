//! `symscope profile` on a real CPU profile (`tests/fixtures/profiles`: a lodash workload
//! recorded with `node --cpu-prof` on the minified corpus bundle, and on the package itself),
//! against independent oracles: every node's original position as the `source-map` package
//! maps it, every node's sample count as V8 counted it (`hitCount`), and the functions V8
//! found heaviest in the unminified run, by name and line.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profiles")
}

fn map() -> PathBuf {
    common::js("lodash-terser/lodash.min.js.map")
}

/// `symscope profile --format json` of `profile` against `symbols`, which must succeed.
fn profile_json(symbols: &[PathBuf], profile: &Path) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_symscope"));
    cmd.args(["profile", "--format", "json"]);
    for s in symbols {
        cmd.arg("-s").arg(s);
    }
    let out = cmd.arg(profile).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A JSON file of the fixtures.
fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The Hermes profile against terser's and hermesc's maps, chained.
fn hermes_json() -> Value {
    let hermes = dir().join("hermes");
    profile_json(
        &[hermes.join("work.hbc.map"), hermes.join("work.min.js.map")],
        &hermes.join("work.hermes-profile.json"),
    )
}

fn profile(format: &str, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["profile", "--format", format, "-s"])
        .arg(map())
        .args(extra)
        .arg(dir().join("lodash-min.cpuprofile"))
        .output()
        .unwrap()
}

fn json() -> Value {
    let out = profile("json", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["profiles"].as_array().unwrap().len(), 1);
    doc["profiles"][0].clone()
}

fn oracle() -> Value {
    read_json(&dir().join("lodash-min.oracle.json"))
}

fn recorded() -> Value {
    read_json(&dir().join("lodash-min.cpuprofile"))
}

/// A path from `node_modules/` on, as both sides name lodash's source.
fn tail(path: &str) -> &str {
    path.find("node_modules/").map_or(path, |i| &path[i..])
}

#[test]
fn every_lodash_node_maps_where_source_map_maps_it() {
    let doc = json();
    let oracle = oracle();
    let positions = oracle["positions"].as_object().unwrap();
    let mut compared = 0;
    for node in doc["nodes"].as_array().unwrap() {
        let id = node["id"].as_u64().unwrap().to_string();
        let Some(want) = positions.get(&id) else {
            continue;
        };
        compared += 1;
        if want["source"].is_null() {
            // source-map maps nothing there (the bundle's wrapper at 1:0): neither do we.
            assert_eq!(node["status"], "not_covered", "{node}");
            continue;
        }
        assert_eq!(node["status"], "resolved", "{node}");
        assert_eq!(
            tail(node["file"].as_str().unwrap()),
            tail(want["source"].as_str().unwrap()),
            "{node}"
        );
        assert_eq!(node["line"], want["line"], "{node}");
        assert_eq!(node["column"], want["column"], "{node}");
    }
    assert_eq!(compared, positions.len());
    assert!(compared >= 50, "{compared}");
}

#[test]
fn sample_counts_and_times_are_v8s() {
    let doc = json();
    let recorded = recorded();
    // Each node's hits: how often the recorded `samples` name it. (V8's own `hitCount`
    // differs from its `samples` for a few nodes, by a tick or a few; the totals agree.)
    let mut counted: std::collections::HashMap<u64, u64> = Default::default();
    for s in recorded["samples"].as_array().unwrap() {
        *counted.entry(s.as_u64().unwrap()).or_default() += 1;
    }
    let nodes = doc["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), recorded["nodes"].as_array().unwrap().len());
    for n in nodes {
        assert_eq!(
            n["hits"].as_u64().unwrap(),
            counted
                .get(&n["id"].as_u64().unwrap())
                .copied()
                .unwrap_or(0),
            "{n}"
        );
    }
    let hit_counts: u64 = recorded["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["hitCount"].as_u64().unwrap_or(0))
        .sum();
    let ours: u64 = nodes.iter().map(|n| n["hits"].as_u64().unwrap()).sum();
    assert_eq!(ours, hit_counts);
    // Every sample's time is someone's self time: the nodes' self times add up to the
    // samples' span (the last lasting the mean interval).
    let self_sum: f64 = nodes.iter().map(|n| n["self_ms"].as_f64().unwrap()).sum();
    let deltas: Vec<i64> = recorded["timeDeltas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_i64().unwrap())
        .collect();
    let n = deltas.len() as f64;
    let span: i64 = deltas[1..].iter().sum();
    let expected = (span as f64 + span as f64 / (n - 1.0)) / 1e3;
    assert!(
        (self_sum - expected).abs() < 0.01,
        "{self_sum} vs {expected}"
    );
    assert_eq!(doc["samples"].as_u64(), Some(deltas.len() as u64));
}

#[test]
fn the_heaviest_functions_are_those_v8_found_in_the_unminified_run() {
    let doc = json();
    let functions = doc["functions"].as_array().unwrap();
    let total: f64 = functions
        .iter()
        .map(|f| f["self_ms"].as_f64().unwrap())
        .sum();
    for heavy in oracle()["heavy"].as_array().unwrap() {
        let name = heavy["function"].as_str().unwrap();
        let line = heavy["line"].as_u64().unwrap();
        let ours = functions.iter().find(|f| {
            f["file"]
                .as_str()
                .is_some_and(|p| p.ends_with("lodash/lodash.js"))
                && f["line"].as_u64() == Some(line)
        });
        let Some(ours) = ours else {
            panic!("V8's heavy function {name:?} at lodash.js:{line} is not among ours");
        };
        // V8 names an anonymous function "": ours has no name.
        assert_eq!(
            ours["function"].as_str().unwrap_or_default(),
            name,
            "lodash.js:{line}: {ours}"
        );
        let share = ours["self_ms"].as_f64().unwrap() / total;
        assert!(share >= 0.01, "{name} at {line}: {share}");
    }
}

#[test]
fn collapsed_stacks_and_the_rewritten_profile() {
    let out = profile("collapsed", &[]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let samples: u64 = text
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    let recorded = recorded();
    assert_eq!(
        samples,
        recorded["samples"].as_array().unwrap().len() as u64
    );
    assert!(text.contains("arrayAggregator"), "original names");
    // The profile rewritten: the same nodes and samples, original call frames.
    let out = profile("cpuprofile", &[]);
    assert!(out.status.success());
    let rewritten: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rewritten["samples"], recorded["samples"]);
    assert_eq!(rewritten["timeDeltas"], recorded["timeDeltas"]);
    let urls: Vec<&str> = rewritten["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["callFrame"]["url"].as_str())
        .collect();
    assert!(urls.iter().any(|u| u.ends_with("lodash/lodash.js")));
    // Only the nodes nothing maps keep the bundle's URL.
    let unresolved = json()["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| {
            n["call_frame"]["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("lodash.min.js"))
                && n["status"] != "resolved"
        })
        .count();
    assert_eq!(
        urls.iter().filter(|u| u.ends_with("lodash.min.js")).count(),
        unresolved
    );
    // --top: the first N of the table.
    let out = profile("text", &["--top", "3"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2 + 3, "{text}");
}

#[test]
fn a_broken_profile_is_refused_with_its_name_and_the_problem() {
    let tmp = common::temp_dir("broken-profile");
    let full = std::fs::read_to_string(dir().join("lodash-min.cpuprofile")).unwrap();
    let cut = tmp.join("cut.cpuprofile");
    std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["profile"])
        .arg(&cut)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cut.cpuprofile") && err.contains("not JSON"),
        "{err}"
    );
    std::fs::remove_dir_all(&tmp).ok();
}

/// A Chrome trace-event file: node's own trace of the same workload (`--trace-events-enabled`
/// with V8's CPU profiler category) while `--cpu-prof` ran. Its profile `0x1`, put together
/// from its `ProfileChunk` events, is the very profile V8 wrote as `lodash-trace.cpuprofile`:
/// every node and function comes out the same from both.
#[test]
fn a_traces_profile_chunks_make_the_profile_v8_wrote() {
    let run = |file: &str, format: &str| {
        Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args(["profile", "--format", format, "-s"])
            .arg(map())
            .arg(dir().join(file))
            .output()
            .unwrap()
    };
    let doc = |out: std::process::Output| -> Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let trace = doc(run("lodash-trace.json", "json"));
    let written = doc(run("lodash-trace.cpuprofile", "json"));
    let profiles = trace["profiles"].as_array().unwrap();
    // The --cpu-prof profile and the trace's own.
    assert_eq!(profiles.len(), 2);
    let chunked = profiles
        .iter()
        .find(|p| p["profile"].as_str().unwrap().ends_with("profile 0x1)"))
        .unwrap();
    let whole = &written["profiles"][0];
    assert!(whole["nodes"].as_array().unwrap().len() > 100);
    // The trace names scripts by path where the .cpuprofile has file:// URLs.
    let same = |v: &Value| -> Value {
        serde_json::from_str(&v.to_string().replace("file:///", "/")).unwrap()
    };
    let (chunked, whole) = (&same(chunked), &same(whole));
    for key in ["duration_ms", "samples", "functions"] {
        assert_eq!(chunked[key], whole[key], "{key}");
    }
    // The same nodes (a tree's children may come in another order: by id).
    let by_id = |p: &Value| -> std::collections::BTreeMap<u64, Value> {
        p["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| (n["id"].as_u64().unwrap(), n.clone()))
            .collect()
    };
    let (a, b) = (by_id(chunked), by_id(whole));
    assert_eq!(a.len(), b.len());
    for (id, n) in &a {
        assert_eq!(Some(n), b.get(id), "node {id}");
    }
    // Folded stacks of several profiles each under its own root; one rewritten profile only.
    let folded = String::from_utf8(run("lodash-trace.json", "collapsed").stdout).unwrap();
    assert!(folded.lines().all(|l| l.contains("(pid ")), "{folded}");
    let out = run("lodash-trace.json", "cpuprofile");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds 2 CPU profiles"));
}

/// A Hermes sampling profile (`hermes -sample-profiling`, hermes-engine-cli 0.12, of
/// `hermes/work.js` minified by terser and compiled by hermesc): each JavaScript frame's
/// bytecode address resolves through hermesc's map and terser's, chained, where the
/// `source-map` package maps it (`hermes/work.oracle.json`).
#[test]
fn a_hermes_profile_resolves_through_its_chain_of_maps() {
    let doc = hermes_json();
    let oracle = read_json(&dir().join("hermes/work.oracle.json"));
    let positions = oracle["positions"].as_object().unwrap();
    let nodes = doc["profiles"][0]["nodes"].as_array().unwrap();
    let mut compared = 0;
    for (id, want) in positions {
        let node = nodes
            .iter()
            .find(|n| n["id"].as_u64().unwrap().to_string() == *id)
            .unwrap_or_else(|| panic!("no node {id}"));
        assert_eq!(node["status"], "resolved", "{node}");
        assert_eq!(node["file"], want["source"], "{node}");
        assert_eq!(node["line"], want["line"], "{node}");
        assert_eq!(node["column"], want["column"], "{node}");
        compared += 1;
    }
    assert!(compared >= 8, "{compared}");
    // Every sample counted, native and GC frames kept with their names.
    assert_eq!(doc["profiles"][0]["samples"].as_u64(), Some(312));
    assert!(
        nodes
            .iter()
            .any(|n| n["call_frame"]["function_name"] == "[Native] arrayPrototypePush")
    );
}

/// The same profile against metro-symbolicate, as a React Native developer runs it: terser's
/// and hermesc's maps composed by metro-source-map (`hermes/work.composed.map`), then
/// `metro-symbolicate work.composed.map work.cpuprofile` (`hermes/work.metro.json`, written
/// by `hermes/record-metro.mjs`). Every JavaScript frame's position agrees, whether Symscope
/// is given the composed map or the two maps to chain. (metro names frames by the minified
/// names, having no function map; Symscope's names come from the original scopes.)
#[test]
fn a_hermes_profile_agrees_with_metro_symbolicate() {
    let hermes = dir().join("hermes");
    let metro = read_json(&hermes.join("work.metro.json"));
    for maps in [
        &["work.composed.map"][..],
        &["work.hbc.map", "work.min.js.map"][..],
    ] {
        let maps: Vec<PathBuf> = maps.iter().map(|m| hermes.join(m)).collect();
        let doc = profile_json(&maps, &hermes.join("work.hermes-profile.json"));
        let nodes = doc["profiles"][0]["nodes"].as_array().unwrap();
        let mut compared = 0;
        for (id, name) in metro["names"].as_object().unwrap() {
            // `function(source:line:column)`, line 1-based, column 0-based.
            let name = name.as_str().unwrap();
            let inner = &name[name.find('(').unwrap() + 1..name.len() - 1];
            let mut parts = inner.rsplitn(3, ':');
            let column: u64 = parts.next().unwrap().parse().unwrap();
            let line: u64 = parts.next().unwrap().parse().unwrap();
            let source = parts.next().unwrap();
            let node = nodes
                .iter()
                .find(|n| n["id"].as_u64().unwrap().to_string() == *id)
                .unwrap_or_else(|| panic!("no node {id}"));
            let ours = (
                node["file"].as_str(),
                node["line"].as_u64(),
                node["column"].as_u64(),
            );
            assert_eq!(
                ours,
                (Some(source), Some(line), Some(column)),
                "{maps:?}: {name}"
            );
            compared += 1;
        }
        assert!(compared >= 8, "{compared}");
    }
}

/// `--format speedscope`: speedscope's file format (the fields its schema requires), each
/// sample's stack ending at its leaf, weighed by its duration: each function's self time
/// summed from the stacks' last frames is the DevTools-rule count `views.mjs` made from the
/// raw JSON (`lodash-min.views.json`), the frames resolved to lodash's original names.
#[test]
fn speedscope_output_weighs_each_stack_as_devtools_does() {
    let out = profile("speedscope", &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["$schema"],
        "https://www.speedscope.app/file-format-schema.json"
    );
    let frames = doc["shared"]["frames"].as_array().unwrap();
    assert!(frames.iter().all(|f| f["name"].is_string()));
    assert!(frames.iter().any(|f| f["name"] == "arrayAggregator"
        && f["file"] == "node_modules/lodash/lodash.js"
        && f["line"] == 506));
    let p = &doc["profiles"][0];
    assert_eq!(p["type"], "sampled");
    assert_eq!(p["unit"], "microseconds");
    let samples = p["samples"].as_array().unwrap();
    let weights = p["weights"].as_array().unwrap();
    assert_eq!(samples.len(), weights.len());
    // Self time per leaf frame, against the independent count (its keys are V8's recorded
    // frames; the unresolved ones, V8's own entries, keep their names).
    let oracle = read_json(&dir().join("lodash-min.views.json"));
    let total: i64 = oracle["whole"]["self"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_i64().unwrap())
        .sum();
    let mut ours_total = 0;
    let mut gc = 0;
    for (s, w) in samples.iter().zip(weights) {
        let stack = s.as_array().unwrap();
        let Some(leaf) = stack.last() else { continue };
        let w = w.as_i64().unwrap();
        ours_total += w;
        if frames[leaf.as_u64().unwrap() as usize]["name"] == "(garbage collector)" {
            gc += w;
        }
    }
    assert_eq!(ours_total, total);
    assert_eq!(
        Some(gc),
        oracle["whole"]["self"]["(garbage collector)||-1|-1"].as_i64()
    );
}

/// Where `value` breaks `schema` (a JSON Schema of the keywords speedscope's uses: `$ref`,
/// `anyOf`, `const`, `enum`, `type`, `properties`, `required`, `items`), or `None`.
fn schema_error(root: &Value, schema: &Value, value: &Value, at: &str) -> Option<String> {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.strip_prefix("#/definitions/").expect("a local $ref");
        return schema_error(root, &root["definitions"][name], value, at);
    }
    if let Some(any) = schema["anyOf"].as_array() {
        return any
            .iter()
            .all(|s| schema_error(root, s, value, at).is_some())
            .then(|| format!("{at}: no alternative of anyOf fits"));
    }
    if !schema["const"].is_null() && schema["const"] != *value {
        return Some(format!("{at}: {value} is not {}", schema["const"]));
    }
    if let Some(e) = schema["enum"].as_array()
        && !e.contains(value)
    {
        return Some(format!("{at}: {value} not in {e:?}"));
    }
    if let Some(t) = schema["type"].as_str() {
        let fits = match t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "number" => value.is_number(),
            "integer" => value.is_i64() || value.is_u64(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            other => panic!("type {other}"),
        };
        if !fits {
            return Some(format!("{at}: {value} is not {t}"));
        }
    }
    if let Some(required) = schema["required"].as_array() {
        for r in required {
            if value.get(r.as_str().unwrap()).is_none() {
                return Some(format!("{at}: no {r}"));
            }
        }
    }
    if let (Some(props), Some(obj)) = (schema["properties"].as_object(), value.as_object()) {
        for (k, v) in obj {
            if let Some(s) = props.get(k)
                && let Some(e) = schema_error(root, s, v, &format!("{at}.{k}"))
            {
                return Some(e);
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            if let Some(e) = schema_error(root, items, v, &format!("{at}[{i}]")) {
                return Some(e);
            }
        }
    }
    None
}

/// `--format speedscope` conforms to speedscope's own schema (`speedscope/
/// file-format-schema.json` of speedscope 1.25.0), resolved or not; unresolved, each frame
/// is V8's recorded one as speedscope's Chrome importer names it (1-based line and column),
/// and every function's self time, summed from the stacks' last frames, is the DevTools-rule
/// count of `views.mjs` from the raw JSON.
#[test]
fn speedscope_output_conforms_to_speedscopes_schema() {
    let schema = read_json(&dir().join("speedscope/file-format-schema.json"));
    let run = |symbols: &[PathBuf]| {
        let out = Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args(["profile", "--format", "speedscope"])
            .args(
                symbols
                    .iter()
                    .flat_map(|s| [PathBuf::from("-s"), s.clone()]),
            )
            .arg(dir().join("lodash-min.cpuprofile"))
            .output()
            .unwrap();
        assert!(out.status.success());
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let resolved = run(&[map()]);
    assert_eq!(schema_error(&schema, &schema, &resolved, "$"), None);
    let doc = run(&[]);
    assert_eq!(schema_error(&schema, &schema, &doc, "$"), None);
    // The schema is checked: a sample's weight as a string is refused.
    let mut broken = doc.clone();
    broken["profiles"][0]["weights"][0] = Value::from("12");
    assert!(schema_error(&schema, &schema, &broken, "$").is_some());
    let frames = doc["shared"]["frames"].as_array().unwrap();
    let key = |f: &Value| {
        let name = f["name"].as_str().unwrap();
        format!(
            "{}|{}|{}|{}",
            if name == "(anonymous)" { "" } else { name },
            f["file"].as_str().unwrap_or_default(),
            f["line"].as_i64().unwrap_or(0) - 1,
            f["col"].as_i64().unwrap_or(0) - 1
        )
    };
    let p = &doc["profiles"][0];
    let mut selfs: std::collections::HashMap<String, i64> = Default::default();
    for (s, w) in p["samples"]
        .as_array()
        .unwrap()
        .iter()
        .zip(p["weights"].as_array().unwrap())
    {
        if let Some(leaf) = s.as_array().unwrap().last() {
            *selfs
                .entry(key(&frames[leaf.as_u64().unwrap() as usize]))
                .or_default() += w.as_i64().unwrap();
        }
    }
    let oracle = read_json(&dir().join("lodash-min.views.json"));
    let expected: std::collections::HashMap<String, i64> = oracle["whole"]["self"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
        .filter(|(_, v)| *v > 0)
        .collect();
    selfs.retain(|_, v| *v > 0);
    assert_eq!(selfs, expected);
}

/// A Hermes profile samples positions inside functions (`funcVirtAddr + offset`): its
/// functions table has each function once, at its start (`funcVirtAddr`, mapped by the
/// `source-map` package through both maps: `hermes/work.oracle.json`'s `starts`), whatever
/// offsets its samples were at.
#[test]
fn a_hermes_profile_ranks_each_function_once_at_its_start() {
    let doc = hermes_json();
    let oracle = read_json(&dir().join("hermes/work.oracle.json"));
    let p = &doc["profiles"][0];
    let nodes = p["nodes"].as_array().unwrap();
    let expected: std::collections::BTreeSet<String> = oracle["starts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(id, start)| {
            let node = nodes
                .iter()
                .find(|n| n["id"].as_u64().unwrap().to_string() == *id)
                .unwrap();
            format!(
                "{} {}:{}:{}",
                node["function"], start["source"], start["line"], start["column"]
            )
        })
        .collect();
    let ours: Vec<String> = p["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == "work.js")
        .map(|f| {
            format!(
                "{} {}:{}:{}",
                f["function"], f["file"], f["line"], f["column"]
            )
        })
        .collect();
    let unique: std::collections::BTreeSet<String> = ours.iter().cloned().collect();
    assert_eq!(
        unique.len(),
        ours.len(),
        "a function listed twice: {ours:?}"
    );
    assert_eq!(unique, expected);
}

/// `perf script` of a native program (`perf/work.c` built by gcc with frame pointers, sampled
/// by `perf record -g`): read from its text, each frame of the program resolved against the
/// binary's DWARF as a crash frame is, where llvm-symbolizer puts it (`perf/work.oracle.json`,
/// written by `perf/oracle.py`: callers at their return address − 1); libc's frames, without
/// their debug file, say so. The functions table counts each function once.
#[test]
fn a_perf_script_profile_resolves_against_the_binary() {
    let perf = dir().join("perf");
    let doc = profile_json(&[perf.join("work")], &perf.join("work.perf.txt"));
    let oracle = read_json(&perf.join("work.oracle.json"));
    let p = &doc["profiles"][0];
    assert_eq!(p["samples"], 999);
    let compared = work_frames_as_llvm_symbolizer_puts_them(p, &oracle);
    assert!(compared >= 10, "{compared}");
    let names: Vec<&str> = p["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["function"].as_str())
        .collect();
    for f in ["cmp", "hash_all", "sum_squares", "main"] {
        assert_eq!(
            names.iter().filter(|n| **n == f).count(),
            1,
            "{f}: {names:?}"
        );
    }
}

/// Each node of a profile of `perf/work` where the oracle puts it; libc's frames unresolved.
/// Answers how many were compared.
fn work_frames_as_llvm_symbolizer_puts_them(p: &Value, oracle: &Value) -> usize {
    let nodes = p["nodes"].as_array().unwrap();
    let parents: std::collections::HashSet<u64> =
        nodes.iter().filter_map(|n| n["parent"].as_u64()).collect();
    let mut compared = 0;
    for n in nodes {
        let url = n["call_frame"]["url"].as_str().unwrap_or_default();
        if url.ends_with("/libc.so.6") {
            assert_eq!(n["status"], "no_symbols", "{n}");
            continue;
        }
        if !url.ends_with("/work") {
            continue;
        }
        let caller = parents.contains(&n["id"].as_u64().unwrap());
        let key = format!(
            "{:x}{}",
            n["call_frame"]["column"].as_u64().unwrap(),
            if caller { " caller" } else { "" }
        );
        let want = &oracle["frames"][&key];
        assert!(want.is_object(), "no oracle for {key}");
        assert_eq!(n["status"], "resolved", "{n}");
        assert_eq!(n["function"], want["function"], "{key}");
        let file = n["file"].as_str().unwrap();
        assert_eq!(file.rsplit('/').next(), want["file"].as_str(), "{key}");
        assert_eq!(n["line"], want["line"], "{key}");
        compared += 1;
    }
    compared
}

/// A `perf record --buildid-mmap` profile names each module's build ID: the debug file is
/// found by it under any name, and a file of another build is refused, saying so.
#[test]
fn a_perf_profile_finds_its_debug_file_by_build_id() {
    let perf = dir().join("perf");
    let oracle = read_json(&perf.join("work.oracle.json"));
    let tmp = tempfile::tempdir().unwrap();
    let renamed = tmp.path().join("symbols-of-the-release.debug");
    std::fs::copy(perf.join("work"), &renamed).unwrap();
    let text = perf.join("work.buildid.perf.txt");
    let doc = profile_json(std::slice::from_ref(&renamed), &text);
    let compared = work_frames_as_llvm_symbolizer_puts_them(&doc["profiles"][0], &oracle);
    assert!(compared >= 10, "{compared}");
    // The same text naming another build of `work`: not one of its frames resolves.
    let recorded = std::fs::read_to_string(&text).unwrap();
    let id = "76f1c71359c2be6c9fe6e6a452f07525d60426c6";
    assert!(recorded.contains(&format!("<{id}>]: r-xp /tmp/perfrec2/work")));
    let other = tmp.path().join("other-build.perf.txt");
    std::fs::write(&other, recorded.replace(id, &"ab".repeat(20))).unwrap();
    let doc = profile_json(&[perf.join("work")], &other);
    let work: Vec<&Value> = doc["profiles"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["call_frame"]["url"] == "/tmp/perfrec2/work")
        .collect();
    assert!(work.len() >= 10);
    for n in work {
        assert_eq!(n["status"], "no_symbols", "{n}");
        assert!(n["note"].as_str().unwrap().contains("another build"), "{n}");
    }
}

#[test]
fn a_profile_streamed_as_totals_ranks_as_one_read_whole() {
    // From a file, `--format json` and `text` stream the profile into per-node totals; from
    // standard input the profile is read whole, samples kept. Both answer alike.
    for format in ["json", "text", "collapsed"] {
        let streamed = profile(format, &[]);
        let mut child = Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args(["profile", "--format", format, "-s"])
            .arg(map())
            .arg("-")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let bytes = std::fs::read(dir().join("lodash-min.cpuprofile")).unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), &bytes).unwrap();
        let whole = child.wait_with_output().unwrap();
        assert!(streamed.status.success() && whole.status.success());
        let (a, b) = (
            String::from_utf8_lossy(&streamed.stdout),
            String::from_utf8_lossy(&whole.stdout),
        );
        // Labels differ: the file's path against standard input's.
        let path = dir().join("lodash-min.cpuprofile").display().to_string();
        let a = a.replace(&path, "standard input");
        assert!(a.len() > 1000, "{format}: {a}");
        assert!(a == b, "{format}: the outputs differ");
    }
}

/// ProGuard's specialization suffix (`count$134621`, the hex hash of the old descriptor)
/// left off, as the source and the unobfuscated run name the method.
fn without_specialization(method: &str) -> &str {
    match method.rsplit_once('$') {
        Some((base, hash)) if hash.len() >= 5 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            base
        }
        _ => method,
    }
}

/// `perf script` of a JVM running a ProGuard-obfuscated program (`java/`: `-XX:+DumpPerfMapAtExit`
/// names its JIT-compiled methods `RET CLASS.METHOD(ARGS)`): each Java method deobfuscated
/// through the mapping as ProGuard ReTrace 6.2.2 deobfuscates it when its pattern reads the
/// return and argument types (`java/obf.oracle.json`, written by `java/oracle.py`), several
/// methods sharing the obfuscated name `a` told apart by their signatures; the JDK's own
/// methods left as they are; and the heaviest method the same as in the unobfuscated run
/// of the same program (`java/plain.perf.txt`, counted here from its raw text).
#[test]
fn a_jvm_profiles_java_methods_are_deobfuscated_as_retrace_does() {
    let java = dir().join("java");
    let doc = profile_json(&[java.join("work-mapping.txt")], &java.join("obf.perf.txt"));
    let oracle = read_json(&java.join("obf.oracle.json"));
    let oracle = oracle.as_object().unwrap();
    let mut checked = std::collections::BTreeSet::new();
    for p in doc["profiles"].as_array().unwrap() {
        for node in p["nodes"].as_array().unwrap() {
            let recorded = node["call_frame"]["function_name"].as_str().unwrap();
            let Some(candidates) = oracle.get(recorded) else {
                continue;
            };
            let candidates = candidates.as_array().unwrap();
            assert_eq!(candidates.len(), 1, "{recorded}: ReTrace names one method");
            let class = candidates[0]["class"].as_str().unwrap();
            let method = without_specialization(candidates[0]["method"].as_str().unwrap());
            // ReTrace leaves a class it does not know as printed: not in the mapping.
            let printed_class = recorded
                .split_once(' ')
                .unwrap()
                .1
                .split('(')
                .next()
                .unwrap();
            let printed_class = printed_class.rsplit_once('.').unwrap().0;
            if class == printed_class {
                assert_eq!(node["status"], "not_covered", "{recorded}: {node}");
            } else {
                assert_eq!(node["status"], "resolved", "{recorded}: {node}");
                assert_eq!(
                    node["function"].as_str(),
                    Some(format!("{class}.{method}").as_str()),
                    "{recorded}"
                );
            }
            checked.insert(recorded.to_owned());
        }
    }
    assert_eq!(
        checked.len(),
        oracle.len(),
        "every method of the oracle is in the profile"
    );
    // Four methods named `a` in one obfuscated class, each resolved to its own.
    let shared: Vec<&String> = checked
        .iter()
        .filter(|s| s.contains(" com.example.work.a.a("))
        .collect();
    assert!(shared.len() >= 4, "{shared:?}");

    // The heaviest function: the obfuscated run's, deobfuscated, against the unobfuscated
    // run's heaviest leaf Java method (leaf = first frame line after a sample's header).
    let main = doc["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .max_by_key(|p| p["samples"].as_u64().unwrap())
        .unwrap();
    let top = main["functions"][0]["function"].as_str().unwrap();
    let plain = std::fs::read_to_string(java.join("plain.perf.txt")).unwrap();
    let mut leaves: std::collections::HashMap<String, usize> = Default::default();
    let mut after_header = false;
    for line in plain.lines() {
        if line.contains(" cpu-clock") {
            after_header = true;
            continue;
        }
        if after_header {
            after_header = false;
            let Some(symbol) = line
                .trim()
                .split_once(' ')
                .map(|(_, s)| s)
                .filter(|s| s.contains(".map)"))
            else {
                continue;
            };
            // `RET CLASS.METHOD(ARGS)+0xOFF (/tmp/perf-N.map)`.
            if let Some((_, name)) = symbol.split('(').next().unwrap().split_once(' ') {
                *leaves.entry(name.to_owned()).or_default() += 1;
            }
        }
    }
    let plain_top = leaves.iter().max_by_key(|(_, n)| **n).unwrap().0;
    assert_eq!(top, plain_top);
}
