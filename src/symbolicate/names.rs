//! Reading a callee's name from the original source text at a call site.

use crate::model::utf16_col_to_byte;

/// A character of a JavaScript identifier.
pub(super) fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The callee of the call expression at UTF-16 column `col16` of `line`:
/// `this.expandByObject( x )` → `expandByObject`, `new Foo()` → `Foo`, `a?.b.c(` → `c`.
///
/// The position may be at the start of the chain or at any identifier in it. `None` when the
/// text there is not a plain (possibly dotted) call.
pub fn callee_at(line: &str, col16: u32) -> Option<String> {
    let mut start = utf16_col_to_byte(line, col16)?;
    // Back up to the start of the identifier the position falls in.
    while let Some(prev) = line[..start].chars().next_back()
        && is_ident(prev)
    {
        start -= prev.len_utf8();
    }
    let mut rest = &line[start..];
    if let Some(after_new) = rest.strip_prefix("new ") {
        rest = after_new.trim_start();
    }
    let name = loop {
        let len: usize = rest
            .chars()
            .take_while(|&c| is_ident(c))
            .map(char::len_utf8)
            .sum();
        if len == 0 || rest.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let ident = &rest[..len];
        rest = rest[len..].trim_start();
        if let Some(r) = rest.strip_prefix("?.").filter(|r| !r.starts_with('(')) {
            rest = r.trim_start();
        } else if let Some(r) = rest.strip_prefix('.') {
            rest = r.trim_start();
        } else {
            break ident;
        }
    };
    let rest = rest.strip_prefix("?.").unwrap_or(rest);
    (rest.starts_with('(')
        && !matches!(
            name,
            "this" | "super" | "function" | "if" | "for" | "while" | "switch" | "return"
        ))
    .then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callees() {
        let line = "\t\treturn this.expandByObject( object, precise );";
        assert_eq!(callee_at(line, 14).as_deref(), Some("expandByObject"));
        assert_eq!(callee_at(line, 9).as_deref(), Some("expandByObject"));
        assert_eq!(
            callee_at(line, 16).as_deref(),
            Some("expandByObject"),
            "inside the name"
        );
        assert_eq!(callee_at("x = new Foo(1)", 4).as_deref(), Some("Foo"));
        assert_eq!(callee_at("a?.b.c(1)", 0).as_deref(), Some("c"));
        assert_eq!(callee_at("f ()", 0).as_deref(), Some("f"));
        assert_eq!(callee_at("a[b](1)", 0), None);
        assert_eq!(callee_at("x = y + 1", 0), None);
        assert_eq!(callee_at("super(x)", 0), None);
        assert_eq!(callee_at("short", 99), None);
    }
}
