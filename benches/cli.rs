//! `cargo bench --bench cli`: `symscope symbolicate` run as a user runs it, on a 1,000,000-frame
//! V8 log (42 MB, every frame into three.min.js and every line different) against
//! three.min.js.map, as JSON and as text: wall time and peak memory (the process's high-water
//! mark, read from `/proc` while it runs) of each run, median and worst of five. The output
//! goes to `/dev/null`, as a pipe into a file would take it.
//!
//! Issue #17's targets: peak ≤ 250 MB, and JSON no slower than before the engine wrote it from
//! the compact table. With `SYMSCOPE_BASELINE=/path/to/an/older/symscope`, that binary runs
//! too, alternating with this one, and its rows follow (how the "before" figures of
//! `benches/README.md` were taken: the binary built from the commit before the engine).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

const FRAMES: usize = 1_000_000;

/// The log: a V8 trace of `FRAMES` frames into three.min.js (every frame resolvable).
fn write_log(path: &Path) {
    let mut s = String::with_capacity(FRAMES * 48);
    s.push_str("TypeError: synthetic\n");
    for i in 0..FRAMES {
        let col = 97_000 + (i * 37) % 1_700;
        s.push_str(&format!("    at f{i} (out/three.min.js:1:{col})\n"));
    }
    std::fs::write(path, s).unwrap();
}

/// One run of the binary `exe`: wall time and peak memory.
fn run(exe: &Path, map: &Path, log: &Path, format: &str) -> (Duration, u64) {
    common::run_measured(
        Command::new(exe)
            .args(["symbolicate", "--format", format, "-s"])
            .arg(map)
            .arg(log)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit()),
    )
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = root.join("tests/fixtures/js/three-esbuild/three.min.js.map");
    let dir: PathBuf =
        std::env::temp_dir().join(format!("symscope-bench-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("v8-1m.txt");
    write_log(&log);
    let mb = std::fs::metadata(&log).unwrap().len() as f64 / 1e6;
    println!("# `symscope symbolicate`, {FRAMES} frames ({mb:.0} MB) against three.min.js.map\n");
    println!("| output | wall (median of 5) | worst | peak memory (largest of 5) | target |");
    println!("|---|---:|---:|---:|---|");
    let mut exes = vec![("", PathBuf::from(env!("CARGO_BIN_EXE_symscope")))];
    if let Some(base) = std::env::var_os("SYMSCOPE_BASELINE") {
        exes.push((" (baseline)", PathBuf::from(base)));
    }
    let mut runs: Vec<(&str, &str, &Path, Vec<Duration>, u64)> = Vec::new();
    for (label, exe) in &exes {
        for format in ["json", "text"] {
            runs.push((format, label, exe, Vec::new(), 0));
        }
    }
    for _ in 0..5 {
        // Alternating, so that a slow stretch of the machine falls on every row.
        for (format, _, exe, times, peak) in &mut runs {
            let (t, p) = run(exe, &map, &log, format);
            times.push(t);
            *peak = (*peak).max(p);
        }
    }
    for (format, label, _, mut times, peak) in runs {
        times.sort();
        let target = match (format, label.is_empty()) {
            (_, false) => "",
            ("json", true) => "≤ 250 MB; no slower than before",
            _ => "≤ 250 MB",
        };
        println!(
            "| {format}{label} | {:.2} s | {:.2} s | {:.0} MB | {target} |",
            times[2].as_secs_f64(),
            times[4].as_secs_f64(),
            peak as f64 / 1e6
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
