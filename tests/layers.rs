//! The architecture's rules, checked on the source: the pure layers (model, formats, symbols,
//! symbolicate) start no threads and know nothing of egui, eframe or rayon; jobs and workspace
//! know no egui; each layer uses only the layers listed before it in DEVELOPERS.md.

use std::path::{Path, PathBuf};

const LAYERS: [&str; 8] = [
    "model",
    "formats",
    "symbols",
    "symbolicate",
    "jobs",
    "workspace",
    "app",
    "ui",
];
const PURE: usize = 4;

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

/// The file's code without comments (so doc comments may name what the code may not use).
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn pure_layers_start_no_threads_and_know_no_gui() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut checked = 0;
    for layer in &LAYERS[..PURE] {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
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
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for layer in ["jobs", "workspace"] {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
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
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (i, layer) in LAYERS.iter().enumerate() {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
        for f in files {
            let code = code_of(&f);
            for later in &LAYERS[i + 1..] {
                for pat in [
                    format!("crate::{later}::"),
                    format!("crate::{later}}}"),
                    format!("crate::{{{later}"),
                ] {
                    assert!(
                        !code.contains(&pat),
                        "{} (layer {layer}) uses {later}",
                        f.display()
                    );
                }
            }
            for top in ["crate::cli", "crate::fuzzing"] {
                assert!(
                    !code.contains(top),
                    "{} (layer {layer}) uses {top}",
                    f.display()
                );
            }
        }
    }
}
