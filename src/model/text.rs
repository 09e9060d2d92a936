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
    let bytes = line.as_bytes();
    if bytes.get(..col16 as usize).is_some_and(<[u8]>::is_ascii) {
        return Some(col16 as usize);
    }
    let mut units = 0u32;
    let mut start = 0;
    // Whole chunks before the column are counted, not walked (minified lines run to megabytes).
    while let Some(chunk) = bytes.get(start..start + 64) {
        let n = utf16_len(chunk) as u32;
        if units + n > col16 {
            break;
        }
        units += n;
        start += 64;
        // The chunk's last character may run on: its units are counted at its first byte.
        while bytes.get(start).is_some_and(|b| b & 0xC0 == 0x80) {
            start += 1;
        }
    }
    for (byte, ch) in line[start..].char_indices() {
        let w = ch.len_utf16() as u32;
        if units + w > col16 {
            return Some(start + byte);
        }
        units += w;
    }
    (units == col16).then_some(line.len())
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
}
