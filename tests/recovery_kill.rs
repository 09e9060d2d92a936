//! Work is never lost: a Symscope killed with SIGKILL while a workspace it opened has
//! unsaved changes leaves them in a recovery file in the user's data folder (never in the
//! user's file), and the next launch offers them back.
//!
//! Both Symscopes are this test binary started again (the real app under kittest, each in a
//! process of its own with its own XDG folders): [`recovery_child`] as `work` makes a change
//! and waits to be killed; as `restore` it is the next launch, which restores the work.

mod common;

use common::harness::*;
use std::io::BufRead as _;
use std::process::{Command, Stdio};
use symscope::model::FileKind;

const NOTE: &str = "the null comes from an unloaded mesh";

/// Not a test of its own: the killed app and the next launch (does nothing unless started
/// by [`a_killed_app_offers_its_unsaved_work_back`]).
#[test]
fn recovery_child() {
    let (Some(mode), Some(ws)) = (
        std::env::var_os("SYMSCOPE_RECOVERY_MODE"),
        std::env::var_os("SYMSCOPE_RECOVERY_WS"),
    ) else {
        return;
    };
    let ws = PathBuf::from(ws);
    let mut h = app();
    h.state_mut().start(std::slice::from_ref(&ws));
    let data = symscope::workspace::recovery::recovery_dir().unwrap();
    assert_eq!(h.state().recovery_dir.as_deref(), Some(data.as_path()));
    if mode == "work" {
        settle(&mut h, |h| has_label(h, "16222:39"));
        h.get_all_by_label_contains(
            "expandByObject  ../node_modules/three/build/three.core.js:16222:39",
        )
        .next()
        .unwrap()
        .click();
        h.run_steps(3);
        h.get_by_label("Note on this frame").click();
        h.run_steps(1);
        h.get_by_label("Note on this frame").type_text(NOTE);
        h.run_steps(3);
        assert!(h.state().unsaved());
        // Until the recovery file holds the note.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            h.step();
            let written = std::fs::read_dir(&data)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "ron"))
                .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(NOTE)));
            if written {
                break;
            }
            assert!(Instant::now() < deadline, "no recovery file");
            std::thread::sleep(Duration::from_millis(20));
        }
        println!("RECOVERY-WRITTEN");
        // Working on until killed.
        loop {
            h.step();
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // The next launch: the offer, restored.
    h.run_steps(3);
    assert!(has_label(&h, "Restore unsaved work?"));
    assert!(has_label(&h, &ws.display().to_string()));
    h.get_by_label("Restore").click();
    settle(&mut h, |h| has_label(h, &format!("[note] {NOTE}")));
    let notes: Vec<&str> = h
        .state()
        .workspace
        .notes
        .iter()
        .map(|n| n.text.as_str())
        .collect();
    assert_eq!(notes, [NOTE]);
    // Unsaved changes to the user's own file, which is untouched.
    assert_eq!(h.state().workspace_path.as_deref(), Some(ws.as_path()));
    assert!(h.state().unsaved());
    assert!(h.state().window_title().contains('•'));
    assert!(!has_label(&h, "Restore unsaved work?"));
    // The killed session's files are gone; this session keeps its own.
    h.run_steps(3);
    assert!(symscope::workspace::recovery::orphans(&data).is_empty());
    println!("RESTORED");
}

/// Runs [`recovery_child`] in `mode` with the user's folders under `home`.
fn child(mode: &str, home: &Path, ws: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "recovery_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SYMSCOPE_RECOVERY_MODE", mode)
        .env("SYMSCOPE_RECOVERY_WS", ws)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

#[test]
fn a_killed_app_offers_its_unsaved_work_back() {
    let dir = temp_dir("recovery-kill");
    let home = dir.join("home");
    // A workspace of the user's: three.js's trace and map.
    let ws_file = dir.join("triage.ron");
    let mut ws = symscope::workspace::Workspace::default();
    ws.add_input(&dir, &js("three-esbuild/trace.txt"), FileKind::Log);
    ws.add_input(
        &dir,
        &js("three-esbuild/three.min.js.map"),
        FileKind::SourceMap,
    );
    symscope::workspace::save(&ws_file, &ws).unwrap();
    let before = std::fs::read(&ws_file).unwrap();

    let mut work = child("work", &home, &ws_file);
    let mut lines = std::io::BufReader::new(work.stdout.take().unwrap()).lines();
    let written = lines.any(|l| l.is_ok_and(|l| l.contains("RECOVERY-WRITTEN")));
    assert!(
        written,
        "the working app ended before writing its recovery file"
    );
    // SIGKILL: no destructor, no exit handler runs.
    work.kill().unwrap();
    let status = work.wait().unwrap();
    assert!(!status.success());
    assert_eq!(
        std::fs::read(&ws_file).unwrap(),
        before,
        "the user's file is untouched"
    );
    let recovery = home.join("data/symscope/recovery");
    let left: Vec<String> = std::fs::read_dir(&recovery)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left.len(), 2, "a recovery file and its lock: {left:?}");

    let restore = child("restore", &home, &ws_file);
    let out = restore.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("RESTORED"),
        "the next launch did not restore the work:\n{text}"
    );
    assert_eq!(std::fs::read(&ws_file).unwrap(), before);
    std::fs::remove_dir_all(&dir).ok();
}
