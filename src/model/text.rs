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
    let mut units = 0u32;
    for (byte, ch) in line.char_indices() {
        let w = ch.len_utf16() as u32;
        if units + w > col16 {
            return Some(byte);
        }
        units += w;
    }
    (units == col16).then_some(line.len())
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
}
