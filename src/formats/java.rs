//! Java, Kotlin and Android stack traces (`Throwable.printStackTrace` and logcat).
//!
//! Pure functions over `&str`. One stack per throwable: the first exception, then each
//! `Caused by:` and `Suppressed:` block in log order, its title keeping that prefix. Logcat
//! prefixes (`E/AndroidRuntime( 1234): `, threadtime `11-22 05:33:42.123  1234  1250 E Tag: `)
//! are looked through; every frame keeps its raw line. `... N more` lines become frames with
//! no position (the frames they stand for are the enclosing trace's). Lines not understood
//! after a stack's frames are kept as `unparsed` frames.

use crate::model::{Frame, FrameInput, LogFormat, Stack, Trace};

/// One parsed `at` line: the class, method and position as printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JavaFrame<'a> {
    /// Module or class loader before the class (`java.base`, `app`), if printed.
    pub module: Option<&'a str>,
    /// Fully qualified class name (`com.example.shop.a.b`).
    pub class: &'a str,
    /// Method name (`a`, `<init>`, `lambda$main$0`).
    pub method: &'a str,
    /// File as printed (`SourceFile`, `Foo.kt`); `None` for `Unknown Source` and
    /// `Native Method`.
    pub file: Option<&'a str>,
    /// Line, if printed.
    pub line: Option<u32>,
    /// `(Native Method)`.
    pub native: bool,
}

/// What one line of a Java log is.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Line<'a> {
    Frame(JavaFrame<'a>),
    /// `... 3 more` or logback's `... 3 common frames omitted`.
    More,
    /// `Caused by: ...` or `Suppressed: ...` (the text after the logcat prefix, trimmed).
    Cause(&'a str),
    Blank,
    Text(&'a str),
}

/// The text of a log line without its logcat prefix (brief `E/Tag( 123): `, tag `E/Tag: ` or
/// threadtime `MM-DD hh:mm:ss.mmm  PID  TID E Tag: `); other lines as they are.
pub fn strip_logcat(line: &str) -> &str {
    strip_brief(line)
        .or_else(|| strip_threadtime(line))
        .unwrap_or(line)
}

fn strip_brief(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    if b.len() < 3 || !b"VDIWEFA".contains(&b[0]) || b[1] != b'/' {
        return None;
    }
    let rest = &line[2..];
    // `Tag( 1234): ` or `Tag: `; the tag has no ':' or '('.
    let end = rest.find([':', '('])?;
    let after = &rest[end..];
    let after = if let Some(pid) = after.strip_prefix('(') {
        let close = pid.find(')')?;
        if !pid[..close].trim().bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        pid[close + 1..].strip_prefix(':')?
    } else {
        after.strip_prefix(':')?
    };
    Some(after.strip_prefix(' ').unwrap_or(after))
}

fn strip_threadtime(line: &str) -> Option<&str> {
    // `11-22 05:33:42.123  1234  1250 E AndroidRuntime: text` (optionally with a year, and
    // with the uid before the pid).
    let mut parts = line.splitn(2, ' ');
    let date = parts.next()?;
    if !date.bytes().all(|c| c.is_ascii_digit() || c == b'-') || !date.contains('-') {
        return None;
    }
    let rest = parts.next()?.trim_start();
    let (time, rest) = rest.split_once(' ')?;
    if !time
        .bytes()
        .all(|c| c.is_ascii_digit() || c == b':' || c == b'.')
        || !time.contains(':')
    {
        return None;
    }
    // `PID TID`, or `UID PID TID` (`logcat -v uid`).
    let mut rest = rest.trim_start();
    let mut numbers = 0;
    while let Some((n, tail)) = rest.split_once(' ')
        && !n.is_empty()
        && n.bytes().all(|c| c.is_ascii_digit())
    {
        numbers += 1;
        rest = tail.trim_start();
    }
    if !(2..=3).contains(&numbers) {
        return None;
    }
    let level = rest.as_bytes().first()?;
    if !b"VDIWEFA".contains(level) || rest.as_bytes().get(1) != Some(&b' ') {
        return None;
    }
    let (_tag, text) = rest[2..].split_once(':')?;
    Some(text.strip_prefix(' ').unwrap_or(text))
}

/// Parses an `at` frame line (after any logcat prefix): `at pkg.Cls.m(File.java:12)`,
/// `at java.base/java.lang.Integer.parseInt(Integer.java:668)`, `(Unknown Source)`,
/// `(Native Method)`, `(SourceFile:12)`; a trailing logback ` ~[app.jar:?]` is allowed.
pub fn parse_frame(line: &str) -> Option<JavaFrame<'_>> {
    let t = line.trim();
    let Some(rest) = t.strip_prefix("at ") else {
        return parse_bare_frame(t);
    };
    let rest = rest.trim_start();
    let open = rest.find('(')?;
    let head = &rest[..open];
    if head.is_empty() || head.contains([' ', '\t']) {
        return None;
    }
    let tail = &rest[open + 1..];
    let close = tail.rfind(')')?;
    let after = tail[close + 1..].trim();
    if !(after.is_empty() || after.starts_with('~') || after.starts_with('[')) {
        return None;
    }
    let location = &tail[..close];
    // A Java location is a file name (`Foo.java:12`, R8's `:com.google.android.gms@2039…:46`
    // or `:foo::bar:1`); a path, a URL or a line and a column are a JavaScript frame's
    // (`at X.eval(webpack:///./src/x.jsx?:295:108)`).
    if location.contains(['/', '\\']) || ends_with_line_and_column(location) {
        return None;
    }
    let (module, qualified) = match head.rfind('/') {
        Some(slash) => (
            Some(&head[..slash]).filter(|m| !m.is_empty()),
            &head[slash + 1..],
        ),
        None => (None, head),
    };
    let dot = qualified.rfind('.')?;
    let (class, method) = (&qualified[..dot], &qualified[dot + 1..]);
    if class.is_empty() || method.is_empty() || !is_java_name(class) {
        return None;
    }
    let (file, line_no, native) = match location {
        "Native Method" => (None, None, true),
        "Unknown Source" | "" => (None, None, false),
        loc => match loc.rsplit_once(':') {
            Some((file, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
                let file = (file != "Unknown Source" && !file.is_empty()).then_some(file);
                (file, n.parse().ok(), false)
            }
            _ => (Some(loc), None, false),
        },
    };
    Some(JavaFrame {
        module,
        class,
        method,
        file,
        line: line_no,
        native,
    })
}

/// A frame as monitoring SDKs print it, without `at ` (`tg.a.e(MethodRecorder.kt:1)`): only
/// a whole line of a dotted class and method and a `File:line` location (the file a plain
/// name such as `Foo.kt` or `SourceFile`), so that no other text reads as one.
fn parse_bare_frame(t: &str) -> Option<JavaFrame<'_>> {
    let open = t.find('(')?;
    let location = t.strip_suffix(')')?.get(open + 1..)?;
    let (file, line) = location.rsplit_once(':')?;
    let line: u32 = line.parse().ok()?;
    let file_char = |c: char| c.is_alphanumeric() || matches!(c, '.' | '_' | '$' | '-');
    if file.is_empty() || !file.chars().all(file_char) {
        return None;
    }
    let head = &t[..open];
    let (class, method) = head.rsplit_once('.')?;
    if !class.contains('.') || method.is_empty() || !is_java_name(class) || !is_java_name(method) {
        return None;
    }
    Some(JavaFrame {
        module: None,
        class,
        method,
        file: Some(file),
        line: Some(line),
        native: false,
    })
}

/// Whether a location ends in `:line:column`, as JavaScript locations do.
fn ends_with_line_and_column(location: &str) -> bool {
    let number = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    location
        .rsplit_once(':')
        .and_then(|(rest, col)| Some((rest.rsplit_once(':')?.1, col)))
        .is_some_and(|(line, col)| number(line) && number(col))
}

/// Whether `s` reads as a (possibly obfuscated) Java class name: identifier characters and
/// dots, not starting or ending with a dot.
fn is_java_name(s: &str) -> bool {
    !s.starts_with('.')
        && !s.ends_with('.')
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '-'))
}

/// A Java method as the JVM names its compiled code in a perf map
/// (`-XX:+DumpPerfMapAtExit`, `jcmd Compiler.perfmap`): `RET CLASS.METHOD(ARGS)`, such as
/// `int com.example.a.b(java.lang.String, int[])`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JvmMethod<'a> {
    /// The return type as printed (`int`, `a.b[]`).
    pub returns: &'a str,
    /// The class, dotted.
    pub class: &'a str,
    /// The method (`<init>` for a constructor).
    pub method: &'a str,
    /// The argument types, comma separated as printed (spaces after commas allowed).
    pub arguments: &'a str,
}

impl<'a> JvmMethod<'a> {
    /// Each argument type, trimmed.
    pub fn argument_types(&self) -> impl Iterator<Item = &'a str> {
        self.arguments
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
    }
}

/// Reads a JVM perf map's method name (see [`JvmMethod`]); `None` for what the JVM names
/// otherwise (`Interpreter`, `StubRoutines (1)`, `I2C/C2I adapters`).
pub fn parse_jvm_method(symbol: &str) -> Option<JvmMethod<'_>> {
    let symbol = symbol.trim();
    let (returns, rest) = symbol.split_once(' ')?;
    let open = rest.find('(')?;
    let arguments = rest[open + 1..].strip_suffix(')')?;
    let (class, method) = rest[..open].rsplit_once('.')?;
    let type_name = |t: &str| {
        let t = t.trim_end_matches("[]");
        !t.is_empty() && is_java_name(t)
    };
    let method_ok = !method.is_empty()
        && (method
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$'))
            || method == "<init>"
            || method == "<clinit>");
    (type_name(returns)
        && type_name(class)
        && method_ok
        && arguments
            .split(',')
            .map(str::trim)
            .all(|a| a.is_empty() || type_name(a)))
    .then_some(JvmMethod {
        returns,
        class,
        method,
        arguments,
    })
}

/// The throwable at the start of a header text: `(class, message)` for `a.b.C: msg`,
/// `a.b.C`, `Exception in thread "main" a.b.C: msg`, `Caused by: a.b.C: msg` or
/// `Suppressed: a.b.C`. The class must contain a dot (bare words are not class names).
pub fn parse_throwable(text: &str) -> Option<(&str, Option<&str>)> {
    let t = text.trim_start();
    let t = t
        .strip_prefix("Caused by: ")
        .or_else(|| t.strip_prefix("Suppressed: "))
        .unwrap_or(t);
    let t = match t.strip_prefix("Exception in thread \"") {
        Some(rest) => rest.split_once("\" ")?.1,
        None => t,
    };
    let (class, message) = match t.find(": ") {
        Some(i) => (&t[..i], Some(&t[i + 2..])),
        None => match t.strip_suffix(':') {
            Some(c) => (c, Some("")),
            None => (t.trim_end(), None),
        },
    };
    (class.contains('.') && is_java_name(class)).then_some((class, message))
}

/// The class name R8's retrace rewrites in a line that is not a frame, by its default
/// pattern (`(?:(?:(?:%c|.*)?[:"]\s+)?%c(?:(:|]).*)?)`, whole line): the last name that
/// follows `:` or `"` and white space and runs to the end of the line, a `:` or a `]`
/// (`net::ERR_…`, `[CIRCULAR REFERENCE: a.b]`), else a name that starts the line and runs
/// that far. A name has no white space, `[];:()<>`, and does not start with a digit.
/// (The pattern's other branch, a name at the start followed by `: `, is the throwable,
/// which [`throwable_class_range`] finds.)
pub fn r8_line_class(text: &str) -> Option<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let in_name = |c: u8| !c.is_ascii_whitespace() && !b"[];:()<>".contains(&c);
    // A name at `q` that runs to the end, a ':' or a ']'.
    let name_at = |q: usize| {
        let first = *b.get(q)?;
        if !in_name(first) || first.is_ascii_digit() {
            return None;
        }
        let end = b[q..]
            .iter()
            .position(|&c| !in_name(c))
            .map_or(b.len(), |i| q + i);
        (end == b.len() || b[end] == b':' || b[end] == b']').then_some(q..end)
    };
    (0..b.len())
        .rev()
        .filter(|&k| b[k] == b':' || b[k] == b'"')
        .find_map(|k| {
            let spaces = b[k + 1..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
            (spaces > 0).then(|| name_at(k + 1 + spaces)).flatten()
        })
        .or_else(|| name_at(0))
}

/// The byte range of the throwable's class name within `text` (see [`parse_throwable`]).
pub fn throwable_class_range(text: &str) -> Option<std::ops::Range<usize>> {
    let (class, _) = parse_throwable(text)?;
    let start = class.as_ptr() as usize - text.as_ptr() as usize;
    Some(start..start + class.len())
}

fn classify(raw: &str) -> Line<'_> {
    let text = strip_logcat(raw);
    let t = text.trim();
    if t.is_empty() {
        return Line::Blank;
    }
    if let Some(frame) = parse_frame(t) {
        return Line::Frame(frame);
    }
    if more_line(t).is_some() {
        return Line::More;
    }
    if t.starts_with("Caused by: ") || t.starts_with("Suppressed: ") {
        return Line::Cause(t);
    }
    Line::Text(text)
}

/// `N` of a `... N more` line (or logback's `... N common frames omitted`).
pub fn more_count(raw: &str) -> Option<usize> {
    more_line(strip_logcat(raw).trim())
}

/// `N` of a trimmed `... N more` / `... N common frames omitted` text.
fn more_line(t: &str) -> Option<usize> {
    let rest = t.strip_prefix("... ")?.trim();
    let (count, tail) = rest.split_once(' ')?;
    if !count.bytes().all(|c| c.is_ascii_digit())
        || !(tail == "more" || tail.ends_with("frames omitted"))
    {
        return None;
    }
    count.parse().ok()
}

/// How deep a frame line is nested: `Suppressed:` blocks are indented one tab more than
/// their enclosing trace, so their frames have one tab more.
pub fn frame_depth(raw: &str) -> usize {
    strip_logcat(raw)
        .chars()
        .take_while(|c| *c == '\t')
        .count()
        .saturating_sub(1)
}

/// The stack whose last frames a `... N more` line of stack `k` stands for: for a
/// `Caused by:`, the last stack before it at its depth; for a `Suppressed:` block, the last
/// one above its depth. `stacks` holds each stack's (is `Suppressed:`, depth).
pub fn enclosing_stack(stacks: &[(bool, usize)], k: usize) -> Option<usize> {
    let &(suppressed, depth) = stacks.get(k)?;
    (0..k).rev().find(|&i| {
        if suppressed {
            stacks[i].1 < depth
        } else {
            stacks[i].1 == depth
        }
    })
}

/// How many of the first lines of `text` are Java frames (`at a.b.C.m(...)`), for format
/// detection: V8 frames have a space before `(`, so they never count.
pub fn count_frames(text: &str, max_lines: usize) -> usize {
    text.lines()
        .take(max_lines)
        .filter(|l| parse_frame(strip_logcat(l)).is_some())
        .count()
}

/// Whether `line` starts a new throwable after frames: a class name with a dot followed by
/// `: ` or the end, or `Exception in thread`.
fn looks_like_header(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("Exception in thread ")
        || parse_throwable(t).is_some_and(|(class, _)| {
            let last = class.rsplit('.').next().unwrap_or(class);
            last.ends_with("Exception") || last.ends_with("Error") || last.ends_with("Throwable")
        })
}

/// Parses a Java/Android stack trace or a log holding several.
pub fn parse(text: &str) -> Trace {
    let mut stacks: Vec<Stack> = Vec::new();
    let mut current: Option<Stack> = None;
    let mut title: Vec<&str> = Vec::new();
    let mut gap = false;

    let finish = |stack: Option<Stack>, title: &mut Vec<&str>, stacks: &mut Vec<Stack>| {
        if let Some(mut stack) = stack {
            while title.last().is_some_and(|l| l.trim().is_empty()) {
                title.pop();
            }
            stack.title = title.join("\n");
            title.clear();
            stacks.push(stack);
        }
    };
    let start = |line_no: usize| Stack {
        title_line: line_no,
        ..Stack::default()
    };

    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        match classify(raw) {
            Line::Frame(f) => {
                let stack = current.get_or_insert_with(Stack::default);
                stack.frames.push(Frame {
                    raw: raw.to_owned(),
                    line_no,
                    input: Some(FrameInput {
                        function: Some(format!("{}.{}", f.class, f.method)),
                        file: f.file.map(str::to_owned),
                        line: f.line,
                        column: None,
                        address: None,
                        module: f.module.map(str::to_owned),
                        builtin: false,
                        ..FrameInput::default()
                    }),
                });
                gap = false;
            }
            Line::More => {
                let stack = current.get_or_insert_with(Stack::default);
                stack.frames.push(Frame {
                    raw: raw.to_owned(),
                    line_no,
                    input: Some(FrameInput {
                        builtin: true,
                        ..FrameInput::default()
                    }),
                });
                gap = false;
            }
            Line::Cause(t) => {
                finish(current.take(), &mut title, &mut stacks);
                current = Some(start(line_no));
                title.push(t);
                gap = false;
            }
            Line::Blank => {
                if current.as_ref().is_some_and(|s| !s.frames.is_empty()) {
                    gap = true;
                } else if current.is_some() {
                    title.push("");
                }
            }
            Line::Text(t) => {
                let has_frames = current.as_ref().is_some_and(|s| !s.frames.is_empty());
                if current.is_none() || (has_frames && (gap || looks_like_header(t))) {
                    finish(current.take(), &mut title, &mut stacks);
                    current = Some(start(line_no));
                    title.push(t.trim_end());
                } else if has_frames {
                    if let Some(stack) = current.as_mut() {
                        stack.frames.push(Frame {
                            raw: raw.to_owned(),
                            line_no,
                            input: None,
                        });
                    }
                } else {
                    title.push(t.trim_end());
                }
                gap = false;
            }
        }
    }
    finish(current.take(), &mut title, &mut stacks);
    if let Some(first) = stacks.first_mut() {
        first.crashed = true;
    }
    Trace {
        format: LogFormat::Java,
        stacks,
        modules: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jvm_methods_as_perf_maps_name_them() {
        let m = parse_jvm_method("void com.example.a.a(com.example.a.a, long)").unwrap();
        assert_eq!(
            (m.returns, m.class, m.method),
            ("void", "com.example.a", "a")
        );
        assert_eq!(
            m.argument_types().collect::<Vec<_>>(),
            ["com.example.a.a", "long"]
        );
        let m = parse_jvm_method("java.lang.String[] a.b.<init>()").unwrap();
        assert_eq!(
            (m.returns, m.class, m.method, m.arguments),
            ("java.lang.String[]", "a.b", "<init>", "")
        );
        for not in [
            "Interpreter",
            "StubRoutines (1)",
            "I2C/C2I adapters",
            "int f()",
            "a b.c",
            "int a.b(c",
        ] {
            assert_eq!(parse_jvm_method(not), None, "{not}");
        }
    }

    #[test]
    fn r8_line_classes() {
        let at = |t: &str| r8_line_class(t).map(|r| t[r].to_owned());
        assert_eq!(
            at("E Tycho: x.Y: ary: eu: in: net::ERR_CLOSED, Code=5").as_deref(),
            Some("net")
        );
        assert_eq!(at("  [CIRCULAR REFERENCE: A.A] ").as_deref(), Some("A.A"));
        assert_eq!(at("  [CIRCULAR REFERENCE: A.A").as_deref(), Some("A.A"));
        assert_eq!(at("  [CIRCU:AA]"), None);
        assert_eq!(at("  [CIRCULAR REFERENCE: ]"), None);
        assert_eq!(at("  [CIRCULAR REFERENCE: Not a class]"), None);
        assert_eq!(at("a.b.C").as_deref(), Some("a.b.C"));
        assert_eq!(
            at("Exception in thread \"main\" a.b.C").as_deref(),
            Some("a.b.C")
        );
        assert_eq!(at("one two: 1abc"), None);
    }

    #[test]
    fn frames_without_at() {
        let f = parse_frame("tg.a.e(MethodRecorder.kt:1)").unwrap();
        assert_eq!(
            (f.class, f.method, f.file, f.line),
            ("tg.a", "e", Some("MethodRecorder.kt"), Some(1))
        );
        assert_eq!(parse_frame("Error(foo.js:1)"), None, "no dotted class");
        assert_eq!(parse_frame("see a.b.c(x) for details"), None);
        assert_eq!(parse_frame("a.b.c(d.js:1:2)"), None);
        let t = parse(
            "java.lang.NullPointerException\ntg.a.e(MethodRecorder.kt:1)\ntg.b.f(SourceFile:20)\n",
        );
        assert_eq!(t.stacks[0].frames.len(), 2);
    }

    #[test]
    fn r8_file_parts() {
        let f = parse_frame(
            "at qtr.a(:com.google.android.gms@203915081@20.39.15 (060808-335085812):46)",
        )
        .unwrap();
        assert_eq!((f.class, f.method, f.line), ("qtr", "a", Some(46)));
        let f = parse_frame("at a.s(:foo::bar:1)").unwrap();
        assert_eq!((f.file, f.line), (Some(":foo::bar"), Some(1)));
        let f = parse_frame("at a.t(:foo::bar:)").unwrap();
        assert_eq!(f.line, None);
        assert_eq!(parse_frame("at a.b(bundle.js:1:200)"), None);
    }

    #[test]
    fn frames() {
        let f = parse_frame("\tat com.example.shop.a.b.a(SourceFile:11)").unwrap();
        assert_eq!(
            (f.class, f.method, f.file, f.line),
            ("com.example.shop.a.b", "a", Some("SourceFile"), Some(11))
        );
        let f = parse_frame("\tat java.base/java.lang.Integer.parseInt(Integer.java:668)").unwrap();
        assert_eq!(f.module, Some("java.base"));
        assert_eq!(f.class, "java.lang.Integer");
        let f = parse_frame("at app//org.Foo.bar(Foo.kt:3) ~[app.jar:?]").unwrap();
        assert_eq!(
            (f.module, f.class, f.line),
            (Some("app/"), "org.Foo", Some(3))
        );
        let f = parse_frame("at a.b.c(Unknown Source)").unwrap();
        assert_eq!((f.file, f.line, f.native), (None, None, false));
        let f = parse_frame("at a.b.c(Native Method)").unwrap();
        assert!(f.native);
        let f = parse_frame("at a.b.c(Unknown Source:4)").unwrap();
        assert_eq!((f.file, f.line), (None, Some(4)));
        let f = parse_frame("at a.b.c(SourceFile)").unwrap();
        assert_eq!((f.file, f.line), (Some("SourceFile"), None));
        let f = parse_frame("at com.x.Y$foo$$inlined$map$1.invoke(Y.kt:12)").unwrap();
        assert_eq!(
            (f.class, f.method),
            ("com.x.Y$foo$$inlined$map$1", "invoke")
        );
        let f = parse_frame("at com.x.Y.lambda$main$0(Y.java:7)").unwrap();
        assert_eq!(f.method, "lambda$main$0");
        let f = parse_frame("at com.x.Y.<init>(Y.java:7)").unwrap();
        assert_eq!(f.method, "<init>");
        // V8 frames are not Java frames.
        assert_eq!(parse_frame("    at foo (a.js:1:2)"), None);
        assert_eq!(parse_frame("    at a.js:1:2"), None);
        assert_eq!(parse_frame("    at Object.<anonymous> (a.js:1:2)"), None);
    }

    #[test]
    fn logcat_prefixes() {
        assert_eq!(
            strip_logcat("E/AndroidRuntime( 1234): \tat a.b.c(SourceFile:1)"),
            "\tat a.b.c(SourceFile:1)"
        );
        assert_eq!(
            strip_logcat("E/AndroidRuntime: FATAL EXCEPTION: main"),
            "FATAL EXCEPTION: main"
        );
        assert_eq!(
            strip_logcat(
                "11-22 05:33:42.123  1234  1250 E AndroidRuntime: \tat a.b.c(SourceFile:1)"
            ),
            "\tat a.b.c(SourceFile:1)"
        );
        assert_eq!(
            strip_logcat("10-26 19:26:24.749 10159 26250 26363 E Tycho.crl: java.lang.X: y"),
            "java.lang.X: y"
        );
        assert_eq!(strip_logcat("java.lang.X: y"), "java.lang.X: y");
        assert_eq!(strip_logcat("E/x"), "E/x");
    }

    #[test]
    fn throwables() {
        assert_eq!(
            parse_throwable("Exception in thread \"main\" a.b.C: msg: more"),
            Some(("a.b.C", Some("msg: more")))
        );
        assert_eq!(parse_throwable("Caused by: a.b.C"), Some(("a.b.C", None)));
        assert_eq!(
            parse_throwable("\tSuppressed: a.b.C: x"),
            Some(("a.b.C", Some("x")))
        );
        assert_eq!(parse_throwable("FATAL EXCEPTION: main"), None);
        let t = "Caused by: com.example.shop.a.a: line 2";
        assert_eq!(
            &t[throwable_class_range(t).unwrap()],
            "com.example.shop.a.a"
        );
    }

    #[test]
    fn causes_suppressed_more_and_logcat() {
        let log = "\
E/AndroidRuntime( 1234): FATAL EXCEPTION: main
E/AndroidRuntime( 1234): Process: com.x, PID: 1234
E/AndroidRuntime( 1234): java.lang.RuntimeException: boom
E/AndroidRuntime( 1234): second line of the message
E/AndroidRuntime( 1234): \tat a.b.c(SourceFile:10)
E/AndroidRuntime( 1234): \tat a.b.d(Unknown Source:2)
E/AndroidRuntime( 1234): \tSuppressed: java.io.IOException: close
E/AndroidRuntime( 1234): \t\tat a.b.e(SourceFile:3)
E/AndroidRuntime( 1234): \t\t... 2 more
E/AndroidRuntime( 1234): Caused by: a.b.f: inner
E/AndroidRuntime( 1234): \tat a.b.g(SourceFile:4)
E/AndroidRuntime( 1234): \t... 2 more
";
        let t = parse(log);
        assert_eq!(t.format, LogFormat::Java);
        let titles: Vec<&str> = t.stacks.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "FATAL EXCEPTION: main\nProcess: com.x, PID: 1234\njava.lang.RuntimeException: boom\nsecond line of the message",
                "Suppressed: java.io.IOException: close",
                "Caused by: a.b.f: inner",
            ]
        );
        let counts: Vec<usize> = t.stacks.iter().map(|s| s.frames.len()).collect();
        assert_eq!(counts, [2, 2, 2]);
        let more = &t.stacks[2].frames[1];
        assert!(more.input.as_ref().unwrap().builtin);
        assert!(more.raw.ends_with("... 2 more"));
        assert_eq!(
            t.stacks[0].frames[0]
                .input
                .as_ref()
                .unwrap()
                .function
                .as_deref(),
            Some("a.b.c")
        );
    }

    #[test]
    fn noise_after_frames_is_kept_unparsed() {
        let t = parse(
            "a.b.C: x\n\tat a.b.c(SourceFile:1)\n\tsome noise\njava.lang.IllegalStateException: y\n\tat a.b.d(SourceFile:2)\n",
        );
        assert_eq!(t.stacks.len(), 2);
        assert_eq!(t.stacks[0].frames.len(), 2);
        assert_eq!(t.stacks[0].frames[1].input, None);
        assert_eq!(t.stacks[1].title, "java.lang.IllegalStateException: y");
    }
}
