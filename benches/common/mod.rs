//! Helpers the benchmarks share.
#![allow(dead_code, reason = "each benchmark uses some of the helpers")]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Median time of `runs` runs of `f`.
pub fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// The high-water mark of a process's resident memory, in bytes (0 once it is gone).
pub fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Runs `command` (its output going where it was set to) to its end, reading its memory's
/// high-water mark from `/proc` as it runs: wall time and peak memory in bytes.
pub fn run_measured(command: &mut std::process::Command) -> (Duration, u64) {
    let start = Instant::now();
    let mut child = command.spawn().expect("start the process");
    let mut peak = 0;
    loop {
        peak = peak.max(peak_rss(child.id()));
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "the process failed: {status}");
            return (start.elapsed(), peak);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs `command` to its end under GNU `time -f %M` (Debian's `time` package), its standard
/// output discarded: wall time and the process's exact peak resident memory in bytes (the
/// kernel's high-water mark as `wait4` reports it, where [`run_measured`] samples `/proc`
/// and can miss a short process's last milliseconds).
pub fn run_exact(command: &Command) -> (Duration, u64) {
    let start = Instant::now();
    let mut timed = Command::new("/usr/bin/time");
    for (k, v) in command.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    let out = timed
        .arg("-f")
        .arg("%M")
        .arg(command.get_program())
        .args(command.get_args())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("run the process under /usr/bin/time (Debian's time)");
    let took = start.elapsed();
    assert!(out.status.success(), "{command:?} failed");
    // `time` writes last; a program's own progress (carriage returns) may share the line.
    let err = String::from_utf8_lossy(&out.stderr);
    let tail = err.trim_end();
    let digits = tail.len() - tail.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let kb: u64 = tail[tail.len() - digits..]
        .parse()
        .expect("/usr/bin/time's peak memory");
    (took, kb * 1024)
}

/// A package's map and bundle, fetched with npm into `target/bench-maps/` when missing.
pub fn npm_map(package: &str, version: &str, map: &str, bundle: &str) -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/bench-maps")
        .join(format!("{package}-{version}"));
    let (map_path, bundle_path) = (dir.join(map), dir.join(bundle));
    if !map_path.exists() || !bundle_path.exists() {
        std::fs::create_dir_all(&dir).unwrap();
        let ok = Command::new("npm")
            .args(["pack", &format!("{package}@{version}")])
            .current_dir(&dir)
            .status()
            .expect("npm (Node.js) fetches the package")
            .success();
        assert!(ok, "npm pack {package}@{version} failed");
        let ok = Command::new("tar")
            .arg("xzf")
            .arg(format!("{package}-{version}.tgz"))
            .args([map, bundle])
            .current_dir(&dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "tar failed");
    }
    (map_path, bundle_path)
}

/// The npm packages `specs` (`name@version`, each with the folder name it installs as)
/// installed under `target/bench-node/` when missing; answers that folder.
pub fn npm_install(specs: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-node");
    for (package, spec) in specs {
        if dir.join("node_modules").join(package).exists() {
            continue;
        }
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("package.json"), "{\"private\":true}").unwrap();
        let ok = Command::new("npm")
            .args(["install", "--silent", spec])
            .current_dir(&dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "npm install {spec} failed");
    }
    dir
}

/// The recorded profile with `n` samples drawn from its own (fixed seed).
pub fn big_profile(n: usize, to: &Path) -> u64 {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(dir.join("profiles/lodash-min.cpuprofile")).unwrap())
            .unwrap();
    let recorded: Vec<u64> = doc["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .collect();
    let mut seed: u64 = 0x5EED_0036;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        seed >> 33
    };
    let samples: Vec<u64> = (0..n)
        .map(|_| recorded[next() as usize % recorded.len()])
        .collect();
    let deltas: Vec<u64> = (0..n).map(|_| 200 + next() % 100).collect();
    let end = doc["startTime"].as_u64().unwrap() + deltas.iter().sum::<u64>() + 300;
    doc["samples"] = samples.into();
    doc["timeDeltas"] = deltas.into();
    doc["endTime"] = end.into();
    for node in doc["nodes"].as_array_mut().unwrap() {
        node.as_object_mut().unwrap().remove("hitCount");
    }
    let text = serde_json::to_vec(&doc).unwrap();
    std::fs::write(to, &text).unwrap();
    text.len() as u64
}

const HEAP_GEN: &str = r#"
const v8 = require('node:v8');
class Position { constructor(x, y) { this.x = x; this.y = y; this.tag = 'p' + (x % 1000); } }
class Cell { constructor(i) { this.pos = new Position(i, i * 2); this.next = null; this.data = [i, i + 1, { v: i }]; } }
const roots = [];
let prev = null;
const n = Number(process.argv[3]);
for (let i = 0; i < n; i++) {
  const c = new Cell(i);
  if (i % 3 === 0) c.next = prev;
  if (i % 10 === 0) c.fn = () => c.pos.x + i;
  if (i % 50 === 0) c.map = new Map([[i, c.pos]]);
  prev = c;
  roots.push(c);
}
globalThis.keep = roots;
v8.writeHeapSnapshot(process.argv[2]);
"#;

/// A V8 heap snapshot of about 500 MB in `dir` (a generated object graph: classes,
/// closures, arrays, maps, strings), written by node when missing.
pub fn big_heap_snapshot(dir: &Path) -> PathBuf {
    let path = dir.join("big.heapsnapshot");
    if !path.exists() {
        std::fs::write(dir.join("gen.cjs"), HEAP_GEN).unwrap();
        let ok = Command::new("node")
            .arg("--max-old-space-size=8000")
            .arg(dir.join("gen.cjs"))
            .arg(&path)
            .arg("1000000")
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "node could not write the snapshot");
    }
    path
}
