//! V8 heap snapshots (`.heapsnapshot`: `v8.writeHeapSnapshot()`, DevTools' Memory panel,
//! `node --heapsnapshot-near-heap-limit`) and heap timelines (`.heaptimeline`, the same with
//! allocation stacks), read from a stream straight into the format's own flat columns.
//!
//! The format: `{snapshot: {meta, node_count, edge_count, …}, nodes: [...], edges: [...],
//! trace_function_infos, trace_tree, samples, locations, strings}`. `meta` names the fields of
//! a node (`type, name, id, self_size, edge_count, …`) and of an edge (`type, name_or_index,
//! to_node`), and the names of their types; `nodes` and `edges` are those fields flattened, a
//! node's edges following those of the nodes before it; `to_node` is an index into `nodes`
//! (a multiple of the node field count); names are indexes into `strings`, except an element
//! or hidden edge's, which is its index. `locations` holds `[object_index, script_id, line,
//! column]` (0-based) for the functions whose source position V8 knows. Fields are found
//! through `meta`, never by their position; every index is checked before it is used.

use super::json_stream::{Step, Stop, Stream};
use std::io::Read;

/// Why a file is not a heap snapshot Symscope can read.
#[derive(Debug, thiserror::Error)]
pub enum HeapError {
    /// Reading the file failed.
    #[error("reading failed: {0}")]
    Read(#[from] std::io::Error),
    /// The JSON is malformed or truncated.
    #[error("not JSON, or cut short (a truncated file?)")]
    Json,
    /// A field the format requires is missing or of the wrong type.
    #[error("not a V8 heap snapshot: {0}")]
    Field(String),
    /// An array's length is not a whole number of records.
    #[error("`{array}` holds {len} numbers, not a multiple of its {fields} fields")]
    Ragged {
        /// The array.
        array: &'static str,
        /// Its length.
        len: usize,
        /// Fields per record.
        fields: usize,
    },
    /// A node's edges run past the edges there are.
    #[error("the nodes' edge counts add up to {counted}, but there are {edges} edges")]
    EdgeCount {
        /// The sum of the nodes' `edge_count`.
        counted: u64,
        /// The edges in `edges`.
        edges: usize,
    },
    /// An edge points at a node that does not exist.
    #[error("edge {edge} points at node index {to}, which is not a node")]
    BadEdge {
        /// The edge's ordinal.
        edge: usize,
        /// Its `to_node`.
        to: u32,
    },
    /// A type or string index is out of range.
    #[error("{what} {index} is out of range")]
    BadIndex {
        /// What the index is of.
        what: &'static str,
        /// The index.
        index: u32,
    },
    /// The snapshot has no nodes (no root).
    #[error("the snapshot has no nodes")]
    Empty,
}

/// The `meta` of a snapshot: its field and type names.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct Meta {
    /// A node's fields, in order.
    pub node_fields: Vec<String>,
    /// Each node field's type: the first (`type`) is the list of node type names.
    pub node_types: Vec<serde_json::Value>,
    /// An edge's fields, in order.
    pub edge_fields: Vec<String>,
    /// Each edge field's type: the first (`type`) is the list of edge type names.
    pub edge_types: Vec<serde_json::Value>,
    /// The fields of a `locations` record.
    #[serde(default)]
    pub location_fields: Vec<String>,
    /// The fields of a `trace_function_infos` record (timelines).
    #[serde(default)]
    pub trace_function_info_fields: Vec<String>,
    /// The fields of a `trace_tree` record (timelines).
    #[serde(default)]
    pub trace_node_fields: Vec<String>,
}

/// One node of a timeline's allocation tree (`trace_tree`): a call stack's frame, with the
/// objects allocated where it is the top frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceNode {
    /// Its id (what nodes' `trace_node_id` names).
    pub id: u32,
    /// Its frame: a record of `trace_function_infos`.
    pub function: u32,
    /// Objects allocated here.
    pub count: u32,
    /// Their bytes.
    pub size: u64,
    /// Its parent (an index into the nodes; `None`: the root).
    pub parent: Option<u32>,
}

/// The snapshot's strings, one buffer and where each ends.
#[derive(Clone, Debug, Default)]
pub struct Strings {
    text: String,
    ends: Vec<u32>,
}

impl Strings {
    /// String `i` (empty when out of range).
    pub fn get(&self, i: u32) -> &str {
        let Some(&end) = self.ends.get(i as usize) else {
            return "";
        };
        let start = if i == 0 { 0 } else { self.ends[i as usize - 1] };
        &self.text[start as usize..end as usize]
    }

    /// How many strings there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn push(&mut self, s: &str) -> Step<()> {
        self.text.push_str(s);
        let end = u32::try_from(self.text.len()).map_err(|_| Stop::Whole)?;
        self.ends.push(end);
        Ok(())
    }
}

/// A heap snapshot as columns, one per field a question needs: the node and edge types as
/// bytes, the rest as 32-bit numbers, the strings in one buffer. (`trace_node_id` is kept
/// only where the snapshot has allocation traces.)
#[derive(Clone, Debug, Default)]
pub struct HeapSnapshot {
    /// Field and type names.
    pub meta: Meta,
    /// Each node's type (an index into the node type names).
    pub node_types: Vec<u8>,
    /// Each node's name (a string index).
    pub node_names: Vec<u32>,
    /// Each node's id.
    pub node_ids: Vec<u32>,
    /// Each node's self size, bytes.
    pub self_sizes: Vec<u32>,
    /// Each node's number of edges.
    pub edge_counts: Vec<u32>,
    /// Each node's detachedness (0 unknown, 1 attached, 2 detached); empty without the field.
    pub detachedness: Vec<u8>,
    /// Each node's allocation trace node; empty unless the snapshot has traces.
    pub trace_node_ids: Vec<u32>,
    /// Each edge's type (an index into the edge type names).
    pub edge_types: Vec<u8>,
    /// Each edge's name (a string index) or element index.
    pub edge_names: Vec<u32>,
    /// Each edge's target as written: an index into the flat `nodes` (node ordinal × node
    /// field count).
    pub edge_to: Vec<u32>,
    /// The strings.
    pub strings: Strings,
    /// `locations` records, flattened.
    pub locations: Vec<u32>,
    /// `trace_function_infos` records, flattened (timelines: allocation stack frames).
    pub trace_function_infos: Vec<u32>,
    /// The `trace_tree`'s nodes, parents before children (timelines only).
    pub trace_nodes: Vec<TraceNode>,
}

/// One allocation stack frame (a `trace_function_infos` record).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceFunction {
    /// The function's name (a string index).
    pub name: u32,
    /// Its script's name (a string index).
    pub script_name: u32,
    /// 1-based line (0: none).
    pub line: u32,
    /// 1-based column (0: none).
    pub column: u32,
}

/// The field names a frame record needs.
const FRAME_FIELDS: [&str; 4] = ["name", "script_name", "line", "column"];

/// Where each of [`FRAME_FIELDS`] is in a record, and the record's length.
pub(crate) fn frame_fields(meta: &Meta) -> Result<([usize; 4], usize), HeapError> {
    let fields = &meta.trace_function_info_fields;
    let mut at = [0usize; 4];
    for (slot, name) in at.iter_mut().zip(FRAME_FIELDS) {
        *slot = fields.iter().position(|f| f == name).ok_or_else(|| {
            HeapError::Field(format!("no `{name}` field in trace_function_info_fields"))
        })?;
    }
    Ok((at, fields.len()))
}

/// Checks and reads a snapshot's allocation stack frames (none without traces).
pub(crate) fn trace_functions(snap: &HeapSnapshot) -> Result<Vec<TraceFunction>, HeapError> {
    if snap.trace_function_infos.is_empty() {
        if snap.trace_nodes.iter().any(|n| n.parent.is_some()) {
            return Err(HeapError::Field(
                "a trace tree without trace_function_infos".into(),
            ));
        }
        return Ok(Vec::new());
    }
    let ([name, script, line, column], len) = frame_fields(&snap.meta)?;
    let infos = &snap.trace_function_infos;
    if !infos.len().is_multiple_of(len) {
        return Err(HeapError::Ragged {
            array: "trace_function_infos",
            len: infos.len(),
            fields: len,
        });
    }
    let mut out = Vec::with_capacity(infos.len() / len);
    for r in infos.chunks_exact(len) {
        for s in [r[name], r[script]] {
            if s as usize >= snap.strings.len() {
                return Err(HeapError::BadIndex {
                    what: "string",
                    index: s,
                });
            }
        }
        out.push(TraceFunction {
            name: r[name],
            script_name: r[script],
            line: r[line],
            column: r[column],
        });
    }
    if let Some(n) = snap
        .trace_nodes
        .iter()
        .find(|n| n.function as usize >= out.len())
    {
        return Err(HeapError::BadIndex {
            what: "trace function",
            index: n.function,
        });
    }
    Ok(out)
}

/// Whether `bytes` begin like a heap snapshot (`{"snapshot":{"meta":…`).
pub fn is_heapsnapshot(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start();
    t.starts_with('{')
        && t.contains("\"snapshot\"")
        && t.contains("\"meta\"")
        && t.contains("\"node_fields\"")
}

/// Where each field of a record goes.
#[derive(Clone, Copy)]
enum Column {
    NodeType,
    NodeName,
    NodeId,
    SelfSize,
    EdgeCount,
    Detachedness,
    TraceNode,
    EdgeType,
    EdgeName,
    EdgeTo,
    Skip,
}

/// Reads a heap snapshot from `input`. The `snapshot` object (its meta) must come before
/// `nodes` and `edges`, as V8 writes it.
pub fn read(input: impl Read) -> Result<HeapSnapshot, HeapError> {
    read_sized(input, 0)
}

/// [`read`] a file of `size` bytes (0: unknown): the columns are made as long as the
/// snapshot's `node_count` and `edge_count` say at once (no growing, no spare capacity),
/// as far as `size` bytes can hold.
pub fn read_sized(input: impl Read, size: u64) -> Result<HeapSnapshot, HeapError> {
    read_beside(input, size, None)
}

/// The input again from a byte offset (the file opened anew and sought), and the runner
/// that reads beside the calling thread.
pub type Beside<'a> = (
    &'a (dyn Fn(u64) -> std::io::Result<Box<dyn Read>> + Sync),
    &'a dyn crate::model::ChunkRunner,
);

/// [`read_sized`], the `edges` read beside the `nodes` on a second thread through a second
/// reader of the file (`beside`), when the runner has one: the edges come right after the
/// nodes, which hold only numbers, so the second reader passes over them to the edges while
/// the first reads them. The first reader passes over the edges then, and checks that it
/// ends where the second did. Anything else (another order, a second thread refused, an
/// error on the second reader) reads the edges on the first, as [`read_sized`] does, so the
/// answer and its errors are the same.
pub fn read_beside(
    input: impl Read,
    size: u64,
    beside: Option<Beside<'_>>,
) -> Result<HeapSnapshot, HeapError> {
    let mut s = Stream::new(input);
    // Where the second reader ended the edges it read (the columns are filled).
    let mut edges_read: Option<u64> = None;
    let mut out = HeapSnapshot::default();
    let mut meta: Option<Meta> = None;
    let mut traces = false;
    let mut why: Option<HeapError> = None;
    let result = s.object(|s, key| {
        match key {
            "snapshot" => {
                let mut bytes = Vec::new();
                s.value(&mut bytes)?;
                #[derive(serde::Deserialize)]
                struct Head {
                    meta: Meta,
                    #[serde(default)]
                    trace_function_count: u64,
                    #[serde(default)]
                    node_count: u64,
                    #[serde(default)]
                    edge_count: u64,
                }
                let head: Head = serde_json::from_slice(&bytes).map_err(|_| Stop::Whole)?;
                traces = head.trace_function_count > 0;
                // A record takes at least two bytes a field ("0,"): counts beyond what the
                // file can hold are not believed.
                let fit = |count: u64, fields: usize| {
                    count.min(size / (2 * fields.max(1) as u64)) as usize
                };
                let nodes = fit(head.node_count, head.meta.node_fields.len());
                let edges = fit(head.edge_count, head.meta.edge_fields.len());
                let o = &mut out;
                for column in [
                    &mut o.node_names,
                    &mut o.node_ids,
                    &mut o.self_sizes,
                    &mut o.edge_counts,
                ] {
                    column.reserve_exact(nodes);
                }
                o.node_types.reserve_exact(nodes);
                if head.meta.node_fields.iter().any(|f| f == "detachedness") {
                    o.detachedness.reserve_exact(nodes);
                }
                o.edge_types.reserve_exact(edges);
                o.edge_names.reserve_exact(edges);
                o.edge_to.reserve_exact(edges);
                meta = Some(head.meta);
            }
            "edges" if edges_read.is_some() => {
                // Read beside the nodes already: passed over, ending where that read did.
                let end = edges_read.take();
                s.peek_token()?;
                s.skip_number_array()?;
                if Some(s.position()) != end {
                    return Err(Stop::Whole);
                }
            }
            "nodes" | "edges" => {
                let Some(m) = &meta else {
                    why = Some(HeapError::Field(
                        "`snapshot` (its meta) does not come before the nodes and edges".into(),
                    ));
                    return Err(Stop::Whole);
                };
                let nodes = key == "nodes";
                let columns = columns_of(m, nodes, traces);
                if columns.is_empty() {
                    return Err(Stop::Whole);
                }
                let Some((reopen, runner)) = beside.filter(|_| nodes) else {
                    return read_records(s, &columns, nodes, &mut out, &mut why);
                };
                s.peek_token()?;
                let at = s.position();
                let edge_columns = columns_of(m, false, traces);
                // The edge columns (reserved already) go to the second reader and back.
                let mut edges = HeapSnapshot {
                    edge_types: std::mem::take(&mut out.edge_types),
                    edge_names: std::mem::take(&mut out.edge_names),
                    edge_to: std::mem::take(&mut out.edge_to),
                    ..HeapSnapshot::default()
                };
                let stop = std::sync::atomic::AtomicBool::new(false);
                let mut first: Step<()> = Ok(());
                let mut second: Option<Step<u64>> = None;
                let ran = runner.run_beside(
                    &mut || {
                        first = read_records(s, &columns, true, &mut out, &mut why);
                        if first.is_err() {
                            stop.store(true, std::sync::atomic::Ordering::Relaxed);
                        }
                    },
                    &mut || {
                        second = Some(edges_after_nodes(
                            reopen,
                            at,
                            &edge_columns,
                            &mut edges,
                            &stop,
                        ));
                    },
                );
                out.edge_types = edges.edge_types;
                out.edge_names = edges.edge_names;
                out.edge_to = edges.edge_to;
                if !ran {
                    return read_records(s, &columns, true, &mut out, &mut why);
                }
                match second {
                    Some(Ok(end)) => edges_read = Some(end),
                    // Read again on this thread when they come.
                    _ => {
                        out.edge_types.clear();
                        out.edge_names.clear();
                        out.edge_to.clear();
                    }
                }
                first?;
            }
            "locations" => s.u32s(|v| {
                out.locations.push(v);
                Ok(())
            })?,
            "trace_function_infos" => s.u32s(|v| {
                out.trace_function_infos.push(v);
                Ok(())
            })?,
            "strings" => {
                let strings = &mut out.strings;
                s.strings(|v| strings.push(&v))?
            }
            "trace_tree" => {
                let Some(m) = &meta else {
                    why = Some(HeapError::Field(
                        "`snapshot` (its meta) does not come before the trace tree".into(),
                    ));
                    return Err(Stop::Whole);
                };
                trace_tree(s, &m.trace_node_fields, &mut out.trace_nodes)?;
            }
            _ => {
                let mut bytes = Vec::new();
                s.value(&mut bytes)?;
                serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).map_err(|_| Stop::Whole)?;
            }
        }
        Ok(())
    });
    if let Some(e) = why {
        return Err(e);
    }
    finish(result)?;
    out.meta = meta.ok_or_else(|| HeapError::Field("no `snapshot.meta`".to_owned()))?;
    // Counts that overstated leave spare capacity: given back.
    for column in [
        &mut out.node_names,
        &mut out.node_ids,
        &mut out.self_sizes,
        &mut out.edge_counts,
        &mut out.edge_names,
        &mut out.edge_to,
    ] {
        column.shrink_to_fit();
    }
    out.node_types.shrink_to_fit();
    out.edge_types.shrink_to_fit();
    out.detachedness.shrink_to_fit();
    if out.node_names.is_empty() && out.node_types.is_empty() {
        return Err(HeapError::Empty);
    }
    Ok(out)
}

/// Where each field of `nodes` (or `edges`) goes, by `meta`'s names.
fn columns_of(m: &Meta, nodes: bool, traces: bool) -> Vec<Column> {
    let fields = if nodes {
        &m.node_fields
    } else {
        &m.edge_fields
    };
    fields
        .iter()
        .map(|f| match (nodes, f.as_str()) {
            (true, "type") => Column::NodeType,
            (true, "name") => Column::NodeName,
            (true, "id") => Column::NodeId,
            (true, "self_size") => Column::SelfSize,
            (true, "edge_count") => Column::EdgeCount,
            (true, "detachedness") => Column::Detachedness,
            (true, "trace_node_id") if traces => Column::TraceNode,
            (false, "type") => Column::EdgeType,
            (false, "name_or_index") => Column::EdgeName,
            (false, "to_node") => Column::EdgeTo,
            _ => Column::Skip,
        })
        .collect()
}

/// Reads the `nodes` (or `edges`) array into `out`'s columns; a ragged array sets `why`.
fn read_records<R: Read>(
    s: &mut Stream<R>,
    columns: &[Column],
    nodes: bool,
    out: &mut HeapSnapshot,
    why: &mut Option<HeapError>,
) -> Step<()> {
    let mut at = 0usize;
    let mut count = 0usize;
    let o = out;
    s.u32s(|v| {
        count += 1;
        let byte = || u8::try_from(v).map_err(|_| Stop::Whole);
        match columns[at] {
            Column::NodeType => o.node_types.push(byte()?),
            Column::NodeName => o.node_names.push(v),
            Column::NodeId => o.node_ids.push(v),
            Column::SelfSize => o.self_sizes.push(v),
            Column::EdgeCount => o.edge_counts.push(v),
            Column::Detachedness => o.detachedness.push(v.min(3) as u8),
            Column::TraceNode => o.trace_node_ids.push(v),
            Column::EdgeType => o.edge_types.push(byte()?),
            Column::EdgeName => o.edge_names.push(v),
            Column::EdgeTo => o.edge_to.push(v),
            Column::Skip => {}
        }
        at = if at + 1 == columns.len() { 0 } else { at + 1 };
        Ok(())
    })?;
    if at != 0 {
        *why = Some(HeapError::Ragged {
            array: if nodes { "nodes" } else { "edges" },
            len: count,
            fields: columns.len(),
        });
        return Err(Stop::Whole);
    }
    Ok(())
}

/// The second reader's work (see [`read_beside`]): from `at`, where the `nodes` array
/// starts, past it to the `edges` that must follow, read into `out`'s edge columns.
/// Answers where the edges end; stops when `stop` is set (the first reader failed).
fn edges_after_nodes(
    reopen: &(dyn Fn(u64) -> std::io::Result<Box<dyn Read>> + Sync),
    at: u64,
    columns: &[Column],
    out: &mut HeapSnapshot,
    stop: &std::sync::atomic::AtomicBool,
) -> Step<u64> {
    /// The reader, failing once `stop` is set.
    struct Stopping<'a> {
        input: Box<dyn Read>,
        stop: &'a std::sync::atomic::AtomicBool,
    }
    impl Read for Stopping<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.stop.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(std::io::Error::other("stopped"));
            }
            self.input.read(buf)
        }
    }
    let mut s = Stream::new(Stopping {
        input: reopen(at)?,
        stop,
    });
    s.skip_number_array()?;
    if s.peek_token()? != Some(b',') {
        return Err(Stop::Whole);
    }
    s.at += 1;
    s.expect(b'"')?;
    if s.key()? != b"edges" {
        return Err(Stop::Whole);
    }
    s.expect(b':')?;
    let mut why = None;
    read_records(&mut s, columns, false, out, &mut why)?;
    Ok(at + s.position())
}

/// Reads a `trace_tree` (a node's fields, its children's nested in one of them) into flat
/// nodes, without recursion: stacks may be deeper than a recursive reader goes.
fn trace_tree<R: Read>(s: &mut Stream<R>, fields: &[String], out: &mut Vec<TraceNode>) -> Step<()> {
    #[derive(Clone, Copy, PartialEq)]
    enum F {
        Id,
        Function,
        Count,
        Size,
        Children,
        Skip,
    }
    let cols: Vec<F> = fields
        .iter()
        .map(|f| match f.as_str() {
            "id" => F::Id,
            "function_info_index" => F::Function,
            "count" => F::Count,
            "size" => F::Size,
            "children" => F::Children,
            _ => F::Skip,
        })
        .collect();
    if !cols.contains(&F::Children) {
        return Err(Stop::Whole);
    }
    // Each open array: the parent of its records, the field its next value is, and the
    // record being read.
    let mut open: Vec<(Option<u32>, usize, u32)> = vec![(None, 0, 0)];
    s.expect(b'[')?;
    let mut first = true;
    while let Some(&(parent, at, record)) = open.last() {
        match s.peek_token()? {
            Some(b']') => {
                s.at += 1;
                if at != 0 {
                    return Err(Stop::Whole);
                }
                open.pop();
                first = false;
                continue;
            }
            Some(b',') if !first => s.at += 1,
            _ if first => {}
            _ => return Err(Stop::Whole),
        }
        first = false;
        let me = if at == 0 {
            out.push(TraceNode {
                parent,
                ..TraceNode::default()
            });
            u32::try_from(out.len() - 1).map_err(|_| Stop::Whole)?
        } else {
            record
        };
        if let Some(top) = open.last_mut() {
            *top = (parent, if at + 1 == cols.len() { 0 } else { at + 1 }, me);
        }
        if cols[at] == F::Children {
            s.expect(b'[')?;
            open.push((Some(me), 0, 0));
            first = true;
            continue;
        }
        s.peek_token()?;
        let v = s.int()?;
        let node = &mut out[me as usize];
        let int = || u32::try_from(v).map_err(|_| Stop::Whole);
        match cols[at] {
            F::Id => node.id = int()?,
            F::Function => node.function = int()?,
            F::Count => node.count = int()?,
            F::Size => node.size = u64::try_from(v).map_err(|_| Stop::Whole)?,
            F::Children | F::Skip => {}
        }
    }
    Ok(())
}

fn finish(result: Step<()>) -> Result<(), HeapError> {
    match result {
        Ok(()) => Ok(()),
        Err(Stop::Io(e)) => Err(HeapError::Read(e)),
        Err(Stop::Whole) => Err(HeapError::Json),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const TINY: &str = r#"{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],
        "node_types":[["hidden","object","closure","synthetic"],"string","number","number","number"],
        "edge_fields":["type","name_or_index","to_node"],
        "edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"],
        "location_fields":["object_index","script_id","line","column"]},"node_count":3,"edge_count":2},
        "nodes":[3,0,1,0,2, 1,1,3,40,0, 2,2,5,32,0],
        "edges":[2,3,5, 5,4,10],
        "locations":[10,7,3,14],
        "strings":["","Point","f\u00e9\ud83d\ude00","p","root\ud800x"]}"#;

    #[test]
    fn reads_the_columns_and_the_strings() {
        let h = read(TINY.as_bytes()).unwrap();
        assert_eq!(h.meta.node_fields[3], "self_size");
        assert_eq!(h.node_types, [3, 1, 2]);
        assert_eq!(h.self_sizes, [0, 40, 32]);
        assert_eq!(h.edge_types, [2, 5]);
        assert_eq!(h.edge_to, [5, 10]);
        assert_eq!(h.locations, [10, 7, 3, 14]);
        assert_eq!(h.strings.get(2), "fé😀");
        assert_eq!(h.strings.get(4), "root\u{FFFD}x");
        assert!(is_heapsnapshot(TINY.as_bytes()));
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        assert!(matches!(
            read(&TINY.as_bytes()[..200]),
            Err(HeapError::Json)
        ));
        assert!(matches!(
            read(TINY.replace("\"snapshot\"", "\"x\"").as_bytes()),
            Err(HeapError::Field(_))
        ));
        assert!(matches!(
            read(TINY.replace("[3,0,1,0,2,", "[3,0,-1,0,2,").as_bytes()),
            Err(HeapError::Json)
        ));
    }

    #[test]
    fn reads_a_trace_tree_deeper_than_a_recursive_reader_goes() {
        let depth = 5000;
        let mut tree = String::new();
        for i in 0..depth {
            tree.push_str(&format!("{i},{},1,{},[", i % 3, 8 * i));
        }
        tree.push_str("9999,2,3,4,[]");
        tree.push_str(&"]".repeat(depth));
        let text = TINY
            .replace(
                r#""location_fields""#,
                r#""trace_node_fields":["id","function_info_index","count","size","children"],"location_fields""#,
            )
            .replace(r#""strings""#, &format!(r#""trace_tree":[{tree}],"strings""#));
        let h = read(text.as_bytes()).unwrap();
        assert_eq!(h.trace_nodes.len(), depth + 1);
        assert_eq!(h.trace_nodes[0].parent, None);
        let last = h.trace_nodes[depth];
        assert_eq!(
            (last.id, last.function, last.count, last.size),
            (9999, 2, 3, 4)
        );
        assert_eq!(last.parent, Some(depth as u32 - 1));
        assert_eq!(h.trace_nodes[7].size, 56);
        // Siblings after a subtree take the right parent.
        let text = text.replace(
            "9999,2,3,4,[]",
            "9999,2,3,4,[10,1,1,1,[11,1,1,1,[]],12,1,1,1,[]]",
        );
        let h = read(text.as_bytes()).unwrap();
        let n = &h.trace_nodes;
        assert_eq!(
            (n[depth + 3].id, n[depth + 3].parent),
            (12, Some(depth as u32))
        );
        assert!(read(text.replace("12,1,1,1,[]", "12,1,1,[]").as_bytes()).is_err());
    }
}
