//! A WebAssembly crash in the window: a real V8 stack (node) of JavaScript calling a C++
//! module and back, dropped with the module (DWARF inside) and the JavaScript's map; the
//! wasm frames show their inline chains as llvm-symbolizer gives them, the frame detail the
//! module, function index and offset, and the source once a source folder is added.

mod common;

use common::harness::*;

fn wasm(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wasm")
        .join(rel)
}

#[test]
fn a_wasm_frame_shows_its_module_function_offset_and_source() {
    // llvm-symbolizer's answer at 0xb0 (`crash.llvm-symbolizer.txt`): the inlined `check`
    // and the `step` it was inlined into.
    let oracle = std::fs::read_to_string(wasm("crash.llvm-symbolizer.txt")).unwrap();
    let block: Vec<&str> = oracle
        .split("\n\n")
        .find(|b| b.starts_with("0xb0"))
        .unwrap()
        .lines()
        .collect();
    let (inner, outer) = ((block[1], block[2]), (block[3], block[4]));
    let line_of = |at: &str| at.rsplit_once(':').unwrap().0.to_owned();
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[
            wasm("crash.v8.txt"),
            wasm("crash.wasm"),
            wasm("harness.min.js.map"),
        ],
    );
    let row = format!("{}  {}", inner.0, line_of(inner.1));
    settle(&mut h, |h| has_label(h, &row));
    assert_eq!(
        labels_containing(&h, "inlined into"),
        [format!(
            "        inlined into {}  {}",
            outer.0,
            line_of(outer.1)
        )]
    );
    // The JavaScript frames on either side, through their map.
    let harness = std::fs::read_to_string(wasm("src/harness.js")).unwrap();
    let (n, throw) = harness
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("throw new Error"))
        .unwrap();
    let column = throw.find("new Error").unwrap() + 1;
    assert!(has_label(
        &h,
        &format!("report  src/harness.js:{}:{column}", n + 1)
    ));
    h.get_all_by_label_contains(&row).next().unwrap().click();
    h.run_steps(3);
    assert!(has_label(
        &h,
        "WebAssembly function 2 at offset 0xb0 in wasm://wasm/e44aa4c6"
    ));
    // The source, from a source folder: the line llvm-symbolizer named.
    let mut c = symscope::app::Commands::default();
    c.send(symscope::app::InputCommand::AddSourceRoot(wasm("")));
    h.state_mut().apply(c);
    let text = std::fs::read_to_string(wasm("src/crash.cpp")).unwrap();
    let n: usize = line_of(inner.1)
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let source = text.lines().nth(n - 1).unwrap().trim();
    settle(&mut h, |h| {
        labels_containing(h, source)
            .iter()
            .any(|l| l.trim_start().starts_with(&n.to_string()))
    });
}
