//! `cargo bench --bench sourcemap`: our lazy source-map reader against every Rust reader a
//! user could pick (`sourcemap` 9, `srcmap-sourcemap` eager and lazy, `oxc_sourcemap` 9) and
//! two floors (one pass over the file, one over `mappings`), in one process, on every corpus
//! map (pdf.worker, three.min.js, an index map, a Hermes map) and on monaco's and
//! babylon.js's maps (fetched with npm once, as `map_tools` does). A reader that cannot read
//! a map says why; the others must find the line ours finds for the first frame. Ours is read
//! as the CLI reads a map for a trace (`SourceMap::parse_lazy`: `mappings` indexed as far as
//! the lines looked up).
//!
//! Cold = map bytes already in memory → parsed → first look-up answered (the drop of the
//! parsed map is not timed, for any library); whole trace = the same with every frame of the
//! trace looked up (in this process: process start and file read are the same for every Rust
//! reader). Warm = the trace's frames looked up again on a
//! map that is already parsed. Each figure is the median of many runs. Prints a markdown table
//! (the one in the README) with the ratios against our single-threaded reader, then how long
//! a sleeping rayon worker takes to join a parallel index pass (what bounds the 2-core rows).

use serde_json::Value;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use symscope::jobs::ParallelIndex;
use symscope::model::{Blob, Serial};
use symscope::symbols::sourcemap::{LineIndex, SourceMap};

mod common;

/// A map and the generated positions of its trace (the first is the cold look-up's).
struct Case {
    name: &'static str,
    map: PathBuf,
    frames: Vec<(u32, u32)>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `mappings` string's byte range (found with memchr, outside any timing).
fn mappings_range(bytes: &[u8]) -> Option<std::ops::Range<usize>> {
    let key = b"\"mappings\"";
    let at = memchr::memmem::find(bytes, key)?;
    let open = at + key.len() + memchr::memchr(b'"', &bytes[at + key.len()..])? + 1;
    let close = open + memchr::memchr(b'"', &bytes[open..])?;
    Some(open..close)
}

/// The generated positions of a corpus case's trace (its oracle, 0-based).
fn oracle_positions(oracle: &Path) -> Vec<(u32, u32)> {
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

/// Thirty segments spread over a map without a recorded trace, found by the `sourcemap`
/// crate (outside any timing), the middle one first.
fn spread_positions(bytes: &[u8]) -> Vec<(u32, u32)> {
    let map = sourcemap::SourceMap::from_slice(bytes).unwrap();
    let n = map.get_token_count();
    let mut frames: Vec<(u32, u32)> = (0..30u32)
        .filter_map(|k| map.get_token((n / 31 * (k + 1)) as usize))
        .filter(|t| t.has_source())
        .map(|t| (t.get_dst_line(), t.get_dst_col()))
        .collect();
    let half = frames.len() / 2;
    frames.rotate_left(half);
    frames
}

fn cases(filter: Option<&str>) -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js");
    let corpus = |name, map: &str, oracle: &str| Case {
        name,
        map: root.join(map),
        frames: oracle_positions(&root.join(oracle)),
    };
    let wanted = |name: &str| filter.is_none_or(|f| name.contains(f));
    let mut out = Vec::new();
    for (name, map, oracle) in [
        (
            "pdf.worker.mjs.map",
            "pdfjs-dist-worker/pdf.worker.mjs.map",
            "pdfjs-dist-worker/oracle.json",
        ),
        (
            "three.min.js.map",
            "three-esbuild/three.min.js.map",
            "three-esbuild/oracle.json",
        ),
        (
            "vendor.min.js.map (index map)",
            "index-map-rxjs-lodash/vendor.min.js.map",
            "index-map-rxjs-lodash/oracle.json",
        ),
        (
            "index.android.bundle.hbc.map (Hermes)",
            "metro-hermes/index.android.bundle.hbc.map",
            "metro-hermes/oracle-hermes-bytecode.json",
        ),
    ] {
        if wanted(name) {
            out.push(corpus(name, map, oracle));
        }
    }
    // The large maps of `map_tools` (fetched with npm once).
    for (name, package, version, map, bundle) in [
        (
            "editor.main.js.map (monaco)",
            "monaco-editor",
            "0.52.2",
            "package/min-maps/vs/editor/editor.main.js.map",
            "package/min/vs/editor/editor.main.js",
        ),
        (
            "babylon.js.map (one line)",
            "babylonjs",
            "9.35.0",
            "package/babylon.js.map",
            "package/babylon.js",
        ),
    ] {
        if wanted(name) {
            let (map, _) = common::npm_map(package, version, map, bundle);
            let frames = spread_positions(&std::fs::read(&map).unwrap());
            out.push(Case { name, map, frames });
        }
    }
    out
}

/// A reader's cold path: bytes → parsed → the frames looked up (the first alone, or the whole
/// trace); the time (the map's drop left out) and the original lines found, or why the
/// reader cannot read the map.
type Cold = fn(&Arc<[u8]>, &str, &[(u32, u32)]) -> Result<(Duration, Vec<Option<u32>>), String>;

/// Times `parse` then `look` (the parsed map's drop left out).
fn cold<M>(
    parse: impl FnOnce() -> Result<M, String>,
    look: impl FnOnce(&M) -> Vec<Option<u32>>,
) -> Result<(Duration, Vec<Option<u32>>), String> {
    let t = Instant::now();
    let m = parse()?;
    let line = look(&m);
    let e = t.elapsed();
    drop(m);
    Ok((e, black_box(line)))
}

fn ours(m: &SourceMap, (l, c): (u32, u32)) -> Option<u32> {
    m.lookup(l, c).ok()?.and_then(|t| t.src_line())
}

/// The result of a cold path.
type Found = Result<(Duration, Vec<Option<u32>>), String>;

fn cold_ours_1(b: &Arc<[u8]>, _: &str, at: &[(u32, u32)]) -> Found {
    cold(
        || SourceMap::parse_lazy(Blob::from(b.clone()), &Serial).map_err(|e| e.to_string()),
        |m| at.iter().map(|&p| ours(m, p)).collect(),
    )
}

fn cold_ours_n(b: &Arc<[u8]>, _: &str, at: &[(u32, u32)]) -> Found {
    cold(
        || SourceMap::parse_lazy(Blob::from(b.clone()), &ParallelIndex).map_err(|e| e.to_string()),
        |m| at.iter().map(|&p| ours(m, p)).collect(),
    )
}

fn cold_sm9(b: &Arc<[u8]>, _: &str, at: &[(u32, u32)]) -> Found {
    cold(
        // An index map is read as the crate offers it: decoded, then flattened.
        || match sourcemap::decode_slice(b).map_err(|e| e.to_string())? {
            sourcemap::DecodedMap::Regular(m) => Ok(m),
            sourcemap::DecodedMap::Index(i) => i.flatten().map_err(|e| e.to_string()),
            _ => Err("not a plain or index map".into()),
        },
        |m| {
            at.iter()
                .map(|&(l, c)| m.lookup_token(l, c).map(|t| t.get_src_line()))
                .collect()
        },
    )
}

fn cold_srcmap(_: &Arc<[u8]>, text: &str, at: &[(u32, u32)]) -> Found {
    cold(
        || srcmap_sourcemap::SourceMap::from_json(text).map_err(|e| e.to_string()),
        |m| {
            at.iter()
                .map(|&(l, c)| m.original_position_for(l, c).map(|o| o.line))
                .collect()
        },
    )
}

fn cold_srcmap_lazy(_: &Arc<[u8]>, text: &str, at: &[(u32, u32)]) -> Found {
    cold(
        || srcmap_sourcemap::LazySourceMap::from_json_fast(text).map_err(|e| e.to_string()),
        |m| {
            at.iter()
                .map(|&(l, c)| m.original_position_for(l, c).map(|o| o.line))
                .collect()
        },
    )
}

fn cold_oxc(_: &Arc<[u8]>, text: &str, at: &[(u32, u32)]) -> Found {
    cold(
        || oxc_sourcemap::SourceMap::from_json_string(text).map_err(|e| e.to_string()),
        |m| {
            let table = m.generate_lookup_table();
            at.iter()
                .map(|&(l, c)| m.lookup_token(&table, l, c).map(|t| t.get_src_line()))
                .collect()
        },
    )
}

const READERS: [(&str, Cold); 6] = [
    ("ours, 1 core", cold_ours_1),
    ("ours, all cores", cold_ours_n),
    ("sourcemap 9", cold_sm9),
    ("srcmap-sourcemap (eager)", cold_srcmap),
    (
        "srcmap-sourcemap (LazySourceMap::from_json_fast)",
        cold_srcmap_lazy,
    ),
    ("oxc_sourcemap 9", cold_oxc),
];

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects cases by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let threads = rayon::current_num_threads();
    println!("# Source-map benchmark ({threads} rayon threads; medians)\n");
    println!("| map | row | time | vs ours (1 core) |");
    println!("|---|---|---:|---:|");
    for case in cases(filter.as_deref()) {
        let bytes: Arc<[u8]> = std::fs::read(&case.map).unwrap().into();
        let text = std::str::from_utf8(&bytes).unwrap().to_owned();
        let frames = case.frames.clone();
        let mr = mappings_range(&bytes);
        let runs = 31;
        let mappings: &[u8] = mr.clone().map_or(&[][..], |r| &bytes[r]);
        // Each reader once: the ones that cannot read this map are left out (and say why),
        // the others must find the line ours finds.
        let one = &frames[..1];
        let ours = cold_ours_1(&bytes, &text, one).unwrap().1;
        let ours_all = cold_ours_1(&bytes, &text, &frames).unwrap().1;
        let mut readers: Vec<(&str, Cold)> = Vec::new();
        let mut cannot: Vec<(&str, String)> = Vec::new();
        for (name, f) in READERS {
            match f(&bytes, &text, one) {
                Ok((_, line)) if line == ours => readers.push((name, f)),
                Ok((_, line)) => {
                    cannot.push((name, format!("answers line {line:?}, ours {ours:?}")))
                }
                // The first words of why (some quote the whole `mappings`).
                Err(e) => cannot.push((name, e.chars().take(72).collect())),
            }
        }
        // The rows run round-robin (one run of each per round), so that a slow stretch of a
        // shared machine hits every row alike; each row's figure is its median.
        let timed = |f: &mut dyn FnMut()| {
            let t = Instant::now();
            f();
            t.elapsed()
        };
        // `mappings` up to the end of the first frame's line: what a reader that indexes only
        // the lines asked for would pass over for one frame (issue #40's next step).
        let upto = memchr::memchr_iter(b';', mappings)
            .nth(frames[0].0 as usize)
            .unwrap_or(mappings.len());
        let prefix = &mappings[..upto];
        let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); 2 * readers.len() + 4];
        for round in 0..=runs {
            let mut row = Vec::new();
            for (_, f) in &readers {
                row.push(f(&bytes, &text, one).unwrap().0);
            }
            row.push(timed(&mut || {
                black_box(mappings.iter().map(|&b| u64::from(b)).sum::<u64>());
            }));
            row.push(timed(&mut || {
                black_box(bytes.iter().map(|&b| u64::from(b)).sum::<u64>());
            }));
            row.push(timed(&mut || {
                black_box(
                    LineIndex::build(mappings, usize::MAX, usize::MAX)
                        .map(|i| i.line_count())
                        .ok(),
                );
            }));
            // The whole trace, every reader.
            for (_, f) in &readers {
                row.push(f(&bytes, &text, &frames).unwrap().0);
            }
            row.push(timed(&mut || {
                black_box(
                    LineIndex::build(prefix, usize::MAX, usize::MAX)
                        .map(|i| i.line_count())
                        .ok(),
                );
            }));
            if round > 0 {
                // Round 0 warms up.
                for (k, d) in row.into_iter().enumerate() {
                    samples[k].push(d);
                }
            }
        }
        let stats: Vec<(Duration, Duration)> = samples
            .into_iter()
            .map(|mut v| {
                v.sort();
                (v[v.len() / 2], v[0])
            })
            .collect();
        let base = ms(stats[0].0);

        // Warm: every frame of the trace looked up again, many times, on parsed maps.
        let reps = (400_000 / frames.len().max(1)).max(1);
        let lookups = (reps * frames.len()) as f64;
        // Ours read as the cold rows read it (lazily), its trace looked up once.
        let ours_map = SourceMap::parse_lazy(Blob::from(bytes.clone()), &Serial).unwrap();
        for &(l, c) in &frames {
            black_box(ours_map.lookup(l, c).ok());
        }
        let sm9_map = match sourcemap::decode_slice(&bytes) {
            Ok(sourcemap::DecodedMap::Regular(m)) => Some(m),
            Ok(sourcemap::DecodedMap::Index(i)) => i.flatten().ok(),
            _ => None,
        };
        let srcmap_map = srcmap_sourcemap::SourceMap::from_json(&text).ok();
        let lazy_map = srcmap_sourcemap::LazySourceMap::from_json_fast(&text).ok();
        let oxc_map = oxc_sourcemap::SourceMap::from_json_string(&text).ok();
        let oxc_table = oxc_map.as_ref().map(|m| m.generate_lookup_table());
        type Warm<'a> = (&'a str, Box<dyn FnMut(u32, u32) + 'a>);
        let mut warm_rows: Vec<Warm<'_>> = vec![(
            "ours",
            Box::new(|l, c| {
                black_box(ours_map.lookup(l, c).unwrap().and_then(|t| t.src_line()));
            }),
        )];
        if let Some(m) = &sm9_map {
            warm_rows.push((
                "sourcemap 9",
                Box::new(move |l, c| {
                    black_box(m.lookup_token(l, c).map(|t| t.get_src_line()));
                }),
            ));
        }
        if let Some(m) = &srcmap_map {
            warm_rows.push((
                "srcmap-sourcemap (eager)",
                Box::new(move |l, c| {
                    black_box(m.original_position_for(l, c).map(|o| o.line));
                }),
            ));
        }
        if let Some(m) = &lazy_map {
            warm_rows.push((
                "srcmap-sourcemap (lazy)",
                Box::new(move |l, c| {
                    black_box(m.original_position_for(l, c).map(|o| o.line));
                }),
            ));
        }
        if let (Some(m), Some(t)) = (&oxc_map, &oxc_table) {
            warm_rows.push((
                "oxc_sourcemap 9",
                Box::new(move |l, c| {
                    black_box(m.lookup_token(t, l, c).map(|t| t.get_src_line()));
                }),
            ));
        }
        let mut wsamples: Vec<Vec<f64>> = vec![Vec::new(); warm_rows.len()];
        for round in 0..10 {
            for (k, (_, f)) in warm_rows.iter_mut().enumerate() {
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
        let warm_names: Vec<&str> = warm_rows.iter().map(|(n, _)| *n).collect();
        drop(warm_rows);

        let mb = |d: Duration, n: usize| n as f64 / 1e6 / d.as_secs_f64();
        println!(
            "| {} | _size: {:.1} MB file, {:.1} MB mappings; {} frames_ | | |",
            case.name,
            bytes.len() as f64 / 1e6,
            mappings.len() as f64 / 1e6,
            frames.len()
        );
        for (k, (name, _)) in readers.iter().enumerate() {
            let name = name.replace("all cores", &format!("{threads} cores"));
            let (med, fastest) = stats[k];
            println!(
                "| {} | cold: {name} | {:.3} ms (fastest {:.3}) | {:.2}× |",
                case.name,
                ms(med),
                ms(fastest),
                ms(med) / base
            );
        }
        for (name, why) in &cannot {
            println!("| {} | cold: {name} | n/a: {why} | |", case.name);
        }
        let k = readers.len();
        let row = |name: &str, d: Duration| {
            println!(
                "| {} | {name} | {:.3} ms | {:.2}× |",
                case.name,
                ms(d),
                ms(d) / base
            );
        };
        row("floor: one pass over mappings", stats[k].0);
        row("floor: one pass over the file", stats[k + 1].0);
        if LineIndex::build(mappings, usize::MAX, usize::MAX).is_ok() {
            row(
                &format!(
                    "our index pass alone, 1 core ({:.0} MB/s)",
                    mb(stats[k + 2].0, mappings.len())
                ),
                stats[k + 2].0,
            );
            row(
                &format!(
                    "our index pass up to the first frame's line alone ({:.1}% of mappings)",
                    100.0 * prefix.len() as f64 / mappings.len().max(1) as f64
                ),
                stats[k + 3 + readers.len()].0,
            );
        }
        for (name, ns) in warm_names.iter().zip(&wmed) {
            println!(
                "| {} | warm: {name} | {ns:.1} ns/look-up | {:.2}× |",
                case.name,
                ns / wmed[0]
            );
        }
        // The whole trace in this process: bytes → parsed → every frame looked up (process
        // start and file read left out: the same for every Rust reader).
        let whole_base = ms(stats[k + 3].0);
        let mut whole_others = f64::INFINITY;
        for (i, (name, f)) in readers.iter().enumerate() {
            let lines = f(&bytes, &text, &frames).unwrap().1;
            let same = lines.iter().zip(&ours_all).filter(|(a, b)| a == b).count();
            let t = ms(stats[k + 3 + i].0);
            if !name.starts_with("ours") {
                whole_others = whole_others.min(t);
            }
            let name = name.replace("all cores", &format!("{threads} cores"));
            println!(
                "| {} | whole trace, in process: {name} (our line on {same} of {} frames) | {t:.3} ms | {:.2}× |",
                case.name,
                frames.len(),
                t / whole_base
            );
        }
        // Issue #40's cold targets: the fastest other reader over ours.
        let others: Vec<f64> = readers
            .iter()
            .enumerate()
            .filter(|(_, (n, _))| !n.starts_with("ours"))
            .map(|(i, _)| ms(stats[i].0))
            .collect();
        let fastest_other = others.iter().copied().fold(f64::INFINITY, f64::min);
        let ours_n = readers
            .iter()
            .position(|(n, _)| *n == "ours, all cores")
            .map_or(f64::NAN, |i| ms(stats[i].0));
        println!(
            "| {} | **#40**: fastest other / ours (1 core) = {:.2}× (target ≥ 1.5×), / ours ({threads} cores) = {:.2}× (target ≥ 2×); ours / one pass over the file = {:.1}× (target ≤ 3×); whole trace in process, fastest other / ours (1 core) = {:.2}× (target ≥ 3×) | | |",
            case.name,
            fastest_other / base,
            fastest_other / ours_n,
            base / ms(stats[k + 1].0),
            whole_others / whole_base
        );
    }
    whole_process(filter.as_deref());
    pool_wake_up();
}

/// A whole trace resolved through one map by node 20 with `@jridgewell/trace-mapping`, the
/// fastest JavaScript reader: the map parsed, every frame with a position looked up.
const RESOLVE: &str = r#"
import { readFileSync } from 'node:fs';
import { AnyMap, TraceMap, originalPositionFor } from '@jridgewell/trace-mapping';
const [, , mapPath, tracePath] = process.argv;
const json = JSON.parse(readFileSync(mapPath, 'utf8'));
const map = json.sections ? new AnyMap(json) : new TraceMap(json);
const out = [];
for (const line of readFileSync(tracePath, 'utf8').split('\n')) {
  const m = /:(\d+):(\d+)\)?\s*$/.exec(line);
  if (!m) continue;
  const o = originalPositionFor(map, { line: +m[1], column: +m[2] - 1 });
  out.push([o.source, o.line, o.column, o.name]);
}
console.log(JSON.stringify(out));
"#;

/// `@jridgewell/trace-mapping` installed under `target/bench-node/` (as the profile bench
/// installs it), and the script.
fn trace_mapping() -> PathBuf {
    let dir = common::npm_install(&[(
        "@jridgewell/trace-mapping",
        "@jridgewell/trace-mapping@0.3.31",
    )]);
    let script = dir.join("resolve.mjs");
    std::fs::write(&script, RESOLVE).unwrap();
    script
}

/// Issue #40's whole-process rows: `symscope symbolicate` with a whole trace against node
/// with trace-mapping, each a new process, medians of 9 alternating rounds; the corpus
/// traces, and a trace of the 30 spread positions on monaco's and babylon.js's maps.
fn whole_process(filter: Option<&str>) {
    let script = trace_mapping();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js");
    let tmp = std::env::temp_dir().join(format!("symscope-bench-sm-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut runs: Vec<(&str, PathBuf, PathBuf)> = vec![
        (
            "pdf.worker.mjs.map",
            root.join("pdfjs-dist-worker/pdf.worker.mjs.map"),
            root.join("pdfjs-dist-worker/trace.txt"),
        ),
        (
            "three.min.js.map",
            root.join("three-esbuild/three.min.js.map"),
            root.join("three-esbuild/trace.txt"),
        ),
        (
            "vendor.min.js.map (index map)",
            root.join("index-map-rxjs-lodash/vendor.min.js.map"),
            root.join("index-map-rxjs-lodash/trace.txt"),
        ),
    ];
    for case in cases(filter)
        .into_iter()
        .filter(|c| c.name.contains('(') && !c.name.contains("index") && !c.name.contains("Hermes"))
    {
        let bundle = case
            .map
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".map")
            .to_owned();
        let mut trace = String::from("Error: bench\n");
        for (l, c) in &case.frames {
            trace.push_str(&format!("    at f ({bundle}:{}:{})\n", l + 1, c + 1));
        }
        let path = tmp.join(format!("{bundle}.trace.txt"));
        std::fs::write(&path, trace).unwrap();
        runs.push((case.name, case.map.clone(), path));
    }
    println!(
        "\n# Whole process, a whole trace: symscope against node + trace-mapping (medians of 9)\n"
    );
    println!("| map | trace frames | symscope symbolicate | node + trace-mapping | node / ours |");
    println!("|---|---:|---:|---:|---:|");
    let exe = Path::new(env!("CARGO_BIN_EXE_symscope"));
    for (name, map, trace) in runs
        .into_iter()
        .filter(|(n, _, _)| filter.is_none_or(|f| n.contains(f)))
    {
        let frames = std::fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .filter(|l| l.trim_start().starts_with("at "))
            .count();
        let (mut ours, mut node) = (Vec::new(), Vec::new());
        for _ in 0..9 {
            let mut cmd = std::process::Command::new(exe);
            cmd.args(["symbolicate", "--format", "json", "-s"])
                .arg(&map)
                .arg(&trace);
            ours.push(common::run_exact(&cmd).0);
            let mut cmd = std::process::Command::new("node");
            cmd.arg(&script).arg(&map).arg(&trace);
            node.push(common::run_exact(&cmd).0);
        }
        ours.sort();
        node.sort();
        let (o, n) = (ms(ours[4]), ms(node[4]));
        println!(
            "| {name} | {frames} | {o:.1} ms | {n:.1} ms | {:.1}× (target ≥ 3×) |",
            n / o
        );
    }
    std::fs::remove_dir_all(&tmp).ok();
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
