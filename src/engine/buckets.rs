//! Many symbolicated logs grouped by [`super::signature`]: one bucket per fingerprint, with
//! its members and the first member's table (what the bucket shows as its frames).
//!
//! Pure and order-free: logs are added with their index in the run (its order: paths
//! sorted), in any order and on any number of [`Bucketing`]s, which are then merged; the
//! result is the same whichever way the work was split, so the caller may fold on every core.

use super::signature::{self, Fingerprint, Signature};
use super::table::FrameTable;
use std::collections::HashMap;
use std::sync::Arc;

/// One group of logs with one signature.
#[derive(Clone, Debug)]
pub struct Bucket {
    /// The signature's hash.
    pub fingerprint: Fingerprint,
    /// What the members share.
    pub signature: Signature,
    /// The members (log indices), ascending once [`Bucketing::finish`]ed.
    pub members: Vec<usize>,
    /// The first member's table and signed stack (the bucket's title and frames).
    pub first: Arc<FrameTable>,
    /// The stack of `first` the signature is of.
    pub stack: usize,
    /// `first`'s log index.
    first_index: usize,
}

impl Bucket {
    /// How many logs the bucket holds.
    pub fn count(&self) -> usize {
        self.members.len()
    }

    /// The first member's exception line (its first line; the thread's name for a native
    /// crash report).
    pub fn title(&self) -> String {
        super::signature::headline(self.first.stack_title(self.stack))
    }

    /// The top frame of the signature, as `function (file)`.
    pub fn top_frame(&self) -> String {
        self.signature
            .frames
            .first()
            .map(|f| {
                let function = if f.function.is_empty() {
                    "?"
                } else {
                    &f.function
                };
                format!("{function} ({})", f.file)
            })
            .unwrap_or_default()
    }
}

/// Buckets being filled.
#[derive(Clone, Debug)]
pub struct Bucketing {
    frames: usize,
    buckets: HashMap<Fingerprint, Bucket>,
    logs: usize,
}

impl Bucketing {
    /// Empty buckets whose signatures take `frames` frames.
    pub fn new(frames: usize) -> Self {
        Self {
            frames,
            buckets: HashMap::new(),
            logs: 0,
        }
    }

    /// Adds log `index` (symbolicated) to its bucket; a log with no stack is not bucketed.
    /// Returns its fingerprint.
    pub fn add(&mut self, index: usize, table: &Arc<FrameTable>) -> Option<Fingerprint> {
        let stack = signature::signed_stack(table)?;
        let sig = signature::signature(table, stack, self.frames);
        let fingerprint = sig.fingerprint();
        self.logs += 1;
        match self.buckets.entry(fingerprint) {
            std::collections::hash_map::Entry::Occupied(mut e) => {
                let b = e.get_mut();
                if index < b.first_index {
                    b.first_index = index;
                    b.first = table.clone();
                    b.stack = stack;
                    b.signature = sig;
                }
                b.members.push(index);
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Bucket {
                    fingerprint,
                    signature: sig,
                    members: vec![index],
                    first: table.clone(),
                    stack,
                    first_index: index,
                });
            }
        }
        Some(fingerprint)
    }

    /// Takes in another's buckets (the same frame count).
    pub fn merge(mut self, other: Bucketing) -> Self {
        self.logs += other.logs;
        for (fp, b) in other.buckets {
            match self.buckets.entry(fp) {
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    let mine = e.get_mut();
                    if b.first_index < mine.first_index {
                        mine.first_index = b.first_index;
                        mine.first = b.first;
                        mine.stack = b.stack;
                        mine.signature = b.signature;
                    }
                    mine.members.extend(b.members);
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(b);
                }
            }
        }
        self
    }

    /// How many logs were bucketed.
    pub fn logs(&self) -> usize {
        self.logs
    }

    /// The buckets, largest first (ties: the one whose first member comes first), members
    /// ascending.
    pub fn finish(self) -> Vec<Bucket> {
        let mut out: Vec<Bucket> = self
            .buckets
            .into_values()
            .map(|mut b| {
                b.members.sort_unstable();
                b
            })
            .collect();
        out.sort_by(|a, b| {
            b.count()
                .cmp(&a.count())
                .then(a.members[0].cmp(&b.members[0]))
        });
        out
    }
}
