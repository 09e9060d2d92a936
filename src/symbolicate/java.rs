//! Java/Android traces against ProGuard/R8 mappings: picks the mapping, cuts out the classes
//! the trace names, and deobfuscates frames, exception headers and class names in messages.
//!
//! - The mapping: a frame whose source file is R8's `r8-map-id-<id>` picks the mapping with
//!   that `pg_map_id`; otherwise the one holding most of the trace's classes, with a warning
//!   when several fit. A class that appears twice in a mapping is warned about.
//! - A method name ProGuard specialised (`taxRate$cf96df0`: `$` and the 7–8 digit hex hash of
//!   its old descriptor) is shown as the source names it (`taxRate`); synthetic names
//!   (`access$000`, `lambda$main$0`) are kept.
//! - `... N more` is recounted once deobfuscated (the note says `"... 3 more" once
//!   deobfuscated`): inlining changes how many original frames the shared tail holds.

use super::{EachFrame, Resolve, ResultSink, Summary, SymbolSet, unresolved, walk};
use crate::formats::java::{self, throwable_class_range};
use crate::model::{
    FrameStatus, FrameView, Progress, ResolvedLocation, SymbolicatedFrame, Timing, TraceView,
};
use crate::symbols::proguard::{
    ClassOnlyReason, OriginalFrame, Remapped, Signature, StackRemapper, Subset,
};
use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::time::Instant;

/// The note of a frame an R8 outline hides.
pub const OUTLINE_NOTE: &str =
    "an R8 outline: its position is carried into the next frame, which shows the original code";
/// The note of a frame of a method R8 marks synthesized.
pub const SYNTHESIZED_NOTE: &str = "a method the compiler made (R8 marks it synthesized, such as a lambda's class): hidden as retrace hides it";
/// The note of a frame a `rewriteFrame` rule removes.
pub const REWRITE_NOTE: &str =
    "removed by the mapping's rewriteFrame rule for this exception: a frame the compiler added";

/// R8's source-file template that carries the mapping's id into every frame
/// (`--source-file-template r8-map-id-%MAP_ID`).
const MAP_ID_PREFIX: &str = "r8-map-id-";

/// Stack `s`'s (is `Suppressed:`, depth), for [`java::enclosing_stack`]: the depth of its
/// first frame that parsed.
pub fn stack_shape(trace: &dyn TraceView, s: usize) -> (bool, usize) {
    let depth = (0..trace.frame_count(s))
        .filter_map(|f| trace.frame(s, f))
        .find(|f| f.input.is_some())
        .map_or(0, |f| java::frame_depth(f.raw));
    (
        trace.stack_title(s).trim_start().starts_with("Suppressed:"),
        depth,
    )
}

/// `N` of a `... N more` frame.
fn more_count(frame: &FrameView<'_>) -> Option<usize> {
    if !frame.input.as_ref()?.builtin {
        return None;
    }
    java::more_count(frame.raw)
}

/// The class and method of a Java frame's `function` (`pkg.Cls.method`, or a JIT frame's
/// `RET pkg.Cls.method(ARGS)`).
fn class_method<'a>(frame: &FrameView<'a>) -> Option<(&'a str, &'a str)> {
    let function = frame.input.as_ref()?.function?;
    match java::parse_jvm_method(function) {
        Some(m) => Some((m.class, m.method)),
        None => function.rsplit_once('.'),
    }
}

/// The classes a JIT frame's signature names (its return and argument types, arrays as
/// their element class), to be cut out of the mapping with the frames' own classes.
fn signature_classes<'a>(frame: &FrameView<'a>) -> Vec<&'a str> {
    let Some(m) = frame
        .input
        .as_ref()
        .and_then(|i| i.function)
        .and_then(java::parse_jvm_method)
    else {
        return Vec::new();
    };
    std::iter::once(m.returns)
        .chain(m.argument_types())
        .map(|t| t.trim_end_matches("[]"))
        .filter(|t| t.contains('.'))
        .collect()
}

/// Every frame of `trace`, in order.
fn frames(trace: &dyn TraceView) -> impl Iterator<Item = FrameView<'_>> {
    (0..trace.stack_count())
        .flat_map(move |s| (0..trace.frame_count(s)).filter_map(move |f| trace.frame(s, f)))
}

/// Candidates for class names in a header's text, with their byte offsets, in order: dotted
/// identifiers (`com.example.a.b`) anywhere in the message, and in each line the name R8's
/// retrace rewrites there ([`java::r8_line_class`]: `net` in `net::ERR_…`, the class in
/// `[CIRCULAR REFERENCE: a.b]`). Retrace rewrites one name a line; the other dotted names
/// are deobfuscated too (`a.b cannot be cast to a.c`), as a reader of the trace wants.
fn class_tokens(text: &str) -> Vec<(usize, &str)> {
    let is_part = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.';
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (start, is_part(c)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let token = text[s..i].trim_end_matches('.');
                let lead = token.len() - token.trim_start_matches('.').len();
                let token = &token[lead..];
                if token.contains('.') {
                    tokens.push((s + lead, token));
                }
                start = None;
            }
            _ => {}
        }
    }
    let mut at = 0;
    for line in text.split('\n') {
        if let Some(r) = java::r8_line_class(line) {
            let (start, end) = (at + r.start, at + r.end);
            if !tokens.iter().any(|&(s, t)| s < end && start < s + t.len()) {
                tokens.push((start, &text[start..end]));
            }
        }
        at += line.len() + 1;
    }
    tokens.sort_unstable_by_key(|&(s, _)| s);
    tokens
}

/// Picks the mapping for a trace: the one whose `pg_map_id` a frame names
/// (`r8-map-id-…` source files), else the one holding most of the trace's classes.
fn choose_mapping(
    trace: &dyn TraceView,
    symbols: &SymbolSet,
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let ids: BTreeSet<&str> = frames(trace)
        .filter_map(|f| f.input?.file?.strip_prefix(MAP_ID_PREFIX))
        .collect();
    for id in &ids {
        if let Some(i) = symbols.mappings.iter().position(|m| {
            m.mapping
                .map_id()
                .is_some_and(|mid| !mid.is_empty() && (mid.starts_with(id) || id.starts_with(mid)))
        }) {
            return Some(i);
        }
    }
    // Frames' classes, and the class names of headers (retrace maps an exception's class,
    // and names in messages, even when no frame is obfuscated).
    let classes: BTreeSet<&str> = frames(trace)
        .filter_map(|f| class_method(&f).map(|(c, _)| c))
        .chain((0..trace.stack_count()).flat_map(|s| {
            class_tokens(trace.stack_title(s))
                .into_iter()
                .map(|(_, t)| t)
        }))
        .collect();
    let coverage: Vec<usize> = symbols
        .mappings
        .iter()
        .map(|m| classes.iter().filter(|c| m.mapping.has_class(c)).count())
        .collect();
    let (best, &most) = coverage
        .iter()
        .enumerate()
        .max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i)))?;
    if most == 0 {
        return None;
    }
    if let Some(id) = ids.first() {
        warnings.push(format!(
            "no mapping has pg_map_id {id} (named by the frames' source file); using {}, the mapping with most of the trace's classes",
            symbols.mappings[best].name
        ));
    } else if coverage.iter().filter(|&&n| n > 0).count() > 1 {
        let others: Vec<String> = symbols
            .mappings
            .iter()
            .zip(&coverage)
            .enumerate()
            .filter(|&(i, (_, &n))| i != best && n > 0)
            .map(|(_, (m, n))| format!("{} has {n}", m.name))
            .collect();
        warnings.push(format!(
            "several mappings fit this trace and it names no pg_map_id; guessed {}: it has {most} of the trace's {} classes ({})",
            symbols.mappings[best].name,
            classes.len(),
            others.join(", ")
        ));
    }
    Some(best)
}

/// Symbolicates a Java/Android trace.
pub(super) fn symbolicate(
    trace: &dyn TraceView,
    symbols: &SymbolSet,
    progress: &mut dyn Progress,
    sink: &mut dyn ResultSink,
) -> Summary {
    let mut summary = Summary::default();
    let chosen = choose_mapping(trace, symbols, &mut summary.warnings);
    let Some(chosen) = chosen else {
        let note = if symbols.mappings.is_empty() {
            "no ProGuard/R8 mapping: add the build's mapping.txt".to_owned()
        } else {
            "this class is in none of the mappings: the trace may come from another build"
                .to_owned()
        };
        // Every frame unresolved with the same note.
        let mut each = EachFrame(|frame: &FrameView<'_>| match &frame.input {
            None => unparsed(),
            Some(i) if i.builtin => more(),
            Some(_) => unresolved(FrameStatus::NoSymbols, None, note.clone()),
        });
        summary.cancelled = walk(trace, &mut each, progress, "look-up", sink);
        return summary;
    };
    let file = &symbols.mappings[chosen];
    summary.timings.push(Timing {
        name: format!("scan {}", file.name),
        ms: file.parse_ms,
    });
    let mapping = &file.mapping;

    // The classes to cut out: frames' classes, and dotted names in headers and messages.
    if progress.step("class parse", 0, 1) == ControlFlow::Break(()) {
        summary.cancelled = true;
        return summary;
    }
    let start = Instant::now();
    let mut names: BTreeSet<&str> = frames(trace)
        .filter_map(|f| class_method(&f).map(|(c, _)| c))
        .collect();
    names.extend(frames(trace).flat_map(|f| signature_classes(&f)));
    for s in 0..trace.stack_count() {
        names.extend(
            class_tokens(trace.stack_title(s))
                .into_iter()
                .map(|(_, t)| t)
                .filter(|t| mapping.has_class(t)),
        );
    }
    let twice: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| mapping.class_lines(n) > 1)
        .collect();
    if !twice.is_empty() {
        summary.warnings.push(format!(
            "{}: {} appear more than once (concatenated or broken mapping?); their members are merged and the last original name wins",
            file.name,
            twice.join(", ")
        ));
    }
    let subset = mapping.subset(names.iter().copied());
    summary.timings.push(Timing {
        name: format!(
            "class parse ({} classes, {} KB)",
            subset.class_count(),
            subset.text_bytes().div_ceil(1024)
        ),
        ms: start.elapsed().as_secs_f64() * 1e3,
    });

    let start = Instant::now();
    let total = trace.total_frames() as u64;
    let _ = progress.step("remap", 0, total);
    let mut remap = Remap {
        subset: &subset,
        mapping: &file.name,
        shape: (0..trace.stack_count())
            .map(|s| stack_shape(trace, s))
            .collect(),
        seen: Vec::new(),
        remapper: None,
        enclosing: None,
        full: Vec::new(),
    };
    summary.cancelled = walk(trace, &mut remap, progress, "remap", sink);
    summary.timings.push(Timing {
        name: "remap".to_owned(),
        ms: start.elapsed().as_secs_f64() * 1e3,
    });
    summary
}

/// Deobfuscating a trace, stack after stack.
struct Remap<'s> {
    subset: &'s Subset,
    /// The mapping's file name.
    mapping: &'s str,
    /// Each stack's (is `Suppressed:`, depth): a `Caused by:` shares its tail with the last
    /// stack at its depth, a `Suppressed:` block with the last one above its depth.
    shape: Vec<(bool, usize)>,
    /// Per stack so far, how many lines each frame of its full trace (the printed frames,
    /// then the enclosing trace's frames it shares) becomes once deobfuscated.
    seen: Vec<Vec<usize>>,
    /// The current stack's remapper (its throwable declared, for `rewriteFrame` rules).
    remapper: Option<StackRemapper<'s>>,
    /// The stack the current one shares its tail with.
    enclosing: Option<usize>,
    /// The current stack's entry of `seen`, so far.
    full: Vec<usize>,
}

impl Resolve for Remap<'_> {
    fn stack(&mut self, trace: &dyn TraceView, s: usize, sink: &mut dyn ResultSink) {
        self.enclosing = java::enclosing_stack(&self.shape, s);
        let mut remapper = self.subset.stack();
        let title = deobfuscate_title(trace.stack_title(s), &mut remapper);
        self.remapper = Some(remapper);
        sink.stack(&title, trace.stack_crashed(s));
    }

    fn frame(&mut self, frame: &FrameView<'_>, sink: &mut dyn ResultSink) {
        let Some(remapper) = self.remapper.as_mut() else {
            return;
        };
        let mut sym = resolve(frame, remapper, self.mapping);
        match more_count(frame) {
            Some(shared) => {
                let enclosing: &[usize] = self
                    .enclosing
                    .and_then(|i| self.seen.get(i))
                    .map_or(&[], Vec::as_slice);
                let inherited = &enclosing[enclosing.len().saturating_sub(shared)..];
                let lines: usize = inherited.iter().sum();
                sym.note = Some(format!(
                    "\"... {lines} more\" once deobfuscated: the same frames as the enclosing trace's last {shared} (shown above)"
                ));
                self.full.extend_from_slice(inherited);
            }
            None => self.full.push(match sym.status {
                FrameStatus::Resolved => sym.resolved.len(),
                FrameStatus::Skipped => 0,
                _ => 1,
            }),
        }
        sink.frame(sym);
    }

    fn end_stack(&mut self, _sink: &mut dyn ResultSink) {
        self.seen.push(std::mem::take(&mut self.full));
    }
}

/// The header with its throwable's class and any mapped class names in the message
/// deobfuscated; the throwable is declared to the remapper (its `rewriteFrame` rules).
fn deobfuscate_title(title: &str, remapper: &mut StackRemapper<'_>) -> String {
    let mut out = String::with_capacity(title.len());
    // The throwable is the last header line that reads as one (logcat puts
    // `FATAL EXCEPTION: main` and `Process: …` lines before it).
    let throwable_line = title
        .lines()
        .enumerate()
        .filter(|(_, l)| throwable_class_range(l).is_some())
        .map(|(i, _)| i)
        .last();
    for (i, line) in title.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if Some(i) == throwable_line
            && let Some(range) = throwable_class_range(line)
        {
            remapper.throwable(&line[range]);
        }
        let mut last = 0;
        for (at, token) in class_tokens(line) {
            if let Some(original) = remapper.remap_class(token) {
                out.push_str(&line[last..at]);
                out.push_str(&original);
                last = at + token.len();
            }
        }
        out.push_str(&line[last..]);
    }
    out
}

fn unparsed() -> SymbolicatedFrame {
    unresolved(
        FrameStatus::Unparsed,
        None,
        "this line was not understood as a stack frame".to_owned(),
    )
}

fn more() -> SymbolicatedFrame {
    unresolved(
        FrameStatus::Skipped,
        None,
        "these frames are the same as the enclosing trace's last frames (shown above)".to_owned(),
    )
}

/// A method name without ProGuard's specialization suffix: when ProGuard changes a method's
/// parameter types (class merging) it appends `$` and the hex hash of the old descriptor
/// (`taxRate$cf96df0`; `count$134621`: the hash has no leading zeros), and the mapping
/// records that name, while the source and the unobfuscated trace say `taxRate`. Synthetic
/// names (`access$000`, `lambda$main$0`) have shorter or non-hex tails and are kept.
pub(crate) fn source_method_name(method: &str) -> &str {
    match method.rsplit_once('$') {
        Some((base, hash))
            if !base.is_empty()
                && (5..=8).contains(&hash.len())
                && hash
                    .bytes()
                    .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)) =>
        {
            base
        }
        _ => method,
    }
}

/// One chain of original frames as resolved locations (inlined callees first).
fn chain(frames: &[OriginalFrame]) -> Vec<ResolvedLocation> {
    frames
        .iter()
        .enumerate()
        .map(|(i, f)| ResolvedLocation {
            function: Some(format!("{}.{}", f.class, source_method_name(&f.method))),
            file: f.file.clone(),
            line: f.line,
            inlined: i + 1 < frames.len(),
            ..ResolvedLocation::default()
        })
        .collect()
}

fn resolve(
    frame: &FrameView<'_>,
    remapper: &mut StackRemapper<'_>,
    mapping: &str,
) -> SymbolicatedFrame {
    let Some(input) = &frame.input else {
        return unparsed();
    };
    if input.builtin {
        return more();
    }
    let Some((class, method)) = class_method(frame) else {
        return unparsed();
    };
    let symbol_file = Some(mapping.to_owned());
    // The parser reads `(Native Method)` as no file; retrace keeps it as the file.
    let file = if frame.raw.contains("(Native Method)") {
        Some(crate::symbols::proguard::NATIVE_METHOD)
    } else {
        input.file
    };
    let jvm = input.function.and_then(java::parse_jvm_method);
    let arguments: Vec<&str> = jvm.iter().flat_map(|m| m.argument_types()).collect();
    let signature = jvm.map(|m| Signature {
        returns: m.returns,
        arguments: &arguments,
    });
    match remapper.frame_with_signature(class, method, file, input.line, signature) {
        Remapped::NotInMapping => unresolved(
            FrameStatus::NotCovered,
            symbol_file,
            format!(
                "{class} is not in {mapping}: it was not obfuscated (a platform or kept library class)"
            ),
        ),
        Remapped::Outline => unresolved(FrameStatus::Skipped, symbol_file, OUTLINE_NOTE.to_owned()),
        Remapped::Synthesized => unresolved(
            FrameStatus::Skipped,
            symbol_file,
            SYNTHESIZED_NOTE.to_owned(),
        ),
        Remapped::Removed => unresolved(FrameStatus::Skipped, symbol_file, REWRITE_NOTE.to_owned()),
        Remapped::ClassOnly {
            frame: f,
            reason,
            by_name,
        } => {
            let why = match reason {
                ClassOnlyReason::MethodNotInMapping => format!(
                    "only the class is in {mapping}: it has no method {method}, so the name is kept as printed"
                ),
                ClassOnlyReason::SignatureNotInMapping => format!(
                    "no method {method} in {mapping} has this frame's return and argument types (an optimizer may have changed them): only the class is deobfuscated; methods of that name: {}",
                    by_name
                        .iter()
                        .map(|f| source_method_name(&f.method))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                ClassOnlyReason::LineOutsideRanges => format!(
                    "line {} is outside every line range of {method} in {mapping}: only the class is deobfuscated; methods of that name: {}",
                    input.line.unwrap_or(0),
                    by_name
                        .iter()
                        .map(|f| source_method_name(&f.method))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            SymbolicatedFrame {
                status: FrameStatus::Resolved,
                symbol_file,
                generated: None,
                resolved: chain(std::slice::from_ref(&f)),
                // As retrace: only the class; the methods of that name are named in the note.
                alternatives: Vec::new(),
                note: Some(why),
            }
        }
        Remapped::Frames {
            candidates,
            by_line,
        } => {
            let note = (candidates.len() > 1).then(|| {
                if by_line {
                    format!(
                        "{} candidates: several methods named {method} have a line range holding line {}; the mapping cannot tell which ran",
                        candidates.len(),
                        input.line.unwrap_or(0)
                    )
                } else {
                    format!(
                        "{} candidates: the frame has no line number, so {method} is matched by name only",
                        candidates.len()
                    )
                }
            });
            let mut candidates = candidates.into_iter();
            let best = candidates.next().unwrap_or_default();
            SymbolicatedFrame {
                status: FrameStatus::Resolved,
                symbol_file,
                generated: None,
                resolved: chain(&best),
                alternatives: candidates.map(|c| chain(&c)).collect(),
                note,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specialization_suffixes() {
        assert_eq!(source_method_name("taxRate$cf96df0"), "taxRate");
        assert_eq!(source_method_name("getCustomer$1133cc3c"), "getCustomer");
        assert_eq!(source_method_name("count$134621"), "count");
        assert_eq!(source_method_name("access$000"), "access$000");
        assert_eq!(source_method_name("access$1000"), "access$1000");
        assert_eq!(source_method_name("lambda$main$0"), "lambda$main$0");
        assert_eq!(source_method_name("$deadbeef"), "$deadbeef");
    }

    #[test]
    fn tokens_in_messages() {
        let t = class_tokens("Caused by: com.a.b: see a.b.c. and x.y$z, not plain");
        assert_eq!(t, vec![(11, "com.a.b"), (24, "a.b.c"), (35, "x.y$z")]);
        // R8's one name a line: undotted before `::`, inside `[CIRCULAR REFERENCE: …]`.
        let t = class_tokens("x.Y: a: b: net::ERR_CLOSED\n\t[CIRCULAR REFERENCE: A]");
        assert_eq!(t, vec![(0, "x.Y"), (11, "net"), (49, "A")]);
    }
}
