//! cargo fuzz target: `symscope::fuzzing::proguard`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| symscope::fuzzing::proguard(data));
