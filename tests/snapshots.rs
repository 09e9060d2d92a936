//! PNG snapshots of the real window (wgpu; Mesa's lavapipe where there is no GPU). They are
//! the README's screenshots in `screenshots/`: a change that alters what a user sees fails
//! here until the pictures are looked at and renewed with `UPDATE_SNAPSHOTS=1`.
//!
//! Run with `cargo test --features snapshots --test snapshots` (`.ci/run` does).

mod common;

use common::harness::*;
use egui_kittest::SnapshotOptions;
use symscope::app::JobTiming;
use symscope::jobs::{JobState, Span};

fn screenshots() -> SnapshotOptions {
    // A handful of pixels may differ between runs (one did, once in four, on the inspector's
    // antialiased colour edges); a real change moves thousands.
    SnapshotOptions::new()
        .output_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("screenshots"))
        .max_failed_pixels(16)
}

/// The app in a window 1280 wide and `height` high, after its first frame.
fn window(height: f32) -> Harness<'static, AppState> {
    let mut h = app_sized(1280.0, height);
    h.step();
    h
}

/// The app with three.js's crash, map and bundle loaded and resolved, frame 1 selected.
fn loaded_app() -> Harness<'static, AppState> {
    let mut h = window(760.0);
    for f in [
        "three-esbuild/trace.txt",
        "three-esbuild/three.min.js.map",
        "three-esbuild/three.min.js",
    ] {
        let path = js(f);
        let bytes = std::fs::read(&path).unwrap();
        // A stable path in the pictures, whatever the checkout's location.
        h.state_mut()
            .add_file(PathBuf::from(f.rsplit('/').next().unwrap()), bytes);
    }
    settle(&mut h);
    h.run_steps(3);
    h.get_all_by_label_contains(
        "expandByObject  ../node_modules/three/build/three.core.js:16287:9",
    )
    .next()
    .unwrap()
    .click();
    h.run_steps(3);
    h
}

/// Runs frames until every job is done and a log is symbolicated.
fn settle(h: &mut Harness<'static, AppState>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        h.step();
        if h.state().jobs.running().is_empty() && !h.state().results.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "the app did not settle");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn main_window() {
    let mut h = loaded_app();
    // The frame's line is centred in the source once it is laid out.
    h.run_steps(3);
    h.snapshot_options("main_window", &screenshots());
}

#[test]
fn segment_inspector() {
    let mut h = loaded_app();
    h.get_by_label("Inspect segment").click();
    h.run_steps(5);
    // The map doctor's report on the map and its bundle, one kind opened.
    h.get_by_label("Check map").click();
    settle(&mut h);
    h.run_steps(3);
    h.get_by_label_contains("info  generated columns no segment maps: ")
        .click();
    h.run_steps(5);
    h.snapshot_options("segment_inspector", &screenshots());
}

#[test]
fn timing_panel() {
    let mut h = loaded_app();
    // Real timings change from run to run; the picture shows fixed, typical ones.
    let span = |phase: &str, start: f64, end: f64| Span {
        phase: phase.to_owned(),
        start_ns: (start * 1e6) as u64,
        end_ns: (end * 1e6) as u64,
    };
    let timing = |name: &str, spans: Vec<Span>| JobTiming {
        name: name.to_owned(),
        end_ns: 0,
        elapsed: Duration::from_nanos(spans.last().map_or(0, |s| s.end_ns)),
        spans,
        state: JobState::Done,
    };
    h.state_mut().timings = vec![
        timing(
            "load trace.txt",
            vec![span("detect", 0.0, 0.05), span("parse", 0.05, 0.09)],
        ),
        timing(
            "load three.min.js",
            vec![
                span("detect", 0.0, 0.3),
                span("scan", 0.3, 0.4),
                span("line starts", 0.4, 0.9),
            ],
        ),
        timing(
            "load three.min.js.map",
            vec![span("detect", 0.0, 0.2), span("parse + index", 0.2, 2.4)],
        ),
        timing("symbolicate trace.txt", vec![span("look-up", 0.0, 1.1)]),
    ];
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Show timings").click();
    h.run_steps(4);
    h.snapshot_options("timing_panel", &screenshots());
}

/// At 900×600 with the inspector and the timings open: the stack list keeps its room.
#[test]
fn small_window_tiles() {
    let mut h = app_sized(900.0, 600.0);
    h.step();
    for f in ["three-esbuild/trace.txt", "three-esbuild/three.min.js.map"] {
        let path = js(f);
        let bytes = std::fs::read(&path).unwrap();
        h.state_mut()
            .add_file(PathBuf::from(f.rsplit('/').next().unwrap()), bytes);
    }
    settle(&mut h);
    h.run_steps(3);
    h.get_all_by_label_contains(
        "expandByObject  ../node_modules/three/build/three.core.js:16287:9",
    )
    .next()
    .unwrap()
    .click();
    h.run_steps(3);
    h.get_by_label("Inspect segment").click();
    settle(&mut h);
    h.get_by_label("View").click();
    h.run_steps(2);
    h.get_by_label("Show timings").click();
    settle(&mut h);
    h.run_steps(3);
    settle(&mut h);
    // Real timings change from run to run: none are shown.
    h.state_mut().timings.clear();
    h.run_steps(5);
    h.snapshot_options("small_window_tiles", &screenshots());
}

/// An obfuscated Java crash with `Caused by:` chains and its ProGuard mapping, deobfuscated;
/// the frame with three inlined methods selected.
#[test]
fn java_crash() {
    let mut h = window(760.0);
    for f in ["obf-config.txt", "shop-mapping.txt"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/java/shop")
            .join(f);
        h.state_mut()
            .add_file(PathBuf::from(f), std::fs::read(&path).unwrap());
    }
    settle(&mut h);
    h.run_steps(3);
    h.get_by_label_contains("ConfigLoader.parseValue").click();
    h.run_steps(3);
    h.snapshot_options("java_crash", &screenshots());
}

/// A macOS minidump with the crash's dSYM (added as its bundle folder): the crashed thread's
/// inline chain resolved, the module coverage report, and the frame detail with the address
/// and module offset.
#[test]
fn native_minidump() {
    let mut h = window(760.0);
    let macos = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/native/sentry-symbolic/fixtures/macos");
    let mut c = symscope::app::Commands::default();
    c.send(symscope::app::InputCommand::AddPaths(vec![
        macos.join("crash.dSYM"),
        macos.join("mini.dmp"),
    ]));
    h.state_mut().apply(c);
    settle(&mut h);
    h.run_steps(3);
    h.get_by_label_contains("(anonymous namespace)::crash()")
        .click();
    h.run_steps(3);
    h.snapshot_options("native_minidump", &screenshots());
}

/// A folder of crash logs (three variants of each corpus crash, `common::crashgen`) dropped
/// with their symbol files: the Buckets view filtered to Java exceptions, a bucket selected
/// with a note and one of its logs open in the stack list, and two of its logs compared side
/// by side, one of them without a frame.
#[test]
fn buckets_and_compare() {
    use common::crashgen::{self, SOURCES, SYMBOLS};
    let dir = common::temp_dir("snapshot-buckets");
    let crashes = dir.join("crashes");
    std::fs::create_dir_all(&crashes).unwrap();
    let logs = crashgen::generate(&crashes, SOURCES.len() * 3, 5);
    // The tree crash's third variant without its second frame: it shows in the comparison.
    let tree = SOURCES.iter().position(|s| s.id == "java-tree").unwrap();
    let (third, _) = &logs[tree + 2 * SOURCES.len()];
    let text = std::fs::read_to_string(third).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(crashgen::second_java_frame(&lines));
    std::fs::write(third, lines.join("\n") + "\n").unwrap();
    let mut h = window(860.0);
    let mut paths: Vec<PathBuf> = SYMBOLS
        .iter()
        .map(|s| crashgen::fixtures().join(s))
        .collect();
    paths.push(crashes.clone());
    let mut c = symscope::app::Commands::default();
    c.send(symscope::app::InputCommand::AddPaths(paths));
    h.state_mut().apply(c);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !(h.state().jobs.running().is_empty() && h.state().view.buckets.bucketed.is_some()) {
        h.step();
        assert!(Instant::now() < deadline, "the app did not settle");
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run_steps(3);
    let fingerprint = h
        .state()
        .view
        .buckets
        .bucketed
        .as_ref()
        .unwrap()
        .buckets
        .iter()
        .find(|b| b.title().contains("ArithmeticException"))
        .unwrap()
        .fingerprint
        .to_string();
    let mut c = symscope::app::Commands::default();
    c.send(symscope::app::BucketsCommand::SelectBucket(Some(
        fingerprint.clone(),
    )));
    c.send(symscope::app::BucketsCommand::SetBucketNote(
        fingerprint,
        "Tree.walk at depth 0: fixed in 2.3".to_owned(),
    ));
    c.send(symscope::app::BucketsCommand::SetBucketFilter(
        "java.lang".to_owned(),
    ));
    c.send(symscope::app::BucketsCommand::OpenCrashLog(
        logs[tree].0.clone(),
    ));
    h.state_mut().apply(c);
    settle(&mut h);
    h.run_steps(3);
    // The log opened in the Stacks tab; back to Buckets to pick two logs.
    tab(&h, "Buckets").click();
    h.run_steps(2);
    h.get_all_by_label("A").next().unwrap().click();
    h.run_steps(2);
    h.get_all_by_label("B").nth(2).unwrap().click();
    let deadline = Instant::now() + Duration::from_secs(60);
    while h.state().view.buckets.log_compare.is_none() {
        h.step();
        assert!(Instant::now() < deadline, "not compared");
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run_steps(5);
    h.snapshot_options("buckets_and_compare", &screenshots());
    std::fs::remove_dir_all(&dir).ok();
}

/// The app 760 high with `files` added, once every input is ready, no job runs and `ready`
/// holds.
fn loaded(files: &[PathBuf], ready: impl Fn(&AppState) -> bool) -> Harness<'static, AppState> {
    let mut h = window(760.0);
    for path in files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_owned();
        h.state_mut().add_file(PathBuf::from(name), bytes);
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        h.step();
        let s = h.state();
        if s.jobs.running().is_empty()
            && ready(s)
            && s.inputs.iter().all(|e| e.state == InputState::Ready)
        {
            break;
        }
        assert!(Instant::now() < deadline, "the app did not settle");
        std::thread::sleep(Duration::from_millis(5));
    }
    h
}

/// The app with the lodash workload's CPU profile (minified run) and the bundle's map,
/// names resolved.
fn profile_app() -> Harness<'static, AppState> {
    use symscope::app::ProfileCommand;
    let mut h = loaded(
        &[
            fixture("profiles/lodash-min.cpuprofile"),
            js("lodash-terser/lodash.min.js.map"),
        ],
        |s| !s.loaded_profiles().is_empty(),
    );
    h.run_steps(3);
    // The widest arrayAggregator bar, selected and in view with its neighbours.
    let (window, selected) = {
        let s = h.state();
        let p = s.profile(s.shown_profile().unwrap()).unwrap();
        let (_, bar) = widest_bar(s, "arrayAggregator");
        let pad = (bar.end - bar.start) as f64 * 3.0;
        (
            (bar.start as f64 - pad, bar.end as f64 + pad),
            symscope::app::Selected {
                function: p.functions.of_node(&p.resolved.profile, bar.id),
                node: Some(bar.id),
            },
        )
    };
    command(&mut h, ProfileCommand::ChartWindow(Some(window)));
    command(&mut h, ProfileCommand::Select(Some(selected)));
    h.run_steps(3);
    h
}

#[test]
fn profile_flame_chart() {
    let mut h = profile_app();
    h.snapshot_options("profile_flame_chart", &screenshots());
}

#[test]
fn profile_call_tree() {
    let mut h = profile_app();
    h.get_by_label("Bottom-up").click();
    h.run_steps(2);
    h.get_by_label("Self time").click();
    h.run_steps(3);
    // The heaviest function's callers, opened.
    h.get_all_by_label("▶").next().unwrap().click();
    h.run_steps(3);
    h.snapshot_options("profile_call_tree", &screenshots());
}

/// The Memory pane on the minified lodash run's heap snapshot with lodash's map: the Summary
/// by retained size, MapCache opened to its objects and one selected (its retainers below).
#[test]
fn memory_summary() {
    use symscope::app::MemoryCommand;
    let mut h = loaded(
        &[
            fixture("heap/after.heapsnapshot"),
            js("lodash-terser/lodash.min.js.map"),
        ],
        |s| {
            s.shown_heap()
                .is_some_and(|(_, heap)| heap.classes.iter().any(|c| c.name() == "MapCache"))
        },
    );
    let (_, heap) = h.state().shown_heap().unwrap();
    let class = heap
        .classes
        .iter()
        .find(|c| c.name() == "MapCache")
        .unwrap()
        .row
        .class;
    // Its largest object, as the list shows first.
    let first = heap
        .heap
        .objects_of(class, usize::MAX)
        .into_iter()
        .max_by_key(|&o| (heap.heap.retained_size(o), std::cmp::Reverse(o)))
        .unwrap();
    let mut commands = symscope::app::Commands::default();
    commands.send(MemoryCommand::Toggle(class));
    commands.send(MemoryCommand::Select(Some(first)));
    h.state_mut().apply(commands);
    h.run_steps(4);
    h.snapshot_options("memory_summary", &screenshots());
}

/// A WebAssembly crash (node's V8 stack: JavaScript → C++ module → JavaScript) with the
/// module's DWARF and the JavaScript's map: the inline chain of a wasm frame, the frame
/// detail with its module, function index and offset, and its source from a source folder.
#[test]
fn wasm_crash() {
    let dir = fixture("wasm");
    let mut h = loaded(
        &[
            dir.join("crash.v8.txt"),
            dir.join("crash.wasm"),
            dir.join("harness.min.js.map"),
        ],
        |s| !s.results.is_empty(),
    );
    let mut c = symscope::app::Commands::default();
    c.send(symscope::app::InputCommand::AddSourceRoot(dir.clone()));
    h.state_mut().apply(c);
    h.get_all_by_label_contains("game::Board<int>::check(int)")
        .next()
        .unwrap()
        .click();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !h
        .query_all_by_label_contains("report(static_cast<int>(value) * 10);")
        .any(|_| true)
    {
        h.step();
        assert!(Instant::now() < deadline, "the source did not show");
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run_steps(3);
    h.snapshot_options("wasm_crash", &screenshots());
}
