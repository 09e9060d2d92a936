//! cargo fuzz target: `symscope::fuzzing::scopes`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| symscope::fuzzing::scopes(data));
