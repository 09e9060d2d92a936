//! Source text with its line starts computed once, and UTF-16 column conversion.

/// A text with cached line-start offsets (computed once, so showing line N is O(1)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceText {
    text: String,
    line_starts: Vec<u32>,
}

impl SourceText {
    /// Indexes the line starts of `text` (`\n`, `\r\n`, and lone `\r` end a line).
    pub fn new(text: String) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0u32];
        let mut i = 0;
        while let Some(rel) = memchr::memchr2(b'\n', b'\r', &bytes[i..]) {
            let at = i + rel;
            let next = if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                at + 2
            } else {
                at + 1
            };
            line_starts.push(next as u32);
            i = next;
        }
        Self { text, line_starts }
    }

    /// The whole text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Number of lines.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Line `n` (0-based) without its line break.
    pub fn line(&self, n: usize) -> Option<&str> {
        let start = *self.line_starts.get(n)? as usize;
        let end = self
            .line_starts
            .get(n + 1)
            .map_or(self.text.len(), |&e| e as usize);
        let line = self.text.get(start..end)?;
        Some(line.trim_end_matches(['\n', '\r']))
    }
}

/// The byte offset in `line` of UTF-16 column `col16` (source-map columns count UTF-16 code
/// units). `None` past the end of the line; a column inside a surrogate pair rounds down.
pub fn utf16_col_to_byte(line: &str, col16: u32) -> Option<usize> {
    Utf16Cursor::default().seek_col(line, col16)
}

/// A place in one line as a byte offset and its UTF-16 column, moved on by column or by
/// byte: the one walk between the two that every column in Symscope takes (source-map
/// columns count UTF-16 code units, Rust strings bytes). Moving on from where it stands,
/// a run of look-ups along a megabyte minified line walks it once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Utf16Cursor {
    /// The byte offset (a character boundary).
    pub byte: usize,
    /// Its UTF-16 column.
    pub col: u32,
}

impl Utf16Cursor {
    /// Moves to UTF-16 column `col` and answers its byte offset, as [`utf16_col_to_byte`]
    /// does; a column before the cursor answers the cursor's byte and does not move it.
    /// `None` past the end of the line (the cursor is then left at the end).
    pub fn seek_col(&mut self, line: &str, col: u32) -> Option<usize> {
        if col < self.col {
            return Some(self.byte);
        }
        let bytes = line.as_bytes();
        let (mut start, mut units) = (self.byte, self.col);
        let ascii_run = (col - units) as usize;
        if bytes
            .get(start..start + ascii_run)
            .is_some_and(<[u8]>::is_ascii)
        {
            *self = Self {
                byte: start + ascii_run,
                col,
            };
            return Some(self.byte);
        }
        // Whole chunks before the column are counted, not walked.
        while let Some(chunk) = bytes.get(start..start + 64) {
            let n = utf16_len(chunk) as u32;
            if units + n > col {
                break;
            }
            units += n;
            start += 64;
            // The chunk's last character may run on: its units are counted at its first byte.
            while bytes.get(start).is_some_and(|b| b & 0xC0 == 0x80) {
                start += 1;
            }
        }
        for (byte, ch) in line.get(start..)?.char_indices() {
            let w = ch.len_utf16() as u32;
            if units + w > col {
                *self = Self {
                    byte: start + byte,
                    col: units,
                };
                return Some(self.byte);
            }
            units += w;
        }
        *self = Self {
            byte: line.len(),
            col: units,
        };
        (units == col).then_some(line.len())
    }

    /// Moves to byte offset `at` (a character boundary at or after the cursor; clamped to
    /// the line) and answers its UTF-16 column.
    pub fn seek_byte(&mut self, line: &str, at: usize) -> u32 {
        let at = at.min(line.len()).max(self.byte);
        self.col += utf16_len(&line.as_bytes()[self.byte..at]) as u32;
        self.byte = at;
        self.col
    }

    /// The byte offsets of UTF-16 columns `from_col` and `to_col` in `line` (from the
    /// cursor on): the stretch of the line between them, whole characters (a surrogate pair
    /// cut by `to_col` is kept whole), each end clamped to the line's end.
    pub fn span(&mut self, line: &str, from_col: u32, to_col: u32) -> (usize, usize) {
        let start = self.seek_col(line, from_col).unwrap_or(line.len());
        let mut end = self.seek_col(line, to_col).unwrap_or(line.len());
        if self.col < to_col
            && let Some(ch) = line.get(end..).and_then(|rest| rest.chars().next())
        {
            end += ch.len_utf8();
        }
        (start, end.max(start))
    }
}

/// The number of UTF-16 code units of UTF-8 `bytes` that start on a character boundary: one
/// per character, two for a character outside the BMP (a 4-byte sequence).
pub fn utf16_len(bytes: &[u8]) -> usize {
    // Byte-wide sums over short chunks, so the loop runs on whole vectors.
    bytes
        .chunks(127)
        .map(|chunk| {
            let units = chunk.iter().fold(0u8, |n, &b| {
                n + u8::from(b & 0xC0 != 0x80) + u8::from(b >= 0xF0)
            });
            usize::from(units)
        })
        .sum()
}

/// [`utf16_len`] of bytes that may not be UTF-8: a bad sequence counts as the one
/// replacement character it decodes to.
pub fn utf16_len_lossy(bytes: &[u8]) -> usize {
    if bytes.is_ascii() {
        return bytes.len();
    }
    if std::str::from_utf8(bytes).is_ok() {
        return utf16_len(bytes);
    }
    String::from_utf8_lossy(bytes)
        .chars()
        .map(char::len_utf16)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let t = SourceText::new("a\nbc\r\nd\re".to_owned());
        assert_eq!(t.line_count(), 4);
        assert_eq!(
            [t.line(0), t.line(1), t.line(2), t.line(3), t.line(4)],
            [Some("a"), Some("bc"), Some("d"), Some("e"), None]
        );
    }

    #[test]
    fn utf16_columns() {
        let line = "a😀b→c";
        assert_eq!(utf16_col_to_byte(line, 0), Some(0));
        assert_eq!(utf16_col_to_byte(line, 1), Some(1));
        assert_eq!(
            utf16_col_to_byte(line, 3),
            Some(5),
            "after the surrogate pair"
        );
        assert_eq!(utf16_col_to_byte(line, 4), Some(6), "the arrow");
        assert_eq!(utf16_col_to_byte(line, 5), Some(9));
        assert_eq!(utf16_col_to_byte(line, 6), Some(10));
        assert_eq!(utf16_col_to_byte(line, 7), None);
    }

    #[test]
    fn long_lines_count_as_the_walk_does() {
        // Every column of lines that cross many 64-byte chunks, characters of every width
        // straddling chunk ends, against a plain walk over the characters.
        let pieces = ["a", "\u{e9}", "\u{2192}", "\u{1F600}", "xyz"];
        for seed in 0..7usize {
            let line: String = (0..300)
                .map(|i| pieces[(i * 7 + seed * 3 + i / 5) % 5])
                .collect();
            let mut units = 0u32;
            let mut expect = Vec::new();
            for (byte, ch) in line.char_indices() {
                for _ in 0..ch.len_utf16() {
                    expect.push(byte);
                }
                units += ch.len_utf16() as u32;
            }
            for col in 0..units {
                assert_eq!(utf16_col_to_byte(&line, col), Some(expect[col as usize]));
            }
            assert_eq!(utf16_col_to_byte(&line, units), Some(line.len()));
            assert_eq!(utf16_col_to_byte(&line, units + 1), None);
            assert_eq!(utf16_len(line.as_bytes()), units as usize);
        }
    }

    /// Walking on column by column, by byte and by span finds what a walk from the line's
    /// start (`encode_utf16`, the standard library's) finds.
    #[test]
    fn cursor_walks_on_as_from_the_start() {
        let line = "aé€😀b\u{1F600}x".repeat(40);
        // Every column's byte offset, from the standard library's encoder.
        let mut expect = Vec::new();
        for (b, ch) in line.char_indices() {
            expect.push(b);
            if ch.len_utf16() == 2 {
                expect.push(b);
            }
        }
        let total = expect.len() as u32;
        expect.push(line.len());
        for step in [1, 2, 3, 7, 64] {
            let mut cursor = Utf16Cursor::default();
            for col in (0..=total + 2).step_by(step) {
                let want = expect.get(col as usize).copied();
                assert_eq!(cursor.seek_col(&line, col), want, "{col}");
                assert_eq!(utf16_col_to_byte(&line, col), want, "{col}");
            }
        }
        let mut cursor = Utf16Cursor::default();
        for (b, _) in line.char_indices().step_by(3) {
            assert_eq!(
                cursor.seek_byte(&line, b) as usize,
                line[..b].encode_utf16().count()
            );
        }
        // A span cut inside a surrogate pair keeps the pair whole.
        assert_eq!(Utf16Cursor::default().span("a😀b", 0, 2), (0, 5));
        assert_eq!(Utf16Cursor::default().span("a😀b", 1, 4), (1, 6));
        assert_eq!(Utf16Cursor::default().span("ab", 5, 9), (2, 2));
        assert_eq!(utf16_len_lossy(b"a\xffb\xe2\x82"), 4);
        assert_eq!(utf16_len_lossy("é😀".as_bytes()), 3);
    }
}
