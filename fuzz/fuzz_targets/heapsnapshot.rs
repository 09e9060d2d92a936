//! cargo fuzz target: `symscope::fuzzing::heapsnapshot`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| symscope::fuzzing::heapsnapshot(data));
