//! Bad input gets a named error (or `unparsed` frames), never a panic or a hang.

mod common;

use common::js;

use std::path::Path;
use symscope::engine::AddSymbols as _;
use symscope::formats;
use symscope::model::{Blob, NoProgress};
use symscope::symbolicate::{self, Options, SymbolSet};
use symscope::symbols::sourcemap::{ErrorKind, SourceMap};

fn kind_of(json: &str) -> ErrorKind {
    SourceMap::parse(json.as_bytes().to_vec()).unwrap_err().kind
}

#[test]
fn truncated_json_at_every_kind_of_place() {
    let map = std::fs::read(js("lodash-terser/lodash.min.js.map")).unwrap();
    // Cut inside keys, strings with escapes, the mappings string, arrays and at the end.
    let mut cuts: Vec<usize> = (1..200).map(|i| i * map.len() / 200).collect();
    cuts.extend([1, 2, 10, map.len() - 1]);
    for cut in cuts {
        let err = SourceMap::parse(map[..cut].to_vec()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::BadJson, "cut at {cut}: {err}");
        assert!(
            err.to_string().contains("byte"),
            "the message says where: {err}"
        );
    }
}

#[test]
fn corrupt_mappings_are_named() {
    let m = |mappings: &str| {
        format!(r#"{{"version":3,"sources":["a.js"],"names":["n"],"mappings":"{mappings}"}}"#)
    };
    assert_eq!(kind_of(&m("AAAA;AA*A")), ErrorKind::BadBase64);
    assert_eq!(kind_of(&m("AAAA,ggggggggQA")), ErrorKind::VlqOverflow);
    assert!(
        SourceMap::parse(m("AAAA,gggggggggA").into_bytes()).is_ok(),
        "zero digits past 32 bits"
    );
    assert_eq!(kind_of(&m("AAAA,ACAA")), ErrorKind::BadSourceIndex);
    assert_eq!(kind_of(&m("AAAAA,AAAAC")), ErrorKind::BadNameIndex);
    assert_eq!(kind_of(&m("AAAAD")), ErrorKind::BadNameIndex);
    assert_eq!(kind_of(&m("AA")), ErrorKind::BadSegmentSize);
    assert_eq!(kind_of(&m("AAAF")), ErrorKind::NegativeValue);
    assert_eq!(
        kind_of(&m("AAAA,g")),
        ErrorKind::BadBase64,
        "unfinished term"
    );
    assert_eq!(
        kind_of(r#"{"version":2,"mappings":""}"#),
        ErrorKind::UnsupportedVersion
    );
    assert_eq!(
        kind_of(r#"{"version":3,"sources":[]}"#),
        ErrorKind::NotASourceMap
    );
    assert_eq!(
        kind_of(r#"{"sections":[{"offset":{"line":0,"column":0},"url":"x.map"}]}"#),
        ErrorKind::BadSection
    );
    assert_eq!(kind_of("[1,2,3]"), ErrorKind::BadJson);
}

#[test]
fn empty_mappings_resolve_nothing() {
    let map = SourceMap::parse(br#"{"version":3,"sources":[],"names":[],"mappings":""}"#.to_vec())
        .unwrap();
    assert!(map.lookup(0, 0).unwrap().is_none());
    assert!(map.lookup(7, 3).unwrap().is_none());
    let map =
        SourceMap::parse(br#"{"version":3,"sources":["a"],"names":[],"mappings":";;;"}"#.to_vec())
            .unwrap();
    assert!(map.lookup(2, 0).unwrap().is_none());
}

#[test]
fn non_utf8_is_replaced_not_fatal() {
    let mut map = br#"{"version":3,"sources":["a"#.to_vec();
    map.extend_from_slice(&[0xff, 0xfe]);
    map.extend_from_slice(br#".js"],"names":[],"mappings":"AAAA"}"#);
    let m = SourceMap::parse(map).unwrap();
    let t = m.lookup(0, 0).unwrap().unwrap();
    assert_eq!(t.source().unwrap(), "a\u{fffd}\u{fffd}.js");

    let mut log = b"TypeError: x\n    at f (a.js:1:2)\n    at ".to_vec();
    log.extend_from_slice(&[0xc3, 0x28, 0xa0, 0xa1]);
    log.extend_from_slice(b" (b.js:3:4)\n");
    let trace = formats::parse_log(&log);
    assert_eq!(trace.stacks[0].frames.len(), 2);
}

#[test]
fn a_50_mb_one_line_map_is_indexed_and_looked_up_in_bounded_work() {
    // One generated line of 10 million 4-field segments ("CAAC": +1 column, +1 source column).
    let segments = 10_000_000;
    let mut mappings = String::with_capacity(segments * 5);
    for i in 0..segments {
        if i > 0 {
            mappings.push(',');
        }
        mappings.push_str("CAAC");
    }
    let json =
        format!(r#"{{"version":3,"sources":["big.js"],"names":[],"mappings":"AAAA,{mappings}"}}"#);
    assert!(json.len() > 50_000_000);
    let map = SourceMap::parse(json.into_bytes()).unwrap();
    let SourceMap::Regular(regular) = &map else {
        panic!()
    };
    assert!(
        regular.index().unwrap().checkpoint_count() > 100_000,
        "checkpoints bound each look-up"
    );
    for col in [0u32, 1, 5_000_000, 9_999_999, 10_000_000, u32::MAX] {
        let t = map.lookup(0, col).unwrap().unwrap();
        let expected = col.min(segments as u32);
        assert_eq!((t.gen_col(), t.src_col()), (expected, Some(expected)));
    }
}

#[test]
fn a_50_mb_one_line_log_is_one_unparsed_title() {
    let line = "x".repeat(50 * 1024 * 1024);
    let trace = formats::parse_log(line.as_bytes());
    assert_eq!(trace.stacks.len(), 1);
    assert!(trace.stacks[0].frames.is_empty());
}

#[test]
fn binary_junk_as_a_log_or_a_map() {
    let junk: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let trace = formats::parse_log(&junk);
    let symbols = SymbolSet::new();
    let _ = symbolicate::symbolicate(&trace, &symbols, Options::default(), &mut NoProgress);
    let mut set = SymbolSet::new();
    assert!(set.add("junk.bin", Blob::from(junk.clone())).is_err());
    assert!(SourceMap::parse(junk).is_err());
}

#[test]
fn an_empty_log_has_no_stacks() {
    assert!(formats::parse_log(b"").stacks.is_empty());
    assert!(formats::parse_log(b"\n\n  \n").stacks.is_empty());
}

#[test]
fn deeply_nested_json_does_not_overflow_the_stack() {
    let mut json = String::from(r#"{"version":3,"sources":[],"names":[],"mappings":"","x_extra":"#);
    json.push_str(&"[".repeat(1_000_000));
    json.push_str(&"]".repeat(1_000_000));
    json.push('}');
    assert!(SourceMap::parse(json.into_bytes()).is_ok());
}

mod proguard {
    use super::*;
    use symscope::model::{FrameStatus, LogFormat};
    use symscope::symbols::proguard::{Mapping, MappingError};

    fn java(rel: &str) -> Vec<u8> {
        std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/java")
                .join(rel),
        )
        .unwrap()
    }

    fn run(mapping: Vec<u8>, log: &[u8]) -> symscope::model::SymbolicatedTrace {
        let mut symbols = SymbolSet::new();
        symbols.add("mapping.txt", Blob::from(mapping)).ok();
        let trace = formats::parse_log(log);
        assert_eq!(trace.format, LogFormat::Java);
        match symbolicate::symbolicate(&trace, &symbols, Options::default(), &mut NoProgress) {
            symbolicate::Outcome::Done(r) => r,
            symbolicate::Outcome::Cancelled(_) => panic!("cancelled"),
        }
    }

    /// A mapping cut anywhere still indexes what it holds (or says it holds no class), and
    /// a trace against it resolves or explains every frame.
    #[test]
    fn truncated_mapping() {
        let mapping = java("shop/shop-mapping.txt");
        let log = java("shop/obf-pricing.txt");
        for cut in (0..mapping.len()).step_by(97).chain([mapping.len() - 1]) {
            let part = mapping[..cut].to_vec();
            match Mapping::parse(Blob::from(part.clone())) {
                // Cut inside the header comments: a valid mapping with no class.
                Ok(m) => assert!(
                    m.class_count() >= 1 || !part.contains(&b'>'),
                    "cut at {cut}"
                ),
                Err(e) => assert_eq!(e, MappingError::NoClasses, "cut at {cut}"),
            }
            let r = run(part, &log);
            for f in r.stacks.iter().flat_map(|s| &s.frames) {
                assert!(
                    f.status == FrameStatus::Resolved || f.note.is_some(),
                    "cut at {cut}: {f:?}"
                );
            }
        }
    }

    #[test]
    fn binary_junk_is_a_named_error() {
        let junk: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        assert_eq!(
            Mapping::parse(Blob::from(junk.clone())).unwrap_err(),
            MappingError::Binary
        );
        let err = SymbolSet::new()
            .add("junk-mapping.txt", Blob::from(junk))
            .unwrap_err();
        assert!(err.to_string().contains("junk-mapping.txt"), "{err}");
    }

    /// A 1 GiB line (no line break) before the classes: the scan passes it at memory speed
    /// and the classes after it still resolve; a file that is only that line has no class.
    #[test]
    fn a_one_gib_line() {
        // The gibibyte is shared with the first parse, not copied.
        struct Shared(std::sync::Arc<Vec<u8>>);
        impl AsRef<[u8]> for Shared {
            fn as_ref(&self) -> &[u8] {
                &self.0
            }
        }
        let line = std::sync::Arc::new("x".repeat(1 << 30).into_bytes());
        assert_eq!(
            Mapping::parse(Blob::new(Shared(line.clone()))).unwrap_err(),
            MappingError::NoClasses
        );
        let mut bytes = std::sync::Arc::try_unwrap(line).unwrap();
        bytes.push(b'\n');
        bytes.extend_from_slice(&java("shop/shop-mapping.txt"));
        let m = Mapping::parse(Blob::from(bytes)).unwrap();
        assert_eq!(m.class_count(), 11);
        assert_eq!(
            m.original_class("com.example.shop.a.b"),
            Some("com.example.shop.config.ConfigLoader")
        );
    }

    /// The same classes twice (two mappings concatenated): members merge and the last
    /// original name wins, as in the crate; the trace names the duplicated classes in a
    /// warning.
    #[test]
    fn duplicate_classes() {
        let mut twice = java("shop/shop-mapping.txt");
        twice.extend_from_slice(&java("shop/shop-mapping.txt"));
        let r = run(twice.clone(), &java("shop/obf-config.txt"));
        assert!(
            r.warnings.iter().any(|w| w.contains("more than once")),
            "{:?}",
            r.warnings
        );
        let frame = &r.stacks[0].frames[0];
        assert_eq!(frame.status, FrameStatus::Resolved);
        // The crate's full mapper gives the same frames.
        let text = String::from_utf8(twice).unwrap();
        let mapper = ::proguard::ProguardMapper::from(text.as_str());
        let theirs: Vec<String> = mapper
            .remap_frame(&::proguard::StackFrame::new(
                "com.example.shop.a.b",
                "a",
                11,
            ))
            .map(|f| format!("{}.{}", f.class(), f.method()))
            .collect();
        let ours: Vec<String> = std::iter::once(&frame.resolved)
            .chain(&frame.alternatives)
            .flatten()
            .map(|l| l.function.clone().unwrap())
            .collect();
        assert_eq!(ours, theirs);
    }
}

mod native {
    use super::*;
    use symscope::jobs::ParallelIndex;
    use symscope::symbols::native::NativeSymbols;

    /// An ELF cut anywhere, or with junk in its middle, is a named error or a smaller
    /// object: never a panic.
    #[test]
    fn truncated_and_corrupt_elf() {
        let elf = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native/crashy/crashy"),
        )
        .unwrap();
        for cut in (0..elf.len()).step_by(997) {
            let serial = NativeSymbols::convert(&elf[..cut], None);
            if let Err(e) = &serial {
                assert!(!e.to_string().is_empty());
            }
            // Read and written on two threads: the same error, or the same SymCache.
            let beside = NativeSymbols::convert_with(&elf[..cut], None, &ParallelIndex);
            assert_eq!(
                beside.as_ref().map(|n| n.to_cache_bytes()),
                serial.as_ref().map(|n| n.to_cache_bytes()),
                "cut at {cut}"
            );
            // Opened lazily (the CLI's route): an error or answers, never a panic.
            let blob = symscope::model::Blob::from(elf[..cut].to_vec());
            let lazy = NativeSymbols::open(
                &blob,
                None,
                &symscope::model::Serial,
                &mut symscope::model::NoProgress,
            );
            match lazy {
                Err(e) => assert!(!e.to_string().is_empty()),
                Ok(n) => {
                    for addr in [0, 0x1000, 0x1139, u64::MAX] {
                        n.lookup(addr);
                    }
                }
            }
        }
        let mut junk = elf.clone();
        for i in (64..junk.len()).step_by(13) {
            junk[i] = junk[i].wrapping_mul(31).wrapping_add(7);
        }
        let _ = NativeSymbols::convert(&junk, None);
        let err = SymbolSet::new()
            .add("cut.elf", Blob::from(elf[..40].to_vec()))
            .unwrap_err();
        assert!(err.to_string().contains("cut.elf"), "{err}");
    }

    /// Regression (found by fuzzing): a Mach-O whose `LC_MAIN` entry point overflows in
    /// goblin's arithmetic is an error or an object, never a panic, in test builds too.
    #[test]
    fn goblin_entry_point_overflow() {
        let bytes = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/native/regression/goblin-entry-point-overflow.macho"),
        )
        .unwrap();
        match NativeSymbols::convert(&bytes, None) {
            Err(e) => assert!(!e.to_string().is_empty()),
            Ok(n) => {
                for o in n.objects() {
                    let _ = o.lookup(0x1000);
                }
            }
        }
    }

    /// A universal Mach-O dSYM and a PDB, cut anywhere or with junk through them: a named
    /// error or a smaller object, never a panic; look-ups in whatever converts never panic.
    #[test]
    fn truncated_and_corrupt_macho_and_pdb() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
        for (file, step) in [
            (
                "sentry-symbolic/crashprobe/simulator-CrashProbeiOS.app.dSYM/Contents/Resources/DWARF/CrashProbeiOS",
                7919,
            ),
            ("sentry-symbolic/fixtures/windows/crash.pdb", 4099),
        ] {
            let bytes = std::fs::read(root.join(file)).unwrap();
            for cut in (0..bytes.len()).step_by(step) {
                match NativeSymbols::convert(&bytes[..cut], None) {
                    Err(e) => assert!(!e.to_string().is_empty()),
                    Ok(n) => {
                        for o in n.objects() {
                            let _ = o.lookup(0x1000);
                        }
                    }
                }
            }
            let mut junk = bytes.clone();
            for i in (4096..junk.len()).step_by(31) {
                junk[i] = junk[i].wrapping_mul(31).wrapping_add(7);
            }
            let _ = NativeSymbols::convert(&junk, None).map(|n| n.lookup(0x1000));
        }
    }

    /// A dSYM bundle without its DWARF file (only `Info.plist`): the CLI warns that the
    /// folder holds no symbol files and the frames say which debug file to add.
    #[test]
    fn a_dsym_without_dwarf() {
        let dir = std::env::temp_dir().join(format!("symscope-nodwarf-{}", std::process::id()));
        let bundle = dir.join("CrashProbeiOS.app.dSYM/Contents");
        std::fs::create_dir_all(bundle.join("Resources/DWARF")).unwrap();
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(
                "tests/fixtures/native/sentry-symbolic/crashprobe/simulator-CrashProbeiOS.app.dSYM/Contents/Info.plist",
            ),
            bundle.join("Info.plist"),
        )
        .unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_symscope"))
            .args(["symbolicate", "--format", "json", "-s"])
            .arg(dir.join("CrashProbeiOS.app.dSYM"))
            .arg(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/native/sentry-symbolic/crashprobe/x86_64/Swift.json"),
            )
            .output()
            .unwrap();
        assert!(out.status.success());
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let warnings = json["warnings"].to_string();
        assert!(
            warnings.contains("CrashProbeiOS.app.dSYM") && warnings.contains("no symbol files"),
            "{warnings}"
        );
        let frame = json["stacks"][0]["frames"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["input"]["module"] == "CrashProbeiOS")
            .unwrap()
            .clone();
        assert_eq!(frame["status"], "no_symbols");
        assert!(
            frame["note"]
                .as_str()
                .unwrap()
                .contains("5B85B938-CD9C-348A-9767-BB0C9863F8E5")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
