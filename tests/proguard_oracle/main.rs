//! Our lazy ProGuard/R8 path (class-header index → the blocks a trace names → R8's rules)
//! against the `proguard` crate's full `ProguardMapper` and `ProguardCache` over the whole
//! file, on every class, method and line range of real mappings
//! (`tests/fixtures/java/sentry-rust-proguard`, from getsentry/rust-proguard) and the 10 MB
//! ProGuard mapping of `tests/fixtures/java/big`: every frame, with a line and without.
//!
//! Frames are compared in order, exactly. Where R8's retrace (Symscope's reference) answers
//! otherwise than the crate, the crate's answer is corrected by the one R8 rule that says so,
//! frame by frame, and the corrected answer must then equal ours exactly; each rule ([`Rule`])
//! names the R8 class that applies it and the R8 reference case that shows it (R8's
//! `src/test/java/com/android/tools/r8/retrace/stacktraces/`, vendored in
//! `tests/fixtures/java/r8-retrace` and checked in `tests/r8_retrace.rs`). What a rule needs
//! to know of the mapping (which members have which ranges, which are synthesized, a class's
//! `sourceFile`) is read with the crate's own parser, never ours.

mod r8_rules;

use proguard::{ProguardCache, ProguardMapper, ProguardMapping, ProguardRecord};
use r8_rules::{F, Facts, In, Rule, crate_frames, files_as_r8, frame, r8_answer, show};
use std::collections::{BTreeMap, BTreeSet};
use symscope::model::Blob;
use symscope::symbols::proguard::{Mapping, Remapped, Subset};

const DIR: &str = "tests/fixtures/java/sentry-rust-proguard";

/// Builds the crate's cache of a whole mapping.
fn cache_bytes(text: &str) -> Vec<u8> {
    let mut buf = Vec::new();
    ProguardCache::write(&ProguardMapping::new(text.as_bytes()), &mut buf).unwrap();
    buf
}

/// Ours, through the class-header index, frames flattened the same way (a frame the
/// mapping does not know is kept as it was).
fn ours(mapping: &Mapping, exception: Option<&str>, frames: &[In<'_>]) -> Vec<F> {
    let classes: Vec<&str> = frames.iter().map(|f| f.0).chain(exception).collect();
    ours_in(&mapping.subset(classes), exception, frames)
}

/// [`ours`] with the classes already cut out.
fn ours_in(subset: &Subset, exception: Option<&str>, frames: &[In<'_>]) -> Vec<F> {
    let mut stack = subset.stack();
    if let Some(e) = exception {
        stack.throwable(e);
    }
    let mut out = Vec::new();
    for &(c, m, l) in frames {
        let line = u32::try_from(l).ok().filter(|&l| l > 0);
        match stack.frame(c, m, Some("SourceFile"), line) {
            Remapped::NotInMapping => out.push(frame(c, m, Some("SourceFile"), Some(l))),
            Remapped::Outline | Remapped::Removed | Remapped::Synthesized => {}
            Remapped::ClassOnly { frame: f, .. } => out.push(frame(
                &f.class,
                &f.method,
                f.file.as_deref(),
                Some(f.line.unwrap_or(0) as usize),
            )),
            Remapped::Frames { candidates, .. } => {
                for f in candidates.iter().flatten() {
                    out.push(frame(
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

/// How often each rule corrected the crate, over one check.
type Tally = BTreeMap<Rule, usize>;

/// Checks one frame: ours must equal the crate's answer, in order and exactly, as
/// corrected by R8's rules; a difference is described.
fn check_frame(
    ours: &[F],
    crate_answer: &[F],
    probe: In<'_>,
    facts: &Facts,
    tally: &mut Tally,
) -> Result<(), String> {
    check_frame_printed(ours, crate_answer, probe, probe.2, facts, tally)
}

/// [`check_frame`] for a frame looked up at another line than it printed (`printed`).
fn check_frame_printed(
    ours: &[F],
    crate_answer: &[F],
    probe: In<'_>,
    printed: usize,
    facts: &Facts,
    tally: &mut Tally,
) -> Result<(), String> {
    let (expected, rules) = r8_answer(crate_answer, probe, printed, facts);
    if ours != expected.as_slice() {
        return Err(format!(
            "{}.{}:{}\n  ours:     {}\n  crate:    {}\n  R8 rules: {rules:?} → {}",
            probe.0,
            probe.1,
            probe.2,
            show(ours),
            show(crate_answer),
            show(&expected)
        ));
    }
    for r in rules {
        *tally.entry(r).or_default() += 1;
    }
    Ok(())
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

/// Checks every probe of a mapping file alone (every member's lines and no line), against
/// the crate's mapper and its cache; returns how many frames were compared and how often
/// each R8 rule corrected the crate.
fn every_frame(text: &str) -> (usize, Tally) {
    let mapper = ProguardMapper::from(text);
    let buf = cache_bytes(text);
    let cache = ProguardCache::parse(&buf).unwrap();
    let mapping = Mapping::parse(Blob::from(text.to_owned())).unwrap();
    let facts = Facts::of(text);
    let mut n = 0;
    let mut tally = Tally::new();
    let mut mismatches = Vec::new();
    let mut subset: Option<(String, Subset)> = None;
    for ((class, method), lines) in probes(text) {
        if subset.as_ref().is_none_or(|(c, _)| *c != class) {
            subset = Some((class.clone(), mapping.subset([class.as_str()])));
        }
        let Some((_, sub)) = subset.as_ref() else {
            continue;
        };
        for line in lines {
            let probe = (class.as_str(), method.as_str(), line);
            let a = ours_in(sub, None, &[probe]);
            for (who, theirs) in [
                ("mapper", crate_frames(Some(&mapper), None, None, &[probe])),
                ("cache", crate_frames(None, Some(&cache), None, &[probe])),
            ] {
                if let Err(e) = check_frame(&a, &theirs, probe, &facts, &mut tally) {
                    mismatches.push(format!("{who}: {e}"));
                }
            }
            n += 1;
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {n} frames differ (in {}):\n{}",
        mismatches.len(),
        text.lines().nth(3).unwrap_or(""),
        mismatches[..mismatches.len().min(12)].join("\n")
    );
    (n, tally)
}

/// Fails with the first differences when any of `n` checks found one.
fn none_differ(mismatches: &[String], n: usize) {
    assert!(
        mismatches.is_empty(),
        "{} of {n} differ:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(8)].join("\n")
    );
}

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}")).unwrap()
}

#[test]
fn every_frame_of_r8_mapping_equals_the_crate() {
    let (n, tally) = every_frame(&read("mapping-r8.txt"));
    eprintln!("{n} frames; R8's rules corrected the crate: {tally:?}");
    assert!(n > 10_000);
}

#[test]
fn every_frame_of_proguard_mapping_equals_the_crate() {
    let (n, tally) = every_frame(&read("mapping.txt"));
    eprintln!("{n} frames; R8's rules corrected the crate: {tally:?}");
    assert!(n > 5_000);
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
        let (n, tally) = every_frame(&read(name));
        eprintln!("{name}: {n} frames; R8's rules corrected the crate: {tally:?}");
        assert!(n > 0, "{name}");
    }
}

/// A whole trace: ours must equal the crate's answer, in order and exactly, with R8's file
/// names ([`Rule::SourceFile`]), the one rule that applies to every frame of a trace alike.
fn check_trace(ours: &[F], crate_answer: &[F], facts: &Facts) -> Result<(), String> {
    let mut rules = BTreeSet::new();
    let expected = files_as_r8(crate_answer.to_vec(), facts, &mut rules);
    if ours == expected.as_slice() {
        Ok(())
    } else {
        Err(format!(
            "\n  ours:  {}\n  crate: {}\n  R8:    {}",
            show(ours),
            show(crate_answer),
            show(&expected)
        ))
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
        let facts = Facts::of(&text);
        let mut n = 0;
        let mut mismatches = Vec::new();
        // Every position inside each outline (outside its range a frame is no outline).
        for o in &outlines {
            for pos in o.2.max(1)..=o.3 {
                for c in &callsites {
                    let frames = [
                        (o.0.as_str(), o.1.as_str(), pos),
                        (c.0.as_str(), c.1.as_str(), c.2),
                    ];
                    let a = ours(&mapping, None, &frames);
                    // R8 hides the outline frame and looks its caller up at the position
                    // the `outlineCallsite` map of the last (outermost) line holding the
                    // caller's position gives for the outline's, the outline's own where
                    // the map lacks it; with no map there, at the caller's own position
                    // (`RetraceMethodResultImpl.narrowByPosition`: `ListUtils.last(
                    // mappedRangesForPosition).getOutlineCallsiteInformation()`,
                    // `OutlineCallsiteMappingInformation.rewritePosition`;
                    // `OutlineInOutlineStackTrace`).
                    let key = (c.0.clone(), c.1.clone());
                    let last_holding = facts.members.get(&key).and_then(|lines| {
                        lines
                            .iter()
                            .rev()
                            .find(|l| l.range.is_some_and(|(s, e)| s <= c.2 && c.2 <= e))
                    });
                    let at = match last_holding {
                        Some(l) if !l.callsite.is_empty() => l
                            .callsite
                            .iter()
                            .find(|(from, _)| *from == pos)
                            .map_or(pos, |&(_, to)| to),
                        _ => c.2,
                    };
                    let callsite = (c.0.as_str(), c.1.as_str(), at);
                    // Another line holding the caller's position with a map of its own that
                    // names the outline's position: the crate follows that one.
                    let first_map = facts.members.get(&key).and_then(|lines| {
                        lines
                            .iter()
                            .filter(|l| l.range.is_some_and(|(s, e)| s <= c.2 && c.2 <= e))
                            .find(|l| !l.callsite.is_empty())
                    });
                    let crate_elsewhere = first_map.is_some_and(|l| {
                        !std::ptr::eq(l, last_holding.unwrap())
                            && l.callsite.iter().any(|(from, _)| *from == pos)
                    });
                    let mut tally = Tally::new();
                    for (who, mut theirs) in [
                        ("cache", crate_frames(None, Some(&cache), None, &frames)),
                        ("mapper", crate_frames(Some(&mapper), None, None, &frames)),
                    ] {
                        if crate_elsewhere {
                            // Rule::OutlineCallsite: the crate's answer at R8's position.
                            theirs = if who == "cache" {
                                crate_frames(None, Some(&cache), None, &[callsite])
                            } else {
                                crate_frames(Some(&mapper), None, None, &[callsite])
                            };
                            *tally.entry(Rule::OutlineCallsite).or_default() += 1;
                        }
                        if let Err(e) =
                            check_frame_printed(&a, &theirs, callsite, c.2, &facts, &mut tally)
                        {
                            mismatches.push(format!("{name} {who} {frames:?}: {e}"));
                        }
                    }
                    n += 1;
                }
            }
        }
        none_differ(&mismatches, n);
        assert!(n > 0);
    }
}

/// R8 `rewriteFrame`: the first frame after a matching exception loses its inner frames.
#[test]
fn rewrite_rules_equal_the_crate() {
    let text = read("mapping-rewrite-complex.txt");
    let mapper = ProguardMapper::from(text.as_str());
    let mapping = Mapping::parse(Blob::from(text.clone())).unwrap();
    let facts = Facts::of(&text);
    let probes = probes(&text);
    let mut n = 0;
    let mut tally = Tally::new();
    let mut mismatches = Vec::new();
    for exception in [
        "java.lang.NullPointerException",
        "java.lang.IllegalStateException",
        "java.lang.RuntimeException",
    ] {
        for ((class, method), lines) in &probes {
            for &line in lines {
                let frames = [(class.as_str(), method.as_str(), line), ("c", "draw", 20)];
                let a = ours(&mapping, Some(exception), &frames);
                let b = crate_frames(Some(&mapper), None, Some(exception), &frames);
                // Frame by frame: the second frame's answer is what it answers alone (the
                // rule rewrites only the first frame after the throwable).
                let (a2, b2) = (
                    ours(&mapping, None, &frames[1..]),
                    crate_frames(Some(&mapper), None, None, &frames[1..]),
                );
                assert!(a.ends_with(&a2) && b.ends_with(&b2), "{frames:?}");
                let (a1, b1) = (&a[..a.len() - a2.len()], &b[..b.len() - b2.len()]);
                for (ours, theirs, probe) in [(a1, b1, frames[0]), (&a2[..], &b2[..], frames[1])] {
                    if let Err(e) = check_frame(ours, theirs, probe, &facts, &mut tally) {
                        mismatches.push(format!("{exception}: {frames:?}: {e}"));
                    }
                }
                n += 1;
            }
        }
    }
    none_differ(&mismatches, n);
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
    let facts = Facts::of(&text);
    check_trace(
        &ours(&mapping, exception, &frames),
        &crate_frames(Some(&mapper), None, exception, &frames),
        &facts,
    )
    .unwrap();
    // Each member of the crash's classes, alone, with a line and without.
    let named: BTreeSet<&str> = frames.iter().map(|f| f.0).collect();
    let mut n = 0;
    let mut tally = Tally::new();
    for ((class, method), lines) in probes(&text) {
        if !named.contains(class.as_str()) {
            continue;
        }
        for line in lines {
            let probe = (class.as_str(), method.as_str(), line);
            let (a, b) = (
                ours(&mapping, None, &[probe]),
                crate_frames(Some(&mapper), None, None, &[probe]),
            );
            check_frame(&a, &b, probe, &facts, &mut tally).unwrap();
            n += 1;
        }
    }
    assert!(n > 100, "{n}");
}
