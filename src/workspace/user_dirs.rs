//! The user's own folders, found through the `dirs` crate (XDG on Linux: a relative
//! `XDG_CONFIG_HOME` or `XDG_CACHE_HOME` is ignored, as the XDG spec says):
//!
//! - config: `~/.config/symscope/` — `settings.ron`, the recent list;
//! - cache: `~/.cache/symscope/` — derived data of each workspace, in a folder of its own
//!   named by the workspace file's path ([`cache_dir`]), never beside the user's file.

use std::path::{Path, PathBuf};

/// The application's folder name under each of the user's folders.
const APP: &str = "symscope";

/// A file in the user's config folder (`~/.config/symscope/NAME`), if there is a home.
pub fn config_file(name: &str) -> Option<PathBuf> {
    Some(dirs::config_dir()?.join(APP).join(name))
}

/// The user's cache folder for Symscope (`~/.cache/symscope`), if there is a home.
pub fn cache_root() -> Option<PathBuf> {
    Some(dirs::cache_dir()?.join(APP))
}

/// The folder for the derived data of the workspace at `workspace` under `root` (see
/// [`cache_root`]): `STEM-HASH`, the hash that of the workspace's absolute path, so two
/// workspaces never share one and the same workspace finds its own again.
pub fn cache_dir(root: &Path, workspace: &Path) -> PathBuf {
    let absolute = std::path::absolute(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let hash = xxhash_rust::xxh3::xxh3_64(absolute.to_string_lossy().as_bytes());
    let stem: String = workspace
        .file_stem()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(40)
        .collect();
    root.join(format!("{stem}-{hash:016x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_workspace_has_its_own_cache_folder() {
        let root = Path::new("/c");
        let a = cache_dir(root, Path::new("/w/triage.ron"));
        let b = cache_dir(root, Path::new("/x/triage.ron"));
        assert_ne!(a, b);
        assert_eq!(a, cache_dir(root, Path::new("/w/./triage.ron")));
        assert!(a.starts_with(root));
        assert!(
            a.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("triage-")
        );
    }
}
