//! Helpers the benchmarks share.
#![allow(dead_code, reason = "each benchmark uses some of the helpers")]

use std::time::{Duration, Instant};

/// Milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Median time of `runs` runs of `f`.
pub fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// The high-water mark of a process's resident memory, in bytes (0 once it is gone).
pub fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Runs `command` (its output going where it was set to) to its end, reading its memory's
/// high-water mark from `/proc` as it runs: wall time and peak memory in bytes.
pub fn run_measured(command: &mut std::process::Command) -> (Duration, u64) {
    let start = Instant::now();
    let mut child = command.spawn().expect("start the process");
    let mut peak = 0;
    loop {
        peak = peak.max(peak_rss(child.id()));
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "the process failed: {status}");
            return (start.elapsed(), peak);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
