//! A JavaScript log symbolicated and written as it is read, a window of frames at a time, so
//! that a log of any length takes the same memory (what `symscope symbolicate` does with a
//! JavaScript log, whose stack overflows and fleets' concatenated logs run to millions of
//! frames). The output is the same bytes one symbolicated table would give (`report`).
//!
//! [`Reader`] parses the text as it comes (the JavaScript parser is resumable) into windows:
//! compact tables of a bounded number of stacks and frames. A stack the window's edge cuts is
//! continued in the next window, and the window it ends in also holds its next frame (a
//! frame is named from its caller's call site, the frame after it); that frame is written by
//! the next window. [`Symbolicator`] resolves each window with one run's state kept from
//! window to window ([`crate::symbolicate::Windowed`]) and writes it ([`Writer`]).
//!
//! What is only known at the end is written at the end: the log's format (after the stacks)
//! and each stack's fingerprint (after its frames: its frames may all be libraries', and
//! then the signature takes the resolved ones, which only the stack's end tells). A stack's
//! fingerprint also takes the log's platform, known as soon as one frame is read: the
//! windows before that (stacks of header lines only) wait for it.

use super::report::{Cut, End, Output, Writer};
use super::signature::Platform;
use super::table::{FrameTable, LogBuilder, ResultsBuilder};
use crate::formats::js;
use crate::model::{FrameInput, LogFormat, Module, NoProgress, TraceSink};
use crate::symbolicate::{Summary, SymbolSet, Windowed};
use std::io::{self, Write};

/// Whether a log whose first bytes are `head` streams: it is JavaScript's, as the whole log's
/// detection would say, and not a minidump or another binary file. `head` holds the log's
/// first [`crate::formats::HEAD_LINES`] lines and [`super::BINARY_SNIFF`] bytes (or all of
/// it). The columns' base is the caller's to settle (a Hermes bytecode frame anywhere makes
/// them 0-based).
pub fn can_stream(head: &[u8]) -> bool {
    !crate::formats::minidump::is_minidump(head)
        && memchr::memchr(0, &head[..head.len().min(super::BINARY_SNIFF)]).is_none()
        && crate::formats::is_javascript_head(&String::from_utf8_lossy(head))
}

/// How many stacks and frames a window holds by default.
pub const WINDOW: usize = 1 << 14;

/// A window of the log: some of its stacks and frames, parsed.
pub struct Window {
    table: FrameTable,
    cut: Cut,
    /// A frame was read in this window or before it (the log is JavaScript's).
    saw_frames: bool,
    /// The last window: the log's format.
    format: Option<LogFormat>,
}

/// Reads a JavaScript log's text as it comes into [`Window`]s.
pub struct Reader {
    parser: js::Parser,
    sink: Windows,
}

impl Reader {
    /// A reader whose windows hold about `window` stacks and frames (at least one).
    pub fn new(window: usize) -> Self {
        Self {
            parser: js::Parser::default(),
            sink: Windows {
                limit: window.max(1),
                builder: LogBuilder::default(),
                size: 0,
                open: None,
                continues: false,
                saw_frames: false,
                ready: Vec::new(),
            },
        }
    }

    /// Reads the next piece of the log (ending after a line break, or the log's end); returns
    /// the windows it filled.
    pub fn feed(&mut self, text: &str) -> Vec<Window> {
        self.parser.feed(text, &mut self.sink);
        std::mem::take(&mut self.sink.ready)
    }

    /// Ends the log: the last windows (the last of them says the format).
    pub fn finish(mut self) -> Vec<Window> {
        self.parser.finish(&mut self.sink);
        self.sink.ready
    }
}

/// The parser's sink: cuts its stacks and frames into windows.
struct Windows {
    limit: usize,
    builder: LogBuilder,
    /// Stacks and frames in the window being filled.
    size: usize,
    /// The last stack begun: its header, to begin it again in the next window.
    open: Option<(String, usize, bool)>,
    /// The window being filled goes on with the last stack of the one before.
    continues: bool,
    saw_frames: bool,
    ready: Vec<Window>,
}

impl Windows {
    fn ship(&mut self, lookahead: bool, format: Option<LogFormat>) {
        let builder = std::mem::take(&mut self.builder);
        self.ready.push(Window {
            table: builder.finish(),
            cut: Cut {
                continues: self.continues,
                lookahead,
            },
            saw_frames: self.saw_frames,
            format,
        });
        self.continues = false;
        self.size = 0;
    }
}

impl TraceSink for Windows {
    fn stack(&mut self, title: &str, title_line: usize, crashed: bool) {
        if self.size >= self.limit {
            self.ship(false, None);
        }
        self.builder.stack(title, title_line, crashed);
        self.open = Some((title.to_owned(), title_line, crashed));
        self.size += 1;
    }

    fn frame(&mut self, raw: &str, line_no: usize, input: Option<FrameInput<&str>>) {
        self.saw_frames |= input.is_some();
        if self.size >= self.limit
            && let Some((title, title_line, crashed)) = self.open.take()
        {
            // The frame closes this window (it names the frame before it) and opens the
            // next, which goes on with the stack.
            self.builder.frame(raw, line_no, input.clone());
            self.ship(true, None);
            self.builder.stack(&title, title_line, crashed);
            self.open = Some((title, title_line, crashed));
            self.continues = true;
        }
        self.builder.frame(raw, line_no, input);
        self.size += 1;
    }

    fn end(&mut self, format: LogFormat, modules: Vec<Module>) {
        self.builder.end(format, modules);
        self.ship(false, Some(format));
    }
}

/// Symbolicates [`Window`]s as they come and writes them.
pub struct Symbolicator<'s> {
    resolver: Windowed<'s>,
    writer: Writer,
    /// Windows read before the log's platform is known.
    waiting: Vec<Window>,
    platform: Option<Platform>,
    stacks: usize,
    frames: usize,
    format: LogFormat,
}

impl<'s> Symbolicator<'s> {
    /// Begins the output (`output`: compact JSON, a JSON line or text) of a log whose columns
    /// count from `base`, symbolicated against `symbols`.
    pub fn new<W: Write>(
        symbols: &'s SymbolSet,
        base: u32,
        output: Output,
        out: &mut W,
    ) -> io::Result<Self> {
        let mut writer = Writer::new(output);
        writer.begin(out)?;
        Ok(Self {
            resolver: Windowed::new(symbols, base),
            writer,
            waiting: Vec::new(),
            platform: None,
            stacks: 0,
            frames: 0,
            format: LogFormat::Unknown,
        })
    }

    /// Symbolicates and writes `window` (and those that waited for the log's platform).
    pub fn window<W: Write>(&mut self, window: Window, out: &mut W) -> io::Result<()> {
        if self.platform.is_none() {
            if window.saw_frames {
                self.platform = Some(Platform::JavaScript);
            } else if let Some(format) = window.format {
                self.platform = Some(Platform::of(format));
            }
        }
        let Some(platform) = self.platform else {
            self.waiting.push(window);
            return Ok(());
        };
        for window in std::mem::take(&mut self.waiting)
            .into_iter()
            .chain([window])
        {
            self.write(window, platform, out)?;
        }
        Ok(())
    }

    fn write<W: Write>(
        &mut self,
        window: Window,
        platform: Platform,
        out: &mut W,
    ) -> io::Result<()> {
        let table = &window.table;
        let mut results = ResultsBuilder::new(table);
        self.resolver.window(table, &mut NoProgress, &mut results);
        let table = results.finish(Summary::default());
        self.stacks += table.stack_count() - usize::from(window.cut.continues);
        self.frames += table.frame_count() - usize::from(window.cut.lookahead);
        if let Some(format) = window.format {
            self.format = format;
        }
        self.writer.window(&table, window.cut, platform, out)
    }

    /// The stacks and frames read so far.
    pub fn counts(&self) -> (usize, usize) {
        (self.stacks, self.frames)
    }

    /// Ends the output: the format, the run's `warnings` then the symbolication's, the
    /// timings (`total_ms`: the whole run).
    pub fn finish<W: Write>(
        mut self,
        warnings: &[String],
        total_ms: f64,
        out: &mut W,
    ) -> io::Result<()> {
        // Windows still waiting: the log had no frame, its platform is its format's.
        let platform = Platform::of(self.format);
        for window in std::mem::take(&mut self.waiting) {
            self.write(window, platform, out)?;
        }
        let summary = self.resolver.finish();
        self.writer.finish(
            &End {
                format: self.format,
                warnings,
                more_warnings: &summary.warnings,
                timings: &summary.timings,
                total_ms,
                modules: &[],
            },
            out,
        )
    }
}
