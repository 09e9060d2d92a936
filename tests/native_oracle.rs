//! Native look-ups through our SymCache against the llvm-symbolizer oracle of the real
//! `crashy` crashes (`tests/fixtures/native/crashy`).

use serde_json::Value;
use symscope::symbols::native::NativeSymbols;

const DIR: &str = "tests/fixtures/native/crashy";

/// The two rendering differences to accept: llvm-symbolizer renders a lambda
/// `'lambda'(long)`, the Itanium demangler symbolic uses (and addr2line) `{lambda(long)#1}`
/// (both correct, as the corpus README says); and a Breakpad file's names have no return
/// type (`dump_syms` writes them so), where llvm-symbolizer's from DWARF start with one.
fn same_function(ours: &str, llvm: &str, breakpad: bool) -> bool {
    let ours = ours.replace("{lambda(long)#1}", "'lambda'(long)");
    ours == llvm
        || (breakpad
            && llvm
                .strip_suffix(ours.as_str())
                .is_some_and(|ret| ret.ends_with(' ') && !ret.trim().contains(' ')))
}

fn check_file(symbols: &str) -> usize {
    let bytes = std::fs::read(format!("{DIR}/{symbols}")).unwrap();
    let converted = NativeSymbols::convert(&bytes, None).unwrap();
    // Every check runs on the cache file read back in place, as a reopened workspace and
    // `--cache` read it (the conversion and the cache must give the same answers).
    let native =
        NativeSymbols::from_cache(std::sync::Arc::new(converted.to_cache_bytes().unwrap()))
            .expect("the cache file reads back");
    assert_eq!(native.info(), converted.info());
    let mut n = 0;
    for case in 1..=3 {
        let oracle: Value = serde_json::from_slice(
            &std::fs::read(format!("{DIR}/oracle-crash-{case}.json")).unwrap(),
        )
        .unwrap();
        for frame in oracle["frames"].as_array().unwrap() {
            if frame["in_module"].is_null() {
                continue;
            }
            let addr = u64::from_str_radix(
                frame["lookup_addr"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("0x"),
                16,
            )
            .unwrap();
            let ours = native.lookup(addr);
            let want = frame["llvm_symbolizer"].as_array().unwrap();
            assert_eq!(
                ours.len(),
                want.len(),
                "{symbols} case {case} {addr:#x}: {ours:?}"
            );
            for (o, w) in ours.iter().zip(want) {
                assert!(
                    same_function(
                        &o.function,
                        w["FunctionName"].as_str().unwrap(),
                        symbols.ends_with(".sym")
                    ),
                    "{symbols} {addr:#x}: {} vs {}",
                    o.function,
                    w["FunctionName"]
                );
                // llvm-symbolizer says "" and 0 where nothing is known.
                let file = w["FileName"].as_str().filter(|f| !f.is_empty());
                let line = w["Line"].as_u64().map(|l| l as u32).filter(|&l| l > 0);
                assert_eq!(o.file.as_deref(), file, "{addr:#x}");
                assert_eq!(o.line, line, "{addr:#x}");
            }
            n += 1;
        }
    }
    n
}

#[test]
fn elf_with_dwarf_equals_llvm_symbolizer() {
    assert!(check_file("crashy") >= 20);
}

#[test]
fn split_debug_file_equals_llvm_symbolizer() {
    assert!(check_file("crashy.debug") >= 20);
}

#[test]
fn breakpad_sym_equals_llvm_symbolizer() {
    assert!(check_file("crashy.sym") >= 20);
}

/// The Mach-O executable's dSYM (the DWARF file inside the bundle) and its Breakpad file
/// against llvm-symbolizer with `--dsym-hint` (`tests/fixtures/native/macho`). The oracle's
/// addresses are vm addresses; the SymCache takes them relative to `__TEXT` (0x100000000).
#[test]
fn macho_dsym_equals_llvm_symbolizer() {
    let dir = "tests/fixtures/native/macho";
    let oracle: Value =
        serde_json::from_slice(&std::fs::read(format!("{dir}/oracle-macho.json")).unwrap())
            .unwrap();
    for (file, breakpad) in [
        (
            "macho_crash.dSYM/Contents/Resources/DWARF/macho_crash",
            false,
        ),
        ("macho_crash.sym", true),
    ] {
        let bytes = std::fs::read(format!("{dir}/{file}")).unwrap();
        let native = NativeSymbols::convert(&bytes, Some("x86_64")).unwrap();
        assert_eq!(native.info().arch, "x86_64");
        let mut n = 0;
        for frame in oracle["frames"].as_array().unwrap() {
            let addr = u64::from_str_radix(
                frame["lookup_addr"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("0x"),
                16,
            )
            .unwrap();
            let ours = native.lookup(addr - 0x1_0000_0000);
            let want = frame["llvm_symbolizer"].as_array().unwrap();
            assert_eq!(ours.len(), want.len(), "{file} {addr:#x}: {ours:?}");
            for (o, w) in ours.iter().zip(want) {
                assert!(
                    same_function(&o.function, w["FunctionName"].as_str().unwrap(), breakpad),
                    "{file} {addr:#x}: {} vs {}",
                    o.function,
                    w["FunctionName"]
                );
                assert_eq!(
                    o.file.as_deref(),
                    w["FileName"].as_str(),
                    "{file} {addr:#x}"
                );
                assert_eq!(o.line, w["Line"].as_u64().map(|l| l as u32), "{file}");
            }
            n += 1;
        }
        assert_eq!(n, 3, "{file}");
    }
}
