//! Our lazy ProGuard/R8 path (class-header index → the blocks a trace names → the crate)
//! against the `proguard` crate's full `ProguardMapper` over the whole file, on every class,
//! method and line range of real mappings (`tests/fixtures/java/sentry-rust-proguard`, from
//! getsentry/rust-proguard) and the 10 MB ProGuard mapping of `tests/fixtures/java/big`.
//!
//! Ours must equal the crate's `ProguardCache` (built over the whole file) exactly, and its
//! `ProguardMapper` exactly but for one place where the crate's two paths disagree: a frame
//! whose method or line is not in the mapping gets only its class deobfuscated, and the file
//! name the mapper makes up for it takes its extension from the *input* frame
//! (`SourceFile` → `.java`), while the cache — and we — use the class's R8 `sourceFile`
//! (`Renderer.kt`). `agrees` allows exactly that `.kt`/`.java` difference.

use proguard::{
    ProguardCache, ProguardMapper, ProguardMapping, ProguardRecord, StackFrame, StackTrace,
    Throwable,
};
use std::collections::{BTreeMap, BTreeSet};
use symscope::model::Blob;
use symscope::symbols::proguard::{Mapping, Remapped, Subset};

const DIR: &str = "tests/fixtures/java/sentry-rust-proguard";

/// A frame to remap: obfuscated class, method, line (0: none).
type In<'a> = (&'a str, &'a str, usize);

fn show(class: &str, method: &str, file: Option<&str>, line: Option<usize>) -> String {
    format!(
        "{class}.{method}({}:{})",
        file.unwrap_or("?"),
        line.unwrap_or(0)
    )
}

/// The crate's answer for a whole trace, frames flattened.
fn theirs(mapper: &ProguardMapper<'_>, exception: Option<&str>, frames: &[In<'_>]) -> Vec<String> {
    let frames: Vec<StackFrame<'_>> = frames
        .iter()
        .map(|&(c, m, l)| StackFrame::with_file(c, m, l, "SourceFile"))
        .collect();
    let trace = StackTrace::new(exception.map(Throwable::new), frames);
    mapper
        .remap_stacktrace_typed(&trace)
        .frames()
        .iter()
        .map(|f| show(f.class(), f.method(), f.file(), f.line()))
        .collect()
}

/// The crate's cache over the whole file, frames flattened.
fn cached(cache: &ProguardCache<'_>, exception: Option<&str>, frames: &[In<'_>]) -> Vec<String> {
    let frames: Vec<StackFrame<'_>> = frames
        .iter()
        .map(|&(c, m, l)| StackFrame::with_file(c, m, l, "SourceFile"))
        .collect();
    let trace = StackTrace::new(exception.map(Throwable::new), frames);
    cache
        .remap_stacktrace_typed(&trace)
        .frames()
        .iter()
        .map(|f| show(f.class(), f.method(), f.file(), f.line()))
        .collect()
}

/// Ours against the crate, where R8's retrace (Symscope's reference) differs from it on
/// purpose (`symbols::proguard::r8`): the same distinct frames in any order (retrace drops a
/// repeated candidate and sorts candidates by method), file names equal but for `.kt`/`.java`
/// (retrace takes the extension from the printed frame). Frames without a line follow R8's
/// no-position rules instead and are checked against R8's own cases (tests/r8_retrace.rs).
fn agrees(ours: &[String], crate_answer: &[String]) -> bool {
    let norm = |v: &[String]| -> BTreeSet<String> {
        v.iter().map(|f| f.replace(".kt:", ".java:")).collect()
    };
    norm(ours) == norm(crate_answer)
}

/// [`agrees`] for a probe of one frame, with three more of R8's rules (the third: a
/// synthesized outermost frame is hidden): where no line range
/// holds the line, retrace falls back to the method's lines with no range where the crate
/// keeps only the class (its answer then names the obfuscated method); and a frame whose
/// mapping gives no original line keeps the printed one where the crate says 0.
fn agrees_at(ours: &[String], crate_answer: &[String], probe: In<'_>) -> bool {
    let (_, method, line) = probe;
    let class_only = crate_answer.len() == 1
        && crate_answer[0].contains(&format!(".{method}("))
        && !ours.is_empty();
    if agrees(ours, crate_answer) {
        return true;
    }
    let with_line: Vec<String> = crate_answer
        .iter()
        .map(|f| f.replace(":0)", &format!(":{line})")))
        .collect();
    // Retrace hides an outermost frame of a method R8 marked synthesized on any of its
    // lines; the crate keeps it where the line it answers has no mark of its own.
    let synthesized_hidden = |crate_answer: &[String]| {
        crate_answer.len() == ours.len() + 1 && agrees(ours, &crate_answer[..ours.len()])
    };
    // Where no range holds the line, retrace prints the class with the method as printed,
    // even for a class R8 synthesized; the crate hides it.
    let class_only_of_synthesized =
        crate_answer.is_empty() && ours.len() == 1 && ours[0].contains(&format!(".{method}("));
    class_only
        || class_only_of_synthesized
        || synthesized_hidden(crate_answer)
        || synthesized_hidden(&with_line)
        || agrees(ours, &with_line)
}

/// Whether a probe has a position (R8's rules for frames without one differ from the crate's).
fn has_line(frames: &[In<'_>]) -> bool {
    frames.iter().all(|f| f.2 > 0)
}

/// Builds the crate's cache of a whole mapping.
fn cache_bytes(text: &str) -> Vec<u8> {
    let mut buf = Vec::new();
    ProguardCache::write(&ProguardMapping::new(text.as_bytes()), &mut buf).unwrap();
    buf
}

/// Ours, through the class-header index, frames flattened the same way (a frame the
/// mapping does not know is kept as it was).
fn ours(mapping: &Mapping, exception: Option<&str>, frames: &[In<'_>]) -> Vec<String> {
    let classes: Vec<&str> = frames.iter().map(|f| f.0).chain(exception).collect();
    ours_in(&mapping.subset(classes), exception, frames)
}

/// [`ours`] with the classes already cut out.
fn ours_in(subset: &Subset, exception: Option<&str>, frames: &[In<'_>]) -> Vec<String> {
    let mut stack = subset.stack();
    if let Some(e) = exception {
        stack.throwable(e);
    }
    let mut out = Vec::new();
    for &(c, m, l) in frames {
        let line = u32::try_from(l).ok().filter(|&l| l > 0);
        match stack.frame(c, m, Some("SourceFile"), line) {
            Remapped::NotInMapping => out.push(show(c, m, Some("SourceFile"), Some(l))),
            Remapped::Outline | Remapped::Removed | Remapped::Synthesized => {}
            Remapped::ClassOnly { frame, .. } => out.push(show(
                &frame.class,
                &frame.method,
                frame.file.as_deref(),
                Some(frame.line.unwrap_or(0) as usize),
            )),
            Remapped::Frames { candidates, .. } => {
                for f in candidates.iter().flatten() {
                    out.push(show(
                        &f.class,
                        &f.method,
                        f.file.as_deref(),
                        Some(f.line.unwrap_or(0) as usize),
                    ));
                }
            }
        }
    }
    out
}

/// Every (obfuscated class, obfuscated method) with the lines worth asking: each range's
/// ends and middle, the line after it, and no line at all.
fn probes(text: &str) -> BTreeMap<(String, String), BTreeSet<usize>> {
    let mut out: BTreeMap<(String, String), BTreeSet<usize>> = BTreeMap::new();
    let mut class = None;
    for record in ProguardMapping::new(text.as_bytes()).iter().flatten() {
        match record {
            ProguardRecord::Class { obfuscated, .. } => class = Some(obfuscated),
            ProguardRecord::Method {
                obfuscated,
                line_mapping,
                ..
            } => {
                let Some(class) = class else { continue };
                let lines = out
                    .entry((class.to_owned(), obfuscated.to_owned()))
                    .or_default();
                lines.insert(0);
                if let Some(lm) = line_mapping {
                    let (s, e) = (lm.startline.unwrap_or(0), lm.endline.unwrap_or(0));
                    lines.extend([s, e, (s + e) / 2, e + 1]);
                }
            }
            _ => {}
        }
    }
    out
}

/// Every (obfuscated class, obfuscated method)'s minified line ranges.
fn ranges(text: &str) -> BTreeMap<(String, String), Vec<(usize, usize)>> {
    let mut out: BTreeMap<(String, String), Vec<(usize, usize)>> = BTreeMap::new();
    let mut class = None;
    for record in ProguardMapping::new(text.as_bytes()).iter().flatten() {
        match record {
            ProguardRecord::Class { obfuscated, .. } => class = Some(obfuscated),
            ProguardRecord::Method {
                obfuscated,
                line_mapping: Some(lm),
                ..
            } => {
                let (Some(class), Some(s)) = (class, lm.startline) else {
                    continue;
                };
                out.entry((class.to_owned(), obfuscated.to_owned()))
                    .or_default()
                    .push((s, lm.endline.unwrap_or(s)));
            }
            _ => {}
        }
    }
    out
}

/// Checks every probe of a mapping file alone, then returns how many were compared.
fn every_frame(text: &str) -> usize {
    let mapper = ProguardMapper::from(text);
    let buf = cache_bytes(text);
    let cache = ProguardCache::parse(&buf).unwrap();
    let mapping = Mapping::parse(Blob::from(text.to_owned())).unwrap();
    let mut n = 0;
    let mut mismatches = vec![format!("(in {})", text.lines().nth(3).unwrap_or(""))];
    let mut subset: Option<(String, Subset)> = None;
    let ranges = ranges(text);
    for ((class, method), lines) in probes(text) {
        if subset.as_ref().is_none_or(|(c, _)| *c != class) {
            subset = Some((class.clone(), mapping.subset([class.as_str()])));
        }
        let Some((_, sub)) = subset.as_ref() else {
            continue;
        };
        for line in lines {
            let frame = [(class.as_str(), method.as_str(), line)];
            let (a, b) = (ours_in(sub, None, &frame), theirs(&mapper, None, &frame));
            let c = cached(&cache, None, &frame);
            // R8: a line no range of the method holds (a `0:0:` range holds only 0) gets
            // the class alone, where the crate answers the method's preamble line.
            let covered = ranges
                .get(&(class.clone(), method.clone()))
                .is_some_and(|r| r.iter().any(|&(s, e)| s <= line && line <= e));
            let class_only = !covered
                && a.len() == 1
                && a[0].contains(&format!(".{method}("))
                && a[0].ends_with(&format!(":{line})"));
            if has_line(&frame)
                && !class_only
                && (!agrees_at(&a, &c, frame[0]) || !agrees_at(&a, &b, frame[0]))
            {
                mismatches.push(format!(
                    "{class}.{method}:{line}\n  ours:   {a:?}\n  mapper: {b:?}\n  cache:  {c:?}"
                ));
            }
            n += 1;
        }
    }
    assert!(
        mismatches.len() == 1,
        "{} of {n} frames differ:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(10)].join("\n")
    );
    n
}

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}")).unwrap()
}

#[test]
fn every_frame_of_r8_mapping_equals_the_crate() {
    assert!(every_frame(&read("mapping-r8.txt")) > 10_000);
}

#[test]
fn every_frame_of_proguard_mapping_equals_the_crate() {
    assert!(every_frame(&read("mapping.txt")) > 5_000);
}

#[test]
fn every_frame_of_the_small_r8_mappings_equals_the_crate() {
    for name in [
        "mapping-outline-complex.txt",
        "mapping-rewrite-complex.txt",
        "mapping-outline.txt",
        "mapping-inlines.txt",
        "mapping-inline-no-base.txt",
        "mapping-zero-line-info.txt",
        "mapping-r8-symbolicated_file_names.txt",
    ] {
        assert!(every_frame(&read(name)) > 0, "{name}");
    }
}

/// R8 outlines: an outline frame followed by its callsite carries its position into it.
#[test]
fn outline_then_callsite_equals_the_crate() {
    for name in ["mapping-outline.txt", "mapping-outline-complex.txt"] {
        let text = read(name);
        let mapper = ProguardMapper::from(text.as_str());
        let buf = cache_bytes(&text);
        let cache = ProguardCache::parse(&buf).unwrap();
        let mapping = Mapping::parse(Blob::from(text.clone())).unwrap();
        // Outline methods and callsites, found by their R8 headers.
        let mut outlines = Vec::new();
        let mut callsites = Vec::new();
        let mut class = None;
        let mut last: Option<(String, String, usize, usize)> = None;
        for record in ProguardMapping::new(text.as_bytes()).iter().flatten() {
            match record {
                ProguardRecord::Class { obfuscated, .. } => class = Some(obfuscated),
                ProguardRecord::Method {
                    obfuscated,
                    line_mapping,
                    ..
                } => {
                    let line = line_mapping.and_then(|l| l.startline).unwrap_or(0);
                    let end = line_mapping.and_then(|l| l.endline).unwrap_or(line);
                    last = class.map(|c| (c.to_owned(), obfuscated.to_owned(), line, end));
                }
                ProguardRecord::R8Header(h) => {
                    let h = format!("{h:?}");
                    if let Some(m) = last.clone() {
                        if h.starts_with("OutlineCallsite") {
                            callsites.push(m);
                        } else if h.starts_with("Outline") {
                            outlines.push(m);
                        }
                    }
                }
                _ => {}
            }
        }
        assert!(!outlines.is_empty() && !callsites.is_empty(), "{name}");
        let mut n = 0;
        // Every position inside each outline (outside its range a frame is no outline).
        for o in &outlines {
            for pos in o.2.max(1)..=o.3 {
                for c in &callsites {
                    let frames = [
                        (o.0.as_str(), o.1.as_str(), pos),
                        (c.0.as_str(), c.1.as_str(), c.2),
                    ];
                    let a = ours(&mapping, None, &frames);
                    if !has_line(&frames) {
                        continue;
                    }
                    // R8 looks the caller up at the callsite's position for the outline's
                    // (the outline's own when the callsite lists none); where no range holds
                    // that, it prints the class alone with the printed line. The crate keeps
                    // the printed line.
                    let class_only = a.len() == 1
                        && a[0].contains(&format!(".{}(", c.1))
                        && a[0].ends_with(&format!(":{})", c.2));
                    if class_only {
                        continue;
                    }
                    let c = cached(&cache, None, &frames);
                    assert!(
                        agrees_at(&a, &c, frames[1]),
                        "{name}: {frames:?}\n{a:?}\n{c:?}"
                    );
                    let b = theirs(&mapper, None, &frames);
                    assert!(
                        agrees_at(&a, &b, frames[1]),
                        "{name}: {frames:?}\n{a:?}\n{b:?}"
                    );
                    n += 1;
                }
            }
        }
        assert!(n > 0);
    }
}

/// R8 `rewriteFrame`: the first frame after a matching exception loses its inner frames.
#[test]
fn rewrite_rules_equal_the_crate() {
    let text = read("mapping-rewrite-complex.txt");
    let mapper = ProguardMapper::from(text.as_str());
    let mapping = Mapping::parse(Blob::from(text.clone())).unwrap();
    let probes = probes(&text);
    let mut n = 0;
    for exception in [
        "java.lang.NullPointerException",
        "java.lang.IllegalStateException",
        "java.lang.RuntimeException",
    ] {
        for ((class, method), lines) in &probes {
            for &line in lines {
                let frames = [(class.as_str(), method.as_str(), line), ("c", "draw", 20)];
                if !has_line(&frames) {
                    continue;
                }
                let a = ours(&mapping, Some(exception), &frames);
                let b = theirs(&mapper, Some(exception), &frames);
                assert!(agrees(&a, &b), "{exception}: {frames:?}\n{a:?}\n{b:?}");
                n += 1;
            }
        }
    }
    assert!(n > 10);
}

/// The 10 MB mapping: every frame of its real crash, and every member of the classes that
/// crash names.
#[test]
fn big_mapping_equals_the_crate() {
    let text = std::fs::read_to_string("tests/fixtures/java/big/big-mapping-noopt.txt").unwrap();
    let mapper = ProguardMapper::from(text.as_str());
    let mapping = Mapping::parse(Blob::from(text.clone())).unwrap();
    assert!(mapping.class_count() > 10_000, "{}", mapping.class_count());
    let trace = std::fs::read_to_string("tests/fixtures/java/big/obf-noopt-template.txt").unwrap();
    let frames: Vec<(String, String, usize)> = trace
        .lines()
        .filter_map(symscope::formats::java::parse_frame)
        .map(|f| {
            (
                f.class.to_owned(),
                f.method.to_owned(),
                f.line.unwrap_or(0) as usize,
            )
        })
        .collect();
    assert_eq!(frames.len(), 5);
    let frames: Vec<In<'_>> = frames
        .iter()
        .map(|(c, m, l)| (c.as_str(), m.as_str(), *l))
        .collect();
    let exception = Some("java.lang.IllegalArgumentException");
    assert!(agrees(
        &ours(&mapping, exception, &frames),
        &theirs(&mapper, exception, &frames)
    ));
    // Each member of the crash's classes, alone.
    let named: BTreeSet<&str> = frames.iter().map(|f| f.0).collect();
    let mut n = 0;
    for ((class, method), lines) in probes(&text) {
        if !named.contains(class.as_str()) {
            continue;
        }
        for line in lines {
            let frame = [(class.as_str(), method.as_str(), line)];
            if !has_line(&frame) {
                continue;
            }
            let (a, b) = (ours(&mapping, None, &frame), theirs(&mapper, None, &frame));
            assert!(agrees_at(&a, &b, frame[0]), "{frame:?}\n{a:?}\n{b:?}");
            n += 1;
        }
    }
    assert!(n > 100, "{n}");
}
