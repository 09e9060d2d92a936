//! cargo fuzz target: `symscope::fuzzing::native_symbols`.
//!
//! goblin 0.8 (symbolic's Mach-O reader) computes a hostile file's entry point with plain
//! `+`/`-`: with the overflow checks cargo fuzz turns on for every crate that panics, where
//! users' release builds (and our test builds, see Cargo.toml) wrap harmlessly. Such an
//! overflow inside goblin is skipped; every other panic still aborts, as libFuzzer's hook
//! makes it.
#![no_main]

use std::sync::atomic::{AtomicBool, Ordering};

static GOBLIN_OVERFLOW: AtomicBool = AtomicBool::new(false);

libfuzzer_sys::fuzz_target!(
    init: {
        let abort_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_goblin = info
                .location()
                .is_some_and(|l| l.file().contains("/goblin-0.8."));
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| info.payload().downcast_ref::<String>().map(String::as_str))
                .unwrap_or("");
            if in_goblin && message.contains("with overflow") {
                GOBLIN_OVERFLOW.store(true, Ordering::Relaxed);
            } else {
                abort_hook(info);
            }
        }));
    },
    |data: &[u8]| {
        GOBLIN_OVERFLOW.store(false, Ordering::Relaxed);
        let run = std::panic::catch_unwind(|| symscope::fuzzing::native_symbols(data));
        assert!(run.is_ok() || GOBLIN_OVERFLOW.load(Ordering::Relaxed));
    }
);
