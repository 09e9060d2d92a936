//! `cargo bench --bench wasm`: a 30-frame V8 crash through a WebAssembly module of 50,000
//! functions with DWARF, resolved cold by `symscope symbolicate` (one process, no cache: the
//! module read, the units the frames fall in read lazily) against `llvm-symbolizer` on the
//! same 30 addresses (one process; offsets moved to DWARF's, as it takes them).
//!
//! The module is generated C (100 files of 500 functions, each calling the one before, so
//! none is dropped) built with clang-14 and wasm-ld-14 (`-O1 -g`) into `target/bench-wasm/`
//! once. The frames are 30 functions spread over the module, each at the middle of its body.
//! Rounds alternate (7; medians) so that a slow stretch of the machine hits both alike; the
//! answers are checked to agree (innermost file and line of every frame).
//! Target (issue #38): ours in less time than llvm-symbolizer.

mod common;

use common::{ms, run_exact};
use std::path::{Path, PathBuf};
use std::process::Command;
use symscope::symbols::native::WasmModule;

const FILES: usize = 100;
const PER_FILE: usize = 500;
const FRAMES: usize = 30;
const ROUNDS: usize = 7;

/// The generated module, built when missing.
fn module(dir: &Path) -> PathBuf {
    let wasm = dir.join("big.wasm");
    if wasm.exists() {
        return wasm;
    }
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let mut objects = Vec::new();
    for file in 0..FILES {
        let mut c = String::new();
        if file > 0 {
            c += &format!("int f{}(int x);\n", file * PER_FILE - 1);
        }
        for i in file * PER_FILE..(file + 1) * PER_FILE {
            let body = if i == 0 {
                "return x * 3 + 1;".to_owned()
            } else {
                format!(
                    "int y = f{}(x ^ {i});\n  if (y % 7 == {}) y += x;\n  return y + {};",
                    i - 1,
                    i % 7,
                    i % 13
                )
            };
            c += &format!("__attribute__((noinline)) int f{i}(int x) {{\n  {body}\n}}\n");
        }
        if file == FILES - 1 {
            c += &format!(
                "__attribute__((export_name(\"run\"))) int run(int x) {{ return f{}(x); }}\n",
                FILES * PER_FILE - 1
            );
        }
        let src = dir.join(format!("src/m{file}.c"));
        std::fs::write(&src, c).unwrap();
        let obj = dir.join(format!("src/m{file}.o"));
        let status = Command::new("clang-14")
            .args(["--target=wasm32", "-O1", "-g", "-c", "-o"])
            .arg(&obj)
            .arg(&src)
            .status()
            .expect("clang-14 (Debian's clang-14) is needed");
        assert!(status.success());
        objects.push(obj);
    }
    let status = Command::new("wasm-ld-14")
        .args(["--no-entry", "-o"])
        .arg(&wasm)
        .args(&objects)
        .status()
        .expect("wasm-ld-14 (Debian's lld-14) is needed");
    assert!(status.success());
    wasm
}

/// llvm-symbolizer's innermost `file:line` per address.
fn llvm_answers(out: &str) -> Vec<String> {
    out.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|b| {
            let line = b.trim().lines().nth(1).unwrap_or("");
            let mut parts = line.rsplitn(3, ':');
            let (_, l, f) = (parts.next(), parts.next(), parts.next());
            format!("{}:{}", f.unwrap_or(""), l.unwrap_or(""))
        })
        .collect()
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-wasm");
    let wasm = module(&dir);
    let bytes = std::fs::read(&wasm).unwrap();
    let layout = WasmModule::parse(&bytes).unwrap();
    let functions = layout.bodies.len();
    // 30 functions spread over the module, each at the middle of its body.
    let picks: Vec<(u32, u64)> = (0..FRAMES)
        .map(|k| {
            let i = (k * (functions - 1)) / (FRAMES - 1);
            let body = &layout.bodies[i];
            (layout.imported + i as u32, (body.start + body.end) / 2)
        })
        .collect();
    let stack: String = std::iter::once("RuntimeError: unreachable\n".to_owned())
        .chain(picks.iter().map(|(index, off)| {
            format!("    at f (https://app.example/big.wasm:wasm-function[{index}]:{off:#x})\n")
        }))
        .collect();
    let log = dir.join("crash.txt");
    std::fs::write(&log, &stack).unwrap();
    // llvm-symbolizer takes DWARF's addresses: from the code section's contents.
    let addresses: Vec<String> = picks
        .iter()
        .map(|(_, off)| format!("{:#x}", off - layout.code_offset))
        .collect();
    let ours = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_symscope"));
        c.args(["symbolicate", "--format", "json", "-s"])
            .arg(&wasm)
            .arg(&log);
        c
    };
    let llvm = || {
        let mut c = Command::new("llvm-symbolizer");
        c.arg("--inlining")
            .arg(format!("--obj={}", wasm.display()))
            .args(&addresses);
        c
    };
    // The answers agree.
    let out = ours().output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mine: Vec<String> = doc["stacks"][0]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let l = &f["resolved"][0];
            format!(
                "{}:{}",
                l["file"].as_str().unwrap_or(""),
                l["line"].as_u64().unwrap_or(0)
            )
        })
        .collect();
    let theirs = llvm_answers(&String::from_utf8(llvm().output().unwrap().stdout).unwrap());
    let agree = mine.iter().zip(&theirs).filter(|(a, b)| a == b).count();
    let (mut o, mut l) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        o.push(run_exact(&ours()));
        l.push(run_exact(&llvm()));
    }
    let med = |v: &mut Vec<(std::time::Duration, u64)>| {
        v.sort();
        let t = ms(v[v.len() / 2].0);
        let mut r: Vec<u64> = v.iter().map(|x| x.1).collect();
        r.sort();
        (t, r[r.len() / 2] as f64 / 1e6)
    };
    let ((ot, orss), (lt, lrss)) = (med(&mut o), med(&mut l));
    println!(
        "{} ({:.1} MB, {functions} functions): {FRAMES} frames; {agree}/{FRAMES} answers agree with llvm-symbolizer; {ROUNDS} alternating rounds, medians",
        wasm.display(),
        bytes.len() as f64 / 1e6
    );
    println!();
    println!("| process | ms | peak MB | llvm-symbolizer / it |");
    println!("|---|---:|---:|---:|");
    println!(
        "| `symscope symbolicate` (lazy, no cache) | {ot:.0} | {orss:.0} | {:.2}× |",
        lt / ot
    );
    println!("| `llvm-symbolizer --inlining` | {lt:.0} | {lrss:.0} | 1.00× |");
    println!();
    println!(
        "target (issue #38): ours in less time than llvm-symbolizer: {}",
        if ot < lt { "met" } else { "NOT met" }
    );
}
