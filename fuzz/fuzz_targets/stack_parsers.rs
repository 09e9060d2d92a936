//! cargo fuzz target: `symscope::fuzzing::stack_parsers`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| symscope::fuzzing::stack_parsers(data));
