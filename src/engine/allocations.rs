//! A heap timeline's allocation stacks: the `trace_tree` over `trace_function_infos` as a
//! profile weighted in bytes (each stack's allocated objects and bytes, what DevTools'
//! Allocation view shows), its frames resolved through the maps on the CPU profiles'
//! route, and the snapshot rewritten with those frames pointing into the original sources
//! (`symscope heap --write-symbolicated`), as `metro-symbolicate` rewrites it:
//!
//! - a frame at line 0, column 0 (no script position) is left alone;
//! - a frame whose position maps to a source gets the source as `script_name` and the
//!   original 1-based line and column (0 where the mapping has none);
//! - every other frame's name is set to the function map's name (Metro's
//!   `x_facebook_sources`) where there is one, else to itself;
//! - a string is set by the index of its last occurrence in `strings`, or appended.
//!
//! Every other byte of the file is copied as it is.

use super::heap::Heap;
use super::profile::ResolvedProfile;
use crate::formats::heapsnapshot::{HeapError, frame_fields};
use crate::model::{
    FrameStatus, LocationInterner, NameSource, NodeTotals, Profile, ProfileLocation, ProfileNode,
    Weight,
};
use std::collections::HashMap;

/// The allocation tree as a profile weighted in bytes (`None`: the snapshot has no
/// allocation traces), and each frame's location in it.
pub fn allocation_profile(heap: &Heap) -> Option<(Profile, Vec<u32>)> {
    let nodes = heap.trace_nodes();
    if nodes.is_empty() || heap.trace_functions().is_empty() {
        return None;
    }
    let mut interner = LocationInterner::default();
    let loc_of: Vec<u32> = heap
        .trace_functions()
        .iter()
        .map(|f| {
            let zero_based = |v: u32| i64::from(v) - 1;
            interner.intern(ProfileLocation {
                function: heap.string(f.name).to_owned(),
                url: heap.string(f.script_name).to_owned(),
                script_id: String::new(),
                line: if f.line == 0 { -1 } else { zero_based(f.line) },
                column: if f.line == 0 {
                    -1
                } else {
                    zero_based(f.column.max(1))
                },
                function_start: -1,
                return_address: false,
            })
        })
        .collect();
    let totals = NodeTotals {
        self_us: nodes
            .iter()
            .map(|n| i64::try_from(n.size).unwrap_or(i64::MAX))
            .collect(),
        hits: nodes.iter().map(|n| u64::from(n.count)).collect(),
        samples: nodes.iter().map(|n| n.count as usize).sum(),
    };
    let profile = Profile {
        locations: interner.locations,
        nodes: nodes
            .iter()
            .map(|n| ProfileNode {
                id: u64::from(n.id),
                parent: n.parent,
                location: loc_of[n.function as usize],
            })
            .collect(),
        totals: Some(totals),
        weight: Weight::Bytes,
        ..Profile::default()
    };
    Some((profile, loc_of))
}

/// A timeline's allocation stacks with their frames resolved.
#[derive(Debug)]
pub struct Allocations {
    /// The allocation tree as a profile weighted in bytes, its locations resolved.
    pub resolved: ResolvedProfile,
    /// Each frame's location in the profile.
    loc_of: Vec<u32>,
}

/// A frame as `--write-symbolicated` writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewrite {
    /// The original source, 1-based line and column (0: unknown), where the frame maps.
    pub source: Option<(String, u32, u32)>,
    /// The name a function map gives.
    pub name: Option<String>,
}

impl Allocations {
    /// Frame `f` as `metro-symbolicate` rewrites it (`None`: left alone, no position).
    pub fn rewrite(&self, heap: &Heap, f: usize) -> Option<Rewrite> {
        let frame = heap.trace_functions()[f];
        if frame.line == 0 && frame.column == 0 {
            return None;
        }
        let resolved = self
            .resolved
            .frame(self.loc_of[f])
            .filter(|r| r.status() == Some(FrameStatus::Resolved))
            .and_then(|r| r.location());
        let Some(l) = resolved else {
            return Some(Rewrite {
                source: None,
                name: None,
            });
        };
        Some(Rewrite {
            source: l
                .file
                .map(|file| (file.to_owned(), l.line.unwrap_or(0), l.column.unwrap_or(0))),
            name: l
                .function
                .filter(|_| l.name_source == Some(NameSource::FunctionMap))
                .map(str::to_owned),
        })
    }
}

/// Resolves a timeline's allocation stack frames through `symbols`, each distinct frame
/// once (`None`: the snapshot has no allocation traces).
pub fn resolve_allocations(
    name: &str,
    heap: &Heap,
    symbols: &crate::symbolicate::SymbolSet,
    progress: &mut dyn crate::model::Progress,
) -> Result<Option<Allocations>, super::Error> {
    let Some((profile, loc_of)) = allocation_profile(heap) else {
        return Ok(None);
    };
    let resolved =
        super::profile::symbolicate_profile(name, std::sync::Arc::new(profile), symbols, progress)?;
    Ok(Some(Allocations { resolved, loc_of }))
}

/// Top-level keys of a JSON object and where their values are (byte ranges of `input`).
struct Spans(Vec<(String, std::ops::Range<usize>)>);

fn spans(input: &[u8]) -> Result<Spans, serde_json::Error> {
    use serde::de::{MapAccess, Visitor};
    struct Keys<'a>(&'a [u8]);
    impl<'de> Visitor<'de> for Keys<'de> {
        type Value = Spans;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a heap snapshot object")
        }
        fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Spans, M::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = map.next_entry::<String, &'de serde_json::value::RawValue>()? {
                let start = v.get().as_ptr() as usize - self.0.as_ptr() as usize;
                out.push((k, start..start + v.get().len()));
            }
            Ok(Spans(out))
        }
    }
    let mut de = serde_json::Deserializer::from_slice(input);
    let spans = serde::Deserializer::deserialize_map(&mut de, Keys(input))?;
    de.end()?;
    Ok(spans)
}

/// Writes the snapshot `input` (the bytes `heap` was read from) to `out` with its
/// allocation frames rewritten as the module docs say, and answers how many frames now
/// point into original sources. `name` names the file in errors.
pub fn write_symbolicated(
    name: &str,
    input: &[u8],
    heap: &Heap,
    allocations: &Allocations,
    out: &mut dyn std::io::Write,
) -> Result<usize, super::Error> {
    let error = |r: super::Reason| super::Error::new(name, r);
    let not_the_file = || error(super::Reason::Heap(HeapError::Json));
    let spans = spans(input).map_err(|_| not_the_file())?;
    let span = |key: &str| {
        spans
            .0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, r)| r.clone())
            .ok_or_else(not_the_file)
    };
    let (infos_at, strings_at) = (span("trace_function_infos")?, span("strings")?);
    let mut infos: Vec<u64> =
        serde_json::from_slice(&input[infos_at.clone()]).map_err(|_| not_the_file())?;
    let frames = heap.trace_functions();
    let ([name_f, script_f, line_f, column_f], len) =
        frame_fields(heap.meta()).map_err(|e| error(super::Reason::Heap(e)))?;
    if infos.len() != frames.len() * len {
        return Err(not_the_file());
    }
    let rewrites: Vec<Option<Rewrite>> = (0..frames.len())
        .map(|f| allocations.rewrite(heap, f))
        .collect();
    // Each string set: the index of its last occurrence, else appended.
    let mut index: HashMap<String, Option<u32>> = HashMap::new();
    for (f, r) in rewrites.iter().enumerate() {
        if let Some(r) = r {
            if let Some((file, ..)) = &r.source {
                index.insert(file.clone(), None);
            }
            let name = r
                .name
                .clone()
                .unwrap_or_else(|| heap.string(frames[f].name).to_owned());
            index.insert(name, None);
        }
    }
    for i in 0..heap.string_count() as u32 {
        if let Some(slot) = index.get_mut(heap.string(i)) {
            *slot = Some(i);
        }
    }
    let mut added: Vec<String> = Vec::new();
    let mut set = |s: &str| -> u64 {
        match index.get(s).copied().flatten() {
            Some(i) => u64::from(i),
            None => {
                let i = (heap.string_count() + added.len()) as u32;
                added.push(s.to_owned());
                index.insert(s.to_owned(), Some(i));
                u64::from(i)
            }
        }
    };
    let mut resolved = 0;
    for (f, r) in rewrites.iter().enumerate() {
        let Some(r) = r else { continue };
        let record = &mut infos[f * len..(f + 1) * len];
        if let Some((file, line, column)) = &r.source {
            record[script_f] = set(file);
            record[line_f] = u64::from(*line);
            record[column_f] = u64::from(*column);
            resolved += 1;
        }
        let name = match &r.name {
            Some(n) => n.clone(),
            None => heap.string(frames[f].name).to_owned(),
        };
        record[name_f] = set(&name);
    }
    let write = |out: &mut dyn std::io::Write| -> std::io::Result<()> {
        let mut parts = [(infos_at.clone(), true), (strings_at.clone(), false)];
        parts.sort_by_key(|(r, _)| r.start);
        let mut at = 0;
        for (range, is_infos) in parts {
            out.write_all(&input[at..range.start])?;
            if is_infos {
                out.write_all(b"[")?;
                for (i, v) in infos.iter().enumerate() {
                    if i > 0 {
                        out.write_all(b",")?;
                    }
                    write!(out, "{v}")?;
                }
                out.write_all(b"]")?;
            } else {
                let raw = &input[range.clone()];
                let close = raw.iter().rposition(|&b| b == b']').unwrap_or(raw.len());
                let empty = raw[1..close].iter().all(u8::is_ascii_whitespace);
                out.write_all(&raw[..close])?;
                for (i, s) in added.iter().enumerate() {
                    if i > 0 || !empty {
                        out.write_all(b",")?;
                    }
                    serde_json::to_writer(&mut *out, s).map_err(std::io::Error::other)?;
                }
                out.write_all(&raw[close..])?;
            }
            at = range.end;
        }
        out.write_all(&input[at..])
    };
    write(out).map_err(|e| error(super::Reason::Read(e)))?;
    Ok(resolved)
}

impl Allocations {
    /// The functions by bytes allocated where they are the top frame, largest first (the
    /// rows' `self_us` is bytes, `samples` objects, `total_us` bytes under them).
    pub fn functions(&self) -> Vec<super::profile::FunctionRow> {
        self.resolved.functions()
    }
}

/// The `allocations` entry of `symscope heap`'s JSON for a timeline (its contract):
///
/// ```text
/// "allocations": [              // by bytes allocated with the function as the top frame
///   {"function": "MapCache",    // the original name where resolved, else as recorded
///    "file": "node_modules/lodash/lodash.js", "line": 2172, "column": 13,
///                               // 1-based line, 0-based column (as recorded when not resolved)
///    "count": 301,              // objects allocated there (the trace tree's counts)
///    "size": 24080,             // their bytes
///    "total_size": 52000}]      // bytes allocated with the function anywhere on the stack
/// ```
pub fn to_json(rows: &[super::profile::FunctionRow]) -> serde_json::Value {
    rows.iter()
        .map(|r| {
            serde_json::json!({
                "function": r.place.function.as_deref().unwrap_or("(anonymous)"),
                "file": r.place.file, "line": r.place.line, "column": r.place.column,
                "count": r.samples, "size": r.self_us, "total_size": r.total_us,
            })
        })
        .collect()
}

/// The allocating functions as a text table.
pub fn to_text(rows: &[super::profile::FunctionRow]) -> String {
    let mut out = format!(
        "\nallocations by top frame:\n{:>8} {:>12} {:>12}  function\n",
        "count", "bytes", "total"
    );
    for r in rows {
        let at = match (&r.place.file, r.place.line) {
            (Some(f), Some(l)) => format!("  {f}:{l}"),
            (Some(f), None) => format!("  {f}"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "{:>8} {:>12} {:>12}  {}{at}\n",
            r.samples,
            r.self_us,
            r.total_us,
            r.place.function.as_deref().unwrap_or("(anonymous)")
        ));
    }
    out
}
