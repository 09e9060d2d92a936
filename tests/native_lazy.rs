//! The lazy DWARF reader (`symbols::native::LazySections`, issue #21 part 1, in progress)
//! against the SymCache the engine builds today, on the corpus's ELF and Mach-O debug files:
//! at every address of the corpus crashes in them and at 3,000 addresses drawn (fixed seed)
//! over each file's code, the answers (function, file, line of every inline frame) are the
//! same wherever the SymCache has one. Where it has none, the lazy reader may still answer
//! (code the line table covers but no DWARF function does); those are counted.

mod common;

use symscope::symbols::native::{LazySections, NativeSymbols};

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
];

/// Addresses (relative to the load address) inside the file's functions (its symbol table's
/// symbols).
fn sample(bytes: &[u8], n: usize) -> Vec<u64> {
    use symbolic::debuginfo::Archive;
    let archive = Archive::parse(bytes).unwrap();
    let object = archive.object_by_index(0).unwrap().unwrap();
    let base = object.load_address();
    // Mach-O symbols have no size: a function then runs to the next symbol.
    let mut symbols: Vec<(u64, u64)> = object
        .symbols()
        .filter(|s| s.address >= base)
        .map(|s| (s.address - base, s.size))
        .collect();
    symbols.sort_unstable();
    let code: Vec<(u64, u64)> = symbols
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
        .collect();
    // A Mach-O file with no symbol table (ld64.lld's output here): its first 64 KB, where
    // these small programs' code is.
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
        let sections = LazySections::load(&bytes).unwrap();
        let lazy = sections.context().unwrap();
        let at_crashes = crash_addresses(path);
        crashes += at_crashes.len();
        for addr in at_crashes.into_iter().chain(sample(&binary, 3_000)) {
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
    assert!(checked > 10_000, "{checked} addresses compared");
    eprintln!("{checked} equal; {only_lazy} answered by the lazy reader alone");
}
