//! symbolic's own snapshots (`tests/fixtures/native/sentry-symbolic/snapshots`) as oracles for
//! our look-ups in the fixtures beside them:
//! - `test_objects__*_functions*.snap`: the first functions of the ELF, Mach-O, PDB and
//!   Breakpad files as trees (function, line records, inlinees). At every line record's
//!   address, our inline chain must be the tree's path to that address, innermost first,
//!   each level with its own line there (a parent's line at an inlined range is the call
//!   site) and its demangled name;
//! - `test_cache__lookup.snap`: one look-up in the macOS file (function, file, line of each
//!   inline frame).

use symbolic::common::{Name, NameMangling};
use symbolic::demangle::{Demangle, DemangleOptions};
use symscope::symbols::native::{NativeLocation, NativeSymbols, without_clone_suffix};

const DIR: &str = "tests/fixtures/native/sentry-symbolic";

/// A function of a snapshot tree.
#[derive(Debug, Default)]
struct Func {
    addr: u64,
    size: u64,
    name: String,
    lines: Vec<(u64, String, u32)>,
    inlinees: Vec<Func>,
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).unwrap()
}

/// Reads `> 0xADDR: NAME (0xSIZE)` and `0xADDR: FILE:LINE (DIR)` lines, nested by indent.
fn tree(path: &str) -> Vec<Func> {
    let text = std::fs::read_to_string(format!("{DIR}/snapshots/{path}")).unwrap();
    let body = text.splitn(3, "---\n").nth(2).unwrap();
    let mut roots: Vec<Func> = Vec::new();
    // The path of functions open at each depth, as indices.
    let mut open: Vec<usize> = Vec::new();
    fn at<'a>(roots: &'a mut [Func], open: &[usize]) -> &'a mut Func {
        let mut f = &mut roots[open[0]];
        for &i in &open[1..] {
            f = &mut f.inlinees[i];
        }
        f
    }
    for line in body.lines() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(rest) = t.strip_prefix("> ") {
            let depth = indent / 2;
            let (addr, rest) = rest.split_once(": ").unwrap();
            let (name, size) = rest.rsplit_once(" (0x").unwrap();
            let f = Func {
                addr: hex(addr),
                size: hex(size.trim_end_matches(')')),
                name: name.to_owned(),
                ..Func::default()
            };
            open.truncate(depth);
            if depth == 0 {
                roots.push(f);
                open.push(roots.len() - 1);
            } else {
                let parent = at(&mut roots, &open);
                parent.inlinees.push(f);
                let n = parent.inlinees.len() - 1;
                open.push(n);
            }
        } else {
            // A line record `0xADDR: FILE:LINE (DIR)`; variable lists (`variables:`,
            // `0x1c70..0x1d2b: register 5`) are not looked at.
            let Some((addr, rest)) = t
                .split_once(": ")
                .filter(|(a, _)| a.starts_with("0x") && !a.contains(".."))
            else {
                continue;
            };
            // The directory follows in parentheses (and may hold some: `(x86)`).
            let rest = rest.split_once(" (").map_or(rest, |(r, _)| r);
            let Some((file, Ok(line))) = rest.rsplit_once(':').map(|(f, l)| (f, l.parse())) else {
                continue;
            };
            let depth = (indent - 2) / 2;
            open.truncate(depth + 1);
            at(&mut roots, &open)
                .lines
                .push((hex(addr), file.to_owned(), line));
        }
    }
    roots
}

fn demangled(name: &str) -> String {
    let n = Name::new(
        name,
        NameMangling::Unknown,
        symbolic::common::Language::Unknown,
    );
    without_clone_suffix(&n.try_demangle(DemangleOptions::complete())).to_owned()
}

/// The expected chain at `addr`, innermost first: (name, file name, line) per level.
fn expected(f: &Func, addr: u64, out: &mut Vec<(String, String, u32)>) {
    let own = f.lines.iter().rfind(|(a, _, _)| *a <= addr);
    // An inlinee's span may have gaps and overlap its siblings' (PDB): the inlinee holding a
    // line record right at the address (itself or an inlinee of its own) is there; else one
    // whose span holds it, unless the parent has a record of its own there (its code fills
    // the gap).
    let at = |g: &Func| g.lines.iter().any(|l| l.0 == addr);
    fn holds(g: &Func, addr: u64) -> bool {
        g.lines.iter().any(|l| l.0 == addr) || g.inlinees.iter().any(|i| holds(i, addr))
    }
    let inner = f.inlinees.iter().find(|i| holds(i, addr)).or_else(|| {
        f.inlinees
            .iter()
            .find(|i| i.addr <= addr && addr < i.addr + i.size && !at(f))
    });
    if let Some(inner) = inner {
        expected(inner, addr, out);
    }
    if let Some((_, file, line)) = own {
        out.push((demangled(&f.name), file.clone(), *line));
    }
}

fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap()
}

fn ours(chain: &[NativeLocation]) -> Vec<(String, String, u32)> {
    chain
        .iter()
        .map(|l| {
            (
                l.function.clone(),
                file_name(l.file.as_deref().unwrap_or("")).to_owned(),
                l.line.unwrap_or(0),
            )
        })
        .collect()
}

fn check(snapshot: &str, file: &str) {
    let bytes = std::fs::read(format!("{DIR}/fixtures/{file}")).unwrap();
    let native = NativeSymbols::convert(&bytes, None).unwrap();
    let funcs = tree(snapshot);
    assert!(funcs.len() >= 5, "{snapshot}: {} functions", funcs.len());
    let mut checked = 0;
    fn each(f: &Func, out: &mut Vec<u64>) {
        out.extend(f.lines.iter().map(|l| l.0));
        for i in &f.inlinees {
            each(i, out);
        }
    }
    for f in &funcs {
        let mut addrs = Vec::new();
        each(f, &mut addrs);
        for addr in addrs {
            let mut want = Vec::new();
            expected(f, addr, &mut want);
            let want: Vec<(String, String, u32)> = want
                .into_iter()
                .map(|(n, file, l)| (n, file_name(&file).to_owned(), l))
                .collect();
            let got = ours(&native.lookup(addr));
            assert_eq!(got, want, "{snapshot} at {addr:#x}");
            checked += 1;
        }
    }
    assert!(checked >= 20, "{snapshot}: {checked}");
}

#[test]
fn elf_functions_equal_symbolics_snapshot() {
    check("test_objects__elf_functions.snap", "linux/crash.debug");
}

#[test]
fn mach_functions_equal_symbolics_snapshot() {
    check(
        "test_objects__mach_functions.snap",
        "macos/crash.dSYM/Contents/Resources/DWARF/crash",
    );
}

#[test]
fn pdb_functions_equal_symbolics_snapshot() {
    check("test_objects__pdb_functions.snap", "windows/crash.pdb");
}

#[test]
fn breakpad_functions_equal_symbolics_snapshot() {
    check("test_objects__breakpad_functions.snap", "windows/crash.sym");
}

#[test]
fn breakpad_inline_functions_equal_symbolics_snapshot() {
    check(
        "test_objects__breakpad_functions_mac_with_inlines.snap",
        "macos/crash.inlines.sym",
    );
}

#[test]
fn symcache_lookup_equals_symbolics_snapshot() {
    // symbolic's test looks up the crashing address of the macOS minidump (module offset
    // 0xdc15, the `crash` → `start` → `main` chain).
    let text = std::fs::read_to_string(format!("{DIR}/snapshots/test_cache__lookup.snap")).unwrap();
    let mut want = Vec::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        let t = l.trim();
        if t.starts_with('"') {
            let file = t.trim_end_matches(',').trim_matches('"').to_owned();
            let line: u32 = lines
                .next()
                .unwrap()
                .trim()
                .trim_end_matches(',')
                .parse()
                .unwrap();
            lines.next(); // Function {
            let name = lines.next().unwrap().trim();
            let name = name
                .strip_prefix("name: \"")
                .unwrap()
                .trim_end_matches("\",")
                .to_owned();
            want.push((demangled(&name), file_name(&file).to_owned(), line));
        }
    }
    assert_eq!(want.len(), 3);
    let bytes = std::fs::read(format!(
        "{DIR}/fixtures/macos/crash.dSYM/Contents/Resources/DWARF/crash"
    ))
    .unwrap();
    let native = NativeSymbols::convert(&bytes, None).unwrap();
    assert_eq!(ours(&native.lookup(0xdc15)), want);
}
