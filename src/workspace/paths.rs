//! Paths relative to the workspace file, as stored in the document.

use std::path::{Component, Path, PathBuf};

fn absolute(p: &Path) -> PathBuf {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    // Fold `.` and `..` lexically (the file may not exist, so no canonicalize).
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `path` with its `.` and `..` folded away lexically (`/a/../b` → `/b`), as the window
/// shows and keeps paths; the file need not exist, and symbolic links are not followed. A
/// `..` at the start of a relative path stays.
pub fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else if !matches!(
                    out.components().next_back(),
                    Some(Component::RootDir | Component::Prefix(_))
                ) {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `file` relative to `base_dir`, with `/` separators (`../maps/a.map` where needed). A file
/// on another drive or root stays absolute.
pub fn relative_path(base_dir: &Path, file: &Path) -> String {
    let (base, file) = (absolute(base_dir), absolute(file));
    let b: Vec<Component> = base.components().collect();
    let f: Vec<Component> = file.components().collect();
    if b.first() != f.first() {
        return file.to_string_lossy().replace('\\', "/");
    }
    let common = b.iter().zip(&f).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = std::iter::repeat_n("..".to_owned(), b.len() - common).collect();
    parts.extend(
        f[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// Every file under `dir`, recursively, sorted; folders that cannot be read are listed in
/// the second vector with the reason (one unreadable folder never hides the rest).
pub fn files_under(dir: &Path) -> (Vec<PathBuf>, Vec<String>) {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>, errors: &mut Vec<String>) {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                errors.push(format!("{}: skipped: {e}", dir.display()));
                return;
            }
        };
        for entry in entries.flatten() {
            let Ok(ft) = entry.file_type() else { continue };
            let path = entry.path();
            if ft.is_dir() {
                walk(&path, out, errors);
            } else if ft.is_file() || (ft.is_symlink() && path.is_file()) {
                out.push(path);
            }
        }
    }
    let (mut files, mut errors) = (Vec::new(), Vec::new());
    walk(dir, &mut files, &mut errors);
    files.sort();
    (files, errors)
}

/// The files `paths` name: a folder's files (recursively, sorted), a file itself; with the
/// folders that could not be read.
pub fn expand_paths(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let (mut files, mut errors) = (Vec::new(), Vec::new());
    for path in paths {
        if path.is_dir() {
            let (found, e) = files_under(path);
            files.extend(found);
            errors.extend(e);
        } else {
            files.push(path.clone());
        }
    }
    (files, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_lexically() {
        assert_eq!(normalized(Path::new("/a/../b/./c")), Path::new("/b/c"));
        assert_eq!(normalized(Path::new("/../x")), Path::new("/x"));
        assert_eq!(normalized(Path::new("../x/../y")), Path::new("../y"));
        assert_eq!(normalized(Path::new("a/b/../../..")), Path::new(".."));
    }

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative_path(
                Path::new("/w/workspaces"),
                Path::new("/w/assets/demo/a.map")
            ),
            "../assets/demo/a.map"
        );
        assert_eq!(
            relative_path(Path::new("/w"), Path::new("/w/x/./y/../z.txt")),
            "x/z.txt"
        );
        assert_eq!(
            relative_path(Path::new("/w/a/b"), Path::new("/w/a/b/c")),
            "c"
        );
        assert_eq!(relative_path(Path::new("/w"), Path::new("/w")), ".");
    }
}
