//! Real JavaScript stack strings from public parser test suites (Sentry's TraceKit tests,
//! error-stack-parser, stacktrace-parser, Chrome DevTools, vscode-js-debug, React Native),
//! each read into the frames its authors expect: see `tests/fixtures/js-stacks/README.md`.
//! Every case goes through the route a pasted or dropped log takes (format detection, then
//! the reader), and through the engine's frame table the CLI and the window show.

use serde_json::Value;
use symscope::engine::{Cfi, Detected, read_log};
use symscope::formats;
use symscope::model::{Blob, FrameInput, FrameStatus, LogFormat, NoProgress};
use symscope::symbolicate::{Options, SymbolSet};

/// A frame as the fixture writes it: `[function, file, line, column]`.
type Expected = (Option<String>, Option<String>, Option<u32>, Option<u32>);

struct Case {
    name: String,
    stack: String,
    frames: Vec<Expected>,
    upstream: Option<Vec<Expected>>,
}

fn frames(v: &Value) -> Vec<Expected> {
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let num = |v: &Value| v.as_u64().map(|n| n as u32);
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| (text(&f[0]), text(&f[1]), num(&f[2]), num(&f[3])))
        .collect()
}

fn cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/js-stacks/cases.json"
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            name: format!(
                "{} / {}",
                c["source"]["repo"].as_str().unwrap(),
                c["test"].as_str().unwrap()
            ),
            stack: c["stack"].as_str().unwrap().to_owned(),
            frames: frames(&c["frames"]),
            upstream: c.get("upstream_frames").map(frames),
        })
        .collect()
}

fn expected(input: &FrameInput<&str>) -> Expected {
    (
        input.function.map(str::to_owned),
        input.file.map(str::to_owned),
        input.line,
        input.column,
    )
}

#[test]
fn every_stack_parses_to_its_expected_frames() {
    let cases = cases();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let trace = formats::parse_text(&case.stack);
        let got: Vec<Expected> = trace
            .stacks
            .iter()
            .flat_map(|s| &s.frames)
            .filter_map(|f| f.input.as_ref().map(|i| expected(&i.as_view())))
            .collect();
        if got != case.frames {
            failures.push(format!(
                "{}\n  expected {:?}\n  got      {:?}",
                case.name, case.frames, got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// No line is lost: every line that is not blank is in a stack's title or is a frame (read
/// or `unparsed`), in the order of the log.
#[test]
fn no_line_is_dropped() {
    for case in cases() {
        let trace = formats::parse_text(&case.stack);
        let mut lines: Vec<&str> = Vec::new();
        for s in &trace.stacks {
            lines.extend(s.title.lines());
            lines.extend(s.frames.iter().map(|f| f.raw.as_str()));
        }
        let kept: Vec<&str> = lines.into_iter().filter(|l| !l.trim().is_empty()).collect();
        let printed: Vec<&str> = case
            .stack
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        assert_eq!(kept, printed, "{}", case.name);
    }
}

/// The engine's frame table (what the CLI writes and the window lists) holds the same frames
/// as the reader, read from the same bytes by the same detection.
#[test]
fn the_engine_table_holds_the_same_frames() {
    for case in cases() {
        let file = Detected::new("pasted.txt", Blob::from(case.stack.clone().into_bytes()));
        let log = read_log(&file, &Cfi::default(), &mut NoProgress).unwrap();
        let got: Vec<Expected> = log
            .table
            .frames()
            .filter_map(|(_, f)| f.input().map(|i| expected(&i)))
            .collect();
        assert_eq!(got, case.frames, "{}", case.name);
    }
}

/// Where a convention differs from the suite's, the case says why and keeps the suite's
/// frames: they must really differ (an override that agrees is stale).
#[test]
fn overrides_are_real_differences() {
    let cases = cases();
    let overridden: Vec<&Case> = cases.iter().filter(|c| c.upstream.is_some()).collect();
    assert!(overridden.len() >= 20);
    for case in overridden {
        assert_ne!(case.upstream.as_ref(), Some(&case.frames), "{}", case.name);
    }
}

/// The engine families are told apart on the corpus's own stacks.
#[test]
fn formats_are_detected() {
    let format = |needle: &str| {
        let case = cases()
            .into_iter()
            .find(|c| c.name.contains(needle))
            .unwrap_or_else(|| panic!("no case {needle}"));
        formats::parse_text(&case.stack).format
    };
    assert_eq!(format("should parse Chrome 15 error"), LogFormat::V8);
    assert_eq!(
        format("should parse Firefox 31 Error.stack"),
        LogFormat::Spidermonkey
    );
    assert_eq!(
        format("should parse exceptions with eval frames in Safari 12"),
        LogFormat::Jsc
    );
    assert_eq!(format("hermesBytecodeLocation"), LogFormat::HermesBytecode);
}

/// The case whose name holds `needle`, read and symbolicated by the engine with no symbols.
fn symbolicated(needle: &str) -> symscope::engine::LogFile {
    let case = cases()
        .into_iter()
        .find(|c| c.name.contains(needle))
        .unwrap_or_else(|| panic!("no case {needle}"));
    let file = Detected::new("pasted.txt", Blob::from(case.stack.into_bytes()));
    let log = read_log(&file, &Cfi::default(), &mut NoProgress).unwrap();
    log.symbolicate(&SymbolSet::default(), Options::default(), &mut NoProgress)
        .unwrap()
}

/// An eval'd frame is shown at the eval call, and says where it ran in the eval'd code; a
/// frame with no position is kept as `skipped`, with the reason.
#[test]
fn eval_and_native_frames_say_what_they_are() {
    let log = symbolicated("should parse nested eval() from Chrome");
    let baz = log.table.frames().map(|(_, f)| f).next().unwrap();
    assert_eq!(baz.input().unwrap().eval, Some("<anonymous>:1:30"));
    let note = baz.note().unwrap();
    assert!(
        note.contains("eval'd code (at <anonymous>:1:30 there)"),
        "{note}"
    );

    let log = symbolicated("should parse Safari 6 Error.stack");
    let native = log.table.frames().map(|(_, f)| f).last().unwrap();
    assert_eq!(native.raw(), "[native code]");
    assert_eq!(native.status(), Some(FrameStatus::Skipped));
    assert!(native.note().unwrap().contains("built-in or native frame"));
}
