//! Writing a source map's original sources (`sourcesContent`) into a folder the user picked,
//! each under its own path made safe ([`extraction_path`]): nothing is written outside the
//! folder, whatever the map names (`../`, absolute paths, `webpack://` prefixes), and no file
//! is written through a symbolic link.

use crate::symbols::sourcemap::{SourceMap, extraction_path};
use std::path::{Path, PathBuf};

/// What an extraction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extracted {
    /// The files written, relative to the folder.
    pub written: Vec<PathBuf>,
    /// Sources not written, each with why.
    pub skipped: Vec<String>,
}

/// Writes every source of `map` that has content into `dir` (created when missing). Two
/// sources that come to the same path are told apart by a `~2`, `~3` suffix. Fails only when
/// `dir` cannot be made or read; a source that cannot be written is listed in `skipped`.
pub fn extract_sources(map: &SourceMap, dir: &Path) -> std::io::Result<Extracted> {
    std::fs::create_dir_all(dir)?;
    let root = dir.canonicalize()?;
    let mut out = Extracted::default();
    let mut taken = std::collections::HashSet::new();
    // Folders made and found inside `root` already (each is checked once).
    let mut checked = std::collections::HashSet::new();
    for m in map.regular_maps() {
        for i in 0..m.source_count() as u32 {
            let name = m.source_path(i).unwrap_or_else(|| format!("source {i}"));
            let Some(content) = m.source_content(i) else {
                out.skipped.push(format!("{name}: no sourcesContent"));
                continue;
            };
            let Some(rel) = extraction_path(&name) else {
                out.skipped.push(format!("{name}: no file name in it"));
                continue;
            };
            let rel = unique(&rel, &mut taken);
            match write_inside(&root, &rel, content.as_bytes(), &mut checked) {
                Ok(()) => out.written.push(rel),
                Err(e) => out.skipped.push(format!("{name}: {e}")),
            }
        }
    }
    Ok(out)
}

/// `rel`, or `rel~2`, `rel~3`… when taken already.
fn unique(rel: &Path, taken: &mut std::collections::HashSet<PathBuf>) -> PathBuf {
    let mut candidate = rel.to_path_buf();
    let mut n = 2;
    while !taken.insert(candidate.clone()) {
        let mut name = rel.file_name().unwrap_or_default().to_os_string();
        name.push(format!("~{n}"));
        candidate = rel.with_file_name(name);
        n += 1;
    }
    candidate
}

/// Writes `bytes` to `root/rel`, refusing a folder or file on the way that is a symbolic link
/// or that resolves outside `root`.
fn write_inside(
    root: &Path,
    rel: &Path,
    bytes: &[u8],
    checked: &mut std::collections::HashSet<PathBuf>,
) -> std::io::Result<()> {
    let target = root.join(rel);
    let parent = target.parent().unwrap_or(root);
    if !checked.contains(parent) {
        std::fs::create_dir_all(parent)?;
        let real_parent = parent.canonicalize()?;
        if !real_parent.starts_with(root) {
            return Err(std::io::Error::other(
                "its folder leads outside the chosen one",
            ));
        }
        checked.insert(parent.to_path_buf());
    }
    if std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::other("a symbolic link is in the way"));
    }
    std::fs::write(&target, bytes)
}
