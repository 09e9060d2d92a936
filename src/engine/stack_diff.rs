//! Two symbolicated stacks side by side, frames aligned: the longest common subsequence of
//! their frames by function and file (a resolved frame by the function it runs in, the last
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

/// Past this many cells the table of the common subsequence is not built: the stacks' common
/// ends are aligned and the middle is listed as frames of one side each.
const MAX_CELLS: usize = 1 << 24;

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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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

/// The longest common subsequence of `a` and `b` as aligned pairs, in order: a pair of
/// indices for a common element, one side only for the others (A's before B's between two
/// common elements).
fn align<T: PartialEq>(a: &[T], b: &[T]) -> Vec<(Option<usize>, Option<usize>)> {
    // Common ends first: a stack overflow's thousands of equal frames need no table.
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut out: Vec<(Option<usize>, Option<usize>)> =
        (0..prefix).map(|i| (Some(i), Some(i))).collect();
    let (n, m) = (ma.len(), mb.len());
    if n * m <= MAX_CELLS {
        // lcs[i][j]: the common subsequence's length of ma[i..] and mb[j..].
        let w = m + 1;
        let mut lcs = vec![0u32; (n + 1) * w];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                lcs[i * w + j] = if ma[i] == mb[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < n || j < m {
            if i < n && j < m && ma[i] == mb[j] {
                out.push((Some(prefix + i), Some(prefix + j)));
                i += 1;
                j += 1;
            } else if j == m || (i < n && lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
                out.push((Some(prefix + i), None));
                i += 1;
            } else {
                out.push((None, Some(prefix + j)));
                j += 1;
            }
        }
    } else {
        out.extend((0..n).map(|i| (Some(prefix + i), None)));
        out.extend((0..m).map(|j| (None, Some(prefix + j))));
    }
    let (sa, sb) = (a.len() - suffix, b.len() - suffix);
    out.extend((0..suffix).map(|k| (Some(sa + k), Some(sb + k))));
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
    }
}
