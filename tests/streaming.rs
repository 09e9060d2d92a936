//! A JavaScript log read, symbolicated and written as it streams (`engine::stream`, what
//! `symscope symbolicate` does with one) gives the same bytes as the whole log read into one
//! table: on every JavaScript trace of the corpus against its folder's maps and bundles, on
//! the 109 real stacks of public parser suites, and on logs made to cut stacks at every
//! place, fed a line at a time and cut into windows of 1, 2, 3 and 7 stacks and frames (so
//! every frame meets a window's edge), WebAssembly frames among them. The table's answers are held to independent oracles
//! by the corpus tests; this holds the stream to the table.

mod common;

use common::{fixture, js, symscope};
use std::path::{Path, PathBuf};
use symscope::engine::report::{self, Json, Output};
use symscope::engine::stream::{Reader, Symbolicator};
use symscope::engine::{AddSymbols as _, Detected, read_log};
use symscope::formats;
use symscope::model::{Blob, FileKind, NoProgress};
use symscope::symbolicate::{Options, SymbolSet};

/// The whole log as one table: compact JSON and text (the compact JSON, written by hand, is
/// held to the indented one, serde's).
fn whole(text: &str, symbols: &SymbolSet, base: u32) -> (String, String) {
    let file = Detected::new("log", Blob::from(text.as_bytes().to_vec()));
    let log = read_log(&file, &Default::default(), &mut NoProgress).unwrap();
    let options = Options {
        column_base: Some(base),
    };
    let log = log.symbolicate(symbols, options, &mut NoProgress).unwrap();
    let json = Json {
        table: &log.table,
        warnings: &[],
        total_ms: 0.0,
    };
    let mut j = Vec::new();
    report::write_json(&json, false, &mut j).unwrap();
    let mut pretty = Vec::new();
    report::write_json(&json, true, &mut pretty).unwrap();
    let j_text = String::from_utf8(j.clone()).unwrap();
    assert_eq!(
        untimed(&j_text),
        untimed(&String::from_utf8(pretty).unwrap()),
        "compact and indented JSON differ"
    );
    let mut t = Vec::new();
    report::write_text(&log.table, &[], &mut t).unwrap();
    (String::from_utf8(j).unwrap(), String::from_utf8(t).unwrap())
}

/// The log streamed a line at a time through windows of `window` stacks and frames.
fn streamed(text: &str, symbols: &SymbolSet, base: u32, window: usize, output: Output) -> String {
    let mut out = Vec::new();
    let json = output != Output::Text;
    let mut run = Symbolicator::new(symbols, base, output, &mut out).unwrap();
    let mut reader = Reader::new(window);
    for line in text.split_inclusive('\n') {
        for w in reader.feed(line) {
            run.window(w, &mut out).unwrap();
        }
    }
    for w in reader.finish() {
        run.window(w, &mut out).unwrap();
    }
    run.finish(&[], 0.0, &mut out).unwrap();
    if json {
        out.push(b'\n');
    }
    String::from_utf8(out).unwrap()
}

/// The JSON without its timings (the look-up's time differs run to run).
fn untimed(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {json}"));
    v["timings"] = serde_json::Value::Null;
    v
}

/// Streams `text` at every window size and holds it to the whole table.
fn check(name: &str, text: &str, symbols: &SymbolSet) -> usize {
    let base = if text.contains("(address at ") { 0 } else { 1 };
    let (json, txt) = whole(text, symbols, base);
    for window in [1, 2, 3, 7, 1 << 16] {
        let s = streamed(text, symbols, base, window, Output::Json { path: None });
        assert_eq!(
            untimed(&s),
            untimed(&json),
            "{name}: JSON, windows of {window}"
        );
        let s = streamed(text, symbols, base, window, Output::Text);
        assert_eq!(s, txt, "{name}: text, windows of {window}");
    }
    1
}

/// A folder's maps and bundles, as `-s FOLDER` loads them.
fn symbols_in(dir: &Path) -> SymbolSet {
    let mut set = SymbolSet::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        if matches!(
            formats::peek(&bytes),
            FileKind::SourceMap | FileKind::JavaScript | FileKind::NativeSymbols
        ) {
            set.add(&f.to_string_lossy(), Blob::from(bytes)).unwrap();
        }
    }
    set
}

#[test]
fn every_javascript_corpus_trace_streams_to_the_bytes_of_its_whole_table() {
    let (mut checked, mut wasm) = (0, 0);
    // WebAssembly frames too: against their modules' DWARF and wasm source maps.
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(js(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .chain([fixture("wasm")])
        .collect();
    dirs.sort();
    for dir in dirs {
        let symbols = symbols_in(&dir);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if formats::peek(text.as_bytes()) != FileKind::Log
                || !formats::is_javascript_head(&text)
            {
                continue;
            }
            checked += check(&path.display().to_string(), &text, &symbols);
            wasm += usize::from(dir.ends_with("wasm"));
        }
    }
    assert!(checked >= 12, "only {checked} JavaScript traces found");
    assert!(
        wasm >= 3,
        "only {wasm} traces with WebAssembly frames found"
    );
}

#[test]
fn real_stacks_of_parser_suites_stream_as_their_whole_table() {
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("js-stacks/cases.json")).unwrap())
            .unwrap();
    let mut checked = 0;
    for case in cases["cases"].as_array().unwrap() {
        let stack = case["stack"].as_str().unwrap();
        if formats::is_javascript_head(stack) {
            checked += check(case["test"].as_str().unwrap(), stack, &SymbolSet::new());
        }
    }
    assert!(checked >= 90, "only {checked} stacks checked");
}

#[test]
fn stacks_cut_anywhere_stream_as_their_whole_table() {
    let symbols = symbols_in(&js("three-esbuild"));
    let frame = |i: usize| format!("    at f{i} (out/three.min.js:1:{})\n", 97_000 + i * 37);
    let mut logs = vec![
        // Header-only stacks before the first frame wait for the log's platform.
        "Error: a\n\nError: b\nnot a frame\n\nTypeError: c\n".to_owned() + &frame(1),
        // No frame at all.
        "just some text\nand more\n".to_owned(),
        String::new(),
        // Unparsed lines among frames, a blank line ending a stack, a stack after it.
        format!(
            "TypeError: x\n{}{}  some note\n{}\n{}RangeError: y\n{}{}",
            frame(1),
            frame(2),
            frame(3),
            frame(4),
            frame(5),
            frame(6)
        ),
        // JavaScriptCore's named frames before the first positioned one.
        "f\ng\nh@https://x/out/three.min.js:1:97000\ni@https://x/out/three.min.js:1:97100\n"
            .to_owned(),
    ];
    // A long stack (each window edge falls inside it) and many short ones.
    logs.push(
        std::iter::once("TypeError: long\n".to_owned())
            .chain((0..40).map(frame))
            .collect(),
    );
    logs.push(
        (0..12)
            .map(|i| format!("Error: e{i}\n{}{}\n", frame(i), frame(i + 1)))
            .collect(),
    );
    for (i, log) in logs.iter().enumerate() {
        check(&format!("log {i}"), log, &symbols);
    }
}

#[test]
fn a_log_of_more_positions_than_a_run_keeps_streams_as_its_whole_table() {
    // 30,000 distinct positions in windows of 4,096: past the 16,384 a windowed run keeps
    // (checked as each window begins), the look-ups are forgotten and made again.
    let symbols = symbols_in(&js("three-esbuild"));
    let mut log = "RangeError: Maximum call stack size exceeded\n".to_owned();
    for i in 0..30_000u32 {
        log.push_str(&format!("    at f (out/three.min.js:1:{})\n", 1 + i * 7));
    }
    let (json, _) = whole(&log, &symbols, 1);
    let s = streamed(&log, &symbols, 1, 4096, Output::Json { path: None });
    assert_eq!(untimed(&s), untimed(&json));
}

#[test]
fn an_empty_log_and_a_log_of_no_frames_are_warned_of_streamed_or_not() {
    let dir = common::temp_dir("streaming-empty");
    // Empty: read whole (nothing tells its format); text alone: JavaScript's, streamed.
    for (file, text, warning) in [
        ("empty.txt", "", "the log is empty"),
        (
            "text.txt",
            "just some text\nand more\n",
            "no stack frames found",
        ),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, text).unwrap();
        let out = symscope(&["symbolicate", "--format", "json", common::arg(&path)]);
        assert!(out.status.success());
        let doc = common::json_of(&out);
        let warnings = doc["warnings"].as_array().unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| w.as_str() == Some(&format!("{}: {warning}", path.display()))),
            "{file}: {warnings:?}"
        );
    }
}

#[test]
fn the_cli_streams_a_javascript_log_as_its_whole_table() {
    let map = js("three-esbuild/three.min.js.map");
    let log = js("three-esbuild/trace.txt");
    let text = std::fs::read_to_string(&log).unwrap();
    let args = |format: &str, pretty: bool| {
        let mut a = vec!["symbolicate", "--format", format];
        if pretty {
            a.push("--pretty");
        }
        a.extend(["-s", common::arg(&map), common::arg(&log)]);
        a.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let out = symscope(&a);
        assert!(
            out.status.success(),
            "{a:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // Streamed (compact, text) and read whole (--pretty) agree with the table.
    let only_map = common::symbols(&[&map]);
    let (json, txt) = whole(&text, &only_map, 1);
    assert_eq!(untimed(&run(args("json", false))), untimed(&json));
    assert_eq!(untimed(&run(args("json", true))), untimed(&json));
    assert_eq!(run(args("text", false)), txt);
    // Piped in, the log streams the same (spooled to a temporary file first).
    for format in ["json", "text"] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args([
                "symbolicate",
                "--format",
                format,
                "-s",
                common::arg(&map),
                "-",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let piped = String::from_utf8(out.stdout).unwrap();
        if format == "json" {
            assert_eq!(untimed(&piped), untimed(&json), "piped JSON");
        } else {
            assert_eq!(piped, txt, "piped text");
        }
    }
}
