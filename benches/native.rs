//! `cargo bench --bench native`: our native look-ups against `llvm-symbolizer` (Debian's
//! `llvm`), in one run, on a large real debug binary: a release build of Symscope itself with
//! full debug info (built once into `target/bench-native/`, reused afterwards).
//!
//! 10,000 addresses are sampled (fixed seed) inside the functions of its symbol table, then
//! resolved with inline chains:
//! - ours, cold: the binary's bytes in memory → SymCache built (`NativeSymbols::convert_with`
//!   and the jobs layer's runner: the DWARF units are read and written in two shares side by
//!   side, then merged, as in the app and the CLI) → 10,000 look-ups; also on one thread;
//! - ours, warm: our cache file's bytes in memory (what a reopened workspace or `--cache` reads)
//!   → SymCache opened → 10,000 look-ups;
//! - `llvm-symbolizer --inlining --output-style=JSON --obj BIN`, all addresses on stdin, one
//!   process (its start, DWARF parsing and look-ups, as a person runs it).
//!
//! Cold, warm (median of 5) and llvm-symbolizer run in alternating rounds (7; medians), so
//! that a slow stretch of the machine hits all alike; the ratios are also given round by
//! round. Then, as a person runs them, one-off processes in 5 alternating rounds: `symscope
//! symbolicate --format json -s BIN LIST` (LIST: the addresses, one per line, read as
//! offsets into BIN as `--obj` reads them; the file mapped, the SymCache built, looked up,
//! the JSON written) against the llvm-symbolizer process.
//!
//! Also prints how many answers agree with llvm-symbolizer (innermost file name and line), and
//! checks that our SymCache is byte for byte the one `symbolic`'s own converter writes.
//! Targets (issue #5): warm ≥ 50× faster than llvm-symbolizer, cold no slower.

mod common;

use common::{median, ms};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use symbolic::debuginfo::Archive;
use symscope::jobs::ParallelIndex;
use symscope::symbols::native::NativeSymbols;

#[path = "../tests/common/reference.rs"]
mod reference;

const N: usize = 10_000;

/// Rounds of (ours cold, llvm-symbolizer); each figure is the median.
const ROUNDS: usize = 7;

/// Rounds of one-off processes (`symscope symbolicate`, llvm-symbolizer).
const CLI_ROUNDS: usize = 5;

/// The release build with debug info, built when missing.
fn binary() -> PathBuf {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-native");
    let bin = target.join("release/symscope");
    if !bin.exists() {
        eprintln!(
            "building a release Symscope with debug info into {} …",
            target.display()
        );
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "--bin", "symscope", "--target-dir"])
            .arg(&target)
            .env("CARGO_PROFILE_RELEASE_DEBUG", "true")
            .env("CARGO_PROFILE_RELEASE_STRIP", "false")
            .status()
            .expect("run cargo");
        assert!(status.success(), "the release build failed");
    }
    bin
}

/// `N` addresses inside the binary's functions (xorshift, fixed seed).
fn sample(bytes: &[u8]) -> Vec<u64> {
    sample_n(bytes, N, 0x9E37_79B9_7F4A_7C15)
}

/// llvm-symbolizer's innermost (file name, line) per address, and the time it took.
fn llvm(bin: &Path, addrs: &[u64]) -> (Vec<Option<(String, u64)>>, Duration) {
    let input: String = addrs.iter().map(|a| format!("{a:#x}\n")).collect();
    let start = Instant::now();
    let mut child = Command::new("llvm-symbolizer")
        .args(["--inlining", "--output-style=JSON", "--obj"])
        .arg(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("llvm-symbolizer (Debian package llvm) is needed");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let took = start.elapsed();
    let answers = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let s = &v["Symbol"][0];
            let file = s["FileName"].as_str().filter(|f| !f.is_empty())?;
            Some((base(file), s["Line"].as_u64().filter(|&l| l > 0)?))
        })
        .collect();
    (answers, took)
}

/// Wall time of one `symscope symbolicate` process over the address list `list`, and how
/// many of its frames resolved.
fn ours_cli(bin: &Path, list: &Path) -> (Duration, usize) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_symscope"))
        .args(["symbolicate", "--format", "json", "-s"])
        .arg(bin)
        .arg(list)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run symscope");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "symscope symbolicate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let resolved = doc["stacks"][0]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "resolved")
        .count();
    (took, resolved)
}

/// Sorted times of ours (with `note`) and llvm-symbolizer's, and the sorted ratios per round:
/// their ranges and the median ratio.
fn rounds(ours: &[Duration], note: &str, llvm: &[Duration], ratios: &[f64]) -> String {
    let span = |t: &[Duration]| format!("{:.0}–{:.0} ms", ms(t[0]), ms(t[t.len() - 1]));
    format!(
        "{}{note}, llvm-symbolizer {}; llvm-symbolizer / ours per round {:.2}–{:.2}× (median {:.2}×)",
        span(ours),
        span(llvm),
        ratios[0],
        ratios[ratios.len() - 1],
        ratios[ratios.len() / 2]
    )
}

fn base(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_owned()
}

/// One process's wall time and peak resident memory (KB, as GNU `time` reports it: the
/// command runs under `/usr/bin/time -f %M`), its standard input fed `input`, its standard
/// output returned.
fn measured(command: Command, input: &str) -> (Duration, u64, Vec<u8>) {
    use std::io::Read as _;
    let mut timed = Command::new("/usr/bin/time");
    timed.arg("-f").arg("%M").arg(command.get_program());
    timed.args(command.get_args());
    let start = Instant::now();
    let mut child = timed
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the process under /usr/bin/time (Debian's time)");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    writer.join().unwrap().ok();
    let done = child.wait_with_output().unwrap();
    let took = start.elapsed();
    assert!(done.status.success(), "{command:?} failed");
    let stderr = String::from_utf8_lossy(&done.stderr);
    let rss = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .expect("/usr/bin/time's peak memory");
    (took, rss, out)
}

/// gimli's `addr2line` binary (the `addr2line` crate's `bin` feature), installed into
/// `target/bench-native/` when missing.
fn gimli_addr2line() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-native/addr2line");
    let bin = root.join("bin/addr2line");
    if !bin.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["install", "--quiet", "addr2line", "--version", "0.25.1"])
            .args(["--features", "bin", "--root"])
            .arg(&root)
            .status()
            .expect("run cargo install");
        assert!(status.success(), "cargo install addr2line failed");
    }
    bin
}

/// A sqlite-sized shared library with debug info: SQLite's amalgamation (as the
/// `libsqlite3-sys` crate ships it, fetched by cargo) built with `gcc -g -O2 -shared` into
/// `target/bench-native/` when missing.
fn sqlite() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-native/sqlite");
    let lib = dir.join("libsqlite3.so");
    if lib.exists() {
        return lib;
    }
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"fetch-sqlite\"\nversion = \"0.0.0\"\nedition = \"2021\"\n[dependencies]\nlibsqlite3-sys = { version = \"=0.30.1\", features = [\"bundled\"] }\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    let metadata = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1"])
        .current_dir(&dir)
        .output()
        .expect("run cargo metadata");
    assert!(metadata.status.success(), "cargo metadata failed");
    let doc: serde_json::Value = serde_json::from_slice(&metadata.stdout).unwrap();
    let manifest = doc["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "libsqlite3-sys")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("libsqlite3-sys fetched")
        .to_owned();
    let source = Path::new(&manifest).with_file_name("sqlite3/sqlite3.c");
    let status = Command::new("gcc")
        .args(["-g", "-O2", "-fPIC", "-shared", "-o"])
        .arg(&lib)
        .arg(&source)
        .arg("-lm")
        .status()
        .expect("run gcc");
    assert!(status.success(), "gcc failed on {}", source.display());
    lib
}

/// `n` addresses (fixed seed) inside the functions of a file's symbol table.
fn sample_n(bytes: &[u8], n: usize, seed: u64) -> Vec<u64> {
    let archive = Archive::parse(bytes).unwrap();
    let object = archive.object_by_index(0).unwrap().unwrap();
    let funcs: Vec<(u64, u64)> = object
        .symbols()
        .filter(|s| s.size > 4)
        .map(|s| (s.address, s.size))
        .collect();
    let mut x = seed;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let (addr, size) = funcs[(next() % funcs.len() as u64) as usize];
            addr + next() % size
        })
        .collect()
}

/// One-off processes side by side (`CLI_ROUNDS` alternating rounds, medians): `symscope
/// symbolicate` with no cache (the lazy reader), llvm-symbolizer and gimli's `addr2line`, on
/// `n` addresses of `bin` drawn with `seed`. Prints a table row per tool: wall time, peak
/// memory, and the ratios.
fn one_off(bin: &Path, n: usize, seed: u64) -> (f64, f64, f64, u64, u64) {
    let addrs = &sample_n(&std::fs::read(bin).unwrap(), n, seed);
    let title = format!(
        "{} ({:.1} MB)",
        bin.display(),
        std::fs::metadata(bin).unwrap().len() as f64 / 1e6
    );
    let title = title.as_str();
    let list = std::env::temp_dir().join(format!("symscope-oneoff-{}.txt", std::process::id()));
    let text: String = addrs.iter().map(|a| format!("{a:#x}\n")).collect();
    std::fs::write(&list, &text).unwrap();
    let a2l = gimli_addr2line();
    let (mut ours, mut llvm, mut gimli) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..CLI_ROUNDS {
        let mut c = Command::new(env!("CARGO_BIN_EXE_symscope"));
        c.args(["symbolicate", "--format", "json", "-s"])
            .arg(bin)
            .arg(&list);
        let (t, rss, out) = measured(c, "");
        let doc: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let resolved = doc["stacks"][0]["frames"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["status"] == "resolved")
            .count();
        ours.push((t, rss, resolved));
        let mut c = Command::new("llvm-symbolizer");
        c.args(["--inlining", "--output-style=JSON"])
            .arg(format!("--obj={}", bin.display()));
        let (t, rss, _) = measured(c, &text);
        llvm.push((t, rss));
        let mut c = Command::new(&a2l);
        c.args(["-f", "-i", "-C", "-e"]).arg(bin);
        let (t, rss, _) = measured(c, &text);
        gimli.push((t, rss));
    }
    std::fs::remove_file(&list).ok();
    let med = |mut v: Vec<(Duration, u64)>| {
        v.sort();
        let t = v[v.len() / 2].0;
        let mut r: Vec<u64> = v.iter().map(|x| x.1).collect();
        r.sort();
        (ms(t), r[r.len() / 2])
    };
    let resolved = ours[0].2;
    let (o, o_rss) = med(ours.iter().map(|x| (x.0, x.1)).collect());
    let (l, l_rss) = med(llvm);
    let (g, g_rss) = med(gimli);
    println!();
    println!(
        "{title}: {} addresses, {resolved} resolved by ours; {CLI_ROUNDS} alternating rounds, medians",
        addrs.len()
    );
    println!();
    println!("| process | ms | peak MB | llvm-symbolizer / it |");
    println!("|---|---:|---:|---:|");
    for (name, t, rss) in [
        ("`symscope symbolicate` (lazy, no cache)", o, o_rss),
        ("`llvm-symbolizer --inlining`", l, l_rss),
        ("gimli's `addr2line -f -i -C`", g, g_rss),
    ] {
        println!(
            "| {name} | {t:.0} | {:.0} | {:.2}× |",
            rss as f64 / 1024.0,
            l / t
        );
    }
    (o, l, g, o_rss, l_rss)
}

fn main() {
    // One-off processes on the two cases issue #21 names: a crash's 20 addresses in a
    // ≥ 300 MB debug binary, and 10,000 addresses in a sqlite-sized library.
    let bin = binary();
    let big = one_off(&bin, 20, 0x2026_1125);
    let lib = sqlite();
    let sq = one_off(&lib, N, 0x0059_117E);
    println!();
    println!(
        "targets (issue #21): 20 addresses ≥ 2× llvm-symbolizer ({:.2}×) and faster than addr2line ({:.2}×); 10,000 sqlite addresses ≥ 1.5× llvm-symbolizer ({:.2}×); peak memory ≤ llvm-symbolizer's ({:.0} / {:.0} MB, {:.0} / {:.0} MB)",
        big.1 / big.0,
        big.2 / big.0,
        sq.1 / sq.0,
        big.3 as f64 / 1024.0,
        big.4 as f64 / 1024.0,
        sq.3 as f64 / 1024.0,
        sq.4 as f64 / 1024.0,
    );
    if std::env::var_os("SYMSCOPE_BENCH_ONE_OFF_ONLY").is_some() {
        return;
    }
    let bin = binary();
    let bytes = std::fs::read(&bin).unwrap();
    let addrs = sample(&bytes);

    // Ours, cold: convert (the DWARF units read in two shares side by side, as the app and
    // the CLI do), then look up; and llvm-symbolizer, one run of each per round, so that a
    // slow stretch of this shared machine hits both alike.
    let mut cache = Vec::new();
    let mut ours: Vec<Option<(String, u64)>> = Vec::new();
    let mut answers = Vec::new();
    let (mut colds, mut llvms, mut warms) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let native = NativeSymbols::convert_with(&bytes, None, &ParallelIndex).unwrap();
        ours = addrs
            .iter()
            .map(|&a| {
                let chain = native.lookup(a);
                let first = chain.first()?;
                Some((base(first.file.as_deref()?), u64::from(first.line?)))
            })
            .collect();
        colds.push(t.elapsed());
        cache = native.to_cache_bytes().unwrap();
        drop(native);
        // Ours, warm, in the same round: our cache file's bytes (read into memory as the app
        // and the CLI read them), opened in place, then look up.
        let bytes = std::sync::Arc::new(cache.clone());
        warms.push(median(5, || {
            let native = NativeSymbols::from_cache(bytes.clone()).unwrap();
            let mut found = 0usize;
            for &a in &addrs {
                found += native.lookup(a).len();
            }
            std::hint::black_box(found);
        }));
        let (a, took) = llvm(&bin, &addrs);
        answers = a;
        llvms.push(took);
    }
    // Round by round, how much faster ours was (below 1: slower).
    let mut round_ratios: Vec<f64> = colds
        .iter()
        .zip(&llvms)
        .map(|(c, l)| l.as_secs_f64() / c.as_secs_f64())
        .collect();
    round_ratios.sort_by(f64::total_cmp);
    let mut warm_ratios: Vec<f64> = warms
        .iter()
        .zip(&llvms)
        .map(|(w, l)| l.as_secs_f64() / w.as_secs_f64())
        .collect();
    warm_ratios.sort_by(f64::total_cmp);
    colds.sort();
    llvms.sort();
    warms.sort();
    let (cold, llvm_time, warm) = (colds[ROUNDS / 2], llvms[ROUNDS / 2], warms[ROUNDS / 2]);
    // The same on one thread.
    let cold_serial = median(3, || {
        let native = NativeSymbols::convert(&bytes, None).unwrap();
        let mut found = 0usize;
        for &a in &addrs {
            found += native.lookup(a).len();
        }
        std::hint::black_box(found);
    });
    // Cancelling a build half-way: from the cancel flag being set to the conversion's return
    // (the app's jobs answer the progress receiver with the flag).
    // Cancelled at 10%, 20%, … 60% of the way through a typical build (the last fifth or so
    // merges and writes what was read, and ends soon anyway).
    let cancels: Vec<Duration> = (1..=6)
        .map(|tenths| cold.mul_f64(f64::from(tenths) / 10.0))
        .map(|after| {
            let flag = std::sync::atomic::AtomicBool::new(false);
            let asked = std::sync::Mutex::new(None::<Instant>);
            std::thread::scope(|scope| {
                scope.spawn(|| {
                    std::thread::sleep(after);
                    *asked.lock().unwrap() = Some(Instant::now());
                    flag.store(true, std::sync::atomic::Ordering::Relaxed);
                });
                let mut progress = |_: &str, _: u64, _: u64| {
                    if flag.load(std::sync::atomic::Ordering::Relaxed) {
                        std::ops::ControlFlow::Break(())
                    } else {
                        std::ops::ControlFlow::Continue(())
                    }
                };
                let result =
                    NativeSymbols::convert_reporting(&bytes, None, &ParallelIndex, &mut progress);
                let done = Instant::now();
                assert!(result.is_err(), "the build ended before the cancel");
                done - asked.lock().unwrap().expect("cancel asked")
            })
        })
        .collect();
    let cancel_latency = cancels.iter().max().copied().unwrap_or_default();
    // The reference: symbolic's own converter, names cleaned as ours are.
    let same_as_symbolic = {
        let native = NativeSymbols::convert_with(&bytes, None, &ParallelIndex).unwrap();
        native.objects()[0].symcache_bytes()
            == Some(reference::reference_symcaches(&bytes)[0].as_slice())
    };
    // Ours, lazy, in process: the binary's bytes → opened → 10,000 look-ups (past 64 sets of
    // units, one context over every unit answers); each answer against the SymCache's.
    let blob = symscope::model::Blob::from(bytes.clone());
    let open = || {
        NativeSymbols::open(
            &blob,
            None,
            &ParallelIndex,
            &mut symscope::model::NoProgress,
        )
        .unwrap()
    };
    let lazy = median(3, || {
        let native = open();
        let mut found = 0usize;
        for &a in &addrs {
            found += native.lookup(a).len();
        }
        std::hint::black_box(found);
    });
    let (lazy_same, lazy_cold_name) = {
        let native = open();
        let symcache = NativeSymbols::from_cache(std::sync::Arc::new(cache.clone())).unwrap();
        let (mut same, mut cold) = (0, 0);
        for &a in &addrs {
            let (l, c) = (native.lookup(a), symcache.lookup(a));
            if l == c {
                same += 1;
            } else if l.len() == c.len()
                && c.last()
                    .is_some_and(|o| o.function.ends_with("[clone .cold]"))
            {
                // The SymCache names a function split into hot and cold parts by its lowest
                // symbol, the cold one; the lazy reader by the symbol that holds the address.
                cold += 1;
            } else {
                eprintln!("lazy and SymCache differ at {a:#x}: {l:?} / {c:?}");
            }
        }
        (same, cold)
    };
    drop(blob);
    let cache = std::sync::Arc::new(cache);
    // The two parts of warm, apart.
    let open = median(15, || {
        std::hint::black_box(NativeSymbols::from_cache(cache.clone()).unwrap());
    });
    let opened = NativeSymbols::from_cache(cache.clone()).unwrap();
    let lookups = median(15, || {
        let mut found = 0usize;
        for &a in &addrs {
            found += opened.lookup(a).len();
        }
        std::hint::black_box(found);
    });
    // One-off processes, as a person runs them.
    let list = std::env::temp_dir().join(format!("symscope-bench-{}.txt", std::process::id()));
    let text: String = addrs.iter().map(|a| format!("{a:#x}\n")).collect();
    std::fs::write(&list, text).unwrap();
    let (mut cli, mut cli_llvm, mut cli_ratios) = (Vec::new(), Vec::new(), Vec::new());
    let mut cli_resolved = 0;
    for _ in 0..CLI_ROUNDS {
        let (took, resolved) = ours_cli(&bin, &list);
        let (_, theirs) = llvm(&bin, &addrs);
        cli_ratios.push(theirs.as_secs_f64() / took.as_secs_f64());
        cli.push(took);
        cli_llvm.push(theirs);
        cli_resolved = resolved;
    }
    std::fs::remove_file(&list).ok();
    cli.sort();
    cli_llvm.sort();
    cli_ratios.sort_by(f64::total_cmp);
    let both = ours
        .iter()
        .zip(&answers)
        .filter(|(o, l)| o.is_some() && l.is_some())
        .count();
    let same = ours
        .iter()
        .zip(&answers)
        .filter(|(o, l)| o.is_some() && o == l)
        .count();

    println!(
        "{} ({:.0} MB, release with debug info), {N} addresses inside its functions",
        bin.display(),
        bytes.len() as f64 / 1e6
    );
    println!();
    println!("| path | ms | vs llvm-symbolizer |");
    println!("|---|---:|---:|");
    let l = ms(llvm_time);
    for (name, t) in [
        ("llvm-symbolizer (one process, all addresses)", l),
        (
            "ours, cold (SymCache built, DWARF units read in 2 shares side by side, + look-ups)",
            ms(cold),
        ),
        (
            "ours, cold (SymCache built on 1 thread + look-ups)",
            ms(cold_serial),
        ),
        (
            "ours, lazy (DWARF opened, units read as asked + look-ups)",
            ms(lazy),
        ),
        ("ours, warm (cache opened + look-ups)", ms(warm)),
        ("  of which: cache opened", ms(open)),
        ("  of which: look-ups", ms(lookups)),
    ] {
        let ratio = l / t;
        if name.starts_with(' ') {
            println!("| {name} | {t:.1} | |");
        } else if name.starts_with("llvm") {
            println!("| {name} | {t:.1} | 1.0× |");
        } else if ratio >= 1.0 {
            println!("| {name} | {t:.1} | {ratio:.1}× faster |");
        } else {
            println!(
                "| {name} | {t:.1} | {ratio:.2}× ({:.2}× slower) |",
                1.0 / ratio
            );
        }
    }
    println!();
    println!(
        "cache: {:.1} MB; innermost file and line equal llvm-symbolizer's on {same} of {both} addresses both resolve",
        cache.len() as f64 / 1e6
    );
    println!(
        "cancelling a SymCache build 10–60% of the way in ({} tries, {:.0}–{:.0} ms in): it returned at most {:.1} ms after the cancel (median {:.1} ms)",
        cancels.len(),
        ms(cold) * 0.1,
        ms(cold) * 0.6,
        ms(cancel_latency),
        ms({
            let mut c = cancels.clone();
            c.sort();
            c[c.len() / 2]
        })
    );
    println!(
        "lazy answers equal the SymCache's at {lazy_same} of {N} addresses; {lazy_cold_name} more differ only in naming a hot/cold split function by its cold symbol (the SymCache) or the symbol holding the address (lazy, as llvm-symbolizer)"
    );
    assert_eq!(
        lazy_same + lazy_cold_name,
        N,
        "lazy and SymCache answers differ"
    );
    println!(
        "our SymCache is byte for byte symbolic's process_object's: {}",
        if same_as_symbolic { "yes" } else { "NO" }
    );
    assert!(same_as_symbolic, "our SymCache differs from symbolic's");
    println!(
        "cold, {ROUNDS} rounds of ours then llvm-symbolizer: ours {}",
        rounds(&colds, "", &llvms, &round_ratios)
    );
    println!(
        "warm, in the same rounds: llvm-symbolizer / ours per round {:.0}–{:.0}× (median {:.0}×)",
        warm_ratios[0],
        warm_ratios[ROUNDS - 1],
        warm_ratios[ROUNDS / 2]
    );
    println!(
        "one-off processes, {CLI_ROUNDS} rounds: symscope symbolicate {}",
        rounds(
            &cli,
            &format!(" ({cli_resolved} of {N} frames resolved)"),
            &cli_llvm,
            &cli_ratios
        )
    );
    println!(
        "targets: warm ≥ 50× ({:.0}×), cold no slower ({:.2}×; one-off processes {:.2}×)",
        l / ms(warm),
        l / ms(cold),
        cli_ratios[CLI_ROUNDS / 2]
    );
}
