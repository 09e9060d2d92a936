//! `cargo bench --bench profile`: a CPU profile of 1,000,000 samples symbolicated and ranked
//! by `symscope profile --format json`, whole process, beside the fastest route a user has
//! today: node with `@jridgewell/trace-mapping` resolving every node and summing each
//! function's self time (DevTools' rule). The profile is made from the recorded lodash one
//! (`tests/fixtures/profiles/lodash-min.cpuprofile`): its call tree, a million samples drawn
//! from its own with a fixed seed, deltas of 200–299 µs. Then a Hermes sampling profile of
//! 1,000,000 samples (the recorded `hermes/work.hermes-profile.json`'s frames, samples drawn
//! from its own) resolved by `symscope profile --format cpuprofile` through terser's and
//! hermesc's maps, beside `metro-symbolicate` on the composed map (what React Native users
//! run). Node's packages are fetched with npm into `target/bench-node/` on the first run.

mod common;

use common::{ms, run_exact};
use std::path::{Path, PathBuf};
use std::process::Command;

const RANK: &str = r#"
import { readFileSync } from 'node:fs';
import { TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
const [, , mapPath, profilePath] = process.argv;
const map = new TraceMap(JSON.parse(readFileSync(mapPath, 'utf8')));
const p = JSON.parse(readFileSync(profilePath, 'utf8'));
const keyOf = new Map();
for (const n of p.nodes) {
  const f = n.callFrame;
  let key = `${f.functionName}@${f.url}:${f.lineNumber}:${f.columnNumber}`;
  if (f.url.endsWith('.min.js') && f.lineNumber >= 0) {
    const o = originalPositionFor(map, { line: f.lineNumber + 1, column: f.columnNumber });
    if (o.source) key = `${o.name || f.functionName}@${o.source}:${o.line}:${o.column}`;
  }
  keyOf.set(n.id, key);
}
let t = p.startTime;
const times = p.timeDeltas.map((d) => (t += d));
const n = times.length;
const self = new Map();
for (let i = 0; i < n; i++) {
  const d = i + 1 < n ? times[i + 1] - times[i] : (times[n - 1] - times[0]) / (n - 1);
  const k = keyOf.get(p.samples[i]);
  self.set(k, (self.get(k) || 0) + d);
}
const rows = [...self].sort((a, b) => b[1] - a[1]);
console.log(JSON.stringify(rows.slice(0, 20)));
"#;

/// `@jridgewell/trace-mapping` and `metro-symbolicate` installed under `target/bench-node/`,
/// and the ranking script.
fn node_reference() -> PathBuf {
    let dir = common::npm_install(&[
        (
            "@jridgewell/trace-mapping",
            "@jridgewell/trace-mapping@0.3.31",
        ),
        ("metro-symbolicate", "metro-symbolicate@0.80.12"),
    ]);
    let script = dir.join("rank.mjs");
    std::fs::write(&script, RANK).unwrap();
    script
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = root.join("tests/fixtures/js/lodash-terser/lodash.min.js.map");
    let dir = root.join("target/bench-node");
    std::fs::create_dir_all(&dir).unwrap();
    let profile = dir.join("lodash-1m.cpuprofile");
    let n = 1_000_000;
    let bytes = common::big_profile(n, &profile);
    let script = node_reference();
    let ours = |round: usize| {
        let (t, peak) = run_exact(
            Command::new(env!("CARGO_BIN_EXE_symscope"))
                .args(["profile", "--format", "json", "--top", "20", "-s"])
                .arg(&map)
                .arg(&profile),
        );
        if round == 0 {
            println!("(warm-up) symscope: {:.0} ms", ms(t));
        }
        (t, peak)
    };
    let node = || run_exact(Command::new("node").arg(&script).arg(&map).arg(&profile));
    ours(0);
    node();
    let mut rows = Vec::new();
    for round in 1..=5 {
        let (a, am) = ours(round);
        let (b, bm) = node();
        rows.push((ms(a), am, ms(b), bm));
    }
    println!(
        "# CPU profile of {n} samples ({:.1} MB; the recorded lodash profile's nodes): symbolicated and ranked, whole process, 5 rounds\n",
        bytes as f64 / 1e6
    );
    let ratios = print_rounds(
        "symscope profile",
        "node + trace-mapping",
        "node / ours",
        &rows,
    );
    let mut ours_ms: Vec<f64> = rows.iter().map(|r| r.0).collect();
    ours_ms.sort_by(f64::total_cmp);
    let peak = rows.iter().map(|r| r.1).max().unwrap_or(0);
    println!(
        "\nmedian: symscope {:.0} ms (target ≤ 1,000 ms), node / ours {:.2}× (target ≥ 3×); peak {:.2}× the file (target ≤ 2×)",
        ours_ms[2],
        ratios[2],
        peak as f64 / bytes as f64
    );
    // Ten times the samples: what the profile itself costs, beside the process's own.
    let big = dir.join("lodash-10m.cpuprofile");
    let big_bytes = common::big_profile(10 * n, &big);
    let (t, big_peak) = run_exact(
        Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args(["profile", "--format", "json", "--top", "20", "-s"])
            .arg(&map)
            .arg(&big),
    );
    println!(
        "{} samples ({:.1} MB): {:.0} ms, peak {:.1} MB, {:.2}× the file",
        10 * n,
        big_bytes as f64 / 1e6,
        ms(t),
        big_peak as f64 / 1e6,
        big_peak as f64 / big_bytes as f64
    );
    std::fs::remove_file(&big).ok();
    hermes(&dir);
}

/// A Hermes sampling profile of `n` samples made from the recorded one: its stack frames, the
/// samples drawn from its own (fixed seed), 200–299 µs apart.
fn big_hermes_profile(n: usize, to: &Path) -> u64 {
    use serde_json::{Value, json};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profiles/hermes");
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(dir.join("work.hermes-profile.json")).unwrap())
            .unwrap();
    let recorded: Vec<Value> = doc["samples"].as_array().unwrap().clone();
    let mut seed: u64 = 0x5EED_4E55;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        seed >> 33
    };
    let mut ts: u64 = 16_896_736_149;
    let samples: Vec<Value> = (0..n)
        .map(|_| {
            let mut s = recorded[next() as usize % recorded.len()].clone();
            ts += 200 + next() % 100;
            s["ts"] = json!(ts.to_string());
            s
        })
        .collect();
    doc["samples"] = samples.into();
    let text = serde_json::to_vec(&doc).unwrap();
    std::fs::write(to, &text).unwrap();
    text.len() as u64
}

/// The Hermes profile resolved and written back as a profile, ours beside metro-symbolicate's
/// (which rewrites its file in place: each round gets a fresh copy, made before the clock).
fn hermes(dir: &Path) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profiles/hermes");
    let n = 1_000_000;
    let profile = dir.join("hermes-1m.json");
    let bytes = big_hermes_profile(n, &profile);
    let metro_copy = dir.join("hermes-1m.cpuprofile");
    let metro = dir.join("node_modules/metro-symbolicate/src/index.js");
    let ours = || {
        run_exact(
            Command::new(env!("CARGO_BIN_EXE_symscope"))
                .args(["profile", "--format", "cpuprofile", "-s"])
                .arg(fixtures.join("work.hbc.map"))
                .arg("-s")
                .arg(fixtures.join("work.min.js.map"))
                .arg(&profile),
        )
    };
    let theirs = || {
        std::fs::copy(&profile, &metro_copy).unwrap();
        run_exact(
            Command::new("node")
                .arg(&metro)
                .arg(fixtures.join("work.composed.map"))
                .arg(&metro_copy),
        )
    };
    ours();
    theirs();
    let mut rows = Vec::new();
    for _ in 0..5 {
        let (a, am) = ours();
        let (b, bm) = theirs();
        rows.push((ms(a), am, ms(b), bm));
    }
    println!(
        "\n# Hermes sampling profile of {n} samples ({:.1} MB): resolved and written as a profile, whole process, 5 rounds\n",
        bytes as f64 / 1e6
    );
    let ratios = print_rounds(
        "symscope profile --format cpuprofile",
        "metro-symbolicate",
        "metro / ours",
        &rows,
    );
    println!("\nmedian metro / ours {:.2}× (target ≥ 10×)", ratios[2]);
}

/// Prints the rounds (ours: ms and peak bytes, theirs: the same) as a table; returns the
/// ratios theirs / ours, sorted.
fn print_rounds(ours: &str, theirs: &str, ratio: &str, rows: &[(f64, u64, f64, u64)]) -> Vec<f64> {
    println!("| round | {ours} | peak | {theirs} | peak | {ratio} |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for (k, (a, am, b, bm)) in rows.iter().enumerate() {
        println!(
            "| {} | {a:.0} ms | {:.1} MB | {b:.0} ms | {:.1} MB | {:.2}× |",
            k + 1,
            *am as f64 / 1e6,
            *bm as f64 / 1e6,
            b / a
        );
    }
    let mut ratios: Vec<f64> = rows.iter().map(|r| r.2 / r.0).collect();
    ratios.sort_by(f64::total_cmp);
    ratios
}
