//! Bad input gets a named error (or `unparsed` frames), never a panic or a hang.

use std::path::Path;
use symscope::formats;
use symscope::model::{Blob, NoProgress};
use symscope::symbolicate::{self, Options, SymbolSet};
use symscope::symbols::sourcemap::{ErrorKind, SourceMap};

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/js")
            .join(rel),
    )
    .unwrap()
}

fn kind_of(json: &str) -> ErrorKind {
    SourceMap::parse(json.as_bytes().to_vec()).unwrap_err().kind
}

#[test]
fn truncated_json_at_every_kind_of_place() {
    let map = fixture("lodash-terser/lodash.min.js.map");
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
    assert_eq!(kind_of(&m("AAAA,gggggggggA")), ErrorKind::VlqOverflow);
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
        regular.index().checkpoint_count() > 100_000,
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
