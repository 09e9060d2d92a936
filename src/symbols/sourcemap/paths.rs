//! Source paths as trace-mapping and the `source-map` package give them: `sourceRoot`
//! joined, `./` removed, `a/../` folded.

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
