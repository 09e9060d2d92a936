//! CPU profiles as plain data: a call tree whose nodes point at interned locations, and the
//! samples as node indexes with their times. Every distinct location (function as recorded,
//! script, line, column) is stored once, so that resolving a profile costs its distinct
//! locations, never its samples.

use std::collections::HashMap;

/// Where a profile node runs, as the profiler recorded it (V8's `callFrame`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProfileLocation {
    /// The function's name as recorded (minified names included; empty: anonymous).
    pub function: String,
    /// The script's URL (`file:///…/app.min.js`); empty for V8's own entries (`(program)`).
    pub url: String,
    /// The script's id, as recorded.
    pub script_id: String,
    /// 0-based line of the function (−1: unknown).
    pub line: i64,
    /// 0-based column of the function (−1: unknown).
    pub column: i64,
    /// Where the function starts when the location is a position inside it (a Hermes
    /// frame's `funcVirtAddr`, its column; −1: the location is the function's own, as V8's).
    pub function_start: i64,
    /// A native caller frame: the address (`column`) is a return address, so the call is
    /// looked up at address − 1.
    pub return_address: bool,
}

/// One node of the call tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProfileNode {
    /// The node's id as recorded.
    pub id: u64,
    /// The parent node's index (`None`: the root).
    pub parent: Option<u32>,
    /// The node's location, an index into [`Profile::locations`].
    pub location: u32,
}

/// A CPU profile: the call tree, and each sample's leaf node and time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Start of the profile, µs on the profiler's clock.
    pub start_us: i64,
    /// End of the profile, µs on the profiler's clock.
    pub end_us: i64,
    /// The distinct locations.
    pub locations: Vec<ProfileLocation>,
    /// The nodes, parents before their children.
    pub nodes: Vec<ProfileNode>,
    /// Each sample's leaf node (an index into `nodes`).
    pub samples: Vec<u32>,
    /// Each sample's time, µs on the profiler's clock, ascending.
    pub times_us: Vec<i64>,
    /// What was read but not as the format says (negative deltas, a node without parent…).
    pub warnings: Vec<String>,
    /// A Hermes profile: locations with a position are bytecode addresses (line 0, the
    /// address as column) in a bytecode file the profile does not name.
    pub bytecode: bool,
    /// A native profile (`perf script`): locations are addresses (`column`, relative to the
    /// module's file) in the module `url` names, line 0.
    pub native: bool,
    /// Each node's self time and sample count, when the profile was read as totals only
    /// (`samples` and `times_us` then empty): what a ranking needs, without a million
    /// samples held.
    pub totals: Option<NodeTotals>,
    /// A native profile's modules' build IDs (lowercase hex), by the path its locations'
    /// `url` names, where the profile records them (`perf record --buildid-mmap`).
    pub module_ids: Vec<(String, String)>,
    /// What the weights are: time (µs) for CPU profiles, bytes for allocation profiles.
    pub weight: Weight,
}

/// What a profile's weights measure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Weight {
    /// Time, µs: samples of a CPU profile.
    #[default]
    Time,
    /// Bytes allocated: a heap timeline's allocation stacks or a sampling heap profile
    /// (no timeline: [`NodeTotals`] hold the bytes as `self_us`, objects as `hits`).
    Bytes,
}

/// Per-node totals of a profile read without its samples kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeTotals {
    /// Each node's self time, µs ([`Profile::self_us`]'s rule).
    pub self_us: Vec<i64>,
    /// Each node's sample count.
    pub hits: Vec<u64>,
    /// The number of samples read.
    pub samples: usize,
}

/// Interns locations: one index per distinct location.
#[derive(Debug, Default)]
pub struct LocationInterner {
    index: HashMap<ProfileLocation, u32>,
    /// The locations in the order first seen.
    pub locations: Vec<ProfileLocation>,
}

impl LocationInterner {
    /// The index of `location`, added when new.
    pub fn intern(&mut self, location: ProfileLocation) -> u32 {
        if let Some(&i) = self.index.get(&location) {
            return i;
        }
        let i = self.locations.len() as u32;
        self.locations.push(location.clone());
        self.index.insert(location, i);
        i
    }
}

impl Profile {
    /// How long each sample lasts, µs, as the DevTools Performance panel counts it: sample
    /// `i` lasts until sample `i + 1`; the last one lasts the mean interval (a profile of one
    /// sample: until the profile's end).
    pub fn sample_durations_us(&self) -> Vec<i64> {
        let n = self.times_us.len();
        let mut out = Vec::with_capacity(n);
        for w in self.times_us.windows(2) {
            out.push(w[1].saturating_sub(w[0]));
        }
        if n == 1 {
            out.push(self.end_us.saturating_sub(self.times_us[0]).max(0));
        } else if n > 1 {
            out.push(self.times_us[n - 1].saturating_sub(self.times_us[0]) / (n as i64 - 1));
        }
        out
    }

    /// How long sample `i` lasts, µs ([`Self::sample_durations_us`]'s rule, one at a time).
    fn sample_duration_us(&self, i: usize) -> i64 {
        let t = &self.times_us;
        let n = t.len();
        if i + 1 < n {
            t[i + 1].saturating_sub(t[i])
        } else if n == 1 {
            self.end_us.saturating_sub(t[0]).max(0)
        } else {
            t[n - 1].saturating_sub(t[0]) / (n as i64 - 1)
        }
    }

    /// The number of samples.
    pub fn sample_count(&self) -> usize {
        self.totals
            .as_ref()
            .map_or(self.samples.len(), |t| t.samples)
    }

    /// Each node's self time, µs: the durations of the samples whose leaf it is.
    pub fn self_us(&self) -> Vec<i64> {
        if let Some(t) = &self.totals {
            return t.self_us.clone();
        }
        let mut out = vec![0i64; self.nodes.len()];
        for (i, &s) in self.samples.iter().enumerate() {
            if let Some(slot) = out.get_mut(s as usize) {
                *slot = slot.saturating_add(self.sample_duration_us(i));
            }
        }
        out
    }

    /// Each node's sample count.
    pub fn hits(&self) -> Vec<u64> {
        if let Some(t) = &self.totals {
            return t.hits.clone();
        }
        let mut out = vec![0u64; self.nodes.len()];
        for &s in &self.samples {
            if let Some(slot) = out.get_mut(s as usize) {
                *slot += 1;
            }
        }
        out
    }
}
