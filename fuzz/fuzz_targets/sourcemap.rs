//! cargo fuzz target: `symscope::fuzzing::sourcemap`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| symscope::fuzzing::sourcemap(data));
