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

/// The parts of a frame line the parser understood: owned (`FrameInput`, what parsers
/// write) or borrowed (`FrameInput<&str>`, read from a [`Trace`] or the engine's table).
///
/// Serialised as the CLI's JSON writes a frame's `input` (addresses as `"0x…"` strings; the
/// identifier, architecture and the two flags are for matching only).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct FrameInput<S = String> {
    /// Function name as printed (`De.expandByObject`, `new <anonymous>`, `Function.of [as map]`).
    pub function: Option<S>,
    /// File or URL as printed.
    pub file: Option<S>,
    /// Line as printed.
    pub line: Option<u32>,
    /// Column as printed (a bytecode offset for Hermes bytecode).
    pub column: Option<u32>,
    /// Native address (native logs).
    #[serde(serialize_with = "hex")]
    pub address: Option<u64>,
    /// Native module or image name.
    pub module: Option<S>,
    /// Native: the address relative to the module's load base (what is looked up).
    /// WebAssembly: the byte offset from the module's start, as engines print it
    /// (`wasm-function[9]:0x2a8`).
    #[serde(serialize_with = "hex")]
    pub module_offset: Option<u64>,
    /// WebAssembly: the function's index in the module (`wasm-function[9]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wasm_function: Option<u32>,
    /// Native: the module's identifier as the log prints it (a tombstone's ELF build ID, an
    /// Apple report's image UUID, a minidump module's debug ID).
    #[serde(skip)]
    pub build_id: Option<S>,
    /// Native: the architecture of the module, when the log says (picks the slice of a
    /// universal Mach-O file).
    #[serde(skip)]
    pub arch: Option<S>,
    /// Native: the address is a return address (a caller frame), so the call instruction
    /// is found at address − 1.
    #[serde(skip)]
    pub return_address: bool,
    /// The frame has no position by nature (`native`, `[native code]`, `<anonymous>`, eval code).
    #[serde(skip)]
    pub builtin: bool,
    /// JavaScript: the frame runs in eval'd code; this is its position there as printed
    /// (`<anonymous>:1:5`, `eval line 2 > eval:1:30`), while `file`/`line`/`column` are the
    /// eval call in the real file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<S>,
}

/// `Some(0x1500)` as `"0x1500"`.
fn hex<Ser: serde::Serializer>(v: &Option<u64>, s: Ser) -> Result<Ser::Ok, Ser::Error> {
    match v {
        Some(a) => s.collect_str(&format_args!("0x{a:x}")),
        None => s.serialize_none(),
    }
}

impl FrameInput {
    /// The input, borrowed.
    pub fn as_view(&self) -> FrameInput<&str> {
        FrameInput {
            function: self.function.as_deref(),
            file: self.file.as_deref(),
            line: self.line,
            column: self.column,
            address: self.address,
            module: self.module.as_deref(),
            module_offset: self.module_offset,
            wasm_function: self.wasm_function,
            build_id: self.build_id.as_deref(),
            arch: self.arch.as_deref(),
            return_address: self.return_address,
            builtin: self.builtin,
            eval: self.eval.as_deref(),
        }
    }
}

impl FrameInput<&str> {
    /// The input, owned.
    pub fn to_owned(&self) -> FrameInput {
        FrameInput {
            function: self.function.map(str::to_owned),
            file: self.file.map(str::to_owned),
            line: self.line,
            column: self.column,
            address: self.address,
            module: self.module.map(str::to_owned),
            module_offset: self.module_offset,
            wasm_function: self.wasm_function,
            build_id: self.build_id.map(str::to_owned),
            arch: self.arch.map(str::to_owned),
            return_address: self.return_address,
            builtin: self.builtin,
            eval: self.eval.map(str::to_owned),
        }
    }
}

/// One frame as the resolvers read it: its line and what the parser read, borrowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameView<'a> {
    /// The line exactly as in the log.
    pub raw: &'a str,
    /// What the parser read; `None` when the line was not understood.
    pub input: Option<FrameInput<&'a str>>,
}

/// A parsed log as the resolvers read it: a [`Trace`], or the engine's compact table, which
/// keeps no `Trace` (a million-frame log would need hundreds of megabytes as one).
pub trait TraceView {
    /// The log's format.
    fn format(&self) -> LogFormat;
    /// Number of stacks.
    fn stack_count(&self) -> usize;
    /// Stack `s`'s header as in the log.
    fn stack_title(&self, s: usize) -> &str;
    /// Whether stack `s` is the crashing one.
    fn stack_crashed(&self, s: usize) -> bool;
    /// Number of frames of stack `s`.
    fn frame_count(&self, s: usize) -> usize;
    /// Frame `f` of stack `s`.
    fn frame(&self, s: usize, f: usize) -> Option<FrameView<'_>>;
    /// Total number of frames.
    fn total_frames(&self) -> usize {
        (0..self.stack_count()).map(|s| self.frame_count(s)).sum()
    }
}

impl TraceView for Trace {
    fn format(&self) -> LogFormat {
        self.format
    }

    fn stack_count(&self) -> usize {
        self.stacks.len()
    }

    fn stack_title(&self, s: usize) -> &str {
        self.stacks.get(s).map_or("", |st| st.title.as_str())
    }

    fn stack_crashed(&self, s: usize) -> bool {
        self.stacks.get(s).is_some_and(|st| st.crashed)
    }

    fn frame_count(&self, s: usize) -> usize {
        self.stacks.get(s).map_or(0, |st| st.frames.len())
    }

    fn frame(&self, s: usize, f: usize) -> Option<FrameView<'_>> {
        let frame = self.stacks.get(s)?.frames.get(f)?;
        Some(FrameView {
            raw: &frame.raw,
            input: frame.input.as_ref().map(FrameInput::as_view),
        })
    }
}

/// Receives a log as a parser reads it, in log order (ripgrep's `Sink`): a parser that writes
/// into it keeps no [`Trace`] of its own, so a million-frame log never exists as one. A
/// `Trace` collects what it receives.
pub trait TraceSink {
    /// The next stack begins.
    fn stack(&mut self, title: &str, title_line: usize, crashed: bool);
    /// The next frame of the current stack: its line, 1-based line number, and what the
    /// parser read.
    fn frame(&mut self, raw: &str, line_no: usize, input: Option<FrameInput<&str>>);
    /// The log is read: its format and the modules it lists.
    fn end(&mut self, format: LogFormat, modules: Vec<Module>);
}

impl Trace {
    /// An empty trace of an unknown format (what a [`TraceSink`] starts from).
    pub fn empty() -> Self {
        Self {
            format: LogFormat::Unknown,
            stacks: Vec::new(),
            modules: Vec::new(),
        }
    }

    /// Writes the trace into `sink`, as a parser would.
    pub fn replay(self, sink: &mut dyn TraceSink) {
        for stack in &self.stacks {
            sink.stack(&stack.title, stack.title_line, stack.crashed);
            for frame in &stack.frames {
                sink.frame(
                    &frame.raw,
                    frame.line_no,
                    frame.input.as_ref().map(FrameInput::as_view),
                );
            }
        }
        sink.end(self.format, self.modules);
    }
}

impl TraceSink for Trace {
    fn stack(&mut self, title: &str, title_line: usize, crashed: bool) {
        self.stacks.push(Stack {
            title: title.to_owned(),
            title_line,
            crashed,
            frames: Vec::new(),
        });
    }

    fn frame(&mut self, raw: &str, line_no: usize, input: Option<FrameInput<&str>>) {
        if let Some(stack) = self.stacks.last_mut() {
            stack.frames.push(Frame {
                raw: raw.to_owned(),
                line_no,
                input: input.as_ref().map(FrameInput::to_owned),
            });
        }
    }

    fn end(&mut self, format: LogFormat, modules: Vec<Module>) {
        self.format = format;
        self.modules = modules;
    }
}
