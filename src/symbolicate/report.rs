//! Renders a symbolicated trace as the CLI's JSON (`shared/docs/cli-json.md`) or as text.

use crate::model::{FrameStatus, NameSource, ResolvedLocation, SymbolicatedTrace, Trace};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Version of the JSON shape.
pub const SCHEMA: u32 = 1;

/// The JSON document.
#[derive(Debug, Serialize)]
pub struct JsonReport<'a> {
    /// Shape version.
    pub schema: u32,
    /// Detected log format.
    pub format: &'static str,
    /// One per exception.
    pub stacks: Vec<JsonStack<'a>>,
    /// Warnings.
    pub warnings: &'a [String],
    /// Timings.
    pub timings: JsonTimings,
    /// Native: each module of the frames, its identifier, frame counts and debug file
    /// (`status`: found, missing or mismatch). Absent for other logs.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub modules: &'a [crate::model::ModuleCoverage],
}

/// A stack in the JSON.
#[derive(Debug, Serialize)]
pub struct JsonStack<'a> {
    /// Error header.
    pub title: &'a str,
    /// First exception.
    pub crashed: bool,
    /// Frames.
    pub frames: Vec<JsonFrame<'a>>,
}

/// A frame in the JSON.
#[derive(Debug, Serialize)]
pub struct JsonFrame<'a> {
    /// Index in its stack.
    pub index: usize,
    /// The line as in the log.
    pub raw: &'a str,
    /// What the parser read.
    pub input: JsonInput<'a>,
    /// Status.
    pub status: FrameStatus,
    /// Symbol file used.
    pub symbol_file: Option<&'a str>,
    /// Original locations.
    pub resolved: Vec<JsonLocation<'a>>,
    /// Other possible chains.
    pub alternatives: Vec<Vec<JsonLocation<'a>>>,
    /// Why not resolved.
    pub note: Option<&'a str>,
}

/// The parsed input of a frame.
#[derive(Debug, Default, Serialize)]
pub struct JsonInput<'a> {
    /// Function as printed.
    pub function: Option<&'a str>,
    /// File as printed.
    pub file: Option<&'a str>,
    /// Line as printed.
    pub line: Option<u32>,
    /// Column as printed.
    pub column: Option<u32>,
    /// Native address.
    pub address: Option<String>,
    /// Native module.
    pub module: Option<&'a str>,
    /// Native: the address relative to the module's load base (`"0x1500"`).
    pub module_offset: Option<String>,
}

/// One original location.
#[derive(Debug, Serialize)]
pub struct JsonLocation<'a> {
    /// Function name.
    pub function: Option<&'a str>,
    /// Where the function name came from: `function_map`, `caller_token` or `token`.
    pub name_source: Option<NameSource>,
    /// The identifier at the mapped position (`names` entry).
    pub token_name: Option<&'a str>,
    /// Source path.
    pub file: Option<&'a str>,
    /// 1-based line.
    pub line: Option<u32>,
    /// 1-based column.
    pub column: Option<u32>,
    /// Inlined into the next entry.
    pub inlined: bool,
    /// On the ignore list.
    pub ignored: bool,
}

/// Timings.
#[derive(Debug, Serialize)]
pub struct JsonTimings {
    /// Total milliseconds.
    pub total_ms: f64,
    /// Phases.
    pub phases: Vec<JsonPhase>,
}

/// One timed phase.
#[derive(Debug, Serialize)]
pub struct JsonPhase {
    /// Name.
    pub name: String,
    /// Milliseconds.
    pub ms: f64,
}

fn location(loc: &ResolvedLocation) -> JsonLocation<'_> {
    JsonLocation {
        function: loc.function.as_deref(),
        name_source: loc.name_source,
        token_name: loc.token_name.as_deref(),
        file: loc.file.as_deref(),
        line: loc.line,
        column: loc.column,
        inlined: loc.inlined,
        ignored: loc.ignored,
    }
}

fn round3(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// Builds the JSON document for a trace and its symbolication (stacks are parallel).
pub fn json<'a>(trace: &'a Trace, result: &'a SymbolicatedTrace, total_ms: f64) -> JsonReport<'a> {
    let stacks = trace
        .stacks
        .iter()
        .zip(&result.stacks)
        .map(|(stack, sym)| JsonStack {
            title: &sym.title,
            crashed: sym.crashed,
            frames: stack
                .frames
                .iter()
                .zip(&sym.frames)
                .enumerate()
                .map(|(index, (frame, s))| {
                    let input =
                        frame
                            .input
                            .as_ref()
                            .map_or_else(JsonInput::default, |i| JsonInput {
                                function: i.function.as_deref(),
                                file: i.file.as_deref(),
                                line: i.line,
                                column: i.column,
                                address: i.address.map(|a| format!("0x{a:x}")),
                                module: i.module.as_deref(),
                                module_offset: i.module_offset.map(|a| format!("0x{a:x}")),
                            });
                    JsonFrame {
                        index,
                        raw: &frame.raw,
                        input,
                        status: s.status,
                        symbol_file: s.symbol_file.as_deref(),
                        resolved: s.resolved.iter().map(location).collect(),
                        alternatives: s
                            .alternatives
                            .iter()
                            .map(|chain| chain.iter().map(location).collect())
                            .collect(),
                        note: s.note.as_deref(),
                    }
                })
                .collect(),
        })
        .collect();
    JsonReport {
        schema: SCHEMA,
        format: result.format.as_str(),
        stacks,
        warnings: &result.warnings,
        modules: &result.modules,
        timings: JsonTimings {
            total_ms: round3(total_ms),
            phases: result
                .timings
                .iter()
                .map(|t| JsonPhase {
                    name: t.name.clone(),
                    ms: round3(t.ms),
                })
                .collect(),
        },
    }
}

/// Renders the trace as it was written, with each resolved frame's original location
/// beneath it, then the warnings and a note per file that had no map.
pub fn text(trace: &Trace, result: &SymbolicatedTrace) -> String {
    let mut out = String::new();
    // Files (JavaScript) and modules (native) that had no symbols, with their frame counts.
    let mut missing: BTreeMap<String, usize> = BTreeMap::new();
    let mut missing_modules: BTreeMap<String, usize> = BTreeMap::new();
    for (n, (stack, sym)) in trace.stacks.iter().zip(&result.stacks).enumerate() {
        if n > 0 {
            out.push('\n');
        }
        if !stack.title.is_empty() {
            out.push_str(&stack.title);
            out.push('\n');
            if sym.title != stack.title {
                for line in sym.title.lines() {
                    let _ = writeln!(out, "    → {line}");
                }
            }
        }
        for (frame, s) in stack.frames.iter().zip(&sym.frames) {
            out.push_str(&frame.raw);
            out.push('\n');
            let indent: String = frame
                .raw
                .chars()
                .take_while(|c| c.is_whitespace())
                .collect();
            match s.status {
                FrameStatus::Resolved => {
                    for loc in &s.resolved {
                        let function = loc.function.as_deref().unwrap_or("<unknown>");
                        let file = loc.file.as_deref().unwrap_or("?");
                        let _ = write!(
                            out,
                            "{indent}    → {function} ({file}:{}",
                            loc.line.unwrap_or(0)
                        );
                        if let Some(c) = loc.column {
                            let _ = write!(out, ":{c}");
                        }
                        out.push(')');
                        if loc.ignored {
                            out.push_str("  [library]");
                        }
                        out.push('\n');
                    }
                }
                FrameStatus::NotCovered => {
                    let _ = writeln!(
                        out,
                        "{indent}    ✗ {}",
                        s.note.as_deref().unwrap_or("not covered")
                    );
                }
                FrameStatus::NoSymbols => {
                    let input = frame.input.as_ref();
                    if let Some(file) = input.and_then(|i| i.file.as_deref()) {
                        *missing.entry(file.to_owned()).or_insert(0) += 1;
                    } else if let Some(module) = input.and_then(|i| i.module.as_deref()) {
                        *missing_modules.entry(module.to_owned()).or_insert(0) += 1;
                    }
                }
                FrameStatus::Unparsed | FrameStatus::Skipped => {}
            }
        }
    }
    if !result.warnings.is_empty() || !missing.is_empty() || !missing_modules.is_empty() {
        out.push('\n');
    }
    for w in &result.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    for (file, count) in &missing {
        let plural = if *count == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "note: no source map for {file} ({count} frame{plural})"
        );
    }
    for (module, count) in &missing_modules {
        let plural = if *count == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "note: no debug file for {module} ({count} frame{plural})"
        );
    }
    out
}
