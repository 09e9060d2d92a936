//! Two symbolicated stacks side by side, frames aligned by Myers' diff (`similar`) of their
//! frames by function and file (a resolved frame by the function it runs in, the last
//! entry of its inline chain; an unresolved one as [`super::signature`] takes it), so a frame
//! only one stack has stands out, and the frames both have are compared for what else
//! differs: the line, the inline chain, the status.
//!
//! Addresses, load bases, messages and line prefixes are not compared: two variants of one
//! crash differ only in their titles.

use super::table::{FrameRef, FrameTable};
use crate::model::FrameStatus;

/// What differs between two aligned frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Change {
    /// The same function at another line.
    Line,
    /// Other functions inlined into it.
    Inline,
    /// Resolved in one, not in the other (or not alike).
    Status,
}

impl Change {
    /// The name the CLI's JSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Line => "line",
            Self::Inline => "inline",
            Self::Status => "status",
        }
    }
}

/// One row of the aligned stacks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The frame of stack A (index in the stack), if the row has one.
    pub a: Option<usize>,
    /// The frame of stack B.
    pub b: Option<usize>,
    /// What differs between the two (empty: the same frame; always empty for a frame only
    /// one stack has).
    pub changes: Vec<Change>,
}

impl Row {
    /// `same` | `changed` | `only_a` | `only_b`.
    pub fn kind(&self) -> &'static str {
        match (self.a, self.b) {
            (Some(_), None) => "only_a",
            (None, Some(_)) => "only_b",
            _ if self.changes.is_empty() => "same",
            _ => "changed",
        }
    }
}

/// Two stacks aligned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackDiff {
    /// The stack of A compared (its signed stack: the crashed one).
    pub stack_a: usize,
    /// The stack of B compared.
    pub stack_b: usize,
    /// Whether their titles (exception lines) differ.
    pub title_changed: bool,
    /// The rows, innermost first.
    pub rows: Vec<Row>,
}

impl StackDiff {
    /// Rows of each kind: same, changed, only in A, only in B.
    pub fn counts(&self) -> [usize; 4] {
        let mut c = [0; 4];
        for r in &self.rows {
            let i = match r.kind() {
                "same" => 0,
                "changed" => 1,
                "only_a" => 2,
                _ => 3,
            };
            c[i] += 1;
        }
        c
    }
}

/// Compares the signed (crashed) stacks of two tables.
pub fn diff_logs(a: &FrameTable, b: &FrameTable) -> StackDiff {
    let sa = super::signature::signed_stack(a).unwrap_or(0);
    let sb = super::signature::signed_stack(b).unwrap_or(0);
    diff(a, sa, b, sb)
}

/// The stack of `t` to compare: stack `Some(i)`, or the signed (crashed) one for `None`.
pub fn pick_stack(t: &FrameTable, stack: Option<usize>) -> Result<usize, super::Reason> {
    match stack {
        None => Ok(super::signature::signed_stack(t).unwrap_or(0)),
        Some(i) if i < t.stack_count() => Ok(i),
        Some(i) => Err(super::Reason::NoStack {
            stack: i,
            count: t.stack_count(),
        }),
    }
}

/// Compares stack `sa` of `a` with stack `sb` of `b`.
pub fn diff(a: &FrameTable, sa: usize, b: &FrameTable, sb: usize) -> StackDiff {
    let keys = |t: &FrameTable, s: usize| -> Vec<Key> {
        (0..t.stack_len(s))
            .map(|f| t.frame(s, f).map(|fr| key(&fr)).unwrap_or_default())
            .collect()
    };
    let (ka, kb) = (keys(a, sa), keys(b, sb));
    let mut out = StackDiff {
        stack_a: sa,
        stack_b: sb,
        title_changed: a.stack_title(sa) != b.stack_title(sb),
        rows: Vec::new(),
    };
    for (i, j) in align(&ka, &kb) {
        let changes = match (i, j) {
            (Some(i), Some(j)) => changes(&a.frame(sa, i), &b.frame(sb, j)),
            _ => Vec::new(),
        };
        out.rows.push(Row {
            a: i,
            b: j,
            changes,
        });
    }
    out
}

/// A frame as aligned: function and file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    function: String,
    file: String,
}

fn key(frame: &FrameRef<'_>) -> Key {
    if frame.status() == Some(FrameStatus::Resolved)
        && let Some(outer) = frame.locations().last()
    {
        return Key {
            function: outer.function.or(outer.token_name).unwrap_or("").to_owned(),
            file: outer.file.unwrap_or("").to_owned(),
        };
    }
    match frame.input() {
        Some(input) => Key {
            function: input.function.unwrap_or("").trim().to_owned(),
            file: crate::symbolicate::basename(input.module.or(input.file).unwrap_or(""))
                .to_owned(),
        },
        // Not understood: the line itself, trimmed.
        None => Key {
            function: frame.raw().trim().to_owned(),
            file: String::new(),
        },
    }
}

fn changes(a: &Option<FrameRef<'_>>, b: &Option<FrameRef<'_>>) -> Vec<Change> {
    let (Some(a), Some(b)) = (a, b) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if a.status() != b.status() {
        out.push(Change::Status);
    }
    let line = |f: &FrameRef<'_>| {
        if f.status() == Some(FrameStatus::Resolved) {
            f.locations().last().and_then(|l| l.line)
        } else {
            f.input().and_then(|i| i.line)
        }
    };
    if line(a) != line(b) {
        out.push(Change::Line);
    }
    let inlined = |f: &FrameRef<'_>| -> Vec<(Option<String>, Option<String>, Option<u32>)> {
        let locs: Vec<_> = f.locations().collect();
        locs.iter()
            .take(locs.len().saturating_sub(1))
            .map(|l| {
                (
                    l.function.map(str::to_owned),
                    l.file.map(str::to_owned),
                    l.line,
                )
            })
            .collect()
    };
    if inlined(a) != inlined(b) {
        out.push(Change::Inline);
    }
    out
}

/// How long the alignment of two stacks may take before `similar` settles for a coarser
/// (still correct, just less minimal) alignment: only two huge stacks with little in
/// common come near it.
const ALIGN_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// `a` and `b` aligned by Myers' diff (`similar`): a pair of indices for a common element,
/// one side only for the others (A's before B's between two common elements), in order.
fn align<T: Eq + std::hash::Hash + Ord>(a: &[T], b: &[T]) -> Vec<(Option<usize>, Option<usize>)> {
    let deadline = std::time::Instant::now() + ALIGN_DEADLINE;
    let ops =
        similar::capture_diff_slices_deadline(similar::Algorithm::Myers, a, b, Some(deadline));
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    // The frames of each side since the last common one.
    let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
    for op in ops {
        match op {
            similar::DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                out.extend(only_a.drain(..).map(|i| (Some(i), None)));
                out.extend(only_b.drain(..).map(|j| (None, Some(j))));
                out.extend((0..len).map(|k| (Some(old_index + k), Some(new_index + k))));
            }
            other => {
                only_a.extend(other.old_range());
                only_b.extend(other.new_range());
            }
        }
    }
    out.extend(only_a.into_iter().map(|i| (Some(i), None)));
    out.extend(only_b.into_iter().map(|j| (None, Some(j))));
    out
}

#[cfg(test)]
mod tests {
    use super::align;

    #[test]
    fn aligns_by_longest_common_subsequence() {
        let a = ["f", "g", "h", "k"];
        let b = ["f", "x", "h", "k", "m"];
        assert_eq!(
            align(&a, &b),
            vec![
                (Some(0), Some(0)),
                (Some(1), None),
                (None, Some(1)),
                (Some(2), Some(2)),
                (Some(3), Some(3)),
                (None, Some(4)),
            ]
        );
        // Equal stacks: every row paired; disjoint: every frame on its own.
        assert!(align(&a, &a).iter().all(|(x, y)| x.is_some() && x == y));
        let c = ["p", "q"];
        assert_eq!(
            align(&a, &c)
                .iter()
                .filter(|(x, y)| x.is_some() && y.is_some())
                .count(),
            0
        );
        // A long common run around a change (a stack overflow) aligns its ends.
        let long_a: Vec<u32> = (0..5000)
            .map(|i| i % 3)
            .chain([7])
            .chain((0..5000).map(|i| i % 3))
            .collect();
        let long_b: Vec<u32> = (0..5000)
            .map(|i| i % 3)
            .chain([8])
            .chain((0..5000).map(|i| i % 3))
            .collect();
        let rows = align(&long_a, &long_b);
        assert_eq!(rows.len(), 10_002);
        assert_eq!(
            rows.iter()
                .filter(|(x, y)| x.is_some() && y.is_some())
                .count(),
            10_000
        );
        // Past 2^24 cells (a table of 64 MB) the old table gave up aligning the middle:
        // two 6,000-frame stacks with a frame changed every 1,000 still align.
        let big_a: Vec<u32> = (0..6_000).collect();
        let big_b: Vec<u32> = (0..6_000)
            .map(|i| if i % 1_000 == 500 { 100_000 + i } else { i })
            .collect();
        let rows = align(&big_a, &big_b);
        let pairs = rows
            .iter()
            .filter(|(x, y)| x.is_some() && y.is_some())
            .count();
        assert_eq!((rows.len(), pairs), (6_006, 5_994));
        assert!(
            rows.iter()
                .all(|(x, y)| x.is_none() || y.is_none() || x == y)
        );
    }
}
