//! `cargo bench --bench buckets`: `symscope buckets` run as a user runs it, over folders of
//! logs generated from the corpus crashes (`tests/common/crashgen.rs`, fixed seed: 18 real
//! JavaScript, Java and native crashes, each log a variant with other messages, line
//! prefixes and addresses), against their symbol files: wall time of the whole process and
//! its peak memory (high-water mark read from `/proc`), median and largest of three runs
//! after one to warm the page cache.
//!
//! Issue #23's targets: 10,000 logs in ≤ 3 s on 2 cores, peak ≤ 500 MB, growing linearly
//! (100,000 logs ≤ 30 s). Each run's buckets are checked against the crashes the logs came
//! from. `SYMSCOPE_BENCH_QUICK=1` runs the 10,000 only. The logs are written once under
//! `target/bench-buckets` and kept.

#[path = "../tests/common/crashgen.rs"]
mod crashgen;

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SEED: u64 = 0x2026_1125;

/// The folder of `n` generated logs (written unless an earlier run left it complete) and
/// each log's source crash.
fn logs(n: usize) -> (PathBuf, BTreeMap<String, &'static str>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("target/bench-buckets/{n}"));
    let done = dir.join("complete");
    if !done.exists() {
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        crashgen::generate(&dir, n, SEED);
        std::fs::write(&done, "").unwrap();
    }
    // The generator is deterministic: the sources follow the logs' order.
    let sources = (0..n)
        .map(|k| {
            let path = dir
                .join(format!("night-{:02}", k / 1000))
                .join(format!("crash-{k:06}.txt"));
            let source = &crashgen::SOURCES[k % crashgen::SOURCES.len()];
            (path.display().to_string(), source.crash)
        })
        .collect();
    (dir, sources)
}

/// One run: wall time (s), peak memory (bytes); the JSON output checked.
fn run(dir: &Path, sources: &BTreeMap<String, &'static str>) -> (f64, u64) {
    let out = std::env::temp_dir().join(format!(
        "symscope-bench-buckets-{}.json",
        std::process::id()
    ));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_symscope"));
    cmd.args(["buckets", "--format", "json"]);
    for s in crashgen::SYMBOLS {
        cmd.arg("-s").arg(crashgen::fixtures().join(s));
    }
    cmd.arg(dir)
        .stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
        .stderr(Stdio::inherit());
    let (time, peak) = common::run_measured(&mut cmd);
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).ok();
    let buckets = doc["buckets"].as_array().unwrap();
    assert_eq!(
        buckets.len(),
        crashgen::crashes().len(),
        "one bucket per crash"
    );
    let mut total = 0;
    for b in buckets {
        let members = b["members"].as_array().unwrap();
        total += members.len();
        let from: BTreeSet<&str> = members
            .iter()
            .map(|m| sources[m.as_str().unwrap()])
            .collect();
        assert_eq!(from.len(), 1, "crashes merged in {}", b["signature"]);
    }
    assert_eq!(total, sources.len(), "every log bucketed");
    (time.as_secs_f64(), peak)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let quick = std::env::var_os("SYMSCOPE_BENCH_QUICK").is_some();
    let sizes: &[(usize, f64)] = if quick {
        &[(10_000, 3.0)]
    } else {
        &[(10_000, 3.0), (100_000, 30.0)]
    };
    println!(
        "# `symscope buckets`: generated logs of 18 corpus crashes, {} cores\n",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("| logs | size | wall (median of 3) | worst | peak memory | per log | target |");
    println!("|---:|---:|---:|---:|---:|---:|---|");
    for &(n, target_s) in sizes {
        let (dir, sources) = logs(n);
        let bytes: u64 = sources
            .keys()
            .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
            .sum();
        run(&dir, &sources);
        let mut times = Vec::new();
        let mut peak = 0;
        for _ in 0..3 {
            let (t, p) = run(&dir, &sources);
            times.push(t);
            peak = peak.max(p);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "| {n} | {:.0} MB | {:.2} s | {:.2} s | {:.0} MB | {:.0} µs | ≤ {target_s:.0} s, ≤ 500 MB |",
            bytes as f64 / 1e6,
            times[1],
            times[2],
            peak as f64 / 1e6,
            times[1] * 1e6 / n as f64
        );
    }
}
