//! A workspace save killed at a random moment (SIGKILL, 100 times) never leaves the
//! workspace file missing, empty or corrupt: it is always one of the versions written in
//! full (issue #20, part 6), and the next open removes the temporary files the killed saves
//! left.
//!
//! The saving process is this test binary itself, started again with `SYMSCOPE_SAVER` set:
//! [`saver_child`] then saves growing versions of a workspace in a loop until it is killed.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use symscope::model::FileKind;
use symscope::workspace::{self, Input, Note, Workspace};

/// Version `n` of the document: `n` notes and inputs, so every version differs and a
/// torn write would not parse or would not be any version.
fn version(n: usize) -> Workspace {
    let mut ws = Workspace::default();
    for i in 0..n {
        ws.inputs.push(Input {
            path: format!("logs/crash-{i}.txt"),
            kind: FileKind::Log,
            size: i as u64,
            hash: format!("xxh3:{i:016x}"),
            ..Input::default()
        });
        ws.notes.push(Note {
            input: format!("logs/crash-{i}.txt"),
            stack: i,
            frame: Some(i),
            text: "a note long enough to make each save take a while ".repeat(20),
        });
    }
    ws
}

/// Not a test of its own: the saving child process (does nothing unless started by
/// [`a_killed_save_never_corrupts_the_workspace`]).
#[test]
fn saver_child() {
    let Some(path) = std::env::var_os("SYMSCOPE_SAVER") else {
        return;
    };
    let path = Path::new(&path);
    let start: usize = std::env::var("SYMSCOPE_SAVER_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for n in start.. {
        workspace::save(path, &version(n % 400 + 1)).unwrap();
    }
}

#[test]
fn a_killed_save_never_corrupts_the_workspace() {
    let dir = common::temp_dir("kill-save");
    let file = dir.join("triage.ron");
    workspace::save(&file, &version(1)).unwrap();
    let exe = std::env::current_exe().unwrap();
    // A fixed-seed generator: the kill moments vary, the run repeats.
    let mut seed: u64 = 0x5EED_1234_ABCD_0001;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        seed >> 33
    };
    let mut versions_seen = std::collections::BTreeSet::new();
    for round in 0..100 {
        let mut child = Command::new(&exe)
            .args(["--exact", "saver_child", "--nocapture", "--test-threads=1"])
            .env("SYMSCOPE_SAVER", &file)
            .env("SYMSCOPE_SAVER_FROM", (round * 7).to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Somewhere between the process's start and a few dozen saves.
        let wait = Duration::from_micros(2_000 + next() % 60_000);
        let started = Instant::now();
        while started.elapsed() < wait {
            std::thread::sleep(Duration::from_micros(500));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("round {round}: the workspace is missing: {e}"));
        assert!(!text.trim().is_empty(), "round {round}: empty workspace");
        let ws = workspace::parse(&text, &file)
            .unwrap_or_else(|e| panic!("round {round}: corrupt workspace: {e}"));
        let n = ws.inputs.len();
        assert_eq!(ws, version(n), "round {round}: not a whole version");
        versions_seen.insert(n);
    }
    // The kills landed at different moments (not all before the first save).
    assert!(versions_seen.len() > 10, "{versions_seen:?}");
    // A save killed mid-write leaves its temporary file; the next open removes those of a
    // killed writer (older than a save takes), never a live writer's (just written).
    let temporaries = |dir: &Path| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(".triage.ron.tmp-")
            })
            .collect()
    };
    let left = temporaries(&dir);
    let live = dir.join(".triage.ron.tmp-live");
    std::fs::write(&live, "a save under way").unwrap();
    let old = std::time::SystemTime::now() - workspace_stale() - Duration::from_secs(1);
    for path in &left {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    workspace::load(&file).unwrap();
    assert_eq!(temporaries(&dir), [live], "left before: {left:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// How old a temporary file must be to count as a killed writer's.
fn workspace_stale() -> Duration {
    symscope::engine::STALE_TEMPORARY
}
