//! Which member lines of a mapping answer a frame, grouped into candidate chains, as R8's
//! retrace chooses them (`MappedRangesOfName`, `RetraceMethodResultImpl.narrowByPosition`,
//! `RetraceFrameResultImpl`); the `proguard` crate's remapper differs on these rules, each
//! shown by a reference case in `tests/fixtures/java/r8-retrace`:
//!
//! - **Partitions**: the lines of one obfuscated name, in file order, are cut into inline
//!   units (consecutive lines with the same minified range), and consecutive units whose
//!   outermost original signature is the same form one partition (one candidate method).
//!   Overloads that share a minified range are one unit, so R8 prints them as one chain
//!   (`OverloadSameLineTest`); two inline chains behind one name are two candidates
//!   (`AmbiguousMultipleInlineStackTrace`).
//! - **Position**: in each partition, the first line whose minified range holds the frame's
//!   line and the lines after it with the same range; when no partition has one, the lines
//!   with no minified range. A frame without a line looks up position 0 (`0:0:` lines), else
//!   each partition's first line with no minified range; else each partition's method, with
//!   no line.
//! - **Ambiguous original ranges**: a top frame whose original range is longer than its
//!   minified range and not one line is one candidate per original line when the frame had a
//!   line (`AmbiguousInlineFramesStackTrace`), and gets no line when it had none.
//! - **Synthesized and outlines**: R8 keeps `synthesized` and `outline` on the method (all
//!   lines of its signature), and the outermost frame of a chain whose method has either is
//!   hidden (`ClassWithDashStackTrace`, `SyntheticLambdaMethodStackTrace`).
//! - **Outline callsites**: the frame after an outline is looked up at the position its
//!   `outlineCallsite` map gives for the outline's obfuscated position (the position itself
//!   when the map lacks it), and is an outline again if that lands in one
//!   (`OutlineInOutlineStackTrace`, `InlineInOutlineStackTrace`).

/// A member line of a class block, as far as R8's choice needs it.
#[derive(Clone, Debug)]
pub(super) struct MemberLine {
    /// Minified line range, when the line has one (`12:14:`).
    pub minified: Option<(usize, usize)>,
    /// Original line range (`:40:42`, `:40` as 40..40, none as `None`).
    pub original: Option<(usize, usize)>,
    /// Original class of the method (another class's, for an inlined one).
    pub class: String,
    /// Original method name.
    pub name: String,
    /// The original signature (class, name, return type and arguments), to compare
    /// outermost callers.
    pub signature: String,
    /// Marked `com.android.tools.r8.synthesized`.
    pub synthesized: bool,
    /// Marked `com.android.tools.r8.outline`: the method is an outline, whose caller's
    /// `outlineCallsite` says where in the caller the outlined code was.
    pub outline: bool,
    /// `com.android.tools.r8.outlineCallsite` positions: (position in the outline,
    /// position in this method), sorted.
    pub callsite: Vec<(usize, usize)>,
    /// R8 `rewriteFrame` rules on this line.
    pub rewrites: Vec<Rewrite>,
}

/// An R8 `rewriteFrame` rule: when every condition holds (`throws(Lpkg/Cls;)`), remove
/// this many inner frames of the chain.
#[derive(Clone, Debug)]
pub(super) struct Rewrite {
    /// The conditions, as written.
    pub conditions: Vec<String>,
    /// The sum of the `removeInnerFrames(n)` actions.
    pub remove_inner_frames: usize,
}

/// One frame of a candidate chain: the member line and the original line R8 prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Pick {
    /// Index of the member line.
    pub member: usize,
    /// Original line, when R8 prints one.
    pub line: Option<u32>,
}

/// The end of the inline unit that starts at `i`.
fn unit_end(m: &[MemberLine], i: usize) -> usize {
    let mut j = i;
    while j + 1 < m.len() && m[j].minified.is_some() && m[j].minified == m[j + 1].minified {
        j += 1;
    }
    j + 1
}

/// The partitions of the member lines (index ranges, file order).
fn partitions(m: &[MemberLine]) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut i = 0;
    while i < m.len() {
        let end = unit_end(m, i);
        match out.last_mut() {
            Some(p) if m[p.end - 1].signature == m[end - 1].signature => p.end = end,
            _ => out.push(i..end),
        }
        i = end;
    }
    out
}

/// The lines of partition `p` for a position: the first line whose minified range holds
/// `line` and those after it with the same range (R8's `allRangesForLine`); with
/// `first_unranged`, the first line with no minified range when none holds it.
fn for_line(
    m: &[MemberLine],
    p: std::ops::Range<usize>,
    line: usize,
    first_unranged: bool,
) -> Vec<usize> {
    let mut unranged = None;
    for i in p.clone() {
        match m[i].minified {
            None => {
                if unranged.is_none() && first_unranged {
                    unranged = Some(i);
                }
            }
            Some((s, e)) if s <= line && line <= e => {
                let mut j = i + 1;
                while j < p.end && m[j].minified == m[i].minified {
                    j += 1;
                }
                return (i..j).collect();
            }
            Some(_) => {}
        }
    }
    unranged.into_iter().collect()
}

/// Whether a line's original range is longer than its minified one and not one line: the
/// obfuscated line cannot say which original line ran.
fn ambiguous_original(m: &MemberLine) -> bool {
    match (m.original, m.minified) {
        (Some((s, e)), _) if e <= s => false,
        (Some((s, e)), Some((ms, me))) => e - s != me - ms,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// The original line of member `m` at obfuscated `line` (`None`: no position).
fn original_line(m: &MemberLine, line: Option<usize>) -> Option<u32> {
    // A minified range with no original one maps each line to itself.
    let Some((s, e)) = m.original else {
        return line
            .filter(|_| m.minified.is_some())
            .and_then(|l| u32::try_from(l).ok());
    };
    let at = match (line, m.minified) {
        (Some(l), Some((ms, me))) if e > s && e - s == me - ms && (ms..=me).contains(&l) => {
            s + (l - ms)
        }
        _ => s,
    };
    u32::try_from(at).ok().filter(|&l| l > 0)
}

/// Whether a frame without a line gets its methods alone, with none of their lines: no line
/// has no minified range and none holds position 0 (R8's `narrowByPosition` then keeps each
/// member naming with `MappedRangesOfName.empty()`), so nothing a line carries, such as a
/// `rewriteFrame` rule, applies.
pub(super) fn method_only(m: &[MemberLine], line: Option<u32>) -> bool {
    line.is_none_or(|l| l == 0)
        && !m
            .iter()
            .any(|l| l.minified.is_none_or(|(start, _)| start == 0))
}

/// The candidate chains (innermost first) for a frame of one obfuscated name, in R8's order
/// before its sort; `None` when no member line answers the position (only the class is
/// known).
pub(super) fn candidates(m: &[MemberLine], line: Option<u32>) -> Option<Vec<Vec<Pick>>> {
    if m.is_empty() {
        return None;
    }
    let parts = partitions(m);
    let line = line.map(|l| l as usize).filter(|&l| l > 0);
    let mut chosen: Vec<Vec<usize>> = match line {
        Some(l) => {
            let mut c: Vec<Vec<usize>> = parts
                .iter()
                .map(|p| for_line(m, p.clone(), l, false))
                .collect();
            if c.iter().all(Vec::is_empty) {
                c = parts
                    .iter()
                    .map(|p| p.clone().filter(|&i| m[i].minified.is_none()).collect())
                    .collect();
            }
            c
        }
        None => parts
            .iter()
            .map(|p| for_line(m, p.clone(), 0, true))
            .collect(),
    };
    if chosen.iter().all(Vec::is_empty) {
        if line.is_some() {
            return None;
        }
        // No position at all: each partition's method, with no line.
        return Some(
            parts
                .iter()
                .map(|p| {
                    vec![Pick {
                        member: p.end - 1,
                        line: None,
                    }]
                })
                .collect(),
        );
    }
    chosen.retain(|c| !c.is_empty());
    // Each chosen set splits into chains: consecutive lines with the same minified range;
    // a line with none is a chain of its own.
    let mut chains: Vec<Vec<usize>> = Vec::new();
    for set in &chosen {
        let mut current: Vec<usize> = Vec::new();
        for &i in set {
            let continues = current
                .last()
                .is_some_and(|&p| m[p].minified.is_some() && m[p].minified == m[i].minified);
            if !continues && !current.is_empty() {
                chains.push(std::mem::take(&mut current));
            }
            current.push(i);
        }
        if !current.is_empty() {
            chains.push(current);
        }
    }
    let several = chains.len() > 1;
    let mut out = Vec::new();
    for chain in chains {
        let top = &m[chain[0]];
        let expand = ambiguous_original(top);
        let outer: Vec<Pick> = chain[1..]
            .iter()
            .map(|&i| Pick {
                member: i,
                line: original_line(&m[i], line).filter(|_| line.is_some() || !expand),
            })
            .collect();
        let mut picks: Vec<Vec<Pick>> = match (expand, line, top.original) {
            (true, Some(_), Some((s, e))) => (s..=e)
                .map(|l| {
                    vec![Pick {
                        member: chain[0],
                        line: u32::try_from(l).ok().filter(|&l| l > 0),
                    }]
                })
                .collect(),
            (true, _, _) => vec![vec![Pick {
                member: chain[0],
                line: None,
            }]],
            (false, _, _) => vec![vec![Pick {
                member: chain[0],
                line: original_line(top, line),
            }]],
        };
        for p in &mut picks {
            p.extend_from_slice(&outer);
        }
        out.extend(picks);
    }
    // A frame with a line keeps it where the mapping has no original line at all
    // (retrace's default); an original `:0` means no line.
    if let Some(l) = line.and_then(|l| u32::try_from(l).ok()) {
        for p in out.iter_mut().flatten() {
            if m[p.member].original.is_none() {
                p.line.get_or_insert(l);
            }
        }
    }
    // Without a line, several candidates have no position to tell them apart.
    if line.is_none() && several {
        for c in &mut out {
            for p in c {
                p.line = None;
            }
        }
    }
    Some(out)
}

/// Marks every line of a method `synthesized` or `outline` when any of its lines is (the
/// lines of one obfuscated name; a method is its original signature).
pub(super) fn share_method_flags(m: &mut [MemberLine]) {
    if !m.iter().any(|l| l.synthesized || l.outline) {
        return;
    }
    for i in 0..m.len() {
        if m[i].synthesized || m[i].outline {
            let (synthesized, outline) = (m[i].synthesized, m[i].outline);
            for j in 0..m.len() {
                if m[j].signature == m[i].signature {
                    m[j].synthesized |= synthesized;
                    m[j].outline |= outline;
                }
            }
        }
    }
}

/// The position an outline's caller was at: `outline` is the obfuscated position in the
/// outline (the frame before), `line` the caller's printed line, whose member lines carry
/// the `outlineCallsite` map (R8: a position the map lacks stays as it is). `None` when no
/// line answering `line` is a callsite.
pub(super) fn callsite_position(m: &[MemberLine], line: u32, outline: usize) -> Option<u32> {
    let parts = partitions(m);
    parts.into_iter().find_map(|p| {
        let last = *for_line(m, p, line as usize, false).last()?;
        if m[last].callsite.is_empty() {
            return None;
        }
        let at = m[last]
            .callsite
            .binary_search_by_key(&outline, |&(from, _)| from)
            .map_or(outline, |i| m[last].callsite[i].1);
        u32::try_from(at).ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(
        minified: Option<(usize, usize)>,
        original: Option<(usize, usize)>,
        name: &str,
    ) -> MemberLine {
        MemberLine {
            minified,
            original,
            class: "C".to_owned(),
            name: name.to_owned(),
            signature: format!("C.{name}()"),
            synthesized: false,
            outline: false,
            callsite: Vec::new(),
            rewrites: Vec::new(),
        }
    }

    fn names(m: &[MemberLine], c: &[Vec<Pick>]) -> Vec<Vec<String>> {
        c.iter()
            .map(|chain| {
                chain
                    .iter()
                    .map(|p| format!("{}:{}", m[p.member].name, p.line.unwrap_or(0)))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn two_inline_chains_behind_one_name() {
        let m = vec![
            member(Some((10, 10)), Some((10, 10)), "inlinee1"),
            member(Some((10, 10)), Some((10, 10)), "foo"),
            member(Some((11, 12)), Some((11, 12)), "foo"),
            member(Some((10, 10)), Some((20, 20)), "inlinee2"),
            member(Some((10, 10)), Some((42, 42)), "bar"),
        ];
        let c = candidates(&m, Some(10)).unwrap();
        assert_eq!(
            names(&m, &c),
            vec![vec!["inlinee1:10", "foo:10"], vec!["inlinee2:20", "bar:42"]]
        );
        assert_eq!(
            names(&m, &candidates(&m, Some(12)).unwrap()),
            vec![vec!["foo:12"]]
        );
        assert!(candidates(&m, Some(99)).is_none());
    }

    #[test]
    fn ambiguous_original_range_and_no_line() {
        let m = vec![
            member(Some((1, 1)), Some((42, 44)), "foo"),
            member(Some((1, 1)), Some((32, 32)), "bar"),
        ];
        let c = candidates(&m, Some(1)).unwrap();
        assert_eq!(
            names(&m, &c),
            vec![
                vec!["foo:42", "bar:32"],
                vec!["foo:43", "bar:32"],
                vec!["foo:44", "bar:32"]
            ]
        );
        // No line: `0:0:` lines, else the first line with no minified range.
        let m = vec![
            member(Some((0, 0)), Some((42, 42)), "method1"),
            member(Some((0, 0)), Some((28, 28)), "main"),
            member(Some((1, 1)), Some((153, 153)), "main"),
        ];
        assert_eq!(
            names(&m, &candidates(&m, None).unwrap()),
            vec![vec!["method1:42", "main:28"]]
        );
    }
}
