//! The tc39 source-map conformance suite (`tests/fixtures/tc39-source-map-tests`, see its
//! README): every map is accepted or refused as the suite says, and every `checkMapping`,
//! `checkMappingTransitive` and `checkIgnoreList` action holds.

use serde_json::Value;
use std::path::{Path, PathBuf};
use symscope::model::Blob;
use symscope::symbols::sourcemap::{SourceMap, validate};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tc39-source-map-tests")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(dir().join("resources").join(name)).unwrap()
}

/// The map's verdict: `Err` when refused, or the rules it breaks that were let pass.
fn verdict(bytes: Vec<u8>) -> Result<(SourceMap, Vec<String>), String> {
    let map = SourceMap::parse(Blob::from(bytes)).map_err(|e| e.to_string())?;
    let broken = validate(&map).iter().map(|v| v.to_string()).collect();
    Ok((map, broken))
}

/// The original position a generated one maps to: source, line, column, name (all 0-based).
type Mapped = (Option<String>, Option<u32>, Option<u32>, Option<String>);

fn mapped(map: &SourceMap, line: u32, col: u32) -> Option<Mapped> {
    let token = map.lookup(line, col).ok()??;
    Some((
        token.source_path(),
        token.src_line(),
        token.src_col(),
        token.name().map(|n| n.into_owned()),
    ))
}

fn expected(action: &Value) -> Mapped {
    (
        action["originalSource"].as_str().map(str::to_owned),
        action["originalLine"].as_u64().map(|n| n as u32),
        action["originalColumn"].as_u64().map(|n| n as u32),
        action["mappedName"].as_str().map(str::to_owned),
    )
}

#[test]
fn the_conformance_suite_passes() {
    let spec: Value =
        serde_json::from_slice(&std::fs::read(dir().join("source-map-spec-tests.json")).unwrap())
            .unwrap();
    let tests = spec["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 99);
    let mut failures = Vec::new();
    let mut lenient = Vec::new();
    let mut actions = 0;
    for t in tests {
        let name = t["name"].as_str().unwrap();
        let valid = t["sourceMapIsValid"].as_bool().unwrap();
        let result = verdict(read(t["sourceMapFile"].as_str().unwrap()));
        let map = match (&result, valid) {
            (Ok((map, broken)), true) if broken.is_empty() => map,
            (Ok((_, broken)), true) => {
                failures.push(format!("{name}: valid, but said to break {broken:?}"));
                continue;
            }
            (Err(e), true) => {
                failures.push(format!("{name}: valid, but refused: {e}"));
                continue;
            }
            (Ok((_, broken)), false) if broken.is_empty() => {
                failures.push(format!("{name}: invalid, but accepted with no warning"));
                continue;
            }
            (Ok((_, broken)), false) => {
                lenient.push(format!("{name}: {}", broken.join("; ")));
                continue;
            }
            (Err(e), false) => {
                // Refused with an error that says what is wrong.
                assert!(e.len() > 10, "{name}: {e}");
                continue;
            }
        };
        for action in t["testActions"].as_array().into_iter().flatten() {
            actions += 1;
            let (line, col) = (
                action["generatedLine"].as_u64().unwrap_or(0) as u32,
                action["generatedColumn"].as_u64().unwrap_or(0) as u32,
            );
            match action["actionType"].as_str().unwrap() {
                "checkMapping" => {
                    let got = mapped(map, line, col);
                    if got.as_ref() != Some(&expected(action)) {
                        failures.push(format!(
                            "{name} {line}:{col}: got {got:?}, expected {:?}",
                            expected(action)
                        ));
                    }
                }
                "checkMappingTransitive" => {
                    let mut got = mapped(map, line, col);
                    for next in action["intermediateMaps"].as_array().unwrap() {
                        let (inner, _) = verdict(read(next.as_str().unwrap())).unwrap();
                        got = got.and_then(|(_, l, c, _)| mapped(&inner, l?, c?));
                    }
                    if got.as_ref() != Some(&expected(action)) {
                        failures.push(format!(
                            "{name} {line}:{col} (transitive): got {got:?}, expected {:?}",
                            expected(action)
                        ));
                    }
                }
                "checkIgnoreList" => {
                    let SourceMap::Regular(m) = map else {
                        failures.push(format!("{name}: not a regular map"));
                        continue;
                    };
                    let ignored: Vec<String> = m
                        .ignore_list()
                        .iter()
                        .filter_map(|&i| m.source_path(i))
                        .collect();
                    let want: Vec<String> = action["present"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_str().unwrap().to_owned())
                        .collect();
                    if ignored != want {
                        failures.push(format!(
                            "{name}: ignore list {ignored:?}, expected {want:?}"
                        ));
                    }
                }
                other => failures.push(format!("{name}: unknown action {other}")),
            }
        }
    }
    assert!(actions >= 94, "{actions} actions");
    // The invalid maps Symscope reads anyway (as engines do), each with the rule it breaks.
    let lenient_names: Vec<&str> = lenient
        .iter()
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        lenient_names,
        [
            "ignoreListOutOfBounds1",
            "invalidMappingSegmentWithZeroFields",
            "indexMapInvalidSubMap"
        ],
        "{lenient:#?}"
    );
    assert!(
        lenient.iter().all(|l| l.contains("(rule: ")),
        "{lenient:#?}"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The suite's transitive mappings, as a person would meet them: a stack frame in the
/// generated file, symbolicated with every map of the chain loaded, lands on the original.
#[test]
fn frames_follow_chains_of_maps() {
    use std::sync::Arc;
    use symscope::model::NoProgress;
    use symscope::symbolicate::{MapFile, Options, Outcome, SymbolSet, symbolicate};
    let spec: Value =
        serde_json::from_slice(&std::fs::read(dir().join("source-map-spec-tests.json")).unwrap())
            .unwrap();
    let mut checked = 0;
    for t in spec["tests"].as_array().unwrap() {
        let actions: Vec<&Value> = t["testActions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|a| a["actionType"] == "checkMappingTransitive")
            .collect();
        let Some(&first) = actions.first() else {
            continue;
        };
        let mut set = SymbolSet::default();
        let files = std::iter::once(&t["sourceMapFile"])
            .chain(first["intermediateMaps"].as_array().unwrap());
        for f in files {
            let name = f.as_str().unwrap();
            let map = SourceMap::parse(Blob::from(read(name))).unwrap();
            set.maps.push(MapFile::new(name, Arc::new(map), 0.0));
        }
        let bundle = t["baseFile"].as_str().unwrap();
        for a in actions {
            let (line, col) = (
                a["generatedLine"].as_u64().unwrap(),
                a["generatedColumn"].as_u64().unwrap(),
            );
            let log = format!(
                "Error: x\n    at f (http://localhost/{bundle}:{}:{})",
                line + 1,
                col + 1
            );
            let trace = symscope::formats::parse_text(&log);
            let Outcome::Done(result) =
                symbolicate(&trace, &set, Options::default(), &mut NoProgress)
            else {
                panic!("cancelled");
            };
            let frame = &result.stacks[0].frames[0];
            let loc = frame
                .resolved
                .first()
                .unwrap_or_else(|| panic!("{log}: {frame:?}"));
            assert_eq!(
                (loc.file.as_deref(), loc.line, loc.column),
                (
                    a["originalSource"].as_str(),
                    Some(a["originalLine"].as_u64().unwrap() as u32 + 1),
                    Some(a["originalColumn"].as_u64().unwrap() as u32 + 1)
                ),
                "{}: {log}",
                t["name"]
            );
            let chain = frame.symbol_file.as_deref().unwrap();
            assert_eq!(
                chain.matches(" + ").count(),
                first["intermediateMaps"].as_array().unwrap().len(),
                "{chain}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 16);
}

/// A map read in spite of a broken rule says so in the run's warnings, naming the rule.
#[test]
fn lenient_maps_say_which_rule_they_break() {
    use std::sync::Arc;
    use symscope::model::NoProgress;
    use symscope::symbolicate::{MapFile, Options, Outcome, SymbolSet, symbolicate};
    let name = "invalid-mapping-segment-with-zero-fields.js.map";
    let map = SourceMap::parse(Blob::from(read(name))).unwrap();
    let mut set = SymbolSet::default();
    set.maps.push(MapFile::new(name, Arc::new(map), 0.0));
    let trace = symscope::formats::parse_text(
        "Error: x\n    at f (http://localhost/invalid-mapping-segment-with-zero-fields.js:1:1)",
    );
    let Outcome::Done(result) = symbolicate(&trace, &set, Options::default(), &mut NoProgress)
    else {
        panic!("cancelled");
    };
    assert!(
        result.warnings.iter().any(|w| w.starts_with(name)
            && w.contains("empty segment")
            && w.contains("(rule: a segment has 1, 4 or 5 fields)")),
        "{:?}",
        result.warnings
    );
}
