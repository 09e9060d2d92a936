//! Function names of every JavaScript corpus frame, as Chrome DevTools shows them: the
//! expected names were read by hand from the original sources (`sourcesContent`) at each
//! frame's original position: the function that encloses that line, named as V8 names it (a
//! declaration or named expression by its name, a method with its class, a function assigned
//! to a variable, member or property by it; `""` for an anonymous function, `X.<anonymous>` when
//! V8 printed its receiver `X`). On the
//! unminified pdf.js bundle they equal the names the engine printed (except
//! `BasePdfManager.ensureDoc`, where V8 prints the receiver's class, `LocalPdfManager`). Frames
//! Metro's function map names are checked against metro-symbolicate in `corpus_js.rs`. See
//! `tests/fixtures/js/README.md`.

mod common;

use common::js;
use serde_json::Value;
use std::process::Command;

/// Case folder, trace, and the expected name of each resolved frame not named by a function
/// map, in order.
const EXPECTED: &[(&str, &str, &[&str])] = &[
    (
        "index-map-rxjs-lodash",
        "trace.txt",
        &[
            "_super",
            "EmptyErrorImpl",
            "complete",
            "ConsumerObserver.complete",
            "Subscriber._complete",
            "Subscriber.complete",
            "Subscriber._complete",
            "Subscriber.complete",
            "Subscriber._complete",
            "Subscriber.complete",
            "",
            "Observable._trySubscribe",
            "",
            "errorContext",
            "Observable.subscribe",
            "",
            "t.<anonymous>",
            "",
            "errorContext",
            "Observable.subscribe",
            "",
            "t.<anonymous>",
            "",
            "errorContext",
            "Observable.subscribe",
            "",
            "lastValueFrom",
            "",
            "",
            "baseForOwn",
            "mapValues",
            "",
            "arrayReduce",
            "baseWrapperValue",
            "wrapperValue",
        ],
    ),
    (
        "lodash-terser",
        "trace-jsc.txt",
        &[
            "arrayReduce",
            "reduce",
            "",
            "",
            "baseForOwn",
            "mapValues",
            "",
            "arrayReduce",
            "baseWrapperValue",
            "wrapperValue",
        ],
    ),
    (
        "lodash-terser",
        "trace-spidermonkey.txt",
        &[
            "arrayReduce",
            "reduce",
            "",
            "",
            "baseForOwn",
            "mapValues",
            "",
            "arrayReduce",
            "baseWrapperValue",
            "wrapperValue",
        ],
    ),
    (
        "lodash-terser",
        "trace.txt",
        &[
            "arrayReduce",
            "reduce",
            "",
            "",
            "baseForOwn",
            "mapValues",
            "",
            "arrayReduce",
            "baseWrapperValue",
            "wrapperValue",
        ],
    ),
    (
        "pdfjs-dist-worker",
        "trace.txt",
        &[
            "warn",
            "XRef.parse",
            "PDFDocument.parse",
            "LocalPdfManager.ensure",
            "BasePdfManager.ensureDoc",
            "loadDocument",
        ],
    ),
    (
        "react-dom-server-esbuild",
        "trace.txt",
        &[
            "renderElement",
            "retryNode",
            "renderNodeDestructive",
            "renderNode",
            "renderChildrenArray",
            "retryNode",
            "renderNodeDestructive",
            "renderNode",
            "renderElement",
            "retryNode",
            "renderNodeDestructive",
            "finishFunctionComponent",
            "renderElement",
            "retryNode",
            "renderNodeDestructive",
            "renderNode",
            "renderChildrenArray",
            "retryNode",
            "renderNodeDestructive",
            "renderNode",
            "renderElement",
            "retryNode",
            "renderNodeDestructive",
            "renderNode",
            "renderElement",
            "retryNode",
            "renderNodeDestructive",
            "finishFunctionComponent",
            "renderElement",
            "retryNode",
            "performWork",
            "renderToStringImpl",
            "exports.renderToString",
        ],
    ),
    (
        "rxjs-esbuild",
        "trace.txt",
        &[
            "_super",
            "SequenceErrorImpl",
            "",
            "",
            "Subscriber.next",
            "",
            "",
            "Subscriber.next",
            "",
            "",
            "Subscriber.next",
            "",
            "Observable._trySubscribe",
            "",
            "errorContext",
            "Observable.subscribe",
            "",
            "t.<anonymous>",
            "",
            "errorContext",
            "Observable.subscribe",
            "",
            "t.<anonymous>",
            "",
            "errorContext",
            "Observable.subscribe",
            "",
            "t.<anonymous>",
            "",
            "errorContext",
            "Observable.subscribe",
        ],
    ),
    (
        "three-esbuild",
        "trace-jsc.txt",
        &[
            "Box3.expandByObject",
            "Box3.expandByObject",
            "Box3.expandByObject",
        ],
    ),
    (
        "three-esbuild",
        "trace-spidermonkey.txt",
        &[
            "Box3.expandByObject",
            "Box3.expandByObject",
            "Box3.expandByObject",
            "Box3.setFromObject",
        ],
    ),
    (
        "three-esbuild",
        "trace.txt",
        &[
            "Box3.expandByObject",
            "Box3.expandByObject",
            "Box3.expandByObject",
            "Box3.setFromObject",
        ],
    ),
];

/// Names that must never appear: a callee or wrapper a frame passes through.
const NEVER: &[&str] = &[
    "apply",
    "call",
    "ensureDoc.apply",
    "cb",
    "callback",
    "iteratee",
];

#[test]
fn every_corpus_frame_is_named_as_devtools_names_it() {
    for (case, trace, want) in EXPECTED {
        let dir = js(case);
        let out = Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args(["symbolicate", "--format", "json", "-s"])
            .arg(&dir)
            .arg(dir.join(trace))
            .output()
            .unwrap();
        assert!(out.status.success(), "{case}/{trace}");
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut got = Vec::new();
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
                let note = frame["note"].as_str().unwrap_or_default();
                assert!(
                    note.contains("enclosing function"),
                    "{case}/{trace}: {note}"
                );
                got.push(loc["function"].as_str().unwrap_or_default().to_owned());
            }
        }
        assert_eq!(&got, want, "{case}/{trace}");
        for name in &got {
            assert!(!NEVER.contains(&name.as_str()), "{case}/{trace}: {name}");
        }
    }
}

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
