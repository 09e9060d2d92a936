//! A JSON reader over a stream for the few shapes big trace files hold: top-level keys,
//! arrays of integers read straight into columns, arrays of strings, and any other value
//! passed over or kept as bytes for serde. The file is never held: a CPU profile's samples
//! and a heap snapshot's nodes and edges stream from the reader into compact arrays. Readers
//! answer [`Stop::Whole`] for what they do not take, and their callers say what to do then.

use std::io::Read;

/// Why the stream stopped: a read failed, or the file needs the whole reader.
pub(crate) enum Stop {
    /// A read failed.
    Io(std::io::Error),
    /// The bytes are not what the reader takes (not JSON, or not as plainly as it wants).
    Whole,
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        Stop::Io(e)
    }
}

/// A step of a streamed read.
pub(crate) type Step<T> = Result<T, Stop>;

/// Bytes from a reader through a buffer.
pub(crate) struct Stream<R> {
    input: R,
    buf: Box<[u8]>,
    pub(crate) at: usize,
    len: usize,
    /// Bytes read before the buffer's.
    base: u64,
}

impl<R: Read> Stream<R> {
    pub(crate) fn new(input: R) -> Self {
        Self {
            input,
            buf: vec![0; 1 << 16].into_boxed_slice(),
            at: 0,
            len: 0,
            base: 0,
        }
    }

    /// The offset of the next byte from where the input began.
    pub(crate) fn position(&self) -> u64 {
        self.base + self.at as u64
    }

    /// The next byte, not taken (`None` at the end).
    #[inline]
    pub(crate) fn peek(&mut self) -> Step<Option<u8>> {
        if self.at == self.len {
            self.base += self.len as u64;
            self.len = loop {
                match self.input.read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e.into()),
                }
            };
            self.at = 0;
            if self.len == 0 {
                return Ok(None);
            }
        }
        Ok(Some(self.buf[self.at]))
    }

    /// The next byte, taken; the end of the file is a syntax error.
    #[inline]
    pub(crate) fn next(&mut self) -> Step<u8> {
        let b = self.peek()?.ok_or(Stop::Whole)?;
        self.at += 1;
        Ok(b)
    }

    /// The next byte after white space, not taken.
    #[inline]
    pub(crate) fn peek_token(&mut self) -> Step<Option<u8>> {
        if self.at < self.len {
            let b = self.buf[self.at];
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Ok(Some(b));
            }
        }
        while let Some(b) = self.peek()? {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Ok(Some(b));
            }
            self.at += 1;
        }
        Ok(None)
    }

    /// Takes `want` after white space.
    pub(crate) fn expect(&mut self, want: u8) -> Step<()> {
        self.peek_token()?;
        if self.next()? == want {
            Ok(())
        } else {
            Err(Stop::Whole)
        }
    }

    /// A string's bytes (the opening quote taken); escapes are left to the whole reader.
    pub(crate) fn key(&mut self) -> Step<Vec<u8>> {
        let mut out = Vec::new();
        loop {
            match self.next()? {
                b'"' => return Ok(out),
                b'\\' => return Err(Stop::Whole),
                b => out.push(b),
            }
        }
    }

    /// Passes over one JSON value, keeping its bytes in `keep`. Structure only: the value is
    /// checked when the kept bytes are parsed.
    pub(crate) fn value(&mut self, keep: &mut Vec<u8>) -> Step<()> {
        self.peek_token()?;
        let mut depth = 0usize;
        let mut in_string = false;
        loop {
            let b = self.next()?;
            keep.push(b);
            if in_string {
                match b {
                    b'"' => in_string = false,
                    b'\\' => keep.push(self.next()?),
                    _ => {}
                }
                if !in_string && depth == 0 {
                    return Ok(());
                }
                continue;
            }
            match b {
                b'"' => in_string = true,
                b'[' | b'{' => depth += 1,
                b']' | b'}' => {
                    depth = depth.checked_sub(1).ok_or(Stop::Whole)?;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ if depth == 0 => {
                    // A number or a literal: up to the next delimiter.
                    while let Some(c) = self.peek()? {
                        if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                            break;
                        }
                        self.at += 1;
                        keep.push(c);
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
    }

    /// A string's text (the opening quote taken), escapes decoded; a lone surrogate (V8
    /// writes them) becomes U+FFFD, as do bytes that are not UTF-8.
    pub(crate) fn string(&mut self, out: &mut String) -> Step<()> {
        let mut bytes: Vec<u8> = Vec::new();
        loop {
            match self.next()? {
                b'"' => break,
                b'\\' => {
                    let e = self.next()?;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            if (0xD800..0xDC00).contains(&hi) {
                                // A pair, if a low surrogate follows.
                                if self.peek()? == Some(b'\\') {
                                    self.at += 1;
                                    if self.next()? != b'u' {
                                        return Err(Stop::Whole);
                                    }
                                    let lo = self.hex4()?;
                                    if (0xDC00..0xE000).contains(&lo) {
                                        let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                                        char::from_u32(c).unwrap_or('\u{FFFD}')
                                    } else {
                                        let mut b = [0; 4];
                                        bytes.extend_from_slice(
                                            '\u{FFFD}'.encode_utf8(&mut b).as_bytes(),
                                        );
                                        char::from_u32(lo).unwrap_or('\u{FFFD}')
                                    }
                                } else {
                                    '\u{FFFD}'
                                }
                            } else {
                                char::from_u32(hi).unwrap_or('\u{FFFD}')
                            }
                        }
                        _ => return Err(Stop::Whole),
                    };
                    let mut b = [0; 4];
                    bytes.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                }
                b if b < 0x20 => return Err(Stop::Whole),
                b => bytes.push(b),
            }
        }
        match String::from_utf8(bytes) {
            Ok(s) => out.push_str(&s),
            Err(e) => out.push_str(&String::from_utf8_lossy(e.as_bytes())),
        }
        Ok(())
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Step<u32> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = (self.next()? as char).to_digit(16).ok_or(Stop::Whole)?;
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// An array of strings, each given to `each`.
    pub(crate) fn strings(&mut self, mut each: impl FnMut(String) -> Step<()>) -> Step<()> {
        self.array(|s| {
            s.expect(b'"')?;
            let mut text = String::new();
            s.string(&mut text)?;
            each(text)
        })
    }

    /// An array, each element read by `element` (white space before it taken).
    pub(crate) fn array(&mut self, mut element: impl FnMut(&mut Self) -> Step<()>) -> Step<()> {
        self.expect(b'[')?;
        if self.peek_token()? == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.peek_token()?;
            element(self)?;
            match self.peek_token()? {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Stop::Whole),
            }
        }
    }

    /// Reads a top-level object, giving each key (escapes decoded) to `each`, which reads its
    /// value; a key seen twice is refused. Nothing may follow the object but white space.
    pub(crate) fn object(&mut self, each: impl FnMut(&mut Self, &str) -> Step<()>) -> Step<()> {
        self.object_in(each)?;
        if self.peek_token()?.is_some() {
            return Err(Stop::Whole);
        }
        Ok(())
    }

    /// Reads an object, giving each key (escapes decoded) to `each`, which reads its value;
    /// a key seen twice is refused.
    pub(crate) fn object_in(
        &mut self,
        mut each: impl FnMut(&mut Self, &str) -> Step<()>,
    ) -> Step<()> {
        self.expect(b'{')?;
        let mut seen: Vec<String> = Vec::new();
        let mut first = true;
        loop {
            match self.peek_token()? {
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b',') if !first => self.at += 1,
                _ if first => {}
                _ => return Err(Stop::Whole),
            }
            first = false;
            self.expect(b'"')?;
            let mut key = String::new();
            self.string(&mut key)?;
            if seen.contains(&key) {
                return Err(Stop::Whole);
            }
            self.expect(b':')?;
            each(self, &key)?;
            seen.push(key);
        }
    }

    /// An integer: an optional `-` and digits, nothing else (no fraction, no exponent).
    #[inline]
    pub(crate) fn int(&mut self) -> Step<i64> {
        // Most integers lie inside the buffer: read them from it directly.
        if let Some(v) = self.int_in_buffer()? {
            return Ok(v);
        }
        self.int_slow()
    }

    /// [`Self::int`] when the buffer holds the whole number and what follows it (`None`:
    /// too near the buffer's end, or too long; nothing taken).
    #[inline]
    fn int_in_buffer(&mut self) -> Step<Option<i64>> {
        const ROOM: usize = 24;
        if self.len - self.at < ROOM {
            return Ok(None);
        }
        let b = &self.buf[self.at..self.at + ROOM];
        let negative = b[0] == b'-';
        let start = usize::from(negative);
        let mut i = start;
        if b[i] == b'0' {
            if matches!(b[i + 1], b'0'..=b'9' | b'.' | b'e' | b'E') {
                return Err(Stop::Whole);
            }
            self.at += i + 1;
            return Ok(Some(0));
        }
        let mut v: i64 = 0;
        while b[i].is_ascii_digit() {
            if i - start == 18 {
                // Past what an i64 surely holds: the careful reader decides.
                return Ok(None);
            }
            v = v * 10 + i64::from(b[i] - b'0');
            i += 1;
        }
        if i == start || matches!(b[i], b'.' | b'e' | b'E') {
            return Err(Stop::Whole);
        }
        self.at += i;
        Ok(Some(if negative { -v } else { v }))
    }

    fn int_slow(&mut self) -> Step<i64> {
        let negative = self.peek()? == Some(b'-');
        if negative {
            self.at += 1;
        }
        // JSON has no leading zeros.
        if self.peek()? == Some(b'0') {
            self.at += 1;
            if matches!(self.peek()?, Some(b'0'..=b'9' | b'.' | b'e' | b'E')) {
                return Err(Stop::Whole);
            }
            return Ok(0);
        }
        let mut v: i64 = 0;
        let mut digits = 0;
        while let Some(b) = self.peek()? {
            if !b.is_ascii_digit() {
                break;
            }
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(i64::from(b - b'0')))
                .ok_or(Stop::Whole)?;
            digits += 1;
            self.at += 1;
        }
        if digits == 0 || matches!(self.peek()?, Some(b'.' | b'e' | b'E')) {
            return Err(Stop::Whole);
        }
        Ok(if negative { -v } else { v })
    }

    /// An array of integers, each given to `each`.
    pub(crate) fn ints(&mut self, mut each: impl FnMut(i64) -> Step<()>) -> Step<()> {
        self.array(|s| each(s.int()?))
    }

    /// Passes over an array that holds no strings, arrays or objects (a heap snapshot's
    /// `nodes`): to its first `]`.
    pub(crate) fn skip_number_array(&mut self) -> Step<()> {
        self.expect(b'[')?;
        loop {
            if self.peek()?.is_none() {
                return Err(Stop::Whole);
            }
            match memchr::memchr(b']', &self.buf[self.at..self.len]) {
                Some(i) => {
                    self.at += i + 1;
                    return Ok(());
                }
                None => self.at = self.len,
            }
        }
    }

    /// An array of integers that must each fit a `u32` (anything else stops the read), each
    /// given to `each`: what [`Self::ints`] reads, refusing the same inputs, with the common
    /// element (white space, digits, white space, separator, all in the buffer) read in one
    /// step (a heap snapshot's arrays hold hundreds of millions).
    pub(crate) fn u32s(&mut self, mut each: impl FnMut(u32) -> Step<()>) -> Step<()> {
        self.expect(b'[')?;
        if self.peek_token()? == Some(b']') {
            self.at += 1;
            return Ok(());
        }
        loop {
            let (v, last) = match self.u32_in_buffer()? {
                Some(element) => element,
                None => {
                    self.peek_token()?;
                    let v = u32::try_from(self.int()?).map_err(|_| Stop::Whole)?;
                    let last = match self.peek_token()? {
                        Some(b',') => false,
                        Some(b']') => true,
                        _ => return Err(Stop::Whole),
                    };
                    self.at += 1;
                    (v, last)
                }
            };
            each(v)?;
            if last {
                return Ok(());
            }
        }
    }

    /// [`Self::u32s`]'s element when it and its separator lie in the buffer: the value and
    /// whether the array ends after it (`None`: read it the careful way; nothing taken).
    #[inline]
    fn u32_in_buffer(&mut self) -> Step<Option<(u32, bool)>> {
        const ROOM: usize = 40;
        if self.len - self.at < ROOM {
            return Ok(None);
        }
        let b = &self.buf[self.at..self.at + ROOM];
        let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
        let mut i = 0;
        while i < 8 && space(b[i]) {
            i += 1;
        }
        if !b[i].is_ascii_digit() {
            // A sign, more white space, or not a number: the careful reader decides.
            return Ok(None);
        }
        let start = i;
        let mut v: u64 = 0;
        while i - start < 11 && b[i].is_ascii_digit() {
            v = v * 10 + u64::from(b[i] - b'0');
            i += 1;
        }
        // JSON has no leading zeros, fractions or exponents here; a u32 has ten digits.
        if (b[start] == b'0' && i - start > 1) || matches!(b[i], b'.' | b'e' | b'E') {
            return Err(Stop::Whole);
        }
        let v = u32::try_from(v).map_err(|_| Stop::Whole)?;
        let digits_end = i;
        while i < digits_end + 8 && space(b[i]) {
            i += 1;
        }
        let last = match b[i] {
            b',' => false,
            b']' => true,
            _ if space(b[i]) => return Ok(None),
            _ => return Err(Stop::Whole),
        };
        self.at += i + 1;
        Ok(Some((v, last)))
    }
}

/// An array of integers read one at a time (beside another array read by [`Stream::ints`]).
pub(crate) struct Ints<R> {
    stream: Stream<R>,
    /// An element was read (a separator comes next).
    after: bool,
    done: bool,
}

impl<R: Read> Ints<R> {
    /// The array that starts at `stream`'s next token.
    pub(crate) fn new(mut stream: Stream<R>) -> Step<Self> {
        stream.expect(b'[')?;
        Ok(Self {
            stream,
            after: false,
            done: false,
        })
    }

    /// The next integer; `None` once the array has ended.
    pub(crate) fn next_int(&mut self) -> Step<Option<i64>> {
        if self.done {
            return Ok(None);
        }
        let s = &mut self.stream;
        match (s.peek_token()?, self.after) {
            (Some(b']'), _) => {
                s.at += 1;
                self.done = true;
                return Ok(None);
            }
            (Some(b','), true) => {
                s.at += 1;
                s.peek_token()?;
            }
            (_, true) => return Err(Stop::Whole),
            (_, false) => {}
        }
        self.after = true;
        s.int().map(Some)
    }
}
