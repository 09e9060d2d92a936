//! Helpers the test files share: where the fixtures are, a fresh temporary folder, symbol
//! files loaded and a trace symbolicated as the engine does it, and the CLI run as a user
//! runs it. Each test file uses some of them.
#![allow(dead_code, reason = "each test file uses only some of the helpers")]

pub mod crashgen;
pub mod harness;
pub mod reference;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use symscope::engine::AddSymbols as _;
use symscope::model::{NoProgress, SymbolicatedTrace, Trace};
use symscope::symbolicate::{self, Options, Outcome, SymbolSet};

/// A file or folder of `tests/fixtures`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// A file or folder of the JavaScript corpus, `tests/fixtures/js`.
pub fn js(rel: &str) -> PathBuf {
    fixture("js").join(rel)
}

/// A fresh, empty folder under the system's temporary folder, named for the test and the
/// process (removed first if an earlier run left it).
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("symscope-{name}-{}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The symbol files at `paths`, each loaded on the engine's route.
pub fn symbols(paths: &[impl AsRef<Path>]) -> SymbolSet {
    let mut set = SymbolSet::new();
    for path in paths {
        let path = path.as_ref();
        set.add(&path.to_string_lossy(), std::fs::read(path).unwrap().into())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    set
}

/// `trace` symbolicated against `symbols` to the end.
pub fn symbolicate(
    trace: &Trace,
    symbols: &SymbolSet,
    column_base: Option<u32>,
) -> SymbolicatedTrace {
    match symbolicate::symbolicate(trace, symbols, Options { column_base }, &mut NoProgress) {
        Outcome::Done(r) => r,
        Outcome::Cancelled(_) => panic!("cancelled, though nothing said stop"),
    }
}

/// `symscope ARGS`, as a user runs it (no standard input).
pub fn symscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run symscope")
}

/// A path as a command-line argument.
pub fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The JSON document a successful run printed.
pub fn json_of(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}
