//! `cargo bench --bench cli`: `symscope symbolicate` run as a user runs it, on V8 logs of
//! 100,000, 1,000,000 and 10,000,000 frames (every frame into three.min.js, every line
//! different; 42 MB a million) against three.min.js.map, as JSON and as text: wall time and
//! peak memory (the process's high-water mark, read from `/proc` while it runs) of each run,
//! median and worst of five (of one at 10M). The output goes to `/dev/null`, as a pipe into a
//! file would take it. `SYMSCOPE_BENCH_QUICK=1` leaves out 10M.
//!
//! Targets: issue #17's, peak ≤ 250 MB at 1M and JSON no slower than before the engine wrote
//! it from the compact table; issue #39's, 1M frames ≤ 1 s and ≤ 100 MB, each ×10 of input
//! ≤ ×11 in time, memory flat from 1M to 10M. With `SYMSCOPE_BASELINE=/path/to/an/older/
//! symscope`, that binary runs too, alternating with this one, and its rows follow.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

/// The log: a V8 trace of `frames` frames into three.min.js (every frame resolvable).
fn write_log(path: &Path, frames: usize) {
    let mut s = String::with_capacity(frames * 48);
    s.push_str("TypeError: synthetic\n");
    for i in 0..frames {
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
    let quick = std::env::var_os("SYMSCOPE_BENCH_QUICK").is_some();
    let sizes: &[(usize, usize)] = if quick {
        &[(100_000, 5), (1_000_000, 5)]
    } else {
        &[(100_000, 5), (1_000_000, 5), (10_000_000, 1)]
    };
    let mut exes = vec![("", PathBuf::from(env!("CARGO_BIN_EXE_symscope")))];
    if let Some(base) = std::env::var_os("SYMSCOPE_BASELINE") {
        exes.push((" (baseline)", PathBuf::from(base)));
    }
    println!("# `symscope symbolicate` against three.min.js.map\n");
    println!("| frames (log) | output | wall (median) | worst | peak memory (largest) |");
    println!("|---:|---|---:|---:|---:|");
    for &(frames, rounds) in sizes {
        let log = dir.join(format!("v8-{frames}.txt"));
        write_log(&log, frames);
        let mb = std::fs::metadata(&log).unwrap().len() as f64 / 1e6;
        let mut runs: Vec<(&str, &str, &Path, Vec<Duration>, u64)> = Vec::new();
        for (label, exe) in &exes {
            for format in ["json", "text"] {
                runs.push((format, label, exe, Vec::new(), 0));
            }
        }
        for _ in 0..rounds {
            // Alternating, so that a slow stretch of the machine falls on every row.
            for (format, _, exe, times, peak) in &mut runs {
                let (t, p) = run(exe, &map, &log, format);
                times.push(t);
                *peak = (*peak).max(p);
            }
        }
        for (format, label, _, mut times, peak) in runs {
            times.sort();
            println!(
                "| {frames} ({mb:.0} MB) | {format}{label} | {:.2} s | {:.2} s | {:.0} MB |",
                times[times.len() / 2].as_secs_f64(),
                times[times.len() - 1].as_secs_f64(),
                peak as f64 / 1e6
            );
        }
        std::fs::remove_file(&log).ok();
    }
    std::fs::remove_dir_all(&dir).ok();
}
