//! cargo fuzz target: `symscope::fuzzing::mappings`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| symscope::fuzzing::mappings(data));
