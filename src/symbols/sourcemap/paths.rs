//! Source paths as trace-mapping and the `source-map` package give them: `sourceRoot`
//! joined, `./` removed, `a/../` folded; and a source's path made safe to write under a
//! folder ([`extraction_path`]).

/// Joins `sourceRoot` and a source, then normalizes the path (`./` removed, `a/../`
/// folded) as `@jridgewell/trace-mapping` and the `source-map` package do.
pub fn join_source_root(root: Option<&str>, source: &str) -> String {
    normalize_path(&join_raw(root, source))
}

fn join_raw(root: Option<&str>, source: &str) -> String {
    match root {
        Some(root) if !root.is_empty() && !source.contains("://") && !source.starts_with('/') => {
            if root.ends_with('/') {
                format!("{root}{source}")
            } else {
                format!("{root}/{source}")
            }
        }
        _ => source.to_owned(),
    }
}

/// Normalizes the path part of a path or URL: drops `.` segments and folds `x/..`; a leading
/// `..` of a relative path stays. The scheme and host of a URL are left alone.
pub fn normalize_path(input: &str) -> String {
    let (prefix, path) = match input.find("://") {
        Some(i) => {
            let after = i + 3;
            let host_end = input[after..].find('/').map_or(input.len(), |j| after + j);
            input.split_at(host_end)
        }
        None => ("", input),
    };
    if !path.contains("./")
        && !path.ends_with("/.")
        && !path.ends_with("/..")
        && path != "."
        && path != ".."
    {
        return input.to_owned();
    }
    let absolute = path.starts_with('/');
    let trailing = path.ends_with('/') || path.ends_with("/.") || path.ends_with("/..");
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => match out.last() {
                Some(&last) if last != ".." => {
                    out.pop();
                }
                _ if absolute => {}
                _ => out.push(".."),
            },
            s => out.push(s),
        }
    }
    let mut result = String::with_capacity(input.len());
    result.push_str(prefix);
    if absolute {
        result.push('/');
    }
    result.push_str(&out.join("/"));
    if trailing && !out.is_empty() {
        result.push('/');
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_like_trace_mapping() {
        assert_eq!(
            normalize_path("webpack://pdf.js/./src/shared/util.js"),
            "webpack://pdf.js/src/shared/util.js"
        );
        assert_eq!(
            normalize_path("../node_modules/three/build/three.core.js"),
            "../node_modules/three/build/three.core.js"
        );
        assert_eq!(normalize_path("./a/b/../c.js"), "a/c.js");
        assert_eq!(normalize_path("a/../../b.js"), "../b.js");
        assert_eq!(normalize_path("/x/../../y.js"), "/y.js");
        assert_eq!(
            normalize_path("https://h.com/a/./b/../c.js?x=1"),
            "https://h.com/a/c.js?x=1"
        );
        assert_eq!(join_source_root(Some("src"), "./a.js"), "src/a.js");
        assert_eq!(
            join_source_root(Some("https://x.com/root/"), "b.js"),
            "https://x.com/root/b.js"
        );
        assert_eq!(
            join_source_root(Some(""), "webpack://p/./q.js"),
            "webpack://p/q.js"
        );
    }
}

/// Where source `source` (its path as the map names it) is written when the sources are
/// extracted into a folder: a relative path that stays inside it. A scheme and host
/// (`webpack://app/`, `file:///`) and a root or drive (`/`, `C:\`) are dropped, `.` parts
/// too, every `..` becomes `__` (so `../x` and `x` stay apart), characters that are not
/// allowed in file names (`?*:<>|"` and control characters) become `_`; `None` leaves a name
/// with nothing left (`webpack://`).
pub fn extraction_path(source: &str) -> Option<std::path::PathBuf> {
    let without_scheme = match source.find("://") {
        // `webpack://name/src/a.js` → `name/src/a.js`; `file:///a.js` → `a.js`.
        Some(i)
            if source[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            &source[i + 3..]
        }
        _ => source,
    };
    let mut out = std::path::PathBuf::new();
    for part in without_scheme.split(['/', '\\']) {
        let part = match part {
            "" | "." => continue,
            ".." => "__".to_owned(),
            // A drive (`C:`) leads nowhere inside the folder.
            p if out.as_os_str().is_empty() && p.len() == 2 && p.ends_with(':') => continue,
            p => p
                .chars()
                .map(|c| {
                    if c.is_control() || "?*:<>|\"".contains(c) {
                        '_'
                    } else {
                        c
                    }
                })
                .collect(),
        };
        // Names that mean something to a file system of their own.
        let part = if part.trim_end_matches([' ', '.']).is_empty() {
            "_".repeat(part.len().max(1))
        } else {
            part
        };
        out.push(part);
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

#[cfg(test)]
mod extraction_tests {
    use super::extraction_path;

    #[test]
    fn paths_stay_inside_the_folder() {
        let cases = [
            ("src/a.js", Some("src/a.js")),
            (
                "webpack://pdf.js/src/core/parser.js",
                Some("pdf.js/src/core/parser.js"),
            ),
            ("webpack:///./src/x.js", Some("src/x.js")),
            ("file:///home/me/app/a.ts", Some("home/me/app/a.ts")),
            (
                "../node_modules/three/build/three.core.js",
                Some("__/node_modules/three/build/three.core.js"),
            ),
            ("../../../etc/passwd", Some("__/__/__/etc/passwd")),
            ("/etc/passwd", Some("etc/passwd")),
            ("C:\\Users\\me\\a.js", Some("Users/me/a.js")),
            ("a/./b/../c.js?v=3", Some("a/b/__/c.js_v=3")),
            ("webpack://", None),
            ("", None),
            ("..", Some("__")),
            ("x/.../y", Some("x/___/y")),
        ];
        for (source, expected) in cases {
            let got = extraction_path(source);
            assert_eq!(
                got.as_deref(),
                expected.map(std::path::Path::new),
                "{source}"
            );
            if let Some(p) = got {
                assert!(p.is_relative(), "{source}");
                assert!(
                    p.components()
                        .all(|c| matches!(c, std::path::Component::Normal(_))),
                    "{source}: {p:?}"
                );
            }
        }
    }
}
