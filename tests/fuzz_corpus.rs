//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) through the fuzz entry points,
//! so CI checks every input the fuzzers kept without needing a nightly toolchain.

use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    // The fuzzers run optimized on an 8 MiB main thread. Unoptimized, the same recursion
    // (cpp_demangle on a fuzzed C++ name is ~170 frames deep) takes far more stack than a
    // test thread's 2 MiB, so the replay gets the room an optimized build does not need.
    let replayer = std::thread::Builder::new().stack_size(64 << 20);
    let n = replayer
        .spawn(move || {
            let mut n = 0;
            let entries =
                std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            for entry in entries {
                let path = entry.unwrap().path();
                check(&std::fs::read(&path).unwrap());
                n += 1;
            }
            assert!(n > 0, "{}: empty corpus", dir.display());
            n
        })
        .unwrap()
        .join();
    assert!(n.is_ok_and(|n| n > 0), "{target}: the replay failed");
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

#[test]
fn scopes_corpus() {
    replay("scopes", symscope::fuzzing::scopes);
}

#[test]
fn cpuprofile_corpus() {
    replay("cpuprofile", symscope::fuzzing::cpuprofile);
}

#[test]
fn heapsnapshot_corpus() {
    replay("heapsnapshot", symscope::fuzzing::heapsnapshot);
}
