//! One line of a JavaScript stack: which kind of line it is, and what a frame line says.
//!
//! The forms engines and tools print (the corpus in `tests/fixtures/js-stacks` has each):
//! - V8, Node, Chakra and Hermes: `at f (loc)`, `at f(loc)`, `at loc`, with `new`, `async`,
//!   `Object.<anonymous>` and `f [as g]` in the name, `async` before the location, built-in
//!   places (`native`, `<anonymous>`, `index 0`), Hermes bytecode
//!   (`address at file.hbc:1:offset`), WebAssembly (`main.wasm:wasm-function[12]:0x5aeb`) and
//!   eval (`eval at f (http://x/a.js:3:5), <anonymous>:1:1`, nested);
//! - SpiderMonkey and JavaScriptCore: `f@loc`, where the name may hold `@` inside quotes
//!   (`obj["@fn"]@…`) and old Firefox printed arguments (`bar(1)@…`); Firefox's eval
//!   (`file.js line 26 > eval line 2 > eval:1:30`), JSC's `[native code]`, a first frame
//!   printed as a location alone (`http://x/a.js:48:22`) and frames printed as a name alone
//!   (eval'd code: `baz`, `eval code`); Safari extensions' `safari-extension:(//…)`.
//!
//! A location is `file:line:column` or `file:line`, where the file may hold `:` (URLs, ports,
//! Windows drives), `?query`, `#fragment` and spaces (paths). An eval'd frame's location is
//! the eval call in the real file, the only position a source map can map (what Sentry and
//! error-stack-parser report); the position inside the eval'd code is kept beside it.

use super::Syntax;
use crate::model::FrameInput;

/// What one line of a log is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Line<'a> {
    /// A frame, with the syntax family it was written in, and its file when the line does not
    /// hold it in one piece (then `file` of the input is `None`).
    Frame(Syntax, FrameInput<&'a str>, Option<String>),
    /// A name alone (`baz`, `eval code`): a frame with no position in a JavaScriptCore stack,
    /// a line of text elsewhere.
    BareName(&'a str),
    /// Only white space.
    Blank,
    /// Anything else (an error header, a message line, noise).
    Text,
}

/// Where a frame is, as its location says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Loc<'a> {
    file: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    /// No position in a source file by nature (`native`, `[native code]`, eval'd code with
    /// no call site).
    builtin: bool,
    /// The position inside eval'd code, when the frame runs in it.
    eval: Option<&'a str>,
    /// WebAssembly: the function index and the byte offset in the module.
    wasm_function: Option<u32>,
    wasm_offset: Option<u64>,
}

impl<'a> Loc<'a> {
    fn input(self, function: Option<&'a str>) -> FrameInput<&'a str> {
        FrameInput {
            function,
            file: self.file,
            line: self.line,
            column: self.column,
            builtin: self.builtin,
            eval: self.eval,
            wasm_function: self.wasm_function,
            module_offset: self.wasm_offset,
            ..FrameInput::default()
        }
    }
}

/// What `line` is.
pub(super) fn classify(line: &str) -> Line<'_> {
    let t = line.trim();
    if t.is_empty() {
        return Line::Blank;
    }
    if let Some(rest) = t.strip_prefix("at ")
        && let Some(f) = at_frame(rest.trim_start())
    {
        return f;
    }
    if t == "[native code]" {
        let loc = Loc {
            file: Some(t),
            builtin: true,
            ..Loc::default()
        };
        return Line::Frame(jsc(), loc.input(None), None);
    }
    if let Some(f) = at_sign_frame(t) {
        return f;
    }
    if let Some(loc) = bare_location(t) {
        return Line::Frame(jsc(), loc.input(None), None);
    }
    if is_bare_name(t) {
        return Line::BareName(t);
    }
    Line::Text
}

/// The syntax of JavaScriptCore's own forms.
fn jsc() -> Syntax {
    Syntax::AtSign {
        jsc_hint: true,
        sm_hint: false,
    }
}

/// A frame after `at `: `f (loc)`, `f(loc)`, `loc`, `f (address at …)` (Hermes bytecode), or
/// JavaScriptCore's `f@loc` as some tools print it with `at `.
fn at_frame(rest: &str) -> Option<Line<'_>> {
    // `safari-extension:(//…)`: a scheme whose location is wrapped in parentheses.
    if rest.contains(":(//") {
        return scheme_in_parens(rest);
    }
    if let Some(inner) = rest.strip_suffix(')')
        && let Some(open) = matching_open_paren(inner)
    {
        let function = name(inner[..open].trim());
        let loc = inner[open + 1..].trim();
        return paren_frame(function, loc);
    }
    // A line cut before its closing parenthesis: `f (http://x/a.js:2:1`.
    if let Some(open) = rest.rfind(" (")
        && !rest[open..].contains(')')
        && let Some(line) = paren_frame(name(rest[..open].trim()), &rest[open + 2..])
    {
        return Some(line);
    }
    // `at loc`, with no function (V8's anonymous functions).
    if let Some(loc) = v8_location(rest)
        && (!rest.contains(char::is_whitespace) || looks_like_path(rest))
    {
        let syntax = Syntax::At {
            hermes_hint: false,
            v8_hint: true,
        };
        return Some(Line::Frame(syntax, loc.input(None), None));
    }
    at_sign_frame(rest).filter(|f| matches!(f, Line::Frame(_, i, _) if i.function.is_some()))
}

/// `f (loc)` after `at `, `f` already read.
fn paren_frame<'a>(function: Option<&'a str>, loc: &'a str) -> Option<Line<'a>> {
    let hermes_name = matches!(function, Some("anonymous" | "global"));
    if let Some(addr) = loc.strip_prefix("address at ") {
        let (file, line, column) = parse_location(addr)?;
        let input = FrameInput {
            function,
            file: Some(file),
            line,
            column,
            ..FrameInput::default()
        };
        return Some(Line::Frame(Syntax::HermesBytecode, input, None));
    }
    let loc_v8 = loc.starts_with("node:")
        || loc.starts_with("eval at ")
        || loc.starts_with("async ")
        || loc == "<anonymous>";
    let v8_hint = loc_v8
        || function.is_some_and(|f| {
            f.contains("<anonymous>")
                || f.contains(" [as ")
                || f.starts_with("new ")
                || f.starts_with("async ")
        });
    let parsed = v8_location(loc).or_else(|| {
        // A URL or path with no position (`file:///testing.js`).
        (!loc.contains(char::is_whitespace) && (loc.contains("://") || loc.starts_with('/')))
            .then_some(Loc {
                file: Some(loc),
                ..Loc::default()
            })
    })?;
    let syntax = Syntax::At {
        hermes_hint: hermes_name || loc == "native",
        v8_hint,
    };
    Some(Line::Frame(syntax, parsed.input(function), None))
}

/// A V8 location: `file:line:column`, a built-in place, an eval, WebAssembly.
fn v8_location(loc: &str) -> Option<Loc<'_>> {
    let loc = loc.strip_prefix("async ").unwrap_or(loc).trim();
    if matches!(
        loc,
        "native" | "<anonymous>" | "native code" | "unknown location"
    ) || loc.starts_with("index ")
    {
        return Some(Loc {
            file: Some(loc),
            builtin: true,
            ..Loc::default()
        });
    }
    if let Some(eval) = loc.strip_prefix("eval at ") {
        return eval_location(eval);
    }
    if let Some(wasm) = wasm_location(loc) {
        return Some(wasm);
    }
    if let Some((line, column)) = loc.strip_prefix(':').and_then(|p| p.split_once(':'))
        && let (Some(line), Some(column)) = (parse_num(line), parse_num(column))
    {
        // An empty file name (Hermes: `foo (:10:1234)`).
        return Some(Loc {
            line: Some(line),
            column: Some(column),
            ..Loc::default()
        });
    }
    let (file, line, column) = parse_location(loc)?;
    if file == "eval code" {
        // Chakra's eval'd code: a position with no file.
        return Some(Loc {
            line,
            column,
            builtin: true,
            ..Loc::default()
        });
    }
    Some(Loc {
        file: Some(file),
        line,
        column,
        ..Loc::default()
    })
}

/// A WebAssembly location, as V8 and SpiderMonkey print it: `module:wasm-function[N]:0xOFF`,
/// where the module is a URL, V8's `wasm://wasm/<hash>` (or `<name>-<hash>`), `<anonymous>`
/// or Firefox's eval chain, and may be missing (`wasm-function[N]:0xOFF`); the offset is
/// from the module's first byte. No line: the function index and offset are kept.
fn wasm_location(loc: &str) -> Option<Loc<'_>> {
    let at = loc.find("wasm-function[")?;
    let module = match &loc[..at] {
        "" => None,
        m => Some(m.strip_suffix(':')?),
    };
    let rest = &loc[at + "wasm-function[".len()..];
    let (index, after) = rest.split_once(']')?;
    let offset = match after {
        "" => None,
        a => {
            let hex = a.strip_prefix(":0x")?;
            Some(u64::from_str_radix(hex, 16).ok()?)
        }
    };
    Some(Loc {
        file: module.filter(|m| !m.is_empty()),
        wasm_function: Some(index.parse().ok()?),
        wasm_offset: offset,
        ..Loc::default()
    })
}

/// JavaScriptCore's WebAssembly frame, `<?>.wasm-function[N]@[wasm code]` (the brackets hold
/// the index, or the function's name when the module names it), or its stubs and older
/// forms (`wasm-stub`, `wasm function: 4`, `<wasm>`): no module and no offset.
fn jsc_wasm_frame(printed: &str) -> Line<'_> {
    let inner = printed
        .strip_prefix("<?>.wasm-function[")
        .and_then(|p| p.strip_suffix(']'))
        .or_else(|| printed.strip_prefix("wasm function: "));
    let index = inner.and_then(|i| i.parse::<u32>().ok());
    let named = inner.filter(|_| index.is_none());
    let loc = Loc {
        file: Some("[wasm code]"),
        builtin: inner.is_none(),
        wasm_function: index,
        ..Loc::default()
    };
    let function = named.or_else(|| inner.is_none().then_some(printed));
    Line::Frame(jsc(), loc.input(function), None)
}

/// `eval at f (origin), position` (after `eval at `): the frame runs in code passed to `eval`
/// at `origin`, itself possibly eval'd (`eval at g (eval at h (file:1:2))`). A position in a
/// named source (`//# sourceURL`) is where the frame is; `<anonymous>` code is placed at the
/// eval call in the real file, its own position kept.
fn eval_location(eval: &str) -> Option<Loc<'_>> {
    let open = eval.find('(')?;
    let close = matching_close_paren(eval, open)?;
    let origin = eval[open + 1..close].trim();
    let position = eval[close + 1..]
        .trim_start()
        .strip_prefix(',')
        .map(str::trim)
        .filter(|p| !p.is_empty());
    if let Some(p) = position
        && let Some((file, line, column)) = parse_location(p)
        && file != "<anonymous>"
    {
        return Some(Loc {
            file: Some(file),
            line,
            column,
            ..Loc::default()
        });
    }
    let mut at = match origin.strip_prefix("eval at ") {
        Some(inner) => eval_location(inner)?,
        None => match parse_location(origin) {
            Some((file, line, column)) => Loc {
                file: Some(file),
                line,
                column,
                ..Loc::default()
            },
            // A file with no position (webpack's `eval` devtool).
            None if !origin.is_empty() && !origin.contains(char::is_whitespace) => Loc {
                file: Some(origin),
                ..Loc::default()
            },
            None => return None,
        },
    };
    at.eval = position.or(at.eval);
    Some(at)
}

/// `ClipperError@safari-extension:(//…/commons.js:1:2)` or `safari-extension:(//…)`: the
/// parentheses dropped, the file is `safari-extension://…` (a string the line does not hold
/// in one piece, so it comes back owned).
fn scheme_in_parens(rest: &str) -> Option<Line<'_>> {
    let inner = rest.strip_suffix(')')?;
    let open = inner.find(":(//")?;
    let (head, path) = (&inner[..open], &inner[open + 2..]);
    let (function, scheme) = match head.rsplit_once('@') {
        Some((f, s)) => (name(f), s),
        None => (None, head),
    };
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    let (file, line, column) = parse_location(path)?;
    let input = FrameInput {
        function,
        line,
        column,
        ..FrameInput::default()
    };
    Some(Line::Frame(jsc(), input, Some(format!("{scheme}:{file}"))))
}

/// A function name as printed, `None` for the anonymous forms (`<anonymous>`, `?`).
fn name(function: &str) -> Option<&str> {
    (!matches!(function, "" | "?" | "<anonymous>")).then_some(function)
}

/// Whether an unparenthesised location with spaces is still a path or URL
/// (`/srv/my project/index.js:2:9`, `C:\My App\a.js:1:2`), not words.
fn looks_like_path(loc: &str) -> bool {
    let loc = loc.strip_prefix("async ").unwrap_or(loc);
    let b = loc.as_bytes();
    loc.starts_with(['/', '\\', '~'])
        || loc.starts_with("./")
        || loc.starts_with("../")
        || (b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'\\' | b'/'))
        || loc
            .split_once("://")
            .is_some_and(|(scheme, _)| !scheme.is_empty() && !scheme.contains(' '))
}

/// `f@loc` (SpiderMonkey, JavaScriptCore): the name runs to the first `@` outside quotes and
/// brackets (`obj["@fn"]@…`), the location is the rest.
fn at_sign_frame(t: &str) -> Option<Line<'_>> {
    let at = separator_at(t)?;
    let printed = &t[..at];
    let loc = &t[at + 1..];
    if loc == "[wasm code]" {
        return Some(jsc_wasm_frame(printed));
    }
    let jsc_words = matches!(
        printed,
        "global code" | "module code" | "eval code" | "anonymous function"
    );
    // Old Firefox printed arguments: `bar(1)@…`, `foo()@…`, `(null)@…`.
    let function = strip_arguments(printed);
    if function.contains(char::is_whitespace) && !jsc_words {
        return None;
    }
    if loc.is_empty() {
        return None;
    }
    let sm_hint = function.contains('/') || function.contains('<') || function.contains('*');
    let function = name(function);
    if loc == "[native code]" {
        let at = Loc {
            file: Some(loc),
            builtin: true,
            ..Loc::default()
        };
        return Some(Line::Frame(jsc(), at.input(function), None));
    }
    let at = gecko_location(loc)?;
    let eval_hint = at.eval.is_some() || loc == "debugger eval code";
    let syntax = Syntax::AtSign {
        jsc_hint: jsc_words,
        sm_hint: sm_hint || eval_hint,
    };
    Some(Line::Frame(syntax, at.input(function), None))
}

/// The byte index of the `@` that ends a SpiderMonkey or JavaScriptCore frame's name.
fn separator_at(t: &str) -> Option<usize> {
    let (mut quote, mut depth) = (None, 0usize);
    for (i, c) in t.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => depth = depth.saturating_sub(1),
            (None, '@') if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// A name without the arguments old Firefox printed after it, when they are short values
/// (`bar(1)` → `bar`, `()` → ``); Opera's `f([arguments not available])` is left as it is,
/// so that it is not read as a frame.
fn strip_arguments(printed: &str) -> &str {
    if let Some(inner) = printed.strip_suffix(')')
        && let Some(open) = inner.find('(')
        && !inner[open + 1..].contains(char::is_whitespace)
    {
        let head = &printed[..open];
        if head == "null" || !head.contains(['(', ')']) {
            return head;
        }
    }
    if printed == "(null)" {
        return "";
    }
    printed
}

/// A SpiderMonkey or JavaScriptCore location: `file:line:column`, or Firefox's eval
/// (`file.js line 26 > eval line 2 > eval:1:30`, `> Function:…`), placed at the eval call.
fn gecko_location(loc: &str) -> Option<Loc<'_>> {
    if let Some(wasm) = wasm_location(loc) {
        return Some(wasm);
    }
    if loc == "debugger eval code" || loc.starts_with("debugger eval code:") {
        return Some(Loc {
            file: Some("debugger eval code"),
            builtin: true,
            ..Loc::default()
        });
    }
    if let Some(at) = loc.find(" line ") {
        let rest = &loc[at + " line ".len()..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let after = &rest[digits..];
        if digits > 0
            && let Some(eval) = after.strip_prefix(" > ")
            && (eval.starts_with("eval") || eval.starts_with("Function"))
        {
            return Some(Loc {
                file: Some(&loc[..at]),
                line: rest[..digits].parse().ok(),
                eval: Some(eval),
                ..Loc::default()
            });
        }
    }
    let (file, line, column) = parse_location(loc)?;
    if file.contains(char::is_whitespace) {
        return None;
    }
    Some(Loc {
        file: Some(file),
        line,
        column,
        ..Loc::default()
    })
}

/// A line that is a location alone, line and column both printed (JavaScriptCore's first
/// frame, React Native's anonymous frames): `http://x/a.js:48:22`.
fn bare_location(t: &str) -> Option<Loc<'_>> {
    if t.contains(char::is_whitespace) {
        return None;
    }
    let (file, line, column) = parse_location(t)?;
    (line.is_some() && column.is_some() && !file.ends_with(':')).then_some(Loc {
        file: Some(file),
        line,
        column,
        ..Loc::default()
    })
}

/// A function's name alone on its line (JavaScriptCore's frames in eval'd code).
fn is_bare_name(t: &str) -> bool {
    matches!(t, "eval code" | "global code" | "module code")
        || (t
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'))
            && !t.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && !super::looks_like_error_header(t))
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

/// The index of the `)` that closes the `(` at `open`.
fn matching_close_paren(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in s.bytes().enumerate().skip(open) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `file:line:column` or `file:line`; the file may itself contain `:` (URLs).
pub fn parse_location(loc: &str) -> Option<(&str, Option<u32>, Option<u32>)> {
    let (head, last) = loc.rsplit_once(':')?;
    let last: u32 = parse_num(last)?;
    if let Some((file, line)) = head.rsplit_once(':')
        && let Some(line) = parse_num(line)
        && !file.is_empty()
    {
        return Some((file, Some(line), Some(last)));
    }
    if head.is_empty() || head.ends_with('/') {
        return None;
    }
    Some((head, Some(last), None))
}

fn parse_num(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}
