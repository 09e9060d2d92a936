//! The compact JSON document, a JSON line and the text, written a window of the log at a
//! time: a log read and symbolicated as it streams is written as it goes (nothing but the
//! open stack's signature and the text's per-file counts is kept), and a whole table is
//! written as one window, so both are the same bytes.

use super::{Chained, SCHEMA, Timings, place};
use crate::engine::signature::{DEFAULT_FRAMES, Platform, SignatureBuilder};
use crate::engine::table::{FrameRef, FrameTable};
use crate::model::{FrameInput, FrameStatus, LogFormat, ModuleCoverage, ResolvedLocation, Timing};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::io::{self, Write};

/// What a [`Writer`] writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// The compact JSON document on one line; with a path, the line of `--format jsonl`
    /// (`{"path": …, …}`).
    Json {
        /// The log's path, the line's first field.
        path: Option<String>,
    },
    /// The text `symscope symbolicate` prints.
    Text,
}

/// How a window of the log meets the windows beside it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cut {
    /// The window's first stack goes on with the last stack of the window before (its header
    /// is not written again, its frames' indices go on).
    pub continues: bool,
    /// The window's last frame is the next window's first: it is written there, and the last
    /// stack stays open.
    pub lookahead: bool,
}

/// What the end of the document says: the log's format, the warnings, the timings.
pub struct End<'a> {
    /// The log's format.
    pub format: LogFormat,
    /// The run's own warnings (symbol files skipped, an empty log).
    pub warnings: &'a [String],
    /// The symbolication's warnings, after those.
    pub more_warnings: &'a [String],
    /// Timed phases.
    pub timings: &'a [Timing],
    /// Wall time of the whole run.
    pub total_ms: f64,
    /// Native: the modules.
    pub modules: &'a [ModuleCoverage],
}

/// Writes a symbolicated log window by window (see the module documentation).
pub struct Writer {
    output: Output,
    /// Stacks begun so far.
    stacks: usize,
    /// The stack a window's edge cut: its title, the index of its next frame and its
    /// signature so far.
    open: Option<OpenStack>,
    /// Text: the JavaScript files, native modules and WebAssembly modules that had no symbols,
    /// with their frame counts.
    missing: BTreeMap<String, usize>,
    missing_modules: BTreeMap<String, usize>,
    missing_wasm: BTreeMap<String, usize>,
}

struct OpenStack {
    title: String,
    next: usize,
    signature: SignatureBuilder,
}

impl Writer {
    /// A writer of `output`, nothing written yet.
    pub fn new(output: Output) -> Self {
        Self {
            output,
            stacks: 0,
            open: None,
            missing: BTreeMap::new(),
            missing_modules: BTreeMap::new(),
            missing_wasm: BTreeMap::new(),
        }
    }

    /// Writes what comes before the first stack.
    pub fn begin<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        if let Output::Json { path } = &self.output {
            out.write_all(b"{")?;
            if let Some(path) = path {
                out.write_all(b"\"path\":")?;
                serde_json::to_writer(&mut *out, path)?;
                out.write_all(b",")?;
            }
            write!(out, "\"schema\":{SCHEMA},\"stacks\":[")?;
        }
        Ok(())
    }

    /// Writes the stacks and frames of one window of the log (a symbolicated table), `cut`
    /// saying how it meets the windows beside it; `platform` is the log's (what each stack's
    /// fingerprint is taken with).
    pub fn window<W: Write>(
        &mut self,
        table: &FrameTable,
        cut: Cut,
        platform: Platform,
        out: &mut W,
    ) -> io::Result<()> {
        let json = matches!(self.output, Output::Json { .. });
        // Each shared resolution's fields, as written (ids are the table's).
        let mut written: FxHashMap<u32, Vec<u8>> = FxHashMap::default();
        let last = table.stack_count().checked_sub(1);
        for s in 0..table.stack_count() {
            let mut open = match self.open.take() {
                Some(open) if s == 0 && cut.continues => open,
                _ => {
                    self.begin_stack(table, s, out)?;
                    OpenStack {
                        title: table.stack_title(s).to_owned(),
                        next: 0,
                        signature: SignatureBuilder::new(DEFAULT_FRAMES),
                    }
                }
            };
            let keep_open = cut.lookahead && Some(s) == last;
            let len = table.stack_len(s) - usize::from(keep_open && table.stack_len(s) > 0);
            for f in 0..len {
                let Some(frame) = table.frame(s, f) else {
                    continue;
                };
                let index = open.next;
                open.next += 1;
                if !open.signature.is_complete() {
                    open.signature.add(&frame, index);
                }
                if json {
                    if index > 0 {
                        out.write_all(b",")?;
                    }
                    write_frame(index, &frame, &mut written, out)?;
                } else {
                    self.text_frame(&frame, out)?;
                }
            }
            if keep_open {
                self.open = Some(open);
            } else {
                self.end_stack(open, platform, out)?;
            }
        }
        Ok(())
    }

    /// Writes a stack's header.
    fn begin_stack<W: Write>(
        &mut self,
        table: &FrameTable,
        s: usize,
        out: &mut W,
    ) -> io::Result<()> {
        let first = self.stacks == 0;
        self.stacks += 1;
        match self.output {
            Output::Json { .. } => {
                if !first {
                    out.write_all(b",")?;
                }
                out.write_all(b"{\"title\":")?;
                serde_json::to_writer(&mut *out, table.stack_title(s))?;
                write!(out, ",\"crashed\":{},\"frames\":[", table.stack_crashed(s))
            }
            Output::Text => {
                if !first {
                    writeln!(out)?;
                }
                let title = table.stack_raw_title(s);
                if !title.is_empty() {
                    writeln!(out, "{title}")?;
                    let resolved = table.stack_title(s);
                    if resolved != title {
                        for line in resolved.lines() {
                            writeln!(out, "    → {line}")?;
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Ends a stack: JSON writes its fingerprint.
    fn end_stack<W: Write>(
        &mut self,
        open: OpenStack,
        platform: Platform,
        out: &mut W,
    ) -> io::Result<()> {
        if let Output::Json { .. } = self.output {
            let signature = open.signature.finish(platform, &open.title);
            write!(out, "],\"fingerprint\":\"{}\"}}", signature.fingerprint())?;
        }
        Ok(())
    }

    /// A frame of the text: its line, then where it resolved to or why not.
    fn text_frame<W: Write>(
        &mut self,
        frame: &crate::engine::table::FrameRef<'_>,
        out: &mut W,
    ) -> io::Result<()> {
        let raw = frame.raw();
        writeln!(out, "{raw}")?;
        let indent = &raw[..raw.len() - raw.trim_start().len()];
        match frame.status() {
            Some(FrameStatus::Resolved) => {
                for loc in frame.locations() {
                    write!(out, "{indent}    → {}", loc.function.unwrap_or("<unknown>"))?;
                    if let Some(at) = place(loc.file, loc.line, loc.column) {
                        write!(out, " ({at})")?;
                    }
                    if loc.ignored {
                        out.write_all(b"  [library]")?;
                    }
                    writeln!(out)?;
                }
            }
            Some(FrameStatus::NotCovered) => {
                writeln!(
                    out,
                    "{indent}    ✗ {}",
                    frame.note().unwrap_or("not covered")
                )?;
            }
            Some(FrameStatus::NoSymbols) => {
                let input = frame.input();
                let count = |map: &mut BTreeMap<String, usize>, key: &str| match map.get_mut(key) {
                    Some(n) => *n += 1,
                    None => {
                        map.insert(key.to_owned(), 1);
                    }
                };
                if let Some(i) = input.as_ref().filter(|i| i.wasm_function.is_some()) {
                    let module = i.file.unwrap_or("(no module printed)");
                    count(&mut self.missing_wasm, module);
                } else if let Some(file) = input.as_ref().and_then(|i| i.file) {
                    count(&mut self.missing, file);
                } else if let Some(module) = input.as_ref().and_then(|i| i.module) {
                    count(&mut self.missing_modules, module);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Writes what comes after the last stack (a stack still open is ended first); the JSON
    /// ends with its closing brace, no line break.
    pub fn finish<W: Write>(mut self, end: &End<'_>, out: &mut W) -> io::Result<()> {
        if let Some(open) = self.open.take() {
            self.end_stack(open, Platform::of(end.format), out)?;
        }
        match self.output {
            Output::Json { .. } => {
                write!(
                    out,
                    "],\"format\":\"{}\",\"warnings\":",
                    end.format.as_str()
                )?;
                serde_json::to_writer(&mut *out, &Chained(end.warnings, end.more_warnings))?;
                out.write_all(b",\"timings\":")?;
                serde_json::to_writer(
                    &mut *out,
                    &Timings {
                        timings: end.timings,
                        total_ms: end.total_ms,
                    },
                )?;
                if !end.modules.is_empty() {
                    out.write_all(b",\"modules\":")?;
                    serde_json::to_writer(&mut *out, end.modules)?;
                }
                out.write_all(b"}")
            }
            Output::Text => self.text_end(end, out),
        }
    }

    /// The text's end: the warnings, then a note per file or module that had no symbols.
    fn text_end<W: Write>(&self, end: &End<'_>, out: &mut W) -> io::Result<()> {
        let warnings = end.warnings.iter().chain(end.more_warnings);
        if warnings.clone().next().is_some()
            || !self.missing.is_empty()
            || !self.missing_modules.is_empty()
            || !self.missing_wasm.is_empty()
        {
            writeln!(out)?;
        }
        for w in warnings {
            writeln!(out, "warning: {w}")?;
        }
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        for (file, count) in &self.missing {
            writeln!(
                out,
                "note: no source map for {file} ({count} frame{})",
                plural(*count)
            )?;
        }
        for (module, count) in &self.missing_modules {
            writeln!(
                out,
                "note: no debug file for {module} ({count} frame{})",
                plural(*count)
            )?;
        }
        for (module, count) in &self.missing_wasm {
            writeln!(
                out,
                "note: no debug information for WebAssembly module {module} ({count} frame{}): add the .wasm built with -g, its separate DWARF file or its wasm source map",
                plural(*count)
            )?;
        }
        Ok(())
    }
}

/// A frame of the compact document, as the indented one's `Frame` writes it (serde's
/// derive, held to this by the streaming tests), with each shared resolution's fields
/// written once into `written` and copied.
fn write_frame<W: Write>(
    index: usize,
    frame: &FrameRef<'_>,
    written: &mut FxHashMap<u32, Vec<u8>>,
    out: &mut W,
) -> io::Result<()> {
    out.write_all(b"{\"index\":")?;
    out.write_all(itoa::Buffer::new().format(index).as_bytes())?;
    out.write_all(b",\"raw\":")?;
    string(frame.raw(), out)?;
    out.write_all(b",\"input\":")?;
    input(&frame.input().unwrap_or_default(), out)?;
    out.write_all(b",")?;
    match frame.shared_resolution() {
        Some(id) => {
            let fields = match written.entry(id) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert(resolution(frame)?),
            };
            out.write_all(fields)?;
        }
        None => out.write_all(&resolution(frame)?)?,
    }
    out.write_all(b"}")
}

/// A JSON string.
fn string<W: Write>(s: &str, out: &mut W) -> io::Result<()> {
    Ok(serde_json::to_writer(out, s)?)
}

/// `"key":` then an optional string or `null`.
fn field_str<W: Write>(key: &[u8], v: Option<&str>, out: &mut W) -> io::Result<()> {
    out.write_all(key)?;
    match v {
        Some(s) => string(s, out),
        None => out.write_all(b"null"),
    }
}

/// `"key":` then an optional number or `null`.
fn field_num<W: Write>(key: &[u8], v: Option<u32>, out: &mut W) -> io::Result<()> {
    out.write_all(key)?;
    match v {
        Some(n) => out.write_all(itoa::Buffer::new().format(n).as_bytes()),
        None => out.write_all(b"null"),
    }
}

/// `"key":` then an optional address as `"0x…"` or `null`.
fn field_hex<W: Write>(key: &[u8], v: Option<u64>, out: &mut W) -> io::Result<()> {
    out.write_all(key)?;
    match v {
        Some(a) => write!(out, "\"0x{a:x}\""),
        None => out.write_all(b"null"),
    }
}

/// A frame's input, its fields as `FrameInput`'s serde derive writes them.
fn input<W: Write>(i: &FrameInput<&str>, out: &mut W) -> io::Result<()> {
    field_str(b"{\"function\":", i.function, out)?;
    field_str(b",\"file\":", i.file, out)?;
    field_num(b",\"line\":", i.line, out)?;
    field_num(b",\"column\":", i.column, out)?;
    field_hex(b",\"address\":", i.address, out)?;
    field_str(b",\"module\":", i.module, out)?;
    field_hex(b",\"module_offset\":", i.module_offset, out)?;
    if let Some(w) = i.wasm_function {
        field_num(b",\"wasm_function\":", Some(w), out)?;
    }
    if let Some(e) = i.eval {
        field_str(b",\"eval\":", Some(e), out)?;
    }
    out.write_all(b"}")
}

/// A frame's status, symbol file, locations, alternatives and note, as written.
fn resolution(f: &FrameRef<'_>) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(256);
    let resolved: Vec<ResolvedLocation<&str>> = f.locations().collect();
    out.extend_from_slice(b"\"status\":");
    serde_json::to_writer(&mut out, &f.status().unwrap_or(FrameStatus::Skipped))?;
    out.extend_from_slice(b",\"symbol_file\":");
    serde_json::to_writer(&mut out, &f.symbol_file())?;
    out.extend_from_slice(b",\"resolved\":");
    serde_json::to_writer(&mut out, &resolved)?;
    out.extend_from_slice(b",\"alternatives\":");
    serde_json::to_writer(&mut out, &f.alternatives())?;
    out.extend_from_slice(b",\"note\":");
    serde_json::to_writer(&mut out, &f.note())?;
    Ok(out)
}
