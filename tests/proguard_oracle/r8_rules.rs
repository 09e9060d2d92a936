//! R8's rules where its retrace answers otherwise than the `proguard` crate, each applied to
//! the crate's answer for one frame (see `main.rs`), and the facts of a mapping they need,
//! read with the crate's own parser.

use proguard::{
    ProguardCache, ProguardMapper, ProguardMapping, ProguardRecord, StackFrame, StackTrace,
    Throwable,
};
use std::collections::{BTreeSet, HashMap, HashSet};

/// A frame to remap: obfuscated class, method, line (0: none).
pub(crate) type In<'a> = (&'a str, &'a str, usize);

/// A deobfuscated frame: class, method, file, line (0: none).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct F {
    pub(crate) class: String,
    pub(crate) method: String,
    pub(crate) file: String,
    pub(crate) line: usize,
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

pub(crate) fn frame(class: &str, method: &str, file: Option<&str>, line: Option<usize>) -> F {
    F {
        class: class.to_owned(),
        method: method.to_owned(),
        file: file.unwrap_or("?").to_owned(),
        line: line.unwrap_or(0),
    }
}

pub(crate) fn show(frames: &[F]) -> String {
    let v: Vec<String> = frames.iter().map(F::to_string).collect();
    format!("{v:?}")
}

/// The crate's frames for a trace: its mapper's or its cache's.
pub(crate) fn crate_frames(
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
pub(crate) struct Member {
    /// The original class (of an inlined method, its own).
    pub(crate) class: String,
    /// The original method name.
    pub(crate) name: String,
    /// The original signature (return type, name, arguments).
    pub(crate) signature: String,
    /// The minified range.
    pub(crate) range: Option<(usize, usize)>,
    /// The original start line.
    pub(crate) original: Option<usize>,
    /// Marked `synthesized` or `outline` (an R8 header after it).
    pub(crate) hidden: bool,
    /// Its `outlineCallsite` map: outline position → position here, sorted.
    pub(crate) callsite: Vec<(usize, usize)>,
}

/// What R8's rules need to know of a mapping, read with the crate's parser.
#[derive(Default)]
pub(crate) struct Facts {
    /// Obfuscated class → original class.
    pub(crate) classes: HashMap<String, String>,
    /// Original class → its `sourceFile` header.
    pub(crate) source_file: HashMap<String, String>,
    /// Original classes marked `synthesized`.
    pub(crate) synthesized_classes: HashSet<String>,
    /// (obfuscated class, obfuscated method) → its member lines, in file order.
    pub(crate) members: HashMap<(String, String), Vec<Member>>,
}

impl Facts {
    pub(crate) fn of(text: &str) -> Self {
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
    pub(crate) fn hidden(&self, key: &(String, String), class: &str, method: &str) -> bool {
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
    pub(crate) fn file_of(&self, class: &str) -> String {
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
pub(crate) enum Rule {
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
pub(crate) fn partitions(members: &[Member]) -> Vec<Vec<std::ops::Range<usize>>> {
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
pub(crate) fn r8_answer(
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
pub(crate) fn files_as_r8(mut frames: Vec<F>, facts: &Facts, rules: &mut BTreeSet<Rule>) -> Vec<F> {
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
pub(crate) fn no_position(members: &[Member], facts: &Facts, key: &(String, String)) -> Vec<F> {
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
