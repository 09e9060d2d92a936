//! Giving freed memory back to the system after a big job.
//!
//! glibc keeps what a thread freed in that thread's arena: after parsing a million-frame log
//! (about 300 bytes a frame while parsed, 60 once stored compact) the process stayed at its
//! peak, 360 bytes a frame more than before (`cargo bench --bench ui`, "process RSS growth").
//! `malloc_trim` hands the freed pages back, and the growth falls to the table's own size.
//!
//! And taking a large file's bytes without copying them: mapped, not read.

use std::io::Read;
use std::path::Path;

use crate::model::Blob;

/// Files this large or larger are mapped rather than read by [`read_or_map`].
pub const MAP_MIN: u64 = 4 << 20;

/// The bytes of the file at `path`: read when small, memory-mapped when large.
///
/// Reading a debug file of hundreds of megabytes copies it and faults in fresh pages, a
/// large part of a one-off `symscope symbolicate` (`cargo bench --bench native` measures
/// that run); mapping it costs nothing up front, and only the pages the reader touches are
/// brought in.
#[expect(
    unsafe_code,
    reason = "memory-mapping a file, proven by the native benchmark's one-off rows"
)]
pub fn read_or_map(path: &Path) -> std::io::Result<Blob> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len < MAP_MIN {
        let mut bytes = Vec::with_capacity(len as usize);
        file.read_to_end(&mut bytes)?;
        return Ok(Blob::from(bytes));
    }
    // SAFETY: the map is private and read-only, and the bytes are only read through it. What
    // memmap2 cannot rule out is another process changing or truncating the file while it is
    // mapped: its bytes may then change under the reader (which only reads, and checks what
    // it reads), or a read past a truncated end may fault. Symbol files are not rewritten
    // while they are being symbolicated against; `symbolic` maps them the same way.
    let map = unsafe { memmap2::Mmap::map(&file)? };
    Ok(Blob::new(map))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A small file is read, a large one mapped; both give the file's bytes, and a missing
    /// file is an error.
    #[test]
    fn files_are_read_or_mapped_whole() {
        let dir = std::env::temp_dir().join(format!("symscope-map-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for len in [0, 1000, MAP_MIN as usize - 1, MAP_MIN as usize + 4097] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
            let path = dir.join(format!("f{len}"));
            std::fs::write(&path, &bytes).unwrap();
            let blob = read_or_map(&path).unwrap();
            assert!(blob.as_slice() == bytes.as_slice(), "{len} bytes");
        }
        assert!(read_or_map(&dir.join("missing")).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
