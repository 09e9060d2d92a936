//! Minidumps (`MDMP`), read by rust-minidump: the threads' stacks are walked by
//! `minidump-processor` with the call-frame information (CFI) of any Breakpad `.sym` given
//! for a module (else by frame pointers and stack scanning), and become a trace directly: a
//! stack per thread (the crashed one first), a frame per walked frame, whose line says how it
//! was found (`[context]`, `[cfi]`, `[frame pointer]`, `[scan]`), and the dump's modules as the
//! images frames are found in, with their debug IDs.

use super::images::{basename, crashed_first, frame_input, thread_title, uuid_with_dashes};
use crate::model::{Frame, LogFormat, Module, Stack, Trace};
use breakpad_symbols::{StringSymbolSupplier, Symbolizer};
use minidump::{Minidump, MinidumpModuleList, Module as _};
use minidump_processor::ProcessState;
use minidump_unwind::FrameTrust;
use std::collections::HashMap;

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

/// Walks the minidump's stacks, each module with the CFI `cfi` holds for its debug ID.
fn process(bytes: &[u8], cfi: &HashMap<String, String>) -> Result<ProcessState, MinidumpError> {
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
    Ok(state)
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

/// The minidump's threads as stacks, its modules as the images frames are found in. Each
/// frame's line says how it was found (`[context]`, `[cfi]`, `[frame pointer]`, `[scan]`).
/// Lines are numbered as in a text report of the dump: its title, the crashed thread and
/// the exception, then per thread a blank line, its name, its header and its frames.
fn trace_of(state: &ProcessState) -> Trace {
    let arch = arch(state);
    let modules: Vec<Module> = state
        .modules
        .by_addr()
        .filter_map(|m| {
            let name = basename(&m.code_file()).trim().to_owned();
            let id = m
                .debug_identifier()
                .map_or(String::new(), |d| d.breakpad().to_string());
            let end = m.base_address().saturating_add(m.size().saturating_sub(1));
            let path = m.code_file().trim().to_owned();
            (!name.is_empty()).then(|| Module {
                name,
                path: (!path.is_empty()).then_some(path),
                base: m.base_address(),
                size: end
                    .checked_sub(m.base_address())
                    .map(|s| s.saturating_add(1)),
                id: Some(uuid_with_dashes(&id)),
                arch: Some(arch.clone()),
            })
        })
        .collect();
    let exception = state
        .exception_info
        .as_ref()
        .map(|e| {
            format!("{} at {:#x}", e.reason, e.address.0)
                .trim()
                .to_owned()
        })
        .unwrap_or_default();
    // Lines of the report before the first thread: its title, the crashed thread, the
    // exception.
    let mut line = 1
        + usize::from(state.requesting_thread.is_some())
        + usize::from(state.exception_info.is_some());
    let mut stacks = Vec::with_capacity(state.threads.len());
    for (n, thread) in state.threads.iter().enumerate() {
        // A blank line, the name, then the thread's header.
        line += 1;
        let name = thread.thread_name.as_deref().filter(|s| !s.is_empty());
        line += usize::from(name.is_some());
        let name = name.map(str::trim);
        line += 1;
        let crashed = state.requesting_thread == Some(n);
        let mut stack = Stack {
            title: thread_title(n as u64, crashed, name, &exception),
            title_line: line,
            crashed,
            frames: Vec::with_capacity(thread.frames.len()),
        };
        for (i, frame) in thread.frames.iter().enumerate() {
            line += 1;
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
            let (name, raw) = match &frame.module {
                Some(m) => {
                    let name = basename(&m.code_file()).to_owned();
                    let raw = format!(
                        "{i:<3} {name:<30} {addr:#018x} {:#x} + {}  [{how}]",
                        m.base_address(),
                        addr.wrapping_sub(m.base_address())
                    );
                    (name, raw)
                }
                None => {
                    let raw = format!("{i:<3} {:<30} {addr:#018x} 0x0 + 0  [{how}]", "???");
                    ("???".to_owned(), raw)
                }
            };
            let name = name.trim();
            stack.frames.push(Frame {
                raw,
                line_no: line,
                input: Some(frame_input(
                    &modules,
                    Some(name).filter(|n| !n.is_empty()),
                    addr,
                    None,
                    i,
                )),
            });
        }
        stacks.push(stack);
    }
    Trace {
        format: LogFormat::Minidump,
        stacks: crashed_first(stacks),
        modules,
    }
}

/// Parses a minidump, its stacks walked with `cfi`: Breakpad `.sym` texts (their `MODULE`,
/// `STACK`, `FUNC` and `PUBLIC` lines suffice) by debug ID; a module whose debug ID is there
/// is unwound with its CFI.
pub fn parse_with_cfi(bytes: &[u8], cfi: &HashMap<String, String>) -> Result<Trace, MinidumpError> {
    Ok(trace_of(&process(bytes, cfi)?))
}

/// Parses a minidump without CFI (what [`super::parse_log`] does with `MDMP` bytes).
pub fn parse(bytes: &[u8]) -> Result<Trace, MinidumpError> {
    parse_with_cfi(bytes, &HashMap::new())
}
