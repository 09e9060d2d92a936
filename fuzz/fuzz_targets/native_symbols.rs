//! cargo fuzz target: `symscope::fuzzing::native_symbols`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| symscope::fuzzing::native_symbols(data));
