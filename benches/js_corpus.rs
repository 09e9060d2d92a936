//! `cargo bench --bench js_corpus`: cold symbolication of every JavaScript case of the shared
//! corpus (`tests/fixtures/js/*/case.json`), as a user runs it: `symscope symbolicate -s
//! CASE_DIR TRACE --format json`, a new process each time (the maps and bundles read, parsed
//! and indexed, the trace read and symbolicated, the JSON written to `/dev/null`). Median and
//! fastest of 21 runs per case.
//!
//! Issue #18's target: cold symbolication within 20% of the engine before it on every case.
//! With `SYMSCOPE_BASELINE=/path/to/an/older/symscope`, that binary runs too, alternating with
//! this one, and the ratio is printed.
//!
//! Then, in this process, the part issue #18 added: the scope pass's search for the enclosing
//! function of every frame of each trace in its bundle (`symbols::scopes::enclosing_functions`:
//! the bracket scan and the slices parsed), against one parse of the whole bundle with
//! `oxc_parser`. Medians of 21 calls (the code warm, as it is not in a cold process).
//! `cargo bench --bench js_corpus -- scopes` runs only this part.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 21;

/// One run: wall time.
fn run(exe: &Path, dir: &Path, trace: &Path) -> Duration {
    let start = Instant::now();
    let status = Command::new(exe)
        .args(["symbolicate", "--format", "json", "-s"])
        .arg(dir)
        .arg(trace)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "symscope failed on {}", trace.display());
    start.elapsed()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js");
    if std::env::args().any(|a| a == "scopes") {
        scope_pass(&root);
        return;
    }
    let mut exes = vec![PathBuf::from(env!("CARGO_BIN_EXE_symscope"))];
    if let Ok(base) = std::env::var("SYMSCOPE_BASELINE") {
        exes.push(PathBuf::from(base));
    }
    // Every `case*.json` of every case folder names one trace.
    let mut cases: Vec<(PathBuf, String)> = Vec::new();
    for dir in std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
    {
        for f in std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(|e| Some(e.ok()?.path()))
        {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("case") && name.ends_with(".json") {
                let case: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
                cases.push((dir.clone(), case["trace"].as_str().unwrap().to_owned()));
            }
        }
    }
    cases.sort();
    println!(
        "| case | trace | this build: median (fastest) | baseline: median (fastest) | ratio |"
    );
    println!("|---|---|---|---|---|");
    for (dir, trace) in cases {
        {
            let trace_path = dir.join(&trace);
            let mut times: Vec<Vec<Duration>> = vec![Vec::new(); exes.len()];
            for _ in 0..RUNS {
                for (exe, t) in exes.iter().zip(&mut times) {
                    t.push(run(exe, &dir, &trace_path));
                }
            }
            let stats: Vec<(f64, f64)> = times
                .iter_mut()
                .map(|t| {
                    t.sort();
                    (ms(t[t.len() / 2]), ms(t[0]))
                })
                .collect();
            let name = dir.file_name().unwrap().to_string_lossy();
            let (this, base) = (stats[0], stats.get(1));
            match base {
                Some(b) => println!(
                    "| {name} | {trace} | {:.2} ms ({:.2}) | {:.2} ms ({:.2}) | {:.2}× |",
                    this.0,
                    this.1,
                    b.0,
                    b.1,
                    this.0 / b.0
                ),
                None => println!(
                    "| {name} | {trace} | {:.2} ms ({:.2}) | | |",
                    this.0, this.1
                ),
            }
        }
    }
    scope_pass(&root);
}

/// Frame positions in `trace` (`…name:LINE:COL`, 1-based) as byte offsets of `bundle`.
fn frame_offsets(trace: &str, name: &str, bundle: &str) -> Vec<usize> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(bundle.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut out = Vec::new();
    for line in trace.lines() {
        let Some(at) = line.find(name) else { continue };
        let mut nums = line[at + name.len()..]
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<usize>().unwrap_or(0));
        let (Some(l), Some(c)) = (nums.next(), nums.next()) else {
            continue;
        };
        let Some(&start) = starts.get(l.wrapping_sub(1)) else {
            continue;
        };
        let end = starts.get(l).map_or(bundle.len(), |&e| e - 1);
        if let Some(b) =
            symscope::model::utf16_col_to_byte(&bundle[start..end], c.saturating_sub(1) as u32)
        {
            out.push(start + b);
        }
    }
    out
}

fn median(mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..RUNS)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// The scope pass of each trace, in this process, against a whole-bundle parse.
fn scope_pass(root: &Path) {
    println!();
    println!(
        "| case | trace | bundle | frames | scope pass | bytes parsed | whole-bundle parse (oxc) |"
    );
    println!("|---|---|---|---:|---:|---:|---:|");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .filter_map(|e| Some(e.ok()?.path()))
            .collect();
        files.sort();
        let bundles: Vec<&PathBuf> = files
            .iter()
            .filter(|f| {
                f.with_extension(format!(
                    "{}.map",
                    f.extension().unwrap_or_default().to_string_lossy()
                ))
                .exists()
            })
            .collect();
        for bundle_path in bundles {
            // Only JavaScript text (not Hermes bytecode).
            let Ok(bundle) = std::fs::read_to_string(bundle_path) else {
                continue;
            };
            let name = bundle_path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let whole = median(|| {
                let alloc = oxc_allocator::Allocator::default();
                let ret =
                    oxc_parser::Parser::new(&alloc, &bundle, oxc_span::SourceType::unambiguous())
                        .parse();
                std::hint::black_box(ret.program.body.len());
            });
            for trace in files.iter().filter(|f| {
                let n = f.file_name().unwrap().to_string_lossy();
                n.starts_with("trace") && n.ends_with(".txt")
            }) {
                let text = std::fs::read_to_string(trace).unwrap();
                let offsets = frame_offsets(&text, &name, &bundle);
                if offsets.is_empty() {
                    continue;
                }
                let found = symscope::symbols::scopes::enclosing_functions(&bundle, &offsets);
                let mut parsed: Vec<usize> = found.iter().flatten().map(|f| f.parsed).collect();
                parsed.sort_unstable();
                parsed.dedup();
                let pass = median(|| {
                    std::hint::black_box(symscope::symbols::scopes::enclosing_functions(
                        &bundle, &offsets,
                    ));
                });
                println!(
                    "| {} | {} | {name} ({} KB) | {} | {pass:.3} ms | {}–{} | {whole:.2} ms |",
                    dir.file_name().unwrap().to_string_lossy(),
                    trace.file_name().unwrap().to_string_lossy(),
                    bundle.len() / 1024,
                    offsets.len(),
                    parsed.first().unwrap_or(&0),
                    parsed.last().unwrap_or(&0),
                );
            }
        }
    }
}
