//! A symbolicated log written out: the text `symscope symbolicate` prints (and the window
//! copies), and the JSON document of `symscope symbolicate --format json`. Both are written
//! frame by frame as they go ([`Writer`]), from a whole [`FrameTable`] or a window of a log at
//! a time (`engine::stream`, the same bytes): a million-frame log is never held as a
//! document.
//!
//! # The JSON contract
//!
//! Scripts, CI jobs and our own acceptance checks read this output, so its shape is a promise:
//! fields are added freely, never renamed or removed without bumping `schema`.
//!
//! ```text
//! symscope symbolicate [-s|--symbols PATH]... [--format text|json|jsonl] [--pretty]
//!                      [--column-base 0|1] [--cache DIR] LOG|DIR...|-
//! ```
//! - The document is written compact, on one line (for programs); `--pretty` indents it
//!   (and reads the log whole first).
//! - `--format jsonl` (JSON lines) takes many logs: files, folders (read recursively) and
//!   `-` (log paths on standard input, one a line). Each log is one line, in input order,
//!   written as soon as it and those before it are done: `{"path": "…", …}` with the fields
//!   of its document below (its own `warnings`; `timings.total_ms` its own read and look-up),
//!   or `{"path": "…", "error": "…"}` for a log that cannot be used, which never ends the run.
//!   The symbol files are loaded once; their warnings go to standard error.
//! - `LOG` is a crash log, stack trace or minidump, or `-` for standard input. A JavaScript
//!   log is read, symbolicated and written as it streams (its memory the same at any length).
//! - `PATH` is a symbol file or a folder searched recursively (repeatable). Kinds are
//!   detected from content, not from file names.
//! - Exit status: `0` when the log was read (even if some frames stay unresolved), `2` when
//!   the log or a named symbol file is unusable (the message names the file and the problem),
//!   `1` on an internal error. A symbol file found while walking a folder that fails to load
//!   is reported in `warnings` and skipped, never fatal.
//!
//! Top level (fields in this order: what is only known once the whole log is read comes
//! after the stacks, so that a JavaScript log is written as it streams, see
//! `engine::stream`):
//! ```jsonc
//! {
//!   "schema": 1,
//!   "stacks": [Stack, ...],    // one per exception (JS, Java: causes follow in order) or per
//!                              // thread (native: the crashed one first)
//!   "format": "v8",            // the detected log format: v8 | spidermonkey | jsc | hermes |
//!                              // hermes-bytecode | java | native-addresses | apple-crash |
//!                              // apple-ips | android-tombstone | gdb-backtrace |
//!                              // sentry-event | minidump | sdk-frames | unknown
//!   "warnings": ["..."],       // skipped symbol files, ambiguous matches, an empty log
//!   "timings": {"total_ms": 3.1, "phases": [{"name": "index three.min.js.map", "ms": 1.2}]},
//!   "modules": [Module, ...]   // native logs only (absent otherwise)
//! }
//! ```
//! Stack (its fingerprint after its frames: it may depend on the last of them):
//! ```jsonc
//! {
//!   "title": "TypeError: Cannot read properties of null (reading 'getAttribute')",
//!                              // the exception line (Java: class names deobfuscated,
//!                              // "Caused by: " kept) or the thread's name
//!   "crashed": true,           // native: the crashing thread; JS, Java: the first exception
//!   "frames": [Frame, ...],    // innermost first, in log order
//!   "fingerprint": "3f2a…"     // 16 hex digits: the stack's signature (exception type + top 5
//!                              // in-app frames by function and file; see engine::signature),
//!                              // equal for every variant of one crash: group by it
//! }
//! ```
//! Frame:
//! ```jsonc
//! {
//!   "index": 0,
//!   "raw": "    at De.expandByObject (out/three.min.js:1:98188)",  // the line as in the log
//!   "input": {                 // what the parser read; absent fields are null
//!     "function": "De.expandByObject", "file": "out/three.min.js",
//!     "line": 1, "column": 98188,          // as written in the log
//!     "address": null,         // native: "0x…"
//!     "module": null,          // native: the image or library
//!     "module_offset": null,   // native: "0x…", the address less the module's load
//!                              // address; WebAssembly: the byte offset in the module
//!     "wasm_function": 9       // WebAssembly only: the function's index in the module
//!   },
//!   "status": "resolved",      // resolved | no_symbols | not_covered | unparsed | skipped
//!   "symbol_file": "three.min.js.map",     // the symbol file used ("a + b": two maps chained)
//!   "resolved": [Location, ...],           // innermost first; empty unless resolved
//!   "alternatives": [[Location, ...], ...],// ProGuard/R8: other possible chains, in R8's order
//!   "note": null               // why it is not resolved (or is ambiguous), in words a person
//!                              // can act on; on a resolved JS frame, which function in the
//!                              // bundle named it, or the eval'd position
//! }
//! ```
//! Location:
//! ```jsonc
//! {
//!   "function": "Box3.expandByObject",  // null: anonymous (or not known)
//!   "name_source": "scope",    // JS: function_map | scope (the enclosing function in the
//!                              // bundle; with "function": null or "X.<anonymous>", an
//!                              // anonymous function, X the receiver V8 printed) |
//!                              // original_scope (the enclosing function in the original
//!                              // source, from sourcesContent, when the bundle is not here) |
//!                              // caller_token | caller_source | token | trace; null elsewhere
//!   "token_name": "expandByObject", // JS: the `names` entry at the position
//!   "file": "../node_modules/three/build/three.core.js",  // sourceRoot applied
//!   "line": 16222,             // 1-based
//!   "column": 39,              // 1-based (a source map's 0-based column + 1); null if unknown
//!   "inlined": false,          // true for each entry inlined into the next
//!   "ignored": false           // the source is on the map's ignore list
//! }
//! ```
//! Module (native): `{"name", "id", "frames", "resolved", "status": "found" | "missing" |
//! "mismatch", "symbol_file"}`, most frames first.
//!
//! Notes:
//! - JS: `input.line`/`input.column` are as the engine printed them (1-based; Hermes
//!   bytecode's column is a 0-based bytecode offset); `--column-base` overrides the format's.
//! - Java: `input.line` is the obfuscated line; each `resolved` entry is one original frame
//!   (inlined callees first), `function` the qualified `pkg.Class.method` and `file` the
//!   source file as the JVM prints it, so `function(file:line)` reads like the unobfuscated
//!   trace. `... N more` lines are frames with status `skipped`.
//! - Native: `resolved` is the inline chain, innermost first; only the last entry has
//!   `inlined: false`.
//!
//! # `symscope buckets` and `symscope diff`
//!
//! ```text
//! symscope buckets [-s PATH]... [--frames N] [--format text|json] [--cache DIR] LOG|DIR...
//! symscope diff [-s PATH]... [--stack-a N] [--stack-b N] [--format text|json] A B
//! ```
//! `buckets` reads every log under the paths (folders recursively), symbolicates each against
//! the symbol files (loaded once) on all cores and groups them by the signed stack's
//! fingerprint (`engine::signature`; `--frames` in-app frames, default 5). A file that is not
//! a usable log is listed in `unreadable`, never fatal; exit 2 only when a named path does
//! not exist or a named symbol file is unusable.
//! ```jsonc
//! {
//!   "schema": 1,
//!   "logs": 10002,                   // every file read, unreadable ones included
//!   "buckets": [{                    // largest first; ties: first member's path
//!     "fingerprint": "dafb6e4a2923c42d",
//!     "count": 556,
//!     "title": "TypeError: …",       // the first member's exception line (first line)
//!     "exception": "TypeError",      // the type the signature takes
//!     "platform": "javascript",      // javascript | java | native | unknown
//!     "signature": "javascript TypeError\nObject.<anonymous>  (three.cjs)",
//!     "frames": [Frame, ...],        // the first member's frames the signature comes from,
//!                                    // the same objects as `symbolicate` writes
//!     "first": "logs/a.txt", "last": "logs/z.txt",  // members in path order
//!     "members": ["logs/a.txt", ...]
//!   }],
//!   "unreadable": [{"path": "logs/core.bin", "reason": "not a crash log (a unknown file)"}],
//!   "warnings": ["..."],
//!   "timings": {"total_ms": 612.0, "phases": [{"name": "load symbols", "ms": 14.2}, ...]}
//! }
//! ```
//! `diff` symbolicates both logs and aligns their signed stacks (`engine::stack_diff`), or the
//! stacks `--stack-a`/`--stack-b` name by their index in `symbolicate`'s `stacks` (A and B may
//! be one log; a stack the log lacks is an error, exit 2):
//! ```jsonc
//! {
//!   "schema": 1,
//!   "a": {"log": "a.txt", "format": "java", "stack": 0, "title": "…"},   // the stack compared
//!   "b": {...},
//!   "title_changed": true,
//!   "summary": {"same": 14, "changed": 1, "only_a": 0, "only_b": 2},
//!   "rows": [{"kind": "same" | "changed" | "only_a" | "only_b",
//!             "changes": ["line", "inline", "status"],   // what differs ("changed" rows)
//!             "a": Frame | null, "b": Frame | null}]
//! }
//! ```

mod writer;

pub use writer::{Cut, End, Output, Writer};

use super::table::FrameTable;
use crate::model::{FrameStatus, ResolvedLocation};
use serde::ser::{SerializeMap as _, SerializeSeq as _, SerializeStruct as _};
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::io::Write;

/// Version of the JSON shape.
pub const SCHEMA: u32 = 1;

/// The JSON document of a symbolicated table (see the module documentation).
pub struct Json<'t> {
    /// The symbolicated log.
    pub table: &'t FrameTable,
    /// The run's own warnings (symbol files skipped, an empty log), before the table's.
    pub warnings: &'t [String],
    /// Wall time of the whole run.
    pub total_ms: f64,
}

fn round3(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// A log `symbolicate --format jsonl` could not use: its path and why, on one line.
#[derive(Serialize)]
pub struct JsonLineError<'a> {
    /// The log's path.
    pub path: &'a str,
    /// What is wrong with it.
    pub error: String,
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let table = self.table;
        let modules = table.modules();
        let fields = 5 + usize::from(!modules.is_empty());
        let mut doc = s.serialize_struct("Report", fields)?;
        doc.serialize_field("schema", &SCHEMA)?;
        doc.serialize_field("stacks", &Stacks(table))?;
        doc.serialize_field("format", table.format().as_str())?;
        doc.serialize_field("warnings", &Chained(self.warnings, table.warnings()))?;
        doc.serialize_field(
            "timings",
            &Timings {
                timings: table.timings(),
                total_ms: self.total_ms,
            },
        )?;
        if !modules.is_empty() {
            doc.serialize_field("modules", modules)?;
        }
        doc.end()
    }
}

/// Two lists of strings as one.
struct Chained<'a>(&'a [String], &'a [String]);

impl Serialize for Chained<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().chain(self.1))
    }
}

struct Timings<'t> {
    timings: &'t [crate::model::Timing],
    total_ms: f64,
}

impl Serialize for Timings<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Phase<'a>(&'a str, f64);
        impl Serialize for Phase<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_struct("Phase", 2)?;
                m.serialize_field("name", self.0)?;
                m.serialize_field("ms", &round3(self.1))?;
                m.end()
            }
        }
        let mut m = s.serialize_struct("Timings", 2)?;
        m.serialize_field("total_ms", &round3(self.total_ms))?;
        let phases: Vec<Phase<'_>> = self.timings.iter().map(|t| Phase(&t.name, t.ms)).collect();
        m.serialize_field("phases", &phases)?;
        m.end()
    }
}

/// A table's stacks (the indented document: each frame written whole).
struct Stacks<'t>(&'t FrameTable);

impl Serialize for Stacks<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let table = self.0;
        let mut seq = s.serialize_seq(Some(table.stack_count()))?;
        for stack in 0..table.stack_count() {
            seq.serialize_element(&Stack { table, stack })?;
        }
        seq.end()
    }
}

struct Stack<'t> {
    table: &'t FrameTable,
    stack: usize,
}

impl Serialize for Stack<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (table, stack) = (self.table, self.stack);
        let mut m = s.serialize_struct("Stack", 4)?;
        m.serialize_field("title", table.stack_title(stack))?;
        m.serialize_field("crashed", &table.stack_crashed(stack))?;
        m.serialize_field("frames", &Frames { table, stack })?;
        let sig = super::signature::signature(table, stack, super::signature::DEFAULT_FRAMES);
        m.serialize_field("fingerprint", &sig.fingerprint().to_string())?;
        m.end()
    }
}

struct Frames<'t> {
    table: &'t FrameTable,
    stack: usize,
}

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (table, stack) = (self.table, self.stack);
        let mut seq = s.serialize_seq(Some(table.stack_len(stack)))?;
        for index in 0..table.stack_len(stack) {
            let Some(frame) = table.frame(stack, index) else {
                continue;
            };
            seq.serialize_element(&Frame { index, frame })?;
        }
        seq.end()
    }
}

/// A frame as the indented document and the buckets' and diff's documents write it (the
/// compact document writes the same fields: `writer.rs`).
struct Frame<'t> {
    index: usize,
    frame: super::table::FrameRef<'t>,
}

impl Serialize for Frame<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = &self.frame;
        let mut m = s.serialize_map(Some(8))?;
        m.serialize_entry("index", &self.index)?;
        m.serialize_entry("raw", f.raw())?;
        m.serialize_entry("input", &f.input().unwrap_or_default())?;
        m.serialize_entry("status", &f.status().unwrap_or(FrameStatus::Skipped))?;
        m.serialize_entry("symbol_file", &f.symbol_file())?;
        let resolved: Vec<ResolvedLocation<&str>> = f.locations().collect();
        m.serialize_entry("resolved", &resolved)?;
        m.serialize_entry("alternatives", &f.alternatives())?;
        m.serialize_entry("note", &f.note())?;
        m.end()
    }
}

/// Writes the JSON document, compact (one line) or `pretty` (indented), with a final line
/// break.
pub fn write_json<W: Write>(json: &Json<'_>, pretty: bool, out: &mut W) -> std::io::Result<()> {
    if pretty {
        serde_json::to_writer_pretty(&mut *out, json).map_err(std::io::Error::from)?;
        return writeln!(out);
    }
    write_whole(json, Output::Json { path: None }, out)?;
    writeln!(out)
}

/// Writes one line of `symbolicate --format jsonl` (without its line break): the log's
/// `path`, then the fields of its document.
pub fn write_json_line<W: Write>(path: &str, json: &Json<'_>, out: &mut W) -> std::io::Result<()> {
    write_whole(
        json,
        Output::Json {
            path: Some(path.to_owned()),
        },
        out,
    )
}

/// Writes the log as it was written, each resolved frame's original locations beneath it,
/// then the run's `warnings`, the table's, and a note per file or module that had no symbols.
pub fn write_text<W: Write>(
    table: &FrameTable,
    warnings: &[String],
    out: &mut W,
) -> std::io::Result<()> {
    let json = Json {
        table,
        warnings,
        total_ms: 0.0,
    };
    write_whole(&json, Output::Text, out)
}

/// A whole symbolicated table written by a [`Writer`] as its one window.
fn write_whole<W: Write>(json: &Json<'_>, output: Output, out: &mut W) -> std::io::Result<()> {
    let table = json.table;
    let mut writer = Writer::new(output);
    writer.begin(out)?;
    let platform = super::signature::Platform::of(table.format());
    writer.window(table, Cut::default(), platform, out)?;
    writer.finish(
        &End {
            format: table.format(),
            warnings: json.warnings,
            more_warnings: table.warnings(),
            timings: table.timings(),
            total_ms: json.total_ms,
            modules: table.modules(),
        },
        out,
    )
}

/// A Markdown block for a ticket: the error as a heading, then [`write_text`]'s text in a
/// fenced block (its fence longer than any run of backticks in the text).
pub fn write_markdown<W: Write>(table: &FrameTable, log: &str, out: &mut W) -> std::io::Result<()> {
    // The crashed stack's headline: its exception, or a native crash's thread and reason.
    let title = super::signature::signed_stack(table)
        .map(|s| super::signature::headline(table.stack_title(s)))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| log.to_owned());
    writeln!(out, "### {title}")?;
    writeln!(out)?;
    writeln!(out, "Symbolicated with Symscope from `{log}`.")?;
    writeln!(out)?;
    let body = text(table, &[]);
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    writeln!(out, "{fence}text")?;
    out.write_all(body.as_bytes())?;
    if !body.ends_with('\n') {
        writeln!(out)?;
    }
    writeln!(out, "{fence}")
}

/// [`write_text`] into a string (what the window copies).
pub fn text(table: &FrameTable, warnings: &[String]) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    write_text(table, warnings, &mut out).ok();
    String::from_utf8_lossy(&out).into_owned()
}

/// The JSON document of `symscope buckets` (its contract: the module documentation).
pub struct BucketsJson<'a> {
    /// The buckets, largest first.
    pub buckets: &'a [super::buckets::Bucket],
    /// The logs' paths, by log index.
    pub paths: &'a [String],
    /// Logs that could not be read: path and reason.
    pub unreadable: &'a [(String, String)],
    /// Symbol files skipped and other things a person should know.
    pub warnings: &'a [String],
    /// Named phases (ms).
    pub phases: &'a [(String, f64)],
    /// Wall time of the whole run.
    pub total_ms: f64,
}

impl Serialize for BucketsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Buckets<'b>(&'b BucketsJson<'b>);
        impl Serialize for Buckets<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.buckets.len()))?;
                for b in self.0.buckets {
                    seq.serialize_element(&BucketJson {
                        bucket: b,
                        paths: self.0.paths,
                    })?;
                }
                seq.end()
            }
        }
        struct Unreadable<'b>(&'b [(String, String)]);
        impl Serialize for Unreadable<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(Some(self.0.len()))?;
                for (path, reason) in self.0 {
                    let mut m = BTreeMap::new();
                    m.insert("path", path);
                    m.insert("reason", reason);
                    seq.serialize_element(&m)?;
                }
                seq.end()
            }
        }
        struct Phases<'b>(&'b [(String, f64)], f64);
        impl Serialize for Phases<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_struct("Timings", 2)?;
                m.serialize_field("total_ms", &round3(self.1))?;
                let phases: Vec<serde_json::Value> = self
                    .0
                    .iter()
                    .map(|(name, ms)| serde_json::json!({"name": name, "ms": round3(*ms)}))
                    .collect();
                m.serialize_field("phases", &phases)?;
                m.end()
            }
        }
        let logs: usize =
            self.buckets.iter().map(|b| b.count()).sum::<usize>() + self.unreadable.len();
        let mut doc = s.serialize_struct("Buckets", 6)?;
        doc.serialize_field("schema", &SCHEMA)?;
        doc.serialize_field("logs", &logs)?;
        doc.serialize_field("buckets", &Buckets(self))?;
        doc.serialize_field("unreadable", &Unreadable(self.unreadable))?;
        doc.serialize_field("warnings", self.warnings)?;
        doc.serialize_field("timings", &Phases(self.phases, self.total_ms))?;
        doc.end()
    }
}

struct BucketJson<'b> {
    bucket: &'b super::buckets::Bucket,
    paths: &'b [String],
}

impl Serialize for BucketJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let b = self.bucket;
        let path = |i: usize| self.paths.get(i).map_or("", String::as_str);
        let mut indices = b.signature.frame_indices.clone();
        indices.dedup();
        let frames: Vec<Frame<'_>> = indices
            .iter()
            .filter_map(|&index| {
                Some(Frame {
                    index,
                    frame: b.first.frame(b.stack, index)?,
                })
            })
            .collect();
        let members: Vec<&str> = b.members.iter().map(|&i| path(i)).collect();
        let mut m = s.serialize_struct("Bucket", 10)?;
        m.serialize_field("fingerprint", &b.fingerprint.to_string())?;
        m.serialize_field("count", &b.count())?;
        m.serialize_field("title", &b.title())?;
        m.serialize_field("exception", &b.signature.exception)?;
        m.serialize_field("platform", b.signature.platform.as_str())?;
        m.serialize_field("signature", &b.signature.text())?;
        m.serialize_field("frames", &frames)?;
        m.serialize_field("first", members.first().copied().unwrap_or(""))?;
        m.serialize_field("last", members.last().copied().unwrap_or(""))?;
        m.serialize_field("members", &members)?;
        m.end()
    }
}

/// Writes `symscope buckets`' text: per bucket, largest first, its count, title, platform,
/// fingerprint, signature frames, first and last member; then unreadable logs and warnings.
pub fn write_buckets_text<W: Write>(json: &BucketsJson<'_>, out: &mut W) -> std::io::Result<()> {
    let logs: usize = json.buckets.iter().map(|b| b.count()).sum();
    writeln!(
        out,
        "{} logs in {} buckets{}",
        logs + json.unreadable.len(),
        json.buckets.len(),
        if json.unreadable.is_empty() {
            String::new()
        } else {
            format!(", {} unreadable", json.unreadable.len())
        }
    )?;
    for b in json.buckets {
        let path = |i: usize| json.paths.get(i).map_or("", String::as_str);
        writeln!(out)?;
        writeln!(
            out,
            "{:>6}  {}  [{}, {}]",
            b.count(),
            b.title(),
            b.signature.platform.as_str(),
            b.fingerprint
        )?;
        for f in &b.signature.frames {
            let function = if f.function.is_empty() {
                "?"
            } else {
                &f.function
            };
            writeln!(out, "        {function} ({})", f.file)?;
        }
        let (first, last) = (b.members[0], b.members[b.members.len() - 1]);
        writeln!(out, "        first: {}", path(first))?;
        if last != first {
            writeln!(out, "        last:  {}", path(last))?;
        }
    }
    if !json.unreadable.is_empty() {
        writeln!(out)?;
        for (path, reason) in json.unreadable {
            writeln!(out, "unreadable: {path}: {reason}")?;
        }
    }
    if !json.warnings.is_empty() {
        writeln!(out)?;
        for w in json.warnings {
            writeln!(out, "warning: {w}")?;
        }
    }
    Ok(())
}

/// The JSON document of `symscope diff A B` (its contract: the module documentation).
pub struct DiffJson<'a> {
    /// Log A: its name and table.
    pub a: (&'a str, &'a FrameTable),
    /// Log B.
    pub b: (&'a str, &'a FrameTable),
    /// The aligned stacks.
    pub diff: &'a super::stack_diff::StackDiff,
}

impl Serialize for DiffJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.diff;
        let side = |(name, t): (&str, &FrameTable), stack: usize| {
            serde_json::json!({
                "log": name,
                "format": t.format().as_str(),
                "stack": stack,
                "title": t.stack_title(stack),
            })
        };
        struct Rows<'b>(&'b DiffJson<'b>);
        impl Serialize for Rows<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let d = self.0.diff;
                fn frame(t: &FrameTable, stack: usize, i: Option<usize>) -> Option<Frame<'_>> {
                    i.and_then(|index| {
                        Some(Frame {
                            index,
                            frame: t.frame(stack, index)?,
                        })
                    })
                }
                let mut seq = s.serialize_seq(Some(d.rows.len()))?;
                for row in &d.rows {
                    seq.serialize_element(&DiffRowJson {
                        kind: row.kind(),
                        changes: row.changes.iter().map(|c| c.as_str()).collect(),
                        a: frame(self.0.a.1, d.stack_a, row.a),
                        b: frame(self.0.b.1, d.stack_b, row.b),
                    })?;
                }
                seq.end()
            }
        }
        let [same, changed, only_a, only_b] = d.counts();
        let mut doc = s.serialize_struct("Diff", 6)?;
        doc.serialize_field("schema", &SCHEMA)?;
        doc.serialize_field("a", &side(self.a, d.stack_a))?;
        doc.serialize_field("b", &side(self.b, d.stack_b))?;
        doc.serialize_field("title_changed", &d.title_changed)?;
        doc.serialize_field(
            "summary",
            &serde_json::json!({"same": same, "changed": changed, "only_a": only_a, "only_b": only_b}),
        )?;
        doc.serialize_field("rows", &Rows(self))?;
        doc.end()
    }
}

struct DiffRowJson<'r> {
    kind: &'r str,
    changes: Vec<&'r str>,
    a: Option<Frame<'r>>,
    b: Option<Frame<'r>>,
}

impl Serialize for DiffRowJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Row", 4)?;
        m.serialize_field("kind", self.kind)?;
        m.serialize_field("changes", &self.changes)?;
        m.serialize_field("a", &self.a)?;
        m.serialize_field("b", &self.b)?;
        m.end()
    }
}

/// Where a resolved location is, as far as it is known: `file:line:column`, `file:line`,
/// `file`, `line N`, or nothing (a symbol without line records: never `?:0`).
fn place(file: Option<&str>, line: Option<u32>, column: Option<u32>) -> Option<String> {
    match (file, line) {
        (Some(f), Some(l)) => Some(match column {
            Some(c) => format!("{f}:{l}:{c}"),
            None => format!("{f}:{l}"),
        }),
        (Some(f), None) => Some(f.to_owned()),
        (None, Some(l)) => Some(format!("line {l}")),
        (None, None) => None,
    }
}

/// A frame in one line: the function and place it resolved to (the function it runs in,
/// inlined callees before it, `→`), or the line as in the log.
pub fn frame_summary(frame: &super::table::FrameRef<'_>) -> String {
    if frame.status() == Some(FrameStatus::Resolved) {
        let locs: Vec<String> = frame
            .locations()
            .map(|l| {
                let name = l.function.or(l.token_name).unwrap_or("?");
                match place(l.file, l.line, None) {
                    Some(at) => format!("{name} ({at})"),
                    None => name.to_owned(),
                }
            })
            .collect();
        return locs.join(" → ");
    }
    frame.raw().trim().to_owned()
}

/// Writes `symscope diff`'s text: the two titles, then one row per aligned frame: `=` the
/// same, `~` changed (what, in brackets), `-` only in A, `+` only in B.
pub fn write_diff_text<W: Write>(json: &DiffJson<'_>, out: &mut W) -> std::io::Result<()> {
    let d = json.diff;
    let (a, b) = (json.a.1, json.b.1);
    writeln!(
        out,
        "A: {}  {}",
        json.a.0,
        a.stack_title(d.stack_a).lines().next().unwrap_or("")
    )?;
    writeln!(
        out,
        "B: {}  {}",
        json.b.0,
        b.stack_title(d.stack_b).lines().next().unwrap_or("")
    )?;
    let [same, changed, only_a, only_b] = d.counts();
    writeln!(
        out,
        "{same} same, {changed} changed, {only_a} only in A, {only_b} only in B{}",
        if d.title_changed {
            "; titles differ"
        } else {
            ""
        }
    )?;
    writeln!(out)?;
    for row in &d.rows {
        let side = |t: &FrameTable, s: usize, i: Option<usize>| {
            i.and_then(|i| t.frame(s, i))
                .map(|f| frame_summary(&f))
                .unwrap_or_default()
        };
        let mark = match row.kind() {
            "same" => '=',
            "changed" => '~',
            "only_a" => '-',
            _ => '+',
        };
        let (fa, fb) = (side(a, d.stack_a, row.a), side(b, d.stack_b, row.b));
        match row.kind() {
            "only_a" => writeln!(out, "{mark} A#{:<3} {fa}", row.a.unwrap_or(0))?,
            "only_b" => writeln!(out, "{mark} B#{:<3} {fb}", row.b.unwrap_or(0))?,
            "same" => writeln!(
                out,
                "{mark} A#{:<3} B#{:<3} {fa}",
                row.a.unwrap_or(0),
                row.b.unwrap_or(0)
            )?,
            _ => {
                let what: Vec<&str> = row.changes.iter().map(|c| c.as_str()).collect();
                writeln!(out, "{mark} A#{:<3} {fa}", row.a.unwrap_or(0))?;
                writeln!(
                    out,
                    "  B#{:<3} {fb}  [{}]",
                    row.b.unwrap_or(0),
                    what.join(", ")
                )?;
            }
        }
    }
    Ok(())
}

/// Why a JSON document could not be read back ([`table_of_document`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a symbolicated log as `symbolicate --format json|jsonl` writes it: {0}")]
pub struct DocumentError(String);

/// One line of `symbolicate --format jsonl` read back.
pub enum LineDocument {
    /// A log's path and its table.
    Table(String, Box<FrameTable>),
    /// A log's path and why symbolicate could not use it.
    Failed(String, String),
}

/// The lines of `symbolicate --format jsonl` (`text`) read back, in order; blank lines are
/// skipped, a line that is not one is an error naming it.
pub fn documents_of_lines(text: &str) -> Result<Vec<LineDocument>, DocumentError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |e: &dyn std::fmt::Display| DocumentError(format!("line {}: {e}", n + 1));
        let doc: serde_json::Value = serde_json::from_str(line).map_err(|e| at(&e))?;
        let path = doc["path"].as_str().unwrap_or_default().to_owned();
        out.push(match doc["error"].as_str() {
            Some(error) => LineDocument::Failed(path, error.to_owned()),
            None => {
                let table = table_of_document(&doc).map_err(|e| at(&e))?;
                LineDocument::Table(path, Box::new(table))
            }
        });
    }
    Ok(out)
}

/// A document `symbolicate --format json` wrote (or one line of `--format jsonl`), read back
/// into the table it was written from, as `buckets --from-jsonl` groups logs without
/// symbolicating them again. What the contract leaves out is not restored: line numbers in
/// the log, generated positions, and the identifiers and flags frames are matched with.
pub fn table_of_document(doc: &serde_json::Value) -> Result<FrameTable, DocumentError> {
    use crate::model::{
        Frame, FrameInput, LogFormat, NameSource, Stack, SymbolicatedFrame, SymbolicatedStack,
        SymbolicatedTrace, Trace,
    };
    use serde_json::Value;
    let bad = |what: &str| DocumentError(what.to_owned());
    let text = |v: &Value| v.as_str().map(str::to_owned);
    let number = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok());
    let hex = |v: &Value| {
        v.as_str()
            .and_then(|s| s.strip_prefix("0x"))
            .and_then(|h| u64::from_str_radix(h, 16).ok())
    };
    let format: LogFormat =
        serde_json::from_value(doc["format"].clone()).map_err(|_| bad("no known `format`"))?;
    let location = |l: &Value| ResolvedLocation {
        function: text(&l["function"]),
        name_source: serde_json::from_value::<Option<NameSource>>(l["name_source"].clone())
            .ok()
            .flatten(),
        token_name: text(&l["token_name"]),
        file: text(&l["file"]),
        source_index: None,
        line: number(&l["line"]),
        column: number(&l["column"]),
        inlined: l["inlined"].as_bool().unwrap_or(false),
        ignored: l["ignored"].as_bool().unwrap_or(false),
    };
    let chain = |v: &Value| -> Vec<ResolvedLocation> {
        v.as_array()
            .map(|a| a.iter().map(location).collect())
            .unwrap_or_default()
    };
    let mut trace = Trace {
        format,
        stacks: Vec::new(),
        modules: Vec::new(),
    };
    let mut result = SymbolicatedTrace {
        format,
        stacks: Vec::new(),
        warnings: Vec::new(),
        timings: Vec::new(),
        modules: Vec::new(),
    };
    for stack in doc["stacks"].as_array().ok_or_else(|| bad("no `stacks`"))? {
        let title = text(&stack["title"]).unwrap_or_default();
        let crashed = stack["crashed"].as_bool().unwrap_or(false);
        let (mut frames, mut resolved) = (Vec::new(), Vec::new());
        for f in stack["frames"]
            .as_array()
            .ok_or_else(|| bad("a stack with no `frames`"))?
        {
            let status: FrameStatus = serde_json::from_value(f["status"].clone())
                .map_err(|_| bad("a frame with no known `status`"))?;
            let i = &f["input"];
            let input = (status != FrameStatus::Unparsed).then(|| FrameInput {
                function: text(&i["function"]),
                file: text(&i["file"]),
                line: number(&i["line"]),
                column: number(&i["column"]),
                address: hex(&i["address"]),
                module: text(&i["module"]),
                module_offset: hex(&i["module_offset"]),
                wasm_function: number(&i["wasm_function"]),
                eval: text(&i["eval"]),
                ..FrameInput::default()
            });
            frames.push(Frame {
                raw: text(&f["raw"]).unwrap_or_default(),
                line_no: 0,
                input,
            });
            resolved.push(SymbolicatedFrame {
                status,
                symbol_file: text(&f["symbol_file"]),
                generated: None,
                resolved: chain(&f["resolved"]),
                alternatives: f["alternatives"]
                    .as_array()
                    .map(|a| a.iter().map(chain).collect())
                    .unwrap_or_default(),
                note: text(&f["note"]),
            });
        }
        trace.stacks.push(Stack {
            title: title.clone(),
            title_line: 0,
            crashed,
            frames,
        });
        result.stacks.push(SymbolicatedStack {
            title,
            crashed,
            frames: resolved,
        });
    }
    Ok(FrameTable::from_trace(&trace, Some(&result)))
}
