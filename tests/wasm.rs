//! WebAssembly frames: every engine's forms read with their function index and offset
//! (carton's parser suite), and real V8 stacks (node, `tests/fixtures/wasm`) resolved through
//! the module's DWARF (against llvm-symbolizer), its separate DWARF file, and its wasm source
//! map (against Mozilla's `source-map`), the JavaScript frames around them through theirs.

mod common;

use common::{arg, fixture, json_of, symscope, temp_dir};
use serde_json::Value;
use std::collections::HashMap;

fn wasm(rel: &str) -> std::path::PathBuf {
    fixture(&format!("wasm/{rel}"))
}

/// Every frame of a `symbolicate --format json` run, in order.
fn frames(out: &Value) -> Vec<Value> {
    out["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["frames"].as_array().unwrap().clone())
        .collect()
}

/// `symscope symbolicate LOG -s SYMBOLS... --format json`, plus `extra` arguments.
fn run(log: &str, symbols: &[&str], extra: &[&str]) -> Vec<Value> {
    let log = wasm(log);
    let paths: Vec<_> = symbols.iter().map(|s| wasm(s)).collect();
    let mut args = vec!["symbolicate", arg(&log), "--format", "json"];
    for p in &paths {
        args.extend(["-s", arg(p)]);
    }
    args.extend(extra);
    frames(&json_of(&symscope(&args)))
}

/// `wasm-function[N]:0xOFF` of a frame the parser read as WebAssembly.
fn wasm_location(frame: &Value) -> Option<String> {
    let input = &frame["input"];
    Some(format!(
        "wasm-function[{}]:{}",
        input["wasm_function"].as_u64()?,
        input["module_offset"].as_str()?
    ))
}

/// The frames of a run the parser read as WebAssembly.
fn wasm_frames(frames: &[Value]) -> Vec<&Value> {
    frames
        .iter()
        .filter(|f| wasm_location(f).is_some())
        .collect()
}

/// SpiderMonkey, JavaScriptCore and V8 wasm frames keep the function index and offset, as
/// carton's parser tests expect of real Firefox, Safari and Chrome crashes.
#[test]
fn carton_stacks_keep_function_index_and_offset() {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(wasm("carton/expected.json")).unwrap())
            .unwrap();
    for engine in ["firefox", "chrome"] {
        let frames = run(&format!("carton/{engine}.txt"), &[], &[]);
        let got: Vec<String> = frames.iter().filter_map(wasm_location).collect();
        let want: Vec<String> = expected[engine]["wasm"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(got, want, "{engine}");
        // The JavaScript frames around them are not read as WebAssembly.
        let first = frames.iter().position(|f| wasm_location(f).is_some());
        let last = frames.iter().rposition(|f| wasm_location(f).is_some());
        let outside = frames.len() - (last.unwrap() - first.unwrap() + 1);
        assert!(
            outside >= 6,
            "{engine}: {outside} frames outside the wasm run"
        );
        // With no module here, each says what to add.
        for f in frames.iter().filter(|f| wasm_location(f).is_some()) {
            assert_eq!(f["status"], "no_symbols");
            assert!(f["note"].as_str().unwrap().contains("built with -g"), "{f}");
        }
    }
    let safari = run("carton/safari.txt", &[], &[]);
    let wasm_frames: Vec<&Value> = safari
        .iter()
        .filter(|f| f["input"]["file"] == "[wasm code]" && f["input"]["function"] != "wasm-stub")
        .collect();
    let want = &expected["safari"];
    assert_eq!(
        wasm_frames.len() as u64,
        want["wasm_count"].as_u64().unwrap()
    );
    let names: Vec<&str> = wasm_frames
        .iter()
        .map(|f| f["input"]["function"].as_str().unwrap())
        .collect();
    let first: Vec<&str> = want["wasm_symbols_first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let last: Vec<&str> = want["wasm_symbols_last"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(names[..first.len()], first[..]);
    assert_eq!(names[names.len() - last.len()..], last[..]);
}

/// JavaScriptCore's index form and its stubs, as WebKit's own tests print them.
#[test]
fn jsc_index_frames_keep_the_index() {
    let dir = temp_dir("wasm-jsc");
    let log = dir.join("jsc.txt");
    // Lines WebKit's JSTests expect (JSTests/wasm: stack-trace.js, the `_eggs` case).
    std::fs::write(
        &log,
        "Error\nwasm-stub@[wasm code]\n<?>.wasm-function[4]@[wasm code]\n<?>.wasm-function[2]@[wasm code]\n<?>.wasm-function[_eggs]@[wasm code]\nwasm-stub@[wasm code]\n",
    )
    .unwrap();
    let out = json_of(&symscope(&["symbolicate", arg(&log), "--format", "json"]));
    let frames = frames(&out);
    let indexes: Vec<Option<u64>> = frames
        .iter()
        .filter(|f| f["input"]["file"] == "[wasm code]")
        .map(|f| f["input"]["wasm_function"].as_u64())
        .collect();
    assert_eq!(indexes, [None, Some(4), Some(2), None, None]);
    let eggs = frames
        .iter()
        .find(|f| f["input"]["function"] == "_eggs")
        .expect("the named form keeps its name");
    assert!(eggs["input"]["wasm_function"].is_null());
}

/// One block of llvm-symbolizer's answers: for each offset V8 printed, the inline chain
/// (function, file, line), innermost first.
fn llvm_symbolizer(rel: &str) -> HashMap<String, Vec<(String, String, u64)>> {
    let text = std::fs::read_to_string(wasm(rel)).unwrap();
    let mut out = HashMap::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut lines = block.trim().lines();
        let offset = lines.next().unwrap().to_owned();
        let rest: Vec<&str> = lines.collect();
        let chain = rest
            .chunks(2)
            .map(|pair| {
                let (file, line) =
                    pair[1]
                        .rsplitn(3, ':')
                        .skip(1)
                        .fold((String::new(), 0), |(f, l), part| match part.parse() {
                            Ok(n) if l == 0 => (f, n),
                            _ => (part.to_owned(), l),
                        });
                (pair[0].to_owned(), file, line)
            })
            .collect();
        out.insert(offset, chain);
    }
    out
}

/// The inline chain Symscope gave a frame, innermost first.
fn chain(frame: &Value) -> Vec<(String, String, u64)> {
    frame["resolved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["function"].as_str().unwrap_or("").to_owned(),
                l["file"].as_str().unwrap_or("").to_owned(),
                l["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// The 1-based line of the harness's source that holds `text`.
fn harness_line(text: &str) -> usize {
    let source = std::fs::read_to_string(wasm("src/harness.js")).unwrap();
    source.lines().position(|l| l.contains(text)).unwrap() + 1
}

/// A real V8 stack (node) of JavaScript calling a C++ module built with -g, which calls back
/// into JavaScript: the wasm frames resolve through the module's DWARF exactly as
/// llvm-symbolizer answers (inline chain, demangled names), lazily and through the SymCache;
/// the JavaScript frames through their map.
#[test]
fn v8_frames_resolve_through_dwarf_as_llvm_symbolizer() {
    let oracle = llvm_symbolizer("crash.llvm-symbolizer.txt");
    let cache = temp_dir("wasm-cache");
    for extra in [&[][..], &["--cache", arg(&cache)][..]] {
        let frames = run("crash.v8.txt", &["crash.wasm", "harness.min.js.map"], extra);
        let mut checked = 0;
        for f in frames.iter().filter(|f| wasm_location(f).is_some()) {
            let offset = f["input"]["module_offset"].as_str().unwrap();
            assert_eq!(f["status"], "resolved", "{f}");
            assert_eq!(f["symbol_file"], "crash.wasm");
            assert_eq!(chain(f), oracle[offset], "at {offset} ({extra:?})");
            checked += 1;
        }
        assert_eq!(checked, 5);
        // The JavaScript frames on either side, through harness.min.js.map: where V8 runs
        // the unminified harness (the throw, the call into the module).
        assert_eq!(frames[0]["resolved"][0]["file"], "src/harness.js");
        assert_eq!(
            frames[0]["resolved"][0]["line"],
            harness_line("throw new Error")
        );
        assert_eq!(
            frames[6]["resolved"][0]["line"],
            harness_line("instance.exports.run")
        );
    }
}

/// Emscripten's `-gseparate-dwarf` (Debian's emscripten 3.1.6): its module names its debug
/// file in `external_debug_info`; each frame as llvm-symbolizer answers in the debug file.
#[test]
fn emscripten_separate_dwarf_resolves_as_llvm_symbolizer() {
    check_separate(
        "emscripten.v8.txt",
        "emscripten.wasm",
        "emscripten.debug.wasm",
        "emscripten.llvm-symbolizer.txt",
    );
}

/// The wasm frames of `log` through `module` and its separate debug file `debug`, each as
/// llvm-symbolizer answers (`oracle`).
fn check_separate(log: &str, module: &str, debug: &str, oracle: &str) {
    let oracle = llvm_symbolizer(oracle);
    let frames = run(log, &[module, debug], &[]);
    let wasm_frames = wasm_frames(&frames);
    assert_eq!(wasm_frames.len(), 5);
    for f in wasm_frames {
        let offset = f["input"]["module_offset"].as_str().unwrap();
        assert_eq!(f["symbol_file"], format!("{module} + {debug}"));
        assert_eq!(chain(f), oracle[offset], "at {offset}");
    }
}

/// Emscripten's `-gsource-map`: the map its build wrote, as `source-map` reads it.
#[test]
fn emscripten_source_map_answers_as_source_map_does() {
    check_map(
        "emscripten-map.v8.txt",
        "emscripten-map.wasm",
        "emscripten-map.wasm.map",
        "emscripten-map.source-map.json",
        |f| f["input"]["function"].clone(),
    );
}

/// The module stripped of its DWARF names its separate debug file (`external_debug_info`):
/// the same answers through it.
#[test]
fn separate_dwarf_is_found_through_external_debug_info() {
    check_separate(
        "separate.v8.txt",
        "separate.wasm",
        "separate.debug.wasm",
        "crash.llvm-symbolizer.txt",
    );
    // Without the debug file, the stripped module still names its functions (name
    // section) and says what to add.
    let frames = run("separate.v8.txt", &["separate.wasm"], &[]);
    let step = frames.iter().find(|f| wasm_location(f).is_some()).unwrap();
    assert_eq!(
        step["resolved"][0]["function"],
        "game::Board<int>::step(int) const"
    );
    assert!(step["resolved"][0]["file"].is_null());
    assert!(step["note"].as_str().unwrap().contains("name section"));
}

/// The frames of `log` through wasm map `map` (of module `module`, found through its
/// `sourceMappingURL` section: the frames name only `wasm://wasm/…`), against Mozilla's
/// `source-map` on the same map (`oracle`); each frame's function as `name` gives it.
fn check_map(log: &str, module: &str, map: &str, oracle: &str, name: impl Fn(&Value) -> Value) {
    let oracle: Value =
        serde_json::from_str(&std::fs::read_to_string(wasm(oracle)).unwrap()).unwrap();
    let frames = run(log, &[module, map], &[]);
    let wasm_frames = wasm_frames(&frames);
    assert!(wasm_frames.len() >= 5, "{log}");
    for f in wasm_frames {
        let offset = f["input"]["module_offset"].as_str().unwrap();
        let want = &oracle[offset];
        let got = &f["resolved"][0];
        assert_eq!(f["symbol_file"], map);
        assert_eq!(got["file"], want["source"], "at {offset}");
        assert_eq!(got["line"], want["line"], "at {offset}");
        // `source-map` columns are 0-based, ours 1-based.
        assert_eq!(
            got["column"].as_u64(),
            want["column"].as_u64().map(|c| c + 1),
            "at {offset}"
        );
        assert_eq!(got["function"], name(f), "at {offset}");
    }
}

/// A wasm source map, looked up at line 1, column = offset: Mozilla's `source-map` answers
/// the same. The C++ module's functions as V8 printed them (the name section, demangled by
/// wasm-ld).
#[test]
fn wasm_source_map_answers_as_source_map_does() {
    check_map(
        "mapped.v8.txt",
        "mapped.wasm",
        "mapped.wasm.map",
        "mapped.source-map.json",
        |f| f["input"]["function"].clone(),
    );
}

/// The Rust module's map: V8 prints the name section's mangled names behind the module's
/// name (`rust.wasm._RNv…`); each shown demangled, as llvm-symbolizer names the function
/// whose body holds the offset (the outermost of its chain in the module with DWARF, the
/// same code).
#[test]
fn rust_wasm_source_map_names_functions_demangled() {
    let dwarf = llvm_symbolizer("rust.llvm-symbolizer.txt");
    check_map(
        "rust-mapped.v8.txt",
        "rust-mapped.wasm",
        "rust-mapped.wasm.map",
        "rust-mapped.source-map.json",
        |f| {
            let offset = f["input"]["module_offset"].as_str().unwrap();
            Value::from(rust_rendering(dwarf[offset].last().unwrap()).0)
        },
    );
}

/// With no debug file, the text report names the module and what to add, once per module.
#[test]
fn a_missing_module_is_named_with_what_to_add() {
    let log = wasm("crash.v8.txt");
    let text = std::fs::read_to_string(&log).unwrap();
    let frames = text.matches("wasm-function[").count();
    let out = symscope(&["symbolicate", arg(&log)]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let note = stdout
        .lines()
        .find(|l| l.contains("WebAssembly module"))
        .expect("a note for the module");
    assert!(
        note.contains(&format!("wasm://wasm/e44aa4c6 ({frames} frames)")),
        "{note}"
    );
    assert!(note.contains("built with -g"), "{note}");
}

/// llvm-symbolizer 14 prints Rust's legacy symbols half-decoded
/// (`_$LT$usize$u20$as$u20$…$GT$::index::h2f04…`) and paths with `..` unfolded: both as
/// rustc's legacy mangling and the SymCache render them (`<usize as …>::index`, folded),
/// so the names and files are compared, not their spelling.
fn rust_rendering((function, file, line): &(String, String, u64)) -> (String, String, u64) {
    let mut name = function.clone();
    // The hash rustc appends (`::h` and 16 hex digits).
    if let Some((head, hash)) = name.rsplit_once("::h")
        && hash.len() == 16
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
    {
        name = head.to_owned();
    }
    // A path component starting with `_$` loses its underscore.
    name = name.replace("::_$", "::$");
    if name.starts_with("_$") {
        name.remove(0);
    }
    for (from, to) in [
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$u20$", " "),
        ("$u5b$", "["),
        ("$u5d$", "]"),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$C$", ","),
        ("..", "::"),
    ] {
        name = name.replace(from, to);
    }

    (name, folded(file), *line)
}

/// A path with its `.` components dropped and `dir/..` folded, as the SymCache writes paths
/// (llvm-symbolizer prints them as the DWARF has them).
fn folded(file: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in file.split('/') {
        if p == ".." && parts.last().is_some_and(|l| *l != "..") {
            parts.pop();
        } else if p != "." {
            parts.push(p);
        }
    }
    parts.join("/")
}

/// A WASI program (wasi-libc, run by node's WASI) aborting in libc below a function inlined
/// into `main`: file and line of every entry as llvm-symbolizer gives them, and names but the
/// outermost's; the outermost function is named by the module's name section, as V8 printed
/// it (`main`, where DWARF has clang's `__main_argc_argv`), and where DWARF has nothing
/// (llvm-symbolizer's `??`) that name is the answer, with no file.
#[test]
fn wasi_program_resolves_as_llvm_symbolizer() {
    let oracle = llvm_symbolizer("wasi.llvm-symbolizer.txt");
    let frames = run("wasi.v8.txt", &["wasi.wasm"], &[]);
    let wasm_frames = wasm_frames(&frames);
    assert_eq!(wasm_frames.len(), 6);
    let mut named_by_section = 0;
    for f in wasm_frames {
        let offset = f["input"]["module_offset"].as_str().unwrap();
        let printed = f["input"]["function"].as_str().unwrap().to_owned();
        let mut want: Vec<(String, String, u64)> = oracle[offset]
            .iter()
            .map(|(n, file, l)| (n.clone(), folded(file), *l))
            .collect();
        let outer = want.last_mut().unwrap();
        if outer.0 == "??" {
            *outer = (printed, String::new(), 0);
            named_by_section += 1;
        } else {
            outer.0 = printed;
        }
        assert_eq!(chain(f), want, "at {offset}");
    }
    assert_eq!(named_by_section, 2);
}

/// A Rust module's panic under node (core's bounds check, std's panic machinery, a closure
/// inlined through iterator adapters): every wasm frame's inline chain as llvm-symbolizer
/// gives it, names demangled.
#[test]
fn rust_frames_resolve_as_llvm_symbolizer() {
    let oracle = llvm_symbolizer("rust.llvm-symbolizer.txt");
    let frames = run("rust.v8.txt", &["rust.wasm"], &[]);
    let wasm_frames = wasm_frames(&frames);
    assert_eq!(wasm_frames.len(), 12);
    let mut inlined = 0;
    for f in wasm_frames {
        let offset = f["input"]["module_offset"].as_str().unwrap();
        let want: Vec<_> = oracle[offset].iter().map(rust_rendering).collect();
        assert_eq!(chain(f), want, "at {offset}");
        inlined += want.len() - 1;
    }
    assert!(inlined >= 10, "{inlined} inlined frames");
}

/// The Rust module stripped of its DWARF, at a URL, with its debug file under another name:
/// found by the build ID both carry (rust-lld's `build_id` section).
#[test]
fn separate_dwarf_is_found_by_build_id() {
    let oracle = llvm_symbolizer("rust.llvm-symbolizer.txt");
    let dir = temp_dir("wasm-build-id");
    let log = dir.join("crash.txt");
    let text = std::fs::read_to_string(wasm("rust.v8.txt")).unwrap();
    std::fs::write(
        &log,
        text.replace(
            "wasm://wasm/rust.wasm-005cbf0a",
            "https://app.example/rust.stripped.wasm",
        ),
    )
    .unwrap();
    let debug = dir.join("app-debug-info.bin");
    std::fs::copy(wasm("rust.wasm"), &debug).unwrap();
    let stripped = wasm("rust.stripped.wasm");
    let out = json_of(&symscope(&[
        "symbolicate",
        arg(&log),
        "--format",
        "json",
        "-s",
        arg(&stripped),
        "-s",
        arg(&debug),
    ]));
    let frames = frames(&out);
    let mut checked = 0;
    for f in frames.iter().filter(|f| wasm_location(f).is_some()) {
        let offset = f["input"]["module_offset"].as_str().unwrap();
        assert_eq!(f["symbol_file"], "rust.stripped.wasm + app-debug-info.bin");
        let want: Vec<_> = oracle[offset].iter().map(rust_rendering).collect();
        assert_eq!(chain(f), want, "at {offset}");
        checked += 1;
    }
    assert_eq!(checked, 12);
}
