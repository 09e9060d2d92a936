//! `cargo bench --bench proguard`: our lazy ProGuard path against the `proguard` crate, in one
//! process, on the real 10 MB mapping (`tests/fixtures/java/big`) with a 30-frame trace (its
//! real crash plus 25 frames mapped forward, `tests/fixtures/java-bench`).
//!
//! Every row starts from the mapping's bytes already in memory and ends with the whole trace
//! deobfuscated:
//! - ours, cold: the engine's journey as the CLI and the app take it: the class-header scan
//!   (on all cores) → the trace read into its table → the trace's classes cut out → the
//!   crate's cache over them → every frame remapped into the table;
//! - the crate's `ProguardMapping` + `ProguardMapper` build + `remap_stacktrace`;
//! - the crate's `ProguardCache` write + parse + `remap_stacktrace`;
//! - the floor: counting the file's newlines (memchr), the least any reader must do.
//!
//! Each figure is the median of many runs. Prints a markdown table (the one in the README)
//! and the two ratios of issue #4's target: mapper / ours (≥ 50×) and ours / floor (≤ 10×).

use proguard::{ProguardCache, ProguardMapper, ProguardMapping};
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};
use symscope::engine::{self, Detected, Loader};
use symscope::model::{Blob, FrameStatus, NoProgress};
use symscope::symbolicate::{Options, SymbolSet};

const MAPPING: &str = "tests/fixtures/java/big/big-mapping-noopt.txt";
const TRACE: &str = "tests/fixtures/java-bench/obf-bench-30.txt";

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Median time of `f` over runs taking about `budget` in all (at least 5 runs).
fn median(budget: Duration, mut f: impl FnMut()) -> Duration {
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 5 || (start.elapsed() < budget && times.len() < 2000) {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let bytes: Arc<[u8]> = std::fs::read(MAPPING).unwrap().into();
    let text = std::str::from_utf8(&bytes).unwrap();
    let trace_text = std::fs::read_to_string(TRACE).unwrap();
    let frames = trace_text
        .lines()
        .filter(|l| l.trim_start().starts_with("at "))
        .count();

    // Ours: bytes → resolved trace, on the engine's journey as the CLI takes it.
    let ours = || {
        let mut symbols = SymbolSet::new();
        let mapping = Detected::new("big-mapping-noopt.txt", Blob::from(bytes.clone()));
        let loader = Loader {
            runner: &symscope::jobs::ParallelIndex,
            cache: None,
            native: engine::NativeRoute::Lazy,
            maps: engine::MapRoute::Whole,
        };
        engine::load_symbols(&mapping, loader, &mut NoProgress)
            .unwrap()
            .add_to(&mut symbols);
        let log = Detected::new("trace", Blob::from(trace_text.as_bytes()));
        engine::read_log(&log, &engine::Cfi::new(), &mut NoProgress)
            .unwrap()
            .symbolicate(&symbols, Options::default(), &mut NoProgress)
            .unwrap()
    };
    // Sanity: every frame resolved (the corpus test checks the answers themselves).
    let r = ours();
    let resolved = r
        .table
        .frames()
        .filter(|(_, f)| f.status() == Some(FrameStatus::Resolved))
        .count();
    assert_eq!(resolved, frames, "every frame resolves");

    let budget = Duration::from_secs(3);
    let t_ours = median(budget, || {
        black_box(ours());
    });
    let t_mapper = median(budget, || {
        let mapper = ProguardMapper::new(ProguardMapping::new(text.as_bytes()));
        black_box(mapper.remap_stacktrace(&trace_text).unwrap());
    });
    let t_cache = median(budget, || {
        let mut buf = Vec::new();
        ProguardCache::write(&ProguardMapping::new(text.as_bytes()), &mut buf).unwrap();
        let cache = ProguardCache::parse(&buf).unwrap();
        black_box(cache.remap_stacktrace(&trace_text).unwrap());
    });
    let t_floor = median(budget, || {
        black_box(memchr::memchr_iter(b'\n', &bytes).count());
    });
    // Our scan alone (the part that grows with the file).
    let t_scan = median(budget, || {
        black_box(symscope::symbols::proguard::Mapping::parse(Blob::from(bytes.clone())).unwrap());
    });
    let t_scan_par = median(budget, || {
        black_box(
            symscope::symbols::proguard::Mapping::parse_with(
                Blob::from(bytes.clone()),
                &symscope::jobs::ParallelIndex,
            )
            .unwrap(),
        );
    });

    println!(
        "{} ({:.1} MB, {} lines), {frames}-frame trace; median of many runs\n",
        MAPPING.rsplit('/').next().unwrap_or(MAPPING),
        bytes.len() as f64 / 1e6,
        memchr::memchr_iter(b'\n', &bytes).count()
    );
    println!("| path (bytes in memory → trace deobfuscated) | ms | vs ours |");
    println!("|---|---:|---:|");
    let row = |name: &str, t: Duration| {
        println!(
            "| {name} | {:.2} | {:.1}× |",
            ms(t),
            t.as_secs_f64() / t_ours.as_secs_f64()
        );
    };
    row("**ours, cold** (scan + classes cut out + remap)", t_ours);
    row("  of which: class-header scan, all cores", t_scan_par);
    row("  (the scan on one core)", t_scan);
    row("`proguard` ProguardMapper build + remap", t_mapper);
    row("`proguard` ProguardCache write + parse + remap", t_cache);
    row("floor: newline count (memchr)", t_floor);
    println!();
    println!(
        "mapper / ours = {:.1}× (target ≥ 50×); ours / floor = {:.1}× (target ≤ 10×)",
        t_mapper.as_secs_f64() / t_ours.as_secs_f64(),
        t_ours.as_secs_f64() / t_floor.as_secs_f64()
    );
}
