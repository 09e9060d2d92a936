//! The class-header index of a mapping: one scan for `":\n"` finds every class line
//! (`original.Name -> obf.Name:`), and records where each class's block starts.

use crate::model::{Blob, Progress};
use std::ops::ControlFlow;
use xxhash_rust::xxh3::xxh3_64;

/// Bytes scanned between two progress reports.
const SCAN_CHUNK: usize = 1 << 20;

/// One class line of the mapping; its block runs to the next class line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ClassEntry {
    /// Byte offset of the class line.
    pub start: usize,
    /// Length of the original name (it starts the line).
    pub orig_len: u32,
    /// Offset of the obfuscated name from `start`.
    pub obf_off: u32,
    /// Length of the obfuscated name.
    pub obf_len: u32,
}

/// Why a mapping cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MappingError {
    /// Binary content (a NUL byte near the start).
    #[error("not a ProGuard/R8 mapping: the file is binary")]
    Binary,
    /// No line of the form `original.Name -> obf.Name:`.
    #[error("not a ProGuard/R8 mapping: no class line `original.Name -> obfuscated.Name:` found")]
    NoClasses,
    /// Progress said stop.
    #[error("cancelled")]
    Cancelled,
}

/// A mapping file with its class-header index; class blocks are parsed only when asked for.
pub struct Mapping {
    pub(super) blob: Blob,
    pub(super) classes: Vec<ClassEntry>,
    /// `(hash of obfuscated name, class index)`, sorted.
    by_obf: Vec<(u64, u32)>,
    /// `(hash of original name, class index)`, sorted.
    by_orig: Vec<(u64, u32)>,
    map_id: Option<String>,
    compiler: Option<String>,
}

impl std::fmt::Debug for Mapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mapping")
            .field("bytes", &self.blob.len())
            .field("classes", &self.classes.len())
            .field("map_id", &self.map_id)
            .finish()
    }
}

impl Mapping {
    /// Indexes a mapping without reporting progress.
    pub fn parse(blob: Blob) -> Result<Self, MappingError> {
        Self::parse_with(blob, &mut crate::model::NoProgress)
    }

    /// Indexes a mapping, reporting scanned bytes as phase `"scan"` (and stopping if told).
    pub fn parse_with(blob: Blob, progress: &mut dyn Progress) -> Result<Self, MappingError> {
        let bytes = blob.as_slice();
        if memchr::memchr(0, &bytes[..bytes.len().min(4096)]).is_some() {
            return Err(MappingError::Binary);
        }
        let mut classes = Vec::new();
        let total = bytes.len() as u64;
        // CRLF files (rare) need a second pattern; one memchr tells.
        let crlf = memchr::memchr(b'\r', bytes).is_some();
        let lf = memchr::memmem::Finder::new(b":\n");
        let cr = memchr::memmem::Finder::new(b":\r\n");
        let mut chunk_start = 0;
        while chunk_start < bytes.len() {
            let chunk_end = (chunk_start + SCAN_CHUNK).min(bytes.len());
            // The window overlaps the next chunk by two bytes so a `:\r\n` or `:\n` across the
            // boundary is found once: only matches starting inside the chunk count.
            let window = &bytes[chunk_start..(chunk_end + 2).min(bytes.len())];
            let mut found: Vec<usize> = lf
                .find_iter(window)
                .filter(|&p| chunk_start + p < chunk_end)
                .map(|p| chunk_start + p)
                .collect();
            if crlf {
                found.extend(
                    cr.find_iter(window)
                        .filter(|&p| chunk_start + p < chunk_end)
                        .map(|p| chunk_start + p),
                );
                found.sort_unstable();
            }
            for colon in found {
                if let Some(entry) = class_line(bytes, colon) {
                    classes.push(entry);
                }
            }
            chunk_start = chunk_end;
            if progress.step("scan", chunk_start as u64, total) == ControlFlow::Break(()) {
                return Err(MappingError::Cancelled);
            }
        }
        // The last line may have no line break.
        let trimmed = bytes.trim_ascii_end();
        if trimmed.ends_with(b":")
            && let Some(entry) = class_line(bytes, trimmed.len() - 1)
            && classes.last().is_none_or(|last| last.start != entry.start)
        {
            classes.push(entry);
        }
        if classes.is_empty() {
            return Err(MappingError::NoClasses);
        }
        let prelude = &bytes[..classes[0].start];
        let (map_id, compiler) = read_prelude(prelude);
        let mut mapping = Self {
            blob,
            classes,
            by_obf: Vec::new(),
            by_orig: Vec::new(),
            map_id,
            compiler,
        };
        let mut by_obf = Vec::with_capacity(mapping.classes.len());
        let mut by_orig = Vec::with_capacity(mapping.classes.len());
        for (i, _) in mapping.classes.iter().enumerate() {
            by_obf.push((xxh3_64(mapping.obfuscated(i).as_bytes()), i as u32));
            by_orig.push((xxh3_64(mapping.original(i).as_bytes()), i as u32));
        }
        by_obf.sort_unstable();
        by_orig.sort_unstable();
        mapping.by_obf = by_obf;
        mapping.by_orig = by_orig;
        Ok(mapping)
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.blob.as_slice()
    }

    /// Number of class lines.
    pub fn class_count(&self) -> usize {
        self.classes.len()
    }

    /// R8's `# pg_map_id:` header, if any.
    pub fn map_id(&self) -> Option<&str> {
        self.map_id.as_deref()
    }

    /// The `# compiler:` header (`R8`), if any.
    pub fn compiler(&self) -> Option<&str> {
        self.compiler.as_deref()
    }

    /// Original name of class `i` (validated UTF-8 at scan time).
    pub(super) fn original(&self, i: usize) -> &str {
        let e = self.classes[i];
        let b = &self.bytes()[e.start..e.start + e.orig_len as usize];
        std::str::from_utf8(b).unwrap_or_default()
    }

    /// Obfuscated name of class `i`.
    pub(super) fn obfuscated(&self, i: usize) -> &str {
        let e = self.classes[i];
        let s = e.start + e.obf_off as usize;
        std::str::from_utf8(&self.bytes()[s..s + e.obf_len as usize]).unwrap_or_default()
    }

    /// The bytes of class `i`'s block: its class line and every line up to the next class.
    pub(super) fn block(&self, i: usize) -> &[u8] {
        let start = self.classes[i].start;
        let end = self
            .classes
            .get(i + 1)
            .map_or(self.bytes().len(), |e| e.start);
        &self.bytes()[start..end]
    }

    fn find(&self, table: &[(u64, u32)], name: &str, of: fn(&Self, usize) -> &str) -> Vec<usize> {
        let h = xxh3_64(name.as_bytes());
        let first = table.partition_point(|&(k, _)| k < h);
        table[first..]
            .iter()
            .take_while(|&&(k, _)| k == h)
            .map(|&(_, i)| i as usize)
            .filter(|&i| of(self, i) == name)
            .collect()
    }

    /// Indexes of the classes whose obfuscated name is `name`, in file order (a name may
    /// appear more than once in a broken or concatenated mapping).
    pub(super) fn classes_by_obfuscated(&self, name: &str) -> Vec<usize> {
        let mut v = self.find(&self.by_obf, name, Self::obfuscated);
        v.sort_unstable();
        v
    }

    /// Indexes of the classes whose original name is `name`, in file order.
    pub(super) fn classes_by_original(&self, name: &str) -> Vec<usize> {
        let mut v = self.find(&self.by_orig, name, Self::original);
        v.sort_unstable();
        v
    }

    /// Whether `obfuscated` is a class of this mapping.
    pub fn has_class(&self, obfuscated: &str) -> bool {
        !self
            .find(&self.by_obf, obfuscated, Self::obfuscated)
            .is_empty()
    }

    /// The original name of an obfuscated class, as the `proguard` crate answers (the last
    /// class line with that name wins).
    pub fn original_class(&self, obfuscated: &str) -> Option<&str> {
        let found = self.classes_by_obfuscated(obfuscated);
        found.last().map(|&i| self.original(i))
    }

    /// Heap bytes of the index (not counting the file).
    pub fn index_bytes(&self) -> usize {
        self.classes.capacity() * std::mem::size_of::<ClassEntry>()
            + (self.by_obf.capacity() + self.by_orig.capacity()) * 12
    }
}

/// The class line ending at `colon` (the byte offset of its final `:`), validated as the
/// `proguard` crate reads class lines: not indented, not a `#` comment, `original -> obf:`
/// with no space in `original` and no `:` in `obf`, both UTF-8.
fn class_line(bytes: &[u8], colon: usize) -> Option<ClassEntry> {
    let start = memchr::memrchr(b'\n', &bytes[..colon]).map_or(0, |p| p + 1);
    let line = &bytes[start..colon];
    match line.first() {
        None | Some(b' ' | b'\t' | b'\r') => return None,
        _ => {}
    }
    if line.trim_ascii_start().starts_with(b"#") {
        return None;
    }
    let space = memchr::memchr(b' ', line)?;
    let rest = line[space..].strip_prefix(b" -> ")?;
    let obf_off = space + 4;
    // The crate's obfuscated name ends at the first `:` (the rest would be a new record).
    let rest = &rest[..memchr::memchr(b':', rest).unwrap_or(rest.len())];
    if rest.is_empty() || space == 0 {
        return None;
    }
    std::str::from_utf8(line).ok()?;
    Some(ClassEntry {
        start,
        orig_len: u32::try_from(space).ok()?,
        obf_off: u32::try_from(obf_off).ok()?,
        obf_len: u32::try_from(rest.len()).ok()?,
    })
}

/// `# pg_map_id:` and `# compiler:` from the comment lines before the first class.
fn read_prelude(prelude: &[u8]) -> (Option<String>, Option<String>) {
    let mut map_id = None;
    let mut compiler = None;
    for line in prelude.split(|&c| c == b'\n') {
        let t = line.trim_ascii();
        let Some(comment) = t.strip_prefix(b"#") else {
            continue;
        };
        let text = String::from_utf8_lossy(comment.trim_ascii());
        if let Some((key, value)) = text.split_once(':') {
            let value = value.trim().to_owned();
            match key.trim() {
                "pg_map_id" => map_id = Some(value),
                "compiler" => compiler = Some(value),
                _ => {}
            }
        }
    }
    (map_id, compiler)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_lines_and_blocks() {
        let text = "# compiler: R8\n# pg_map_id: abc123\na.B -> x:\n    1:1:void m() -> a\nc.D -> y.z:\r\n    int f -> b\n# {\"id\":\"x\"}: \n  e -> f:\ng.H -> w:";
        let m = Mapping::parse(Blob::from(text)).unwrap();
        assert_eq!(m.class_count(), 3);
        assert_eq!(m.map_id(), Some("abc123"));
        assert_eq!(m.compiler(), Some("R8"));
        assert_eq!(m.original_class("x"), Some("a.B"));
        assert_eq!(m.original_class("y.z"), Some("c.D"));
        assert_eq!(m.original_class("w"), Some("g.H"));
        assert_eq!(m.original_class("f"), None);
        assert_eq!(m.block(0), b"a.B -> x:\n    1:1:void m() -> a\n");
        assert_eq!(m.classes_by_original("c.D"), vec![1]);
    }

    #[test]
    fn chunk_boundaries_find_every_class_once() {
        // Class lines straddle the 1 MiB chunk boundary at every offset near it.
        let mut text = String::new();
        let mut n = 0;
        while text.len() < SCAN_CHUNK + 4096 {
            text.push_str(&format!("orig.C{n} -> o{n}:\n    1:1:void m() -> a\n"));
            n += 1;
        }
        let m = Mapping::parse(Blob::from(text.clone())).unwrap();
        assert_eq!(m.class_count(), n);
        let crlf = text.replace('\n', "\r\n");
        let m = Mapping::parse(Blob::from(crlf)).unwrap();
        assert_eq!(m.class_count(), n);
        assert_eq!(m.original_class("o7"), Some("orig.C7"));
    }

    #[test]
    fn junk_is_a_named_error() {
        assert_eq!(
            Mapping::parse(Blob::from(&b"\x7fELF\0\0"[..])).unwrap_err(),
            MappingError::Binary
        );
        assert_eq!(
            Mapping::parse(Blob::from("hello\nworld:\n")).unwrap_err(),
            MappingError::NoClasses
        );
    }
}
