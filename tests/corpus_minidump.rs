//! The Linux, macOS and Windows minidumps of symbolic's fixtures
//! (`tests/fixtures/native/sentry-symbolic/fixtures/{linux,macos,windows}/mini.dmp`, written
//! by Breakpad for the `crash` programs beside them), symbolicated through the CLI with each
//! folder's debug files (DWARF, dSYM, PDB). The reference runs in the same process:
//! rust-minidump's processor with the folder's Breakpad `.sym` (its own symbolizer). Every
//! thread must walk to the same frames (same addresses, same modules), and every frame the
//! reference names must resolve here to the same source file and line.

mod common;

use breakpad_symbols::{StringSymbolSupplier, Symbolizer};
use minidump::{Minidump, Module};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

const DIR: &str = "tests/fixtures/native/sentry-symbolic/fixtures";

/// (thread frames as (address, module, file, line)) from the reference.
type Frames = Vec<Vec<(u64, Option<String>, Option<String>, Option<u32>)>>;

fn reference(os: &str) -> Frames {
    let bytes = std::fs::read(format!("{DIR}/{os}/mini.dmp")).unwrap();
    let dump = Minidump::read(&bytes[..]).unwrap();
    let sym = std::fs::read_to_string(format!("{DIR}/{os}/crash.sym")).unwrap();
    let modules = dump.get_stream::<minidump::MinidumpModuleList>().unwrap();
    let code_file = modules
        .iter()
        .map(|m| m.code_file().into_owned())
        .find(|f| {
            let base = f.rsplit(['/', '\\']).next().unwrap();
            base == "crash" || base == "crash.exe"
        })
        .unwrap();
    let provider = Symbolizer::new(StringSymbolSupplier::new(HashMap::from([(code_file, sym)])));
    let state =
        futures_executor::block_on(minidump_processor::process_minidump(&dump, &provider)).unwrap();
    state
        .threads
        .iter()
        .map(|t| {
            t.frames
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let addr = if i == 0 {
                        f.instruction
                    } else {
                        f.resume_address
                    };
                    let module = f.module.as_ref().map(|m| {
                        let c = m.code_file();
                        c.rsplit(['/', '\\']).next().unwrap().to_owned()
                    });
                    (addr, module, f.source_file_name.clone(), f.source_line)
                })
                .collect()
        })
        .collect()
}

fn ours(os: &str) -> Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["symbolicate", "--format", "json", "-s"])
        .arg(Path::new(DIR).join(os))
        .arg(Path::new(DIR).join(os).join("mini.dmp"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check(os: &str, crash_module: &str) {
    let want = reference(os);
    let got = ours(os);
    assert_eq!(got["format"], "minidump");
    let stacks = got["stacks"].as_array().unwrap();
    assert_eq!(stacks.len(), want.len(), "{os}: threads");
    assert_eq!(stacks[0]["crashed"], true);
    // Ours lists the crashed thread first; the reference keeps thread order (thread 0
    // crashed in all three dumps).
    let (mut named, mut lines) = (0, 0);
    for (n, (stack, want)) in stacks.iter().zip(&want).enumerate() {
        let frames = stack["frames"].as_array().unwrap();
        assert_eq!(frames.len(), want.len(), "{os} thread {n}");
        for (f, (addr, module, file, line)) in frames.iter().zip(want) {
            assert_eq!(f["input"]["address"], format!("{addr:#x}"), "{os} {n}");
            assert_eq!(f["input"]["module"].as_str(), module.as_deref(), "{os} {n}");
            if module.as_deref() == Some(crash_module) {
                // Breakpad keeps no inline chain in these `.sym` files: its line is the
                // address's own line (macOS) or the outer function's call-site line
                // (Windows), so it must be one entry of our chain. The Linux `.sym` has no
                // line records at all, and a scanned frame may point just past a function
                // (Breakpad's PUBLIC records run on to the next one; DWARF says nothing is
                // there): without a reference line, resolved or not covered both stand.
                if file.is_none() {
                    assert!(
                        f["status"] == "resolved" || f["status"] == "not_covered",
                        "{os} {n}: {f}"
                    );
                } else {
                    assert_eq!(f["status"], "resolved", "{os} {n}: {f}");
                }
                let name = |p: &str| p.rsplit(['/', '\\']).next().unwrap().to_owned();
                if let (Some(file), Some(line)) = (file, line) {
                    let chain = f["resolved"].as_array().unwrap();
                    assert!(
                        chain
                            .iter()
                            .any(|r| r["file"].as_str().map(name) == Some(name(file))
                                && r["line"].as_u64() == Some(u64::from(*line))),
                        "{os} {n}: {file}:{line} not in {f}"
                    );
                    lines += 1;
                }
                named += 1;
            } else {
                assert_eq!(f["status"], "no_symbols", "{os} {n}: {f}");
            }
        }
    }
    assert!(named >= 1, "{os}");
    // The coverage report: the crashing module found by its debug ID, the system ones missing.
    let modules = got["modules"].as_array().unwrap();
    let crash = modules.iter().find(|m| m["name"] == crash_module).unwrap();
    assert_eq!(crash["status"], "found", "{crash}");
    assert!(
        crash["id"].as_str().is_some_and(|id| id.len() == 33),
        "{crash}"
    );
    assert!(modules.iter().any(|m| m["status"] == "missing"));
    if os != "linux" {
        assert!(lines >= 1, "{os}");
    }
}

#[test]
fn linux_minidump_equals_the_reference_walk_and_lines() {
    check("linux", "crash");
    // The crashing frame's inline chain comes from DWARF: crash ← start ← main.
    let got = ours("linux");
    let chain: Vec<&str> = got["stacks"][0]["frames"][0]["resolved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["function"].as_str().unwrap())
        .collect();
    assert_eq!(chain, ["crash", "start", "main"]);
    // The caller in libc was found with crash.sym's CFI for the crashing frame.
    assert!(
        got["stacks"][0]["frames"][1]["raw"]
            .as_str()
            .unwrap()
            .ends_with("[cfi]")
    );
}

#[test]
fn macos_minidump_equals_the_reference_walk_and_lines() {
    check("macos", "crash");
}

#[test]
fn windows_minidump_equals_the_reference_walk_and_lines() {
    check("windows", "crash.exe");
    let got = ours("windows");
    let f1 = &got["stacks"][0]["frames"][1];
    // Found with crash.sym's STACK WIN records, resolved with the PDB's inline records.
    assert!(f1["raw"].as_str().unwrap().ends_with("[cfi]"));
    assert_eq!(
        f1["symbol_file"].as_str().map(|s| s.ends_with("crash.pdb")),
        Some(true)
    );
}

#[test]
fn junk_minidumps_are_named_errors() {
    let dir = std::env::temp_dir().join(format!("symscope-mdmp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read(format!("{DIR}/linux/mini.dmp")).unwrap();
    let mut cases: Vec<Vec<u8>> = vec![b"MDMP".to_vec(), b"MDMP\x93\xa7\0\0junk".to_vec()];
    for cut in [32, 100, 1000, 5000] {
        cases.push(good[..cut].to_vec());
    }
    for (i, bytes) in cases.iter().enumerate() {
        let path = dir.join(format!("bad-{i}.dmp"));
        std::fs::write(&path, bytes).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args(["symbolicate"])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        // Either a named error (exit 2) or, when the directory survived the cut, a report.
        match out.status.code() {
            Some(2) => assert!(
                err.contains(&format!("bad-{i}.dmp")) && err.contains("minidump"),
                "{err}"
            ),
            Some(0) => {}
            other => panic!("case {i}: exit {other:?}: {err}"),
        }
    }
    // The library never panics either.
    for bytes in &cases {
        let _ = symscope::formats::parse_log(bytes);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The text output prints what a frame's symbol file knows: a function from a `.sym` without
/// line records (the Linux dump's `crash.sym`: Breakpad's walk has no file or line for
/// them) alone, never `(?:0)`; where lines are known (the macOS `crash.sym`), `file:line`.
#[test]
fn the_text_output_prints_what_is_known() {
    let text = |os: &str, symbols: &str| {
        let at = Path::new(DIR).join(os);
        let out = common::symscope(&[
            "symbolicate",
            "-s",
            common::arg(&at.join(symbols)),
            common::arg(&at.join("mini.dmp")),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let linux = text("linux", "crash.sym");
    assert!(!linux.contains("?:0") && !linux.contains("(?"), "{linux}");
    assert!(linux.lines().any(|l| l.trim() == "→ main"), "{linux}");
    let macos = text("macos", "crash.sym");
    assert!(!macos.contains("?:0"), "{macos}");
    assert!(
        macos
            .lines()
            .any(|l| l.trim_start().starts_with("→ main (") && l.contains("main.cpp:")),
        "{macos}"
    );
}
