//! Frames in the one-line forms mobile monitoring SDKs upload (issue #21, part 2), read as a
//! user's log is (format detection included) and resolved against the corpus's binaries: the
//! Android build ID picks the ELF, the iOS UUID the dSYM. Expected answers are the corpus
//! oracles' output for the same addresses (`tests/fixtures/native/sdk`): `llvm-symbolizer`'s
//! lines, with function names as GNU `addr2line` demangles them where it was run.
//! Java frames without `at ` resolve as the same frames with it.

mod common;

use common::fixture;
use symscope::model::{FrameStatus, LogFormat};

/// The oracle's innermost (function, line) for each frame, in order.
fn oracle(path: &str, keep: impl Fn(&serde_json::Value) -> bool) -> Vec<(String, u32)> {
    let text = std::fs::read_to_string(fixture(path)).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| keep(f))
        .map(|f| {
            let top = &f["llvm_symbolizer"][0];
            // Names as GNU addr2line demangles them (`{lambda(long)#1}`), as ours are.
            let function = f["addr2line"][0]["function"]
                .as_str()
                .or(top["FunctionName"].as_str())
                .unwrap();
            (function.to_owned(), top["Line"].as_u64().unwrap() as u32)
        })
        .collect()
}

/// Our innermost (function, line) for each frame of the first stack.
fn ours(log: &str, symbols: &[&str]) -> (LogFormat, Vec<(String, u32)>) {
    let text = std::fs::read_to_string(fixture(log)).unwrap();
    let trace = symscope::formats::parse_text(&text);
    let paths: Vec<_> = symbols.iter().map(|s| fixture(s)).collect();
    let result = common::symbolicate(&trace, &common::symbols(&paths), None);
    let frames = result.stacks[0]
        .frames
        .iter()
        .map(|f| {
            assert_eq!(f.status, FrameStatus::Resolved, "{f:?}");
            let top = &f.resolved[0];
            (top.function.clone().unwrap(), top.line.unwrap())
        })
        .collect();
    (trace.format, frames)
}

#[test]
fn android_native_frames_find_their_elf_by_build_id() {
    // The first crash's frames in `crashy`, as far as the SDK file goes (five of them).
    let mut expected = oracle("native/crashy/oracle-crash-1.json", |f| {
        f["in_module"] == "crashy"
    });
    expected.dedup();
    let (format, got) = ours("native/sdk/android-crashy.txt", &["native/crashy/crashy"]);
    assert_eq!(format, LogFormat::SdkFrames);
    assert_eq!(got, expected[..got.len()]);
    assert_eq!(got.len(), 5);
}

#[test]
fn ios_frames_find_their_dsym_by_uuid() {
    let expected = oracle("native/macho/oracle-macho.json", |_| true);
    let (format, got) = ours(
        "native/sdk/ios-macho.txt",
        &["native/macho/macho_crash.dSYM/Contents/Resources/DWARF/macho_crash"],
    );
    assert_eq!(format, LogFormat::SdkFrames);
    assert_eq!(got, expected);
    // Another build's UUID: the dSYM named like the module is not used for its frames.
    let text = std::fs::read_to_string(fixture("native/sdk/ios-macho.txt"))
        .unwrap()
        .replace(
            "4c4c440c-5555-3144-a1d2-6b4552990f29",
            "00000000-1111-2222-3333-444444444444",
        );
    let trace = symscope::formats::parse_text(&text);
    let symbols = common::symbols(&[fixture(
        "native/macho/macho_crash.dSYM/Contents/Resources/DWARF/macho_crash",
    )]);
    let result = common::symbolicate(&trace, &symbols, None);
    assert!(
        result.stacks[0]
            .frames
            .iter()
            .all(|f| f.status == FrameStatus::NoSymbols),
        "{:?}",
        result.stacks[0].frames
    );
}

#[test]
fn java_frames_without_at_resolve_as_with_it() {
    let text = std::fs::read_to_string(fixture("java/shop/obf-tree.txt")).unwrap();
    let bare: String = text
        .lines()
        .map(|l| l.trim_start().strip_prefix("at ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(bare, text);
    let symbols = common::symbols(&[fixture("java/shop/shop-mapping.txt")]);
    let with_at = symscope::formats::parse_text(&text);
    let without = symscope::formats::parse_text(&bare);
    assert_eq!(without.format, LogFormat::Java);
    let a = common::symbolicate(&with_at, &symbols, None);
    let b = common::symbolicate(&without, &symbols, None);
    let resolved = |r: &symscope::model::SymbolicatedTrace| -> Vec<_> {
        r.stacks
            .iter()
            .flat_map(|s| s.frames.iter().map(|f| (f.status, f.resolved.clone())))
            .collect()
    };
    assert_eq!(resolved(&a), resolved(&b));
    assert!(
        resolved(&b)
            .iter()
            .filter(|(s, _)| *s == FrameStatus::Resolved)
            .count()
            >= 3
    );
}
