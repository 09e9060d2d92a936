//! The lazy DWARF reader (`NativeSymbols::open`, what the CLI answers a crash with) against
//! the SymCache (what `--cache` and the window's background job build), on the corpus's ELF
//! and Mach-O debug files:
//! at every address of the corpus crashes in them and at 3,000 addresses drawn (fixed seed)
//! over each file's code, the answers (function, file, line of every inline frame) are the
//! same wherever the SymCache has one. Where it has none, the lazy reader may still answer
//! (code the line table covers but no DWARF function does); those are counted.

mod common;

use symscope::model::{Blob, NoProgress, Serial};
use symscope::symbols::native::NativeSymbols;

/// (debug file, the binary whose symbol table the sample addresses are drawn from: a dSYM
/// may have none).
const FILES: &[(&str, &str)] = &[
    ("native/crashy/crashy", "native/crashy/crashy"),
    ("native/crashy/crashy.debug", "native/crashy/crashy"),
    ("native/asan/crashy-asan", "native/asan/crashy-asan"),
    (
        "native/glibc-backtrace/btsym",
        "native/glibc-backtrace/btsym",
    ),
    (
        "native/macho/macho_crash.dSYM/Contents/Resources/DWARF/macho_crash",
        "native/macho/macho_crash",
    ),
    (
        "native/sentry-symbolic/fixtures/linux/crash.debug",
        "native/sentry-symbolic/fixtures/linux/crash",
    ),
    (
        "native/sentry-symbolic/fixtures/macos/crash.dSYM/Contents/Resources/DWARF/crash",
        "native/sentry-symbolic/fixtures/macos/crash",
    ),
    // Names across units, compressed sections.
    ("native/rust-xcu/xcu.debug", "native/rust-xcu/xcu.debug"),
    (
        "native/glibc-backtrace/btsym-rdynamic",
        "native/glibc-backtrace/btsym-rdynamic",
    ),
    (
        "native/sentry-symbolic/fixtures/macos/overlapping_funcs.dSYM/Contents/Resources/DWARF/overlapping_funcs",
        "native/sentry-symbolic/fixtures/macos/overlapping_funcs.dSYM/Contents/Resources/DWARF/overlapping_funcs",
    ),
    // A universal dSYM (two architectures): its first object.
    (
        "native/sentry-symbolic/crashprobe/simulator-CrashProbeiOS.app.dSYM/Contents/Resources/DWARF/CrashProbeiOS",
        "native/sentry-symbolic/crashprobe/simulator-CrashProbeiOS.app.dSYM/Contents/Resources/DWARF/CrashProbeiOS",
    ),
];

/// Addresses (relative to the load address) inside the functions of an ELF binary's symbol
/// table; for a Mach-O file (whose symbols have no size, and whose dSYM may have no symbol
/// table), inside the functions symbolic reads from the debug file's DWARF, so that the
/// sample lands in code rather than in headers.
fn sample(binary: &[u8], debug: &[u8], n: usize) -> Vec<u64> {
    use symbolic::debuginfo::{Archive, FileFormat};
    let archive = Archive::parse(binary).unwrap();
    let object = archive.object_by_index(0).unwrap().unwrap();
    let base = object.load_address();
    let code: Vec<(u64, u64)> = if object.file_format() == FileFormat::MachO {
        let archive = Archive::parse(debug).unwrap();
        let object = archive.object_by_index(0).unwrap().unwrap();
        let session = object.debug_session().unwrap();
        let mut ranges: Vec<(u64, u64)> = session
            .functions()
            .filter_map(Result::ok)
            .filter(|f| f.size > 0)
            .map(|f| (f.address, f.size))
            .collect();
        ranges.sort_unstable();
        ranges
    } else {
        let mut symbols: Vec<(u64, u64)> = object
            .symbols()
            .filter(|s| s.address >= base)
            .map(|s| (s.address - base, s.size))
            .collect();
        symbols.sort_unstable();
        // A symbol without a size runs to the next one.
        symbols
            .iter()
            .enumerate()
            .filter_map(|(i, &(a, size))| {
                let size = if size > 0 {
                    size
                } else {
                    symbols.get(i + 1)?.0.saturating_sub(a)
                };
                (size > 0).then_some((a, size))
            })
            .collect()
    };
    // A file with no symbol table (stripped): its first 64 KB, where these small
    // programs' code is.
    let code = if code.is_empty() {
        vec![(0, 0x10000)]
    } else {
        code
    };
    let mut seed: u64 = 0x21_2026_1125;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        seed >> 33
    };
    (0..n)
        .map(|_| {
            let (start, size) = code[(next() as usize) % code.len()];
            start + next() % size
        })
        .collect()
}

/// The corpus crashes' look-up addresses in a file, from the oracles.
fn crash_addresses(path: &str) -> Vec<u64> {
    let oracle = match path {
        p if p.starts_with("native/crashy/") => [
            "native/crashy/oracle-crash-1.json",
            "native/crashy/oracle-crash-2.json",
            "native/crashy/oracle-crash-3.json",
        ]
        .as_slice(),
        p if p.starts_with("native/macho/") => ["native/macho/oracle-macho.json"].as_slice(),
        _ => &[],
    };
    let mut out = Vec::new();
    for o in oracle {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(common::fixture(o)).unwrap()).unwrap();
        for f in json["frames"].as_array().unwrap() {
            let in_file = f["in_module"].as_str().is_none_or(|m| m != "libc.so.6");
            let Some(addr) = f["lookup_addr"].as_str() else {
                continue;
            };
            let addr = u64::from_str_radix(addr.trim_start_matches("0x"), 16).unwrap();
            // Mach-O oracle addresses are absolute (image base 0x100000000).
            let addr = if p_is_macho(o) {
                addr - 0x1_0000_0000
            } else {
                addr
            };
            if in_file {
                out.push(addr);
            }
        }
    }
    out
}

fn p_is_macho(oracle: &str) -> bool {
    oracle.contains("macho")
}

#[test]
fn lazy_answers_equal_the_symcache() {
    let mut checked = 0;
    let mut crashes = 0;
    let mut only_lazy = 0;
    for (path, binary) in FILES {
        let bytes = std::fs::read(common::fixture(path)).unwrap();
        let binary = std::fs::read(common::fixture(binary)).unwrap();
        let symcache = NativeSymbols::convert(&bytes, None).unwrap();
        let object = symcache.object_for_arch(None);
        let opened =
            NativeSymbols::open(&Blob::from(bytes.clone()), None, &Serial, &mut NoProgress)
                .unwrap();
        assert!(opened.is_lazy(), "{path} is answered lazily");
        let lazy = opened.object_for_arch(None);
        let at_crashes = crash_addresses(path);
        crashes += at_crashes.len();
        for addr in at_crashes.into_iter().chain(sample(&binary, &bytes, 3_000)) {
            let theirs = object.lookup(addr);
            let ours = lazy.lookup(addr);
            if theirs.is_empty() {
                // Only the line table can answer where the SymCache has nothing.
                if !ours.is_empty() {
                    assert!(ours[0].file.is_some(), "{path} at {addr:#x}: {ours:?}");
                    only_lazy += 1;
                }
                continue;
            }
            // Code the line table covers but no DWARF function does: the SymCache has the
            // symbol table's name alone, the lazy reader the same name with file and line.
            let line_table_only = theirs.len() == 1
                && theirs[0].file.is_none()
                && ours.len() == 1
                && ours[0].function == theirs[0].function
                && ours[0].file.is_some();
            if line_table_only {
                only_lazy += 1;
                continue;
            }
            assert_eq!(ours, theirs, "{path} at {addr:#x}");
            checked += 1;
        }
    }
    assert!(crashes >= 30, "{crashes} crash addresses");
    assert!(checked > 25_000, "{checked} addresses compared");
    eprintln!("{checked} equal; {only_lazy} answered by the lazy reader alone");
}

/// Random addresses drawn per file for the agreement with llvm-symbolizer.
const AGREEMENT_SAMPLE: usize = 2_000;

/// Where llvm-symbolizer's answers at [`AGREEMENT_SAMPLE`] addresses of each file are kept.
fn oracle_path(path: &str) -> std::path::PathBuf {
    let name: String = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/native/lazy-oracle")
        .join(format!("{name}.json"))
}

/// The first object's load address (llvm-symbolizer takes addresses as the file states
/// them) and, in a universal file, its architecture as llvm-symbolizer names it.
fn first_object(bytes: &[u8]) -> (u64, Option<String>) {
    let archive = symbolic::debuginfo::Archive::parse(bytes).unwrap();
    let object = archive.object_by_index(0).unwrap().unwrap();
    let arch = (archive.object_count() > 1).then(|| match object.arch().name() {
        "x86" => "i386".to_owned(),
        other => other.to_owned(),
    });
    (object.load_address(), arch)
}

/// llvm-symbolizer's innermost (file, line) at each address (relative to the load address),
/// as `tests/fixtures/native/lazy-oracle/README.md` says it was written.
fn llvm_symbolizer(
    file: &std::path::Path,
    (base, arch): (u64, Option<String>),
    addrs: &[u64],
) -> Vec<serde_json::Value> {
    use std::io::Write as _;
    let mut command = std::process::Command::new("llvm-symbolizer");
    command.args(["--inlining", "--output-style=JSON"]);
    if let Some(arch) = arch {
        command.arg(format!("--default-arch={arch}"));
    }
    let mut child = command
        .arg(format!("--obj={}", file.display()))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("llvm-symbolizer (Debian's llvm) writes the oracle");
    let input: String = addrs.iter().map(|a| format!("{:#x}\n", a + base)).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .zip(addrs)
        .map(|(line, addr)| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let first = &v["Symbol"][0];
            let file = first["FileName"].as_str().filter(|f| !f.is_empty());
            let line = first["Line"].as_u64().filter(|&l| l > 0);
            match (file, line) {
                (Some(f), Some(l)) => {
                    serde_json::json!({"addr": format!("{addr:#x}"), "file": f, "line": l})
                }
                _ => serde_json::json!({"addr": format!("{addr:#x}"), "file": null, "line": null}),
            }
        })
        .collect()
}

/// At 2,000 random addresses (fixed seed) of each corpus binary (of which llvm-symbolizer
/// answers at least 40%), the lazy reader's innermost file and line equal llvm-symbolizer's
/// (its answers vendored as an oracle) at every address llvm-symbolizer answers,
/// line-table-only code included; where llvm-symbolizer has no file and line, the lazy
/// reader has none either.
#[test]
fn innermost_agrees_with_llvm_symbolizer() {
    let (mut answered, mut same) = (0usize, 0usize);
    let mut differing = Vec::new();
    for (path, binary) in FILES {
        let file = common::fixture(path);
        let bytes = std::fs::read(&file).unwrap();
        let addrs = sample(
            &std::fs::read(common::fixture(binary)).unwrap(),
            &bytes,
            AGREEMENT_SAMPLE,
        );
        let oracle_file = oracle_path(path);
        if std::env::var_os("SYMSCOPE_WRITE_LLVM_ORACLE").is_some() {
            let answers = llvm_symbolizer(&file, first_object(&bytes), &addrs);
            let doc = serde_json::json!({"file": path, "answers": answers});
            std::fs::create_dir_all(oracle_file.parent().unwrap()).unwrap();
            std::fs::write(&oracle_file, serde_json::to_string(&doc).unwrap()).unwrap();
        }
        let oracle: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&oracle_file).unwrap()).unwrap();
        let answers = oracle["answers"].as_array().unwrap();
        assert_eq!(answers.len(), addrs.len(), "{path}: the oracle's sample");
        // An oracle that answers little tests little: each file's sample lands in code.
        let answering = answers.iter().filter(|a| a["file"].is_string()).count();
        assert!(
            answering * 5 >= AGREEMENT_SAMPLE * 2,
            "{path}: llvm-symbolizer answers only {answering} of {AGREEMENT_SAMPLE}"
        );
        let opened =
            NativeSymbols::open(&Blob::from(bytes.clone()), None, &Serial, &mut NoProgress)
                .unwrap();
        let lazy = opened.object_for_arch(None);
        for (answer, &addr) in answers.iter().zip(&addrs) {
            assert_eq!(
                answer["addr"],
                format!("{addr:#x}"),
                "{path}: the oracle's sample"
            );
            let ours = lazy.lookup(addr);
            let Some(file) = answer["file"].as_str() else {
                // Where llvm-symbolizer has no file and line, neither has the lazy reader.
                let innermost = ours.first();
                assert!(
                    innermost.is_none_or(|l| l.file.is_none() || l.line.is_none()),
                    "{path} {addr:#x}: ours {innermost:?}, llvm none"
                );
                continue;
            };
            answered += 1;
            let innermost = ours
                .first()
                .and_then(|l| Some((l.file.as_deref()?, l.line?)));
            // `a/../b` folded, as both readers' paths name the same file.
            let file = symbolic::common::clean_path(file);
            let theirs = (file.as_ref(), answer["line"].as_u64().unwrap() as u32);
            if innermost == Some(theirs) {
                same += 1;
            } else {
                differing.push(format!(
                    "{path} {addr:#x}: ours {innermost:?}, llvm {theirs:?}"
                ));
            }
        }
    }
    eprintln!("{same} of {answered} equal llvm-symbolizer's innermost file and line");

    for d in differing.iter().take(40) {
        eprintln!("  {d}");
    }
    assert!(answered >= 12_000, "{answered} answered");
    assert_eq!(same, answered, "every answer agrees");
}
