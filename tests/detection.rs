//! A log's format is told the same whatever its length: each corpus trace (its format as the
//! corpus says which engine or tool printed it) rebuilt with its first frame line repeated
//! 1 to 100,000 times (the rest of the trace kept) is read as the same format, by the CLI's detection and
//! parser (`formats::parse_text`). A Java `StackOverflowError` of thousands of frames was
//! read as a V8 stack once its frames passed the sniffed head.

mod common;

use common::fixture;
use symscope::model::LogFormat;

/// (trace, its format, how its frame lines start once trimmed).
const TRACES: &[(&str, LogFormat, &str)] = &[
    ("js/three-esbuild/trace.txt", LogFormat::V8, "at "),
    (
        "js/three-esbuild/trace-jsc.txt",
        LogFormat::Jsc,
        "expandByObject@",
    ),
    (
        "js/three-esbuild/trace-spidermonkey.txt",
        LogFormat::Spidermonkey,
        "expandByObject@",
    ),
    (
        "js/metro-hermes/trace-hermes-source.txt",
        LogFormat::Hermes,
        "at ",
    ),
    (
        "js/metro-hermes/trace-hermes-bytecode.txt",
        LogFormat::HermesBytecode,
        "at ",
    ),
    ("java/shop/obf-tree.txt", LogFormat::Java, "at "),
    (
        "native/android-tombstone/tombstone-arm64.txt",
        LogFormat::AndroidTombstone,
        "#00 pc",
    ),
];

/// Frame counts: around the sniffed head's 400 lines, and far past it.
const LENGTHS: &[usize] = &[1, 2, 399, 400, 401, 402, 1_000, 3_000, 100_000];

#[test]
fn a_logs_format_does_not_depend_on_its_length() {
    for &(path, format, frame) in TRACES {
        let text = std::fs::read_to_string(fixture(path)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let first = lines
            .iter()
            .position(|l| l.trim_start().starts_with(frame))
            .unwrap_or_else(|| panic!("{path}: no frame line"));
        // The whole trace first: the corpus's word for its format.
        assert_eq!(
            symscope::formats::parse_text(&text).format,
            format,
            "{path}"
        );
        for &n in LENGTHS {
            let mut rebuilt: Vec<&str> = lines[..first].to_vec();
            rebuilt.extend(std::iter::repeat_n(lines[first], n));
            rebuilt.extend_from_slice(&lines[first + 1..]);
            let rebuilt = rebuilt.join("\n") + "\n";
            let trace = symscope::formats::parse_text(&rebuilt);
            assert_eq!(trace.format, format, "{path} with {n} frames");
            let frames: usize = trace.stacks.iter().map(|s| s.frames.len()).sum();
            assert!(frames >= n, "{path} with {n} frames: {frames} read");
        }
    }
}

/// CPU profiles are told from their bytes, whatever their names: V8's `.cpuprofile`, a
/// Chrome trace (`traceEvents`), a Hermes sampling profile; heap snapshots are theirs; maps
/// and JSON crash events stay what they were.
#[test]
fn cpu_profiles_are_told_from_their_bytes() {
    use symscope::formats::peek;
    use symscope::model::FileKind;
    for rel in [
        "profiles/lodash-min.cpuprofile",
        "profiles/lodash-unminified.cpuprofile",
        "profiles/lodash-trace.json",
        "profiles/hermes/work.hermes-profile.json",
        "profiles/perf/work.perf.txt",
    ] {
        let bytes = std::fs::read(fixture(rel)).unwrap();
        assert_eq!(peek(&bytes), FileKind::Profile, "{rel}");
    }
    for (rel, kind) in [
        ("heap/before.heapsnapshot", FileKind::HeapSnapshot),
        ("heap/after.heapsnapshot", FileKind::HeapSnapshot),
        ("heap/lodash.heaptimeline", FileKind::HeapSnapshot),
        ("heap/lodash.heapprofile", FileKind::Profile),
        ("profiles/hermes/work.hbc.map", FileKind::SourceMap),
        ("js/lodash-terser/lodash.min.js.map", FileKind::SourceMap),
        (
            "native/sentry-symbolic/crashprobe/x86_64/Swift.json",
            FileKind::Log,
        ),
    ] {
        let bytes = std::fs::read(fixture(rel)).unwrap();
        assert_eq!(peek(&bytes), kind, "{rel}");
    }
}
