//! Many crashes in the window: a folder of crash logs bucketed, several logs dropped at once,
//! any two stacks compared.

mod common;

use common::harness::*;

/// A folder of crash logs dropped with their symbol files (three variants of each corpus
/// crash, `common::crashgen`): the Buckets view shows one bucket per crash, sorted and
/// filtered; a bucket's logs open in the stack list; two of them picked as A and B compare
/// frame by frame; the note on a bucket and the comparison are kept in the saved workspace
/// and come back with it.
#[test]
fn a_folder_of_crashes_is_bucketed_and_two_logs_compared() {
    use common::crashgen::{self, SOURCES, SYMBOLS};
    let dir = temp_dir("gui-buckets");
    let crashes = dir.join("crashes");
    std::fs::create_dir_all(&crashes).unwrap();
    let logs = crashgen::generate(&crashes, SOURCES.len() * 3, 5);
    let file = dir.join("triage.ron");
    let mut h = app_sized(1280.0, 1000.0);
    h.state_mut().workspace_path = Some(file.clone());
    h.run_steps(2);
    let mut dropped: Vec<PathBuf> = SYMBOLS
        .iter()
        .map(|s| crashgen::fixtures().join(s))
        .collect();
    dropped.push(crashes.clone());
    drop_files(&mut h, &dropped);
    // One bucket per crash (lodash's three engines' traces share one).
    let summary = format!(
        "Buckets: {} logs in {} buckets",
        logs.len(),
        crashgen::crashes().len()
    );
    settle(&mut h, |h| has_label(h, &summary));
    // Buckets is a main tab in front, in the stack list's tab bar, as wide as the main area.
    assert!(tab_active(&h, "Buckets") && !tab_active(&h, "Stacks"));
    assert_eq!(
        tab(&h, "Buckets").rect().top(),
        tab(&h, "Stacks").rect().top()
    );
    let heading = h.get_by_label(&summary).rect();
    assert!(
        heading.top() < 200.0 && heading.left() < 1280.0 * 0.4,
        "{heading:?}"
    );
    // The logs are not inputs: only the symbol files are.
    assert_eq!(h.state().inputs.len(), SYMBOLS.len());
    // Sorted by title (and back), then filtered: one bucket is left.
    h.get_by_label("Title").click();
    h.run_steps(2);
    assert!(has_label(&h, "▼"));
    h.get_by_label("Title").click();
    h.run_steps(2);
    assert!(has_label(&h, "▲"));
    enter_text(&mut h, "Filter buckets:", "ArithmeticException");
    h.run_steps(2);
    let titles = labels_containing(&h, "Exception in thread");
    assert_eq!(titles.len(), 1, "{titles:?}");
    h.get_by_label_contains("java.lang.ArithmeticException: ")
        .click();
    h.run_steps(2);
    // The tree crash's logs: its source's index, and that plus each round of sources.
    let tree = SOURCES.iter().position(|s| s.id == "java-tree").unwrap();
    let member = |k: usize| format!("crashes/night-00/crash-{k:06}.txt");
    for k in [tree, tree + SOURCES.len(), tree + 2 * SOURCES.len()] {
        assert!(
            has_label(&h, &member(k)),
            "{:#?}",
            labels_containing(&h, "crash-")
        );
    }
    assert!(has_label(
        &h,
        "com.example.shop.util.Tree.walk  (Tree.java)"
    ));
    // A note on the bucket.
    h.get_all_by_role(egui::Role::TextInput)
        .find(|n| format!("{n:?}").contains("Note:"))
        .unwrap()
        .click();
    h.run_steps(1);
    enter_text(&mut h, "Note:", "depth 0: fixed in 2.3");
    h.run_steps(2);
    // Enter ended the note; it opened nothing.
    assert_eq!(h.state().inputs.len(), SYMBOLS.len());
    // Two of its logs compared: the same frames, titles differing as the messages do.
    h.get_all_by_label("A").next().unwrap().click();
    h.run_steps(2);
    h.get_all_by_label("B").nth(1).unwrap().click();
    settle(&mut h, |h| has_label(h, "Compare stacks"));
    let verdict = labels_containing(&h, " same, ");
    assert_eq!(verdict.len(), 1, "{verdict:?}");
    assert!(
        verdict[0].starts_with("8 same, 0 changed, 0 only in A, 0 only in B"),
        "{verdict:?}"
    );
    // The comparison is a main tab in front; Buckets is the tab beside it.
    assert!(tab_active(&h, "Compare stacks") && !tab_active(&h, "Buckets"));
    tab(&h, "Buckets").click();
    h.run_steps(2);
    // A log of the bucket opens in the stack list, resolved.
    h.get_by_label(&member(tree + SOURCES.len())).click();
    settle(&mut h, |h| {
        has_label(h, "com.example.shop.util.Tree.walk  Tree.java:28")
    });
    let names: Vec<&str> = h.state().inputs.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.len(), SYMBOLS.len() + 1, "{names:?}");
    // Saved, the note and the comparison are in the document; a fresh app brings back both.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(2);
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("depth 0: fixed in 2.3"), "{saved}");
    assert!(saved.contains("compare:"), "{saved}");
    let mut h2 = app_sized(1280.0, 1000.0);
    h2.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h2, |h| {
        has_label(h, " same, ") && has_tab(h, "Compare stacks") && has_tab(h, "Buckets")
    });
    tab(&h2, "Buckets").click();
    h2.run_steps(2);
    assert!(has_label(&h2, &summary));
    assert_eq!(h2.state().workspace.buckets, h.state().workspace.buckets);
    std::fs::remove_dir_all(&dir).ok();
}

/// Several crash logs dropped at once (with symbol files) are inputs as any log, and bucketed:
/// two variants of one crash in one bucket, a third crash in its own.
#[test]
fn several_logs_dropped_at_once_are_bucketed() {
    use common::crashgen::{self, SOURCES, SYMBOLS};
    let dir = temp_dir("gui-several-logs");
    let logs = crashgen::generate(&dir, SOURCES.len() + 1, 9);
    let mut h = app_sized(1280.0, 1000.0);
    h.run_steps(2);
    let mut dropped: Vec<PathBuf> = SYMBOLS
        .iter()
        .map(|s| crashgen::fixtures().join(s))
        .collect();
    // Two variants of the first crash, one of the second.
    dropped.extend([&logs[0].0, &logs[SOURCES.len()].0, &logs[1].0].map(|p| p.to_path_buf()));
    drop_files(&mut h, &dropped);
    settle(&mut h, |h| has_label(h, "Buckets: 3 logs in 2 buckets"));
    assert_eq!(h.state().inputs.len(), SYMBOLS.len() + 3);
    let buckets = h.state().view.buckets.bucketed.clone().unwrap();
    let mut counts: Vec<usize> = buckets.buckets.iter().map(|b| b.count()).collect();
    counts.sort_unstable();
    assert_eq!(counts, [1, 2]);
    // Two files, one of them a log: no buckets.
    let h = three_resolved();
    assert!(h.state().view.buckets.bucketed.is_none());
    assert!(h.state().workspace.buckets.is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

/// Right-click a stack's header in the stack list to compare two stacks of one log (here a
/// pasted one), or a log's name in the workspace panel to compare two logs' crashed stacks:
/// frames aligned, the frame only one has marked; the comparison is kept in the saved
/// workspace, pasted log and stacks included, and comes back with it.
#[test]
fn two_stacks_of_a_log_and_two_logs_of_the_workspace_compared() {
    let dir = temp_dir("gui-compare-stacks");
    let mut h = three_resolved();
    let file = dir.join("stacks.ron");
    h.state_mut().workspace_path = Some(file.clone());
    // One pasted log, two stacks: the whole trace, then the trace without one frame.
    let trace = std::fs::read_to_string(js("three-esbuild/trace.txt")).unwrap();
    let first = trace.replacen("TypeError: Cannot read", "TypeError: First, cannot read", 1);
    let second = three_trace_without_driver("TypeError: Second, the driver frame gone");
    h.event(egui::Event::Paste(format!("{first}{second}")));
    settle(&mut h, |h| {
        h.state().inputs.iter().any(|e| e.name == "pasted-1.txt")
            && has_label(h, "▼ TypeError: Second, the driver frame gone")
    });
    h.get_by_label_contains("▼ TypeError: First")
        .click_secondary();
    h.run_steps(2);
    h.get_by_label("Compare this stack as A").click();
    h.run_steps(2);
    assert!(has_label(
        &h,
        "▼ TypeError: First, cannot read properties of null (reading 'getAttribute')  [compare A]"
    ));
    h.get_by_label_contains("▼ TypeError: Second")
        .click_secondary();
    h.run_steps(2);
    h.get_by_label("Compare this stack as B").click();
    settle(&mut h, |h| has_label(h, "Compare stacks"));
    let verdict = labels_containing(&h, " same, ");
    assert_eq!(
        verdict,
        ["10 same, 0 changed, 1 only in A, 0 only in B; titles differ"]
    );
    assert!(has_label(&h, "A: pasted-1.txt, stack 1"));
    assert!(has_label(&h, "B: pasted-1.txt, stack 2"));
    let only_a = labels_containing(&h, "drivers/three.cjs");
    assert!(!only_a.is_empty(), "the frame only A has is listed");
    // Resolved frames by function, file name and line (the whole path on hover).
    assert_eq!(
        labels_containing(&h, "expandByObject (three.core.js:16222)").len(),
        2
    );
    // Saved and reopened: the same comparison, of the pasted log's two stacks.
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    h.run_steps(2);
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(saved.contains("stack_b: Some(1)"), "{saved}");
    let mut h2 = app();
    h2.state_mut().start(std::slice::from_ref(&file));
    settle(&mut h2, |h| has_label(h, "B: pasted-1.txt, stack 2"));
    assert_eq!(
        labels_containing(&h2, " same, "),
        ["10 same, 0 changed, 1 only in A, 0 only in B; titles differ"]
    );

    // Two logs of the workspace, by their names in the workspace panel.
    close_tab(&mut h, "Compare stacks");
    assert!(!has_tab(&h, "Compare stacks"));
    assert!(h.state().workspace.compare.is_none());
    let other = dir.join("without-driver.txt");
    std::fs::write(
        &other,
        three_trace_without_driver(
            "TypeError: Cannot read properties of null (reading 'getAttribute')",
        ),
    )
    .unwrap();
    drop_files(&mut h, &[other]);
    settle(&mut h, |h| has_label(h, "without-driver.txt"));
    h.get_by_label("trace.txt").click_secondary();
    h.run_steps(2);
    h.get_by_label("Compare this log's crashed stack as A")
        .click();
    h.run_steps(2);
    h.get_by_label("without-driver.txt").click_secondary();
    h.run_steps(2);
    h.get_by_label("Compare this log's crashed stack as B")
        .click();
    settle(&mut h, |h| has_label(h, "B: without-driver.txt"));
    assert_eq!(
        labels_containing(&h, " same, "),
        ["10 same, 0 changed, 1 only in A, 0 only in B"]
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A file of `symbolicate --format jsonl`'s lines dropped alone (no symbol file loaded):
/// it opens as the Buckets view, its logs symbolicated already, the same buckets
/// `symscope buckets --from-jsonl` gives, and it is not kept as an input.
#[test]
fn json_lines_dropped_open_as_buckets() {
    use common::crashgen::{self, SOURCES, SYMBOLS};
    let dir = temp_dir("gui-buckets-jsonl");
    let crashes = dir.join("crashes");
    std::fs::create_dir_all(&crashes).unwrap();
    crashgen::generate(&crashes, SOURCES.len() * 2, 13);
    let mut args = vec!["symbolicate".to_owned(), "--format".into(), "jsonl".into()];
    for s in SYMBOLS {
        args.push("-s".into());
        args.push(crashgen::fixtures().join(s).display().to_string());
    }
    args.push(crashes.display().to_string());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(&args)
        .output()
        .unwrap();
    assert!(out.status.success());
    let lines = dir.join("night.jsonl");
    std::fs::write(&lines, &out.stdout).unwrap();
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["buckets", "--format", "json", "--from-jsonl"])
        .arg(&lines)
        .output()
        .unwrap();
    let cli: serde_json::Value = serde_json::from_slice(&cli.stdout).unwrap();
    let buckets = cli["buckets"].as_array().unwrap();
    let mut h = app_sized(1280.0, 1000.0);
    h.run_steps(2);
    drop_files(&mut h, &[lines]);
    let summary = format!("Buckets: {} logs in {} buckets", cli["logs"], buckets.len());
    settle(&mut h, |h| has_label(h, &summary));
    assert!(h.state().inputs.is_empty());
    // Each bucket's title and count as the CLI has them.
    let bucketed = h.state().view.buckets.bucketed.clone().unwrap();
    let ours: Vec<(String, usize)> = bucketed
        .buckets
        .iter()
        .map(|b| (b.title(), b.count()))
        .collect();
    let theirs: Vec<(String, usize)> = buckets
        .iter()
        .map(|b| {
            (
                b["title"].as_str().unwrap().to_owned(),
                b["count"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    assert_eq!(ours, theirs);
    std::fs::remove_dir_all(&dir).ok();
}
