//! `cargo bench --bench sourcemap`: our lazy source-map reader against `sourcemap` 9 and
//! `srcmap-sourcemap`, in one process, on pdf.worker's and three.min.js's maps.
//!
//! Cold = map bytes already in memory → parsed → first look-up answered (the drop of the
//! parsed map is not timed, for any library). Warm = the trace's frames looked up again on a
//! map that is already parsed. Each figure is the median of many runs. Prints a markdown table
//! (the one in the README) with the ratios against our single-threaded reader, then how long
//! a sleeping rayon worker takes to join a parallel index pass (what bounds the 2-core rows).

use serde_json::Value;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use symscope::jobs::ParallelIndex;
use symscope::model::Blob;
use symscope::symbols::sourcemap::{LineIndex, SourceMap};

struct Case {
    name: &'static str,
    map: &'static str,
    oracle: &'static str,
}

const CASES: [Case; 2] = [
    Case {
        name: "pdf.worker.mjs.map",
        map: "pdfjs-dist-worker/pdf.worker.mjs.map",
        oracle: "pdfjs-dist-worker/oracle.json",
    },
    Case {
        name: "three.min.js.map",
        map: "three-esbuild/three.min.js.map",
        oracle: "three-esbuild/oracle.json",
    },
];

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `mappings` string's byte range (found with serde_json, outside any timing).
fn mappings_range(bytes: &[u8]) -> std::ops::Range<usize> {
    let key = b"\"mappings\"";
    let at = memchr::memmem::find(bytes, key).expect("mappings key");
    let open = at + key.len() + memchr::memchr(b'"', &bytes[at + key.len()..]).unwrap() + 1;
    let close = open + memchr::memchr(b'"', &bytes[open..]).unwrap();
    open..close
}

fn positions(oracle: &Path) -> Vec<(u32, u32)> {
    let v: Value = serde_json::from_slice(&std::fs::read(oracle).unwrap()).unwrap();
    v["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["generated"].is_null())
        .map(|f| {
            (
                f["generated"]["line"].as_u64().unwrap() as u32 - 1,
                f["generated"]["column0"].as_u64().unwrap() as u32,
            )
        })
        .collect()
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects cases by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js");
    let threads = rayon::current_num_threads();
    println!("# Source-map benchmark ({threads} rayon threads; medians)\n");
    println!("| map | row | time | vs ours (1 core) |");
    println!("|---|---|---:|---:|");
    for case in CASES
        .iter()
        .filter(|c| filter.as_ref().is_none_or(|f| c.name.contains(f.as_str())))
    {
        let bytes: Arc<[u8]> = std::fs::read(root.join(case.map)).unwrap().into();
        let text = std::str::from_utf8(&bytes).unwrap().to_owned();
        let frames = positions(&root.join(case.oracle));
        let first = frames[0];
        let mr = mappings_range(&bytes);
        let runs = 31;

        let mappings = &bytes[mr.clone()];
        // The rows run round-robin (one run of each per round), so that a slow stretch of a
        // shared machine hits every row alike; each row's figure is its median.
        type Row<'a> = (&'a str, Box<dyn FnMut() -> Duration + 'a>);
        let timed = |f: &mut dyn FnMut()| {
            let t = Instant::now();
            f();
            t.elapsed()
        };
        let mut rows: Vec<Row<'_>> = vec![
            (
                "ours 1",
                Box::new(|| {
                    let t = Instant::now();
                    let m = SourceMap::parse(Blob::from(bytes.clone())).unwrap();
                    black_box(m.lookup(first.0, first.1).unwrap().map(|t| t.src_line()));
                    let e = t.elapsed();
                    drop(m);
                    e
                }),
            ),
            (
                "ours n",
                Box::new(|| {
                    let t = Instant::now();
                    let m =
                        SourceMap::parse_with(Blob::from(bytes.clone()), &ParallelIndex).unwrap();
                    black_box(m.lookup(first.0, first.1).unwrap().map(|t| t.src_line()));
                    let e = t.elapsed();
                    drop(m);
                    e
                }),
            ),
            (
                "sourcemap",
                Box::new(|| {
                    let t = Instant::now();
                    let m = sourcemap::SourceMap::from_slice(&bytes).unwrap();
                    black_box(m.lookup_token(first.0, first.1).map(|t| t.get_src_line()));
                    let e = t.elapsed();
                    drop(m);
                    e
                }),
            ),
            (
                "srcmap eager",
                Box::new(|| {
                    let t = Instant::now();
                    let m = srcmap_sourcemap::SourceMap::from_json(&text).unwrap();
                    black_box(m.original_position_for(first.0, first.1).map(|o| o.line));
                    let e = t.elapsed();
                    drop(m);
                    e
                }),
            ),
            (
                "srcmap lazy",
                Box::new(|| {
                    let t = Instant::now();
                    let m = srcmap_sourcemap::LazySourceMap::from_json_fast(&text).unwrap();
                    black_box(m.original_position_for(first.0, first.1).map(|o| o.line));
                    let e = t.elapsed();
                    drop(m);
                    e
                }),
            ),
            (
                "floor mappings",
                Box::new(|| {
                    timed(&mut || {
                        black_box(mappings.iter().map(|&b| u64::from(b)).sum::<u64>());
                    })
                }),
            ),
            (
                "floor file",
                Box::new(|| {
                    timed(&mut || {
                        black_box(bytes.iter().map(|&b| u64::from(b)).sum::<u64>());
                    })
                }),
            ),
            (
                "index 1",
                Box::new(|| {
                    timed(&mut || {
                        black_box(
                            LineIndex::build(mappings, usize::MAX, usize::MAX)
                                .unwrap()
                                .line_count(),
                        );
                    })
                }),
            ),
        ];
        let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); rows.len()];
        for round in 0..=runs {
            for (k, (_, f)) in rows.iter_mut().enumerate() {
                let d = f();
                if round > 0 {
                    samples[k].push(d); // Round 0 warms up.
                }
            }
        }
        let sorted: Vec<Vec<Duration>> = samples
            .into_iter()
            .map(|mut v| {
                v.sort();
                v
            })
            .collect();
        let med: Vec<Duration> = sorted.iter().map(|v| v[v.len() / 2]).collect();
        let fastest: Vec<Duration> = sorted.iter().map(|v| v[0]).collect();
        let names: Vec<&str> = rows.iter().map(|(n, _)| *n).collect();
        drop(rows);
        let get = |name: &str| med[names.iter().position(|n| *n == name).unwrap()];
        let min_of = |name: &str| fastest[names.iter().position(|n| *n == name).unwrap()];
        let (ours_1, ours_n, sm9, srcmap_eager, srcmap_lazy) = (
            get("ours 1"),
            get("ours n"),
            get("sourcemap"),
            get("srcmap eager"),
            get("srcmap lazy"),
        );
        let (floor_mappings, floor_file, index_1) =
            (get("floor mappings"), get("floor file"), get("index 1"));

        // Warm: every frame of the trace looked up again, many times.
        let reps = 20_000;
        let lookups = (reps * frames.len()) as f64;
        let ours_map = SourceMap::parse(Blob::from(bytes.clone())).unwrap();
        let sm9_map = sourcemap::SourceMap::from_slice(&bytes).unwrap();
        let srcmap_map = srcmap_sourcemap::SourceMap::from_json(&text).unwrap();
        let lazy_map = srcmap_sourcemap::LazySourceMap::from_json_fast(&text).unwrap();
        let mut warm_rows: Vec<Box<dyn FnMut(u32, u32) + '_>> = vec![
            Box::new(|l, c| {
                black_box(ours_map.lookup(l, c).unwrap().map(|t| t.src_line()));
            }),
            Box::new(|l, c| {
                black_box(sm9_map.lookup_token(l, c).map(|t| t.get_src_line()));
            }),
            Box::new(|l, c| {
                black_box(srcmap_map.original_position_for(l, c).map(|o| o.line));
            }),
            Box::new(|l, c| {
                black_box(lazy_map.original_position_for(l, c).map(|o| o.line));
            }),
        ];
        let mut wsamples: Vec<Vec<f64>> = vec![Vec::new(); warm_rows.len()];
        for round in 0..10 {
            for (k, f) in warm_rows.iter_mut().enumerate() {
                let t = Instant::now();
                for _ in 0..reps {
                    for &(l, c) in &frames {
                        f(l, c);
                    }
                }
                if round > 0 {
                    wsamples[k].push(t.elapsed().as_secs_f64() * 1e9 / lookups);
                }
            }
        }
        let wmed: Vec<f64> = wsamples
            .into_iter()
            .map(|mut v| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            })
            .collect();
        drop(warm_rows);
        let (w_ours, w_sm9, w_srcmap, w_lazy) = (wmed[0], wmed[1], wmed[2], wmed[3]);

        let base = ms(ours_1);
        let row = |name: &str, d: Duration| {
            println!(
                "| {} | {name} | {:.3} ms | {:.2}× |",
                case.name,
                ms(d),
                ms(d) / base
            );
        };
        let row_min = |name: &str, key: &str| {
            let (d, m) = (get(key), min_of(key));
            println!(
                "| {} | {name} | {:.3} ms (fastest {:.3}) | {:.2}× |",
                case.name,
                ms(d),
                ms(m),
                ms(d) / base
            );
        };
        let mb = |d: Duration, n: usize| n as f64 / 1e6 / d.as_secs_f64();
        println!(
            "| {} | _size: {:.1} MB file, {:.1} MB mappings_ | | |",
            case.name,
            bytes.len() as f64 / 1e6,
            mr.len() as f64 / 1e6
        );
        row_min("cold: ours, 1 core", "ours 1");
        row_min(&format!("cold: ours, {threads} cores"), "ours n");
        row_min("cold: sourcemap 9", "sourcemap");
        row("cold: srcmap-sourcemap (eager)", srcmap_eager);
        row(
            "cold: srcmap-sourcemap (LazySourceMap::from_json_fast)",
            srcmap_lazy,
        );
        row("floor: one pass over mappings", floor_mappings);
        row("floor: one pass over the file", floor_file);
        row(
            &format!(
                "our index pass alone, 1 core ({:.0} MB/s)",
                mb(index_1, mappings.len())
            ),
            index_1,
        );
        let wrow = |name: &str, ns: f64| {
            println!(
                "| {} | {name} | {ns:.1} ns/look-up | {:.2}× |",
                case.name,
                ns / w_ours
            );
        };
        wrow("warm: ours", w_ours);
        wrow("warm: sourcemap 9", w_sm9);
        wrow("warm: srcmap-sourcemap (eager)", w_srcmap);
        wrow("warm: srcmap-sourcemap (lazy)", w_lazy);
        println!(
            "| {} | **ratios**: cold sourcemap/ours(1) = {:.1}×, sourcemap/ours({threads}) = {:.1}×; warm sourcemap/ours = {:.1}× | | |",
            case.name,
            ms(sm9) / base,
            ms(sm9) / ms(ours_n),
            w_sm9 / w_ours
        );
    }
    pool_wake_up();
}

/// How long a rayon worker that went to sleep takes to join a parallel index pass: the
/// 2-core rows can be no faster than the calling thread alone until it does. Each try lets
/// the pool sleep 20 ms, then runs 64 tasks of 20 µs through `ParallelIndex` (1.3 ms of
/// work, about a cold three.min.js) and notes when another thread ran its first task.
fn pool_wake_up() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use symscope::model::ChunkRunner;
    const TRIES: usize = 50;
    let main_thread = std::thread::current().id();
    let mut joined: Vec<Option<u64>> = (0..TRIES)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(20));
            let start = Instant::now();
            let first = AtomicU64::new(u64::MAX);
            ParallelIndex.for_each(64, &|_| {
                if std::thread::current().id() != main_thread {
                    first.fetch_min(start.elapsed().as_micros() as u64, Ordering::Relaxed);
                }
                let spin = Instant::now();
                while spin.elapsed() < Duration::from_micros(20) {}
            });
            Some(first.load(Ordering::Relaxed)).filter(|&us| us != u64::MAX)
        })
        .collect();
    joined.sort_by_key(|j| j.unwrap_or(u64::MAX));
    let never = joined.iter().filter(|j| j.is_none()).count();
    let us = |j: Option<u64>| j.map_or("never".to_owned(), |us| format!("{us} µs"));
    println!(
        "\npool wake-up ({TRIES} tries, the pool asleep 20 ms before each): a second thread joined the index pass after {} (fastest), {} (median), {} (90th percentile); it never joined the 1.3 ms of work in {never} of {TRIES}",
        us(joined[0]),
        us(joined[TRIES / 2]),
        us(joined[TRIES * 9 / 10]),
    );
}
