//! A bracket scanner for JavaScript: it skips strings, comments, template literals and regular
//! expressions, and records, at each asked-for byte offset, which brackets are open there, the
//! last statement boundary inside each of them, and where the innermost one closes. It is not
//! a parser: it only tells the parser which small slice of the file holds a position
//! (`super` parses that slice with oxc and checks the answer; a wrong guess here costs a
//! failed parse, never a wrong name).

/// A bracket open at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Open {
    /// `{`, `(`, `[`, or `$` for a template literal's `${`.
    pub kind: u8,
    /// Its byte offset.
    pub at: usize,
    /// The last statement boundary of the enclosing level before this bracket (after a `;`,
    /// a `,`, a `{`, or a `}` followed by a word).
    pub weak: usize,
    /// The same counting only `;` and `{` (a `}` or `,` may be inside an expression).
    pub strong: usize,
    /// A `switch` body (its statements sit under `case` labels).
    pub switch_body: bool,
}

/// What the scanner saw at one offset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Snapshot {
    /// The offset asked for.
    pub offset: usize,
    /// The brackets open there, outermost first.
    pub stack: Vec<Open>,
    /// The last statement boundaries of the offset's own level.
    pub weak: usize,
    /// As `weak`, counting only `;` and `{`.
    pub strong: usize,
    /// The offset of the closer of each open bracket (as `stack`; `None`: the file ends
    /// first).
    pub closes: Vec<Option<usize>>,
    /// The offset of the closer of the innermost open bracket; with none open, of the `;`
    /// that ends the top-level statement (`None`: the file ends first).
    pub close: Option<usize>,
}

/// Why a scan gave up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Desync {
    /// A closer with nothing (or the wrong bracket) open: the scan began inside something.
    Unbalanced,
}

/// Bytes that end a run of plain code.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let s = b"{}()[];,'\"`/";
    while i < s.len() {
        t[s[i] as usize] = true;
        i += 1;
    }
    t
};

/// Scans `src` from `from` (a statement start, nothing open) and snapshots each of `targets`
/// (sorted byte offsets at or after `from`). Stops once every target is passed and the innermost
/// bracket open there (with `all_closes`, every one) is closed.
pub(super) fn scan(
    src: &[u8],
    from: usize,
    targets: &[usize],
    all_closes: bool,
) -> Result<Vec<Snapshot>, Desync> {
    let mut out: Vec<Snapshot> = Vec::with_capacity(targets.len());
    // Snapshots waiting for the bracket at each depth to close (a bracket closes before
    // another opens at its depth), and for the top-level statement's `;`.
    let mut waiting: Vec<Vec<usize>> = Vec::new();
    let mut waiting_top: Vec<usize> = Vec::new();
    let mut still_open = 0usize;
    let mut stack: Vec<Open> = Vec::new();
    // The last `)` closed and where its `(` was (a `{` after `switch (…)` is a switch body).
    let mut last_paren = (usize::MAX - 1, 0);
    let (mut weak, mut strong) = (from, from);
    let mut next = 0; // next target
    let n = src.len();
    let mut i = from;
    // Template mode: inside the text of a template literal (not its `${…}`).
    let mut in_template = false;
    loop {
        // Snapshot every target reached (a target inside a string or comment is taken where
        // the code resumes).
        while next < targets.len() && targets[next] <= i {
            let snap = Snapshot {
                offset: targets[next],
                stack: stack.clone(),
                weak,
                strong,
                closes: vec![None; stack.len()],
                close: None,
            };
            if stack.is_empty() {
                waiting_top.push(out.len());
            }
            if waiting.len() < stack.len() {
                waiting.resize(stack.len(), Vec::new());
            }
            // Only the innermost bracket's close, unless every close is asked for.
            let first = if all_closes {
                0
            } else {
                stack.len().saturating_sub(1)
            };
            for w in &mut waiting[first..stack.len()] {
                w.push(out.len());
            }
            still_open += stack.len() - first + usize::from(stack.is_empty());
            out.push(snap);
            next += 1;
        }
        if next == targets.len() && still_open == 0 {
            break;
        }
        if i >= n {
            break;
        }
        if in_template {
            // Template text: up to the closing backtick or a `${`.
            let mut j = i;
            loop {
                match src.get(j) {
                    None => return Ok(out),
                    Some(b'\\') => j += 2,
                    Some(b'`') => {
                        in_template = false;
                        i = j + 1;
                        break;
                    }
                    Some(b'$') if src.get(j + 1) == Some(&b'{') => {
                        push(&mut stack, b'$', j + 1, &mut weak, &mut strong);
                        in_template = false;
                        i = j + 2;
                        break;
                    }
                    Some(_) => j += 1,
                }
            }
            continue;
        }
        // Plain code up to the next byte that matters (or the next target).
        let limit = targets.get(next).map_or(n, |&t| t.min(n));
        while i < limit && !SPECIAL[src[i] as usize] {
            i += 1;
        }
        if i >= n || (i == limit && next < targets.len()) {
            continue;
        }
        let b = src[i];
        match b {
            b'{' | b'(' | b'[' => {
                push(&mut stack, b, i, &mut weak, &mut strong);
                if b == b'{'
                    && last_paren.0 + 1 == src[..i].trim_ascii_end().len()
                    && word_before(src, last_paren.1) == b"switch"
                    && let Some(top) = stack.last_mut()
                {
                    top.switch_body = true;
                }
                i += 1;
            }
            b'}' | b')' | b']' => {
                let want = match b {
                    b'}' => [b'{', b'$'],
                    b')' => [b'(', b'('],
                    _ => [b'[', b'['],
                };
                let Some(top) = stack.pop() else {
                    return Err(Desync::Unbalanced);
                };
                if !want.contains(&top.kind) {
                    return Err(Desync::Unbalanced);
                }
                let depth = stack.len();
                if let Some(w) = waiting.get_mut(depth).filter(|w| !w.is_empty()) {
                    for s in w.drain(..) {
                        out[s].closes[depth] = Some(i);
                        if depth + 1 == out[s].stack.len() {
                            out[s].close = Some(i);
                        }
                        still_open -= 1;
                    }
                }
                weak = top.weak;
                strong = top.strong;
                i += 1;
                if top.kind == b'$' {
                    in_template = true;
                } else if b == b'}' && starts_statement(&src[i..]) {
                    weak = i;
                } else if b == b')' {
                    last_paren = (i, top.at);
                }
            }
            b',' => {
                i += 1;
                weak = i;
            }
            b';' => {
                if stack.is_empty() && !waiting_top.is_empty() {
                    for s in waiting_top.drain(..) {
                        out[s].close = Some(i);
                        still_open -= 1;
                    }
                }
                i += 1;
                weak = i;
                strong = i;
            }
            b'\'' | b'"' => {
                i = skip_string(src, i + 1, b);
            }
            b'`' => {
                in_template = true;
                i += 1;
            }
            _ => {
                // `/`: a comment, a regular expression or a division.
                match src.get(i + 1) {
                    Some(b'/') => {
                        i = memchr::memchr(b'\n', &src[i..]).map_or(n, |p| i + p + 1);
                    }
                    Some(b'*') => {
                        i = memchr::memmem::find(&src[i + 2..], b"*/").map_or(n, |p| i + 2 + p + 2);
                    }
                    _ if regex_allowed(src, i) => i = skip_regex(src, i + 1),
                    _ => i += 1,
                }
            }
        }
    }
    Ok(out)
}

fn push(stack: &mut Vec<Open>, kind: u8, at: usize, weak: &mut usize, strong: &mut usize) {
    stack.push(Open {
        kind,
        at,
        weak: *weak,
        strong: *strong,
        switch_body: false,
    });
    *weak = at + 1;
    *strong = at + 1;
}

/// Whether what follows a `}` (spaces skipped) begins a new statement: a word that does not
/// continue the one before (`else`, `catch`, `while` of a `do`, `in`, …).
fn starts_statement(rest: &[u8]) -> bool {
    let rest = rest.trim_ascii_start();
    let len = rest
        .iter()
        .take_while(|&&c| is_word_byte(c) || c == b'#')
        .count();
    let word = &rest[..len];
    !word.is_empty()
        && !word[0].is_ascii_digit()
        && !matches!(
            word,
            b"else" | b"catch" | b"finally" | b"while" | b"in" | b"instanceof" | b"of"
        )
}

/// A byte of an ASCII identifier or keyword.
fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// The word just before byte `at` (spaces skipped).
pub(super) fn word_before(src: &[u8], at: usize) -> &[u8] {
    let end = src[..at].trim_ascii_end().len();
    let start = src[..end]
        .iter()
        .rposition(|&c| !is_word_byte(c))
        .map_or(0, |p| p + 1);
    &src[start..end]
}

/// The offset after the string that began before `i` with `quote`.
fn skip_string(src: &[u8], mut i: usize, quote: u8) -> usize {
    loop {
        match memchr::memchr3(quote, b'\\', b'\n', &src[i.min(src.len())..]) {
            None => return src.len(),
            Some(p) => {
                let at = i + p;
                match src[at] {
                    b'\\' => i = at + 2,
                    // An unterminated string ends at the line's end (as a parser would fail).
                    b'\n' => return at,
                    _ => return at + 1,
                }
            }
        }
    }
}

/// The offset after the regular expression whose body begins at `i`.
fn skip_regex(src: &[u8], mut i: usize) -> usize {
    let mut class = false;
    while let Some(&c) = src.get(i) {
        match c {
            b'\\' => i += 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => return i + 1,
            b'\n' => return i,
            _ => {}
        }
        i += 1;
    }
    src.len()
}

/// Whether a `/` at `i` begins a regular expression: what precedes it cannot end an operand.
fn regex_allowed(src: &[u8], i: usize) -> bool {
    let Some(&p) = src[..i].trim_ascii_end().last() else {
        return true;
    };
    if is_word_byte(p) {
        return matches!(
            word_before(src, i),
            b"return"
                | b"typeof"
                | b"instanceof"
                | b"in"
                | b"of"
                | b"new"
                | b"delete"
                | b"void"
                | b"throw"
                | b"case"
                | b"do"
                | b"else"
                | b"yield"
                | b"await"
        );
    }
    !matches!(p, b')' | b']' | b'"' | b'\'' | b'`') && p < 0x80
}

/// A byte offset at or before `offset` where a top-level statement plausibly begins: the start
/// of a line that begins with a word at column 0 after a line ending in `;` or `}` (how
/// unminified bundles lay out their top level), else 0. The scan checks it: a closer with
/// nothing open sends it back to 0.
pub(super) fn restart_point(src: &[u8], offset: usize) -> usize {
    let mut line_start = memchr::memrchr(b'\n', &src[..offset.min(src.len())]).map_or(0, |p| p + 1);
    while line_start > 0 {
        let first = src[line_start];
        let starts_word = first.is_ascii_alphabetic() || first == b'_' || first == b'$';
        let prev = src[..line_start - 1].trim_ascii_end();
        if starts_word && matches!(prev.last(), Some(b';' | b'}')) {
            return line_start;
        }
        line_start = memchr::memrchr(b'\n', &src[..line_start - 1]).map_or(0, |p| p + 1);
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(src: &str, at: &str) -> Snapshot {
        let off = src.find(at).unwrap();
        scan(src.as_bytes(), 0, &[off], true).unwrap().remove(0)
    }

    #[test]
    fn brackets_and_boundaries() {
        let src = "var a=1;function f(x){if(x){g(\"}\",'{',`${x}}`,/[}]/.test(x)/2);HERE}}b()";
        let s = snap(src, "HERE");
        let kinds: Vec<u8> = s.stack.iter().map(|o| o.kind).collect();
        assert_eq!(kinds, b"{{");
        // The offset's own level begins after the `;` that ends `g(…)`.
        assert_eq!(&src[s.weak..s.weak + 4], "HERE");
        // The function's block was opened after the statement that began at `function`.
        assert_eq!(&src[s.stack[0].strong..s.stack[0].strong + 8], "function");
        assert_eq!(&src[s.close.unwrap()..], "}}b()");
    }

    #[test]
    fn comments_and_regex_after_keywords() {
        let src = "x=1 // {\n/* ( */ y=function(){return /\\)/.test(q)/*)*/ ?a:b; HERE}";
        let s = snap(src, "HERE");
        assert_eq!(s.stack.len(), 1);
        assert_eq!(s.close, Some(src.len() - 1));
    }

    #[test]
    fn a_weak_boundary_after_a_block() {
        let src = "function a(){}function b(){HERE}";
        let s = snap(src, "HERE");
        assert_eq!(&src[s.stack[0].weak..s.stack[0].weak + 10], "function b");
        assert_eq!(s.stack[0].strong, 0);
    }

    #[test]
    fn nested_templates() {
        let src = "f(`a${`b${c}`}d`, () => { HERE })";
        let s = snap(src, "HERE");
        let kinds: Vec<u8> = s.stack.iter().map(|o| o.kind).collect();
        assert_eq!(kinds, b"({");
    }

    #[test]
    fn unbalanced_starts_are_refused() {
        assert_eq!(scan(b"}a()", 0, &[2], true), Err(Desync::Unbalanced));
        assert_eq!(scan(b"(]x", 0, &[3], true), Err(Desync::Unbalanced));
    }

    #[test]
    fn restart_points() {
        let src = b"class A {\n  m() {\n    x();\n  }\n}\nfunction f() {\n  y();\n}\n";
        let at = src.windows(3).position(|w| w == b"y()").unwrap();
        assert_eq!(&src[restart_point(src, at)..][..10], b"function f");
        let at = src.windows(3).position(|w| w == b"x()").unwrap();
        assert_eq!(restart_point(src, at), 0);
    }
}
