//! Derived data kept between runs: a mapping's class index, a native file's SymCaches. One
//! file per input and kind, named by the input's content fingerprint, in a workspace's
//! folder in the user's cache (`workspace::user_dirs`) or the CLI's `--cache DIR`. Never
//! needed for correctness: a file that is missing or does not read back is built again.

use std::io::Write;
use std::path::{Path, PathBuf};

/// An input's content fingerprint (`xxh3:<hex>`), as workspaces record it.
pub fn fingerprint(bytes: &[u8]) -> String {
    format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// Where one input's derived data is kept.
#[derive(Clone, Debug)]
pub struct Cache {
    /// The folder.
    pub dir: PathBuf,
    /// The input's fingerprint when known (a workspace records it); else computed from the
    /// input's bytes when a cache file is first needed.
    pub fingerprint: Option<String>,
}

impl Cache {
    /// The cache file for derived data of `kind` (`proguard-index`, `symcache`) of the input
    /// whose bytes are `bytes`.
    pub fn file(&self, kind: &str, bytes: &[u8]) -> PathBuf {
        let fingerprint = match &self.fingerprint {
            Some(f) => f.clone(),
            None => fingerprint(bytes),
        };
        let id: String = fingerprint
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        self.dir.join(format!("{kind}-{id}.bin"))
    }
}

/// How old a left-behind temporary file of [`write_atomically`] must be before
/// [`remove_stale_temporaries`] removes it: far longer than any save takes, so a save under
/// way in another process is never touched.
pub const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(60);

/// The prefix of `path`'s temporary files (`.NAME.tmp-`), beside it in its folder.
fn temporary_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    format!(".{name}.tmp-")
}

/// Writes a file atomically: a uniquely named temporary file beside it (`tempfile`: two
/// writers never share one), fsync, rename over the old file, fsync of the folder, creating
/// the folder. On any error the old file is untouched and the temporary file removed; a
/// process killed mid-write leaves one `.NAME.tmp-XXXXXX`, which
/// [`remove_stale_temporaries`] clears.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, &mut |w| w.write_all(bytes))
}

/// [`write_atomically`], the bytes written by `write` (through a buffer).
pub fn write_atomically_with(
    path: &Path,
    write: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut file = tempfile::Builder::new()
        .prefix(&temporary_prefix(path))
        .tempfile_in(dir)?;
    {
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, file.as_file_mut());
        write(&mut buffered)?;
        buffered.flush()?;
    }
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    // Make the rename itself durable (best effort: not every platform can open a folder).
    if let Ok(d) = std::fs::File::open(dir) {
        d.sync_all().ok();
    }
    Ok(())
}

/// Removes the temporary files of [`write_atomically`] left beside `path` by a process that
/// was killed while writing it (older than [`STALE_TEMPORARY`]); returns how many.
pub fn remove_stale_temporaries(path: &Path) -> usize {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = temporary_prefix(path);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(&prefix) {
            continue;
        }
        let stale = entry
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age >= STALE_TEMPORARY);
        if stale && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}
