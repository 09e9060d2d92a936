//! The CLI and the window take the same journey: for every corpus case (each folder of
//! `tests/fixtures/{js,java,native}`, its logs against the symbol files of the folder), the
//! table the window keeps for a log and the JSON `symscope symbolicate` prints give the same
//! answers, stack by stack and frame by frame, every field of the JSON contract compared.
//! Each front end is given the folder itself (`-s FOLDER`; the folder added to the window as
//! a dropped one is), so the engine's one rule of which files in it are symbols
//! (`engine::Detected::role`) chooses them for both.

mod common;

use common::harness::*;
use serde_json::Value;
use std::process::Command;
use symscope::engine::report;
use symscope::model::FileKind;

/// Every file under `dir`, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A case: its folder, its symbol files and its logs (oracles, case descriptions and
/// expected frames are the tests' own data, not logs).
fn cases() -> Vec<(PathBuf, Vec<PathBuf>, Vec<PathBuf>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    for eco in ["js", "java", "native"] {
        let mut folders: Vec<PathBuf> = std::fs::read_dir(root.join(eco))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            // R8's reference cases are 65 mappings, each for its own trace (tests/r8_retrace.rs).
            .filter(|p| !p.ends_with("r8-retrace"))
            .collect();
        folders.sort();
        for folder in folders {
            let (mut symbols, mut logs) = (Vec::new(), Vec::new());
            for file in files_under(&folder) {
                let name = file.file_name().unwrap().to_string_lossy().into_owned();
                let bytes = std::fs::read(&file).unwrap();
                match symscope::formats::peek(&bytes) {
                    FileKind::SourceMap
                    | FileKind::JavaScript
                    | FileKind::ProguardMapping
                    | FileKind::NativeSymbols => symbols.push(file),
                    FileKind::Log
                        if !["oracle", "case", "frames"]
                            .iter()
                            .any(|p| name.starts_with(p))
                            && !name.ends_with(".md")
                            && !name.ends_with(".py")
                            && !name.ends_with(".sh") =>
                    {
                        logs.push(file)
                    }
                    _ => {}
                }
            }
            if !logs.is_empty() {
                out.push((folder, symbols, logs));
            }
        }
    }
    out
}

/// The JSON `symscope symbolicate -s FOLDER --format json LOG` prints.
fn cli(folder: &Path, log: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["symbolicate", "--format", "json", "-s"])
        .arg(folder)
        .arg(log)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{log:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The window given the case's folder as a dropped folder is (its symbol files added, its
/// logs bucketed when there are several) and then its logs, once every log is symbolicated.
fn window(folder: &Path, logs: &[PathBuf]) -> AppState {
    let mut app = AppState::new(Arc::new(|| {}));
    app.add_folder(folder.to_path_buf());
    settle_jobs(&mut app);
    for file in logs {
        if !app.inputs.iter().any(|e| &e.path == file) {
            app.add_file(file.clone(), std::fs::read(file).unwrap());
        }
    }
    settle_jobs(&mut app);
    app
}

#[test]
fn the_window_and_the_cli_give_the_same_answers() {
    let mut compared = 0;
    let mut frames = 0;
    for (folder, symbols, logs) in cases() {
        let app = window(&folder, &logs);
        // The window took the folder's symbol files, no more and no fewer.
        let mut added: Vec<&PathBuf> = app
            .inputs
            .iter()
            .map(|e| &e.path)
            .filter(|p| !logs.contains(p))
            .collect();
        added.sort();
        assert_eq!(added, symbols.iter().collect::<Vec<_>>(), "{folder:?}");
        for log in &logs {
            let what = log.display().to_string();
            let entry = app
                .inputs
                .iter()
                .find(|e| &e.path == log)
                .unwrap_or_else(|| panic!("{what}: not added"));
            let Some(Loaded::Log(file)) = &entry.loaded else {
                panic!("{what}: not read as a log ({:?})", entry.state);
            };
            let table = &file.table;
            assert!(table.is_symbolicated(), "{what}: not symbolicated");
            let ours = serde_json::to_value(report::Json {
                table,
                warnings: &[],
                total_ms: 0.0,
            })
            .unwrap();
            let theirs = cli(&folder, log);
            for key in ["schema", "format", "stacks", "modules"] {
                assert_eq!(ours.get(key), theirs.get(key), "{what}: {key}");
            }
            compared += 1;
            frames += table.frame_count();
        }
    }
    // The corpus: 13 JS traces, the Java crashes, the native reports, tombstones, sanitizer
    // and backtrace logs, minidumps and Sentry events.
    assert!(compared >= 90, "only {compared} logs compared");
    assert!(frames >= 1281, "only {frames} frames compared");
}
