//! JavaScript stack traces: V8, SpiderMonkey, JavaScriptCore, Hermes (JS and bytecode).
//!
//! Pure functions over `&str`. Every line of the log ends up somewhere: in a stack's title,
//! as a frame, or as an `unparsed` frame; only blank lines between stacks are dropped.

use crate::model::{Frame, FrameInput, LogFormat, Stack, Trace};

/// What one line of a log is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Line {
    /// A frame, with the syntax family it was written in.
    Frame(Syntax, FrameInput),
    /// Only white space.
    Blank,
    /// Anything else (an error header, a message line, noise).
    Text,
}

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
    let lines: Vec<(usize, &str, Line)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l, classify(l)))
        .collect();
    let format = detect(lines.iter().map(|(_, _, l)| l));
    let mut stacks: Vec<Stack> = Vec::new();
    let mut title_lines: Vec<&str> = Vec::new();
    let mut current: Option<Stack> = None;
    let mut gap = false;

    let finish = |stack: Option<Stack>, title_lines: &mut Vec<&str>, stacks: &mut Vec<Stack>| {
        if let Some(mut stack) = stack {
            while title_lines.last().is_some_and(|l| l.trim().is_empty()) {
                title_lines.pop();
            }
            stack.title = title_lines.join("\n");
            title_lines.clear();
            stacks.push(stack);
        }
    };

    for (line_no, raw, kind) in lines {
        match kind {
            Line::Frame(_, input) => {
                let stack = current.get_or_insert_with(Stack::default);
                stack.frames.push(Frame {
                    raw: raw.to_owned(),
                    line_no,
                    input: Some(input),
                });
                gap = false;
            }
            Line::Blank => {
                if current.as_ref().is_some_and(|s| !s.frames.is_empty()) {
                    gap = true;
                } else if current.is_some() {
                    title_lines.push(raw);
                }
            }
            Line::Text => {
                let has_frames = current.as_ref().is_some_and(|s| !s.frames.is_empty());
                if current.is_none() || (has_frames && (gap || looks_like_error_header(raw))) {
                    finish(current.take(), &mut title_lines, &mut stacks);
                    current = Some(Stack {
                        title_line: line_no,
                        ..Stack::default()
                    });
                    title_lines.push(raw);
                } else if has_frames {
                    if let Some(stack) = current.as_mut() {
                        stack.frames.push(Frame {
                            raw: raw.to_owned(),
                            line_no,
                            input: None,
                        });
                    }
                } else {
                    title_lines.push(raw);
                }
                gap = false;
            }
        }
    }
    finish(current.take(), &mut title_lines, &mut stacks);
    if let Some(first) = stacks.first_mut() {
        first.crashed = true;
    }
    Trace {
        format,
        stacks,
        modules: Vec::new(),
    }
}

fn detect<'a>(lines: impl Iterator<Item = &'a Line>) -> LogFormat {
    let (mut at, mut hermes, mut v8, mut bytecode, mut at_sign, mut jsc, mut sm) =
        (0, 0, 0, 0, 0, 0, 0);
    for line in lines {
        if let Line::Frame(syntax, _) = line {
            match *syntax {
                Syntax::At {
                    hermes_hint,
                    v8_hint,
                } => {
                    at += 1;
                    hermes += usize::from(hermes_hint);
                    v8 += usize::from(v8_hint);
                }
                Syntax::HermesBytecode => bytecode += 1,
                Syntax::AtSign { jsc_hint, sm_hint } => {
                    at_sign += 1;
                    jsc += usize::from(jsc_hint);
                    sm += usize::from(sm_hint);
                }
            }
        }
    }
    if bytecode > 0 {
        LogFormat::HermesBytecode
    } else if at > 0 && at >= at_sign {
        if hermes > v8 {
            LogFormat::Hermes
        } else {
            LogFormat::V8
        }
    } else if at_sign > 0 {
        if jsc > sm {
            LogFormat::Jsc
        } else {
            LogFormat::Spidermonkey
        }
    } else {
        LogFormat::Unknown
    }
}

fn classify(line: &str) -> Line {
    let t = line.trim();
    if t.is_empty() {
        return Line::Blank;
    }
    if let Some(rest) = t.strip_prefix("at ")
        && let Some(f) = parse_at_frame(rest.trim_start())
    {
        return f;
    }
    if let Some(f) = parse_at_sign_frame(t) {
        return f;
    }
    Line::Text
}

/// `f (loc)`, `loc`, `f (address at file:1:offset)`, `f (native)` (after `at `).
fn parse_at_frame(rest: &str) -> Option<Line> {
    if let Some(inner) = rest.strip_suffix(')')
        && let Some(open) = matching_open_paren(inner)
    {
        let function = inner[..open].trim();
        let loc = inner[open + 1..].trim();
        let function = (!function.is_empty()).then(|| function.to_owned());
        let hermes_name = matches!(function.as_deref(), Some("anonymous" | "global"));
        if let Some(addr) = loc.strip_prefix("address at ") {
            let (file, line, column) = parse_location(addr)?;
            return Some(Line::Frame(
                Syntax::HermesBytecode,
                FrameInput {
                    function,
                    file: Some(file),
                    line,
                    column,
                    ..FrameInput::default()
                },
            ));
        }
        let v8_hint = function.as_deref().is_some_and(|f| {
            f.contains("<anonymous>")
                || f.contains(" [as ")
                || f.starts_with("new ")
                || f.starts_with("async ")
        }) || loc == "<anonymous>"
            || loc.starts_with("node:")
            || loc.starts_with("eval at ");
        if loc == "native"
            || loc == "<anonymous>"
            || loc == "native code"
            || loc.starts_with("index ")
        {
            return Some(Line::Frame(
                Syntax::At {
                    hermes_hint: loc == "native" || hermes_name,
                    v8_hint,
                },
                FrameInput {
                    function,
                    file: Some(loc.to_owned()),
                    builtin: true,
                    ..FrameInput::default()
                },
            ));
        }
        if let Some(eval) = loc.strip_prefix("eval at ") {
            // `eval at f (file:1:2), <anonymous>:1:5`: the frame runs in eval'd code.
            let own = eval.rsplit_once(", ").map_or(eval, |(_, own)| own);
            let parsed = parse_location(own);
            let (file, line, column) = parsed.unwrap_or_else(|| (own.to_owned(), None, None));
            return Some(Line::Frame(
                Syntax::At {
                    hermes_hint: false,
                    v8_hint: true,
                },
                FrameInput {
                    function,
                    builtin: file == "<anonymous>",
                    file: Some(file),
                    line,
                    column,
                    ..FrameInput::default()
                },
            ));
        }
        let (file, line, column) = parse_location(loc)?;
        return Some(Line::Frame(
            Syntax::At {
                hermes_hint: hermes_name,
                v8_hint,
            },
            FrameInput {
                function,
                file: Some(file),
                line,
                column,
                ..FrameInput::default()
            },
        ));
    }
    // `at loc` with no function (V8 anonymous functions).
    let (file, line, column) = parse_location(rest)?;
    if file.contains(' ') && !file.contains("://") {
        return None;
    }
    Some(Line::Frame(
        Syntax::At {
            hermes_hint: false,
            v8_hint: true,
        },
        FrameInput {
            file: Some(file),
            line,
            column,
            ..FrameInput::default()
        },
    ))
}

/// The index of the `(` that matches the last `)` (already stripped) of `s`.
fn matching_open_paren(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in s.bytes().enumerate().rev() {
        match b {
            b')' => depth += 1,
            b'(' if depth == 0 => return Some(i),
            b'(' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `f@loc`, `@loc`, `global code@loc`, `f@[native code]` (SpiderMonkey, JSC).
fn parse_at_sign_frame(t: &str) -> Option<Line> {
    let at = t.find('@')?;
    let function = &t[..at];
    let loc = &t[at + 1..];
    let jsc_words = matches!(
        function,
        "global code" | "module code" | "eval code" | "anonymous function"
    );
    if function.contains(char::is_whitespace) && !jsc_words {
        return None;
    }
    let sm_hint = function.contains('/') || function.contains('<') || function.contains('*');
    let function = (!function.is_empty()).then(|| function.to_owned());
    if loc == "[native code]" {
        return Some(Line::Frame(
            Syntax::AtSign {
                jsc_hint: true,
                sm_hint: false,
            },
            FrameInput {
                function,
                file: Some(loc.to_owned()),
                builtin: true,
                ..FrameInput::default()
            },
        ));
    }
    let (file, line, column) = parse_location(loc)?;
    if file.contains(char::is_whitespace) && !file.contains(" > ") {
        return None;
    }
    let builtin =
        file.contains(" > eval") || file.contains(" > Function") || file == "debugger eval code";
    Some(Line::Frame(
        Syntax::AtSign {
            jsc_hint: jsc_words,
            sm_hint: sm_hint || builtin,
        },
        FrameInput {
            function,
            file: Some(file),
            line,
            column,
            builtin,
            ..FrameInput::default()
        },
    ))
}

/// `file:line:column` or `file:line`; the file may itself contain `:` (URLs).
pub fn parse_location(loc: &str) -> Option<(String, Option<u32>, Option<u32>)> {
    let (head, last) = loc.rsplit_once(':')?;
    let last: u32 = parse_num(last)?;
    if let Some((file, line)) = head.rsplit_once(':')
        && let Some(line) = parse_num(line)
        && !file.is_empty()
    {
        return Some((file.to_owned(), Some(line), Some(last)));
    }
    if head.is_empty() || head.ends_with('/') {
        return None;
    }
    Some((head.to_owned(), Some(last), None))
}

fn parse_num(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
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

    fn one(line: &str) -> FrameInput {
        match classify(line) {
            Line::Frame(_, f) => f,
            other => panic!("{line:?} → {other:?}"),
        }
    }

    #[test]
    fn v8_frames() {
        let f = one("    at De.expandByObject (out/three.min.js:1:98188)");
        assert_eq!(f.function.as_deref(), Some("De.expandByObject"));
        assert_eq!(
            (f.file.as_deref(), f.line, f.column),
            (Some("out/three.min.js"), Some(1), Some(98188))
        );
        let f = one("    at out/vendor.min.js:3:5406");
        assert_eq!((f.function, f.line, f.column), (None, Some(3), Some(5406)));
        let f = one("    at new <anonymous> (out/rxjs.min.js:3:58275)");
        assert_eq!(f.function.as_deref(), Some("new <anonymous>"));
        let f = one("    at Function.of [as map] (index.android.bundle.js:12:43806)");
        assert_eq!(f.function.as_deref(), Some("Function.of [as map]"));
        let f = one("    at async Promise.all (index 0)");
        assert!(f.builtin);
        let f = one("    at new Promise (<anonymous>)");
        assert!(f.builtin);
        let f = one("    at file:///home/u/app/dist/main.js:10:5");
        assert_eq!(
            (f.file.as_deref(), f.line),
            (Some("file:///home/u/app/dist/main.js"), Some(10))
        );
        let f = one("    at g (https://cdn.example.com:8080/a/b.js?v=1:2:3)");
        assert_eq!(
            (f.file.as_deref(), f.line, f.column),
            (
                Some("https://cdn.example.com:8080/a/b.js?v=1"),
                Some(2),
                Some(3)
            )
        );
        let f = one("    at Object.<anonymous> (webpack://app/./src/index.js:4:9)");
        assert_eq!(f.file.as_deref(), Some("webpack://app/./src/index.js"));
        let f = one("    at eval (eval at run (http://x/a.js:1:10), <anonymous>:1:5)");
        assert!(f.builtin);
        assert_eq!(f.function.as_deref(), Some("eval"));
        let f = one("    at eval (eval at run (http://x/a.js:1:10), http://x/b.js:7:2)");
        assert_eq!(
            (f.file.as_deref(), f.line, f.builtin),
            (Some("http://x/b.js"), Some(7), false)
        );
    }

    #[test]
    fn hermes_frames() {
        let f = one("    at t (address at index.android.bundle.hbc:1:68782)");
        assert_eq!(
            (f.file.as_deref(), f.line, f.column),
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
        assert_eq!(f.function.as_deref(), Some("en/Fr.mapValues/<"));
        let f = one("@out/lodash.min.js:9:61470");
        assert_eq!((f.function, f.column), (None, Some(61470)));
        let f = one("global code@drivers/lodash.jsc.js:8:17");
        assert_eq!(f.function.as_deref(), Some("global code"));
        assert!(one("forEach@[native code]").builtin);
        let f = one("f@http://a.com/@scope/x.js:1:2");
        assert_eq!(f.file.as_deref(), Some("http://a.com/@scope/x.js"));
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
