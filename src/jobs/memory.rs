//! Giving freed memory back to the system after a big job.
//!
//! glibc keeps what a thread freed in that thread's arena: after parsing a million-frame log
//! (about 300 bytes a frame while parsed, 60 once stored compact) the process stayed at its
//! peak, 360 bytes a frame more than before (`cargo bench --bench ui`, "process RSS growth").
//! `malloc_trim` hands the freed pages back, and the growth falls to the table's own size.

/// Asks the C allocator to return the memory it holds free to the system; whether any came
/// back. Call it from a job's thread once the job's big transient data is dropped: glibc
/// walks and locks each arena in turn, which should not happen on the UI thread.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[expect(
    unsafe_code,
    reason = "FFI to glibc's malloc_trim, proven by the ui benchmark"
)]
pub fn release_freed_memory() -> bool {
    // SAFETY: malloc_trim(3) takes a size, has no preconditions and is MT-Safe.
    unsafe { libc::malloc_trim(0) != 0 }
}

/// Asks the C allocator to return the memory it holds free to the system: nothing to do off
/// glibc (musl, macOS and Windows allocators do not keep freed arenas resident this way).
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn release_freed_memory() -> bool {
    false
}
