//! `cargo bench --bench heap`: a V8 heap snapshot of about 500 MB (written by node from a
//! generated object graph: classes, closures, arrays, maps, strings; `target/bench-heap/`,
//! made once) summarised by `symscope heap --format json`, whole process, beside memlab
//! (`@memlab/core` 2.0.5, installed with npm into `target/bench-node/` on the first run)
//! computing the same Summary (`tests/fixtures/heap/oracle.cjs`: its dominators and retained
//! sizes, grouped by class); peak memory exact (GNU `time`). The two answers are compared
//! class by class.

mod common;

use common::{big_heap_snapshot as snapshot, ms, run_exact};
use std::path::{Path, PathBuf};
use std::process::Command;

/// memlab's package directory, installed when missing.
fn memlab(root: &Path) -> PathBuf {
    let dir = root.join("target/bench-node");
    if !dir.join("node_modules/@memlab/core").exists() {
        std::fs::create_dir_all(&dir).unwrap();
        if !dir.join("package.json").exists() {
            std::fs::write(dir.join("package.json"), "{\"private\":true}").unwrap();
        }
        let ok = Command::new("npm")
            .args(["install", "--silent", "@memlab/core@2.0.5"])
            .env("PUPPETEER_SKIP_DOWNLOAD", "1")
            .current_dir(&dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "npm install @memlab/core failed");
    }
    dir.join("node_modules")
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("target/bench-heap");
    std::fs::create_dir_all(&dir).unwrap();
    let path = snapshot(&dir);
    let bytes = std::fs::metadata(&path).unwrap().len();
    let modules = memlab(root);
    let ours = || {
        run_exact(
            Command::new(env!("CARGO_BIN_EXE_symscope"))
                .args(["heap", "--format", "json"])
                .arg(&path),
        )
    };
    ours();
    let mut rows = Vec::new();
    for _ in 0..3 {
        rows.push(ours());
    }
    // memlab once (it takes the longest): the Summary by class, written beside the snapshot.
    let oracle = dir.join("big.oracle.json");
    std::fs::remove_file(&oracle).ok();
    let (theirs, their_peak) = run_exact(
        Command::new("node")
            .arg("--max-old-space-size=16000")
            .arg(root.join("tests/fixtures/heap/oracle.cjs"))
            .arg(&path)
            .env("NODE_PATH", &modules),
    );
    // The same answer, class by class.
    let out = Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["heap", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want: serde_json::Value = serde_json::from_slice(&std::fs::read(&oracle).unwrap()).unwrap();
    let mut differ = 0;
    for c in doc["constructors"].as_array().unwrap() {
        let w = &want["constructors"][c["generated_name"].as_str().unwrap()];
        if ["count", "self_size", "retained_size"]
            .iter()
            .any(|k| c[*k] != w[*k])
        {
            differ += 1;
        }
    }
    println!(
        "# heap snapshot of {:.1} MB ({} nodes, {} edges): the Summary by constructor, whole process\n",
        bytes as f64 / 1e6,
        doc["nodes"],
        doc["edges"]
    );
    println!("| run | symscope heap | peak | peak / file |");
    println!("|---:|---:|---:|---:|");
    for (k, (t, peak)) in rows.iter().enumerate() {
        println!(
            "| {} | {:.2} s | {:.0} MB | {:.2}× |",
            k + 1,
            ms(*t) / 1e3,
            *peak as f64 / 1e6,
            *peak as f64 / bytes as f64
        );
    }
    let mut times: Vec<f64> = rows.iter().map(|r| ms(r.0)).collect();
    times.sort_by(f64::total_cmp);
    println!(
        "\nmemlab: {:.2} s, peak {:.0} MB; memlab / ours (median) {:.2}× (target ≥ 10×); targets ≤ 5 s and peak ≤ 1.2× the file; classes differing from memlab: {differ} of {}",
        ms(theirs) / 1e3,
        their_peak as f64 / 1e6,
        ms(theirs) / times[1],
        doc["constructors"].as_array().unwrap().len()
    );
}
