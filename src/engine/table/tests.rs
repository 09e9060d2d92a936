use super::*;
use crate::model::{Frame, Stack};

fn sample() -> (&'static str, Trace, SymbolicatedTrace) {
    let text =
        "Error: boom\r\n    at a (x.js:1:2)\n    at b (node_modules/y.js:3:4)\n    at a (x.js:1:2)";
    let frame = |raw: &str, line_no, file: &str| Frame {
        raw: raw.to_owned(),
        line_no,
        input: Some(FrameInput {
            file: Some(file.to_owned()),
            ..FrameInput::default()
        }),
    };
    let trace = Trace {
        format: LogFormat::V8,
        modules: Vec::new(),
        stacks: vec![Stack {
            title: "Error: boom".to_owned(),
            title_line: 1,
            crashed: true,
            frames: vec![
                frame("    at a (x.js:1:2)", 2, "x.js"),
                frame("    at b (node_modules/y.js:3:4)", 3, "node_modules/y.js"),
                frame("    at a (x.js:1:2)", 4, "x.js"),
            ],
        }],
    };
    let resolved = SymbolicatedFrame {
        status: FrameStatus::Resolved,
        symbol_file: Some("x.js.map".to_owned()),
        generated: Some((0, 1)),
        resolved: vec![ResolvedLocation {
            function: Some("alpha".to_owned()),
            name_source: Some(NameSource::Token),
            file: Some("src/a.ts".to_owned()),
            line: Some(10),
            column: Some(5),
            ..ResolvedLocation::default()
        }],
        alternatives: Vec::new(),
        note: None,
    };
    let missing = SymbolicatedFrame {
        status: FrameStatus::NoSymbols,
        symbol_file: None,
        generated: None,
        resolved: Vec::new(),
        alternatives: vec![resolved.resolved.clone()],
        note: Some("no map for y.js".to_owned()),
    };
    let result = SymbolicatedTrace {
        format: LogFormat::V8,
        stacks: vec![SymbolicatedStack {
            title: "Error: boom".to_owned(),
            crashed: true,
            frames: vec![resolved.clone(), missing, resolved],
        }],
        warnings: vec!["w".to_owned()],
        timings: Vec::new(),
        modules: Vec::new(),
    };
    (text, trace, result)
}

#[test]
fn round_trips_the_result_and_shares_repeats() {
    let (_, trace, result) = sample();
    let table = FrameTable::from_trace(&trace, Some(&result));
    assert_eq!(table.to_result(), Some(result));
    assert_eq!(table.frame(0, 0).unwrap().raw(), "    at a (x.js:1:2)");
    assert_eq!(table.frame(0, 2).unwrap().raw(), "    at a (x.js:1:2)");
    assert_eq!(table.stack_title(0), "Error: boom");
    assert!(table.frame(0, 1).unwrap().is_library());
    assert!(!table.frame(0, 0).unwrap().is_library());
    assert!(table.frame(0, 3).is_none() && table.frame(1, 0).is_none());
    // Two frames at one place share one outcome, one chain and one location.
    let results = table.results.as_ref().unwrap();
    assert_eq!((results.outcomes.len(), results.chains.len()), (2, 1));
    assert_eq!(results.locations.len(), 1);
    // The two equal lines are one string, and what the parser read one record.
    assert_eq!(table.log.frames[0].raw, table.log.frames[2].raw);
    assert_eq!(table.log.frames[0].input, table.log.frames[2].input);
    assert_eq!(size_of::<FrameRec>(), 8);
}

#[test]
fn printed_names_are_spans_of_their_lines() {
    let (_, mut trace, mut result) = sample();
    let frames = &mut trace.stacks[0].frames;
    frames[0].raw = "    at Qe.foo (x.js:1:2)".to_owned();
    frames[2].raw = "    at Zr.bar (x.js:1:2)".to_owned();
    let stack = &mut result.stacks[0];
    for (f, name) in [(0, "foo"), (2, "bar")] {
        let loc = &mut stack.frames[f].resolved[0];
        loc.function = Some(name.to_owned());
        loc.name_source = Some(NameSource::Trace);
    }
    // A printed name that is not in the line stays a string of its own.
    stack.frames[1].alternatives[0][0].function = Some("elsewhere".to_owned());
    stack.frames[1].alternatives[0][0].name_source = Some(NameSource::Trace);
    let table = FrameTable::from_trace(&trace, Some(&result));
    assert_eq!(table.to_result(), Some(result));
    // The two frames differ only in their printed names: one location, one resolution.
    let results = table.results.as_ref().unwrap();
    assert_eq!(results.res[0], results.res[2]);
    assert_eq!(
        table.frame(0, 2).unwrap().location().unwrap().function,
        Some("bar")
    );
}

#[test]
fn unsymbolicated_tables_have_raw_frames_only() {
    let (_, trace, _) = sample();
    let table = FrameTable::from_trace(&trace, None);
    assert!(!table.is_symbolicated() && table.to_result().is_none());
    let f = table.frame(0, 1).unwrap();
    assert_eq!(f.status(), None);
    assert_eq!(f.location(), None);
    assert_eq!(f.raw(), "    at b (node_modules/y.js:3:4)");
    assert!(
        f.is_library(),
        "unmapped node_modules frames are library code"
    );
}
