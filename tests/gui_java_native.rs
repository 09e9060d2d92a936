//! Java and native crashes in the window: an obfuscated crash and its mapping (inline chains,
//! ambiguity, hidden frames), a native crash and its debug file, a dSYM folder and a minidump,
//! sources from a source folder.

mod common;

use common::harness::*;

/// An obfuscated Android-style crash and its ProGuard mapping, dropped together: headers and
/// frames deobfuscated, an inline chain counted on its row and listed in the detail, an
/// ambiguous frame's candidates behind an expander, and each `Caused by:` folding away.
#[test]
fn drop_a_java_crash_and_its_mapping() {
    let java = |rel: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/java/shop")
            .join(rel)
    };
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, &[java("obf-config.txt"), java("shop-mapping.txt")]);
    settle(&mut h, |h| has_label(h, "ConfigLoader.parseValue"));
    // The timing panel's jobs: the mapping's scan, and the log's class parse and remap.
    let phases: Vec<String> = h
        .state()
        .timings
        .iter()
        .flat_map(|t| t.spans.iter().map(|s| s.phase.clone()))
        .collect();
    for phase in ["scan", "class parse", "remap"] {
        assert!(phases.iter().any(|p| p == phase), "{phase} in {phases:?}");
    }
    // The `Caused by:` header names the original exception class.
    assert!(has_label(
        &h,
        "▼ Caused by: com.example.shop.config.ConfigException: line 2: timeout=30s"
    ));
    // Three original frames inlined into one obfuscated frame: a row for the innermost,
    // then a sub-row for each function it was inlined into, outward.
    let row = "com.example.shop.config.ConfigLoader.parseValue  ConfigLoader.java:34";
    let rows = labels_containing(&h, "ConfigLoader.java:");
    let at = rows
        .iter()
        .position(|l| l.contains(row))
        .expect("the frame's row");
    assert!(
        rows[at + 1].contains(
            "inlined into com.example.shop.config.ConfigLoader.parseEntry  ConfigLoader.java:"
        ),
        "{rows:#?}"
    );
    assert!(
        rows[at + 2].contains("inlined into com.example.shop.config.ConfigLoader."),
        "{rows:#?}"
    );
    h.get_by_label_contains(row).click();
    h.run_steps(3);
    assert!(has_label(&h, "inlined into"));
    assert!(has_label(
        &h,
        "com.example.shop.config.ConfigLoader.parseEntry"
    ));
    // Folding the first `Caused by:` hides its frames, not the others'.
    assert!(has_label(
        &h,
        "com.example.shop.config.ConfigLoader.parseLines  ConfigLoader.java:22"
    ));
    h.get_by_label_contains("▼ Caused by: com.example.shop.config.ConfigException")
        .click();
    h.run_steps(2);
    assert!(has_label(
        &h,
        "▶ Caused by: com.example.shop.config.ConfigException: line 2: timeout=30s  (3 frames)"
    ));
    assert!(!has_label(
        &h,
        "com.example.shop.config.ConfigLoader.parseLines  ConfigLoader.java:22"
    ));
    assert!(has_label(&h, row));

    // The pricing crash has a frame two methods fit: an expander below it, as retrace
    // groups them, lists the other candidate chain.
    drop_files(&mut h, &[java("obf-pricing.txt")]);
    settle(&mut h, |h| has_label(h, "obf-pricing.txt"));
    h.get_by_label("obf-pricing.txt").click();
    let expander = "2 candidates: the symbol file cannot tell which ran (show the other 1)";
    settle(&mut h, |h| has_label(h, expander));
    // The frame is near the end of the list, behind the detail panel: scroll to it first.
    h.get_by_label_contains(expander).scroll_to_me();
    h.run_steps(3);
    // The other method (retrace sorts the lambda first) appears only once the candidates
    // are shown.
    let other = "or com.example.shop.service.OrderService.processAll  OrderService.java:";
    assert!(labels_containing(&h, other).is_empty());
    h.get_by_label_contains(expander).click();
    h.run_steps(3);
    assert!(has_label(&h, "(hide the other 1)"));
    assert_eq!(
        labels_containing(&h, other).len(),
        1,
        "{:#?}",
        labels_containing(&h, "or ")
    );
    // The candidate's row selects its frame, whose detail lists both.
    h.get_by_label_contains(other).click();
    h.run_steps(3);
    assert!(has_label(&h, "2 candidates"));
}

/// Frames an R8 mapping hides (a synthesized lambda class's frame) fold into a row that
/// says why, as retrace leaves them out, and show on demand.
#[test]
fn frames_the_mapping_hides_fold_into_one_row() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/java/r8-retrace/SyntheticLambdaMethodStackTrace");
    let mut h = app();
    drop_files(
        &mut h,
        &[case.join("mapping.txt"), case.join("obfuscated.txt")],
    );
    settle(&mut h, |h| has_label(h, "example.Foo.runIt"));
    h.get_by_label("obfuscated.txt").click();
    let folded = "▶ 1 frame hidden: methods the compiler made (show)";
    settle(&mut h, |h| has_label(h, folded));
    let rows = labels_containing(&h, "example.");
    let at = |needle: &str| rows.iter().position(|l| l.contains(needle));
    assert!(at("lambda$main$0") < at("Foo.runIt"), "{rows:#?}");
    assert!(labels_containing(&h, "a.b.a(Unknown Source)").is_empty());
    h.get_by_label_contains(folded).click();
    h.run_steps(3);
    assert!(has_label(
        &h,
        "▼ 1 frame hidden: methods the compiler made (hide)"
    ));
    assert_eq!(labels_containing(&h, "a.b.a(Unknown Source)").len(), 1);
}

/// A native crash record and the binary's split debug file, dropped together: the crashing
/// frame and an inline chain resolved.
#[test]
fn drop_a_native_crash_and_its_debug_file() {
    let native = |rel: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/native/crashy")
            .join(rel)
    };
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[native("crash-aslr-1.txt"), native("crashy.debug")],
    );
    settle(&mut h, |h| {
        has_label(h, "store_result  /build/crashy/crash.c:24")
    });
    // The inline chain of the crashing frame: a row for each function it was inlined into.
    assert_eq!(
        labels_containing(&h, "inlined into"),
        [
            "        inlined into app::Pipeline::run(int*)  /build/crashy/pipeline.cpp:39",
            "        inlined into cxx_pipeline_run  /build/crashy/pipeline.cpp:49"
        ]
    );
    assert!(has_label(&h, "signal 11 (SIGSEGV)"));
    // The debug file was answered lazily first; its SymCache was built by a job of its own
    // and now answers the frames that follow.
    let names: Vec<&str> = h.state().timings.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"load crashy.debug"), "{names:?}");
    assert!(names.contains(&"build SymCache crashy.debug"), "{names:?}");
    let native = h
        .state()
        .inputs
        .iter()
        .find_map(|e| match &e.loaded {
            Some(Loaded::Symbols(SymbolFile::Native(n), _)) => Some(n.symbols.clone()),
            _ => None,
        })
        .unwrap();
    assert!(!native.is_lazy());
    assert!(native.cache_len() > 0);
}

/// A `.dSYM` bundle dropped as a folder, with a minidump: the dump's threads are walked
/// (the crashed thread first) and its frames resolved through the bundle's DWARF file,
/// found by the module's debug ID.
#[test]
fn drop_a_dsym_folder_and_a_minidump() {
    let macos = |rel: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/native/sentry-symbolic/fixtures/macos")
            .join(rel)
    };
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, &[macos("crash.dSYM"), macos("mini.dmp")]);
    settle(&mut h, |h| {
        has_label(
            h,
            "(anonymous namespace)::crash()  /Users/travis/build/getsentry/breakpad-tools/macos/main.cpp:21",
        )
    });
    // The stack's header says why it crashed (the dump's exception), not only which thread.
    assert!(has_label(
        &h,
        "Thread 0 Crashed — EXC_BAD_ACCESS / KERN_INVALID_ADDRESS at 0x45"
    ));
    // The row shows the frame's number once (the dump's report line starts with it too).
    assert!(
        has_label(&h, "×   1  crash "),
        "{:#?}",
        labels_containing(&h, "crash")
    );
    assert_eq!(
        labels_containing(&h, "inlined into"),
        [
            "        inlined into (anonymous namespace)::start()  /Users/travis/build/getsentry/breakpad-tools/macos/main.cpp:25",
            "        inlined into main  /Users/travis/build/getsentry/breakpad-tools/macos/main.cpp:32"
        ]
    );
    // The coverage report (open while modules lack symbols) names the module without
    // symbols and its debug ID.
    assert!(has_label(&h, "Modules: 1 with symbols, 1 without"));
    assert!(has_label(&h, "missing: add its debug file"));
    assert!(has_label(&h, "67E9247C814E392BA027DBDE6748FCBF0"));
    h.get_by_label_contains("Modules: 1 with symbols").click();
    h.run_steps(3);
    assert!(!has_label(&h, "missing: add its debug file"));
    // The bundle's Info.plist was passed over: one symbol file, one log.
    assert_eq!(h.state().inputs.len(), 2);
}

/// A native frame names its build machine's path (`/build/crashy/crash.c`); once the user
/// adds the folder holding the sources, the frame detail shows the file found there by the
/// path's tail, the frame's line marked. Removing the folder takes it away again.
#[test]
fn a_source_folder_gives_native_frames_their_source() {
    let native = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native/crashy");
    let mut h = app();
    h.run_steps(2);
    drop_files(
        &mut h,
        &[native.join("crash-aslr-1.txt"), native.join("crashy.debug")],
    );
    let row = "store_result  /build/crashy/crash.c:24";
    settle(&mut h, |h| has_label(h, row));
    h.get_all_by_label_contains(row).next().unwrap().click();
    h.run_steps(3);
    assert!(has_label(&h, "Add source folder"));
    assert!(!has_label(&h, "*slot = value;"));
    // The frame's address and its offset in the module the maps put it in.
    assert!(has_label(
        &h,
        "address 0x563054cbb500 in crashy at offset 0x1500"
    ));
    let mut c = symscope::app::Commands::default();
    c.send(symscope::app::InputCommand::AddSourceRoot(native.clone()));
    h.state_mut().apply(c);
    let source_line = "    24      *slot = value; /* SIGSEGV when slot == NULL */";
    settle(&mut h, |h| has_label(h, source_line));
    // Read by a job: the window's thread reads no file.
    assert!(
        h.state()
            .timings
            .iter()
            .any(|t| t.name == "read the frame's source")
    );
    assert!(has_label(&h, "Source folders"));
    h.get_by_label_contains("Remove source folder").click();
    h.run_steps(3);
    assert!(!has_label(&h, "*slot = value;"));
}

/// A dropped folder's one log is read and parsed once, by the folder's search: its load
/// takes it parsed (no read, detect or parse of its own), and it is resolved as any log.
#[test]
fn a_folders_one_log_is_read_and_parsed_once() {
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/java/shop");
    let dir = temp_dir("one-log-folder");
    for f in ["obf-tree.txt", "shop-mapping.txt"] {
        std::fs::copy(shop.join(f), dir.join(f)).unwrap();
    }
    let mut h = app();
    h.run_steps(2);
    drop_files(&mut h, std::slice::from_ref(&dir));
    settle(&mut h, |h| has_label(h, "com.example.shop.util.Tree.walk"));
    let timings = &h.state().timings;
    let phases = |name: &str| -> Vec<String> {
        timings
            .iter()
            .filter(|t| t.name == name)
            .flat_map(|t| t.spans.iter().map(|s| s.phase.clone()))
            .collect()
    };
    let search = timings
        .iter()
        .find(|t| t.name.starts_with("search "))
        .expect("the folder was searched");
    assert!(search.spans.iter().any(|s| s.phase == "detect"));
    let load = phases("load obf-tree.txt");
    assert!(
        timings.iter().any(|t| t.name == "load obf-tree.txt"),
        "{:?}",
        timings.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
    for phase in ["read", "detect", "parse"] {
        assert!(!load.contains(&phase.to_owned()), "{phase} again: {load:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
