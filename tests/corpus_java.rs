//! Real obfuscated Java crashes (`tests/fixtures/java`) deobfuscated end to end, checked
//! against the same runs of the unobfuscated program: every frame equals the original where
//! the mapping's answer is unique; where it is ambiguous, the truth is among `resolved` +
//! `alternatives`. Headers and `Caused by:` lines are deobfuscated, and `... N more` is
//! recounted.

mod common;

use symscope::engine::AddSymbols as _;
use symscope::formats::parse_log;
use symscope::model::{FrameStatus, LogFormat, SymbolicatedTrace, Trace};
use symscope::symbolicate::{self, Options, Outcome, SymbolSet};

fn run(mapping: &str, log: &str) -> (Trace, SymbolicatedTrace) {
    let trace = parse_log(&std::fs::read(log).unwrap());
    assert_eq!(trace.format, LogFormat::Java, "{log}");
    let result = common::symbolicate(&trace, &common::symbols(&[mapping]), None);
    (trace, result)
}

/// A chain as the JVM prints it: `\tat pkg.Cls.m(File.java:12)`.
fn lines_of(chain: &[symscope::model::ResolvedLocation]) -> Vec<String> {
    chain
        .iter()
        .map(|l| {
            format!(
                "\tat {}({}:{})",
                l.function.as_deref().unwrap_or("?"),
                l.file.as_deref().unwrap_or("Unknown Source"),
                l.line.unwrap_or(0)
            )
        })
        .collect()
}

/// The line without a `java.base/`-style module, for comparing JDK frames.
fn strip_module(line: &str) -> String {
    match (line.find("at "), line.find('/'), line.find('(')) {
        (Some(at), Some(slash), Some(paren)) if slash < paren => {
            format!("{}{}", &line[..at + 3], &line[slash + 1..])
        }
        _ => line.to_owned(),
    }
}

/// Walks the original trace alongside the deobfuscated one. Returns (frames checked,
/// ambiguous frames).
fn check(
    case: &str,
    mapping: &str,
    obf: &str,
    orig: &str,
    compare_messages: bool,
) -> (usize, usize) {
    let (trace, result) = run(mapping, obf);
    let orig = std::fs::read_to_string(orig).unwrap();
    let orig: Vec<&str> = orig.lines().collect();
    let mut at = 0;
    let (mut frames, mut ambiguous) = (0, 0);
    for (stack, sym) in trace.stacks.iter().zip(&result.stacks) {
        // The header: the class deobfuscated (messages may name obfuscated fields, which
        // no tool rewrites).
        let want = orig[at];
        let got = sym.title.as_str();
        if compare_messages {
            assert_eq!(got, want, "{case}: header");
        } else {
            let class =
                |t: &str| symscope::formats::java::parse_throwable(t).map(|(c, _)| c.to_owned());
            assert_eq!(class(got), class(want), "{case}: header class");
        }
        at += 1;
        for (frame, s) in stack.frames.iter().zip(&sym.frames) {
            frames += 1;
            match s.status {
                FrameStatus::Resolved => {
                    let mut chains = vec![lines_of(&s.resolved)];
                    chains.extend(s.alternatives.iter().map(|a| lines_of(a)));
                    let pos = chains.iter().position(|c| {
                        c.iter().enumerate().all(|(i, l)| {
                            orig.get(at + i).map(|o| strip_module(o)) == Some(l.clone())
                        })
                    });
                    let Some(pos) = pos else {
                        panic!(
                            "{case}: {:?} gave {chains:?}, the original says {:?}",
                            frame.raw,
                            &orig[at..(at + 3).min(orig.len())]
                        );
                    };
                    if chains.len() > 1 {
                        ambiguous += 1;
                        assert!(s.note.as_deref().unwrap_or("").contains("candidates"));
                    } else {
                        assert_eq!(pos, 0);
                    }
                    at += chains[pos].len();
                }
                FrameStatus::NotCovered => {
                    // Not obfuscated: the line is the original's.
                    assert_eq!(frame.raw, orig[at], "{case}");
                    at += 1;
                }
                FrameStatus::Skipped => {
                    // `... N more`: the recount is the original's.
                    let note = s.note.as_deref().unwrap_or("");
                    let want = orig[at].trim();
                    assert!(
                        note.contains(&format!("\"{want}\"")),
                        "{case}: {note} vs {want}"
                    );
                    at += 1;
                }
                other => panic!("{case}: {:?} is {other:?}", frame.raw),
            }
        }
    }
    assert_eq!(at, orig.len(), "{case}: every original line accounted for");
    (frames, ambiguous)
}

const SHOP: &str = "tests/fixtures/java/shop";

/// A trace's text symbolicated against the shop mapping.
fn with_shop_mapping(text: &str) -> SymbolicatedTrace {
    let mut symbols = SymbolSet::new();
    let m = format!("{SHOP}/shop-mapping.txt");
    symbols.add(&m, std::fs::read(&m).unwrap().into()).unwrap();
    let trace = symscope::formats::parse_text(text);
    let Outcome::Done(r) = symbolicate::symbolicate(
        &trace,
        &symbols,
        Options::default(),
        &mut symscope::model::NoProgress,
    ) else {
        panic!("cancelled")
    };
    r
}

#[test]
fn shop_pricing_npe_through_inlined_getters_and_a_lambda() {
    let (frames, ambiguous) = check(
        "pricing",
        &format!("{SHOP}/shop-mapping.txt"),
        &format!("{SHOP}/obf-pricing.txt"),
        &format!("{SHOP}/orig-pricing.txt"),
        false,
    );
    assert_eq!(frames, 16);
    // `c.a.a(SourceFile:20)`: processAll's range and the lambda's both hold line 20.
    assert_eq!(ambiguous, 1);
}

#[test]
fn shop_config_caused_by_chain_with_obfuscated_exception() {
    let (frames, _) = check(
        "config",
        &format!("{SHOP}/shop-mapping.txt"),
        &format!("{SHOP}/obf-config.txt"),
        &format!("{SHOP}/orig-config.txt"),
        true,
    );
    assert_eq!(frames, 10);
}

#[test]
fn shop_tree_recursion() {
    check(
        "tree",
        &format!("{SHOP}/shop-mapping.txt"),
        &format!("{SHOP}/obf-tree.txt"),
        &format!("{SHOP}/orig-tree.txt"),
        true,
    );
}

#[test]
fn big_mapping_real_crash() {
    let (frames, _) = check(
        "big",
        "tests/fixtures/java/big/big-mapping-noopt.txt",
        "tests/fixtures/java/big/obf-noopt-template.txt",
        "tests/fixtures/java/big/orig-template.txt",
        true,
    );
    assert_eq!(frames, 5);
}

/// The same crash from logcat: prefixes looked through, the result unchanged.
#[test]
fn logcat_prefixes_do_not_change_the_answer() {
    let obf = std::fs::read_to_string(format!("{SHOP}/obf-config.txt")).unwrap();
    let logcat: String = obf
        .lines()
        .map(|l| format!("11-22 05:33:42.123  4242  4242 E AndroidRuntime: {l}\n"))
        .collect();
    let dir = std::env::temp_dir().join(format!("symscope-logcat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("logcat.txt");
    std::fs::write(&path, logcat).unwrap();
    let (_, plain) = run(
        &format!("{SHOP}/shop-mapping.txt"),
        &format!("{SHOP}/obf-config.txt"),
    );
    let (_, from_logcat) = run(&format!("{SHOP}/shop-mapping.txt"), path.to_str().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    let strip = |r: &SymbolicatedTrace| {
        r.stacks
            .iter()
            .map(|s| {
                (
                    s.title.clone(),
                    s.frames
                        .iter()
                        .map(|f| f.resolved.clone())
                        .collect::<Vec<_>>(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&plain), strip(&from_logcat));
}

/// Two mappings, no `pg_map_id` in the trace: the one holding the trace's classes wins,
/// with a warning saying it was a guess.
#[test]
fn mapping_choice_by_coverage_warns() {
    let mut symbols = SymbolSet::new();
    for m in [
        "tests/fixtures/java/sentry-rust-proguard/mapping-inlines.txt",
        &format!("{SHOP}/shop-mapping.txt"),
    ] {
        symbols.add(m, std::fs::read(m).unwrap().into()).unwrap();
    }
    let trace = parse_log(&std::fs::read(format!("{SHOP}/obf-tree.txt")).unwrap());
    let Outcome::Done(r) = symbolicate::symbolicate(
        &trace,
        &symbols,
        Options::default(),
        &mut symscope::model::NoProgress,
    ) else {
        panic!()
    };
    assert_eq!(
        r.stacks[0].frames[0].symbol_file.as_deref(),
        Some("shop-mapping.txt")
    );
    assert_eq!(r.stacks[0].frames[0].status, FrameStatus::Resolved);
}

/// A trace with no mapping at all: every frame says what to add.
#[test]
fn no_mapping_says_what_to_add() {
    let trace = parse_log(&std::fs::read(format!("{SHOP}/obf-tree.txt")).unwrap());
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
    assert!(f.note.as_deref().unwrap().contains("mapping.txt"));
}

/// The benchmark's 30-frame trace (the real crash plus 25 frames mapped forward from
/// original methods of the same mapping) deobfuscates back to its original frames.
#[test]
fn big_mapping_benchmark_trace() {
    let (frames, _) = check(
        "bench-30",
        "tests/fixtures/java/big/big-mapping-noopt.txt",
        "tests/fixtures/java-bench/obf-bench-30.txt",
        "tests/fixtures/java-bench/orig-bench-30.txt",
        true,
    );
    assert_eq!(frames, 30);
}

/// Class names that appear whole inside a message are deobfuscated too (a
/// `ClassCastException` names two classes); other words, and names the mapping does not
/// have, are left alone.
#[test]
fn class_names_inside_messages() {
    let r = with_shop_mapping(
        "Exception in thread \"main\" java.lang.ClassCastException: class com.example.shop.b.b cannot be cast to class com.example.shop.b.a (not.a.Class; this.b)\n\tat com.example.shop.c.b.a(SourceFile:20)\n",
    );
    assert_eq!(
        r.stacks[0].title,
        "Exception in thread \"main\" java.lang.ClassCastException: class com.example.shop.model.Order cannot be cast to class com.example.shop.model.LineItem (not.a.Class; this.b)"
    );
}

/// `... N more` is recounted against the right enclosing trace: a `Suppressed:` block's is
/// the exception it hangs from, and a `Caused by:` after that block shares its tail with the
/// exception, not with the suppressed one.
#[test]
fn more_lines_count_against_their_enclosing_trace() {
    let r = with_shop_mapping(
        "java.lang.IllegalStateException: top\n\tat com.example.shop.a.b.a(SourceFile:11)\n\tat com.example.shop.app.Main.main(SourceFile:1050)\n\tSuppressed: java.io.IOException: close\n\t\tat com.example.shop.a.b.b(SourceFile:1034)\n\t\t... 1 more\nCaused by: com.example.shop.a.a: inner\n\tat com.example.shop.a.b.b(SourceFile:22)\n\t... 2 more\n",
    );
    assert_eq!(r.stacks.len(), 3);
    let note = |s: usize| r.stacks[s].frames.last().unwrap().note.clone().unwrap();
    // Main.main(1050) is runConfig inlined into main: two lines.
    assert!(note(1).contains("\"... 2 more\""), "{}", note(1));
    // loadAll (one line) and Main.main (two).
    assert!(note(2).contains("\"... 3 more\""), "{}", note(2));
    assert_eq!(
        r.stacks[2].title,
        "Caused by: com.example.shop.config.ConfigException: inner"
    );
}

/// R8 can write the mapping's id into every frame's source file (`r8-map-id-<id>`): the
/// mapping with that `pg_map_id` is used even when another holds more of the classes.
#[test]
fn r8_map_id_in_frames_picks_the_mapping() {
    let shop = std::fs::read_to_string(format!("{SHOP}/shop-mapping.txt")).unwrap();
    // Two builds: the same classes, one (with the id) renaming `walk` to `b`.
    let with_id = format!(
        "# compiler: R8\n# pg_map_id: 9f3e2a1\n{}",
        shop.replace(
            "int walk(com.example.shop.util.Tree,int) -> a",
            "int walk(com.example.shop.util.Tree,int) -> b"
        )
    );
    let mut symbols = SymbolSet::new();
    symbols.add("other-build.txt", shop.clone().into()).unwrap();
    symbols.add("this-build.txt", with_id.into()).unwrap();
    let trace = symscope::formats::parse_text(
        "java.lang.ArithmeticException: / by zero\n\tat com.example.shop.d.a.b(r8-map-id-9f3e2a1:28)\n",
    );
    let Outcome::Done(r) = symbolicate::symbolicate(
        &trace,
        &symbols,
        Options::default(),
        &mut symscope::model::NoProgress,
    ) else {
        panic!()
    };
    let f = &r.stacks[0].frames[0];
    assert_eq!(f.symbol_file.as_deref(), Some("this-build.txt"));
    assert_eq!(
        f.resolved[0].function.as_deref(),
        Some("com.example.shop.util.Tree.walk")
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}
