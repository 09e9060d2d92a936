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
#[cfg(test)]
pub(super) fn scan(
    src: &[u8],
    from: usize,
    targets: &[usize],
    all_closes: bool,
) -> Result<Vec<Snapshot>, Desync> {
    let mut scanner = Scanner::new(src, from, targets.to_vec());
    scanner.run(all_closes)?;
    Ok(scanner.out)
}

/// A scan that can stop once the innermost brackets open at its targets close, and later go on
/// to the closes of the outer ones.
pub(super) struct Scanner<'a> {
    src: &'a [u8],
    targets: Vec<usize>,
    /// The snapshots taken so far.
    pub out: Vec<Snapshot>,
    // Snapshots waiting for the bracket at each depth to close (a bracket closes before
    // another opens at its depth), and for the top-level statement's `;`.
    waiting: Vec<Vec<usize>>,
    waiting_top: Vec<usize>,
    /// Closes still to come: of the innermost brackets (and top-level statements), of all.
    open_inner: usize,
    open_all: usize,
    stack: Vec<Open>,
    // The last `)` closed and where its `(` was (a `{` after `switch (…)` is a switch body).
    last_paren: (usize, usize),
    weak: usize,
    strong: usize,
    next: usize,
    i: usize,
    // Inside the text of a template literal (not its `${…}`).
    in_template: bool,
    /// Where the scan ends (the file's end, or the end of a piece searched for blocks).
    end: usize,
    /// Blocks (`{…}`, not `${…}`) closed with nothing else open, when asked for: their
    /// contents' ranges.
    blocks: Option<Vec<std::ops::Range<usize>>>,
}

impl<'a> Scanner<'a> {
    /// A scan of `src` from `from` (a statement start, nothing open) that snapshots each of
    /// `targets` (sorted byte offsets at or after `from`).
    pub fn new(src: &'a [u8], from: usize, targets: Vec<usize>) -> Self {
        Self {
            src,
            out: Vec::with_capacity(targets.len()),
            targets,
            waiting: Vec::new(),
            waiting_top: Vec::new(),
            open_inner: 0,
            open_all: 0,
            stack: Vec::new(),
            last_paren: (usize::MAX - 1, 0),
            weak: from,
            strong: from,
            next: 0,
            i: from,
            in_template: false,
            end: src.len(),
            blocks: None,
        }
    }

    /// Scans on until every target is passed and the innermost bracket open at each (with
    /// `all_closes`, every one) is closed, or the file ends.
    pub fn run(&mut self, all_closes: bool) -> Result<(), Desync> {
        let src = self.src;
        let n = self.end;
        let mut i = self.i;
        let r = loop {
            // Snapshot every target reached (a target inside a string or comment is taken
            // where the code resumes).
            while self.next < self.targets.len() && self.targets[self.next] <= i {
                self.snapshot();
            }
            let open = if all_closes {
                self.open_all
            } else {
                self.open_inner
            };
            if (self.next == self.targets.len() && open == 0 && self.blocks.is_none()) || i >= n {
                break Ok(());
            }
            if self.in_template {
                // Template text: up to the closing backtick or a `${`.
                let mut j = i;
                loop {
                    match src.get(j) {
                        None => {
                            // The file ends inside the template.
                            self.i = n;
                            return Ok(());
                        }
                        Some(b'\\') => j += 2,
                        Some(b'`') => {
                            self.in_template = false;
                            i = j + 1;
                            break;
                        }
                        Some(b'$') if src.get(j + 1) == Some(&b'{') => {
                            self.push(b'$', j + 1);
                            self.in_template = false;
                            i = j + 2;
                            break;
                        }
                        Some(_) => j += 1,
                    }
                }
                continue;
            }
            // Plain code up to the next byte that matters (or the next target).
            let limit = self.targets.get(self.next).map_or(n, |&t| t.min(n));
            while i < limit && !SPECIAL[src[i] as usize] {
                i += 1;
            }
            if i >= n || (i == limit && self.next < self.targets.len()) {
                continue;
            }
            let b = src[i];
            match b {
                b'{' | b'(' | b'[' => {
                    self.push(b, i);
                    if b == b'{'
                        && self.last_paren.0 + 1 == src[..i].trim_ascii_end().len()
                        && word_before(src, self.last_paren.1) == b"switch"
                        && let Some(top) = self.stack.last_mut()
                    {
                        top.switch_body = true;
                    }
                    i += 1;
                }
                b'}' | b')' | b']' => {
                    if let Err(e) = self.close(b, i) {
                        break Err(e);
                    }
                    i += 1;
                    if b == b'}' && !self.in_template && starts_statement(&src[i..]) {
                        self.weak = i;
                    }
                }
                b',' => {
                    i += 1;
                    self.weak = i;
                }
                b';' => {
                    if self.stack.is_empty() {
                        for s in self.waiting_top.drain(..) {
                            self.out[s].close = Some(i);
                            self.open_inner -= 1;
                            self.open_all -= 1;
                        }
                    }
                    i += 1;
                    self.weak = i;
                    self.strong = i;
                }
                b'\'' | b'"' => {
                    i = skip_string(src, i + 1, b);
                }
                b'`' => {
                    self.in_template = true;
                    i += 1;
                }
                _ => {
                    // `/`: a comment, a regular expression or a division.
                    match src.get(i + 1) {
                        Some(b'/') => {
                            i = memchr::memchr(b'\n', &src[i..]).map_or(n, |p| i + p + 1);
                        }
                        Some(b'*') => {
                            i = memchr::memmem::find(&src[i + 2..], b"*/")
                                .map_or(n, |p| i + 2 + p + 2);
                        }
                        _ if regex_allowed(src, i) => i = skip_regex(src, i + 1),
                        _ => i += 1,
                    }
                }
            }
        };
        self.i = i;
        r
    }

    /// Adds `more` targets (sorted) to a scan that has not yet passed them; `false` if it has.
    pub fn add_targets(&mut self, more: &[usize]) -> bool {
        let fits = more.first().is_none_or(|&t| t >= self.i)
            && self.next == self.targets.len()
            && !self.in_template;
        if fits {
            self.targets.extend_from_slice(more);
        }
        fits
    }

    /// The contents of the blocks (`{…}`) in `src[from..to]` that close there with nothing
    /// else open, at least `min` bytes long (`from`: a statement boundary). Empty if the piece
    /// does not scan.
    pub fn blocks(
        src: &'a [u8],
        from: usize,
        to: usize,
        min: usize,
    ) -> Vec<std::ops::Range<usize>> {
        let mut scanner = Scanner::new(src, from, Vec::new());
        scanner.end = to.min(src.len());
        scanner.blocks = Some(Vec::new());
        if scanner.run(false).is_err() {
            return Vec::new();
        }
        let mut blocks = scanner.blocks.unwrap_or_default();
        blocks.retain(|r| r.len() >= min && r.end < to);
        blocks
    }

    /// Snapshots the next target; it waits for the close of every bracket open there.
    fn snapshot(&mut self) {
        let depth = self.stack.len();
        let at = self.out.len();
        self.out.push(Snapshot {
            offset: self.targets[self.next],
            stack: self.stack.clone(),
            weak: self.weak,
            strong: self.strong,
            closes: vec![None; depth],
            close: None,
        });
        if depth == 0 {
            self.waiting_top.push(at);
            self.open_inner += 1;
            self.open_all += 1;
        } else {
            if self.waiting.len() < depth {
                self.waiting.resize(depth, Vec::new());
            }
            for w in &mut self.waiting[..depth] {
                w.push(at);
            }
            self.open_inner += 1;
            self.open_all += depth;
        }
        self.next += 1;
    }

    fn push(&mut self, kind: u8, at: usize) {
        self.stack.push(Open {
            kind,
            at,
            weak: self.weak,
            strong: self.strong,
            switch_body: false,
        });
        self.weak = at + 1;
        self.strong = at + 1;
    }

    /// The closer `b` at `i`.
    fn close(&mut self, b: u8, i: usize) -> Result<(), Desync> {
        let want = match b {
            b'}' => [b'{', b'$'],
            b')' => [b'(', b'('],
            _ => [b'[', b'['],
        };
        let top = self.stack.pop().ok_or(Desync::Unbalanced)?;
        if !want.contains(&top.kind) {
            return Err(Desync::Unbalanced);
        }
        let depth = self.stack.len();
        if let (0, b'{', Some(blocks)) = (depth, top.kind, &mut self.blocks) {
            blocks.push(top.at + 1..i);
        }
        if let Some(w) = self.waiting.get_mut(depth).filter(|w| !w.is_empty()) {
            for s in w.drain(..) {
                let snap = &mut self.out[s];
                snap.closes[depth] = Some(i);
                if depth + 1 == snap.stack.len() {
                    snap.close = Some(i);
                    self.open_inner -= 1;
                }
                self.open_all -= 1;
            }
        }
        self.weak = top.weak;
        self.strong = top.strong;
        if top.kind == b'$' {
            self.in_template = true;
        } else if b == b')' {
            self.last_paren = (i, top.at);
        }
        Ok(())
    }
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
        // An offset at the very end of a text that ends in a newline has an empty line.
        let first = src.get(line_start).copied().unwrap_or(b' ');
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
    fn a_scan_taken_up_again_sees_what_a_fresh_one_sees() {
        let src = b"f(a,{b(){c()}});function g(){if(x){h([1,`${y}`,() => {i()}])}}k();";
        let at = |p: &[u8]| src.windows(p.len()).position(|w| w == p).unwrap();
        let (first, later) = (at(b"c()"), [at(b"h("), at(b"i()"), at(b"k()")]);
        let mut scanner = Scanner::new(src, 0, vec![first]);
        scanner.run(false).unwrap();
        assert!(scanner.add_targets(&later));
        scanner.run(false).unwrap();
        let fresh = scan(src, 0, &[first, later[0], later[1], later[2]], false).unwrap();
        assert_eq!(scanner.out, fresh);
        // Going on to every close fills in the outer ones.
        scanner.run(true).unwrap();
        assert!(
            scanner
                .out
                .iter()
                .all(|s| s.closes.iter().all(Option::is_some))
        );
        // A scan cannot take up a position it has passed.
        assert!(!scanner.add_targets(&[first]));
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
        // The end of a text that ends in a newline (found by the fuzzer: it indexed past the end).
        assert_eq!(&src[restart_point(src, src.len())..][..10], b"function f");
        assert_eq!(restart_point(b"x;\n", 3), 0);
    }
}
