//! A parsed log: stacks of frames, each frame keeping its raw line.

use super::LogFormat;

/// A parsed crash log or stack trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// The detected (or forced) format.
    pub format: LogFormat,
    /// One stack per exception in log order (JS, Java), or one per thread with the crashed
    /// thread first (native).
    pub stacks: Vec<Stack>,
    /// Native: the modules (images) the log lists, with their load addresses and IDs.
    pub modules: Vec<Module>,
}

/// A native module (image, shared library) as a crash log lists it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// File name (`libc.so.6`, `CrashProbeiOS`).
    pub name: String,
    /// Full path, when the log prints one.
    pub path: Option<String>,
    /// Load address.
    pub base: u64,
    /// Size in memory, when known.
    pub size: Option<u64>,
    /// Identifier as the log prints it: Mach-O UUID, ELF build ID, PE/PDB debug ID.
    pub id: Option<String>,
    /// Architecture (`x86_64`, `arm64`), when the log says.
    pub arch: Option<String>,
}

/// One exception (JS) with its frames, innermost first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stack {
    /// The error header: type and message, several lines joined with `\n` when the message
    /// spans lines. Empty when the log has frames with no header.
    pub title: String,
    /// 1-based line of the header in the log (0 when there is none).
    pub title_line: usize,
    /// The crashing thread (native), or the first exception (JS, Java).
    pub crashed: bool,
    /// Frames in log order.
    pub frames: Vec<Frame>,
}

/// One frame line of a log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The line exactly as in the log (without the line break).
    pub raw: String,
    /// 1-based line number in the log.
    pub line_no: usize,
    /// What the parser read; `None` when the line was not understood (`unparsed`).
    pub input: Option<FrameInput>,
}

/// The parts of a frame line the parser understood.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameInput {
    /// Function name as printed (`De.expandByObject`, `new <anonymous>`, `Function.of [as map]`).
    pub function: Option<String>,
    /// File or URL as printed.
    pub file: Option<String>,
    /// Line as printed.
    pub line: Option<u32>,
    /// Column as printed (a bytecode offset for Hermes bytecode).
    pub column: Option<u32>,
    /// Native address (native logs).
    pub address: Option<u64>,
    /// Native module or image name.
    pub module: Option<String>,
    /// Native: the address relative to the module's load base (what is looked up).
    pub module_offset: Option<u64>,
    /// Native: the module's identifier as the log prints it (a tombstone's ELF build ID, an
    /// Apple report's image UUID, a minidump module's debug ID).
    pub build_id: Option<String>,
    /// Native: the architecture of the module, when the log says (picks the slice of a
    /// universal Mach-O file).
    pub arch: Option<String>,
    /// Native: the address is a return address (a caller frame), so the call instruction
    /// is found at address − 1.
    pub return_address: bool,
    /// The frame has no position by nature (`native`, `[native code]`, `<anonymous>`, eval code).
    pub builtin: bool,
}
