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
    profiles_of(events(text)?)
}

/// A trace read once: its CPU profiles ([`parse_profiles`]) and its threads' duration
/// events ([`Tracks`]).
pub fn parse_trace(text: &str) -> Result<(Vec<TraceProfile>, Tracks), ProfileError> {
    let events = events(text)?;
    let tracks = tracks_of(&events);
    Ok((profiles_of(events)?, tracks))
}

/// One bar of a thread's track: a duration event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackEvent {
    /// Start, µs on the trace's clock.
    pub start_us: i64,
    /// End, µs.
    pub end_us: i64,
    /// Its name, an index into [`Tracks::names`].
    pub name: u32,
    /// How deep it is nested in the thread's other events (0: outermost).
    pub depth: u32,
}

/// One thread's duration events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadTrack {
    /// The process.
    pub pid: u64,
    /// The thread.
    pub tid: u64,
    /// Its name (`thread_name` metadata), or empty.
    pub name: String,
    /// Its events, by start.
    pub events: Vec<TrackEvent>,
}

/// The duration events of a trace (`X` complete events, `B`/`E` pairs), a track per thread:
/// what DevTools' Performance panel draws beside the CPU profile, on the same clock.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tracks {
    /// The events' names, each once.
    pub names: Vec<String>,
    /// The threads with events, by process and thread id.
    pub threads: Vec<ThreadTrack>,
    /// What was read but not as the format says, each naming the rule.
    pub warnings: Vec<String>,
}

/// The phases of the trace-event format: any other is passed over with a warning.
const KNOWN_PHASES: &[&str] = &[
    "B", "E", "X", "I", "i", "C", "b", "n", "e", "S", "T", "p", "F", "s", "t", "f", "P", "N", "O",
    "D", "M", "V", "v", "R", "c", "(", ")",
];

/// The duration events of `events`, a track per thread.
fn tracks_of(events: &[Value]) -> Tracks {
    let mut names: Vec<String> = Vec::new();
    let mut name_index: HashMap<String, u32> = HashMap::new();
    let mut threads: HashMap<(u64, u64), ThreadTrack> = HashMap::new();
    let mut open: HashMap<(u64, u64), Vec<(i64, u32)>> = HashMap::new();
    let mut unknown: HashMap<String, usize> = HashMap::new();
    let (mut unmatched_end, mut negative, mut never_ended) = (0usize, 0usize, 0usize);
    let mut last_ts: HashMap<(u64, u64), i64> = HashMap::new();
    let num = |v: &Value| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64));
    for e in events {
        let ph = e["ph"].as_str().unwrap_or_default();
        let key = (
            e["pid"].as_u64().unwrap_or(0),
            e["tid"].as_u64().unwrap_or(0),
        );
        let mut intern = |name: &str| {
            *name_index.entry(name.to_owned()).or_insert_with(|| {
                names.push(name.to_owned());
                names.len() as u32 - 1
            })
        };
        fn thread(
            threads: &mut HashMap<(u64, u64), ThreadTrack>,
            (pid, tid): (u64, u64),
        ) -> &mut ThreadTrack {
            threads.entry((pid, tid)).or_insert_with(|| ThreadTrack {
                pid,
                tid,
                ..ThreadTrack::default()
            })
        }
        if let Some(ts) = num(&e["ts"]) {
            let last = last_ts.entry(key).or_insert(ts);
            *last = (*last).max(ts);
        }
        match ph {
            "X" => {
                let (Some(ts), dur) = (num(&e["ts"]), num(&e["dur"]).unwrap_or(0)) else {
                    continue;
                };
                if dur < 0 {
                    negative += 1;
                    continue;
                }
                let name = intern(e["name"].as_str().unwrap_or_default());
                let end = ts.saturating_add(dur);
                let last = last_ts.entry(key).or_insert(end);
                *last = (*last).max(end);
                thread(&mut threads, key).events.push(TrackEvent {
                    start_us: ts,
                    end_us: end,
                    name,
                    depth: 0,
                });
            }
            "B" => {
                if let Some(ts) = num(&e["ts"]) {
                    let name = intern(e["name"].as_str().unwrap_or_default());
                    open.entry(key).or_default().push((ts, name));
                }
            }
            "E" => {
                let Some(ts) = num(&e["ts"]) else { continue };
                match open.get_mut(&key).and_then(Vec::pop) {
                    Some((start, name)) => thread(&mut threads, key).events.push(TrackEvent {
                        start_us: start,
                        end_us: ts.max(start),
                        name,
                        depth: 0,
                    }),
                    None => unmatched_end += 1,
                }
            }
            "M" => {
                if e["name"] == "thread_name"
                    && let Some(n) = e["args"]["name"].as_str()
                {
                    thread(&mut threads, key).name = n.to_owned();
                }
            }
            p if KNOWN_PHASES.contains(&p) => {}
            p => *unknown.entry(p.to_owned()).or_default() += 1,
        }
    }
    // A `B` never ended lasts until the thread's last event.
    for (key, stack) in open {
        for (start, name) in stack {
            never_ended += 1;
            let end = last_ts.get(&key).copied().unwrap_or(start).max(start);
            if let Some(t) = threads.get_mut(&key) {
                t.events.push(TrackEvent {
                    start_us: start,
                    end_us: end,
                    name,
                    depth: 0,
                });
            }
        }
    }
    let mut warnings = Vec::new();
    let mut unknown: Vec<_> = unknown.into_iter().collect();
    unknown.sort();
    for (p, n) in unknown {
        warnings.push(format!(
            "{n} events of phase {p:?}, which the trace-event format does not define, passed over"
        ));
    }
    if unmatched_end > 0 {
        warnings.push(format!(
            "{unmatched_end} `E` events end no `B` event of their thread: passed over"
        ));
    }
    if never_ended > 0 {
        warnings.push(format!(
            "{never_ended} `B` events have no `E`: each lasts until its thread's last event"
        ));
    }
    if negative > 0 {
        warnings.push(format!(
            "{negative} `X` events with a negative `dur`: passed over"
        ));
    }
    let mut threads: Vec<ThreadTrack> = threads
        .into_values()
        .filter(|t| !t.events.is_empty())
        .collect();
    threads.sort_by_key(|t| (t.pid, t.tid));
    for t in &mut threads {
        nest(&mut t.events);
    }
    Tracks {
        names,
        threads,
        warnings,
    }
}

/// Gives each event its depth: inside the events that contain it, and below any it
/// overlaps without nesting (so that no two events of a depth overlap).
fn nest(events: &mut [TrackEvent]) {
    events.sort_by_key(|e| (e.start_us, std::cmp::Reverse(e.end_us)));
    // Each depth's last end.
    let mut ends: Vec<i64> = Vec::new();
    for e in events.iter_mut() {
        let depth = ends
            .iter()
            .position(|&end| end <= e.start_us)
            .unwrap_or(ends.len());
        // Never above an event still open that contains it.
        let depth = ends
            .iter()
            .rposition(|&end| end > e.start_us)
            .map_or(depth, |open| depth.max(open + 1));
        if depth == ends.len() {
            ends.push(e.end_us);
        } else {
            ends[depth] = e.end_us;
        }
        e.depth = depth as u32;
    }
}

/// The CPU profiles of `events`.
fn profiles_of(events: Vec<Value>) -> Result<Vec<TraceProfile>, ProfileError> {
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
    for e in events {
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
    // A long profile's samples are read by a scanner that looks only at `ts` and `sf`; the
    // rest (and any file the scanner does not follow) by serde.
    if let Some((frames, timed)) = scan::hermes(text.as_bytes()) {
        return hermes_profile(&frames, timed).map(Some);
    }
    parse_hermes_with_serde(text)
}

/// [`parse_hermes`] without its scanner: every file read by serde (what the tests and the
/// fuzzer hold the scanner to).
pub fn parse_hermes_with_serde(text: &str) -> Result<Option<Profile>, ProfileError> {
    use super::cpuprofile::Micros;
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
    let mut timed: Vec<(i64, u32)> = Vec::with_capacity(samples.len());
    for s in samples {
        let ts = s.ts.ok_or(ProfileError::Field("a sample without `ts`"))?.0;
        let sf = s.sf.ok_or(ProfileError::Field("a sample without `sf`"))?.0;
        // An id past u32 names no frame: the reader says which sample.
        timed.push((ts, u32::try_from(sf).unwrap_or(u32::MAX)));
    }
    hermes_profile(&frames, timed).map(Some)
}

/// A Hermes profile from its stack frames and its samples (time, frame id).
fn hermes_profile(
    frames: &serde_json::Map<String, Value>,
    mut timed: Vec<(i64, u32)>,
) -> Result<Profile, ProfileError> {
    use super::cpuprofile::{Micros, Raw, build};
    let num = |v: &Value| -> Option<i64> {
        v.as_i64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .or_else(|| v.as_f64().map(|f| f as i64))
    };
    let mut nodes = Vec::with_capacity(frames.len());
    for (id, f) in frames {
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
            // Samples at several offsets of one function are one function.
            if let Some(start) = num(&f["funcVirtAddr"]) {
                node["callFrame"]["functionStart"] = json!(start);
            }
        }
        if let Some(p) = num(&f["parent"]) {
            node["parent"] = json!(p);
        }
        nodes.push(node);
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
    Ok(profile)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scanner reads the recorded profile, and one rewritten with its keys sorted and
    /// strings escaped, as serde does.
    #[test]
    fn the_hermes_scanner_reads_what_serde_reads() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/profiles/hermes/work.hermes-profile.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let sorted = serde_json::to_string(&serde_json::from_str::<Value>(&text).unwrap())
            .unwrap()
            .replace("\"name\":\"\"", "\"name\":\"a \\\" } ] { [ b\"");
        for t in [text.as_str(), sorted.as_str()] {
            assert!(scan::hermes(t.as_bytes()).is_some());
            let fast = parse_hermes(t).unwrap().unwrap();
            assert_eq!(Some(fast), parse_hermes_with_serde(t).unwrap());
        }
    }

    /// Events the format does not define, an `E` without its `B`, a `B` never ended and a
    /// negative `dur` each get a warning naming the rule; the rest make the tracks.
    #[test]
    fn bad_duration_events_are_named() {
        let text = r#"[
            {"ph":"B","name":"outer","pid":1,"tid":2,"ts":10},
            {"ph":"X","name":"inner","pid":1,"tid":2,"ts":12,"dur":3},
            {"ph":"E","pid":1,"tid":2,"ts":20},
            {"ph":"E","pid":1,"tid":2,"ts":21},
            {"ph":"B","name":"open","pid":1,"tid":2,"ts":30},
            {"ph":"X","name":"late","pid":1,"tid":2,"ts":31,"dur":9},
            {"ph":"X","name":"neg","pid":1,"tid":2,"ts":31,"dur":-1},
            {"ph":"Z","name":"what","pid":1,"tid":2,"ts":32}
        ]"#;
        let (_, tracks) = parse_trace(text).unwrap();
        let w = tracks.warnings.join("\n");
        assert!(w.contains("1 events of phase \"Z\""), "{w}");
        assert!(w.contains("1 `E` events end no `B`"), "{w}");
        assert!(w.contains("1 `B` events have no `E`"), "{w}");
        assert!(w.contains("1 `X` events with a negative `dur`"), "{w}");
        let t = &tracks.threads[0];
        let by_name = |n: &str| {
            t.events
                .iter()
                .find(|e| tracks.names[e.name as usize] == n)
                .copied()
                .unwrap()
        };
        assert_eq!(
            (by_name("outer").start_us, by_name("outer").end_us),
            (10, 20)
        );
        assert_eq!(by_name("inner").depth, 1);
        // Open until the thread's last event (`late` ends at 40).
        assert_eq!(by_name("open").end_us, 40);
        assert_eq!(by_name("late").depth, 1);
    }

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

/// A scanner for the one part of a Hermes profile that grows with its length, the samples:
/// it walks the top-level object, reads `stackFrames` with serde (they are few) and, in
/// `samples`, only each object's `ts` and `sf`, skipping every other value by its brackets
/// and strings. serde reads samples of a million objects, each with seven fields, at a
/// third of the speed. `None` whenever the text is not as Hermes writes it: the caller then
/// reads it with serde, which names what is wrong.
mod scan {
    use serde_json::{Map, Value};

    /// The stack frames, and each sample's time and frame id.
    pub(super) type Hermes = (Map<String, Value>, Vec<(i64, u32)>);

    pub(super) fn hermes(b: &[u8]) -> Option<Hermes> {
        let mut i = ws(b, 0);
        if b.get(i) != Some(&b'{') {
            return None;
        }
        i += 1;
        let (mut frames, mut samples) = (None, None);
        loop {
            i = ws(b, i);
            match b.get(i)? {
                b'}' => break,
                b',' => i = ws(b, i + 1),
                _ => {}
            }
            let (key, after) = string(b, i)?;
            i = ws(b, after);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i = ws(b, i + 1);
            match key {
                b"stackFrames" => {
                    let end = skip(b, i)?;
                    frames = Some(serde_json::from_slice(&b[i..end]).ok()?);
                    i = end;
                }
                b"samples" => {
                    let (list, end) = sample_list(b, i)?;
                    samples = Some(list);
                    i = end;
                }
                _ => i = skip(b, i)?,
            }
        }
        Some((frames?, samples?))
    }

    /// `[{…, "ts": …, "sf": …}, …]` from `i`: each object's time and frame id.
    fn sample_list(b: &[u8], mut i: usize) -> Option<(Vec<(i64, u32)>, usize)> {
        if b.get(i) != Some(&b'[') {
            return None;
        }
        i += 1;
        let mut out = Vec::new();
        loop {
            i = ws(b, i);
            match b.get(i)? {
                b']' => return Some((out, i + 1)),
                b',' => i = ws(b, i + 1),
                _ => {}
            }
            if b.get(i) != Some(&b'{') {
                return None;
            }
            i += 1;
            let (mut ts, mut sf) = (None, None);
            loop {
                i = ws(b, i);
                match b.get(i)? {
                    b'}' => {
                        i += 1;
                        break;
                    }
                    b',' => i = ws(b, i + 1),
                    _ => {}
                }
                let (key, after) = string(b, i)?;
                i = ws(b, after);
                if b.get(i) != Some(&b':') {
                    return None;
                }
                i = ws(b, i + 1);
                let end = skip(b, i)?;
                match key {
                    b"ts" => ts = Some(number(&b[i..end])?),
                    b"sf" => sf = Some(number(&b[i..end])?),
                    _ => {}
                }
                i = end;
            }
            out.push((ts?, u32::try_from(sf?).ok()?));
        }
    }

    /// An integer written as a number or as a string of digits.
    fn number(v: &[u8]) -> Option<i64> {
        let v = v
            .strip_prefix(b"\"")
            .and_then(|v| v.strip_suffix(b"\""))
            .unwrap_or(v);
        let (negative, digits) = match v.strip_prefix(b"-") {
            Some(d) => (true, d),
            None => (false, v),
        };
        if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
            // A float, an exponent, a long number: as Rust reads it.
            return std::str::from_utf8(v).ok()?.parse().ok();
        }
        let n = digits
            .iter()
            .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
        Some(if negative { -n } else { n })
    }

    fn ws(b: &[u8], mut i: usize) -> usize {
        while b.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    }

    /// The string at `i` (its raw bytes, escapes kept) and the index after it.
    fn string(b: &[u8], i: usize) -> Option<(&[u8], usize)> {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        // Most strings are short (keys, small values): a byte loop beats a search's setup.
        let mut j = i + 1;
        loop {
            match *b.get(j)? {
                b'"' => return Some((&b[i + 1..j], j + 1)),
                b'\\' => j += 2,
                _ => j += 1,
            }
        }
    }

    /// The index after the value at `i` (brackets matched, strings skipped whole).
    fn skip(b: &[u8], i: usize) -> Option<usize> {
        match b.get(i)? {
            b'"' => string(b, i).map(|(_, end)| end),
            b'{' | b'[' => {
                let mut depth = 0usize;
                let mut j = i;
                loop {
                    match *b.get(j)? {
                        b'"' => j = string(b, j)?.1,
                        b'{' | b'[' => {
                            depth += 1;
                            j += 1;
                        }
                        b'}' | b']' => {
                            depth -= 1;
                            j += 1;
                            if depth == 0 {
                                return Some(j);
                            }
                        }
                        _ => j += 1,
                    }
                }
            }
            _ => {
                // A number, true, false or null: up to the next delimiter.
                let n = b[i..]
                    .iter()
                    .position(|c| matches!(c, b',' | b'}' | b']') || c.is_ascii_whitespace())
                    .unwrap_or(b.len() - i);
                (n > 0).then_some(i + n)
            }
        }
    }
}
