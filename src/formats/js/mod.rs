//! JavaScript stack traces: V8 (Chrome, Node, Edge), SpiderMonkey (Firefox), JavaScriptCore
//! (Safari, React Native), Chakra (old Edge), Hermes (JS and bytecode). `frame.rs` reads one
//! line; this module groups lines into stacks and tells the format from the mix.
//!
//! Pure functions over `&str`. Every line of the log ends up somewhere: in a stack's title,
//! as a frame, or as an `unparsed` frame; only blank lines between stacks are dropped, so a
//! frame's index is its place in the stack as the engine printed it.

mod frame;

pub use frame::parse_location;

use crate::model::{FrameInput, LogFormat, Trace, TraceSink};
use frame::{Line, classify};

/// Frame syntax families; the format is decided from the mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Syntax {
    /// `at f (loc)` or `at loc`, with a hint whether it looks like Hermes.
    At { hermes_hint: bool, v8_hint: bool },
    /// `at f (address at file:1:offset)`.
    HermesBytecode,
    /// `f@loc`, with hints for JSC or SpiderMonkey.
    AtSign { jsc_hint: bool, sm_hint: bool },
}

/// Parses a JavaScript stack trace or a log holding several, detecting the format.
pub fn parse(text: &str) -> Trace {
    let mut trace = Trace::empty();
    parse_into(text, &mut trace);
    trace
}

/// A frame printed as a name alone (JavaScriptCore's frames in eval'd code): no position.
fn named_only(name: &str) -> FrameInput<&str> {
    FrameInput {
        function: Some(name),
        builtin: true,
        ..FrameInput::default()
    }
}

/// [`parse`], writing each stack and frame into `sink` as it is read (nothing is kept but the
/// current stack's header lines).
pub fn parse_into(text: &str, sink: &mut dyn TraceSink) {
    let mut parser = Parser::default();
    parser.feed(text, sink);
    parser.finish(sink);
}

/// [`parse_into`] over a log that comes a piece at a time: each piece is fed as it is read,
/// cut after a line break (`\n`), and the stacks and frames are written as they are read, the
/// same as one [`parse_into`] of the whole text would write them. The format (decided from
/// the mix of frames) is written by [`Parser::finish`].
#[derive(Default)]
pub struct Parser {
    counts: Counts,
    stack: OpenStack,
    any_stack: bool,
    /// Lines read so far.
    lines: usize,
}

impl Parser {
    /// Reads `text`, which ends with a line break (or ends the log), into `sink`.
    pub fn feed(&mut self, text: &str, sink: &mut dyn TraceSink) {
        let stack = &mut self.stack;
        let mut read = 0;
        for raw in text.lines() {
            read += 1;
            let line_no = self.lines + read;
            match classify(raw) {
                Line::Frame(syntax, input, owned_file) => {
                    self.counts.add(syntax);
                    if !stack.has_frames {
                        stack.open = true;
                        stack.at_sign = matches!(syntax, Syntax::AtSign { .. });
                        // JavaScriptCore prints the frames of eval'd code as names alone,
                        // before the first frame with a position.
                        let named = match syntax {
                            Syntax::AtSign { jsc_hint: true, .. } => stack.take_named_frames(),
                            _ => Vec::new(),
                        };
                        stack.send_header(sink, &mut self.any_stack);
                        for (n, line) in &named {
                            sink.frame(line, *n, Some(named_only(line.trim())));
                        }
                    }
                    let mut input: FrameInput<&str> = input;
                    if let Some(file) = owned_file.as_deref() {
                        input.file = Some(file);
                    }
                    sink.frame(raw, line_no, Some(input));
                    stack.has_frames = true;
                    stack.gap = false;
                }
                Line::BareName(name) if stack.has_frames && stack.at_sign && !stack.gap => {
                    sink.frame(raw, line_no, Some(named_only(name)));
                }
                Line::Blank => {
                    if stack.has_frames {
                        stack.gap = true;
                    } else if stack.open {
                        stack.title_lines.push((line_no, raw.to_owned()));
                    }
                }
                Line::BareName(_) | Line::Text => {
                    if !stack.open
                        || (stack.has_frames && (stack.gap || looks_like_error_header(raw)))
                    {
                        stack.finish(sink, &mut self.any_stack);
                        stack.open = true;
                        stack.title_lines.push((line_no, raw.to_owned()));
                    } else if stack.has_frames {
                        sink.frame(raw, line_no, None);
                    } else {
                        stack.title_lines.push((line_no, raw.to_owned()));
                    }
                    stack.gap = false;
                }
            }
        }
        self.lines += read;
    }

    /// Whether a frame has been read (then the log's format is a JavaScript one, whatever
    /// the rest holds).
    pub fn saw_frames(&self) -> bool {
        self.counts.format() != LogFormat::Unknown
    }

    /// Ends the log: the open stack and the format are written into `sink`.
    pub fn finish(mut self, sink: &mut dyn TraceSink) {
        self.stack.finish(sink, &mut self.any_stack);
        sink.end(self.counts.format(), Vec::new());
    }
}

/// The stack being read: its header lines (with their line numbers) until its first frame,
/// then the kind of its frames and whether a blank line followed them.
#[derive(Default)]
struct OpenStack {
    open: bool,
    title_lines: Vec<(usize, String)>,
    header_sent: bool,
    has_frames: bool,
    /// Its frames are SpiderMonkey's or JavaScriptCore's (`f@loc`).
    at_sign: bool,
    gap: bool,
}

impl OpenStack {
    /// The header lines that are names alone, when every header line is one (the stack has
    /// no message, as in Safari's `error.stack`): they are frames.
    fn take_named_frames(&mut self) -> Vec<(usize, String)> {
        let all_named = !self.title_lines.is_empty()
            && self
                .title_lines
                .iter()
                .all(|(_, l)| matches!(classify(l), Line::BareName(_)));
        if all_named {
            std::mem::take(&mut self.title_lines)
        } else {
            Vec::new()
        }
    }

    /// Writes the header (once): the title lines without trailing blank ones; the first stack
    /// of the log is the crashing one.
    fn send_header(&mut self, sink: &mut dyn TraceSink, any_stack: &mut bool) {
        if self.header_sent {
            return;
        }
        while self
            .title_lines
            .last()
            .is_some_and(|(_, l)| l.trim().is_empty())
        {
            self.title_lines.pop();
        }
        let title_line = self.title_lines.first().map_or(0, |&(n, _)| n);
        let title: Vec<&str> = self.title_lines.iter().map(|(_, l)| l.as_str()).collect();
        sink.stack(&title.join("\n"), title_line, !*any_stack);
        *any_stack = true;
        self.header_sent = true;
    }

    /// Ends the stack (a stack of header lines only is written now) and starts afresh.
    fn finish(&mut self, sink: &mut dyn TraceSink, any_stack: &mut bool) {
        if self.open {
            self.send_header(sink, any_stack);
        }
        *self = Self::default();
    }
}

/// Frames seen per syntax family, and the hints in them.
#[derive(Default)]
struct Counts {
    at: usize,
    hermes: usize,
    v8: usize,
    bytecode: usize,
    at_sign: usize,
    jsc: usize,
    sm: usize,
}

impl Counts {
    fn add(&mut self, syntax: Syntax) {
        match syntax {
            Syntax::At {
                hermes_hint,
                v8_hint,
            } => {
                self.at += 1;
                self.hermes += usize::from(hermes_hint);
                self.v8 += usize::from(v8_hint);
            }
            Syntax::HermesBytecode => self.bytecode += 1,
            Syntax::AtSign { jsc_hint, sm_hint } => {
                self.at_sign += 1;
                self.jsc += usize::from(jsc_hint);
                self.sm += usize::from(sm_hint);
            }
        }
    }

    /// The format the mix of frames says.
    fn format(&self) -> LogFormat {
        if self.bytecode > 0 {
            LogFormat::HermesBytecode
        } else if self.at > 0 && self.at >= self.at_sign {
            if self.hermes > self.v8 {
                LogFormat::Hermes
            } else {
                LogFormat::V8
            }
        } else if self.at_sign > 0 {
            if self.jsc > self.sm {
                LogFormat::Jsc
            } else {
                LogFormat::Spidermonkey
            }
        } else {
            LogFormat::Unknown
        }
    }
}

/// Whether a text line after frames starts a new error (`TypeError: …`, `Error`, `Uncaught X`).
fn looks_like_error_header(line: &str) -> bool {
    let t = line.trim_start();
    let t = t.strip_prefix("Uncaught ").unwrap_or(t);
    let ident_end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.'))
        .unwrap_or(t.len());
    let ident = &t[..ident_end];
    let rest = &t[ident_end..];
    (ident.ends_with("Error") || ident.ends_with("Exception"))
        && (rest.is_empty() || rest.starts_with(':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> FrameInput<&str> {
        match classify(line) {
            Line::Frame(_, f, _) => f,
            other => panic!("{line:?} → {other:?}"),
        }
    }

    #[test]
    fn v8_frames() {
        let f = one("    at De.expandByObject (out/three.min.js:1:98188)");
        assert_eq!(f.function, Some("De.expandByObject"));
        assert_eq!(
            (f.file, f.line, f.column),
            (Some("out/three.min.js"), Some(1), Some(98188))
        );
        let f = one("    at out/vendor.min.js:3:5406");
        assert_eq!((f.function, f.line, f.column), (None, Some(3), Some(5406)));
        let f = one("    at new <anonymous> (out/rxjs.min.js:3:58275)");
        assert_eq!(f.function, Some("new <anonymous>"));
        let f = one("    at Function.of [as map] (index.android.bundle.js:12:43806)");
        assert_eq!(f.function, Some("Function.of [as map]"));
        let f = one("    at async Promise.all (index 0)");
        assert!(f.builtin);
        let f = one("    at new Promise (<anonymous>)");
        assert!(f.builtin);
        let f = one("    at file:///home/u/app/dist/main.js:10:5");
        assert_eq!(
            (f.file, f.line),
            (Some("file:///home/u/app/dist/main.js"), Some(10))
        );
        let f = one("    at g (https://cdn.example.com:8080/a/b.js?v=1:2:3)");
        assert_eq!(
            (f.file, f.line, f.column),
            (
                Some("https://cdn.example.com:8080/a/b.js?v=1"),
                Some(2),
                Some(3)
            )
        );
        let f = one("    at Object.<anonymous> (webpack://app/./src/index.js:4:9)");
        assert_eq!(f.file, Some("webpack://app/./src/index.js"));
        let f = one("    at eval (eval at run (http://x/a.js:1:10), <anonymous>:1:5)");
        assert_eq!(
            (f.function, f.file, f.line, f.column, f.builtin, f.eval),
            (
                Some("eval"),
                Some("http://x/a.js"),
                Some(1),
                Some(10),
                false,
                Some("<anonymous>:1:5")
            )
        );
        let f = one("    at eval (eval at run (http://x/a.js:1:10), http://x/b.js:7:2)");
        assert_eq!(
            (f.file, f.line, f.builtin),
            (Some("http://x/b.js"), Some(7), false)
        );
    }

    #[test]
    fn hermes_frames() {
        let f = one("    at t (address at index.android.bundle.hbc:1:68782)");
        assert_eq!(
            (f.file, f.line, f.column),
            (Some("index.android.bundle.hbc"), Some(1), Some(68782))
        );
        assert!(one("    at apply (native)").builtin);
        let t = parse(
            "TypeError: x\n    at t (index.android.bundle.js:13:92)\n    at apply (native)\n    at global (index.android.bundle.js:14:4)\n",
        );
        assert_eq!(t.format, LogFormat::Hermes);
    }

    #[test]
    fn at_sign_frames() {
        let f = one("en/Fr.mapValues/<@out/lodash.min.js:9:52252");
        assert_eq!(f.function, Some("en/Fr.mapValues/<"));
        let f = one("@out/lodash.min.js:9:61470");
        assert_eq!((f.function, f.column), (None, Some(61470)));
        let f = one("global code@drivers/lodash.jsc.js:8:17");
        assert_eq!(f.function, Some("global code"));
        assert!(one("forEach@[native code]").builtin);
        let f = one("f@http://a.com/@scope/x.js:1:2");
        assert_eq!(f.file, Some("http://a.com/@scope/x.js"));
        assert!(matches!(
            classify("write to me@example.com please"),
            Line::Text
        ));
    }

    #[test]
    fn headers_messages_and_unparsed_lines() {
        let log = "Error: first line\nsecond line of message\n    at a (x.js:1:2)\n  weird line\n    at b (x.js:3:4)\n\nTypeError: again\n    at c (y.js:5:6)\n";
        let t = parse(log);
        assert_eq!(t.format, LogFormat::V8);
        assert_eq!(t.stacks.len(), 2);
        assert_eq!(
            t.stacks[0].title,
            "Error: first line\nsecond line of message"
        );
        assert_eq!(t.stacks[0].frames.len(), 3);
        assert!(t.stacks[0].frames[1].input.is_none(), "kept as unparsed");
        assert_eq!(t.stacks[0].frames[1].raw, "  weird line");
        assert_eq!(t.stacks[1].title, "TypeError: again");
        assert_eq!(t.stacks[1].title_line, 7);
    }

    #[test]
    fn empty_and_junk_logs() {
        assert!(parse("").stacks.is_empty());
        let t = parse("just some words\nand more");
        assert_eq!(t.format, LogFormat::Unknown);
        assert_eq!(t.stacks.len(), 1);
        assert_eq!(t.stacks[0].title, "just some words\nand more");
        let junk: String = (0..2000u32)
            .map(|i| char::from_u32(i * 7 % 0x2000 + 1).unwrap_or('x'))
            .collect();
        let _ = parse(&junk);
    }
}
