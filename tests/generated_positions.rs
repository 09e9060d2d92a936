//! The inverse look-up (`symbols::sourcemap::OriginalIndex`, issue #22 part 1) against
//! `@jridgewell/trace-mapping`'s `generatedPositionFor` and `allGeneratedPositionsFor`: 3,600
//! original positions drawn from the corpus maps (an index map among them, through
//! trace-mapping's `AnyMap`), both biases, every answer equal
//! (`tests/fixtures/js/generated-positions/`, written by trace-mapping itself).

mod common;

use serde_json::Value;
use symscope::symbols::sourcemap::{Bias, OriginalIndex, SourceMap};

#[test]
fn inverse_lookups_equal_trace_mapping() {
    let oracle: Value = serde_json::from_slice(
        &std::fs::read(common::js("generated-positions/trace-mapping-answers.json")).unwrap(),
    )
    .unwrap();
    let mut checked = 0;
    let mut several = 0;
    for case in oracle.as_array().unwrap() {
        let path = case["map"].as_str().unwrap();
        let map = SourceMap::parse(std::fs::read(common::js(path)).unwrap()).unwrap();
        let index = OriginalIndex::of(&map);
        for q in case["queries"].as_array().unwrap() {
            let source = q["source"].as_u64().unwrap() as u32;
            // trace-mapping's lines are 1-based, columns 0-based.
            let line = q["line"].as_u64().unwrap() as u32 - 1;
            let column = q["column"].as_u64().unwrap() as u32;
            let bias = match q["bias"].as_str().unwrap() {
                "glb" => Bias::GreatestLowerBound,
                _ => Bias::LeastUpperBound,
            };
            let one = index
                .generated_position_for(source, line, column, bias)
                .map(|g| vec![g.line + 1, g.column]);
            let expected_one: Option<Vec<u32>> = q["one"]
                .as_array()
                .map(|a| a.iter().map(|v| v.as_u64().unwrap() as u32).collect());
            assert_eq!(one, expected_one, "{path}: {q}");
            let all: Vec<Vec<u32>> = index
                .all_generated_positions_for(source, line, column, bias)
                .into_iter()
                .map(|g| vec![g.line + 1, g.column])
                .collect();
            let expected_all: Vec<Vec<u32>> = serde_json::from_value(q["all"].clone()).unwrap();
            assert_eq!(all, expected_all, "{path}: {q}");
            several += usize::from(all.len() > 1);
            checked += 1;
        }
    }
    assert_eq!(checked, 3_600);
    assert!(
        several > 100,
        "{several} positions with several generated ones"
    );
}
