//! CPU profiles symbolicated at the cost of their distinct locations: each location with a
//! script position becomes a one-frame V8 stack of its own (so no frame's name depends on a
//! neighbour's), the stacks go through the same journey as a crash log's
//! ([`symbolicate`](crate::symbolicate)), and the samples only index the answers. Times are
//! the DevTools Performance panel's ([`Profile::sample_durations_us`]): a function's self time
//! is the time of the samples it is the leaf of; its total time that of the samples it is on
//! the stack of, once per sample however deep the recursion.
//!
//! # `symscope profile`
//!
//! ```text
//! symscope profile [-s PATH]... [--format json|text|collapsed|cpuprofile|speedscope] [--top N] PROFILE
//! ```
//! PROFILE is a `.cpuprofile`, a Hermes sampling profile, a Chrome trace-event file (each of
//! its CPU profiles, named by process, thread and id) or `perf script` output (a profile per
//! thread; native frames resolved against the debug files given, as crash frames are; a JVM's
//! JIT-compiled methods, which its perf map names `RET CLASS.METHOD(ARGS)` (module
//! `/tmp/perf-PID.map`), are one location per method, deobfuscated through the ProGuard/R8
//! mapping given as Java crash frames are, the signature choosing among methods that share
//! an obfuscated name; the JVM's interpreter and stubs are kept as recorded). `json` writes `{"profiles": [Profile, ...]}`, a Profile:
//! ```jsonc
//! {
//!   "profile": "CPU.cpuprofile",   // the file as named (a trace's: "t.json (pid 7, tid 9, profile 0x1)")
//!   "duration_ms": 942.3,          // endTime − startTime
//!   "samples": 1387,
//!   "locations": 212,              // distinct recorded call frames (each resolved once)
//!   "warnings": ["…"],             // what was read but not as the format says
//!   "nodes": [{                    // every node, parents first
//!     "id": 7, "parent": 3,        // ids as recorded (parent: null for the root)
//!     "call_frame": {"function_name": "Ct", "url": "file:///…/lodash.min.js",
//!                    "line": 8, "column": 5570},   // as recorded: 0-based
//!     "status": "resolved",        // as a crash frame's (symbolicate's JSON); null: no script
//!     "function": "arrayReduce",   // the original function (null: anonymous or unresolved)
//!     "file": "node_modules/lodash/lodash.js", "line": 690, "column": 4, // 1-based line, 0-based column
//!     "note": null,                // why not resolved, or how it was named
//!     "hits": 12, "self_ms": 3.1
//!   }],
//!   "functions": [{                // by self time, largest first (`--top N`: the first N)
//!     "function": "arrayReduce", "file": "…", "line": 690, "column": 4,
//!     "samples": 40, "self_ms": 10.2, "total_ms": 55.0
//!   }]
//! }
//! ```
//! A trace-event file's threads' duration events (`X`, `B`/`E`) follow the profiles, as the
//! window draws them under its flame chart ([`tracks_json`]):
//! ```jsonc
//! "tracks": [{"pid": 3854, "tid": 3854, "thread": "JavaScriptMainThread",  // "": unnamed
//!   "events": [{"name": "V8.GCScavenger", "start_ms": 1234.567,  // the trace's clock
//!               "duration_ms": 3.2, "depth": 0}]}]               // depth 0: outermost
//! ```
//! A sampling heap profile (`.heapprofile`) or a heap timeline's allocation stacks are weighed
//! in bytes: the document adds `"weight": "bytes"`, and each node's and function's
//! `self_ms`/`total_ms` are `self_size`/`total_size` (bytes; a node's `selfSize` as V8 wrote
//! it), `hits` and `samples` the allocation samples (objects, for a timeline).
//! `text` is the functions as a table; `collapsed` the folded stacks (`a;b;c 12`, sample
//! counts, bytes for a heap profile, original names; several profiles each under a root named as above) that flame
//! graph tools read; `cpuprofile` the profile itself (of a trace holding one) with
//! each node's `callFrame` carrying the original function, file, line and column (0-based,
//! the format's own convention), so DevTools and speedscope show original names;
//! `speedscope` speedscope's own file format ([`to_speedscope`]): every profile of the file,
//! each sample's stack of original frames weighed by its duration.

use super::table::ResultsBuilder;
use super::{Error, FrameTable};
use crate::model::{Frame, FrameInput, FrameStatus, LogFormat, Profile, Progress, Stack, Trace};
use crate::symbolicate::{Options, SymbolSet};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// A profile with each distinct location resolved.
#[derive(Debug)]
pub struct ResolvedProfile {
    /// The file as named.
    pub name: String,
    /// The profile (shared with whoever read it: the window keeps the raw one).
    pub profile: std::sync::Arc<Profile>,
    /// One single-frame stack per location with a script position.
    table: std::sync::Arc<FrameTable>,
    /// Each location's stack in `table`.
    stack_of: Vec<Option<usize>>,
    /// A perf profile's JIT-compiled Java methods as one-frame Java stacks, deobfuscated
    /// through the set's ProGuard/R8 mapping (`None`: the profile has none).
    java: Option<std::sync::Arc<FrameTable>>,
    /// Each Java location's stack in `java`.
    java_of: Vec<Option<usize>>,
    /// Each location's function start's stack in `table`, when the location is a position
    /// inside its function (a Hermes frame).
    start_of: Vec<Option<usize>>,
}

/// What a location resolved to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Place {
    /// The original function (or the recorded one, unresolved).
    pub function: Option<String>,
    /// The original file (or the recorded URL).
    pub file: Option<String>,
    /// 1-based line.
    pub line: Option<u32>,
    /// 0-based column.
    pub column: Option<u32>,
}

/// One function's share of the profile.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionRow {
    /// Where it is.
    pub place: Place,
    /// Samples it is the leaf of.
    pub samples: u64,
    /// Self time, µs.
    pub self_us: i64,
    /// Total time, µs.
    pub total_us: i64,
}

/// The CPU profiles of a `.cpuprofile`, trace-event file or Hermes sampling profile, each with
/// its label: a trace's named by process, thread and id, the others by the file. The window
/// and `symscope profile` read profiles here alike.
pub fn read_profiles(file: &super::Detected) -> Result<Vec<(String, Profile)>, Error> {
    read_profile_file(file).map(|(profiles, _)| profiles)
}

/// [`read_profiles`], with a trace's threads' duration events (`None`: not a trace).
#[allow(clippy::type_complexity)]
pub fn read_profile_file(
    file: &super::Detected,
) -> Result<
    (
        Vec<(String, Profile)>,
        Option<crate::formats::trace_events::Tracks>,
    ),
    Error,
> {
    use crate::formats::{cpuprofile, trace_events};
    let name = file.name.as_str();
    let bad = |e: cpuprofile::ProfileError| Error::new(name, e);
    let text = std::str::from_utf8(file.blob.as_slice())
        .map_err(|_| bad(cpuprofile::ProfileError::NotText))?;
    if crate::formats::perf_script::is_perf_script(text) {
        let threads = crate::formats::perf_script::parse(text).map_err(bad)?;
        let profiles = threads
            .into_iter()
            .map(|t| {
                let label = format!("{name} ({} {}/{})", t.comm, t.pid, t.tid);
                (label, t.profile)
            })
            .collect();
        return Ok((profiles, None));
    }
    if cpuprofile::is_heap_profile(file.blob.as_slice()) {
        let profile = cpuprofile::parse_heap_profile(text).map_err(bad)?;
        return Ok((vec![(name.to_owned(), profile)], None));
    }
    let trace = trace_events::is_trace_events(file.blob.as_slice());
    let hermes = if trace {
        trace_events::parse_hermes(text).map_err(bad)?
    } else {
        None
    };
    let mut tracks = None;
    let profiles: Vec<(String, Profile)> = if let Some(p) = hermes {
        vec![(name.to_owned(), p)]
    } else if trace {
        let (profiles, t) = trace_events::parse_trace(text).map_err(bad)?;
        tracks = Some(t);
        profiles
            .into_iter()
            .map(|p| {
                let label = format!("{name} (pid {}, tid {}, profile {})", p.pid, p.tid, p.id);
                (label, p.profile)
            })
            .collect()
    } else {
        vec![(name.to_owned(), cpuprofile::parse(text).map_err(bad)?)]
    };
    if profiles.is_empty() {
        return Err(Error::new(name, super::Reason::NoProfile));
    }
    Ok((profiles, tracks))
}

/// A V8 CPU profile's per-node totals read from `input` without its samples kept (see
/// [`crate::formats::cpuprofile::read_totals`]): enough for [`ResolvedProfile::functions`],
/// the JSON, the text table and the folded stacks, not for a timeline. `None`: the file is
/// not a plain `.cpuprofile` this reader takes; read it whole with [`read_profile_file`].
/// `head` is the file's start (64 KB, or all of a shorter file), which detects it; `input`
/// reads the file from its first byte; `reopen`, when given, reads it again from an offset,
/// so that not even the samples' ids are held (see
/// [`crate::formats::cpuprofile::read_totals_reopening`]).
pub fn read_profile_totals(
    name: &str,
    head: &[u8],
    input: impl std::io::Read,
    reopen: Option<crate::formats::cpuprofile::Reopen<'_>>,
) -> Result<Option<Profile>, Error> {
    use crate::formats::{cpuprofile, trace_events};
    if crate::formats::peek(head) != crate::model::FileKind::Profile
        || !cpuprofile::is_cpuprofile(head)
        || trace_events::is_trace_events(head)
    {
        return Ok(None);
    }
    match reopen {
        Some(reopen) => cpuprofile::read_totals_reopening(input, reopen),
        None => cpuprofile::read_totals(input),
    }
    .map_err(|e| Error::new(name, e))
}

/// The bytecode file a Hermes profile's addresses are in: the Hermes map among `symbols`
/// (`….hbc.map`), else the only map, named without `.map`.
pub fn bytecode_file(symbols: &SymbolSet) -> Option<String> {
    let names: Vec<&str> = symbols.maps.iter().map(|m| m.name.as_str()).collect();
    let name = names
        .iter()
        .find(|n| n.ends_with(".hbc.map"))
        .or(if names.len() == 1 {
            names.first()
        } else {
            None
        })?;
    Some(name.strip_suffix(".map").unwrap_or(name).to_owned())
}

/// Resolves each distinct location of `profile` against `symbols` once (a Hermes profile's
/// bytecode addresses in `bytecode`, see [`bytecode_file`]).
pub fn symbolicate_profile(
    name: &str,
    profile: std::sync::Arc<Profile>,
    symbols: &SymbolSet,
    progress: &mut dyn Progress,
) -> Result<ResolvedProfile, Error> {
    let bytecode = profile.bytecode.then(|| bytecode_file(symbols)).flatten();
    let mut stacks = Vec::new();
    let mut stack_of = vec![None; profile.locations.len()];
    let mut start_of = vec![None; profile.locations.len()];
    let mut starts: HashMap<(String, i64), usize> = HashMap::new();
    let one_frame = |raw: String, n: usize, function: Option<String>, url: &str, line, column| {
        let input = FrameInput {
            function,
            file: Some(url.to_owned()),
            line: Some(line),
            column: Some(column),
            ..FrameInput::default()
        };
        one_frame_stack(raw, n + 1, input)
    };
    let mut modules: Vec<crate::model::Module> = Vec::new();
    let build_id = |path: &str| {
        profile
            .module_ids
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, id)| id.as_str())
    };
    let mut java_stacks = Vec::new();
    let mut java_of = vec![None; profile.locations.len()];
    for (i, loc) in profile.locations.iter().enumerate() {
        if profile.native && crate::formats::perf_script::jvm_method(loc).is_some() {
            // A JIT-compiled Java method: a Java frame, its name as the JVM printed it
            // (with its signature, which picks among methods sharing an obfuscated name).
            java_of[i] = Some(java_stacks.len());
            java_stacks.push(one_frame_stack(
                format!("    at {} ({})", loc.function, loc.url),
                java_stacks.len() + 1,
                FrameInput {
                    function: Some(loc.function.clone()),
                    ..FrameInput::default()
                },
            ));
            continue;
        }
        if profile.native {
            // A native frame: module and file-relative address, as a crash record's. A JIT's
            // other code (the JVM's interpreter, stubs) has no file to look up: as recorded.
            if loc.url.is_empty()
                || loc.column < 0
                || crate::formats::perf_script::is_perf_map(&loc.url)
            {
                continue;
            }
            let module = loc
                .url
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or(&loc.url)
                .to_owned();
            if !modules
                .iter()
                .any(|m| m.path.as_deref() == Some(loc.url.as_str()))
            {
                modules.push(crate::model::Module {
                    name: module.clone(),
                    path: Some(loc.url.clone()),
                    id: build_id(&loc.url).map(str::to_owned),
                    ..crate::model::Module::default()
                });
            }
            let address = loc.column as u64;
            stack_of[i] = Some(stacks.len());
            stacks.push(one_frame_stack(
                format!("    {address:x} {} ({})", loc.function, loc.url),
                stacks.len() + 1,
                FrameInput {
                    function: (!loc.function.is_empty() && loc.function != "[unknown]")
                        .then(|| loc.function.clone()),
                    address: Some(address),
                    module: Some(module),
                    module_offset: Some(address),
                    build_id: build_id(&loc.url).map(str::to_owned),
                    return_address: loc.return_address,
                    ..FrameInput::default()
                },
            ));
            continue;
        }
        let url = match &bytecode {
            Some(file) if profile.bytecode => file.as_str(),
            _ => loc.url.as_str(),
        };
        if url.is_empty() || loc.line < 0 {
            continue;
        }
        // Bytecode addresses as Hermes prints them (0-based); JS positions 1-based.
        let (line, column) = if profile.bytecode {
            (1, loc.column.clamp(0, i64::from(u32::MAX)) as u32)
        } else {
            let clamp = |v: i64| v.clamp(0, i64::from(u32::MAX - 1)) as u32;
            (clamp(loc.line) + 1, clamp(loc.column) + 1)
        };
        let raw = match (profile.bytecode, loc.function.is_empty()) {
            (true, _) => format!("    at {} (address at {url}:{line}:{column})", loc.function),
            (false, true) => format!("    at {url}:{line}:{column}"),
            (false, false) => format!("    at {} ({url}:{line}:{column})", loc.function),
        };
        stack_of[i] = Some(stacks.len());
        let function = (!loc.function.is_empty()).then(|| loc.function.clone());
        stacks.push(one_frame(
            raw,
            stacks.len(),
            function.clone(),
            url,
            line,
            column,
        ));
        // A position inside a function: its start too, once per function, so that samples
        // at several offsets count for one function.
        if profile.bytecode && loc.function_start >= 0 && loc.function_start != loc.column {
            let start = loc.function_start.clamp(0, i64::from(u32::MAX)) as u32;
            let n = stacks.len();
            let k = *starts
                .entry((url.to_owned(), loc.function_start))
                .or_insert_with(|| {
                    let raw = format!("    at {} (address at {url}:1:{start})", loc.function);
                    stacks.push(one_frame(raw, n, function, url, 1, start));
                    n
                });
            start_of[i] = Some(k);
        }
    }
    let trace = Trace {
        format: if profile.native {
            LogFormat::NativeAddresses
        } else if profile.bytecode {
            LogFormat::HermesBytecode
        } else {
            LogFormat::V8
        },
        stacks,
        modules,
    };
    let table = resolve_stacks(name, &trace, symbols, progress)?;
    let java = if java_stacks.is_empty() {
        None
    } else {
        let trace = Trace {
            format: LogFormat::Java,
            stacks: java_stacks,
            modules: Vec::new(),
        };
        Some(std::sync::Arc::new(resolve_stacks(
            name, &trace, symbols, progress,
        )?))
    };
    Ok(ResolvedProfile {
        name: name.to_owned(),
        profile,
        table: std::sync::Arc::new(table),
        stack_of,
        java,
        java_of,
        start_of,
    })
}

/// A stack of the one frame `raw` (its line number `line_no`), read as `input`: how each
/// distinct location is resolved on its own.
fn one_frame_stack(raw: String, line_no: usize, input: FrameInput) -> Stack {
    Stack {
        title: String::new(),
        title_line: 0,
        crashed: false,
        frames: vec![Frame {
            raw,
            line_no,
            input: Some(input),
        }],
    }
}

/// The one-frame stacks of `trace` symbolicated into a table.
fn resolve_stacks(
    name: &str,
    trace: &Trace,
    symbols: &SymbolSet,
    progress: &mut dyn Progress,
) -> Result<FrameTable, Error> {
    let table = FrameTable::from_trace(trace, None);
    let mut results = ResultsBuilder::new(&table);
    let summary = crate::symbolicate::symbolicate_into(
        &table,
        symbols,
        Options::default(),
        progress,
        &mut results,
    );
    if summary.cancelled {
        return Err(Error::new(name, super::Reason::Cancelled));
    }
    Ok(results.finish(summary))
}

impl ResolvedProfile {
    /// The one-frame stacks the locations were resolved as, and location `loc`'s stack in
    /// it (`None`: no script), for the window's frame detail.
    pub fn table_and_stack(&self, loc: u32) -> (&std::sync::Arc<FrameTable>, Option<usize>) {
        if let Some(java) = &self.java
            && let Some(s) = self.java_of.get(loc as usize).copied().flatten()
        {
            return (java, Some(s));
        }
        (
            &self.table,
            self.stack_of.get(loc as usize).copied().flatten(),
        )
    }

    /// Location `loc` as the one-frame stack it was resolved as (`None`: no script), for
    /// what a crash frame shows: where the name came from, the map and generated position.
    pub fn frame(&self, loc: u32) -> Option<super::table::FrameRef<'_>> {
        let (table, stack) = self.table_and_stack(loc);
        table.frame(stack?, 0)
    }

    /// Location `loc`'s status (`None`: V8's own entries, no script) and note.
    pub fn status(&self, loc: u32) -> (Option<FrameStatus>, Option<&str>) {
        match self.frame(loc) {
            Some(f) => (f.status(), f.note()),
            None => (None, None),
        }
    }

    /// Where location `loc` is: the original place when resolved, else as recorded.
    pub fn place(&self, loc: u32) -> Place {
        let recorded = &self.profile.locations[loc as usize];
        if let Some(l) = self
            .frame(loc)
            .filter(|f| f.status() == Some(FrameStatus::Resolved))
            .and_then(|f| f.location())
        {
            return Place {
                function: l.function.map(str::to_owned),
                file: l.file.map(str::to_owned),
                line: l.line,
                column: l.column.map(|c| c.saturating_sub(1)),
            };
        }
        if let Some(m) = crate::formats::perf_script::jvm_method(recorded) {
            // A Java method not in the mapping (the JDK's own): named as a Java frame is.
            return Place {
                function: Some(format!("{}.{}", m.class, m.method)),
                file: Some(recorded.url.clone()),
                line: None,
                column: None,
            };
        }
        if self.profile.native {
            // An address, not a line: the function and module as recorded.
            return Place {
                function: (!recorded.function.is_empty() && recorded.function != "[unknown]")
                    .then(|| recorded.function.clone()),
                file: (!recorded.url.is_empty()).then(|| recorded.url.clone()),
                line: None,
                column: None,
            };
        }
        Place {
            function: (!recorded.function.is_empty()).then(|| recorded.function.clone()),
            file: (!recorded.url.is_empty()).then(|| recorded.url.clone()),
            line: (recorded.line >= 0)
                .then(|| (recorded.line.min(i64::from(u32::MAX - 1)) as u32) + 1),
            column: (recorded.column >= 0)
                .then_some(recorded.column.min(i64::from(u32::MAX)) as u32),
        }
    }

    /// Where location `loc`'s function is: [`Self::place`] with, for a position inside a
    /// function (a Hermes frame), the function's start as its line and column. What the
    /// functions table, the call trees and the flame graph group by.
    pub fn function_place(&self, loc: u32) -> Place {
        let mut place = self.place(loc);
        // A native sample's addresses are positions in their function: it is one function
        // by its name and file, as `perf report` counts it.
        if self.profile.native {
            place.line = None;
            place.column = None;
            return place;
        }
        if let Some(start) = self.start_of[loc as usize]
            .and_then(|s| self.table.frame(s, 0))
            .filter(|f| f.status() == Some(FrameStatus::Resolved))
            .and_then(|f| f.location())
            && start.file.map(str::to_owned) == place.file
        {
            place.line = start.line;
            place.column = start.column.map(|c| c.saturating_sub(1));
        }
        place
    }

    /// A place's name as shown: its function, or `(anonymous)`.
    fn shown(place: &Place) -> &str {
        place.function.as_deref().unwrap_or("(anonymous)")
    }

    /// The functions by self time, largest first: self from the samples each is the leaf
    /// of, total from the samples each is on the stack of (once per sample).
    pub fn functions(&self) -> Vec<FunctionRow> {
        let p = &self.profile;
        let places: Vec<Place> = (0..p.locations.len() as u32)
            .map(|l| self.function_place(l))
            .collect();
        // One key per distinct place.
        let mut key_of: HashMap<&Place, usize> = HashMap::new();
        let loc_key: Vec<usize> = places
            .iter()
            .map(|pl| {
                let n = key_of.len();
                *key_of.entry(pl).or_insert(n)
            })
            .collect();
        let mut rows: Vec<FunctionRow> = vec![
            FunctionRow {
                place: Place::default(),
                samples: 0,
                self_us: 0,
                total_us: 0,
            };
            key_of.len()
        ];
        for (pl, &k) in &key_of {
            rows[k].place = (*pl).clone();
        }
        let self_us = p.self_us();
        let hits = p.hits();
        // Each node's time goes to every distinct function on its path to the root.
        let mut seen = HashSet::new();
        for (i, node) in p.nodes.iter().enumerate() {
            if hits[i] == 0 {
                continue;
            }
            // The root entry (V8's `(root)`, Hermes' `[root]`) is no function.
            if node.parent.is_none() {
                continue;
            }
            let leaf = loc_key[node.location as usize];
            rows[leaf].samples += hits[i];
            rows[leaf].self_us = rows[leaf].self_us.saturating_add(self_us[i]);
            seen.clear();
            let mut at = Some(i as u32);
            while let Some(n) = at {
                let node = p.nodes[n as usize];
                if node.parent.is_some() && seen.insert(loc_key[node.location as usize]) {
                    let row = &mut rows[loc_key[node.location as usize]];
                    row.total_us = row.total_us.saturating_add(self_us[i]);
                }
                at = node.parent;
            }
        }
        rows.retain(|r| r.total_us > 0 || r.samples > 0);
        rows.sort_by(|a, b| {
            b.self_us
                .cmp(&a.self_us)
                .then(b.total_us.cmp(&a.total_us))
                .then_with(|| Self::shown(&a.place).cmp(Self::shown(&b.place)))
                .then_with(|| a.place.file.cmp(&b.place.file))
                .then(a.place.line.cmp(&b.place.line))
                .then(a.place.column.cmp(&b.place.column))
        });
        rows
    }

    /// The folded stacks (`root;…;leaf count`), original names, root entry left out; a
    /// profile weighed in bytes folds bytes, not samples.
    pub fn collapsed(&self) -> String {
        let p = &self.profile;
        let hits: Vec<u64> = if p.weight == crate::model::Weight::Bytes {
            p.self_us().iter().map(|&b| b.max(0) as u64).collect()
        } else {
            p.hits()
        };
        let names: Vec<String> = (0..p.locations.len() as u32)
            .map(|l| Self::shown(&self.place(l)).replace(';', ":"))
            .collect();
        let mut out = String::new();
        for (i, &h) in hits.iter().enumerate() {
            if h == 0 {
                continue;
            }
            let mut path = Vec::new();
            let mut at = Some(i as u32);
            while let Some(n) = at {
                let node = p.nodes[n as usize];
                if node.parent.is_some() {
                    path.push(names[node.location as usize].as_str());
                }
                at = node.parent;
            }
            path.reverse();
            out.push_str(&path.join(";"));
            out.push_str(&format!(" {h}\n"));
        }
        out
    }

    /// The JSON document (see the module's docs), with the first `top` functions.
    pub fn to_json(&self, top: Option<usize>) -> Value {
        let p = &self.profile;
        let bytes = p.weight == crate::model::Weight::Bytes;
        let self_us = p.self_us();
        let hits = p.hits();
        // Milliseconds to the microsecond.
        let ms = |us: i64| us as f64 / 1e3;
        // A weight under its name: `self_ms`/`total_ms`, or bytes as `self_size`/`total_size`.
        let weigh = |o: &mut Value, what: &str, w: i64| {
            if bytes {
                o[format!("{what}_size")] = json!(w);
            } else {
                o[format!("{what}_ms")] = json!(ms(w));
            }
        };
        let nodes: Vec<Value> = p
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let rec = &p.locations[n.location as usize];
                let (status, note) = self.status(n.location);
                let place = self.place(n.location);
                let resolved = status == Some(FrameStatus::Resolved);
                let mut o = json!({
                    "id": n.id,
                    "parent": n.parent.map(|q| p.nodes[q as usize].id),
                    "call_frame": {
                        "function_name": rec.function, "url": rec.url,
                        "line": rec.line, "column": rec.column,
                    },
                    "status": status.map(|s| s.as_str()),
                    "function": if resolved { place.function.clone() } else { None },
                    "file": if resolved { place.file.clone() } else { None },
                    "line": if resolved { place.line } else { None },
                    "column": if resolved { place.column } else { None },
                    "note": note,
                    "hits": hits[i],
                });
                weigh(&mut o, "self", self_us[i]);
                o
            })
            .collect();
        let mut functions = self.functions();
        if let Some(n) = top {
            functions.truncate(n);
        }
        let functions: Vec<Value> = functions
            .iter()
            .map(|f| {
                let mut o = json!({
                    "function": f.place.function, "file": f.place.file,
                    "line": f.place.line, "column": f.place.column,
                    "samples": f.samples,
                });
                weigh(&mut o, "self", f.self_us);
                weigh(&mut o, "total", f.total_us);
                o
            })
            .collect();
        json!({
            "weight": if bytes { "bytes" } else { "time" },
            "profile": self.name,
            "duration_ms": ms(p.end_us.saturating_sub(p.start_us)),
            "samples": p.sample_count(),
            "locations": p.locations.len(),
            "warnings": p.warnings,
            "nodes": nodes,
            "functions": functions,
        })
    }

    /// The functions as a table (the first `top`).
    pub fn to_text(&self, top: Option<usize>) -> String {
        let p = &self.profile;
        let all: i64 = p
            .self_us()
            .iter()
            .fold(0i64, |a, &b| a.saturating_add(b))
            .max(1);
        let mut out = if p.weight == crate::model::Weight::Bytes {
            format!(
                "{}: {} allocation samples, {all} bytes, {} distinct locations\n",
                self.name,
                p.sample_count(),
                p.locations.len()
            )
        } else {
            format!(
                "{}: {} samples, {:.1} ms, {} distinct locations\n",
                self.name,
                p.sample_count(),
                p.end_us.saturating_sub(p.start_us) as f64 / 1e3,
                p.locations.len()
            )
        };
        for w in &p.warnings {
            out.push_str(&format!("warning: {w}\n"));
        }
        let bytes = p.weight == crate::model::Weight::Bytes;
        let (unit, scale) = if bytes { ("bytes", 1.0) } else { ("ms", 1e3) };
        out.push_str(&format!(
            "{:>10} {:>6} {:>10} {:>6}  function\n",
            format!("self {unit}"),
            "self%",
            format!("total {unit}"),
            "total%"
        ));
        let mut rows = self.functions();
        if let Some(n) = top {
            rows.truncate(n);
        }
        for r in rows {
            let place = match (&r.place.file, r.place.line) {
                (Some(f), Some(l)) => format!("  {f}:{l}"),
                (Some(f), None) => format!("  {f}"),
                _ => String::new(),
            };
            out.push_str(&format!(
                "{:>10.*} {:>5.1}% {:>10.*} {:>5.1}%  {}{place}\n",
                if bytes { 0 } else { 2 },
                r.self_us as f64 / scale,
                r.self_us as f64 * 100.0 / all as f64,
                if bytes { 0 } else { 2 },
                r.total_us as f64 / scale,
                r.total_us as f64 * 100.0 / all as f64,
                Self::shown(&r.place),
            ));
        }
        out
    }

    /// The profile as a `.cpuprofile` with original call frames.
    pub fn to_cpuprofile(&self) -> CpuProfileOut {
        let p = &self.profile;
        let hits = p.hits();
        let mut children: Vec<Vec<u64>> = vec![Vec::new(); p.nodes.len()];
        for n in &p.nodes {
            if let Some(q) = n.parent {
                children[q as usize].push(n.id);
            }
        }
        let nodes: Vec<Value> = p
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let rec = &p.locations[n.location as usize];
                let (status, _) = self.status(n.location);
                let mut frame = json!({
                    "functionName": rec.function, "scriptId": rec.script_id, "url": rec.url,
                    "lineNumber": rec.line, "columnNumber": rec.column,
                });
                if status == Some(FrameStatus::Resolved) {
                    let place = self.place(n.location);
                    frame["functionName"] = json!(place.function.unwrap_or_default());
                    frame["url"] = json!(place.file.unwrap_or_default());
                    frame["lineNumber"] = json!(place.line.map_or(-1, |l| l as i64 - 1));
                    frame["columnNumber"] = json!(place.column.map_or(-1, i64::from));
                }
                json!({"id": n.id, "callFrame": frame, "hitCount": hits[i], "children": children[i]})
            })
            .collect();
        let mut last = p.start_us;
        let deltas: Vec<i64> = p
            .times_us
            .iter()
            .map(|&t| {
                let d = t.saturating_sub(last);
                last = t;
                d
            })
            .collect();
        let samples: Vec<u64> = p.samples.iter().map(|&s| p.nodes[s as usize].id).collect();
        CpuProfileOut {
            nodes,
            start_time: p.start_us,
            end_time: p.end_us,
            samples,
            time_deltas: deltas,
        }
    }
}

/// A `.cpuprofile` as written: the nodes as JSON (they are few), the samples and deltas as
/// plain arrays (a long profile is mostly these).
#[derive(Debug, serde::Serialize)]
pub struct CpuProfileOut {
    /// The nodes, each with its `callFrame` (original where resolved) and `children`.
    pub nodes: Vec<Value>,
    /// `startTime`, µs.
    #[serde(rename = "startTime")]
    pub start_time: i64,
    /// `endTime`, µs.
    #[serde(rename = "endTime")]
    pub end_time: i64,
    /// Each sample's node id.
    pub samples: Vec<u64>,
    /// Each sample's time after the one before (the first: after `startTime`), µs.
    #[serde(rename = "timeDeltas")]
    pub time_deltas: Vec<i64>,
}

/// speedscope's file format (`https://www.speedscope.app/file-format-schema.json`): the
/// original frames shared by every profile, each profile `sampled`, a sample a stack of
/// frame indexes from the outermost (the root entry left out), weighed by its duration in
/// µs (DevTools' rule, [`Profile::sample_durations_us`]).
#[derive(Debug, serde::Serialize)]
pub struct Speedscope<'a> {
    /// The schema's URL.
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    /// The frames.
    pub shared: SpeedscopeShared,
    /// The profiles.
    pub profiles: Vec<SpeedscopeProfile<'a>>,
    /// The first profile's name.
    pub name: String,
    /// Which profile speedscope opens on.
    #[serde(rename = "activeProfileIndex")]
    pub active_profile_index: usize,
    /// `symscope VERSION`.
    pub exporter: String,
}

/// speedscope's shared part.
#[derive(Debug, serde::Serialize)]
pub struct SpeedscopeShared {
    /// Every distinct original frame.
    pub frames: Vec<SpeedscopeFrame>,
}

/// One frame: name, file, 1-based line and column (speedscope's convention).
#[derive(Debug, serde::Serialize)]
pub struct SpeedscopeFrame {
    /// The function (`(anonymous)` without a name).
    pub name: String,
    /// The file, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub col: Option<u32>,
}

/// One sampled profile.
#[derive(Debug, serde::Serialize)]
pub struct SpeedscopeProfile<'a> {
    /// Always `sampled`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The profile's label.
    pub name: &'a str,
    /// Always `microseconds`.
    pub unit: &'static str,
    /// The first sample's time, µs.
    #[serde(rename = "startValue")]
    pub start_value: i64,
    /// The end of the last sample, µs.
    #[serde(rename = "endValue")]
    pub end_value: i64,
    /// Each sample's stack (shared by the samples of one node).
    pub samples: Vec<std::sync::Arc<[u32]>>,
    /// Each sample's duration, µs.
    pub weights: Vec<i64>,
}

/// `profiles` in speedscope's format, written by `exporter` version `version`.
pub fn to_speedscope<'a>(profiles: &'a [ResolvedProfile], version: &str) -> Speedscope<'a> {
    let mut frames: Vec<SpeedscopeFrame> = Vec::new();
    let mut index: HashMap<Place, u32> = HashMap::new();
    let mut out = Vec::with_capacity(profiles.len());
    for r in profiles {
        let p = &r.profile;
        let frame_of: Vec<u32> = (0..p.locations.len() as u32)
            .map(|l| {
                let place = r.function_place(l);
                *index.entry(place.clone()).or_insert_with(|| {
                    frames.push(SpeedscopeFrame {
                        name: ResolvedProfile::shown(&place).to_owned(),
                        line: place.line,
                        col: place.column.map(|c| c.saturating_add(1)),
                        file: place.file,
                    });
                    frames.len() as u32 - 1
                })
            })
            .collect();
        // Each node's stack once, shared by its samples.
        let mut stacks: Vec<Option<std::sync::Arc<[u32]>>> = vec![None; p.nodes.len()];
        let mut stack_of = |n: u32| -> std::sync::Arc<[u32]> {
            if let Some(s) = &stacks[n as usize] {
                return s.clone();
            }
            let mut path = Vec::new();
            let mut at = Some(n);
            while let Some(k) = at {
                let node = p.nodes[k as usize];
                if node.parent.is_some() {
                    path.push(frame_of[node.location as usize]);
                }
                at = node.parent;
            }
            path.reverse();
            let s: std::sync::Arc<[u32]> = path.into();
            stacks[n as usize] = Some(s.clone());
            s
        };
        let samples: Vec<std::sync::Arc<[u32]>> = p.samples.iter().map(|&s| stack_of(s)).collect();
        let weights = p.sample_durations_us();
        let start = p.times_us.first().copied().unwrap_or(p.start_us);
        let end = p
            .times_us
            .last()
            .zip(weights.last())
            .map_or(p.end_us, |(t, w)| t.saturating_add(*w));
        out.push(SpeedscopeProfile {
            kind: "sampled",
            name: &r.name,
            unit: "microseconds",
            start_value: start,
            end_value: end,
            samples,
            weights,
        });
    }
    Speedscope {
        schema: "https://www.speedscope.app/file-format-schema.json",
        shared: SpeedscopeShared { frames },
        name: profiles.first().map(|r| r.name.clone()).unwrap_or_default(),
        profiles: out,
        active_profile_index: 0,
        exporter: format!("symscope {version}"),
    }
}

/// A trace's threads' duration events as `symscope profile`'s JSON writes them (see the
/// module docs), each thread's by start.
pub fn tracks_json(tracks: &crate::formats::trace_events::Tracks) -> Value {
    let ms = |us: i64| us as f64 / 1e3;
    tracks
        .threads
        .iter()
        .map(|t| {
            json!({
                "pid": t.pid, "tid": t.tid, "thread": t.name,
                "events": t.events.iter().map(|e| json!({
                    "name": tracks.names.get(e.name as usize),
                    "start_ms": ms(e.start_us),
                    "duration_ms": ms(e.end_us.saturating_sub(e.start_us)),
                    "depth": e.depth,
                })).collect::<Vec<_>>(),
            })
        })
        .collect()
}
