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

use proguard::{
    ProguardCache, ProguardMapper, ProguardMapping, ProguardRecord, StackFrame, StackTrace,
    Throwable,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use symscope::model::Blob;
use symscope::symbols::proguard::{Mapping, Remapped, Subset};

const DIR: &str = "tests/fixtures/java/sentry-rust-proguard";

/// A frame to remap: obfuscated class, method, line (0: none).
type In<'a> = (&'a str, &'a str, usize);

/// A deobfuscated frame: class, method, file, line (0: none).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct F {
    class: String,
    method: String,
    file: String,
    line: usize,
}

impl std::fmt::Display for F {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}.{}({}:{})",
            self.class, self.method, self.file, self.line
        )
    }
}

fn frame(class: &str, method: &str, file: Option<&str>, line: Option<usize>) -> F {
    F {
        class: class.to_owned(),
        method: method.to_owned(),
        file: file.unwrap_or("?").to_owned(),
        line: line.unwrap_or(0),
    }
}

fn show(frames: &[F]) -> String {
    let v: Vec<String> = frames.iter().map(F::to_string).collect();
    format!("{v:?}")
}

/// The crate's frames for a trace: its mapper's or its cache's.
fn crate_frames(
    mapper: Option<&ProguardMapper<'_>>,
    cache: Option<&ProguardCache<'_>>,
    exception: Option<&str>,
    frames: &[In<'_>],
) -> Vec<F> {
    let frames: Vec<StackFrame<'_>> = frames
        .iter()
        .map(|&(c, m, l)| StackFrame::with_file(c, m, l, "SourceFile"))
        .collect();
    let trace = StackTrace::new(exception.map(Throwable::new), frames);
    let out = match (mapper, cache) {
        (Some(m), _) => m.remap_stacktrace_typed(&trace),
        (_, Some(c)) => c.remap_stacktrace_typed(&trace),
        _ => unreachable!(),
    };
    out.frames()
        .iter()
        .map(|f| frame(f.class(), f.method(), f.file(), f.line()))
        .collect()
}

/// One member line of a mapping, as the crate's parser reads it.
#[derive(Clone, Debug)]
struct Member {
    /// The original class (of an inlined method, its own).
    class: String,
    /// The original method name.
    name: String,
    /// The original signature (return type, name, arguments).
    signature: String,
    /// The minified range.
    range: Option<(usize, usize)>,
    /// The original start line.
    original: Option<usize>,
    /// Marked `synthesized` or `outline` (an R8 header after it).
    hidden: bool,
    /// Its `outlineCallsite` map: outline position → position here, sorted.
    callsite: Vec<(usize, usize)>,
}

/// What R8's rules need to know of a mapping, read with the crate's parser.
#[derive(Default)]
struct Facts {
    /// Obfuscated class → original class.
    classes: HashMap<String, String>,
    /// Original class → its `sourceFile` header.
    source_file: HashMap<String, String>,
    /// Original classes marked `synthesized`.
    synthesized_classes: HashSet<String>,
    /// (obfuscated class, obfuscated method) → its member lines, in file order.
    members: HashMap<(String, String), Vec<Member>>,
}

impl Facts {
    fn of(text: &str) -> Self {
        let mut facts = Facts::default();
        // The class or member line the headers after it belong to.
        enum Last {
            None,
            Class(String),
            Member(String, String, usize),
        }
        let mut last = Last::None;
        let mut class: Option<(String, String)> = None;
        for record in ProguardMapping::new(text.as_bytes()).iter().flatten() {
            match record {
                ProguardRecord::Class {
                    original,
                    obfuscated,
                } => {
                    facts
                        .classes
                        .insert(obfuscated.to_owned(), original.to_owned());
                    class = Some((obfuscated.to_owned(), original.to_owned()));
                    last = Last::Class(original.to_owned());
                }
                ProguardRecord::Method {
                    ty,
                    original,
                    obfuscated,
                    arguments,
                    original_class,
                    line_mapping,
                } => {
                    let Some((obf_class, orig_class)) = &class else {
                        continue;
                    };
                    let lines = facts
                        .members
                        .entry((obf_class.clone(), obfuscated.to_owned()))
                        .or_default();
                    let range = line_mapping
                        .as_ref()
                        .and_then(|l| Some((l.startline?, l.endline.or(l.startline)?)));
                    lines.push(Member {
                        class: original_class.unwrap_or(orig_class).to_owned(),
                        name: original.to_owned(),
                        signature: format!("{ty} {original}({arguments})"),
                        range,
                        original: line_mapping.as_ref().and_then(|l| l.original_startline),
                        hidden: false,
                        callsite: Vec::new(),
                    });
                    last = Last::Member(obf_class.clone(), obfuscated.to_owned(), lines.len() - 1);
                }
                // The crate does not export its header type: its debug form names it.
                ProguardRecord::R8Header(header) => {
                    let header = format!("{header:?}");
                    match &last {
                        Last::Class(c) => {
                            if let Some(rest) = header.strip_prefix("SourceFile { file_name: \"") {
                                let name = rest.trim_end_matches("\" }");
                                facts.source_file.insert(c.clone(), name.to_owned());
                            } else if header == "Synthesized" {
                                facts.synthesized_classes.insert(c.clone());
                            }
                        }
                        Last::Member(c, m, i) => {
                            let Some(lines) = facts.members.get_mut(&(c.clone(), m.clone())) else {
                                continue;
                            };
                            if header == "Synthesized" || header == "Outline" {
                                lines[*i].hidden = true;
                            } else if let Some(rest) =
                                header.strip_prefix("OutlineCallsite { positions: {")
                            {
                                // `{"1": 50, "3": 52}`, in the map's debug form.
                                let map = rest.split('}').next().unwrap_or("");
                                let mut pairs: Vec<(usize, usize)> = map
                                    .split(',')
                                    .filter_map(|kv| {
                                        let (k, v) = kv.split_once(':')?;
                                        let k = k.trim().trim_matches('"').parse().ok()?;
                                        Some((k, v.trim().parse().ok()?))
                                    })
                                    .collect();
                                pairs.sort_unstable();
                                lines[*i].callsite = pairs;
                            }
                        }
                        Last::None => {}
                    }
                }
                _ => {}
            }
        }
        facts
    }

    /// Whether R8 hides a frame of `class`.`method` reached through obfuscated `key`: the
    /// class is synthesized, or a line of the method (by signature) is marked synthesized
    /// or outline (R8 keeps the mark on the method, all its lines).
    fn hidden(&self, key: &(String, String), class: &str, method: &str) -> bool {
        if self.synthesized_classes.contains(class) {
            return true;
        }
        let Some(lines) = self.members.get(key) else {
            return false;
        };
        let marked: HashSet<&str> = lines
            .iter()
            .filter(|l| l.hidden)
            .map(|l| l.signature.as_str())
            .collect();
        lines
            .iter()
            .any(|l| l.class == class && l.name == method && marked.contains(l.signature.as_str()))
    }

    /// The file R8 names for a frame of original class `class` (`RetraceUtils.inferSourceFile`):
    /// its `sourceFile`, else the outer class's simple name (cut at its first `$` past the
    /// start), a Kotlin facade `…Kt` as `….kt`, any other with `.java` (the printed frames
    /// here say `SourceFile`, which has no extension of its own).
    fn file_of(&self, class: &str) -> String {
        if let Some(f) = self.source_file.get(class) {
            return f.clone();
        }
        let simple = class.rsplit('.').next().unwrap_or(class);
        let outer = match simple.find('$') {
            Some(i) if i > 0 => &simple[..i],
            _ => simple,
        };
        match outer.strip_suffix("Kt") {
            Some(base) => format!("{base}.kt"),
            None => format!("{outer}.java"),
        }
    }
}

/// One of R8's rules under which its retrace answers a frame otherwise than the crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rule {
    /// The file is the class's `sourceFile` header, else the outer class's name: R8's
    /// `RetraceUtils.inferSourceFile` (`InlineSourceFileStackTrace`,
    /// `SourceFileNameSynthesizeStackTrace`); the crate takes the extension from the printed
    /// frame and cuts a name like `$r8$twr$utility` to nothing.
    SourceFile,
    /// Candidates (the inline chains of the lines that hold the position, one per minified
    /// range) are printed once each, sorted by their top frame: `RetraceFrameResultImpl`
    /// keeps them in a sorted set (`AmbiguousWithMultipleLineMappingsStackTrace`,
    /// `AmbiguousStackTrace`); the crate prints each chain in file order, repeats included.
    Candidates,
    /// An outermost frame of a method or class R8 marked `synthesized` or `outline` is
    /// hidden, and a candidate left empty is dropped: `RetraceStackTraceContextImpl` /
    /// `isCompilerSynthesized` (`SyntheticLambdaMethodStackTrace`, `OutlineSimpleStackTrace`);
    /// the crate prints it.
    HiddenFrame,
    /// A line no minified range holds: R8's `RetraceMethodResultImpl.narrowByPosition` falls
    /// back to the method's lines without a range (each with its original line, else the
    /// printed one), sorted; with none, the class alone with the method and line as printed
    /// (`AmbiguousMissingLineStackTrace`, `OutsideLineRangeStackTraceTest`); the crate
    /// keeps the class alone, or answers a preamble line.
    NoRangeHoldsLine,
    /// A frame without a line: `narrowByPosition` looks up position 0, taking each
    /// candidate's chain whose range holds 0, else its first line without a range, else (none
    /// has either) each candidate method without a line; several are printed without a line,
    /// sorted (`SingleLineNoLineNumberStackTrace`, `PreambleLineNumberStackTrace`,
    /// `AmbiguousStackTrace`); the crate picks one, or says line 0 where a range holds 0.
    NoPosition,
    /// A member with no original line keeps the printed line
    /// (`NoObfuscationRangeMappingWithStackTrace`); the crate says 0.
    PrintedLine,
    /// An outline's caller is looked up through the `outlineCallsite` map of the last
    /// (outermost) line holding its position (`RetraceMethodResultImpl.narrowByPosition`:
    /// `ListUtils.last(mappedRangesForPosition).getOutlineCallsiteInformation()`); the crate
    /// takes the first such line's map.
    OutlineCallsite,
}

/// The member lines of one name cut into candidates, as R8 groups them: inline chains
/// (consecutive lines with one minified range; a line without one is a chain of its own),
/// and consecutive chains whose outermost method is the same form one candidate method.
fn partitions(members: &[Member]) -> Vec<Vec<std::ops::Range<usize>>> {
    let mut chains = Vec::new();
    let mut k = 0;
    while k < members.len() {
        let mut end = k + 1;
        while end < members.len()
            && members[k].range.is_some()
            && members[end].range == members[k].range
        {
            end += 1;
        }
        chains.push(k..end);
        k = end;
    }
    let mut parts: Vec<Vec<std::ops::Range<usize>>> = Vec::new();
    for chain in chains {
        let outer = &members[chain.end - 1].signature;
        let class = &members[chain.end - 1].class;
        match parts.last_mut() {
            Some(p)
                if members[p[0].end - 1].signature == *outer
                    && members[p[0].end - 1].class == *class =>
            {
                p.push(chain)
            }
            _ => parts.push(vec![chain]),
        }
    }
    parts
}

/// R8's answer for one frame `probe` (looked up at its line; `printed` is the line the
/// frame printed, which differs for an outline's caller), from the crate's `answer` and the
/// rules that correct it; with the rules that applied.
fn r8_answer(
    answer: &[F],
    probe: In<'_>,
    printed: usize,
    facts: &Facts,
) -> (Vec<F>, BTreeSet<Rule>) {
    let (c, m, line) = probe;
    let mut rules = BTreeSet::new();
    let key = (c.to_owned(), m.to_owned());
    let Some(members) = facts.members.get(&key) else {
        // Not in the mapping (or only its class): the crate's answer stands, files as R8.
        return (files_as_r8(answer.to_vec(), facts, &mut rules), rules);
    };
    let class = facts
        .classes
        .get(c)
        .cloned()
        .unwrap_or_else(|| c.to_owned());
    let at = |l: &Member, line: usize| F {
        class: l.class.clone(),
        method: l.name.clone(),
        file: facts.file_of(&l.class),
        line,
    };
    if line == 0 {
        let out = no_position(members, facts, &key);
        if out.as_slice() != answer {
            rules.insert(Rule::NoPosition);
        }
        return (out, rules);
    }
    let holds = |l: &Member| l.range.is_some_and(|(s, e)| s <= line && line <= e);
    if !members.iter().any(holds) {
        let mut out: Vec<F> = members
            .iter()
            .filter(|l| l.range.is_none())
            .filter(|l| !facts.hidden(&key, &l.class, &l.name))
            .map(|l| at(l, l.original.unwrap_or(printed)))
            .collect();
        if out.is_empty() {
            out.push(F {
                class: class.clone(),
                method: m.to_owned(),
                file: facts.file_of(&class),
                line: printed,
            });
        }
        out.sort();
        out.dedup();
        if out.as_slice() != answer {
            rules.insert(Rule::NoRangeHoldsLine);
        }
        return (out, rules);
    }
    let answer = files_as_r8(answer.to_vec(), facts, &mut rules);
    // The crate's frames cut into the chains that hold the line (file order).
    let chains: Vec<std::ops::Range<usize>> = partitions(members)
        .into_iter()
        .flatten()
        .filter(|r| holds(&members[r.start]))
        .collect();
    let lengths: Vec<usize> = chains.iter().map(|r| r.len()).collect();
    if lengths.iter().sum::<usize>() != answer.len() {
        // Not the crate's shape R8's rules speak of: its answer must stand as it is.
        return (answer, rules);
    }
    let mut candidates: Vec<(Vec<F>, std::ops::Range<usize>)> = Vec::new();
    let mut rest = answer.as_slice();
    for r in chains {
        let (chain, more) = rest.split_at(r.len());
        rest = more;
        candidates.push((chain.to_vec(), r));
    }
    for (chain, r) in &mut candidates {
        // Members without an original line keep the printed one.
        for (f, l) in chain.iter_mut().zip(&members[r.clone()]) {
            if f.line == 0 && l.original.is_none() {
                f.line = printed;
                rules.insert(Rule::PrintedLine);
            }
        }
        if chain
            .last()
            .is_some_and(|f| facts.hidden(&key, &f.class, &f.method))
        {
            chain.pop();
            rules.insert(Rule::HiddenFrame);
        }
    }
    candidates.retain(|(chain, _)| !chain.is_empty());
    let before: Vec<Vec<F>> = candidates.iter().map(|(c, _)| c.clone()).collect();
    let mut seen = HashSet::new();
    candidates.retain(|(chain, _)| seen.insert(chain[0].clone()));
    candidates.sort_by(|a, b| a.0[0].cmp(&b.0[0]));
    let after: Vec<Vec<F>> = candidates.into_iter().map(|(c, _)| c).collect();
    if after != before {
        rules.insert(Rule::Candidates);
    }
    (after.into_iter().flatten().collect(), rules)
}

/// Frames with R8's file names ([`Rule::SourceFile`]).
fn files_as_r8(mut frames: Vec<F>, facts: &Facts, rules: &mut BTreeSet<Rule>) -> Vec<F> {
    for f in &mut frames {
        let file = facts.file_of(&f.class);
        if f.file != file && f.file != "Native Method" {
            f.file = file;
            rules.insert(Rule::SourceFile);
        }
    }
    frames
}

/// R8's answer for a frame without a line ([`Rule::NoPosition`]).
fn no_position(members: &[Member], facts: &Facts, key: &(String, String)) -> Vec<F> {
    let parts = partitions(members);
    let frame_of = |l: &Member, line: usize| F {
        class: l.class.clone(),
        method: l.name.clone(),
        file: facts.file_of(&l.class),
        line,
    };
    // Each candidate's chain whose range holds position 0, else its first line without a
    // range.
    let chosen: Vec<std::ops::Range<usize>> = parts
        .iter()
        .filter_map(|p| {
            p.iter()
                .find(|r| members[r.start].range.is_some_and(|(s, _)| s == 0))
                .or_else(|| p.iter().find(|r| members[r.start].range.is_none()))
                .cloned()
        })
        .collect();
    let mut out: Vec<Vec<F>> = if chosen.is_empty() {
        // Each candidate method, without a line.
        parts
            .iter()
            .map(|p| vec![frame_of(&members[p[0].end - 1], 0)])
            .collect()
    } else {
        chosen
            .iter()
            .map(|r| {
                members[r.clone()]
                    .iter()
                    .map(|l| frame_of(l, l.original.unwrap_or(0)))
                    .collect()
            })
            .collect()
    };
    for chain in &mut out {
        if chain
            .last()
            .is_some_and(|f| facts.hidden(key, &f.class, &f.method))
        {
            chain.pop();
        }
    }
    out.retain(|c| !c.is_empty());
    if out.len() > 1 {
        for f in out.iter_mut().flatten() {
            f.line = 0;
        }
    }
    let mut seen = HashSet::new();
    out.retain(|c| seen.insert(c[0].clone()));
    out.sort_by(|a, b| a[0].cmp(&b[0]));
    out.into_iter().flatten().collect()
}

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
        assert!(
            mismatches.is_empty(),
            "{} of {n} differ:\n{}",
            mismatches.len(),
            mismatches[..mismatches.len().min(8)].join("\n")
        );
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
    assert!(
        mismatches.is_empty(),
        "{} of {n} differ:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(8)].join("\n")
    );
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
