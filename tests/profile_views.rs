//! The profile pane's views (flame chart, call trees top-down and bottom-up, a time range)
//! on a real CPU profile, against an independent count: `lodash-min.views.json`, written by
//! `tests/fixtures/profiles/views.mjs` from the raw JSON with DevTools' rule, nothing of
//! Symscope's in it. Names are the recorded ones (no symbol files), so that the keys are V8's.

mod common;

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use symscope::engine::flame::{self, CallTree, Functions};
use symscope::engine::profile::{Place, ResolvedProfile, read_profiles, symbolicate_profile};
use symscope::engine::{Detected, Error};
use symscope::model::{Blob, NoProgress};
use symscope::symbolicate::SymbolSet;

fn dir() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/profiles"
    ))
}

fn resolved() -> Result<ResolvedProfile, Error> {
    let path = dir().join("lodash-min.cpuprofile");
    let file = Detected::new(
        path.display().to_string(),
        Blob::from(std::fs::read(&path).unwrap()),
    );
    let (label, profile) = read_profiles(&file)?.remove(0);
    symbolicate_profile(
        &label,
        Arc::new(profile),
        &SymbolSet::new(),
        &mut NoProgress,
    )
}

fn oracle() -> Value {
    serde_json::from_slice(&std::fs::read(dir().join("lodash-min.views.json")).unwrap()).unwrap()
}

/// A place's key as the oracle writes it: `functionName|url|lineNumber|columnNumber`.
fn key(p: &Place) -> String {
    format!(
        "{}|{}|{}|{}",
        p.function.as_deref().unwrap_or(""),
        p.file.as_deref().unwrap_or(""),
        p.line.map_or(-1, |l| i64::from(l) - 1),
        p.column.map_or(-1, i64::from)
    )
}

/// `expected` (the oracle's map of key → µs) equals `got`, key by key.
fn same(what: &str, expected: &Value, got: &HashMap<String, i64>) {
    let expected: HashMap<String, i64> = expected
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_i64().unwrap()))
        .collect();
    let got: HashMap<String, i64> = got
        .iter()
        .filter(|(_, v)| **v != 0)
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    for (k, v) in &expected {
        assert_eq!(got.get(k), Some(v), "{what}: {k}");
    }
    assert_eq!(got.len(), expected.len(), "{what}: functions");
}

/// The bottom-up tree's top level: each function's self and total time.
fn top_level(
    tree: &CallTree,
    functions: &Functions,
) -> (HashMap<String, i64>, HashMap<String, i64>) {
    let mut selfs = HashMap::new();
    let mut totals = HashMap::new();
    for &r in &tree.roots {
        let n = &tree.nodes[r as usize];
        let k = key(&functions.places[n.function as usize]);
        *selfs.entry(k.clone()).or_default() += n.self_us;
        *totals.entry(k).or_default() += n.total_us;
    }
    (selfs, totals)
}

#[test]
fn bottom_up_gives_each_functions_self_and_total_time() {
    let r = resolved().unwrap();
    let f = Functions::new(&r);
    let o = oracle();
    let (selfs, totals) = top_level(&flame::bottom_up(&r.profile, &f, None, false), &f);
    same("self", &o["whole"]["self"], &selfs);
    same("total", &o["whole"]["total"], &totals);
}

#[test]
fn a_time_range_counts_only_its_samples() {
    let r = resolved().unwrap();
    let f = Functions::new(&r);
    let o = oracle();
    let range = (
        o["range"][0].as_i64().unwrap(),
        o["range"][1].as_i64().unwrap(),
    );
    let (selfs, totals) = top_level(&flame::bottom_up(&r.profile, &f, Some(range), false), &f);
    same("self in range", &o["in_range"]["self"], &selfs);
    same("total in range", &o["in_range"]["total"], &totals);
    // Top-down: every call path's total.
    let tree = flame::top_down(&r.profile, &f, Some(range), false);
    let paths: HashMap<String, i64> = (0..tree.nodes.len() as u32)
        .map(|id| {
            let path: Vec<String> = tree
                .path(id)
                .iter()
                .map(|&p| key(&f.places[p as usize]))
                .collect();
            (path.join(" > "), tree.nodes[id as usize].total_us)
        })
        .collect();
    same("top-down paths in range", &o["in_range"]["paths"], &paths);
}

#[test]
fn the_flame_chart_spans_the_profile_and_its_self_times_add_up() {
    let r = resolved().unwrap();
    let f = Functions::new(&r);
    let o = oracle();
    let chart = flame::flame_chart(&r.profile);
    assert_eq!(chart.start, o["start"].as_i64().unwrap());
    assert_eq!(chart.end, o["end"].as_i64().unwrap());
    // Row 0 covers the profile from its first sample to the end of its last, no gap.
    let row0 = &chart.rows[0];
    assert!(row0.windows(2).all(|w| w[0].end == w[1].start));
    // Each bar's self length, summed by function, is the function's self time.
    let mut selfs: HashMap<String, i64> = HashMap::new();
    for (depth, row) in chart.rows.iter().enumerate() {
        for &s in row {
            let k = key(&f.places[f.of_node(&r.profile, s.id) as usize]);
            *selfs.entry(k).or_default() += chart.self_len(depth, s);
        }
    }
    same("flame chart self", &o["whole"]["self"], &selfs);
    // The flame graph of the top-down tree: its top row as wide as all the samples.
    let tree = flame::top_down(&r.profile, &f, None, false);
    let graph = tree.flame_graph();
    let width: i64 = graph.rows[0].iter().map(|s| s.end - s.start).sum();
    assert_eq!(
        width,
        o["whole"]["self"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_i64().unwrap())
            .sum::<i64>()
    );
}

#[test]
fn a_profile_compared_with_itself_changes_nothing() {
    let r = resolved().unwrap();
    let rows = flame::compare(&r, &r);
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|c| c.delta() == 0 && c.self_a == c.self_b));
}

/// A trace's duration events (`lodash-trace.json`, node's own trace of the workload): one
/// track per thread, named by its metadata, each event counted and timed as
/// `tracks.mjs` counts them from the raw JSON (`lodash-trace.tracks.json`), no two events of
/// a depth overlapping.
#[test]
fn a_traces_duration_events_make_a_track_per_thread() {
    let path = dir().join("lodash-trace.json");
    let file = Detected::new(
        path.display().to_string(),
        Blob::from(std::fs::read(&path).unwrap()),
    );
    let (profiles, tracks) = symscope::engine::profile::read_profile_file(&file).unwrap();
    assert_eq!(profiles.len(), 2);
    let tracks = tracks.expect("a trace has tracks");
    let oracle: Value =
        serde_json::from_slice(&std::fs::read(dir().join("lodash-trace.tracks.json")).unwrap())
            .unwrap();
    let threads = oracle["threads"].as_object().unwrap();
    assert_eq!(tracks.threads.len(), threads.len());
    for t in &tracks.threads {
        let want = &threads[&format!("{}:{}", t.pid, t.tid)];
        assert_eq!(t.name, want["name"].as_str().unwrap());
        let mut got: HashMap<&str, (u64, i64)> = HashMap::new();
        for e in &t.events {
            let g = got
                .entry(tracks.names[e.name as usize].as_str())
                .or_default();
            g.0 += 1;
            g.1 += e.end_us - e.start_us;
        }
        let want = want["events"].as_object().unwrap();
        assert_eq!(got.len(), want.len(), "thread {}", t.tid);
        for (name, w) in want {
            assert_eq!(
                got.get(name.as_str()),
                Some(&(
                    w["count"].as_u64().unwrap(),
                    w["total_us"].as_i64().unwrap()
                )),
                "thread {} {name}",
                t.tid
            );
        }
        let depths = t.events.iter().map(|e| e.depth).max().unwrap_or(0);
        for d in 0..=depths {
            let mut row: Vec<_> = t.events.iter().filter(|e| e.depth == d).collect();
            row.sort_by_key(|e| e.start_us);
            assert!(
                row.windows(2).all(|w| w[0].end_us <= w[1].start_us),
                "depth {d}"
            );
        }
    }
    assert!(tracks.warnings.is_empty(), "{:?}", tracks.warnings);
}

/// Library frames hidden (V8's `node:internal` modules here, as the stack list folds them):
/// no library function is left in either tree beside others (a path of library code alone
/// keeps its outermost), not one sample's time is lost, and each function shown keeps at
/// least its own self time (the hidden ones' goes to their callers).
#[test]
fn hidden_library_frames_give_their_time_to_their_callers() {
    let r = resolved().unwrap();
    let f = Functions::new(&r);
    let library: Vec<u32> = (0..f.places.len() as u32)
        .filter(|&p| f.library[p as usize])
        .collect();
    assert!(
        library.iter().any(|&p| f.places[p as usize]
            .file
            .as_deref()
            .is_some_and(|file| file.starts_with("node:internal"))),
        "node's own modules are library code"
    );
    let shown = flame::bottom_up(&r.profile, &f, None, false);
    for tree in [
        flame::bottom_up(&r.profile, &f, None, true),
        flame::top_down(&r.profile, &f, None, true),
    ] {
        assert_eq!(tree.total_us, shown.total_us);
        // A path of library code alone keeps its outermost function, on its own.
        assert!(
            tree.nodes
                .iter()
                .filter(|n| f.library[n.function as usize])
                .all(|n| n.parent.is_none() && n.children.is_empty())
        );
    }
    let hidden = flame::bottom_up(&r.profile, &f, None, true);
    let (self_shown, _) = top_level(&shown, &f);
    let (self_hidden, _) = top_level(&hidden, &f);
    for (k, v) in &self_shown {
        if let Some(h) = self_hidden.get(k) {
            assert!(h >= v, "{k}");
        }
    }
}

/// The flame chart with library frames hidden: each function's bars add up to the self time
/// the bottom-up tree gives it with library frames hidden (their time is their callers'), no
/// library bar is left beside user code, and the chart still spans the whole profile.
#[test]
fn the_flame_chart_hides_library_frames_as_the_trees_do() {
    let r = resolved().unwrap();
    let f = Functions::new(&r);
    let whole = flame::flame_chart(&r.profile);
    let chart = flame::flame_chart_without_library(&r.profile, &f);
    assert_eq!((chart.start, chart.end), (whole.start, whole.end));
    let covered = |c: &flame::Rows| c.rows[0].iter().map(|s| s.end - s.start).sum::<i64>();
    assert_eq!(covered(&chart), covered(&whole));
    let library = |s: flame::Span| f.library[f.of_node(&r.profile, s.id) as usize];
    assert!(whole.rows.iter().flatten().any(|&s| library(s)));
    let mut selfs: HashMap<String, i64> = HashMap::new();
    for (depth, row) in chart.rows.iter().enumerate() {
        for &s in row {
            // Library code only where a path holds nothing else: alone, at the top.
            assert!(
                !library(s)
                    || (depth == 0
                        && chart.rows.get(1).is_none_or(|next| {
                            next.iter().all(|c| c.end <= s.start || c.start >= s.end)
                        }))
            );
            let k = key(&f.places[f.of_node(&r.profile, s.id) as usize]);
            *selfs.entry(k).or_default() += chart.self_len(depth, s);
        }
    }
    let tree = flame::bottom_up(&r.profile, &f, None, true);
    let (expected, _) = top_level(&tree, &f);
    let expected: HashMap<String, i64> = expected.into_iter().filter(|(_, v)| *v > 0).collect();
    selfs.retain(|_, v| *v > 0);
    assert_eq!(selfs, expected);
}

/// The differential flame graph's changes: a profile against itself changes nothing; against
/// an empty one every path is new, its change its whole time; a time range of the profile
/// against the whole: each path's change is the time of its samples outside the range.
#[test]
fn path_deltas_are_the_change_of_each_call_path() {
    let r = resolved().unwrap();
    let f = Functions::new(&r);
    let whole = flame::top_down(&r.profile, &f, None, false);
    assert!(
        flame::path_deltas(&whole, &f, &whole, &f)
            .iter()
            .all(|&d| d == 0)
    );
    let empty = flame::CallTree::default();
    let new = flame::path_deltas(&empty, &f, &whole, &f);
    assert!(new.iter().zip(&whole.nodes).all(|(&d, n)| d >= n.total_us));
    let o = oracle();
    let range = (
        o["range"][0].as_i64().unwrap(),
        o["range"][1].as_i64().unwrap(),
    );
    let part = flame::top_down(&r.profile, &f, Some(range), false);
    let outside = flame::top_down(&r.profile, &f, Some((i64::MIN, range.0)), false);
    let after = flame::top_down(&r.profile, &f, Some((range.1, i64::MAX)), false);
    let deltas = flame::path_deltas(&part, &f, &whole, &f);
    // A path's time outside the range, from the two other trees.
    let total_on = |t: &flame::CallTree, path: &[u32]| -> i64 {
        (0..t.nodes.len() as u32)
            .filter(|&id| t.path(id) == path)
            .map(|id| t.nodes[id as usize].total_us)
            .sum()
    };
    // Paths alike by name, file name and line share their change; the others are checked.
    type Alike = Vec<(String, Option<String>, Option<u32>)>;
    let alike = |path: &[u32]| -> Alike {
        path.iter()
            .map(|&p| {
                let pl = &f.places[p as usize];
                let file = pl
                    .file
                    .as_deref()
                    .map(|x| x.rsplit('/').next().unwrap_or(x).to_owned());
                (f.name(p).to_owned(), file, pl.line)
            })
            .collect()
    };
    let mut count: HashMap<Alike, usize> = HashMap::new();
    for id in 0..whole.nodes.len() as u32 {
        *count.entry(alike(&whole.path(id))).or_default() += 1;
    }
    let mut checked = 0;
    for (id, d) in deltas.iter().enumerate() {
        let path = whole.path(id as u32);
        if count[&alike(&path)] > 1 {
            continue;
        }
        assert_eq!(
            *d,
            total_on(&outside, &path) + total_on(&after, &path),
            "{path:?}"
        );
        checked += 1;
    }
    assert!(checked > whole.nodes.len() / 2, "{checked}");
}

/// The CLI's JSON carries the same tracks: per thread, each event name's count and total
/// duration as `tracks.mjs` counts them from the raw JSON.
#[test]
fn the_cli_json_carries_a_traces_tracks() {
    let trace = dir().join("lodash-trace.json");
    let doc = common::json_of(&common::symscope(&[
        "profile",
        "--format",
        "json",
        common::arg(&trace),
    ]));
    let oracle: Value =
        serde_json::from_slice(&std::fs::read(dir().join("lodash-trace.tracks.json")).unwrap())
            .unwrap();
    let threads = oracle["threads"].as_object().unwrap();
    let tracks = doc["tracks"].as_array().unwrap();
    assert_eq!(tracks.len(), threads.len());
    for t in tracks {
        let key = format!("{}:{}", t["pid"], t["tid"]);
        let want = &threads[&key];
        assert_eq!(t["thread"], want["name"], "{key}");
        let mut got: HashMap<String, (u64, i64)> = HashMap::new();
        for e in t["events"].as_array().unwrap() {
            let g = got
                .entry(e["name"].as_str().unwrap().to_owned())
                .or_default();
            g.0 += 1;
            g.1 += (e["duration_ms"].as_f64().unwrap() * 1e3).round() as i64;
        }
        let want = want["events"].as_object().unwrap();
        assert_eq!(got.len(), want.len(), "{key}");
        for (name, w) in want {
            let expected = (
                w["count"].as_u64().unwrap(),
                w["total_us"].as_i64().unwrap(),
            );
            assert_eq!(got.get(name), Some(&expected), "{key} {name}");
        }
    }
}
