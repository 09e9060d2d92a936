//! The `symscope symbolicate` command as a user runs it: output shape (the contract that
//! `engine::report` documents), exit codes and messages.

mod common;

use common::{arg, js, json_of, symscope, temp_dir};

use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn json_follows_the_contract() {
    let dir = js("three-esbuild");
    let out = symscope(&[
        "symbolicate",
        "-s",
        arg(&dir),
        "--format",
        "json",
        arg(&dir.join("trace.txt")),
    ]);
    let doc = json_of(&out);
    assert_eq!(
        keys(&doc),
        ["format", "schema", "stacks", "timings", "warnings"]
    );
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["format"], "v8");
    assert!(doc["warnings"].is_array());
    assert!(doc["timings"]["total_ms"].as_f64().unwrap() > 0.0);
    let phases: Vec<&str> = doc["timings"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(phases.contains(&"index three.min.js.map"), "{phases:?}");

    let stacks = doc["stacks"].as_array().unwrap();
    assert_eq!(stacks.len(), 1);
    let stack = &stacks[0];
    assert_eq!(
        stack["title"],
        "TypeError: Cannot read properties of null (reading 'getAttribute')"
    );
    assert_eq!(stack["crashed"], true);
    let frames = stack["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 11);
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f["index"], i);
        assert_eq!(
            keys(f),
            [
                "alternatives",
                "index",
                "input",
                "note",
                "raw",
                "resolved",
                "status",
                "symbol_file"
            ]
        );
        assert_eq!(
            keys(&f["input"]),
            [
                "address",
                "column",
                "file",
                "function",
                "line",
                "module",
                "module_offset"
            ]
        );
        let status = f["status"].as_str().unwrap();
        assert!(
            [
                "resolved",
                "no_symbols",
                "not_covered",
                "unparsed",
                "skipped"
            ]
            .contains(&status)
        );
        assert_eq!(
            f["resolved"].as_array().unwrap().is_empty(),
            status != "resolved"
        );
        // An unresolved frame says why; a resolved one may say how it was named.
        if status != "resolved" {
            assert!(!f["note"].is_null());
        }
    }
    let f0 = &frames[0];
    assert_eq!(
        f0["raw"],
        "    at De.expandByObject (out/three.min.js:1:98188)"
    );
    assert_eq!(f0["input"]["function"], "De.expandByObject");
    assert_eq!(f0["input"]["file"], "out/three.min.js");
    assert_eq!(
        (f0["input"]["line"].as_u64(), f0["input"]["column"].as_u64()),
        (Some(1), Some(98188))
    );
    assert!(f0["input"]["address"].is_null() && f0["input"]["module"].is_null());
    assert_eq!(f0["status"], "resolved");
    assert_eq!(f0["symbol_file"], "three.min.js.map");
    let r = &f0["resolved"][0];
    assert_eq!(r["file"], "../node_modules/three/build/three.core.js");
    assert_eq!(
        (r["line"].as_u64(), r["column"].as_u64()),
        (Some(16222), Some(39))
    );
    assert_eq!(r["function"], "Box3.expandByObject");
    assert_eq!(r["name_source"], "scope");
    assert_eq!(r["inlined"], false);
    assert_eq!(r["ignored"], false);
    let driver = &frames[4];
    assert_eq!(driver["status"], "no_symbols");
    assert!(driver["note"].as_str().unwrap().contains("three.cjs"));
}

#[test]
fn hermes_bytecode_json_uses_zero_based_offsets_and_function_map_names() {
    let dir = js("metro-hermes");
    let out = symscope(&[
        "symbolicate",
        "-s",
        arg(&dir),
        "--format",
        "json",
        arg(&dir.join("trace-hermes-bytecode.txt")),
    ]);
    let doc = json_of(&out);
    assert_eq!(doc["format"], "hermes-bytecode");
    let f0 = &doc["stacks"][0]["frames"][0];
    assert_eq!(f0["symbol_file"], "index.android.bundle.hbc.composed.map");
    assert_eq!(f0["resolved"][0]["function"], "formatTotal");
    assert_eq!(f0["resolved"][0]["name_source"], "function_map");
    assert_eq!(f0["resolved"][0]["file"], "src/report.js");
    assert_eq!(
        (
            f0["resolved"][0]["line"].as_u64(),
            f0["resolved"][0]["column"].as_u64()
        ),
        (Some(3), Some(22))
    );
    let native = &doc["stacks"][0]["frames"][8];
    assert_eq!(native["raw"], "    at apply (native)");
    assert_eq!(native["status"], "skipped");
}

#[test]
fn text_output_reads_like_the_trace() {
    let dir = js("three-esbuild");
    let out = symscope(&["symbolicate", "-s", arg(&dir), arg(&dir.join("trace.txt"))]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("TypeError: Cannot read properties of null (reading 'getAttribute')")
    );
    assert_eq!(
        lines.next(),
        Some("    at De.expandByObject (out/three.min.js:1:98188)")
    );
    assert_eq!(
        lines.next(),
        Some("        → Box3.expandByObject (../node_modules/three/build/three.core.js:16222:39)")
    );
    assert!(text.contains("note: no source map for drivers/three.cjs (1 frame)"));
}

#[test]
fn log_from_standard_input() {
    let dir = js("lodash-terser");
    let mut child = Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args([
            "symbolicate",
            "-s",
            arg(&dir.join("lodash.min.js.map")),
            "--format",
            "json",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let trace = std::fs::read(dir.join("trace.txt")).unwrap();
    child.stdin.take().unwrap().write_all(&trace).unwrap();
    let out = child.wait_with_output().unwrap();
    let doc = json_of(&out);
    assert_eq!(doc["stacks"][0]["frames"][1]["status"], "resolved");
}

#[test]
fn unusable_inputs_exit_2_naming_the_file() {
    let dir = temp_dir("bad");
    // A missing log.
    let missing = dir.join("nope.txt");
    let out = symscope(&["symbolicate", arg(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.txt"));

    // A named symbol file that is a truncated source map.
    let map = std::fs::read(js("three-esbuild/three.min.js.map")).unwrap();
    let truncated = dir.join("three.min.js.map");
    std::fs::write(&truncated, &map[..map.len() / 2]).unwrap();
    let trace = js("three-esbuild/trace.txt");
    let out = symscope(&["symbolicate", "-s", arg(&truncated), arg(&trace)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("three.min.js.map") && err.contains("JSON"),
        "{err}"
    );

    // A named symbol file that is not a symbol file at all.
    let out = symscope(&["symbolicate", "-s", arg(&trace), arg(&trace)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a symbol file"));

    // A binary file as the log.
    let binary = dir.join("core.bin");
    std::fs::write(&binary, [0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0]).unwrap();
    let out = symscope(&["symbolicate", arg(&binary)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("core.bin: binary file"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A map whose JSON is broken is a warning and the other maps still answer. One whose
/// `mappings` is broken is read as far as the frames ask (as browsers and trace-mapping read
/// a map): a frame before the fault resolves, a frame after it names the fault.
#[test]
fn a_broken_map_in_a_directory_is_a_warning() {
    let dir = temp_dir("walk");
    std::fs::copy(
        js("lodash-terser/lodash.min.js.map"),
        dir.join("lodash.min.js.map"),
    )
    .unwrap();
    std::fs::write(
        dir.join("broken.js.map"),
        br#"{"version":3,"sources":["a"],"mappings":"AA!A""#,
    )
    .unwrap();
    std::fs::write(
        dir.join("half.js.map"),
        br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA;AACA;AA!A"}"#,
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "not a symbol file").unwrap();
    let out = symscope(&[
        "symbolicate",
        "-s",
        arg(&dir),
        "--format",
        "json",
        arg(&js("lodash-terser/trace.txt")),
    ]);
    let doc = json_of(&out);
    let warnings = doc["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0].as_str().unwrap();
    assert!(w.contains("broken.js.map") && w.contains("JSON"), "{w}");
    assert_eq!(doc["stacks"][0]["frames"][1]["status"], "resolved");
    // Frames in `half.js` before and after its fault.
    let log = dir.join("half.txt");
    std::fs::write(
        &log,
        "Error: x\n    at f (http://h/half.js:2:1)\n    at g (http://h/half.js:3:1)\n",
    )
    .unwrap();
    let doc = json_of(&symscope(&[
        "symbolicate",
        "-s",
        arg(&dir),
        "--format",
        "json",
        arg(&log),
    ]));
    let frames = &doc["stacks"][0]["frames"];
    assert_eq!(frames[0]["status"], "resolved");
    assert_eq!(frames[0]["resolved"][0]["line"], 2);
    assert_eq!(frames[1]["status"], "not_covered");
    let note = frames[1]["note"].as_str().unwrap();
    assert!(
        frames[1]["symbol_file"] == "half.js.map" && note.contains("base64"),
        "{note}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn empty_log_is_read_with_a_warning() {
    let dir = temp_dir("empty");
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let doc = json_of(&symscope(&["symbolicate", "--format", "json", arg(&empty)]));
    assert_eq!(doc["stacks"].as_array().unwrap().len(), 0);
    assert!(doc["warnings"][0].as_str().unwrap().contains("empty"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn help_prints_usage() {
    let out = symscope(&["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("symbolicate") && text.contains("WORKSPACE.ron"),
        "{text}"
    );
}

/// Without a display, `symscope` (the window) fails with a message, not a panic.
#[test]
fn the_window_without_a_display_says_so() {
    let cfg = std::env::temp_dir().join(format!("symscope-cli-cfg-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_symscope"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_CONFIG_HOME", &cfg)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot open the window"), "{err}");
    std::fs::remove_dir_all(&cfg).ok();
}

/// Without `--cache` a native file is answered lazily and nothing is written; `--cache DIR`
/// builds and keeps each native file's SymCache: the first run writes it, the next reads it;
/// all three answer the same; a damaged entry is rebuilt.
#[test]
fn native_symcache_folder() {
    let crashy = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native/crashy");
    let dir = std::env::temp_dir().join(format!("symscope-cli-cache-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let debug = crashy.join("crashy.debug");
    let log = crashy.join("crash-aslr-2.txt");
    let run = |cache: bool| {
        let mut args = vec!["symbolicate", "--format", "json", "-s", arg(&debug)];
        if cache {
            args.extend(["--cache", arg(&dir)]);
        }
        args.push(arg(&log));
        let v = json_of(&symscope(&args));
        v["stacks"].clone()
    };
    let plain = run(false);
    assert!(!dir.exists(), "nothing written without --cache");
    let first = run(true);
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let written = std::fs::metadata(&files[0]).unwrap().modified().unwrap();
    let second = run(true);
    assert_eq!(
        std::fs::metadata(&files[0]).unwrap().modified().unwrap(),
        written,
        "read, not rewritten"
    );
    assert_eq!((&first, &second), (&plain, &plain));
    assert_eq!(
        plain[0]["frames"][0]["resolved"][0]["function"],
        "store_result"
    );
    std::fs::write(&files[0], b"damaged").unwrap();
    assert_eq!(run(true), plain);
    assert!(std::fs::read(&files[0]).unwrap().len() > 100, "rebuilt");
    std::fs::remove_dir_all(&dir).ok();
}

/// `symbolicate --format json` writes the document on one line; `--pretty` indents the same
/// document.
#[test]
fn json_is_compact_unless_pretty() {
    let map = js("three-esbuild/three.min.js.map");
    let log = js("three-esbuild/trace.txt");
    let compact = symscope(&[
        "symbolicate",
        "--format",
        "json",
        "-s",
        arg(&map),
        arg(&log),
    ]);
    let pretty = symscope(&[
        "symbolicate",
        "--format",
        "json",
        "--pretty",
        "-s",
        arg(&map),
        arg(&log),
    ]);
    let text = String::from_utf8(compact.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(
        String::from_utf8(pretty.stdout.clone())
            .unwrap()
            .lines()
            .count()
            > 50
    );
    let mut a = json_of(&compact);
    let mut b = json_of(&pretty);
    // The run's own timings differ between runs.
    a["timings"] = Value::Null;
    b["timings"] = Value::Null;
    assert_eq!(a, b);
}

/// `symbolicate --format jsonl`: many logs (a folder read recursively, files as given, `-`
/// a list of paths on standard input), one line each in input order, each log's line its
/// path and the very document `--format json` writes for it alone; a log that cannot be used
/// is a line with its error, and the run goes on.
#[test]
fn json_lines_one_per_log_in_order_errors_as_lines() {
    let dir = temp_dir("jsonl");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let trace = js("three-esbuild/trace.txt");
    std::fs::copy(&trace, dir.join("a.txt")).unwrap();
    std::fs::copy(&trace, dir.join("sub/b.txt")).unwrap();
    std::fs::write(dir.join("c.txt"), "not a log at all\n").unwrap();
    let missing = dir.join("missing.txt");
    let map = js("three-esbuild/three.min.js.map");
    let run = |args: &[&str], stdin: Option<String>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_symscope"));
        c.args(["symbolicate", "--format", "jsonl", "-s", arg(&map)])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.unwrap_or_default().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect::<Vec<Value>>()
    };
    let alone = {
        let mut doc = json_of(&symscope(&[
            "symbolicate",
            "--format",
            "json",
            "-s",
            arg(&map),
            arg(&trace),
        ]));
        doc["timings"] = Value::Null;
        doc
    };
    let lines = run(&[arg(&dir), arg(&missing)], None);
    let paths: Vec<&str> = lines.iter().map(|l| l["path"].as_str().unwrap()).collect();
    let name = |p: &Path| p.display().to_string();
    assert_eq!(
        paths,
        [
            name(&dir.join("a.txt")),
            name(&dir.join("c.txt")),
            name(&dir.join("sub/b.txt")),
            name(&missing)
        ]
    );
    for (k, line) in lines.iter().enumerate() {
        if k == 1 || k == 3 {
            assert!(line["error"].is_string(), "{line}");
            assert!(line.get("stacks").is_none());
            continue;
        }
        let mut doc = line.clone();
        doc.as_object_mut().unwrap().remove("path");
        doc["timings"] = Value::Null;
        assert_eq!(doc, alone, "line {k}");
    }
    // Paths from standard input, in the order given.
    let list = format!(
        "{}\n\n{}\n",
        dir.join("sub/b.txt").display(),
        dir.join("a.txt").display()
    );
    let lines = run(&["-"], Some(list));
    let paths: Vec<&str> = lines.iter().map(|l| l["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [name(&dir.join("sub/b.txt")), name(&dir.join("a.txt"))]
    );
    // Text and JSON take one log.
    let two = symscope(&["symbolicate", arg(&trace), arg(&trace)]);
    assert_eq!(two.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// Paths on standard input are taken as they come: the first batch's lines are out while
/// standard input is still open (`find … | symscope symbolicate --format jsonl -`).
#[test]
fn json_lines_stream_paths_from_standard_input() {
    use std::io::BufRead as _;
    let trace = js("three-esbuild/trace.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["symbolicate", "--format", "jsonl", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let batch = symscope::jobs::batch::CHUNK;
    for _ in 0..batch {
        writeln!(stdin, "{}", trace.display()).unwrap();
    }
    stdin.flush().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let doc: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(doc["path"], trace.display().to_string());
    // Standard input is still open; closing it ends the run with no more lines.
    drop(stdin);
    let rest = stdout.lines().count();
    assert_eq!(rest, batch - 1);
    assert!(child.wait().unwrap().success());
}
