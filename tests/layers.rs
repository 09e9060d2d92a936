//! The architecture's rules, checked on the source (see `src/lib.rs`):
//! - the pure layers (model, formats, symbols, symbolicate, engine) start no threads and know
//!   nothing of egui, eframe or rayon; jobs and workspace know no egui;
//! - each layer uses only the layers before it, however it names them: `crate::x`, a group
//!   `crate::{x, y}`, or `super::…` climbing out of its folder;
//! - inside a layer, its parts (the files and folders beside each other) do not use each
//!   other in a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: [&str; 9] = [
    "model",
    "formats",
    "symbols",
    "symbolicate",
    "engine",
    "jobs",
    "workspace",
    "app",
    "ui",
];
const PURE: usize = 5;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The file's code without comments and string literals (so docs and messages may name what
/// the code may not use).
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if !in_str && c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' && prev != '\'' {
                in_str = !in_str;
                out.push('"');
            } else if !in_str {
                out.push(c);
            }
            prev = c;
        }
        out.push('\n');
    }
    out
}

/// The module path of a file: `src/engine/table/build.rs` → `engine::table::build`,
/// `src/engine/table/mod.rs` → `engine::table`.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_owned());
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every module path the code names with `crate::` or `super::`, resolved from `module`:
/// each as the absolute path's first two segments (a group `{a, b::c}` gives one path per
/// item).
fn paths_named(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let starts = (i == 0 || !is_ident(bytes[i - 1]))
            && (code_at(&bytes, i, "crate::") || code_at(&bytes, i, "super::"));
        if !starts {
            i += 1;
            continue;
        }
        let mut base: Vec<String> = if code_at(&bytes, i, "crate::") {
            i += "crate::".len();
            Vec::new()
        } else {
            module.to_vec()
        };
        while code_at(&bytes, i, "super::") {
            base.pop();
            i += "super::".len();
        }
        // One path, or a group of them.
        let mut items = Vec::new();
        if bytes.get(i) == Some(&'{') {
            let mut depth = 0;
            let mut item = String::new();
            while i < bytes.len() {
                let c = bytes[i];
                i += 1;
                match c {
                    '{' => {
                        depth += 1;
                        if depth > 1 {
                            item.push(c);
                        }
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            items.push(std::mem::take(&mut item));
                            break;
                        }
                        item.push(c);
                    }
                    ',' if depth == 1 => items.push(std::mem::take(&mut item)),
                    c => item.push(c),
                }
            }
        } else {
            let start = i;
            while i < bytes.len() && (is_ident(bytes[i]) || bytes[i] == ':') {
                i += 1;
            }
            items.push(bytes[start..i].iter().collect());
        }
        for item in items {
            let mut path = base.clone();
            for seg in item.trim().split("::") {
                let seg: String = seg.trim().chars().take_while(|&c| is_ident(c)).collect();
                if seg.is_empty() || seg == "self" {
                    break;
                }
                path.push(seg);
                if path.len() >= 2 {
                    break;
                }
            }
            out.push(path);
        }
    }
    out
}

fn code_at(code: &[char], i: usize, s: &str) -> bool {
    s.chars()
        .enumerate()
        .all(|(k, c)| code.get(i + k) == Some(&c))
}

#[test]
fn pure_layers_start_no_threads_and_know_no_gui() {
    let mut checked = 0;
    for layer in &LAYERS[..PURE] {
        let mut files = Vec::new();
        rust_files(&src().join(layer), &mut files);
        assert!(!files.is_empty(), "layer {layer} has no files");
        for f in files {
            let code = code_of(&f);
            for banned in [
                "egui",
                "eframe",
                "rayon",
                "std::thread",
                "thread::spawn",
                "thread::scope",
                "crossbeam",
            ] {
                assert!(!code.contains(banned), "{} uses {banned}", f.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 10);
}

#[test]
fn jobs_and_workspace_know_no_gui() {
    for layer in ["jobs", "workspace"] {
        let mut files = Vec::new();
        rust_files(&src().join(layer), &mut files);
        assert!(!files.is_empty(), "layer {layer} has no files");
        for f in files {
            let code = code_of(&f);
            for banned in ["egui", "eframe"] {
                assert!(!code.contains(banned), "{} uses {banned}", f.display());
            }
        }
    }
}

#[test]
fn each_layer_uses_only_the_layers_before_it() {
    let mut named = 0;
    for (i, layer) in LAYERS.iter().enumerate() {
        let mut files = Vec::new();
        rust_files(&src().join(layer), &mut files);
        for f in files {
            let module = module_of(&f);
            for path in paths_named(&code_of(&f), &module) {
                named += 1;
                let Some(top) = path.first() else { continue };
                if let Some(j) = LAYERS.iter().position(|l| l == top) {
                    assert!(
                        j <= i,
                        "{} (layer {layer}) uses {} (layer {top})",
                        f.display(),
                        path.join("::")
                    );
                }
                assert!(
                    top != "cli" && top != "fuzzing",
                    "{} (layer {layer}) uses {top}",
                    f.display()
                );
            }
        }
    }
    assert!(named > 300, "only {named} paths found");
}

/// The parts of a layer that each part uses (a file's part is the file or folder directly
/// under the layer's folder; the layer's own `mod.rs` is no part).
fn sibling_uses(layer: &str) -> BTreeMap<String, BTreeSet<String>> {
    let dir = src().join(layer);
    let parts: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            let stem = name.trim_end_matches(".rs").to_owned();
            (stem != "mod" && (p.is_dir() || name.ends_with(".rs"))).then_some(stem)
        })
        .collect();
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    for f in files {
        let module = module_of(&f);
        let Some(part) = module.get(1).cloned() else {
            continue;
        };
        for path in paths_named(&code_of(&f), &module) {
            if path.first().map(String::as_str) == Some(layer)
                && let Some(other) = path.get(1)
                && parts.contains(other)
                && *other != part
            {
                uses.entry(part.clone()).or_default().insert(other.clone());
            }
        }
    }
    uses
}

/// A circle in `uses`, if there is one.
fn circle(uses: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        uses: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in uses.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, uses, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    uses.keys()
        .find_map(|start| visit(start, uses, &mut Vec::new(), &mut done))
}

#[test]
fn the_parts_of_a_layer_use_each_other_in_no_circle() {
    let mut ties = 0;
    for layer in LAYERS {
        let uses = sibling_uses(layer);
        ties += uses.values().map(BTreeSet::len).sum::<usize>();
        assert_eq!(circle(&uses), None, "layer {layer}: {uses:?}");
    }
    assert!(ties > 10, "only {ties} ties between parts found");
}

/// The checks catch what they are for: a group naming a later layer, a climb out of a folder,
/// and two parts of a layer that use each other.
#[test]
fn the_checks_catch_what_they_are_for() {
    let module = |p: &str| p.split("::").map(str::to_owned).collect::<Vec<_>>();
    let named = |code: &str, m: &str| paths_named(code, &module(m));
    assert!(
        named("use crate::{formats, app::AppState};", "engine::log")
            .contains(&module("app::AppState"))
    );
    assert!(named("use super::super::app::X;", "engine::table").contains(&module("app::X")));
    assert!(
        named("use super::{log::LogFile, Error};", "engine::load").contains(&module("engine::log"))
    );
    let mut uses = BTreeMap::new();
    uses.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    uses.insert("b".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert!(circle(&uses).is_some());
    uses.remove("b");
    assert_eq!(circle(&uses), None);
}
