//! The real `crashy` crashes (`tests/fixtures/native/crashy`: three runs with different ASLR
//! bases) symbolicated end to end — record parsed, modules mapped, return addresses minus
//! one — against llvm-symbolizer's answers, with the binary, its split `.debug` file and its
//! Breakpad `.sym`; and a plain address list read as offsets into the one file given.

mod common;

use common::reference;

use serde_json::Value;
use symscope::engine::AddSymbols as _;
use symscope::formats::parse_log;
use symscope::model::{FrameStatus, LogFormat, ResolvedLocation, SymbolicatedTrace};
use symscope::symbolicate::{self, Options, Outcome, SymbolSet};

const DIR: &str = "tests/fixtures/native/crashy";

fn run(symbols: &[&str], log: &[u8]) -> SymbolicatedTrace {
    let paths: Vec<String> = symbols.iter().map(|s| format!("{DIR}/{s}")).collect();
    let trace = parse_log(log);
    assert!(trace.format.is_native(), "{:?}", trace.format);
    common::symbolicate(&trace, &common::symbols(&paths), None)
}

/// See `tests/native_oracle.rs`: the lambda's rendering, and Breakpad's missing return types.
fn same_function(ours: &str, llvm: &str, breakpad: bool) -> bool {
    let ours = ours.replace("{lambda(long)#1}", "'lambda'(long)");
    ours == llvm
        || (breakpad
            && llvm
                .strip_suffix(ours.as_str())
                .is_some_and(|ret| ret.ends_with(' ') && !ret.trim().contains(' ')))
}

/// Asserts that a resolved chain equals llvm-symbolizer's (function, file, line of every
/// entry, "" and 0 meaning unknown) and that only its outermost entry is not inlined.
fn assert_chain(ours: &[ResolvedLocation], llvm: &[Value], breakpad: bool, what: &str) {
    assert_eq!(ours.len(), llvm.len(), "{what}: {ours:?}");
    for (k, (loc, l)) in ours.iter().zip(llvm).enumerate() {
        assert!(
            same_function(
                loc.function.as_deref().unwrap(),
                l["FunctionName"].as_str().unwrap(),
                breakpad
            ),
            "{what}: {:?} vs {}",
            loc.function,
            l["FunctionName"]
        );
        let file = l["FileName"].as_str().filter(|f| !f.is_empty());
        let line = l["Line"].as_u64().map(|n| n as u32).filter(|&n| n > 0);
        assert_eq!((loc.file.as_deref(), loc.line), (file, line), "{what}");
        assert_eq!(loc.inlined, k + 1 < llvm.len(), "{what}");
    }
}

fn check(symbols: &str) {
    for case in 1..=3 {
        let log = std::fs::read(format!("{DIR}/crash-aslr-{case}.txt")).unwrap();
        let r = run(&[symbols], &log);
        let oracle: Value = serde_json::from_slice(
            &std::fs::read(format!("{DIR}/oracle-crash-{case}.json")).unwrap(),
        )
        .unwrap();
        let want = oracle["frames"].as_array().unwrap();
        let frames = &r.stacks[0].frames;
        assert_eq!(frames.len(), want.len(), "{symbols} case {case}");
        assert!(r.stacks[0].title.contains("SIGSEGV"));
        for (f, w) in frames.iter().zip(want) {
            if w["in_module"].is_null() {
                assert_eq!(f.status, FrameStatus::NoSymbols, "{case}: {f:?}");
                assert!(f.note.as_deref().unwrap().contains("libc"), "{f:?}");
                continue;
            }
            assert_eq!(f.status, FrameStatus::Resolved, "{case}: {f:?}");
            let chain = w["llvm_symbolizer"].as_array().unwrap();
            let what = format!("{symbols} case {case} {}", w["abs_addr"]);
            assert_chain(&f.resolved, chain, symbols.ends_with(".sym"), &what);
        }
    }
}

#[test]
fn crashes_with_the_binary() {
    check("crashy");
}

#[test]
fn crashes_with_the_split_debug_file() {
    check("crashy.debug");
}

#[test]
fn crashes_with_breakpad_symbols() {
    check("crashy.sym");
}

/// With both the stripped binary's `.debug` and its Breakpad file, the one with line
/// information is used; a plain list of offsets resolves against the one file given.
#[test]
fn an_address_list_against_one_file() {
    let r = run(&["crashy.debug"], b"0x1500\n0x1639\n");
    let f = &r.stacks[0].frames;
    assert_eq!(f[0].resolved[0].function.as_deref(), Some("store_result"));
    assert_eq!(f[1].resolved.len(), 3);
    assert_eq!(
        f[1].resolved[2].function.as_deref(),
        Some("cxx_pipeline_run")
    );
}

/// No debug file: every in-module frame says what to add.
#[test]
fn no_debug_file_says_what_to_add() {
    let log = std::fs::read(format!("{DIR}/crash-aslr-1.txt")).unwrap();
    let trace = parse_log(&log);
    let Outcome::Done(r) = symbolicate::symbolicate(
        &trace,
        &SymbolSet::new(),
        Options::default(),
        &mut symscope::model::NoProgress,
    ) else {
        panic!()
    };
    let f = &r.stacks[0].frames[0];
    assert_eq!(f.status, FrameStatus::NoSymbols);
    assert!(f.note.as_deref().unwrap().contains("crashy"), "{f:?}");
}

/// A real AddressSanitizer report (`tests/fixtures/native/asan`): ASan prints callers at
/// return address − 1 already, so the printed offsets are looked up unchanged; every
/// in-module frame equals llvm-symbolizer's chain.
#[test]
fn asan_report_equals_llvm_symbolizer() {
    let dir = "tests/fixtures/native/asan";
    let mut set = SymbolSet::new();
    let bin = format!("{dir}/crashy-asan");
    set.add(&bin, std::fs::read(&bin).unwrap().into()).unwrap();
    let trace = parse_log(&std::fs::read(format!("{dir}/asan-segv-unsymbolized.txt")).unwrap());
    assert_eq!(trace.format, LogFormat::NativeAddresses);
    let Outcome::Done(r) = symbolicate::symbolicate(
        &trace,
        &set,
        Options::default(),
        &mut symscope::model::NoProgress,
    ) else {
        panic!()
    };
    assert!(r.stacks[0].title.starts_with("AddressSanitizer: SEGV"));
    let oracle: Value =
        serde_json::from_slice(&std::fs::read(format!("{dir}/oracle-asan-segv.json")).unwrap())
            .unwrap();
    let want = oracle["stacks"][0]["frames"].as_array().unwrap();
    let frames = &r.stacks[0].frames;
    assert_eq!(frames.len(), want.len());
    let mut compared = 0;
    for (f, w) in frames.iter().zip(want) {
        let Some(chain) = w["llvm_symbolizer"]
            .as_array()
            .filter(|_| !w["module_offset"].is_null())
        else {
            continue;
        };
        if w["module"].as_str().is_some_and(|m| m.contains("libc")) {
            assert_eq!(f.status, FrameStatus::NoSymbols);
            continue;
        }
        assert_chain(&f.resolved, chain, false, &w["raw"].to_string());
        compared += 1;
    }
    assert_eq!(compared, 11, "every crashy-asan frame compared");
}

/// Real `backtrace_symbols_fd()` records (`tests/fixtures/native/glibc-backtrace`): every
/// printed line is a frame (the handler's too), the faulting pc looked up as is and callers
/// at return address − 1; each in-module frame equals llvm-symbolizer's chain.
#[test]
fn glibc_backtrace_records_equal_llvm_symbolizer() {
    let dir = "tests/fixtures/native/glibc-backtrace";
    let mut compared = 0;
    for (record, binary) in [
        ("bt-plain-1", "btsym"),
        ("bt-plain-2", "btsym"),
        ("bt-rdynamic-1", "btsym-rdynamic"),
    ] {
        let mut set = SymbolSet::new();
        let bin = format!("{dir}/{binary}");
        set.add(&bin, std::fs::read(&bin).unwrap().into()).unwrap();
        let trace = parse_log(&std::fs::read(format!("{dir}/{record}.txt")).unwrap());
        let Outcome::Done(r) = symbolicate::symbolicate(
            &trace,
            &set,
            Options::default(),
            &mut symscope::model::NoProgress,
        ) else {
            panic!()
        };
        let oracle: Value =
            serde_json::from_slice(&std::fs::read(format!("{dir}/oracle-{record}.json")).unwrap())
                .unwrap();
        let want = oracle["frames"].as_array().unwrap();
        let frames = &r.stacks[0].frames;
        assert_eq!(frames.len(), want.len(), "{record}");
        for (f, w) in frames.iter().zip(want) {
            assert_eq!(Some(trace.stacks[0].frames.len()), Some(frames.len()));
            if w["in_module"].is_null() {
                assert_ne!(f.status, FrameStatus::Resolved, "{record}: {}", w["raw"]);
                continue;
            }
            let chain = w["llvm_symbolizer"].as_array().unwrap();
            assert_chain(
                &f.resolved,
                chain,
                false,
                &format!("{record}: {}", w["raw"]),
            );
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared}");
}

/// Every split-debug route of the corpus gives llvm-symbolizer's answers for crash 1: the
/// binary; the stripped binary and its `.gnu_debuglink` file (`crashy.debug`); the stripped
/// binary and the `.build-id/e5/….debug` file, matched by build ID; and the symbol table
/// alone (functions only).
#[test]
fn split_debug_routes() {
    let oracle: Value =
        serde_json::from_slice(&std::fs::read(format!("{DIR}/oracle-split-debug.json")).unwrap())
            .unwrap();
    let routes = oracle["llvm_symbolizer_14"].as_object().unwrap();
    let build_id = ".build-id/e5/4b69733c5597151ab4ce8884b9a502430e85c7.debug";
    // (oracle route, files as (name given to Symscope, file in the corpus))
    let cases: [(&str, Vec<(&str, &str)>); 4] = [
        ("full_debug", vec![("crashy", "crashy")]),
        (
            "debuglink",
            vec![
                ("crashy", "crashy.stripped"),
                ("crashy.debug", "crashy.debug"),
            ],
        ),
        (
            "build-id",
            vec![
                ("crashy", "crashy.stripped"),
                ("4b69733c5597151ab4ce8884b9a502430e85c7.debug", build_id),
            ],
        ),
        ("symbol table only", vec![("crashy", "crashy.nolink")]),
    ];
    let log = std::fs::read(format!("{DIR}/crash-aslr-1.txt")).unwrap();
    for (route, files) in cases {
        let (_, want) = routes.iter().find(|(k, _)| k.contains(route)).unwrap();
        let mut set = SymbolSet::new();
        for (name, file) in &files {
            let bytes = std::fs::read(format!("{DIR}/{file}")).unwrap();
            set.add(name, bytes.into()).unwrap();
        }
        let trace = parse_log(&log);
        let Outcome::Done(r) = symbolicate::symbolicate(
            &trace,
            &set,
            Options::default(),
            &mut symscope::model::NoProgress,
        ) else {
            panic!()
        };
        let in_module: Vec<_> = r.stacks[0]
            .frames
            .iter()
            .zip(&trace.stacks[0].frames)
            .filter(|(_, t)| t.input.as_ref().unwrap().module.as_deref() == Some("crashy"))
            .map(|(f, _)| f)
            .collect();
        let want = want.as_array().unwrap();
        assert_eq!(in_module.len(), want.len(), "{route}");
        for (f, chain) in in_module.iter().zip(want) {
            let chain = chain.as_array().unwrap();
            assert_chain(&f.resolved, chain, false, route);
        }
    }
}

/// The four AOSP tombstones (`tests/fixtures/native/android-tombstone`) parse into the
/// frames their expected outputs list: line, pc, module, symbol and build ID.
#[test]
fn android_tombstones_parse_as_expected() {
    let dir = "tests/fixtures/native/android-tombstone";
    for arch in ["arm", "arm64", "riscv64", "x86_64"] {
        let text = std::fs::read(format!("{dir}/tombstone-{arch}.txt")).unwrap();
        let trace = parse_log(&text);
        assert_eq!(trace.format, LogFormat::AndroidTombstone, "{arch}");
        let want: Value =
            serde_json::from_slice(&std::fs::read(format!("{dir}/frames-{arch}.json")).unwrap())
                .unwrap();
        let want = want["frames"].as_array().unwrap();
        let frames: Vec<_> = trace.stacks.iter().flat_map(|s| &s.frames).collect();
        assert_eq!(frames.len(), want.len(), "{arch}");
        assert!(trace.stacks[0].title.contains("signal "), "{arch}");
        for (f, w) in frames.iter().zip(want) {
            let input = f.input.as_ref().unwrap();
            assert_eq!(f.line_no as u64, w["line"].as_u64().unwrap(), "{arch}");
            let pc = u64::from_str_radix(w["pc"].as_str().unwrap().trim_start_matches("0x"), 16)
                .unwrap();
            assert_eq!(input.module_offset, Some(pc), "{arch}");
            let module = w["module"].as_str().unwrap();
            assert_eq!(input.module.as_deref(), module.rsplit('/').next(), "{arch}");
            assert_eq!(input.function.as_deref(), w["symbol"].as_str(), "{arch}");
            assert_eq!(input.build_id.as_deref(), w["build_id"].as_str(), "{arch}");
        }
    }
}

/// A build ID printed in the log finds the debug file whatever the module is called.
#[test]
fn build_id_in_the_log_finds_the_file() {
    let r = run(
        &["crashy.debug"],
        b"signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0\nbacktrace:\n    #00 pc 0000000000001500  /data/app/libother.so (BuildId: e54b69733c5597151ab4ce8884b9a502430e85c7)\n    #01 pc 0000000000001500  /data/app/libother.so\n",
    );
    let f = &r.stacks[0].frames;
    assert_eq!(f[0].resolved[0].function.as_deref(), Some("store_result"));
    assert_eq!(f[1].status, FrameStatus::NoSymbols);
}

/// A Breakpad `.sym` names no code ID, only the debug ID derived from the build ID: the
/// tombstone's build ID still finds it.
#[test]
fn build_id_finds_the_breakpad_file_by_its_debug_id() {
    let r = run(
        &["crashy.sym"],
        b"backtrace:\n    #00 pc 0000000000001500  /data/app/libother.so (BuildId: e54b69733c5597151ab4ce8884b9a502430e85c7)\n",
    );
    let f = &r.stacks[0].frames[0];
    assert_eq!(f.status, FrameStatus::Resolved);
    assert_eq!(f.symbol_file.as_deref(), Some("crashy.sym"));
}

/// A file named like the module but of another build (its build ID differs from the log's)
/// is refused with a note, never used for wrong frames.
#[test]
fn a_debug_file_of_another_build_is_refused() {
    let r = run(
        &["crashy.debug"],
        b"backtrace:\n    #00 pc 0000000000001500  /data/app/crashy (BuildId: 0123456789abcdef0123456789abcdef01234567)\n",
    );
    let f = &r.stacks[0].frames[0];
    assert_eq!(f.status, FrameStatus::NoSymbols);
    assert!(f.resolved.is_empty());
    let note = f.note.as_deref().unwrap();
    assert!(
        note.contains("another build") && note.contains("e54b69733c5597151ab4ce8884b9a502430e85c7"),
        "{note}"
    );
}

/// gdb's `bt` of the same crash (ASLR off, `info proc mappings` after it): frames with an
/// address are looked up as return addresses in the module the mappings put them in; gdb's
/// own answer is the oracle, since it prints each inlined frame as a frame of its own
/// without an address: our chain for a physical frame equals gdb's frames from it up to the
/// next physical one (file and line of each; names where gdb prints no template arguments).
#[test]
fn gdb_backtrace_equals_gdbs_own_frames() {
    let log = std::fs::read(format!("{DIR}/gdb-crash.txt")).unwrap();
    let trace = parse_log(&log);
    assert_eq!(trace.format, LogFormat::GdbBacktrace);
    let r = run(&["crashy"], &log);
    let frames = &trace.stacks[0].frames;
    assert_eq!(frames.len(), 14);
    assert_eq!(
        r.stacks[0].title,
        "Program received signal SIGSEGV, Segmentation fault"
    );
    let mut checked = 0;
    for (i, (f, res)) in frames.iter().zip(&r.stacks[0].frames).enumerate() {
        let input = f.input.as_ref().unwrap();
        if input.address.is_none() {
            assert_eq!(res.status, FrameStatus::Skipped, "{}", f.raw);
            continue;
        }
        assert_eq!(input.module.as_deref(), Some("crashy"));
        assert_eq!(res.status, FrameStatus::Resolved, "{}", f.raw);
        // gdb's frames for this pc: this one and the address-less ones that follow.
        let gdb: Vec<&symscope::model::FrameInput> = std::iter::once(input)
            .chain(
                frames[i + 1..]
                    .iter()
                    .map(|f| f.input.as_ref().unwrap())
                    .take_while(|f| f.address.is_none()),
            )
            .collect();
        assert_eq!(res.resolved.len(), gdb.len(), "{}", f.raw);
        for (ours, g) in res.resolved.iter().zip(&gdb) {
            let file = ours.file.as_deref().unwrap();
            assert!(
                file.ends_with(g.file.as_deref().unwrap()),
                "{file} vs {g:?}"
            );
            assert_eq!(ours.line, g.line, "{}", f.raw);
            let name = g.function.as_deref().unwrap();
            if !name.contains('<') {
                // Ours is demangled with its parameter list; gdb prints the bare name.
                let ours = ours.function.as_deref().unwrap();
                assert_eq!(ours.split('(').next(), Some(name));
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked}");
}

/// Every native symbol file under `tests/fixtures/native` (ELF, Mach-O and dSYM, PDB,
/// Breakpad), told by the engine's detection from its bytes, with its path from there.
fn every_native_file() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
    let (files, errors) = symscope::workspace::files_under(&root);
    assert!(errors.is_empty(), "{errors:?}");
    files
        .into_iter()
        .filter(|path| {
            let bytes = std::fs::read(path).unwrap();
            let file = symscope::engine::Detected::new(
                path.display().to_string(),
                symscope::model::Blob::from(bytes),
            );
            file.kind == symscope::model::FileKind::NativeSymbols
        })
        .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
        .collect()
}

/// Our SymCache, built on one thread (the debug information read and its functions written in
/// turn) and on two (read on one while the other writes), is byte for byte symbolic's own
/// `process_object`'s, for every native file of the fixtures (every kind: ELF, Mach-O,
/// dSYM, universal, PDB, Breakpad).
#[test]
fn symcache_equals_symbolics_on_one_thread_and_on_two() {
    use reference::reference_symcaches;
    use symscope::jobs::ParallelIndex;
    use symscope::symbols::native::NativeSymbols;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
    let files = every_native_file();
    // The kinds the corpus has: ELF (with and without debug info, split, build-id tree),
    // Mach-O and dSYMs (one universal), PDBs and Breakpad files.
    assert!(files.len() >= 25, "{files:#?}");
    let mut compared = 0;
    for file in &files {
        let bytes = std::fs::read(root.join(file)).unwrap();
        let converted = NativeSymbols::convert(&bytes, None);
        if let Err(symscope::symbols::native::NativeError::NoSymbols) = converted {
            // Refused only where symbolic sees neither debug information nor a symbol.
            let archive = symbolic::debuginfo::Archive::parse(&bytes).unwrap();
            for object in archive.objects() {
                let object = object.unwrap();
                assert!(
                    !object.has_debug_info() && object.symbols().next().is_none(),
                    "{file}: refused, but it has symbols"
                );
            }
            continue;
        }
        let reference = reference_symcaches(&bytes);
        compared += 1;
        // A small file's two threads race for its few units: built again and again, the
        // side that read nothing must never leave a gap (it once did, 1 build in 5).
        if bytes.len() < 64 << 10 {
            for _ in 0..20 {
                NativeSymbols::convert_with(&bytes, None, &ParallelIndex)
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
            }
        }
        for (how, native) in [
            ("one thread", converted.unwrap()),
            (
                "two threads",
                NativeSymbols::convert_with(&bytes, None, &ParallelIndex)
                    .unwrap_or_else(|e| panic!("{file}: {e}")),
            ),
        ] {
            let ours: Vec<&[u8]> = native
                .objects()
                .iter()
                .map(|o| o.symcache_bytes().expect("converted"))
                .collect();
            assert_eq!(ours.len(), reference.len(), "{file}");
            for (k, (a, b)) in ours.iter().zip(&reference).enumerate() {
                assert!(!a.is_empty());
                assert!(
                    *a == b.as_slice(),
                    "{file}, object {k}, {how}: the SymCache differs from process_object's"
                );
            }
        }
    }
    assert!(compared + 2 >= files.len(), "{compared} of {}", files.len());
}

/// Cancelling a two-thread SymCache build (the progress receiver says stop, as a cancelled
/// job's does) ends it at once with `Cancelled`: the other thread neither hangs nor goes on
/// to the end. The count reported is of functions read by both threads, so it only grows,
/// and the build stops at the first report at or past the stop.
#[test]
fn a_two_thread_symcache_build_stops_when_cancelled() {
    use std::ops::ControlFlow;
    use symscope::jobs::ParallelIndex;
    use symscope::symbols::native::{NativeError, NativeSymbols};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/native/sentry-symbolic/fixtures/linux/crash.debug");
    let bytes = std::fs::read(path).unwrap();
    for stop in [0, 1, 5, 50] {
        let mut reports = 0u64;
        let mut last = 0u64;
        let mut progress = |_: &str, done: u64, _: u64| {
            reports += 1;
            assert!(done >= last, "the count went back from {last} to {done}");
            last = done;
            if done >= stop {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let result = NativeSymbols::convert_reporting(&bytes, None, &ParallelIndex, &mut progress);
        assert_eq!(result.err(), Some(NativeError::Cancelled), "stop at {stop}");
        assert!(
            (1..=stop + 1).contains(&reports),
            "stop at {stop}: {reports} reports"
        );
        assert!(last >= stop, "stop at {stop}: stopped at {last}");
    }
}
