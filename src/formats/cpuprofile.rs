//! V8 CPU profiles (`.cpuprofile`: Chrome DevTools' "Save profile", `node --cpu-prof`, the
//! inspector protocol's `Profiler.Profile`) read into a [`Profile`].
//!
//! The format: `{nodes, startTime, endTime, samples, timeDeltas}`; each node
//! `{id, callFrame: {functionName, scriptId, url, lineNumber, columnNumber}, children?,
//! parent?}` with 0-based positions; `samples[i]` is a leaf node's id and `timeDeltas[i]` the
//! µs since the previous sample (the first: since `startTime`). Nodes are reordered parents
//! first; negative deltas are kept as DevTools keeps them (the samples sorted by time) with a
//! warning; a sample or child naming a node the profile lacks is an error.

use crate::model::{LocationInterner, Profile, ProfileLocation, ProfileNode};

mod sampling_heap;
mod totals;
pub use sampling_heap::{is_heap_profile, parse_heap_profile};
use serde_json::Value;
use std::collections::HashMap;
pub use totals::{Reopen, read_totals, read_totals_reopening};

/// Why a file is not a CPU profile Symscope can read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// The JSON does not parse (a truncated file).
    #[error("not JSON: {0}")]
    Json(String),
    /// A field the format requires is missing or of the wrong type.
    #[error("not a V8 CPU profile: {0}")]
    Field(&'static str),
    /// Two nodes share an id.
    #[error("node {0} is listed twice")]
    DuplicateNode(u64),
    /// A node lists a child (or a parent) the profile does not have.
    #[error("node {node} names node {missing}, which the profile does not have")]
    UnknownNode {
        /// The node that names it.
        node: u64,
        /// The id it names.
        missing: u64,
    },
    /// A sample names a node the profile does not have.
    #[error("sample {index} names node {id}, which the profile does not have")]
    UnknownSample {
        /// The sample's index.
        index: usize,
        /// The id it names.
        id: u64,
    },
    /// `samples` and `timeDeltas` differ in length.
    #[error("{samples} samples but {deltas} time deltas")]
    DeltaCount {
        /// Samples.
        samples: usize,
        /// Time deltas.
        deltas: usize,
    },
    /// A node is its own ancestor.
    #[error("the call tree has a cycle through node {0}")]
    Cycle(u64),
    /// The file is not UTF-8 text.
    #[error("not UTF-8 text, not a CPU profile")]
    NotText,
}

/// Whether `bytes` look like a V8 CPU profile (a JSON object with `nodes` of `callFrame`s and
/// a `startTime`), from its first kilobytes.
pub fn is_cpuprofile(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    let Ok(text) =
        std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
    else {
        return false;
    };
    text.trim_start().starts_with('{')
        && text.contains("\"nodes\"")
        && text.contains("\"callFrame\"")
        && (text.contains("\"startTime\"") || bytes.len() > head.len())
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_f64().map(|f| f as i64))
}

/// An integer written as a JSON integer or float (µs times and deltas), or as a string of
/// one (Hermes writes its times and ids so).
#[derive(Clone, Copy, Debug)]
pub(super) struct Micros(pub(super) i64);

impl<'de> serde::Deserialize<'de> for Micros {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Micros;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number of microseconds")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Micros, E> {
                Ok(Micros(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Micros, E> {
                i64::try_from(v).map(Micros).map_err(E::custom)
            }
            fn visit_f64<E>(self, v: f64) -> Result<Micros, E> {
                Ok(Micros(v as i64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Micros, E> {
                v.trim()
                    .parse::<i64>()
                    .or_else(|_| v.trim().parse::<f64>().map(|f| f as i64))
                    .map(Micros)
                    .map_err(|_| E::custom(format!("{v:?} is not a number")))
            }
        }
        d.deserialize_any(V)
    }
}

/// The profile as the file has it: the samples and deltas compact (a profile of a million
/// samples is mostly these two arrays), the nodes as JSON (they are few).
#[derive(serde::Deserialize)]
pub(super) struct Raw {
    pub(super) nodes: Option<Vec<Value>>,
    #[serde(rename = "startTime")]
    pub(super) start: Option<Micros>,
    #[serde(rename = "endTime")]
    pub(super) end: Option<Micros>,
    #[serde(default)]
    pub(super) samples: Vec<u32>,
    #[serde(rename = "timeDeltas", default)]
    pub(super) deltas: Vec<Micros>,
}

/// Reads a V8 CPU profile.
pub fn parse(text: &str) -> Result<Profile, ProfileError> {
    let raw: Raw = serde_json::from_str(text).map_err(|e| ProfileError::Json(e.to_string()))?;
    build(raw)
}

/// Reads a V8 CPU profile already parsed as JSON (nodes with `children` or `parent`).
pub fn from_value(doc: &Value) -> Result<Profile, ProfileError> {
    use serde::Deserialize as _;
    let raw = Raw::deserialize(doc).map_err(|e| ProfileError::Json(e.to_string()))?;
    build(raw)
}

/// Node ids as recorded to node indexes.
pub(super) struct NodeIds {
    /// Ids are usually small and dense (V8 numbers nodes from 1): a table looks them up
    /// without hashing each of a million samples.
    dense: Option<Vec<u32>>,
    by_id: HashMap<u64, u32>,
}

impl NodeIds {
    /// The index of the node recorded as `id`.
    pub(super) fn get(&self, id: u64) -> Option<u32> {
        match &self.dense {
            Some(table) => usize::try_from(id)
                .ok()
                .and_then(|i| table.get(i))
                .copied()
                .filter(|&n| n != u32::MAX),
            None => self.by_id.get(&id).copied(),
        }
    }
}

/// The profile of a file read as [`Raw`].
pub(super) fn build(raw: Raw) -> Result<Profile, ProfileError> {
    let (mut profile, ids) = tree(raw.nodes, raw.start, raw.end)?;
    // Samples and their times, in place: the node ids become indexes, the deltas times.
    let mut samples = raw.samples;
    let deltas = raw.deltas;
    if samples.is_empty() {
        profile
            .warnings
            .push("the profile has no samples (only the call tree)".to_owned());
    } else if samples.len() != deltas.len() {
        return Err(ProfileError::DeltaCount {
            samples: samples.len(),
            deltas: deltas.len(),
        });
    }
    for (index, s) in samples.iter_mut().enumerate() {
        *s = ids.get(u64::from(*s)).ok_or(ProfileError::UnknownSample {
            index,
            id: u64::from(*s),
        })?;
    }
    let mut t = profile.start_us;
    let mut negative = 0usize;
    // In place: the deltas' memory becomes the times'.
    let mut times: Vec<i64> = deltas
        .into_iter()
        .map(|d| {
            negative += usize::from(d.0 < 0);
            // Saturating: a hostile file's times must not overflow.
            t = t.saturating_add(d.0);
            t
        })
        .collect();
    if negative > 0 {
        profile.warnings.push(format!(
            "{negative} negative time deltas: the samples are taken in time order, as DevTools does"
        ));
        let mut pairs: Vec<(i64, u32)> =
            times.iter().copied().zip(samples.iter().copied()).collect();
        pairs.sort_by_key(|&(t, _)| t);
        times = pairs.iter().map(|&(t, _)| t).collect();
        samples = pairs.iter().map(|&(_, s)| s).collect();
    }
    profile.samples = samples;
    profile.times_us = times;
    Ok(profile)
}

/// The call tree of a profile (no samples yet) and its node ids.
pub(super) fn tree(
    nodes: Option<Vec<Value>>,
    start: Option<Micros>,
    end: Option<Micros>,
) -> Result<(Profile, NodeIds), ProfileError> {
    let nodes = nodes.ok_or(ProfileError::Field("no `nodes` array"))?;
    let start_us = start.ok_or(ProfileError::Field("no `startTime`"))?.0;
    let end_us = end.map_or(start_us, |e| e.0);
    let mut warnings = Vec::new();
    // Nodes by id, in file order, with their locations interned.
    let mut interner = LocationInterner::default();
    let mut by_id: HashMap<u64, usize> = HashMap::with_capacity(nodes.len());
    let mut read: Vec<(u64, u32, Vec<u64>, Option<u64>)> = Vec::with_capacity(nodes.len());
    for n in &nodes {
        let id = n["id"]
            .as_u64()
            .ok_or(ProfileError::Field("a node without a numeric `id`"))?;
        let cf = &n["callFrame"];
        if !cf.is_object() {
            return Err(ProfileError::Field("a node without a `callFrame`"));
        }
        let location = ProfileLocation {
            function: cf["functionName"].as_str().unwrap_or_default().to_owned(),
            url: cf["url"].as_str().unwrap_or_default().to_owned(),
            script_id: match &cf["scriptId"] {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => String::new(),
            },
            line: int(&cf["lineNumber"]).unwrap_or(-1),
            column: int(&cf["columnNumber"]).unwrap_or(-1),
            function_start: int(&cf["functionStart"]).unwrap_or(-1),
            return_address: false,
        };
        let loc = interner.intern(location);
        let children: Vec<u64> = n["children"]
            .as_array()
            .map(|c| c.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        if by_id.insert(id, read.len()).is_some() {
            return Err(ProfileError::DuplicateNode(id));
        }
        read.push((id, loc, children, n["parent"].as_u64()));
    }
    // Parents from `children` (DevTools' files) or `parent` (trace events' chunks).
    let mut parent: Vec<Option<usize>> = vec![None; read.len()];
    for (k, (id, _, children, up)) in read.iter().enumerate() {
        for c in children {
            let &ci = by_id.get(c).ok_or(ProfileError::UnknownNode {
                node: *id,
                missing: *c,
            })?;
            parent[ci] = Some(k);
        }
        if let Some(p) = up {
            let &pi = by_id.get(p).ok_or(ProfileError::UnknownNode {
                node: *id,
                missing: *p,
            })?;
            parent[k] = Some(pi);
        }
    }
    // Parents first: each node after its parent (a cycle never reaches a root).
    let mut children_of: Vec<Vec<usize>> = vec![Vec::new(); read.len()];
    let mut roots = Vec::new();
    for (k, p) in parent.iter().enumerate() {
        match p {
            Some(p) => children_of[*p].push(k),
            None => roots.push(k),
        }
    }
    if roots.len() > 1 {
        warnings.push(format!(
            "{} nodes have no parent (a profile has one root)",
            roots.len()
        ));
    }
    let mut order = Vec::with_capacity(read.len());
    let mut new_index = vec![u32::MAX; read.len()];
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    while let Some(k) = stack.pop() {
        new_index[k] = order.len() as u32;
        order.push(k);
        stack.extend(children_of[k].iter().rev());
    }
    if let Some(k) = new_index.iter().position(|&i| i == u32::MAX) {
        return Err(ProfileError::Cycle(read[k].0));
    }
    let out_nodes: Vec<ProfileNode> = order
        .iter()
        .map(|&k| ProfileNode {
            id: read[k].0,
            parent: parent[k].map(|p| new_index[p]),
            location: read[k].1,
        })
        .collect();
    let max_id = by_id.keys().copied().max().unwrap_or(0);
    let dense: Option<Vec<u32>> = (max_id < 4 * by_id.len() as u64 + 1024).then(|| {
        let mut table = vec![u32::MAX; max_id as usize + 1];
        for (&id, &k) in &by_id {
            table[id as usize] = new_index[k];
        }
        table
    });
    let by_id = if dense.is_some() {
        HashMap::new()
    } else {
        by_id.iter().map(|(&id, &k)| (id, new_index[k])).collect()
    };
    let profile = Profile {
        start_us,
        end_us,
        locations: interner.locations,
        nodes: out_nodes,
        warnings,
        ..Profile::default()
    };
    Ok((profile, NodeIds { dense, by_id }))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const SMALL: &str = r#"{"nodes":[
        {"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
        {"id":2,"callFrame":{"functionName":"a","scriptId":"5","url":"file:///x/app.min.js","lineNumber":0,"columnNumber":10},"children":[4]},
        {"id":4,"callFrame":{"functionName":"b","scriptId":"5","url":"file:///x/app.min.js","lineNumber":0,"columnNumber":99}},
        {"id":3,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],
        "startTime":1000,"endTime":1100,"samples":[4,4,2,3],"timeDeltas":[10,20,30,10]}"#;

    #[test]
    fn reads_the_tree_the_samples_and_devtools_durations() {
        let p = parse(SMALL).unwrap();
        assert_eq!(p.nodes.len(), 4);
        // Parents first.
        for (i, n) in p.nodes.iter().enumerate() {
            assert!(n.parent.is_none_or(|q| (q as usize) < i));
        }
        assert_eq!(p.times_us, [1010, 1030, 1060, 1070]);
        // The last sample lasts the mean interval: (1070 − 1010) / 3.
        assert_eq!(p.sample_durations_us(), [20, 30, 10, 20]);
        let b = p.nodes.iter().position(|n| n.id == 4).unwrap();
        assert_eq!(p.self_us()[b], 50);
        assert_eq!(p.hits()[b], 2);
        assert!(p.warnings.is_empty());
        assert!(is_cpuprofile(SMALL.as_bytes()));
    }

    #[test]
    fn bad_profiles_name_the_problem() {
        assert!(matches!(parse("{\"nodes\": ["), Err(ProfileError::Json(_))));
        let unknown = SMALL.replace("\"samples\":[4,4,2,3]", "\"samples\":[4,9,2,3]");
        assert_eq!(
            parse(&unknown),
            Err(ProfileError::UnknownSample { index: 1, id: 9 })
        );
        let child = SMALL.replace("\"children\":[4]", "\"children\":[7]");
        assert_eq!(
            parse(&child),
            Err(ProfileError::UnknownNode {
                node: 2,
                missing: 7
            })
        );
        let count = SMALL.replace("[10,20,30,10]", "[10,20,30]");
        assert!(matches!(
            parse(&count),
            Err(ProfileError::DeltaCount { .. })
        ));
        let negative = SMALL.replace("[10,20,30,10]", "[10,20,-15,10]");
        let p = parse(&negative).unwrap();
        assert!(p.times_us.windows(2).all(|w| w[0] <= w[1]));
        assert!(p.warnings[0].contains("negative"), "{:?}", p.warnings);
        let cycle = SMALL
            .replace("\"children\":[2,3]", "\"children\":[3]")
            .replace(
                "\"columnNumber\":99}}",
                "\"columnNumber\":99},\"children\":[2]}",
            );
        assert!(
            matches!(parse(&cycle), Err(ProfileError::Cycle(_))),
            "{:?}",
            parse(&cycle)
        );
    }
}
