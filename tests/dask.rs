//! The Dask recipe (`tests/dask/recipe.py`, the README's): 10,000 generated crash logs
//! bucketed on a LocalCluster of two workers through `symscope symbolicate --format jsonl`
//! give the very groups `symscope buckets` gives on one machine. Python runs in a virtual
//! environment this test creates from `tests/dask/requirements.txt` (pinned); the Rust build
//! needs none of it.

mod common;

use common::crashgen::{self, SOURCES, SYMBOLS};
use common::{arg, json_of, symscope, temp_dir};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

const LOGS: usize = 10_000;

/// A virtual environment with the recipe's requirements, made once per target folder.
fn python() -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = root.join("target/dask-venv");
    let python = venv.join("bin/python");
    let requirements = root.join("tests/dask/requirements.txt");
    let stamp = venv.join("requirements.txt");
    let wanted = std::fs::read_to_string(&requirements).unwrap();
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        let made = Command::new("python3")
            .args(["-m", "venv", "--clear"])
            .arg(&venv)
            .status()
            .expect("python3 (with venv) is needed");
        assert!(made.success());
        let installed = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "-r"])
            .arg(&requirements)
            .status()
            .unwrap();
        assert!(
            installed.success(),
            "pip install -r tests/dask/requirements.txt"
        );
        std::fs::write(&stamp, wanted).unwrap();
    }
    python
}

/// A bucketing as fingerprint → member paths.
fn groups(buckets: &Value) -> BTreeMap<String, BTreeSet<String>> {
    buckets
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let members = b["members"].as_array().unwrap().iter();
            let paths = members.map(|m| m.as_str().unwrap().to_owned()).collect();
            (b["fingerprint"].as_str().unwrap().to_owned(), paths)
        })
        .collect()
}

#[test]
fn dask_buckets_equal_symscope_buckets() {
    let python = python();
    let dir = temp_dir("dask");
    let symbols = dir.join("symbols");
    std::fs::create_dir_all(&symbols).unwrap();
    for s in SYMBOLS {
        let from = crashgen::fixtures().join(s);
        std::fs::copy(&from, symbols.join(from.file_name().unwrap())).unwrap();
    }
    let logs = dir.join("logs");
    let generated = crashgen::generate(&logs, LOGS, 39);
    let list = dir.join("logs.txt");
    let text: String = generated
        .iter()
        .map(|(p, _)| format!("{}\n", p.display()))
        .collect();
    std::fs::write(&list, text).unwrap();
    let out = dir.join("dask-buckets.json");
    let recipe = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dask/recipe.py");
    let ran = Command::new(&python)
        .arg(&recipe)
        .arg(env!("CARGO_BIN_EXE_symscope"))
        .arg("local")
        .arg(&out)
        .arg(&symbols)
        .arg(&list)
        .status()
        .unwrap();
    assert!(ran.success(), "the recipe failed");
    let dask: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let one = json_of(&symscope(&[
        "buckets",
        "--format",
        "json",
        "-s",
        arg(&symbols),
        arg(&logs),
    ]));
    assert_eq!(one["logs"], LOGS);
    let ours = groups(&one["buckets"]);
    assert!(ours.len() >= SOURCES.len() / 2, "{} buckets", ours.len());
    assert_eq!(groups(&dask["buckets"]), ours);
    assert!(dask["unreadable"].as_array().unwrap().is_empty());
    std::fs::remove_dir_all(&dir).ok();
}
