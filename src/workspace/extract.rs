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
///
/// The folders are made first, one by one; the files are then decoded and written on the
/// pool's threads (a file system creates files faster from two threads than from one).
pub fn extract_sources(map: &SourceMap, dir: &Path) -> std::io::Result<Extracted> {
    use rayon::prelude::*;
    std::fs::create_dir_all(dir)?;
    let root = dir.canonicalize()?;
    let mut out = Extracted::default();
    let mut taken = std::collections::HashSet::new();
    // Folders made and found inside `root` already (each is checked once).
    let mut checked = std::collections::HashMap::new();
    // What to write, in the map's order: the source's name, where, and the map and index
    // to decode its content from; or why it is skipped.
    let mut plan: Vec<(String, Result<Planned<'_>, String>)> = Vec::new();
    for m in map.regular_maps() {
        for i in 0..m.source_count() as u32 {
            let name = m.source_path(i).unwrap_or_else(|| format!("source {i}"));
            if !m.has_source_content(i) {
                plan.push((name, Err("no sourcesContent".to_owned())));
                continue;
            }
            let Some(rel) = extraction_path(&name) else {
                plan.push((name, Err("no file name in it".to_owned())));
                continue;
            };
            let rel = unique(&rel, &mut taken);
            let step = match folder_inside(&root, &rel, &mut checked) {
                Ok(()) => Ok((rel, m, i)),
                Err(e) => Err(e.to_string()),
            };
            plan.push((name, step));
        }
    }
    let done: Vec<Result<PathBuf, String>> = plan
        .into_par_iter()
        .map(|(name, step)| {
            let (rel, m, i) = step.map_err(|why| format!("{name}: {why}"))?;
            let content = m
                .source_content(i)
                .ok_or_else(|| format!("{name}: no sourcesContent"))?;
            write_file(&root, &rel, content.as_bytes()).map_err(|e| format!("{name}: {e}"))?;
            Ok(rel)
        })
        .collect();
    for d in done {
        match d {
            Ok(rel) => out.written.push(rel),
            Err(why) => out.skipped.push(why),
        }
    }
    Ok(out)
}

/// A source to write: where, and the map and index its content is decoded from.
type Planned<'a> = (PathBuf, &'a crate::symbols::sourcemap::RegularMap, u32);

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

/// Makes the folder of `root/rel`, refusing one on the way that is a symbolic link or that
/// resolves outside `root` (each folder checked once; `checked` keeps the answers).
fn folder_inside(
    root: &Path,
    rel: &Path,
    checked: &mut std::collections::HashMap<PathBuf, bool>,
) -> std::io::Result<()> {
    let target = root.join(rel);
    let parent = target.parent().unwrap_or(root);
    let inside = match checked.get(parent) {
        Some(&inside) => inside,
        None => {
            std::fs::create_dir_all(parent)?;
            let inside = parent.canonicalize()?.starts_with(root);
            checked.insert(parent.to_path_buf(), inside);
            inside
        }
    };
    if inside {
        Ok(())
    } else {
        Err(std::io::Error::other(
            "its folder leads outside the chosen one",
        ))
    }
}

/// Writes `bytes` to `root/rel` (its folder made and checked), refusing a symbolic link in
/// the way.
fn write_file(root: &Path, rel: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = root.join(rel);
    if std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::other("a symbolic link is in the way"));
    }
    std::fs::write(&target, bytes)
}
