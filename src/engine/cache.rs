//! Derived data kept between runs: a mapping's class index, a native file's SymCaches. One
//! file per input and kind, named by the input's content fingerprint, in a workspace's
//! `NAME.cache/` folder or the CLI's `--cache DIR`. Never needed for correctness: a file that
//! is missing or does not read back is built again.

use std::io::Write as _;
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

/// Writes a file of derived data atomically (temporary file, rename), creating its folder.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map_or_else(|| "cache".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    };
    write().inspect_err(|_| {
        std::fs::remove_file(&tmp).ok();
    })
}
