//! The stack list's rows: folding, filters, groups and marks, on real and made-up traces.

use super::*;
use std::collections::HashSet;

fn table(text: &str) -> FrameTable {
    FrameTable::from_trace(&crate::formats::parse_text(text), None)
}

/// A symbolicated table whose frame `f` has an inline chain of `depths[f]` entries
/// (`node:internal` frames are library code).
fn inlined_table(text: &str, depths: &[usize]) -> FrameTable {
    let trace = crate::formats::parse_text(text);
    FrameTable::from_trace(&trace, Some(&inlined_table_result(&trace, depths)))
}

/// [`inlined_table`]'s symbolication.
fn inlined_table_result(
    trace: &crate::model::Trace,
    depths: &[usize],
) -> crate::model::SymbolicatedTrace {
    use crate::model::{
        FrameStatus, ResolvedLocation, SymbolicatedFrame, SymbolicatedStack, SymbolicatedTrace,
    };
    let frames = depths
        .iter()
        .enumerate()
        .map(|(f, &n)| SymbolicatedFrame {
            status: FrameStatus::Resolved,
            symbol_file: None,
            generated: None,
            resolved: (0..n)
                .map(|k| ResolvedLocation {
                    function: Some(format!("fn{f}_{k}")),
                    file: Some(if trace.stacks[0].frames[f].raw.contains("node:") {
                        "node:internal/x".to_owned()
                    } else {
                        "a.c".to_owned()
                    }),
                    line: Some(k as u32 + 1),
                    inlined: k + 1 < n,
                    ignored: trace.stacks[0].frames[f].raw.contains("node:"),
                    ..ResolvedLocation::default()
                })
                .collect(),
            alternatives: Vec::new(),
            note: None,
        })
        .collect();
    SymbolicatedTrace {
        format: trace.format,
        stacks: vec![SymbolicatedStack {
            title: trace.stacks[0].title.clone(),
            crashed: true,
            frames,
        }],
        warnings: Vec::new(),
        timings: Vec::new(),
        modules: Vec::new(),
    }
}

#[test]
fn inline_chains_are_sub_rows() {
    let t = inlined_table(
        "Error: x\n    at a (app.js:1:1)\n    at b (app.js:1:2)\n    at c (node:internal/x:1:1)\n    at d (node:internal/x:1:2)\n    at e (app.js:1:3)\n",
        &[3, 1, 2, 1, 2],
    );
    let inline = |frame, depth| Row::Inline {
        stack: 0,
        frame,
        depth,
    };
    let frame = |frame| Row::Frame { stack: 0, frame };
    let library = |expanded| Row::Group {
        kind: GroupKind::Library,
        stack: 0,
        first: 2,
        count: 2,
        expanded,
    };
    let rows = StackRows::build(
        &t,
        "",
        &folds(HashSet::new(), HashSet::new()),
        &FrameNotes::new(),
        true,
    );
    let expect = vec![
        Row::Stack { stack: 0 },
        frame(0),
        inline(0, 1),
        inline(0, 2),
        frame(1),
        library(false),
        frame(4),
        inline(4, 1),
    ];
    assert_eq!(all(&rows), expect);
    for (n, row) in expect.iter().enumerate() {
        if let Row::Frame { frame, .. } = *row {
            assert_eq!(rows.row_of_frame(0, frame), Some(n));
        }
    }
    // Keys step from frame to frame over the inline rows.
    assert_eq!(rows.step(Some((0, 0)), true), Some((0, 1)));
    assert_eq!(rows.step(Some((0, 4)), false), Some((0, 1)));
    // An expanded group shows its frames with their inline rows.
    let open = StackRows::build(
        &t,
        "",
        &folds(HashSet::from([(0, 2)]), HashSet::new()),
        &FrameNotes::new(),
        true,
    );
    assert_eq!(
        all(&open)[5..],
        [
            library(true),
            frame(2),
            inline(2, 1),
            frame(3),
            frame(4),
            inline(4, 1)
        ]
    );
    assert_eq!(open.row_of_frame(0, 3), Some(8));
    // A filter matching an inlined function keeps its frame, with its inline rows.
    let filtered = StackRows::build(
        &t,
        "fn0_2",
        &folds(HashSet::new(), HashSet::new()),
        &FrameNotes::new(),
        true,
    );
    assert_eq!(
        all(&filtered),
        [
            Row::Stack { stack: 0 },
            frame(0),
            inline(0, 1),
            inline(0, 2)
        ]
    );
    // Raw lines have none.
    let raw = StackRows::build(
        &t,
        "",
        &folds(HashSet::new(), HashSet::new()),
        &FrameNotes::new(),
        false,
    );
    assert_eq!(raw.len(), 5);
}

fn folds(expanded: HashSet<(usize, usize)>, collapsed: HashSet<usize>) -> Folds {
    Folds {
        expanded,
        collapsed,
        candidates: HashSet::new(),
    }
}

fn all(rows: &StackRows) -> Vec<Row> {
    rows.rows(0..rows.len()).collect()
}

/// An ambiguous frame's expander follows its row; opened, a run per other candidate;
/// the frames after it are still found.
#[test]
fn ambiguous_frames_list_their_other_candidates() {
    use crate::model::ResolvedLocation;
    let text = "Error: x\n    at a (app.js:1:1)\n    at b (app.js:1:2)\n";
    let trace = crate::formats::parse_text(text);
    let mut result = inlined_table_result(&trace, &[1, 1]);
    let loc = |f: &str| ResolvedLocation {
        function: Some(f.to_owned()),
        ..ResolvedLocation::default()
    };
    result.stacks[0].frames[0].alternatives = vec![vec![loc("x"), loc("y")], vec![loc("z")]];
    let t = FrameTable::from_trace(&trace, Some(&result));
    let mut folds = folds(HashSet::new(), HashSet::new());
    let rows = StackRows::build(&t, "", &folds, &FrameNotes::new(), true);
    let candidates = |expanded| Row::Candidates {
        stack: 0,
        frame: 0,
        count: 3,
        expanded,
    };
    assert_eq!(
        all(&rows),
        [
            Row::Stack { stack: 0 },
            Row::Frame { stack: 0, frame: 0 },
            candidates(false),
            Row::Frame { stack: 0, frame: 1 },
        ]
    );
    assert_eq!(rows.row_of_frame(0, 1), Some(3));
    folds.candidates.insert((0, 0));
    let open = StackRows::build(&t, "", &folds, &FrameNotes::new(), true);
    let candidate = |candidate, depth| Row::Candidate {
        stack: 0,
        frame: 0,
        candidate,
        depth,
    };
    assert_eq!(
        all(&open)[2..],
        [
            candidates(true),
            candidate(0, 0),
            candidate(0, 1),
            candidate(1, 0),
            Row::Frame { stack: 0, frame: 1 },
        ]
    );
    assert_eq!(open.row_of_frame(0, 0), Some(1));
    assert_eq!(open.row_of_frame(0, 1), Some(6));
    assert_eq!(open.step(Some((0, 0)), true), Some((0, 1)));
}

#[test]
fn runtime_frames_collapse_and_expand() {
    let t = table(
        "Error: x\n    at a (app.js:1:1)\n    at Module._compile (node:internal/modules/cjs/loader:1:1)\n    at Module.load (node:internal/modules/cjs/loader:2:2)\n    at b (app.js:2:2)\n    at new Promise (<anonymous>)\n",
    );
    let rows = StackRows::build(
        &t,
        "",
        &folds(HashSet::new(), HashSet::new()),
        &FrameNotes::new(),
        true,
    );
    assert_eq!(
        all(&rows),
        vec![
            Row::Stack { stack: 0 },
            Row::Frame { stack: 0, frame: 0 },
            Row::Group {
                kind: GroupKind::Library,
                stack: 0,
                first: 1,
                count: 2,
                expanded: false
            },
            Row::Frame { stack: 0, frame: 3 },
            Row::Frame { stack: 0, frame: 4 },
        ],
        "a single library frame is not folded"
    );
    assert_eq!(rows.row_of_frame(0, 1), None, "folded away");
    let open = StackRows::build(
        &t,
        "",
        &folds(HashSet::from([(0, 1)]), HashSet::new()),
        &FrameNotes::new(),
        true,
    );
    assert_eq!(open.len(), 7);
    assert_eq!(
        open.row(2),
        Some(Row::Group {
            kind: GroupKind::Library,
            stack: 0,
            first: 1,
            count: 2,
            expanded: true
        })
    );
    assert_eq!(open.row_of_frame(0, 2), Some(4));
    // A filter shows every match, unfolded.
    let filtered = StackRows::build(
        &t,
        "module",
        &folds(HashSet::new(), HashSet::new()),
        &FrameNotes::new(),
        true,
    );
    assert_eq!((filtered.len(), filtered.hidden), (3, 3));
}

/// A Java trace: each `Caused by:` is a stack that folds to its header; JDK frames
/// fold into a library row.
#[test]
fn caused_by_groups_fold() {
    let t = table(
        "java.lang.IllegalStateException: x\n\tat a.b.c(SourceFile:1)\n\tat a.b.d(SourceFile:2)\nCaused by: java.lang.NumberFormatException: y\n\tat java.base/java.lang.Integer.parseInt(Integer.java:668)\n\tat java.base/java.lang.Integer.parseInt(Integer.java:786)\n\tat a.b.e(SourceFile:3)\n\t... 1 more\n",
    );
    assert_eq!(t.stack_count(), 2);
    let open = StackRows::build(
        &t,
        "",
        &folds(HashSet::new(), HashSet::new()),
        &FrameNotes::new(),
        true,
    );
    assert_eq!(
        all(&open),
        vec![
            Row::Stack { stack: 0 },
            Row::Frame { stack: 0, frame: 0 },
            Row::Frame { stack: 0, frame: 1 },
            Row::Stack { stack: 1 },
            // The innermost frame is never folded; the second JDK frame alone is not.
            Row::Frame { stack: 1, frame: 0 },
            Row::Frame { stack: 1, frame: 1 },
            Row::Frame { stack: 1, frame: 2 },
            Row::Frame { stack: 1, frame: 3 },
        ]
    );
    let folded = StackRows::build(
        &t,
        "",
        &folds(HashSet::new(), HashSet::from([0])),
        &FrameNotes::new(),
        true,
    );
    assert_eq!(folded.len(), 6);
    assert_eq!(folded.row(1), Some(Row::Stack { stack: 1 }));
    assert_eq!(folded.row_of_frame(0, 1), None);
    assert_eq!(folded.step(None, true), Some((1, 0)));
}

#[test]
fn rows_are_found_by_binary_search_over_runs() {
    let mut text = String::new();
    for s in 0..3 {
        text.push_str(&format!("Error: e{s}\n"));
        for f in 0..1000 {
            let file = if f % 100 >= 50 {
                "node:internal/x"
            } else {
                "app.js"
            };
            text.push_str(&format!("    at f{f} ({file}:1:{f})\n"));
        }
        text.push('\n');
    }
    let t = table(&text);
    assert_eq!(t.stack_count(), 3);
    let expanded = HashSet::from([(1, 50), (2, 950)]);
    let rows = StackRows::build(
        &t,
        "",
        &folds(expanded.clone(), HashSet::new()),
        &FrameNotes::new(),
        true,
    );
    // Walking the rows one by one (what a flat list would hold) agrees with `row(n)`
    // and `row_of_frame` at every row.
    let mut flat = Vec::new();
    for s in 0..3 {
        flat.push(Row::Stack { stack: s });
        let mut f = 0;
        while f < 1000 {
            if f % 100 == 50 {
                let open = expanded.contains(&(s, f));
                flat.push(Row::Group {
                    kind: GroupKind::Library,
                    stack: s,
                    first: f,
                    count: 50,
                    expanded: open,
                });
                if open {
                    flat.extend((f..f + 50).map(|k| Row::Frame { stack: s, frame: k }));
                }
                f += 50;
            } else {
                flat.push(Row::Frame { stack: s, frame: f });
                f += 1;
            }
        }
    }
    assert_eq!(rows.len(), flat.len());
    assert!(rows.runs.len() < 100, "runs, not rows: {}", rows.runs.len());
    for (n, row) in flat.iter().enumerate() {
        assert_eq!(rows.row(n), Some(*row), "row {n}");
        if let Row::Frame { stack, frame } = *row {
            assert_eq!(rows.row_of_frame(stack, frame), Some(n));
        }
    }
    assert_eq!(rows.row(flat.len()), None);
    // Keyboard steps skip headers and folded groups.
    assert_eq!(rows.step(Some((0, 49)), true), Some((0, 100)));
    assert_eq!(
        rows.step(Some((1, 0)), false),
        Some((0, 949)),
        "folded group skipped"
    );
    assert_eq!(
        rows.step(Some((1, 49)), true),
        Some((1, 50)),
        "expanded group"
    );
    assert_eq!(rows.step(None, true), Some((0, 0)));
    assert_eq!(
        rows.step(Some((2, 999)), true),
        Some((2, 999)),
        "stays at the end"
    );
}

/// A stack overflow's rounds after the first fold into one row, for a round of one frame or
/// of several; a pair of equal frames does not fold, and an expanded fold shows them all.
#[test]
fn recursion_folds_into_one_row() {
    let mut java = String::from("Exception in thread \"main\" java.lang.StackOverflowError\n");
    for _ in 0..3_000 {
        java.push_str("\tat a.b.C.walk(C.java:12)\n");
    }
    java.push_str("\tat a.b.C.main(C.java:3)\n");
    let t = table(&java);
    let rows = StackRows::build(&t, "", &Folds::default(), &FrameNotes::new(), true);
    let all: Vec<Row> = rows.rows(0..rows.len()).collect();
    assert_eq!(
        all,
        [
            Row::Stack { stack: 0 },
            Row::Frame { stack: 0, frame: 0 },
            Row::Group {
                kind: GroupKind::Recursion { period: 1 },
                stack: 0,
                first: 1,
                count: 2_999,
                expanded: false,
            },
            Row::Frame {
                stack: 0,
                frame: 3_000
            },
        ]
    );
    // Opened, every frame shows again.
    let mut folds = Folds::default();
    folds.expanded.insert((0, 1));
    let open = StackRows::build(&t, "", &folds, &FrameNotes::new(), true);
    assert_eq!(open.len(), 4 + 2_999);

    // A round of two frames (a, b, a, b, …): the first round stays, the rest fold.
    let mut v8 = String::from("RangeError: Maximum call stack size exceeded\n");
    for _ in 0..500 {
        v8.push_str("    at a (app.js:1:10)\n    at b (app.js:2:20)\n");
    }
    let t = table(&v8);
    let rows = StackRows::build(&t, "", &Folds::default(), &FrameNotes::new(), true);
    let groups: Vec<Row> = rows
        .rows(0..rows.len())
        .filter(|r| matches!(r, Row::Group { .. }))
        .collect();
    assert_eq!(
        groups,
        [Row::Group {
            kind: GroupKind::Recursion { period: 2 },
            stack: 0,
            first: 2,
            count: 998,
            expanded: false,
        }]
    );
    // Two equal frames in a row are no recursion to fold.
    let t = table("Error\n    at a (app.js:1:10)\n    at a (app.js:1:10)\n    at b (app.js:2:2)\n");
    let rows = StackRows::build(&t, "", &Folds::default(), &FrameNotes::new(), true);
    assert!(
        rows.rows(0..rows.len())
            .all(|r| !matches!(r, Row::Group { .. }))
    );
}
