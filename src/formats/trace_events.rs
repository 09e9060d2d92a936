//! Chrome trace-event JSON (DevTools Performance "Save trace", `node --trace-events-enabled`,
//! `chrome://tracing`): the CPU profiles it carries as `Profile` / `ProfileChunk` events,
//! each read into a [`Profile`].
//!
//! The file is an object with `traceEvents`, or a bare array of events (a streaming writer's
//! missing final `]` is tolerated). A `Profile` event (`ph: "P"`) opens profile `id` of
//! process `pid` on thread `tid` (the sampled thread) with `args.data.startTime`; its
//! `ProfileChunk` events, in file order, each bring the nodes new since the last chunk (with
//! `parent`, not `children`), samples and time deltas (the first relative to the previous
//! chunk's last sample), and the last one `endTime`. Concatenated they are the profile V8
//! would have written as a `.cpuprofile`.

use super::cpuprofile::ProfileError;
use crate::model::Profile;
use serde_json::{Value, json};
use std::collections::HashMap;

/// One CPU profile of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceProfile {
    /// The process.
    pub pid: u64,
    /// The sampled thread.
    pub tid: u64,
    /// The profile's id in the trace (`0x1`).
    pub id: String,
    /// The profile.
    pub profile: Profile,
}

/// Whether `bytes` look like Chrome trace-event JSON (`{"traceEvents": …` or an array of
/// events with `ph`), from its first kilobytes.
pub fn is_trace_events(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(8192)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    let t = text.trim_start();
    // A Hermes profile may come with its keys in another order (rewritten by a tool that
    // sorts them): its samples name stack frames (`sf`).
    (t.starts_with('{')
        && (t.contains("\"traceEvents\"")
            || t.contains("\"stackFrames\"")
            || (t.contains("\"samples\"") && t.contains("\"sf\""))))
        || (t.starts_with('[') && t.contains("\"ph\"") && t.contains("\"ts\""))
}

/// The events of a trace file: the `traceEvents` array, or the file's own array (completed
/// when a streaming writer left off its final `]`).
fn events(text: &str) -> Result<Vec<Value>, ProfileError> {
    let doc: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let t = text.trim_end().trim_end_matches(',');
            if t.trim_start().starts_with('[') {
                serde_json::from_str(&format!("{t}]"))
                    .map_err(|_| ProfileError::Json(e.to_string()))?
            } else {
                return Err(ProfileError::Json(e.to_string()));
            }
        }
    };
    match doc {
        Value::Array(a) => Ok(a),
        Value::Object(mut o) => match o.remove("traceEvents") {
            Some(Value::Array(a)) => Ok(a),
            _ => Err(ProfileError::Field("no `traceEvents` array")),
        },
        _ => Err(ProfileError::Field(
            "neither an object nor an array of events",
        )),
    }
}

/// The CPU profiles in a trace, in the order their `Profile` events come. A trace without
/// any is not an error (it has none).
pub fn parse_profiles(text: &str) -> Result<Vec<TraceProfile>, ProfileError> {
    struct Building {
        pid: u64,
        tid: u64,
        id: String,
        start: Value,
        end: Option<Value>,
        nodes: Vec<Value>,
        samples: Vec<Value>,
        deltas: Vec<Value>,
    }
    let mut open: Vec<Building> = Vec::new();
    let mut by_key: HashMap<(u64, String), usize> = HashMap::new();
    for e in events(text)? {
        let name = e["name"].as_str().unwrap_or_default();
        if e["ph"] != "P" || !(name == "Profile" || name == "ProfileChunk") {
            continue;
        }
        let pid = e["pid"].as_u64().unwrap_or(0);
        let id = match &e["id"] {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => String::new(),
        };
        let data = &e["args"]["data"];
        if name == "Profile" {
            by_key.insert((pid, id.clone()), open.len());
            open.push(Building {
                pid,
                tid: e["tid"].as_u64().unwrap_or(0),
                id,
                start: data["startTime"].clone(),
                end: None,
                nodes: Vec::new(),
                samples: Vec::new(),
                deltas: Vec::new(),
            });
            continue;
        }
        let Some(&k) = by_key.get(&(pid, id.clone())) else {
            return Err(ProfileError::Field(
                "a ProfileChunk before its Profile event",
            ));
        };
        let b = &mut open[k];
        let profile = &data["cpuProfile"];
        let samples = profile["samples"].as_array().map_or(&[][..], Vec::as_slice);
        let deltas = data["timeDeltas"].as_array().map_or(&[][..], Vec::as_slice);
        if samples.len() != deltas.len() {
            return Err(ProfileError::DeltaCount {
                samples: samples.len(),
                deltas: deltas.len(),
            });
        }
        b.nodes
            .extend(profile["nodes"].as_array().into_iter().flatten().cloned());
        b.samples.extend_from_slice(samples);
        b.deltas.extend_from_slice(deltas);
        if !data["endTime"].is_null() {
            b.end = Some(data["endTime"].clone());
        }
    }
    open.into_iter()
        .map(|b| {
            // The chunks' nodes as one `.cpuprofile` (line and column default to −1).
            let doc = json!({
                "nodes": b.nodes,
                "startTime": b.start,
                "endTime": b.end.unwrap_or_else(|| b.start.clone()),
                "samples": b.samples,
                "timeDeltas": b.deltas,
            });
            let profile = super::cpuprofile::from_value(&doc)?;
            Ok(TraceProfile {
                pid: b.pid,
                tid: b.tid,
                id: b.id,
                profile,
            })
        })
        .collect()
}

/// A Hermes sampling profile (`hermes -sample-profiling`, React Native's profiler): the
/// Chrome-trace form with `stackFrames` (`{id: {name, category, parent, funcVirtAddr,
/// offset}}`) and `samples` (`[{ts, sf, …}]`), times as strings of µs. A JavaScript frame's
/// location is its bytecode address, `funcVirtAddr + offset`, in the one bytecode file the
/// profile does not name (line 0, that column; see [`Profile::bytecode`]); native, GC and root
/// frames have none. `None`: not this form.
pub fn parse_hermes(text: &str) -> Result<Option<Profile>, ProfileError> {
    use super::cpuprofile::{Micros, Raw, build};
    /// The file as Hermes writes it, the samples compact (a long profile is mostly them);
    /// `traceEvents` and every other field passed over.
    #[derive(serde::Deserialize)]
    struct Hermes {
        #[serde(rename = "stackFrames")]
        frames: Option<serde_json::Map<String, Value>>,
        samples: Option<Vec<Sample>>,
    }
    #[derive(serde::Deserialize)]
    struct Sample {
        ts: Option<Micros>,
        sf: Option<Micros>,
    }
    let doc: Hermes = match serde_json::from_str(text) {
        Ok(doc) => doc,
        // JSON of another shape (a `samples` that is not Hermes'): not this form.
        Err(e) if e.is_data() => return Ok(None),
        Err(e) => return Err(ProfileError::Json(e.to_string())),
    };
    let (Some(frames), Some(samples)) = (doc.frames, doc.samples) else {
        return Ok(None);
    };
    let num = |v: &Value| -> Option<i64> {
        v.as_i64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .or_else(|| v.as_f64().map(|f| f as i64))
    };
    let mut nodes = Vec::with_capacity(frames.len());
    for (id, f) in &frames {
        let id: u64 = id
            .parse()
            .map_err(|_| ProfileError::Field("a stack frame whose id is not a number"))?;
        let js = f["category"] == "JavaScript";
        let address = num(&f["funcVirtAddr"])
            .zip(num(&f["offset"]))
            .and_then(|(a, o)| a.checked_add(o));
        let mut node = json!({
            "id": id,
            "callFrame": {
                "functionName": f["name"].as_str().unwrap_or_default(),
                "url": "", "scriptId": "0", "lineNumber": -1, "columnNumber": -1,
            },
        });
        if let (true, Some(address)) = (js, address) {
            node["callFrame"]["lineNumber"] = json!(0);
            node["callFrame"]["columnNumber"] = json!(address);
        }
        if let Some(p) = num(&f["parent"]) {
            node["parent"] = json!(p);
        }
        nodes.push(node);
    }
    let mut timed: Vec<(i64, u32)> = Vec::with_capacity(samples.len());
    for s in samples {
        let ts = s.ts.ok_or(ProfileError::Field("a sample without `ts`"))?.0;
        let sf = s.sf.ok_or(ProfileError::Field("a sample without `sf`"))?.0;
        // An id past u32 names no frame: the reader says which sample.
        timed.push((ts, u32::try_from(sf).unwrap_or(u32::MAX)));
    }
    timed.sort_by_key(|&(t, _)| t);
    let start = timed.first().map_or(0, |&(t, _)| t);
    let end = timed.last().map_or(0, |&(t, _)| t);
    let mut last = start;
    let deltas: Vec<Micros> = timed
        .iter()
        .map(|&(t, _)| {
            let d = t.saturating_sub(last);
            last = t;
            Micros(d)
        })
        .collect();
    let mut profile = build(Raw {
        nodes: Some(nodes),
        start: Some(Micros(start)),
        end: Some(Micros(end)),
        samples: timed.iter().map(|&(_, s)| s).collect(),
        deltas,
    })?;
    profile.bytecode = true;
    Ok(Some(profile))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Hermes profile whose keys a tool sorted (`samples` first, `traceEvents` last, past
    /// the head) is still told from its head.
    #[test]
    fn a_hermes_profile_with_sorted_keys_is_trace_events() {
        let head = format!(
            "{{\"samples\":[{}{{\"sf\":2,\"ts\":\"9\"}}],\"stackFrames\":{{}},\"traceEvents\":[]}}",
            "{\"cpu\":\"-1\",\"sf\":2,\"ts\":\"1\"},".repeat(1000)
        );
        assert!(is_trace_events(head.as_bytes()));
        assert!(!is_trace_events(br#"{"nodes":[],"samples":[1,2]}"#));
    }

    #[test]
    fn chunks_make_one_profile_and_a_cut_array_still_reads() {
        let text = r#"[{"ph":"P","name":"Profile","id":"0x1","pid":7,"tid":9,"ts":1,"args":{"data":{"startTime":100}}},
        {"ph":"P","name":"ProfileChunk","id":"0x1","pid":7,"tid":11,"ts":2,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},{"id":2,"parent":1,"callFrame":{"functionName":"f","url":"a.js","scriptId":3,"lineNumber":1,"columnNumber":2}}],"samples":[2,2]},"timeDeltas":[5,5]}}},
        {"ph":"X","name":"Task","pid":7,"tid":9,"ts":3,"dur":4},
        {"ph":"P","name":"ProfileChunk","id":"0x1","pid":7,"tid":11,"ts":4,"args":{"data":{"cpuProfile":{"samples":[1]},"timeDeltas":[7]}}},
        {"ph":"P","name":"ProfileChunk","id":"0x1","pid":7,"tid":11,"ts":5,"args":{"data":{"endTime":130}}},"#;
        let profiles = parse_profiles(text).unwrap();
        assert_eq!(profiles.len(), 1);
        let p = &profiles[0];
        assert_eq!((p.pid, p.tid, p.id.as_str()), (7, 9, "0x1"));
        assert_eq!(p.profile.times_us, [105, 110, 117]);
        assert_eq!(p.profile.end_us, 130);
        assert_eq!(p.profile.nodes.len(), 2);
        assert!(is_trace_events(text.as_bytes()));
        let orphan = text.replace("\"name\":\"Profile\",", "\"name\":\"Other\",");
        assert!(parse_profiles(&orphan).is_err());
    }
}
