//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) through the fuzz entry points,
//! so CI checks every input the fuzzers kept without needing a nightly toolchain.

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        check(&std::fs::read(&path).unwrap());
        n += 1;
    }
    assert!(n > 0, "{}: empty corpus", dir.display());
}

#[test]
fn sourcemap_corpus() {
    replay("sourcemap", symscope::fuzzing::sourcemap);
}

#[test]
fn mappings_corpus() {
    replay("mappings", symscope::fuzzing::mappings);
}

#[test]
fn stack_parsers_corpus() {
    replay("stack_parsers", symscope::fuzzing::stack_parsers);
}

#[test]
fn proguard_corpus() {
    replay("proguard", symscope::fuzzing::proguard);
}

#[test]
fn native_symbols_corpus() {
    replay("native_symbols", symscope::fuzzing::native_symbols);
}
