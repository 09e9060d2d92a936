//! Function names of every JavaScript corpus frame named from its enclosing scope, against
//! V8's own names for the same code: each corpus crash was run again under node on the
//! unminified packages the bundles were built from (`tests/fixtures/js/unminified`: V8's call
//! sites recorded through its structured stack trace API, each position mapped to the
//! original source the bundle's map names). A minified frame is matched to the unminified
//! frames at its original file and line, and its name must be V8's function name
//! (`CallSite.getFunctionName`) up to what stands in front of its last dot (ours names a
//! method with the class it is written in, `Box3.expandByObject` where V8 names the function
//! `expandByObject`; V8 names a function assigned in a constructor with the constructor,
//! `OperatorSubscriber._this._next` where ours says `n._next`); where V8's function is
//! anonymous the frame stays anonymous (`""`, or `X.<anonymous>` with the receiver the trace
//! printed). JavaScriptCore and SpiderMonkey traces of the same bundles are checked
//! against the same V8 run. Frames Metro's function map names are checked against
//! metro-symbolicate in `corpus_js.rs`. See `tests/fixtures/js/README.md`.

mod common;

use common::js;
use serde_json::Value;
use std::process::Command;

/// Case folder and trace.
const TRACES: &[(&str, &str)] = &[
    ("index-map-rxjs-lodash", "trace.txt"),
    ("lodash-terser", "trace-jsc.txt"),
    ("lodash-terser", "trace-spidermonkey.txt"),
    ("lodash-terser", "trace.txt"),
    ("pdfjs-dist-worker", "trace.txt"),
    ("react-dom-server-esbuild", "trace.txt"),
    ("rxjs-esbuild", "trace.txt"),
    ("three-esbuild", "trace-jsc.txt"),
    ("three-esbuild", "trace-spidermonkey.txt"),
    ("three-esbuild", "trace.txt"),
];

/// A source path as both sides name it: from `node_modules/` on, or the path inside a
/// `webpack://` URL, without `./` and leading `../`.
fn normal(path: &str) -> String {
    let p = match path.find("node_modules/") {
        Some(i) => &path[i..],
        None => path
            .strip_prefix("webpack://")
            .and_then(|rest| rest.split_once('/'))
            .map_or(path, |(_, p)| p),
    };
    p.split('/')
        .filter(|s| !s.is_empty() && *s != "." && *s != "..")
        .collect::<Vec<_>>()
        .join("/")
}

/// V8's function names at each (source, line) of the unminified run of `case`.
fn v8_names(case: &str) -> std::collections::HashMap<(String, u64), Vec<String>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/js/unminified")
        .join(format!("{case}.json"));
    let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut out: std::collections::HashMap<(String, u64), Vec<String>> = Default::default();
    for stack in doc["stacks"].as_array().unwrap() {
        for f in stack["frames"].as_array().unwrap() {
            let (Some(source), Some(line)) = (f["source"].as_str(), f["source_line"].as_u64())
            else {
                continue;
            };
            let name = f["function"].as_str().unwrap_or_default().to_owned();
            let names = out.entry((normal(source), line)).or_default();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    out
}

/// Whether `ours` names the function V8 calls `v8` (empty: anonymous): the same function
/// name, its last dotted part; the qualifiers in front may differ (ours is the class the
/// method is written in, V8's the enclosing function of an assignment or nothing).
fn same_name(ours: &str, v8: &str) -> bool {
    let last = |s: &str| s.rsplit('.').next().unwrap_or(s).to_owned();
    if v8.is_empty() {
        return ours.is_empty() || ours.ends_with("<anonymous>");
    }
    !ours.ends_with("<anonymous>") && last(ours) == last(v8)
}

/// Compares a resolved frame's name with V8's at its original file and line; a difference
/// (or no V8 frame there) goes to `mismatches`. Whether V8 had a frame there to compare with.
fn compare_with_v8(
    v8: &std::collections::HashMap<(String, u64), Vec<String>>,
    label: &str,
    frame: &Value,
    mismatches: &mut Vec<String>,
) -> bool {
    let loc = &frame["resolved"][0];
    let ours = loc["function"].as_str().unwrap_or_default();
    let key = (
        normal(loc["file"].as_str().unwrap()),
        loc["line"].as_u64().unwrap(),
    );
    let Some(names) = v8.get(&key) else {
        mismatches.push(format!(
            "{label}: {} at {key:?}: the unminified run has no frame there",
            frame["raw"]
        ));
        return false;
    };
    if !names.iter().all(|v| same_name(ours, v)) {
        mismatches.push(format!(
            "{label}: {}: ours {ours:?}, V8 {names:?} at {key:?}",
            frame["raw"]
        ));
    }
    true
}

#[test]
fn every_scope_named_frame_is_named_as_v8_names_the_unminified_code() {
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for (case, trace) in TRACES {
        let v8 = v8_names(case);
        let dir = js(case);
        let out = Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args(["symbolicate", "--format", "json", "-s"])
            .arg(&dir)
            .arg(dir.join(trace))
            .output()
            .unwrap();
        assert!(out.status.success(), "{case}/{trace}");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut named = 0;
        for stack in doc["stacks"].as_array().unwrap() {
            for frame in stack["frames"].as_array().unwrap() {
                if frame["status"] != "resolved" {
                    continue;
                }
                let loc = &frame["resolved"][0];
                if loc["name_source"] == "function_map" {
                    continue;
                }
                // Every one comes from the enclosing function in the bundle.
                assert_eq!(loc["name_source"], "scope", "{case}/{trace}: {frame}");
                let ours = loc["function"].as_str().unwrap_or_default();
                for never in NEVER {
                    assert_ne!(ours, *never, "{case}/{trace}");
                }
                if compare_with_v8(&v8, &format!("{case}/{trace}"), frame, &mut mismatches) {
                    named += 1;
                }
            }
        }
        assert!(named > 0, "{case}/{trace}");
        compared += named;
    }
    assert!(
        mismatches.is_empty(),
        "{} of {compared} frames named otherwise than V8:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(compared >= 140, "{compared}");
}

/// With the maps alone (no bundle to parse), every frame is named from its enclosing
/// function in the map's original source (`sourcesContent`), as V8 names it: one name per
/// position, whichever frame calls it (lodash's `9:5583` was `func` called from `reduce`
/// and `arrayReduce` called from `baseWrapperValue`, after the callers' call-site tokens).
#[test]
fn with_the_maps_alone_frames_are_named_from_the_original_source_as_v8_names_them() {
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for (case, trace) in TRACES {
        let v8 = v8_names(case);
        let dir = js(case);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_symscope"));
        cmd.args(["symbolicate", "--format", "json"]);
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "map") {
                cmd.arg("-s").arg(p);
            }
        }
        let out = cmd.arg(dir.join(trace)).output().unwrap();
        assert!(out.status.success(), "{case}/{trace}");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut by_position: std::collections::HashMap<String, String> = Default::default();
        let mut named = 0;
        for stack in doc["stacks"].as_array().unwrap() {
            for frame in stack["frames"].as_array().unwrap() {
                if frame["status"] != "resolved" {
                    continue;
                }
                let loc = &frame["resolved"][0];
                if loc["name_source"] == "function_map" {
                    continue;
                }
                assert_eq!(
                    loc["name_source"], "original_scope",
                    "{case}/{trace}: {frame}"
                );
                let ours = loc["function"].as_str().unwrap_or_default();
                // One name per generated position.
                let input = &frame["input"];
                let at = format!("{}:{}:{}", input["file"], input["line"], input["column"]);
                let first = by_position
                    .entry(at.clone())
                    .or_insert_with(|| ours.to_owned());
                assert_eq!(first, ours, "{case}/{trace}: two names at {at}");
                if compare_with_v8(&v8, &format!("{case}/{trace}"), frame, &mut mismatches) {
                    named += 1;
                }
            }
        }
        assert!(named > 0, "{case}/{trace}");
        compared += named;
    }
    assert!(
        mismatches.is_empty(),
        "{} of {compared} frames named otherwise than V8:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(compared >= 140, "{compared}");
}

/// Names that must never appear: a callee or wrapper a frame passes through.
const NEVER: &[&str] = &[
    "apply",
    "call",
    "ensureDoc.apply",
    "cb",
    "callback",
    "iteratee",
];

/// The pdf.js case of issue #18: before, call-site naming gave `apply` and `ensureDoc`.
#[test]
fn pdfjs_names_are_the_methods_not_their_callers() {
    let dir = js("pdfjs-dist-worker");
    let out = Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["symbolicate", "--format", "json", "-s"])
        .arg(&dir)
        .arg(dir.join("trace.txt"))
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let frames = doc["stacks"][0]["frames"].as_array().unwrap();
    assert_eq!(frames[3]["resolved"][0]["function"], "PDFDocument.parse");
    assert_eq!(frames[6]["resolved"][0]["function"], "loadDocument");
}

/// A frame whose column lies one past the end of its line (`past-end/`): the enclosing
/// function is the scope that holds the line's end, named as V8 names it when it runs the
/// unminified file (`unminified.trace.txt`), as for the same frame at its true column.
#[test]
fn a_column_past_the_line_end_is_named_from_the_scope_holding_the_end() {
    let dir = js("past-end");
    let v8 = std::fs::read_to_string(dir.join("unminified.trace.txt")).unwrap();
    // `    at add (add.js:5:16)`: V8's name for the function that threw.
    let want = v8.lines().nth(1).unwrap().trim().split(' ').nth(1).unwrap();
    for trace in ["trace.txt", "trace-past-end.txt"] {
        let doc = common::json_of(&common::symscope(&[
            "symbolicate",
            "--format",
            "json",
            "-s",
            common::arg(&dir.join("add.min.js.map")),
            "-s",
            common::arg(&dir.join("add.min.js")),
            common::arg(&dir.join(trace)),
        ]));
        let frame = &doc["stacks"][0]["frames"][0];
        assert_eq!(frame["resolved"][0]["function"], want, "{trace}: {frame}");
        assert_eq!(
            frame["resolved"][0]["name_source"], "scope",
            "{trace}: {frame}"
        );
    }
}
