//! A minimal JSON scanner for source maps: it walks the top-level object and hands out raw
//! byte ranges, so that big values (`sourcesContent`, `mappings`) are never materialised.
//!
//! Strings are skipped by jumping from `"` to `"` with memchr and counting the backslashes
//! before each quote: source text is full of `\n` escapes but has few quotes, so this moves
//! through `sourcesContent` a block at a time rather than a byte at a time.

use super::error::{Error, ErrorKind, Result};
use std::borrow::Cow;
use std::ops::Range;

/// A JSON string in the file: the byte range of its contents (without quotes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrRef {
    /// Start of the contents.
    pub start: u32,
    /// End of the contents (exclusive).
    pub end: u32,
    /// The contents hold at least one backslash escape.
    pub escaped: bool,
}

impl StrRef {
    /// The range of the contents.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The lengths of the string's lines in UTF-16 code units, read from its escaped form
    /// without decoding it (`\n`, `\r\n` and `\r` end lines, as escapes or raw bytes;
    /// `\uXXXX` is one unit, a 4-byte UTF-8 character two).
    pub fn line_lengths(self, bytes: &[u8]) -> Vec<u32> {
        /// UTF-16 units of UTF-8 bytes with no escape or line end in them.
        fn units(chunk: &[u8]) -> u32 {
            if chunk.is_ascii() {
                return chunk.len() as u32;
            }
            chunk
                .iter()
                .map(|&b| match b {
                    0x80..=0xbf => 0,
                    0xf0..=0xff => 2,
                    _ => 1,
                })
                .sum()
        }
        let mut rest = bytes.get(self.range()).unwrap_or_default();
        // Room for lines of about 32 bytes, so that a long source is not grown and copied
        // again and again.
        let mut out = Vec::with_capacity(rest.len() / 32 + 1);
        let mut len = 0u32;
        // The last thing read ended a line with `\r` (a `\n` right after it belongs to it).
        let mut after_cr = false;
        while let Some(k) = memchr::memchr3(b'\\', b'\n', b'\r', rest) {
            if k > 0 {
                len += units(&rest[..k]);
                after_cr = false;
            }
            let (unit, newline, step) = match rest[k] {
                b'\\' => match rest.get(k + 1) {
                    Some(b'n') => (0, Some(false), 2),
                    Some(b'r') => (0, Some(true), 2),
                    Some(b'u') => (1, None, 6),
                    Some(_) => (1, None, 2),
                    None => (1, None, 1),
                },
                b'\n' => (0, Some(false), 1),
                _ => (0, Some(true), 1),
            };
            match newline {
                Some(is_cr) => {
                    if !after_cr || is_cr {
                        out.push(len);
                        len = 0;
                    }
                    after_cr = is_cr;
                }
                None => {
                    len += unit;
                    after_cr = false;
                }
            }
            rest = rest.get(k + step..).unwrap_or_default();
        }
        len += units(rest);
        out.push(len);
        out
    }

    /// Decodes the string; invalid UTF-8 or escapes are replaced, never fatal.
    pub fn decode(self, bytes: &[u8]) -> Cow<'_, str> {
        let Some(raw) = bytes.get(self.range()) else {
            return Cow::Borrowed("");
        };
        if !self.escaped {
            return String::from_utf8_lossy(raw);
        }
        unescape(raw).map_or_else(|| String::from_utf8_lossy(raw), Cow::Owned)
    }

    /// Decodes the string strictly: `None` on invalid UTF-8 or a bad escape.
    pub fn decode_strict(self, bytes: &[u8]) -> Option<Cow<'_, str>> {
        let raw = bytes.get(self.range())?;
        if !self.escaped {
            return std::str::from_utf8(raw).ok().map(Cow::Borrowed);
        }
        unescape(raw).map(Cow::Owned)
    }
}

/// Decodes JSON string contents (between the quotes) with its escapes.
fn unescape(raw: &[u8]) -> Option<String> {
    let mut quoted = Vec::with_capacity(raw.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(raw);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted).ok()
}

/// Cursor over a JSON document.
pub struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    /// A scanner at byte `pos` of `bytes`.
    pub fn new(bytes: &'a [u8], pos: usize) -> Self {
        Self { bytes, pos }
    }

    /// Current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The whole document.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    fn err(&self, what: &str) -> Error {
        Error::at(ErrorKind::BadJson, self.pos).with_detail(what.to_owned())
    }

    /// Skips JSON white space.
    pub fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// The next non-space byte, without consuming it.
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos).copied()
    }

    /// Consumes `byte` (after white space) or fails.
    pub fn expect(&mut self, byte: u8) -> Result<()> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else if self.pos >= self.bytes.len() {
            Err(self.err("unexpected end of file"))
        } else {
            Err(self.err(&format!("expected `{}`", byte as char)))
        }
    }

    /// Reads a string (after white space) and returns where its contents are.
    pub fn string(&mut self) -> Result<StrRef> {
        self.expect(b'"')?;
        let start = self.pos;
        let mut escaped = false;
        let mut from = start;
        loop {
            let Some(rel) = memchr::memchr(b'"', self.bytes.get(from..).unwrap_or(&[])) else {
                self.pos = self.bytes.len();
                return Err(self.err("unterminated string"));
            };
            let q = from + rel;
            // Count the backslashes right before the quote: an odd number escapes it.
            let mut k = q;
            while k > start && self.bytes[k - 1] == b'\\' {
                k -= 1;
            }
            let slashes = q - k;
            if slashes > 0 || !escaped {
                escaped |= slashes > 0 || memchr::memchr(b'\\', &self.bytes[from..q]).is_some();
            }
            if slashes.is_multiple_of(2) {
                self.pos = q + 1;
                return Ok(StrRef {
                    start: start as u32,
                    end: q as u32,
                    escaped,
                });
            }
            from = q + 1;
        }
    }

    /// Reads a string and decodes it (keys and other short strings).
    pub fn string_value(&mut self) -> Result<String> {
        let s = self.string()?;
        s.decode_strict(self.bytes)
            .map(Cow::into_owned)
            .ok_or_else(|| {
                Error::at(ErrorKind::BadJson, s.start as usize).with_detail("invalid string")
            })
    }

    /// Reads `null`, returning whether it was there (nothing is consumed otherwise).
    pub fn null(&mut self) -> Result<bool> {
        if self.peek() != Some(b'n') {
            return Ok(false);
        }
        if self.bytes.get(self.pos..self.pos + 4) == Some(b"null") {
            self.pos += 4;
            Ok(true)
        } else {
            Err(self.err("invalid literal"))
        }
    }

    /// Reads a number and returns it as `f64`.
    pub fn number(&mut self) -> Result<f64> {
        self.skip_ws();
        let start = self.pos;
        while let Some(&b) = self.bytes.get(self.pos) {
            if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.pos += 1;
            } else {
                break;
            }
        }
        std::str::from_utf8(&self.bytes[start..self.pos])
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or_else(|| Error::at(ErrorKind::BadJson, start).with_detail("invalid number"))
    }

    /// Skips any value and returns its byte range.
    pub fn skip_value(&mut self) -> Result<Range<usize>> {
        self.skip_ws();
        let start = self.pos;
        match self.bytes.get(self.pos) {
            None => return Err(self.err("unexpected end of file")),
            Some(b'"') => {
                self.string()?;
            }
            Some(b'{' | b'[') => self.skip_container()?,
            Some(b't') => self.literal(b"true")?,
            Some(b'f') => self.literal(b"false")?,
            Some(b'n') => self.literal(b"null")?,
            Some(b) if b.is_ascii_digit() || *b == b'-' => {
                self.number()?;
            }
            Some(_) => return Err(self.err("unexpected character")),
        }
        Ok(start..self.pos)
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        if self.bytes.get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn skip_container(&mut self) -> Result<()> {
        // Bracket matching; strings are skipped with memchr, the rest between them is short.
        let mut stack: Vec<u8> = Vec::new();
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'"' => {
                    self.string()?;
                }
                b'[' | b'{' => {
                    stack.push(if b == b'[' { b']' } else { b'}' });
                    self.pos += 1;
                }
                b']' | b'}' => {
                    if stack.pop() != Some(b) {
                        return Err(self.err("mismatched bracket"));
                    }
                    self.pos += 1;
                    if stack.is_empty() {
                        return Ok(());
                    }
                }
                _ => self.pos += 1,
            }
        }
        Err(self.err("unexpected end of file"))
    }

    /// Iterates an array: calls `item` once per element (positioned at the element).
    pub fn array(&mut self, mut item: impl FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.expect(b'[')?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected `,` or `]` in array")),
            }
        }
    }

    /// Iterates an object: calls `member` with each key (positioned at the value).
    pub fn object(&mut self, mut member: impl FnMut(&mut Self, &str) -> Result<()>) -> Result<()> {
        self.expect(b'{')?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            let key = self.string_value()?;
            self.expect(b':')?;
            member(self, &key)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected `,` or `}` in object")),
            }
        }
    }

    /// Reads an array of strings-or-null.
    pub fn string_array(&mut self) -> Result<Vec<Option<StrRef>>> {
        let mut out = Vec::new();
        self.array(|s| {
            if s.null()? {
                out.push(None);
            } else {
                out.push(Some(s.string()?));
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Reads an array of non-negative integers.
    pub fn u32_array(&mut self) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        self.array(|s| {
            let at = s.pos();
            let n = s.number()?;
            if n < 0.0 || n > f64::from(u32::MAX) || n.fract() != 0.0 {
                return Err(Error::at(ErrorKind::BadJson, at)
                    .with_detail("expected a non-negative integer"));
            }
            out.push(n as u32);
            Ok(())
        })?;
        Ok(out)
    }

    /// Fails unless only white space is left.
    pub fn end(&mut self) -> Result<()> {
        if self.peek().is_some() {
            Err(self.err("trailing characters after the JSON value"))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_with_escaped_quotes() {
        let doc = br#"["a\"b\\", "c\\\"d", "plain", null]"#;
        let mut s = Scanner::new(doc, 0);
        let v = s.string_array().unwrap();
        assert_eq!(v[0].unwrap().decode(doc), "a\"b\\");
        assert_eq!(v[1].unwrap().decode(doc), "c\\\"d");
        assert!(!v[2].unwrap().escaped);
        assert_eq!(v[3], None);
    }

    #[test]
    fn skips_nested_values() {
        let doc = br#"{"a": [1, {"b": "]}"}, [[]]], "c": true}"#;
        let mut keys = Vec::new();
        Scanner::new(doc, 0)
            .object(|s, k| {
                keys.push(k.to_owned());
                s.skip_value().map(|_| ())
            })
            .unwrap();
        assert_eq!(keys, ["a", "c"]);
    }

    #[test]
    fn truncation_is_an_error() {
        for doc in [
            &br#"{"a": [1, 2"#[..],
            br#"{"a": "xx"#,
            br#"{"a""#,
            b"{",
            b"",
        ] {
            let r = Scanner::new(doc, 0).object(|s, _| s.skip_value().map(|_| ()));
            assert_eq!(
                r.unwrap_err().kind,
                ErrorKind::BadJson,
                "{:?}",
                String::from_utf8_lossy(doc)
            );
        }
    }
}
