//! Every JS corpus trace resolves frame by frame like its oracle (trace-mapping, source-map,
//! source-map-js, metro-symbolicate): see `tests/fixtures/js/README.md`.

mod common;

use common::{js, symbolicate};

use serde_json::Value;
use std::path::{Path, PathBuf};
use symscope::engine::AddSymbols as _;
use symscope::formats;
use symscope::model::{Blob, FrameStatus, LogFormat, NameSource};
use symscope::symbolicate::SymbolSet;

/// Every `oracle*.json` of the JS corpus.
fn oracles() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for case in std::fs::read_dir(js("")).unwrap() {
        let case = case.unwrap().path();
        if !case.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&case).unwrap() {
            let f = f.unwrap().path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("oracle") && name.ends_with(".json") {
                out.push(f);
            }
        }
    }
    out.sort();
    assert!(
        out.len() >= 13,
        "expected the 13 JS oracles, found {}",
        out.len()
    );
    out
}

/// Loads the symbol files of a case folder, as `-s FOLDER` does (only maps and bundles).
fn symbols_from(dir: &Path, keep: impl Fn(&str) -> bool) -> SymbolSet {
    let mut set = SymbolSet::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if !f.is_file() || !keep(&name) {
            continue;
        }
        let bytes = std::fs::read(&f).unwrap();
        let kind = formats::peek(&bytes);
        if matches!(
            kind,
            symscope::model::FileKind::SourceMap | symscope::model::FileKind::JavaScript
        ) {
            set.add(&f.to_string_lossy(), Blob::from(bytes)).unwrap();
        }
    }
    set
}

fn format_name(f: LogFormat) -> &'static str {
    f.as_str()
}

/// Checks one oracle against a result; returns the number of resolved frames compared.
fn check(oracle_path: &Path, symbols: &SymbolSet, expect_map_names: bool) -> usize {
    let oracle: Value = serde_json::from_slice(&std::fs::read(oracle_path).unwrap()).unwrap();
    let dir = oracle_path.parent().unwrap();
    let trace_text = std::fs::read_to_string(dir.join(oracle["trace"].as_str().unwrap())).unwrap();
    let trace = formats::js::parse(&trace_text);
    let ctx = oracle_path.display().to_string();
    assert_eq!(
        format_name(trace.format),
        oracle["trace_format"].as_str().unwrap(),
        "{ctx}: format"
    );
    let result = symbolicate(&trace, symbols, None);
    let is_metro = oracle["peers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p.as_str().unwrap().starts_with("metro-symbolicate"));

    // Frames by their line in the trace file.
    let ours: Vec<_> = trace
        .stacks
        .iter()
        .zip(&result.stacks)
        .flat_map(|(s, r)| s.frames.iter().zip(&r.frames))
        .collect();
    let mut compared = 0;
    for of in oracle["frames"].as_array().unwrap() {
        let line_no = of["trace_line"].as_u64().unwrap() as usize;
        let (frame, sym) = ours
            .iter()
            .find(|(f, _)| f.line_no == line_no)
            .unwrap_or_else(|| panic!("{ctx}: no frame at trace line {line_no}"));
        let here = format!("{ctx}: line {line_no} {:?}", frame.raw);
        let input = frame
            .input
            .as_ref()
            .unwrap_or_else(|| panic!("{here}: unparsed"));
        assert_eq!(input.file.as_deref(), of["file"].as_str(), "{here}: file");
        assert_eq!(
            input.line.map(u64::from),
            of["line"].as_u64(),
            "{here}: line"
        );
        assert_eq!(
            input.column.map(u64::from),
            of["column"].as_u64(),
            "{here}: column"
        );
        let expected = &of["expected"];
        if expected.is_null() {
            assert_ne!(
                sym.status,
                FrameStatus::Resolved,
                "{here}: should not resolve"
            );
            if of["map"].is_null() {
                assert!(
                    matches!(sym.status, FrameStatus::NoSymbols | FrameStatus::Skipped),
                    "{here}: {:?}",
                    sym.status
                );
            } else {
                assert_eq!(sym.status, FrameStatus::NotCovered, "{here}");
            }
            assert!(
                sym.note.is_some(),
                "{here}: an unresolved frame explains itself"
            );
            continue;
        }
        assert_eq!(sym.status, FrameStatus::Resolved, "{here}: {:?}", sym.note);
        if expect_map_names {
            assert_eq!(
                sym.symbol_file.as_deref(),
                of["map"].as_str(),
                "{here}: map chosen"
            );
        }
        let generated = &of["generated"];
        assert_eq!(
            sym.generated,
            Some((
                generated["line"].as_u64().unwrap() as u32 - 1,
                generated["column0"].as_u64().unwrap() as u32
            )),
            "{here}: generated position"
        );
        let loc = &sym.resolved[0];
        assert_eq!(
            loc.file.as_deref(),
            expected["source"].as_str(),
            "{here}: source"
        );
        assert_eq!(
            loc.line.map(u64::from),
            expected["line"].as_u64(),
            "{here}: line"
        );
        assert_eq!(
            loc.column.map(|c| u64::from(c) - 1),
            expected["column"].as_u64(),
            "{here}: column"
        );
        assert_eq!(
            loc.token_name.as_deref(),
            expected["name"].as_str(),
            "{here}: token name"
        );
        if is_metro {
            let function = of["peers"]["metro-symbolicate"]["functionName"].as_str();
            assert_eq!(
                loc.function.as_deref(),
                function,
                "{here}: metro function name"
            );
            assert_eq!(loc.name_source, Some(NameSource::FunctionMap), "{here}");
        }
        compared += 1;
    }
    compared
}

#[test]
fn every_oracle_frame_matches() {
    let mut total = 0;
    for oracle in oracles() {
        let dir = oracle.parent().unwrap();
        let symbols = symbols_from(dir, |_| true);
        let n = check(&oracle, &symbols, true);
        assert!(n > 0, "{}: no resolved frames compared", oracle.display());
        total += n;
    }
    // The corpus README: 163 frames in mapped files resolve over the V8/Hermes traces; the
    // JSC and SpiderMonkey traces add their own.
    assert!(total >= 163, "compared {total} resolved frames");
}

/// Without the composed map, the bytecode trace is resolved by chaining hermesc's map with
/// Metro's, and the answers equal the composed map's oracle.
#[test]
fn hermes_bytecode_through_hermesc_and_metro_maps() {
    let dir = js("").join("metro-hermes");
    let symbols = symbols_from(&dir, |n| n != "index.android.bundle.hbc.composed.map");
    let n = check(&dir.join("oracle-hermes-bytecode.json"), &symbols, false);
    assert_eq!(n, 17);
    let trace = formats::js::parse(
        &std::fs::read_to_string(dir.join("trace-hermes-bytecode.txt")).unwrap(),
    );
    let result = symbolicate(&trace, &symbols, None);
    assert_eq!(
        result.stacks[0].frames[0].symbol_file.as_deref(),
        Some("index.android.bundle.hbc.map + index.android.bundle.map")
    );
}

/// Metro's `x_google_ignoreList` flags library frames; the app's own frames are not flagged.
#[test]
fn ignore_list_flags_library_frames() {
    let dir = js("").join("metro-hermes");
    let symbols = symbols_from(&dir, |_| true);
    let trace =
        formats::js::parse(&std::fs::read_to_string(dir.join("trace-hermes-source.txt")).unwrap());
    let result = symbolicate(&trace, &symbols, None);
    let resolved: Vec<_> = result.stacks[0]
        .frames
        .iter()
        .filter_map(|f| f.resolved.first())
        .collect();
    for loc in &resolved {
        let file = loc.file.as_deref().unwrap();
        let library = file.starts_with("node_modules/");
        assert_eq!(loc.ignored, library, "{file}");
    }
    assert!(resolved.iter().any(|l| l.ignored) && resolved.iter().any(|l| !l.ignored));
}

/// The index map's two errors are two stacks, each resolved in its own section.
#[test]
fn index_map_trace_has_two_stacks() {
    let dir = js("").join("index-map-rxjs-lodash");
    let trace = formats::js::parse(&std::fs::read_to_string(dir.join("trace.txt")).unwrap());
    assert_eq!(trace.stacks.len(), 2);
    assert_eq!(trace.stacks[0].title, "Error");
    assert!(
        trace.stacks[1]
            .title
            .starts_with("TypeError: Cannot read properties of undefined")
    );
    let result = symbolicate(&trace, &symbols_from(&dir, |_| true), None);
    assert!(result.stacks[0].crashed && !result.stacks[1].crashed);
}

/// `--column-base 0` shifts every look-up by one column.
#[test]
fn column_base_override() {
    let dir = js("").join("three-esbuild");
    let symbols = symbols_from(&dir, |_| true);
    let trace = formats::js::parse(&std::fs::read_to_string(dir.join("trace.txt")).unwrap());
    let one = symbolicate(&trace, &symbols, None);
    let zero = symbolicate(&trace, &symbols, Some(0));
    assert_eq!(one.stacks[0].frames[0].generated, Some((0, 98187)));
    assert_eq!(zero.stacks[0].frames[0].generated, Some((0, 98188)));
}

fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A bundle with its map inline (`sourceMappingURL=data:application/json;base64,…`, as
/// esbuild's `--sourcemap=inline` writes) resolves like the same map beside it.
#[test]
fn inline_data_url_map() {
    let dir = js("").join("lodash-terser");
    let bundle = std::fs::read_to_string(dir.join("lodash.min.js")).unwrap();
    let map = std::fs::read(dir.join("lodash.min.js.map")).unwrap();
    let at = bundle.rfind("//# sourceMappingURL=").unwrap();
    let inline = format!(
        "{}//# sourceMappingURL=data:application/json;charset=utf-8;base64,{}\n",
        &bundle[..at],
        base64(&map)
    );
    let mut set = SymbolSet::new();
    set.add("out/lodash.min.js", Blob::from(inline.into_bytes()))
        .unwrap();
    assert_eq!(set.maps.len(), 1, "the inline map is loaded");
    assert_eq!(check(&dir.join("oracle.json"), &set, false), 10);
}
