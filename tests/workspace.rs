//! Workspace files on disk: the golden schema-1 file still opens, missing and changed inputs
//! are told apart, saves are atomic, and newer or broken files are refused and left alone.

mod common;

use common::temp_dir;

use std::path::Path;
use symscope::model::FileKind;
use symscope::workspace::{self, InputStatus, Workspace, WorkspaceError};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_golden_schema_1_file_opens_with_a_missing_input() {
    let path = root().join("workspaces/golden-schema-1.ron");
    let ws = workspace::load(&path).unwrap();
    assert_eq!(ws.schema, 1);
    assert_eq!(ws.inputs.len(), 3);
    assert_eq!(ws.inputs[0].kind, FileKind::SourceMap);
    assert_eq!(ws.inputs[1].settings.column_base, Some(1));
    assert_eq!(ws.notes[0].frame, Some(0));
    assert!(ws.layout.inspector_open);
    let dir = path.parent().unwrap();
    let status: Vec<InputStatus> = ws.inputs.iter().map(|i| ws.check_input(dir, i)).collect();
    assert_eq!(
        status[0],
        InputStatus::Unchanged,
        "the fixture's hash matches"
    );
    assert_eq!(status[1], InputStatus::Unchanged);
    assert_eq!(
        status[2],
        InputStatus::Missing,
        "a missing file is shown as missing; the rest opens"
    );
}

#[test]
fn save_then_open_gives_the_same_workspace_and_changes_are_seen() {
    let dir = temp_dir("roundtrip");
    let map = dir.join("a.js.map");
    std::fs::write(
        &map,
        br#"{"version":3,"sources":[],"names":[],"mappings":""}"#,
    )
    .unwrap();
    let mut ws = Workspace::default();
    let i = ws.add_input(&dir, &map, FileKind::SourceMap);
    assert_eq!(ws.inputs[i].path, "a.js.map");
    // The loading job records what it read.
    let bytes = std::fs::read(&map).unwrap();
    ws.inputs[i].size = bytes.len() as u64;
    ws.inputs[i].hash = workspace::fingerprint(&bytes);
    assert_eq!(
        ws.add_input(&dir, &map, FileKind::SourceMap),
        i,
        "added once"
    );
    let file = dir.join("ws.ron");
    workspace::save(&file, &ws).unwrap();
    assert_eq!(workspace::load(&file).unwrap(), ws);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        2,
        "no temporary file is left: {leftovers:?}"
    );
    std::fs::write(
        &map,
        br#"{"version":3,"sources":["b"],"names":[],"mappings":"AAAA"}"#,
    )
    .unwrap();
    assert!(matches!(
        ws.check_input(&dir, &ws.inputs[0]),
        InputStatus::Changed { .. }
    ));
    std::fs::remove_dir_all(&dir).ok();
}

/// Not a test of its own: the saving child of [`a_failed_save_leaves_the_old_file_intact`],
/// run with a file-size limit its save goes past (does nothing unless started by it).
#[test]
fn failing_saver_child() {
    let Some(path) = std::env::var_os("SYMSCOPE_FAILING_SAVE") else {
        return;
    };
    let mut ws = Workspace::default();
    // Well past the limit of one 1,024-byte block.
    for i in 0..200 {
        ws.notes.push(workspace::Note {
            input: format!("logs/crash-{i}.txt"),
            stack: i,
            frame: None,
            text: "a note that makes the document large".to_owned(),
        });
    }
    let err = workspace::save(std::path::Path::new(&path), &ws).unwrap_err();
    assert!(err.to_string().contains("ws.ron"), "{err}");
}

/// A save that fails while writing (here: past the process's file-size limit, `ulimit -f`)
/// leaves the old file as it was and no temporary file behind.
#[test]
fn a_failed_save_leaves_the_old_file_intact() {
    let dir = temp_dir("failed");
    let file = dir.join("ws.ron");
    let mut ws = Workspace::default();
    ws.layout.inspector_open = true;
    workspace::save(&file, &ws).unwrap();
    let before = std::fs::read(&file).unwrap();
    let exe = std::env::current_exe().unwrap();
    // SIGXFSZ ignored, so the write past the limit fails with EFBIG instead of killing.
    let status = std::process::Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\""])
        .arg(&exe)
        .args(["--exact", "failing_saver_child", "--test-threads=1"])
        .env("SYMSCOPE_FAILING_SAVE", &file)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(
        status.success(),
        "the child's save did not fail as it should"
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "the old file is untouched"
    );
    assert!(workspace::load(&file).unwrap().layout.inspector_open);
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["ws.ron"], "no temporary file is left");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn newer_or_broken_files_are_refused_and_left_alone() {
    let dir = temp_dir("refuse");
    for (name, text) in [
        ("new.ron", "(schema: 2, inputs: [], future_field: 1)\n"),
        ("broken.ron", "(schema: 1, inputs: [(pa"),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let err = workspace::load(&file).unwrap_err();
        match name {
            "new.ron" => assert!(
                matches!(err, WorkspaceError::TooNew { found: 2, .. }),
                "{err}"
            ),
            _ => assert!(matches!(err, WorkspaceError::Malformed { .. }), "{err}"),
        }
        assert!(err.to_string().contains(name) && err.to_string().contains("left unchanged"));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn removing_an_input_drops_its_notes_and_selection() {
    let mut ws = workspace::load(&root().join("workspaces/golden-schema-1.ron")).unwrap();
    let removed = ws.remove_input(1).unwrap();
    assert!(removed.path.ends_with("trace.txt"));
    assert!(ws.notes.is_empty());
    assert_eq!(ws.selection.log, None);
    assert!(ws.remove_input(9).is_none());
}

/// Two writers in one process saving one file at once never collide: each save's temporary
/// file is its own (`tempfile`), and the file is always one whole version.
#[test]
fn two_writers_in_one_process_never_collide() {
    let dir = temp_dir("two-writers");
    let file = dir.join("ws.ron");
    let version = |n: usize| Workspace {
        source_roots: (0..n).map(|i| format!("src-{i}")).collect(),
        ..Workspace::default()
    };
    std::thread::scope(|s| {
        for w in 0..2 {
            let file = &file;
            s.spawn(move || {
                for k in 0..200 {
                    workspace::save(file, &version(w * 1_000 + k % 50 + 1)).unwrap();
                }
            });
        }
    });
    let ws = workspace::load(&file).unwrap();
    assert_eq!(ws, version(ws.source_roots.len()));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["ws.ron"]);
    std::fs::remove_dir_all(&dir).ok();
}

/// Not a test of its own: prints where the user's config file is (run by
/// [`a_relative_xdg_config_home_is_ignored`] with its environment).
#[test]
fn config_file_child() {
    if std::env::var_os("SYMSCOPE_PRINT_CONFIG").is_some() {
        let file = symscope::workspace::user_dirs::config_file("settings.ron").unwrap();
        println!("CONFIG={}", file.display());
    }
}

/// A relative `XDG_CONFIG_HOME` is ignored, as the XDG spec says: the config file stays under
/// the home folder; an absolute one is taken.
#[test]
fn a_relative_xdg_config_home_is_ignored() {
    let exe = std::env::current_exe().unwrap();
    let config = |xdg: &str| -> String {
        let out = std::process::Command::new(&exe)
            .args([
                "--exact",
                "config_file_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("SYMSCOPE_PRINT_CONFIG", "1")
            .env("HOME", "/home/someone")
            .env("XDG_CONFIG_HOME", xdg)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        // The test harness may print its own words before ours on the line.
        text.lines()
            .find_map(|l| l.split_once("CONFIG=").map(|(_, path)| path))
            .unwrap_or_else(|| panic!("{text}"))
            .to_owned()
    };
    assert_eq!(
        config("relative/config"),
        "/home/someone/.config/symscope/settings.ron"
    );
    assert_eq!(
        config("/etc/xdg-here"),
        "/etc/xdg-here/symscope/settings.ron"
    );
}
