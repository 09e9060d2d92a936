//! Buckets and diffs on logs generated from the corpus crashes (`common::crashgen`): every
//! variant of one crash lands in one bucket, no two crashes share one, and two variants of a
//! crash differ only in what was varied.

mod common;

use common::crashgen::{self, Family, Rng, SOURCES, SYMBOLS};
use common::{arg, json_of, symscope, temp_dir};
use std::collections::{BTreeMap, BTreeSet};

fn symbol_args() -> Vec<String> {
    SYMBOLS
        .iter()
        .flat_map(|s| {
            [
                "-s".to_owned(),
                crashgen::fixtures().join(s).display().to_string(),
            ]
        })
        .collect()
}

/// The `kind` of each row of `symscope diff`'s JSON.
fn row_kinds(doc: &serde_json::Value) -> Vec<&str> {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect()
}

/// `symscope buckets --format json` over a folder of 8 variants of each corpus trace (and two
/// files that are not logs): one bucket per crash, holding exactly its variants; the traces
/// of lodash's crash by V8, JavaScriptCore and SpiderMonkey share one.
#[test]
fn buckets_equal_the_crashes_the_logs_came_from() {
    let dir = temp_dir("buckets");
    let logs = crashgen::generate(&dir, SOURCES.len() * 8, 7);
    // Not logs: a source map and a binary file; listed as unreadable, the run goes on.
    std::fs::copy(
        crashgen::fixtures().join("js/rxjs-esbuild/rxjs.min.js.map"),
        dir.join("night-00/stray.map"),
    )
    .unwrap();
    std::fs::write(dir.join("night-00/core.bin"), [0u8, 1, 2, 0, 255, 0]).unwrap();
    let mut args = vec!["buckets".to_owned(), "--format".into(), "json".into()];
    args.extend(symbol_args());
    args.push(arg(&dir).to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let doc = json_of(&symscope(&args));
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["logs"], logs.len() + 2);
    let unreadable = doc["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 2, "{unreadable:?}");
    assert!(
        unreadable
            .iter()
            .any(|u| u["path"].as_str().unwrap().ends_with("stray.map")
                && u["reason"].as_str().unwrap().contains("source map"))
    );
    assert!(
        unreadable
            .iter()
            .any(|u| u["path"].as_str().unwrap().ends_with("core.bin"))
    );
    let source_of: BTreeMap<String, usize> = logs
        .iter()
        .map(|(p, s)| (p.display().to_string(), *s))
        .collect();
    let buckets = doc["buckets"].as_array().unwrap();
    let mut seen = BTreeSet::new();
    for b in buckets {
        let members: Vec<&str> = b["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(b["count"], members.len());
        let sources: BTreeSet<usize> = members.iter().map(|m| source_of[*m]).collect();
        let crashes: BTreeSet<&str> = sources.iter().map(|&s| SOURCES[s].crash).collect();
        let names: Vec<&str> = sources.iter().map(|&s| SOURCES[s].id).collect();
        assert_eq!(
            crashes.len(),
            1,
            "crashes merged: {names:?}\n{}",
            b["signature"]
        );
        let crash = *crashes.iter().next().unwrap();
        assert!(seen.insert(crash), "{crash} split over buckets");
        // Every trace of the crash, each engine's included: 8 variants each.
        let traces = SOURCES.iter().filter(|s| s.crash == crash).count();
        assert_eq!(members.len(), 8 * traces, "{crash}: {names:?}");
        assert_eq!(b["first"], members[0]);
        assert_eq!(b["last"], members[members.len() - 1]);
        assert_eq!(b["fingerprint"].as_str().unwrap().len(), 16);
        let s = *sources.iter().next().unwrap();
        let platform = match SOURCES[s].family {
            Family::Java => "java",
            Family::Native => "native",
            _ => "javascript",
        };
        assert_eq!(b["platform"], platform, "{}", SOURCES[s].id);
        let frames = b["frames"].as_array().unwrap();
        assert!(!frames.is_empty(), "{}", SOURCES[s].id);
        assert!(
            frames
                .iter()
                .all(|f| f["raw"].is_string() && f["status"].is_string())
        );
    }
    assert_eq!(seen.len(), crashgen::crashes().len());
    // Lodash's crash by three engines is one bucket.
    assert!(seen.contains("lodash"));
    // An Apple report's bucket title says why it crashed, on one line with its thread.
    assert!(
        buckets
            .iter()
            .any(|b| b["title"] == "Thread 5 Crashed — SIGSEGV, SEGV_MAPERR at 0x88"),
        "{:#?}",
        buckets.iter().map(|b| &b["title"]).collect::<Vec<_>>()
    );
    // The fingerprint `symbolicate` prints on the crashed stack is the bucket's.
    for b in buckets.iter().take(4) {
        let member = b["members"][3].as_str().unwrap();
        let mut args = vec!["symbolicate".to_owned(), "--format".into(), "json".into()];
        args.extend(symbol_args());
        args.push(member.to_owned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let one = json_of(&symscope(&args));
        let stacks = one["stacks"].as_array().unwrap();
        let crashed = stacks
            .iter()
            .find(|s| s["crashed"] == true)
            .unwrap_or(&stacks[0]);
        assert_eq!(crashed["fingerprint"], b["fingerprint"], "{member}");
    }
    // Text: the largest bucket's count and title come first.
    let mut args = vec!["buckets".to_owned()];
    args.extend(symbol_args());
    args.push(arg(&dir).to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = symscope(&args);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "{} logs in {} buckets, 2 unreadable",
            logs.len() + 2,
            crashgen::crashes().len()
        )),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `symscope diff` of two variants of each crash: every frame the same; the titles differ
/// when a message was varied. A frame taken out of one shows as that frame only.
#[test]
fn diff_of_two_variants_shows_only_what_varied() {
    let dir = temp_dir("diff");
    let mut rng = Rng(11);
    for (k, source) in SOURCES.iter().enumerate() {
        let text = crashgen::source_text(source);
        let (a, va) = crashgen::variant(&text, source.family, &mut rng);
        let (b, vb) = crashgen::variant(&text, source.family, &mut rng);
        let (pa, pb) = (
            dir.join(format!("{k}-a.txt")),
            dir.join(format!("{k}-b.txt")),
        );
        std::fs::write(&pa, &a).unwrap();
        std::fs::write(&pb, &b).unwrap();
        let mut args = vec!["diff".to_owned(), "--format".into(), "json".into()];
        args.extend(symbol_args());
        args.extend([arg(&pa).to_owned(), arg(&pb).to_owned()]);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let doc = json_of(&symscope(&argv));
        let rows = doc["rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{}", source.id);
        for row in rows {
            assert_eq!(row["kind"], "same", "{}: {row}", source.id);
        }
        assert_eq!(doc["summary"]["same"], rows.len());
        if source.family != Family::Native {
            assert_eq!(
                doc["title_changed"],
                va.message || vb.message,
                "{}",
                source.id
            );
        }
        // Variant B without its second frame line: that frame alone is B's lack. (Java: a
        // JavaScript frame's name can come from its caller's call site, so taking a frame out
        // renames its callee.)
        if source.family == Family::Java {
            let mut lines: Vec<&str> = b.lines().collect();
            let removed = lines.remove(crashgen::second_java_frame(&lines)).to_owned();
            std::fs::write(&pb, lines.join("\n") + "\n").unwrap();
            let doc = json_of(&symscope(&argv));
            let kinds = row_kinds(&doc);
            let only_a: Vec<&serde_json::Value> = doc["rows"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["kind"] != "same")
                .collect();
            // A recursive frame may align with its neighbour instead; one row is A's only.
            assert_eq!(only_a.len(), 1, "{}: {kinds:?}", source.id);
            assert_eq!(only_a[0]["kind"], "only_a", "{}", source.id);
            let raw = only_a[0]["a"]["raw"].as_str().unwrap();
            let frame_text = |l: &str| l[l.find("at ").unwrap()..].to_owned();
            assert_eq!(frame_text(raw), frame_text(&removed), "{}", source.id);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `symscope diff --stack-a N --stack-b M`: two stacks of one log (each Java variant of a
/// crash printed twice, the second without a frame) compared; a stack the log lacks is an
/// error naming the file and the count.
#[test]
fn diff_compares_two_stacks_of_one_log() {
    let dir = temp_dir("diff-stacks");
    let mut rng = Rng(5);
    let source = SOURCES.iter().find(|s| s.id == "java-tree").unwrap();
    let text = crashgen::source_text(source);
    let (a, _) = crashgen::variant(&text, source.family, &mut rng);
    let lines: Vec<&str> = a.lines().collect();
    let second = crashgen::second_java_frame(&lines);
    let shorter: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != second)
        .map(|(_, l)| *l)
        .collect();
    let log = dir.join("two.txt");
    std::fs::write(
        &log,
        format!("{}\n{}\n", lines.join("\n"), shorter.join("\n")),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["diff".to_owned(), "--format".into(), "json".into()];
        args.extend(symbol_args());
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args.extend([arg(&log).to_owned(), arg(&log).to_owned()]);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        symscope(&argv)
    };
    // Without stacks named: the crashed stack of each (the same one), all the same.
    let doc = json_of(&run(&[]));
    assert_eq!(doc["summary"]["only_a"], 0, "{doc}");
    assert_eq!(doc["a"]["stack"], doc["b"]["stack"]);
    let doc = json_of(&run(&["--stack-a", "0", "--stack-b", "1"]));
    assert_eq!(
        (doc["a"]["stack"].as_u64(), doc["b"]["stack"].as_u64()),
        (Some(0), Some(1))
    );
    let kinds = row_kinds(&doc);
    assert_eq!(
        kinds.iter().filter(|k| **k == "only_a").count(),
        1,
        "{kinds:?}"
    );
    assert!(
        kinds.iter().all(|k| matches!(*k, "same" | "only_a")),
        "{kinds:?}"
    );
    let missing = run(&["--stack-b", "5"]);
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("two.txt") && err.contains("no stack 5: the log has 2"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Hard negatives: two different bugs whose top frames are the same but whose exception
/// types differ (lodash's crash as a `RangeError`), and two of one exception type whose
/// symbolicated in-app frames differ (the shop's tree crash with its innermost frame
/// another method's, and the `crashy` crash with its faulting frame in another function)
/// each stay in a bucket of their own, beside the crashes they resemble.
#[test]
fn different_bugs_with_alike_stacks_stay_apart() {
    let dir = temp_dir("hard-negatives");
    let fixtures = crashgen::fixtures();
    let read = |p: &str| std::fs::read_to_string(fixtures.join(p)).unwrap();
    let lodash = read("js/lodash-terser/trace.txt");
    let tree = read("java/shop/obf-tree.txt");
    let pricing = read("java/shop/obf-pricing.txt");
    let crashy = read("native/crashy/crash-aslr-1.txt");
    // Another type, the same frames.
    let range_error = lodash.replacen("TypeError", "RangeError", 1);
    assert_ne!(range_error, lodash);
    // The same type, another in-app frame: the tree crash's innermost frame swapped for the
    // pricing crash's (both in the app's package, both deobfuscated by the mapping).
    let tree_lines: Vec<&str> = tree.lines().collect();
    let pricing_frame = pricing
        .lines()
        .find(|l| l.trim_start().starts_with("at com.example.shop"))
        .unwrap();
    let mut other_frame = tree_lines.clone();
    other_frame[1] = pricing_frame;
    let other_frame = other_frame.join("\n") + "\n";
    // The same signal, another function: the faulting pc moved to the next frame's address.
    let pc = "\"pc\":\"0x563054cbb500\"";
    assert!(crashy.contains(pc));
    let other_function = crashy
        .replacen(
            "\"0x563054cbb500\",\"0x563054cbb63a\"",
            "\"0x563054cbb63a\"",
            1,
        )
        .replacen(pc, "\"pc\":\"0x563054cbb63a\"", 1);
    assert_ne!(other_function, crashy);
    let logs = [
        ("lodash-type-error.txt", lodash),
        ("lodash-range-error.txt", range_error),
        ("tree.txt", tree),
        ("tree-other-frame.txt", other_frame),
        ("crashy.txt", crashy),
        ("crashy-other-function.txt", other_function),
    ];
    for (name, text) in &logs {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let mut args = vec!["buckets".to_owned(), "--format".into(), "json".into()];
    args.extend(symbol_args());
    args.push(arg(&dir).to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let doc = json_of(&symscope(&args));
    let buckets = doc["buckets"].as_array().unwrap();
    let signatures: Vec<&str> = buckets
        .iter()
        .map(|b| b["signature"].as_str().unwrap())
        .collect();
    assert_eq!(buckets.len(), logs.len(), "{signatures:#?}");

    assert!(buckets.iter().all(|b| b["count"] == 1), "{signatures:#?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A log read and parsed already is bucketed as it is, never read again: its path may no
/// longer be there (the window hands over what a folder's search or a load parsed).
#[test]
fn parsed_logs_are_bucketed_without_reading_them_again() {
    let fixtures = crashgen::fixtures();
    let mut parsed = std::collections::HashMap::new();
    let mut paths = Vec::new();
    for (k, log) in ["java/shop/obf-tree.txt", "java/shop/obf-pricing.txt"]
        .iter()
        .enumerate()
    {
        let bytes = std::fs::read(fixtures.join(log)).unwrap();
        let file = symscope::engine::Detected::new(*log, symscope::model::Blob::from(bytes));
        let symscope::engine::Role::Log(log) = file.role() else {
            panic!("{log}: not a log");
        };
        // A path that is not there: reading it would fail.
        let gone = std::path::PathBuf::from(format!("/nonexistent/crash-{k}.txt"));
        parsed.insert(gone.clone(), *log);
        paths.push(gone);
    }
    let symbols = common::symbols(&[fixtures.join("java/shop/shop-mapping.txt")]);
    let batch = symscope::jobs::batch::bucket_logs(
        &paths,
        &parsed,
        &[],
        &symbols,
        symscope::symbolicate::Options::default(),
        5,
        &|_, _| true,
    );
    assert!(batch.unreadable.is_empty(), "{:?}", batch.unreadable);
    assert_eq!(batch.buckets.len(), 2);
    // Without them in hand, the same paths cannot be read: each is listed, typed.
    let none = symscope::jobs::batch::bucket_logs(
        &paths,
        &Default::default(),
        &[],
        &symbols,
        symscope::symbolicate::Options::default(),
        5,
        &|_, _| true,
    );
    assert_eq!(none.unreadable.len(), 2);
    assert!(matches!(
        none.unreadable[0].1.reason,
        symscope::engine::Reason::Read(_)
    ));
}

/// `buckets --from-jsonl` groups the lines `symbolicate --format jsonl` wrote for a folder
/// (symbolicated once, not again) into the very buckets `buckets` finds on the folder itself:
/// the same members, signatures, titles and frames, the same unreadable files.
#[test]
fn buckets_from_json_lines_equal_buckets_of_the_logs() {
    let dir = temp_dir("buckets-jsonl");
    crashgen::generate(&dir, SOURCES.len() * 4, 11);
    std::fs::write(dir.join("night-00/core.bin"), [0u8, 1, 2, 0, 255, 0]).unwrap();
    let run = |head: &[&str], tail: &[&str]| {
        let mut args: Vec<String> = head.iter().map(|s| (*s).to_owned()).collect();
        args.extend(symbol_args());
        args.extend(tail.iter().map(|s| (*s).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        symscope(&args)
    };
    let mut direct = json_of(&run(&["buckets", "--format", "json"], &[arg(&dir)]));
    let lines = run(&["symbolicate", "--format", "jsonl"], &[arg(&dir)]);
    assert!(lines.status.success());
    let file = dir.join("lines.jsonl");
    std::fs::write(&file, &lines.stdout).unwrap();
    let mut read_back = json_of(&symscope(&[
        "buckets",
        "--format",
        "json",
        "--from-jsonl",
        arg(&file),
    ]));
    // How long each took, and the symbol files' warnings, are the runs' own.
    for doc in [&mut direct, &mut read_back] {
        for key in ["timings", "warnings"] {
            doc.as_object_mut().unwrap().remove(key);
        }
    }
    assert!(direct["buckets"].as_array().unwrap().len() >= SOURCES.len() / 2);
    assert_eq!(read_back, direct);
    std::fs::remove_dir_all(&dir).ok();
}
