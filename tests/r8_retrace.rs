//! R8's own retrace reference cases (`tests/fixtures/java/r8-retrace`, extracted from R8's
//! `RetraceTests` by `extract.py`): each pairs a mapping, an obfuscated trace and the text
//! R8's retrace prints. Symscope deobfuscates the trace on the engine's route, and its answer
//! is printed back the way retrace prints one (alternatives joined line by line with `<OR>`,
//! the text around each frame kept); the text must equal R8's, title lines included.
//!
//! Every case must agree, the experimental ones (outlines, synthesized lambdas, inlined null
//! checks) included.

mod common;

use std::collections::{BTreeMap, HashSet};
use symscope::model::{FrameStatus, ResolvedLocation, SymbolicatedTrace, Trace};

const DIR: &str = "java/r8-retrace";

/// One original location as retrace prints it in place of the obfuscated one.
fn location(loc: &ResolvedLocation) -> String {
    let function = loc.function.as_deref().unwrap_or("?");
    match (loc.file.as_deref(), loc.line) {
        (Some(f), Some(l)) => format!("{function}({f}:{l})"),
        (Some(f), None) => format!("{function}({f})"),
        (None, Some(l)) => format!("{function}(Unknown Source:{l})"),
        (None, None) => format!("{function}(Unknown Source)"),
    }
}

/// R8's `joinAmbiguousLines`: line `i` of every candidate in turn, each printed once, the
/// candidates after the first marked `<OR>` after the line's indentation.
fn join_ambiguous(candidates: &[Vec<String>]) -> Vec<String> {
    let mut out = Vec::new();
    let longest = candidates.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        let mut seen = HashSet::new();
        for (k, chain) in candidates.iter().enumerate() {
            let Some(line) = chain.get(i) else { continue };
            if !seen.insert(line.clone()) {
                continue;
            }
            if k == 0 {
                out.push(line.clone());
            } else {
                let indent = line.len() - line.trim_start().len();
                out.push(format!("{}<OR> {}", &line[..indent], &line[indent..]));
            }
        }
    }
    out
}

/// The trace as retrace would print Symscope's answer.
fn render(text: &str, trace: &Trace, result: &SymbolicatedTrace) -> Vec<String> {
    let mut lines: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (stack, sym) in trace.stacks.iter().zip(&result.stacks) {
        if stack.title_line > 0 {
            let raw_lines: Vec<&str> = text.lines().collect();
            for (k, (obf, l)) in stack
                .title
                .split('\n')
                .zip(sym.title.split('\n'))
                .enumerate()
            {
                // The header's text is read without its logcat prefix; retrace keeps it.
                let n = stack.title_line + k;
                let raw = raw_lines.get(n - 1).copied().unwrap_or("");
                let line = match raw.find(obf) {
                    Some(at) if !obf.is_empty() => {
                        format!("{}{l}{}", &raw[..at], &raw[at + obf.len()..])
                    }
                    _ => l.to_owned(),
                };
                lines.insert(n, vec![line]);
            }
        }
        for (frame, s) in stack.frames.iter().zip(&sym.frames) {
            let raw = &frame.raw;
            let out = match (&frame.input, s.status) {
                (Some(input), FrameStatus::Resolved) if !input.builtin => {
                    let at = raw.find("at ").map_or(0, |i| i + 3);
                    let close = raw.rfind(')').map_or(raw.len(), |i| i + 1);
                    // Retrace keeps a class loader or module before the class.
                    let head = match &input.module {
                        Some(m) => format!("{}{m}/", &raw[..at]),
                        None => raw[..at].to_owned(),
                    };
                    let tail = &raw[close..];
                    let chains: Vec<Vec<String>> = std::iter::once(&s.resolved)
                        .chain(&s.alternatives)
                        .map(|c| {
                            c.iter()
                                .map(|l| format!("{head}{}{tail}", location(l)))
                                .collect()
                        })
                        .collect();
                    join_ambiguous(&chains)
                }
                // A frame the mapping removes (a rewrite rule, an outline) is not printed.
                (Some(input), FrameStatus::Skipped) if !input.builtin => Vec::new(),
                _ => vec![raw.clone()],
            };
            lines.insert(frame.line_no, out);
        }
    }
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        match lines.remove(&(i + 1)) {
            Some(l) => out.extend(l),
            None => out.push(raw.to_owned()),
        }
    }
    out
}

/// Symscope's retrace of one case, as text.
fn retrace(case: &str) -> (Vec<String>, Vec<String>) {
    let dir = common::fixture(DIR).join(case);
    let text = std::fs::read_to_string(dir.join("obfuscated.txt")).unwrap();
    // Detected as a user's log is (the CLI and the window read it this way).
    let trace = symscope::formats::parse_text(&text);
    let symbols = common::symbols(&[dir.join("mapping.txt")]);
    let result = common::symbolicate(&trace, &symbols, None);
    let expected = std::fs::read_to_string(dir.join("retraced.txt")).unwrap();
    (
        render(&text, &trace, &result),
        expected.lines().map(str::to_owned).collect(),
    )
}

#[test]
fn every_r8_reference_case() {
    let cases = std::fs::read_to_string(common::fixture(DIR).join("cases.txt")).unwrap();
    let mut failed = Vec::new();
    let mut checked = 0;
    for line in cases.lines() {
        let (case, kind) = line.split_once(' ').unwrap();
        let (ours, expected) = retrace(case);
        checked += 1;
        if ours != expected {
            failed.push(format!(
                "{case} ({kind}):\n  expected:\n    {}\n  ours:\n    {}",
                expected.join("\n    "),
                ours.join("\n    ")
            ));
        }
    }
    assert!(checked >= 60, "only {checked} cases");
    assert!(
        failed.is_empty(),
        "{} of {checked} cases differ from R8:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
