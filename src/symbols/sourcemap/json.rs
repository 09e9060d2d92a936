//! A minimal JSON scanner for source maps: it walks the top-level object and hands out raw
//! byte ranges, so that big values (`sourcesContent`, `mappings`) are never materialised.
//!
//! Strings are skipped by jumping from `"` to `"` with memchr and counting the backslashes
//! before each quote: source text is full of `\n` escapes but has few quotes, so this moves
//! through `sourcesContent` a block at a time rather than a byte at a time. Up to its first
//! backslash a string is searched for both bytes at once, so that one without escapes (most
//! `mappings`) is read once and known to need no decoding.

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
    ///
    /// Eight bytes at a time: a word with no backslash, line end or non-ASCII byte is eight
    /// units (source text escapes a tab or a line end every dozen bytes or so, too often for
    /// a search per escape to pay off).
    pub fn line_lengths(self, bytes: &[u8]) -> Vec<u32> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        /// High bit set in the bytes equal to `b` (the lowest one exact; a byte above a
        /// match may be flagged too, which the caller never looks past).
        fn equal(x: u64, b: u8) -> u64 {
            let y = x ^ (ONES * u64::from(b));
            y.wrapping_sub(ONES) & !y & HIGH
        }
        let s = bytes.get(self.range()).unwrap_or_default();
        // Room for lines of about 32 bytes, so that a long source is not grown and copied
        // again and again.
        let mut out = Vec::with_capacity(s.len() / 32 + 1);
        let mut len = 0u32;
        // The last thing read ended a line with `\r` (a `\n` right after it belongs to it).
        let mut after_cr = false;
        let mut i = 0;
        while i < s.len() {
            // Line ends and the tabs that indent the next line come in runs of escapes.
            loop {
                match s.get(i..i + 2) {
                    Some(b"\\t") => {
                        len += 1;
                        after_cr = false;
                    }
                    Some(b"\\n") => {
                        if !after_cr {
                            out.push(len);
                            len = 0;
                        }
                        after_cr = false;
                    }
                    Some(b"\\r") => {
                        out.push(len);
                        len = 0;
                        after_cr = true;
                    }
                    _ => break,
                }
                i += 2;
            }
            if i == s.len() {
                break;
            }
            if let Some(word) = s.get(i..i + 8) {
                let x = u64::from_le_bytes(word.try_into().unwrap_or_default());
                let special = equal(x, b'\\') | equal(x, b'\n') | equal(x, b'\r') | (x & HIGH);
                let k = special.trailing_zeros() / 8;
                if k > 0 {
                    len += k;
                    after_cr = false;
                    i += k as usize;
                }
                if special == 0 {
                    continue;
                }
            }
            // `s[i]` is an escape, a line end, a non-ASCII byte, or one of the last seven.
            let (unit, newline, step) = match s[i] {
                b'\\' => match s.get(i + 1) {
                    Some(b'n') => (0, Some(false), 2),
                    Some(b'r') => (0, Some(true), 2),
                    Some(b'u') => (1, None, 6),
                    Some(_) => (1, None, 2),
                    None => (1, None, 1),
                },
                b'\n' => (0, Some(false), 1),
                b'\r' => (0, Some(true), 1),
                // UTF-8: a continuation byte adds nothing, a 4-byte character two units.
                0x80..=0xbf => (0, None, 1),
                0xf0..=0xff => (2, None, 1),
                _ => (1, None, 1),
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
            i += step;
        }
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
        unescape(raw).map_or_else(|| Cow::Owned(unescape_lenient(raw)), Cow::Owned)
    }

    /// Decodes the string strictly: `None` on invalid UTF-8 or a bad escape.
    pub fn decode_strict(self, bytes: &[u8]) -> Option<Cow<'_, str>> {
        let raw = bytes.get(self.range())?;
        if !self.escaped {
            return std::str::from_utf8(raw).ok().map(Cow::Borrowed);
        }
        unescape(raw).map(Cow::Owned)
    }

    /// [`Self::decode_strict`]'s bytes, for `mappings`: a string whose only escapes are `\/`
    /// (hermesc's) and whose bytes are all ASCII from the space up, as any valid `mappings`,
    /// is copied and checked in one pass, without building a `str` (the UTF-8 check was a
    /// pass of its own); any other is decoded by `decode_strict`.
    pub fn decode_strict_bytes(self, bytes: &[u8]) -> Option<Vec<u8>> {
        let raw = bytes.get(self.range())?;
        if self.escaped
            && let Some(out) = copy_slashes(raw)
        {
            // The smallest and largest byte (computed in vector registers).
            let (lo, hi) = out
                .iter()
                .fold((u8::MAX, 0), |(lo, hi), &b| (lo.min(b), hi.max(b)));
            if lo >= 0x20 && hi < 0x80 {
                return Some(out);
            }
        }
        self.decode_strict(bytes)
            .map(|s| s.into_owned().into_bytes())
    }
}

/// Decodes JSON string contents (between the quotes) with its escapes.
fn unescape(raw: &[u8]) -> Option<String> {
    if let Some(plain) = unescape_slashes(raw) {
        return plain;
    }
    let mut quoted = Vec::with_capacity(raw.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(raw);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted).ok()
}

/// Decodes string contents that are not valid JSON (raw control characters, bad escapes or
/// UTF-8) as [`StrRef::line_lengths`] reads them: valid escapes decoded, raw control
/// characters kept, each bad escape, lone surrogate or bad UTF-8 sequence a U+FFFD.
fn unescape_lenient(raw: &[u8]) -> String {
    let mut units: Vec<u16> = Vec::with_capacity(raw.len());
    let mut from = 0;
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'\\', &raw[i..]).map(|k| i + k) {
        units.extend(String::from_utf8_lossy(&raw[from..at]).encode_utf16());
        let (unit, step) = match raw.get(at + 1) {
            Some(b'n') => (u16::from(b'\n'), 2),
            Some(b'r') => (u16::from(b'\r'), 2),
            Some(b't') => (u16::from(b'\t'), 2),
            Some(b'b') => (0x08, 2),
            Some(b'f') => (0x0c, 2),
            Some(&c @ (b'"' | b'\\' | b'/')) => (u16::from(c), 2),
            Some(b'u') => {
                let hex = raw
                    .get(at + 2..at + 6)
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit));
                let hex = hex.and_then(|h| std::str::from_utf8(h).ok());
                let unit = hex.and_then(|h| u16::from_str_radix(h, 16).ok());
                (unit.unwrap_or(0xfffd), 6)
            }
            Some(_) => (0xfffd, 2),
            None => (0xfffd, 1),
        };
        units.push(unit);
        i = (at + step).min(raw.len());
        from = i;
    }
    units.extend(String::from_utf8_lossy(&raw[from..]).encode_utf16());
    String::from_utf16_lossy(&units)
}

/// [`unescape`] for a string whose only escapes are `\/` (hermesc writes every `/` of
/// `mappings` so): the runs between them copied, not parsed. `None` when it has another
/// escape; `Some(None)` when it is not a valid JSON string.
fn unescape_slashes(raw: &[u8]) -> Option<Option<String>> {
    let out = copy_slashes(raw)?;
    // A control character must be escaped in JSON. (The smallest byte, not `any`: a minimum
    // is computed in vector registers, an early-exit search a byte at a time.)
    if out.iter().copied().min().is_some_and(|b| b < 0x20) {
        return Some(None);
    }
    Some(String::from_utf8(out).ok())
}

/// String contents whose only escapes are `\/`, with each copied as `/` (the runs between
/// them copied whole); `None` when there is another escape.
fn copy_slashes(raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len());
    let mut from = 0;
    for at in memchr::memchr_iter(b'\\', raw) {
        if raw.get(at + 1) != Some(&b'/') {
            return None;
        }
        out.extend_from_slice(&raw[from..at]);
        out.push(b'/');
        from = at + 2;
    }
    out.extend_from_slice(&raw[from..]);
    Some(out)
}

/// The closing quote of a string whose first backslash is at `from` (no quote before it):
/// the first quote after `from` that an odd run of backslashes does not escape.
///
/// On x86-64, 64 bytes at a time: SSE2 compares give a mask of the block's quotes, and each
/// is checked in turn ([`escaped_at`]). A search stopping at each quote (memchr) began a new
/// search after every `\"` of a `sourcesContent` written in JavaScript.
#[cfg(target_arch = "x86_64")]
fn escaped_string_end(bytes: &[u8], from: usize) -> Option<usize> {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
    let quote = safe_arch::set_splat_i8_m128i(b'"' as i8);
    let quotes = |block: &[u8; 64]| {
        let eq = |k: usize| {
            let part: &[u8; 16] = block[16 * k..16 * k + 16].try_into().unwrap_or(&[0; 16]);
            cmp_eq_mask_i8_m128i(load_unaligned_m128i(part), quote)
        };
        let (e0, e1, e2, e3) = (eq(0), eq(1), eq(2), eq(3));
        // Most blocks have no quote: one mask for the four tells.
        let any = bitor_m128i(bitor_m128i(e0, e1), bitor_m128i(e2, e3));
        if move_mask_i8_m128i(any) == 0 {
            return 0;
        }
        let bits = |e| u64::from(move_mask_i8_m128i(e) as u16);
        bits(e0) | (bits(e1) << 16) | (bits(e2) << 32) | (bits(e3) << 48)
    };
    let mut at = from;
    loop {
        let rest = bytes.get(at..).unwrap_or(&[]);
        let mut q = match rest.first_chunk::<64>() {
            Some(block) => quotes(block),
            None => {
                // The last bytes, padded with zeros.
                let mut block = [0u8; 64];
                block[..rest.len()].copy_from_slice(rest);
                quotes(&block)
            }
        };
        while q != 0 {
            let end = at + q.trailing_zeros() as usize;
            if !escaped_at(bytes, from, end) {
                return Some(end);
            }
            q &= q - 1;
        }
        if rest.len() <= 64 {
            return None;
        }
        at += 64;
    }
}

/// The first quote or backslash from `from`. On x86-64 the first 16 bytes are looked at
/// with one SSE2 compare first: most strings of a map but `mappings` and `sourcesContent`
/// (keys, names, sources) end there, and memchr's set-up cost more than its search.
#[cfg(target_arch = "x86_64")]
fn quote_or_backslash(bytes: &[u8], from: usize) -> Option<usize> {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    let rest = bytes.get(from..)?;
    let Some(head) = rest.first_chunk::<16>() else {
        return memchr::memchr2(b'"', b'\\', rest).map(|k| from + k);
    };
    let v = load_unaligned_m128i(head);
    let either = bitor_m128i(
        cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'"' as i8)),
        cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'\\' as i8)),
    );
    let mask = move_mask_i8_m128i(either);
    if mask != 0 {
        return Some(from + mask.trailing_zeros() as usize);
    }
    memchr::memchr2(b'"', b'\\', &rest[16..]).map(|k| from + 16 + k)
}

/// [`quote_or_backslash`] elsewhere: memchr2.
#[cfg(not(target_arch = "x86_64"))]
fn quote_or_backslash(bytes: &[u8], from: usize) -> Option<usize> {
    memchr::memchr2(b'"', b'\\', bytes.get(from..)?).map(|k| from + k)
}

/// [`escaped_string_end`] elsewhere: memchr stops at each quote.
#[cfg(not(target_arch = "x86_64"))]
fn escaped_string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let q = at + memchr::memchr(b'"', bytes.get(at..)?)?;
        if !escaped_at(bytes, from, q) {
            return Some(q);
        }
        at = q + 1;
    }
}

/// Whether the byte at `at` is escaped: an odd run of backslashes right before it, back to
/// `from` at most (where a string's first backslash is).
fn escaped_at(bytes: &[u8], from: usize, at: usize) -> bool {
    let mut k = at;
    while k > from && bytes[k - 1] == b'\\' {
        k -= 1;
    }
    !(at - k).is_multiple_of(2)
}

/// The bytes [`Scanner::skip_value`] stops at inside a container: `"`, brackets and braces.
static BRACKET_OR_QUOTE: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t
};

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
    #[inline]
    pub fn skip_ws(&mut self) {
        // Most tokens of a map follow the one before with no white space between.
        if self
            .bytes
            .get(self.pos)
            .is_none_or(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
        {
            return;
        }
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
        self.string_body()
    }

    /// [`Self::string`] after its opening quote.
    #[inline(always)]
    fn string_body(&mut self) -> Result<StrRef> {
        let start = self.pos;
        // Until the first backslash, one pass finds either it or the closing quote (a string
        // without escapes, such as most `mappings`, is read once, not once per byte sought).
        let Some(first) = quote_or_backslash(self.bytes, start) else {
            self.pos = self.bytes.len();
            return Err(self.err("unterminated string"));
        };
        if self.bytes[first] == b'"' {
            self.pos = first + 1;
            return Ok(StrRef {
                start: start as u32,
                end: first as u32,
                escaped: false,
            });
        }
        let Some(q) = escaped_string_end(self.bytes, first) else {
            self.pos = self.bytes.len();
            return Err(self.err("unterminated string"));
        };
        self.pos = q + 1;
        Ok(StrRef {
            start: start as u32,
            end: q as u32,
            escaped: true,
        })
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
                // Numbers, literals, commas and space: skipped to the next byte that matters,
                // in a loop of one table look-up a byte (the match above costs more).
                _ => {
                    self.pos += self.bytes[self.pos..]
                        .iter()
                        .position(|&b| BRACKET_OR_QUOTE[b as usize])
                        .unwrap_or(self.bytes.len() - self.pos);
                }
            }
        }
        Err(self.err("unexpected end of file"))
    }

    /// Iterates an array: calls `item` once per element (positioned at the element).
    #[inline(always)]
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
            // Most items (`names` has thousands): a string right after the `[` or `,`.
            if s.bytes.get(s.pos) == Some(&b'"') {
                s.pos += 1;
                out.push(Some(s.string_body()?));
            } else if s.null()? {
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

    /// Strings whose only escapes are `\/` are copied, every other one parsed by serde_json:
    /// both decode as serde_json does, invalid strings included, as text and as `mappings`'
    /// bytes.
    #[test]
    fn slash_escapes_decode_as_serde_json_does() {
        let cases: [&[u8]; 15] = [
            b"",
            b"\\/\x7f",
            b"\\/\x80",
            br"AAAA,IAA\/D",
            br"\/\/\/",
            br"a\/",
            br"\/a",
            br"x\\/y",
            br"\n\/",
            br"\/\u0041",
            b"\\/\x01",
            b"\\/\x1f",
            b"\\/ ",
            b"\\/\xff",
            "\\/é".as_bytes(),
        ];
        for raw in cases {
            let mut quoted = vec![b'"'];
            quoted.extend_from_slice(raw);
            quoted.push(b'"');
            let theirs = serde_json::from_slice::<String>(&quoted).ok();
            assert_eq!(unescape(raw), theirs, "{:?}", String::from_utf8_lossy(raw));
            let whole = StrRef {
                start: 1,
                end: quoted.len() as u32 - 1,
                escaped: true,
            };
            assert_eq!(
                whole.decode_strict_bytes(&quoted),
                theirs.map(String::into_bytes),
                "{:?}",
                String::from_utf8_lossy(raw)
            );
        }
        assert!(unescape_slashes(br"\/\/").is_some());
        assert!(unescape_slashes(br"\n").is_none());
    }

    use super::*;

    /// Arrays of strings and nulls with white space (or none) around every item, and broken
    /// ones (a missing or doubled comma, a number, no `]`): read as serde_json reads them,
    /// refused where it refuses them.
    #[test]
    fn string_arrays_with_white_space_anywhere_read_as_serde_json_does() {
        let items = ["\"a\"", "null", "\"\"", "\"b\\\"c\"", "\"longer name\""];
        let spaces = ["", " ", "\n\t", "\r\n  "];
        let mut checked = (0, 0);
        for n in 0..4usize {
            for seed in 0..200usize {
                let pick = |k: usize| (seed * 31 + k * 7) % 97;
                let mut doc = format!("{}[", spaces[pick(100) % 4]);
                for k in 0..n {
                    if k > 0 {
                        doc.push_str(spaces[pick(k + 50) % 4]);
                        doc.push_str(match pick(k + 70) % 23 {
                            0 => "",
                            1 => ",,",
                            2 => ", 7,",
                            _ => ",",
                        });
                    }
                    doc.push_str(spaces[pick(k) % 4]);
                    doc.push_str(items[pick(k + 20) % items.len()]);
                }
                doc.push_str(spaces[pick(101) % 4]);
                if pick(102) % 19 != 0 {
                    doc.push(']');
                }
                let theirs: std::result::Result<Vec<Option<String>>, _> =
                    serde_json::from_str(&doc);
                let ours = Scanner::new(doc.as_bytes(), 0).string_array();
                match (ours, theirs) {
                    (Ok(ours), Ok(theirs)) => {
                        let ours: Vec<Option<String>> = ours
                            .iter()
                            .map(|s| s.map(|s| s.decode(doc.as_bytes()).into_owned()))
                            .collect();
                        assert_eq!(ours, theirs, "{doc:?}");
                        checked.0 += 1;
                    }
                    (Err(_), Err(_)) => checked.1 += 1,
                    (ours, theirs) => panic!("{doc:?}: ours {ours:?}, serde_json {theirs:?}"),
                }
            }
        }
        assert!(checked.0 > 300 && checked.1 > 50, "{checked:?}");
    }

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

    /// Short strings of every length (up to 51 characters), with an escaped quote, backslash
    /// or line end (or none) at every position, read as serde_json reads them: in an array,
    /// and each alone at the very end of the input.
    #[test]
    fn strings_of_every_length_end_where_serde_json_says() {
        let mut items = Vec::new();
        for len in 0..52 {
            items.push("x".repeat(len));
            for at in 0..=len {
                for escape in ["\\\"", "\\\\", "\\n"] {
                    let mut item = "x".repeat(len);
                    item.insert_str(at, escape);
                    items.push(item);
                }
            }
        }
        let doc = format!(
            "[{}]",
            items
                .iter()
                .map(|i| format!("\"{i}\""))
                .collect::<Vec<_>>()
                .join(",")
        );
        let theirs: Vec<String> = serde_json::from_str(&doc).unwrap();
        let ours = Scanner::new(doc.as_bytes(), 0).string_array().unwrap();
        assert_eq!(ours.len(), theirs.len());
        for (ours, theirs) in ours.iter().zip(&theirs) {
            assert_eq!(ours.unwrap().decode(doc.as_bytes()), *theirs);
        }
        for item in &items {
            let alone = format!("\"{item}\"");
            let theirs: String = serde_json::from_str(&alone).unwrap();
            let ours = Scanner::new(alone.as_bytes(), 0).string().unwrap();
            assert_eq!(ours.decode(alone.as_bytes()), theirs, "{alone}");
            assert_eq!(ours.end as usize, alone.len() - 1);
        }
    }

    /// Long strings of escapes and runs of backslashes (escaped quotes and backslashes in
    /// runs that cross the 64-byte blocks of the search for a string's end), and strings left
    /// open by an odd run before the last quote: read as serde_json reads them.
    #[test]
    fn strings_with_backslash_runs_across_blocks_end_where_serde_json_says() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let tokens = ["a", "\\\\", "\\\"", "\\n", "\\/", "é"];
        for case in 0..20_000 {
            let mut item = String::new();
            let len = next(300);
            while (item.len() as u64) < len {
                // Runs of one token, so that long runs of backslashes are common.
                let token = tokens[next(tokens.len() as u64) as usize];
                for _ in 0..=next(6) {
                    item.push_str(token);
                }
            }
            let open = case % 3 == 0;
            let doc = if open {
                // Left open: the last quote escaped by an odd run.
                format!("\"{item}\\\"")
            } else {
                format!("\"{item}\",\"\\\"\"]")
            };
            let theirs = serde_json::Deserializer::from_str(&doc)
                .into_iter::<String>()
                .next()
                .and_then(|r| r.ok());
            let ours = Scanner::new(doc.as_bytes(), 0).string().ok();
            match (ours, theirs) {
                (Some(ours), Some(theirs)) => {
                    assert_eq!(ours.decode(doc.as_bytes()), theirs, "{doc}");
                    assert_eq!(ours.end as usize, item.len() + 1, "{doc}");
                    assert_eq!(ours.escaped, item.contains('\\'), "{doc}");
                }
                (None, None) => assert!(open, "{doc}"),
                (ours, theirs) => panic!("{doc}: ours {ours:?}, serde_json {theirs:?}"),
            }
        }
    }

    /// Line lengths read from the escaped form equal those of the decoded text, for escapes,
    /// `\r\n` pairs across word boundaries, multi-byte characters and strings of every
    /// length around a word; raw line ends (not valid JSON, read as line ends all the same)
    /// give what their escapes give, and raw control characters decode to the text their
    /// escapes decode to.
    #[test]
    fn line_lengths_equal_the_decoded_texts() {
        let pieces = [
            "a",
            "\\n",
            "\\r",
            "\\r\\n",
            "\\t",
            "\\\\",
            "\\\"",
            "\\u00e9",
            "\\ud83d\\ude00",
            "é",
            "😀",
            "abcdefgh",
            "x\\ty",
            "\\u0000",
            "\\u001f",
        ];
        let mut seed = 0x2026_1125_u64;
        for n in 0..3_000 {
            let mut text = String::new();
            for _ in 0..n % 24 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                text.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            let doc = format!("[\"{text}\"]");
            let v = Scanner::new(doc.as_bytes(), 0).string_array().unwrap();
            let r = v[0].unwrap();
            let decoded = r.decode(doc.as_bytes());
            let expected: Vec<u32> = decoded
                .replace("\r\n", "\n")
                .replace('\r', "\n")
                .split('\n')
                .map(|l| l.encode_utf16().count() as u32)
                .collect();
            assert_eq!(r.line_lengths(doc.as_bytes()), expected, "{text:?}");
            // The same with raw control characters (not valid JSON): decoded leniently, to
            // the same text.
            let raw = doc
                .replace("\\r", "\r")
                .replace("\\n", "\n")
                .replace("\\t", "\t")
                .replace("\\u0000", "\0")
                .replace("\\u001f", "\u{1f}");
            let v = Scanner::new(raw.as_bytes(), 0).string_array().unwrap();
            let r = v[0].unwrap();
            assert_eq!(r.line_lengths(raw.as_bytes()), expected, "{raw:?}");
            assert_eq!(r.decode(raw.as_bytes()), decoded, "{raw:?}");
            // Raw control characters among escapes: the escapes decoded all the same.
            let mixed = doc.replace("\\u0000", "\0").replace("\\u001f", "\u{1f}");
            let v = Scanner::new(mixed.as_bytes(), 0).string_array().unwrap();
            assert_eq!(v[0].unwrap().decode(mixed.as_bytes()), decoded, "{mixed:?}");
        }
    }

    #[test]
    fn skips_nested_values() {
        // The keys of an object whose values are skipped.
        let keys_of = |doc: &[u8]| {
            let mut keys = Vec::new();
            Scanner::new(doc, 0)
                .object(|s, k| {
                    keys.push(k.to_owned());
                    s.skip_value().map(|_| ())
                })
                .unwrap();
            keys
        };
        assert_eq!(
            keys_of(br#"{"a": [1, {"b": "]}"}, [[]]], "c": true}"#),
            ["a", "c"]
        );
        // Numbers and literals right before a closing bracket or brace (the skip between the
        // bytes that matter), as Hermes maps' `x_hermes_function_offsets` has them; the keys
        // as serde_json reads the document (its map is sorted: the keys are in order).
        let doc = br#"{"a": [1, {"b": "]}", "n": 2}, [[3]], -4.5e1], "c": true, "d": {"e": [0, 1, 2], "f": null}, "g": [false]}"#;
        let theirs: serde_json::Value = serde_json::from_slice(doc).unwrap();
        let theirs: Vec<&String> = theirs.as_object().unwrap().keys().collect();
        assert_eq!(keys_of(doc).iter().collect::<Vec<_>>(), theirs);
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
