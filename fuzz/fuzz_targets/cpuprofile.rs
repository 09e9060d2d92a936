//! cargo fuzz target: `symscope::fuzzing::cpuprofile`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| symscope::fuzzing::cpuprofile(data));
