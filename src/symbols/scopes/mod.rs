//! The function that encloses a position in generated JavaScript, found by a real parser
//! (`oxc_parser`), for naming frames as Chrome DevTools and Sentry do: the enclosing function's
//! name tokens (`class XRef { parse() {…} }` → `XRef`, `parse`) are then mapped through the
//! source map to original names (in `symbolicate`).
//!
//! Parsing a whole bundle costs more than the rest of a cold run (`benches/README.md`), so only
//! a slice is parsed: a bracket scan (`lexer.rs`) finds the brackets open at the position and the
//! statement boundaries before each; the slice from a boundary to the innermost bracket's
//! close, with the outer brackets closed after it, is parsed, innermost level first. A level
//! answers when it parses and the innermost function in it holds the position (its name comes
//! from inside the slice); otherwise the next level out is tried, then the whole file. An
//! unminified bundle's scan starts at a nearby top-level line (`restart_point`), a minified one's
//! at the start, once for all positions.
//! From 32 distinct positions in one file (a CPU profile's functions in one original source)
//! the whole file is parsed once instead, the slices answering only where it does not parse.
//!
//! Names as V8 gives them: a declaration's or named expression's own name; a method with its
//! class (`XRef.parse`; a constructor is its class); a function assigned to a variable, a
//! member (`a.b.c`, without `prototype`), or a property or class field (its key). Anything else (a callback, an
//! IIFE, an arrow passed along) is anonymous, and code outside any function is top-level.

mod lexer;

use oxc_allocator::Allocator;
use oxc_ast::AstKind;
use oxc_ast::ast::{
    AssignmentTarget, BindingPattern, Expression, MethodDefinitionKind, PropertyKey, Statement,
};
use oxc_ast_visit::Visit;
use oxc_parser::{ParseOptions, Parser};
use oxc_span::{GetSpan, SourceType, Span};
use std::ops::Range;

/// The function enclosing a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// A named function: the byte ranges of the identifiers its name is made of, outermost
    /// first (`XRef.parse` → `XRef`, `parse`; a constructor → its class).
    Named(Vec<Range<usize>>),
    /// An anonymous function: a callback, an arrow passed along, an IIFE.
    Anonymous,
    /// Code outside any function.
    TopLevel,
}

/// What was found for one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The enclosing function.
    pub scope: Scope,
    /// Byte offset where that function begins (0 for top-level code).
    pub function_at: usize,
    /// Bytes parsed to find it (the slices tried, or the whole file).
    pub parsed: usize,
}

/// The enclosing function of each byte offset in `src` (a generated JavaScript file), in the
/// order given. `None` where no parse succeeded (the file is not JavaScript oxc reads).
pub fn enclosing_functions(src: &str, offsets: &[usize]) -> Vec<Option<Found>> {
    enclosing_functions_in(src, offsets, Dialect::default())
}

/// From this many distinct positions in one file, the whole file is parsed once.
const WHOLE_FROM: usize = 32;

/// The language a source is written in, beyond JavaScript: TypeScript, JSX.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dialect {
    /// TypeScript (`.ts`, `.tsx`, `.mts`, `.cts`).
    pub typescript: bool,
    /// JSX (`.jsx`, `.tsx`).
    pub jsx: bool,
}

impl Dialect {
    /// The dialect a source's path names by its extension (JavaScript when it names none).
    pub fn of_path(path: &str) -> Self {
        let ext = path
            .rsplit('/')
            .next()
            .and_then(|n| n.rsplit_once('.'))
            .map_or("", |(_, e)| e);
        Self {
            typescript: matches!(ext, "ts" | "tsx" | "mts" | "cts"),
            jsx: matches!(ext, "jsx" | "tsx"),
        }
    }

    fn source_type(self) -> SourceType {
        SourceType::unambiguous()
            .with_typescript(self.typescript)
            .with_jsx(self.jsx)
    }
}

/// [`enclosing_functions`] for a source in `dialect` (an original source of a map).
pub fn enclosing_functions_in(
    src: &str,
    offsets: &[usize],
    dialect: Dialect,
) -> Vec<Option<Found>> {
    // Each distinct offset is answered once.
    let mut distinct: Vec<usize> = offsets.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    // Many positions in one file (a profile's functions): one parse of the whole file costs
    // less than their slices; where it does not parse, the slices answer.
    let mut answers = Vec::new();
    if distinct.len() >= WHOLE_FROM {
        let clamped: Vec<usize> = distinct.iter().map(|&o| o.min(src.len())).collect();
        let which: Vec<usize> = (0..clamped.len()).collect();
        let mut parser = SliceParser {
            dialect,
            ..SliceParser::default()
        };
        let whole = parser.whole(src, &which, &clamped);
        if whole.iter().all(|(_, f)| f.is_some()) {
            answers = whole.into_iter().map(|(_, f)| f).collect();
        }
    }
    if answers.is_empty() {
        answers = enclosing_sorted(src, &distinct, dialect);
    }
    offsets
        .iter()
        .map(|o| answers[distinct.binary_search(o).unwrap_or(0)].clone())
        .collect()
}

/// The same answers from one parse of the whole file: the reference the slices must agree with
/// (`parsed` aside), for tests and fuzzing; too slow for a cold run (`benches/README.md`).
pub fn enclosing_functions_whole(src: &str, offsets: &[usize]) -> Vec<Option<Found>> {
    let offsets: Vec<usize> = offsets.iter().map(|&o| o.min(src.len())).collect();
    let which: Vec<usize> = (0..offsets.len()).collect();
    let mut answers = vec![None; offsets.len()];
    for (i, found) in SliceParser::default().whole(src, &which, &offsets) {
        answers[i] = found;
    }
    answers
}

/// `enclosing_functions` for sorted, distinct offsets.
fn enclosing_sorted(src: &str, offsets: &[usize], dialect: Dialect) -> Vec<Option<Found>> {
    let bytes = src.as_bytes();
    let order: Vec<usize> = (0..offsets.len()).collect();
    let mut answers: Vec<Option<Found>> = vec![None; offsets.len()];
    let mut parser = SliceParser {
        dialect,
        ..SliceParser::default()
    };
    let mut unanswered: Vec<usize> = Vec::new();
    let mut zero: Option<lexer::Scanner<'_>> = None;
    // Positions that share a restart point are scanned together.
    let mut k = 0;
    while k < order.len() {
        let from = lexer::restart_point(bytes, offsets[order[k]].min(bytes.len()));
        let mut group = vec![order[k]];
        k += 1;
        while k < order.len()
            && lexer::restart_point(bytes, offsets[order[k]].min(bytes.len())) == from
        {
            group.push(order[k]);
            k += 1;
        }
        let targets: Vec<usize> = group.iter().map(|&i| offsets[i].min(bytes.len())).collect();
        // From the restart point, else from the start: by one scan from the start, taken up
        // again for later positions while it has not passed them.
        let mut own = (from > 0).then(|| lexer::Scanner::new(bytes, from, targets.clone()));
        if let Some(s) = &mut own
            && s.run(false).is_err()
        {
            own = None;
        }
        let (scanner, base) = match own.as_mut() {
            Some(s) => (s, 0),
            None => {
                if !zero.as_mut().is_some_and(|z| z.add_targets(&targets)) {
                    zero = Some(lexer::Scanner::new(bytes, 0, targets.clone()));
                }
                let Some(z) = zero.as_mut() else { continue };
                let base = z.out.len();
                if z.run(false).is_err() {
                    // Nothing more can be read from the start.
                    unanswered.extend(group);
                    zero = None;
                    continue;
                }
                (z, base)
            }
        };
        if scanner.out.len() - base != targets.len() {
            unanswered.extend(group);
            continue;
        }
        let mut again = Vec::new();
        for (k, &i) in group.iter().enumerate() {
            match parser.by_slices(src, &scanner.out[base + k]) {
                Some(found) => answers[i] = Some(found),
                None => again.push(k),
            }
        }
        if !again.is_empty() {
            let all = scanner.run(true).is_ok();
            for k in again {
                let found = all
                    .then(|| parser.by_slices(src, &scanner.out[base + k]))
                    .flatten();
                match found {
                    Some(f) => answers[group[k]] = Some(f),
                    None => unanswered.push(group[k]),
                }
            }
        }
    }
    if !unanswered.is_empty() {
        for (i, found) in parser.whole(src, &unanswered, offsets) {
            answers[i] = found;
        }
    }
    answers
}

/// Parses slices with one arena, counting the bytes parsed.
#[derive(Default)]
struct SliceParser {
    alloc: Allocator,
    parsed: usize,
    dialect: Dialect,
}

impl SliceParser {
    /// Tries the levels of `snap` from the innermost out.
    fn by_slices(&mut self, src: &str, snap: &lexer::Snapshot) -> Option<Found> {
        let stack = &snap.stack;
        let m = stack.len();
        let before = self.parsed;
        // First the top-level statement with only the path to the position: each open
        // bracket's head from the boundary before it (earlier statements, members and
        // arguments left out: they cannot name the function).
        // The `;`/`{` boundaries differ from the others only when some level has a `,` or `}`
        // boundary after them.
        let differ = snap.weak != snap.strong || stack.iter().any(|o| o.weak != o.strong);
        for weak in [true, false] {
            if !weak && !differ {
                break;
            }
            let Some(spliced) = splice(src, snap, weak) else {
                continue;
            };
            self.parsed += spliced.text.len();
            if let Answer::Found(mut f) = self.parse(&spliced.text, spliced.pos, 0, true) {
                f.parsed = self.parsed - before;
                return spliced.to_file(f);
            }
        }
        for j in (0..=m).rev() {
            // A slice must begin inside a list of statements: a block, or the top level.
            if j > 0 && stack[j - 1].kind != b'{' {
                continue;
            }
            let (weak, strong) = if j == m {
                (snap.weak, snap.strong)
            } else {
                (stack[j].weak, stack[j].strong)
            };
            // From the last boundary, then the last `;` or `{`; cut at the innermost
            // bracket's close; then, from the `;`, the whole rest of the enclosing block
            // (for an expression cut short, `a ? function () {…}` without its `: b`).
            // Built one at a time: most levels answer (or fail) at the first.
            let tries = [(weak, false), (strong, false), (strong, true)];
            let texts = tries
                .into_iter()
                .enumerate()
                .filter_map(|(k, (start, tail))| {
                    if k == 1 && strong == weak {
                        return None;
                    }
                    let text = if tail {
                        let end = (j > 0 && j < m).then(|| snap.closes[j - 1]).flatten()?;
                        src.get(start..end)?.to_owned()
                    } else {
                        slice(src, snap, j, start)?
                    };
                    Some((start, text))
                });
            for (start, text) in texts {
                let pos = snap.offset - start;
                self.parsed += text.len();
                match self.parse(&text, pos, start, j == 0) {
                    Answer::Found(mut f) => {
                        f.parsed = self.parsed - before;
                        return Some(f);
                    }
                    // Parsed, but the answer lies further out.
                    Answer::Outside => break,
                    Answer::Unparsed => {}
                }
            }
        }
        None
    }

    /// Parses the whole file once and answers `which` of `offsets`.
    fn whole(
        &mut self,
        src: &str,
        which: &[usize],
        offsets: &[usize],
    ) -> Vec<(usize, Option<Found>)> {
        self.alloc.reset();
        let ret = parse(&self.alloc, src, self.dialect);
        let ok = !ret.panicked && ret.diagnostics.is_empty();
        which
            .iter()
            .map(|&i| {
                let found = ok.then(|| {
                    let mut f = find(&ret.program, offsets[i] as u32, 0).unwrap_or(Found {
                        scope: Scope::TopLevel,
                        function_at: 0,
                        parsed: 0,
                    });
                    f.parsed = src.len();
                    f
                });
                (i, found)
            })
            .collect()
    }

    fn parse(&mut self, text: &str, pos: usize, start: usize, top: bool) -> Answer {
        self.alloc.reset();
        let ret = parse(&self.alloc, text, self.dialect);
        if ret.panicked || !ret.diagnostics.is_empty() {
            return Answer::Unparsed;
        }
        // A slice that begins inside an object literal can read `key: () => …` as a label.
        let root = ret
            .program
            .body
            .iter()
            .find(|s| s.span().start as usize <= pos && pos < s.span().end as usize);
        if matches!(root, Some(Statement::LabeledStatement(_))) {
            return Answer::Unparsed;
        }
        match find(&ret.program, pos as u32, start) {
            Some(f) => Answer::Found(f),
            None if top => Answer::Found(Found {
                scope: Scope::TopLevel,
                function_at: 0,
                parsed: 0,
            }),
            None => Answer::Outside,
        }
    }
}

/// A slice made of pieces of the file.
struct Spliced {
    text: String,
    /// The position in `text`.
    pos: usize,
    /// (offset in `text`, offset in the file) where each piece begins.
    pieces: Vec<(usize, usize)>,
}

impl Spliced {
    fn file_offset(&self, at: usize) -> Option<usize> {
        let k = self
            .pieces
            .partition_point(|&(t, _)| t <= at)
            .checked_sub(1)?;
        let (t, f) = self.pieces[k];
        let end = self.pieces.get(k + 1).map_or(self.text.len(), |p| p.0);
        (at < end).then(|| f + (at - t))
    }

    /// `found` (in `text` offsets) in file offsets; `None` if a name falls in what was added.
    fn to_file(&self, found: Found) -> Option<Found> {
        let top = found.scope == Scope::TopLevel;
        let scope = match found.scope {
            Scope::Named(parts) => Scope::Named(
                parts
                    .into_iter()
                    .map(|r| {
                        let s = self.file_offset(r.start)?;
                        Some(s..s + r.len())
                    })
                    .collect::<Option<_>>()?,
            ),
            other => other,
        };
        Some(Found {
            scope,
            function_at: match found.function_at {
                0 if top => 0,
                at => self.file_offset(at)?,
            },
            parsed: found.parsed,
        })
    }
}

/// The top-level statement holding `snap`'s position with only the path to it: for each open
/// bracket, the text from the boundary before it to the bracket; then the innermost level from
/// its boundary to the innermost bracket's close; then the closers.
fn splice(src: &str, snap: &lexer::Snapshot, weak: bool) -> Option<Spliced> {
    let m = snap.stack.len();
    let close = snap.close?;
    let bound = |k: usize| match (k == m, weak) {
        (true, true) => snap.weak,
        (true, false) => snap.strong,
        (false, true) => snap.stack[k].weak,
        (false, false) => snap.stack[k].strong,
    };
    let mut text = String::new();
    let mut pieces = Vec::with_capacity(m + 1);
    for k in 0..m {
        let (from, to) = (bound(k), snap.stack[k].at + 1);
        if k > 0 && snap.stack[k - 1].switch_body {
            // The statement kept from a switch body needs a label.
            text.push_str("default:");
        }
        push_piece(&mut text, &mut pieces, src, from, to)?;
    }
    let from = bound(m);
    if m > 0 && snap.stack[m - 1].switch_body {
        text.push_str("default:");
    }
    if from > snap.offset {
        return None;
    }
    push_piece(&mut text, &mut pieces, src, from, snap.offset)?;
    let pos = text.len();
    // The innermost bracket's contents and close (at the top level, the statement's `;`).
    pieces.push((text.len(), snap.offset));
    text.push_str(src.get(snap.offset..=close)?);
    let body = |o: &lexer::Open| statement_body(src, o);
    if m > 0 {
        text.push_str(body(&snap.stack[m - 1]));
    }
    for o in snap.stack[..m.saturating_sub(1)].iter().rev() {
        text.push(closer(o.kind));
        text.push_str(body(o));
    }
    Some(Spliced { text, pos, pieces })
}

/// Appends `src[from..to]` to `text`, the contents of its long blocks left out (`{…}` → `{}`:
/// what precedes a position in its statement only matters by its shape).
fn push_piece(
    text: &mut String,
    pieces: &mut Vec<(usize, usize)>,
    src: &str,
    from: usize,
    to: usize,
) -> Option<()> {
    let mut at = from;
    for block in lexer::Scanner::blocks(src.as_bytes(), from, to, 256) {
        pieces.push((text.len(), at));
        text.push_str(src.get(at..block.start)?);
        at = block.end;
    }
    pieces.push((text.len(), at));
    text.push_str(src.get(at..to)?);
    Some(())
}

fn closer(kind: u8) -> char {
    match kind {
        b'(' => ')',
        b'[' => ']',
        _ => '}',
    }
}

/// What completes a statement whose head ends at bracket `o` once the bracket is closed:
/// `if (…)` → `if (…);`, `try {…}` → `try {…} finally {}`.
fn statement_body(src: &str, o: &lexer::Open) -> &'static str {
    match (o.kind, lexer::word_before(src.as_bytes(), o.at)) {
        (b'(', b"if" | b"while" | b"for" | b"with") => ";",
        (b'(', b"switch" | b"catch") => "{}",
        (b'{', b"try") => "finally{}",
        (b'{', b"do") => "while(0);",
        _ => "",
    }
}

enum Answer {
    Found(Found),
    Outside,
    Unparsed,
}

fn parse<'a>(
    alloc: &'a Allocator,
    text: &'a str,
    dialect: Dialect,
) -> oxc_parser::ParserReturn<'a> {
    Parser::new(alloc, text, dialect.source_type())
        .with_options(ParseOptions {
            allow_return_outside_function: true,
            preserve_parens: false,
            ..ParseOptions::default()
        })
        .parse()
}

/// The text of level `j` of `snap` from `start`: up to the innermost bracket's close, with the
/// brackets between closed after it, and a statement head cut short completed (`if (…)` →
/// `if (…);`, `try {…}` → `try {…} finally {}`).
fn slice(src: &str, snap: &lexer::Snapshot, j: usize, start: usize) -> Option<String> {
    let m = snap.stack.len();
    let end = match snap.close {
        // The innermost bracket's contents, or its close and the closers of those around it.
        Some(c) if j == m => c,
        Some(c) => c + 1,
        None => src.len(),
    };
    let text = src.get(start..end)?;
    let open_after = if snap.close.is_some() && j < m {
        &snap.stack[j..m - 1]
    } else {
        &snap.stack[j.min(m)..]
    };
    let mut s = String::with_capacity(text.len() + open_after.len() + 2);
    s.push_str(text);
    let body = |o: &lexer::Open| statement_body(src, o);
    if j < m && snap.close.is_some() {
        s.push_str(body(&snap.stack[m - 1]));
    }
    for o in open_after.iter().rev() {
        s.push(closer(o.kind));
        s.push_str(body(o));
    }
    if j < m {
        s.push_str("\n;");
    }
    Some(s)
}

/// The innermost function of `program` holding `pos`, with its name's ranges shifted by
/// `start` (where the parsed text begins in the file).
fn find(program: &oxc_ast::ast::Program<'_>, pos: u32, start: usize) -> Option<Found> {
    let mut finder = Finder {
        pos,
        stack: Vec::new(),
        found: None,
    };
    finder.visit_program(program);
    let (scope, at) = finder.found?;
    let shift = |r: Span| r.start as usize + start..r.end as usize + start;
    Some(Found {
        scope: match scope {
            RawScope::Named(parts) => Scope::Named(parts.into_iter().map(shift).collect()),
            RawScope::Anonymous => Scope::Anonymous,
        },
        function_at: at as usize + start,
        parsed: 0,
    })
}

enum RawScope {
    Named(Vec<Span>),
    Anonymous,
}

/// Walks down to `pos`, keeping the path, and names each function on it (the last is the
/// innermost).
struct Finder<'a> {
    pos: u32,
    stack: Vec<AstKind<'a>>,
    found: Option<(RawScope, u32)>,
}

impl<'a> Visit<'a> for Finder<'a> {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        self.stack.push(kind);
        let span = match kind {
            AstKind::Function(f) => f.span,
            AstKind::ArrowFunctionExpression(a) => a.span,
            _ => return,
        };
        if span.start <= self.pos && self.pos < span.end {
            let scope = match self.name_of(self.stack.len() - 1) {
                Some(parts) => RawScope::Named(parts),
                None => RawScope::Anonymous,
            };
            self.found = Some((scope, span.start));
        }
    }

    fn leave_node(&mut self, _kind: AstKind<'a>) {
        self.stack.pop();
    }

    // Only the statements on the way to the position are walked.
    fn visit_statement(&mut self, it: &Statement<'a>) {
        let span = it.span();
        if span.start <= self.pos && self.pos < span.end {
            oxc_ast_visit::walk::walk_statement(self, it);
        }
    }
}

impl Finder<'_> {
    /// The name of the function (or class) at `stack[i]`.
    fn name_of(&self, i: usize) -> Option<Vec<Span>> {
        let own = match self.stack[i] {
            AstKind::Function(f) => f.id.as_ref().map(|id| id.span),
            AstKind::Class(c) => c.id.as_ref().map(|id| id.span),
            _ => None,
        };
        let parent = i.checked_sub(1).map(|p| self.stack[p]);
        if let Some(AstKind::MethodDefinition(m)) = parent {
            let class = (0..i)
                .rev()
                .find(|&k| matches!(self.stack[k], AstKind::Class(_)))
                .and_then(|k| self.name_of(k))
                .unwrap_or_default();
            if m.kind == MethodDefinitionKind::Constructor {
                return (!class.is_empty()).then_some(class);
            }
            let mut parts = class;
            parts.push(key_span(&m.key)?);
            return Some(parts);
        }
        if let Some(id) = own {
            return Some(vec![id]);
        }
        // V8 names a function through a conditional, a logical or a parenthesized
        // expression by what that is assigned to (`this.f = c ? function () {} : g`).
        let span = match self.stack[i] {
            AstKind::Function(f) => f.span,
            AstKind::ArrowFunctionExpression(a) => a.span,
            AstKind::Class(c) => c.span,
            _ => return None,
        };
        let within = |outer: Span| outer.start <= span.start && span.end <= outer.end;
        let mut p = i.checked_sub(1)?;
        while match self.stack[p] {
            AstKind::ConditionalExpression(c) => {
                within(c.consequent.span()) || within(c.alternate.span())
            }
            AstKind::LogicalExpression(l) => within(l.right.span()),
            AstKind::ParenthesizedExpression(_) => true,
            _ => false,
        } {
            p = p.checked_sub(1)?;
        }
        match self.stack[p] {
            AstKind::VariableDeclarator(d) => match &d.id {
                BindingPattern::BindingIdentifier(id) => Some(vec![id.span]),
                _ => None,
            },
            AstKind::AssignmentExpression(a) => match &a.left {
                AssignmentTarget::AssignmentTargetIdentifier(id) => Some(vec![id.span]),
                AssignmentTarget::StaticMemberExpression(m) => {
                    let mut parts = member_parts(&m.object)?;
                    parts.push(m.property.span);
                    Some(parts)
                }
                _ => None,
            },
            AstKind::ObjectProperty(p)
                if !p.computed || matches!(p.key, PropertyKey::StringLiteral(_)) =>
            {
                Some(vec![key_span(&p.key)?])
            }
            // A class field's function is named by its key, as V8 names it.
            AstKind::PropertyDefinition(p) => Some(vec![key_span(&p.key)?]),
            _ => None,
        }
    }
}

/// The identifiers of a member chain (`a.b.prototype` → `a`, `b`); `this` and `prototype` are
/// left out, as V8's inferred names leave them.
fn member_parts(e: &Expression<'_>) -> Option<Vec<Span>> {
    match e {
        Expression::Identifier(id) => Some(vec![id.span]),
        Expression::ThisExpression(_) => Some(Vec::new()),
        Expression::StaticMemberExpression(m) => {
            let mut parts = member_parts(&m.object)?;
            if m.property.name != "prototype" {
                parts.push(m.property.span);
            }
            Some(parts)
        }
        _ => None,
    }
}

/// The span of a property key's name (a string key without its quotes).
fn key_span(key: &PropertyKey<'_>) -> Option<Span> {
    match key {
        PropertyKey::StaticIdentifier(id) => Some(id.span),
        PropertyKey::PrivateIdentifier(id) => Some(id.span),
        PropertyKey::StringLiteral(s) => Some(Span::new(s.span.start + 1, s.span.end - 1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
