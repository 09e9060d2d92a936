//! Minidumps (`MDMP`), read by rust-minidump: the threads' stacks are walked by
//! `minidump-processor` with the call-frame information (CFI) of any Breakpad `.sym` given
//! for a module (else by frame pointers and stack scanning), then written out as a text
//! report in the Apple `.crash` form (threads, `Binary Images:` with debug IDs) that the
//! rest of Symscope reads, shows and symbolicates like any other log. Every frame says how it
//! was found (`[context]`, `[cfi]`, `[frame pointer]`, `[scan]`).

use crate::model::{LogFormat, Trace};
use breakpad_symbols::{StringSymbolSupplier, Symbolizer};
use minidump::{Minidump, MinidumpModuleList, Module};
use minidump_processor::ProcessState;
use minidump_unwind::FrameTrust;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The first line of a report written by [`report`]; [`super::parse_text`] reads such a
/// report as the `minidump` format.
pub const REPORT_MARK: &str = "Minidump report";

/// Whether bytes are a minidump.
pub fn is_minidump(bytes: &[u8]) -> bool {
    bytes.starts_with(b"MDMP")
}

/// Why a minidump cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MinidumpError {
    /// The header or directory is damaged.
    #[error("not a readable minidump: {0}")]
    Read(String),
    /// The stacks could not be processed.
    #[error("the minidump's stacks could not be processed: {0}")]
    Process(String),
}

/// Walks the minidump's stacks and writes the text report. `cfi` holds Breakpad `.sym` texts
/// (their `MODULE`, `STACK`, `FUNC` and `PUBLIC` lines suffice) by debug ID; a module whose
/// debug ID is there is unwound with its CFI.
pub fn report(bytes: &[u8], cfi: &HashMap<String, String>) -> Result<String, MinidumpError> {
    let dump = Minidump::read(bytes).map_err(|e| MinidumpError::Read(e.to_string()))?;
    // The symbolizer finds `.sym` texts by each module's code file.
    let mut by_code_file = HashMap::new();
    if let Ok(modules) = dump.get_stream::<MinidumpModuleList>() {
        for m in modules.iter() {
            let id = m.debug_identifier().map(|d| d.breakpad().to_string());
            if let Some(text) = id.and_then(|id| cfi.get(&id)) {
                by_code_file.insert(m.code_file().into_owned(), text.clone());
            }
        }
    }
    let provider = Symbolizer::new(StringSymbolSupplier::new(by_code_file));
    let state = futures_executor::block_on(minidump_processor::process_minidump(&dump, &provider))
        .map_err(|e| MinidumpError::Process(e.to_string()))?;
    Ok(write_report(&state))
}

/// The CPU name as our other logs print architectures.
fn arch(state: &ProcessState) -> String {
    let cpu = state.system_info.cpu.to_string();
    match cpu.as_str() {
        "amd64" => "x86_64".to_owned(),
        "arm64" => "arm64".to_owned(),
        _ => cpu,
    }
}

fn write_report(state: &ProcessState) -> String {
    let mut out = String::new();
    let arch = arch(state);
    let _ = writeln!(out, "{REPORT_MARK} ({}, {arch})", state.system_info.os);
    if let Some(t) = state.requesting_thread {
        let _ = writeln!(out, "Crashed Thread: {t}");
    }
    if let Some(e) = &state.exception_info {
        let _ = writeln!(out, "Exception Type: {} at {:#x}", e.reason, e.address.0);
    }
    for (n, thread) in state.threads.iter().enumerate() {
        out.push('\n');
        if let Some(name) = thread.thread_name.as_deref().filter(|s| !s.is_empty()) {
            let _ = writeln!(out, "Thread {n} name:  {name}");
        }
        let crashed = if state.requesting_thread == Some(n) {
            " Crashed"
        } else {
            ""
        };
        let _ = writeln!(out, "Thread {n}{crashed}:");
        for (i, frame) in thread.frames.iter().enumerate() {
            // Callers print their return address, as crash reports do (looked up at − 1).
            let addr = if i == 0 {
                frame.instruction
            } else {
                frame.resume_address
            };
            let how = match frame.trust {
                FrameTrust::Context => "context",
                FrameTrust::CallFrameInfo => "cfi",
                FrameTrust::FramePointer => "frame pointer",
                FrameTrust::Scan | FrameTrust::CfiScan => "scan",
                FrameTrust::PreWalked => "prewalked",
                FrameTrust::None => "unknown",
            };
            match &frame.module {
                Some(m) => {
                    let name = super::native::basename(&m.code_file()).to_owned();
                    let _ = writeln!(
                        out,
                        "{i:<4}{name:<30} {addr:#018x} {:#x} + {}  [{how}]",
                        m.base_address(),
                        addr.wrapping_sub(m.base_address())
                    );
                }
                None => {
                    let _ = writeln!(out, "{i:<4}{:<30} {addr:#018x} 0x0 + 0  [{how}]", "???");
                }
            }
        }
    }
    out.push_str("\nBinary Images:\n");
    for m in state.modules.by_addr() {
        let name = super::native::basename(&m.code_file()).to_owned();
        let id = m
            .debug_identifier()
            .map_or(String::new(), |d| d.breakpad().to_string());
        let end = m.base_address().saturating_add(m.size().saturating_sub(1));
        let _ = writeln!(
            out,
            "{:#x} - {end:#x} {name} {arch} <{id}> {}",
            m.base_address(),
            m.code_file()
        );
    }
    out
}

/// Parses a minidump, its stacks walked with `cfi` (see [`report`]): the report is written,
/// then read back.
pub fn parse_with_cfi(bytes: &[u8], cfi: &HashMap<String, String>) -> Result<Trace, MinidumpError> {
    let text = report(bytes, cfi)?;
    let mut trace = super::apple::parse(&text);
    trace.format = LogFormat::Minidump;
    Ok(trace)
}

/// Parses a minidump without CFI (what [`super::parse_log`] does with `MDMP` bytes).
pub fn parse(bytes: &[u8]) -> Result<Trace, MinidumpError> {
    parse_with_cfi(bytes, &HashMap::new())
}
