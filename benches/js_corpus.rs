//! `cargo bench --bench js_corpus`: cold symbolication of every JavaScript case of the shared
//! corpus (`tests/fixtures/js/*/case.json`), as a user runs it: `symscope symbolicate -s
//! CASE_DIR TRACE --format json`, a new process each time (the maps and bundles read, parsed
//! and indexed, the trace read and symbolicated, the JSON written to `/dev/null`). Median and
//! fastest of 21 runs per case.
//!
//! Issue #18's target: cold symbolication within 20% of the engine before it on every case.
//! With `SYMSCOPE_BASELINE=/path/to/an/older/symscope`, that binary runs too, alternating with
//! this one, and the ratio is printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 21;

/// One run: wall time.
fn run(exe: &Path, dir: &Path, trace: &Path) -> Duration {
    let start = Instant::now();
    let status = Command::new(exe)
        .args(["symbolicate", "--format", "json", "-s"])
        .arg(dir)
        .arg(trace)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "symscope failed on {}", trace.display());
    start.elapsed()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js");
    let mut exes = vec![PathBuf::from(env!("CARGO_BIN_EXE_symscope"))];
    if let Ok(base) = std::env::var("SYMSCOPE_BASELINE") {
        exes.push(PathBuf::from(base));
    }
    // Every `case*.json` of every case folder names one trace.
    let mut cases: Vec<(PathBuf, String)> = Vec::new();
    for dir in std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
    {
        for f in std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(|e| Some(e.ok()?.path()))
        {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("case") && name.ends_with(".json") {
                let case: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
                cases.push((dir.clone(), case["trace"].as_str().unwrap().to_owned()));
            }
        }
    }
    cases.sort();
    println!(
        "| case | trace | this build: median (fastest) | baseline: median (fastest) | ratio |"
    );
    println!("|---|---|---|---|---|");
    for (dir, trace) in cases {
        {
            let trace_path = dir.join(&trace);
            let mut times: Vec<Vec<Duration>> = vec![Vec::new(); exes.len()];
            for _ in 0..RUNS {
                for (exe, t) in exes.iter().zip(&mut times) {
                    t.push(run(exe, &dir, &trace_path));
                }
            }
            let stats: Vec<(f64, f64)> = times
                .iter_mut()
                .map(|t| {
                    t.sort();
                    (ms(t[t.len() / 2]), ms(t[0]))
                })
                .collect();
            let name = dir.file_name().unwrap().to_string_lossy();
            let (this, base) = (stats[0], stats.get(1));
            match base {
                Some(b) => println!(
                    "| {name} | {trace} | {:.2} ms ({:.2}) | {:.2} ms ({:.2}) | {:.2}× |",
                    this.0,
                    this.1,
                    b.0,
                    b.1,
                    this.0 / b.0
                ),
                None => println!(
                    "| {name} | {trace} | {:.2} ms ({:.2}) | | |",
                    this.0, this.1
                ),
            }
        }
    }
}
