//! The class-header index of a mapping: one pass over the line breaks finds every class line
//! (`original.Name -> obf.Name:`, the lines ending in `:`), and records where each class's
//! block starts. The pass is cut into chunks a [`ChunkRunner`] may run on several cores.

use crate::model::{Blob, ChunkRunner, Serial};
use std::sync::OnceLock;
use xxhash_rust::xxh3::xxh3_64;

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
}

/// Names → class indexes: an open-addressing table of class indexes keyed by the names'
/// hashes (built in one pass, no allocation per name).
#[derive(Debug, Default)]
struct NameTable {
    /// Class index + 1 per slot; 0 is empty.
    slots: Vec<u32>,
    /// Each class's name hash.
    hashes: Vec<u64>,
}

/// Whether every line is blank or a `#` comment.
fn only_comments(bytes: &[u8]) -> bool {
    bytes.split(|&c| c == b'\n').all(|l| {
        let t = l.trim_ascii_start();
        t.is_empty() || t[0] == b'#'
    })
}

impl NameTable {
    fn new(hashes: Vec<u64>) -> Self {
        let size = (hashes.len() * 2).next_power_of_two().max(8);
        let mask = size - 1;
        let mut slots = vec![0u32; size];
        for (i, &h) in hashes.iter().enumerate() {
            let mut at = h as usize & mask;
            while slots[at] != 0 {
                at = (at + 1) & mask;
            }
            slots[at] = i as u32 + 1;
        }
        Self { slots, hashes }
    }

    /// Class indexes whose name hash is `h` (the caller compares the names).
    fn candidates(&self, h: u64) -> impl Iterator<Item = usize> + '_ {
        let mask = self.slots.len().saturating_sub(1);
        let mut at = h as usize & mask;
        std::iter::from_fn(move || {
            loop {
                let slot = *self.slots.get(at)?;
                if slot == 0 {
                    return None;
                }
                at = (at + 1) & mask;
                let i = slot as usize - 1;
                if self.hashes.get(i) == Some(&h) {
                    return Some(i);
                }
            }
        })
    }

    fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 4 + self.hashes.capacity() * 8
    }
}

/// A mapping file with its class-header index; class blocks are parsed only when asked for.
pub struct Mapping {
    pub(super) blob: Blob,
    pub(super) classes: Vec<ClassEntry>,
    by_obf: NameTable,
    by_orig: NameTable,
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

/// What one chunk of the scan found: class lines with their names' hashes.
type Found = Vec<(ClassEntry, u64, u64)>;

/// The first bytes of a cached index ([`Mapping::to_index_bytes`]); the version is in it.
const INDEX_MAGIC: &[u8; 8] = b"SYMPG\x01\0\0";

/// Smallest chunk worth its own task.
const MIN_CHUNK: usize = 256 * 1024;

impl Mapping {
    /// Indexes a mapping on this thread.
    pub fn parse(blob: Blob) -> Result<Self, MappingError> {
        Self::parse_with(blob, &Serial)
    }

    /// Indexes a mapping, its scan cut into the chunks `runner` asks for (the jobs layer's
    /// runner uses every core and reports each finished chunk).
    pub fn parse_with(blob: Blob, runner: &dyn ChunkRunner) -> Result<Self, MappingError> {
        let bytes = blob.as_slice();
        if memchr::memchr(0, &bytes[..bytes.len().min(4096)]).is_some() {
            return Err(MappingError::Binary);
        }
        // Whether the file uses CRLF line breaks, decided once for every chunk.
        let crlf = is_crlf(bytes);
        let n = runner
            .chunks_for(bytes.len())
            .clamp(1, (bytes.len() / MIN_CHUNK).max(1));
        let bounds: Vec<usize> = (0..=n).map(|i| bytes.len() / n * i).collect();
        let bound = |i: usize| if i == n { bytes.len() } else { bounds[i] };
        let found: Vec<Found> = if n == 1 {
            vec![scan(bytes, 0, bytes.len(), crlf)]
        } else {
            let cells: Vec<OnceLock<Found>> = (0..n).map(|_| OnceLock::new()).collect();
            runner.for_each(n, &|i| {
                if let Some(cell) = cells.get(i) {
                    cell.set(scan(bytes, bound(i), bound(i + 1), crlf)).ok();
                }
            });
            cells
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    c.into_inner()
                        .unwrap_or_else(|| scan(bytes, bound(i), bound(i + 1), crlf))
                })
                .collect()
        };
        let total: usize = found.iter().map(Vec::len).sum();
        // A mapping of comments only is valid (R8 writes one when nothing was renamed).
        if total == 0 && !only_comments(bytes) {
            return Err(MappingError::NoClasses);
        }
        let mut classes = Vec::with_capacity(total);
        let mut obf_hashes = Vec::with_capacity(total);
        let mut orig_hashes = Vec::with_capacity(total);
        for (entry, obf, orig) in found.into_iter().flatten() {
            classes.push(entry);
            obf_hashes.push(obf);
            orig_hashes.push(orig);
        }
        let prelude = classes.first().map_or(bytes.len(), |c| c.start);
        let (map_id, compiler) = read_prelude(&bytes[..prelude]);
        Ok(Self {
            blob,
            classes,
            by_obf: NameTable::new(obf_hashes),
            by_orig: NameTable::new(orig_hashes),
            map_id,
            compiler,
        })
    }

    /// The index in a compact binary form, for a cache beside the workspace: the class
    /// lines' offsets and name hashes, and the headers read from the prelude.
    pub fn to_index_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.classes.len() * 36);
        out.extend_from_slice(INDEX_MAGIC);
        out.extend_from_slice(&(self.blob.len() as u64).to_le_bytes());
        out.extend_from_slice(&(self.classes.len() as u64).to_le_bytes());
        for (i, e) in self.classes.iter().enumerate() {
            out.extend_from_slice(&(e.start as u64).to_le_bytes());
            out.extend_from_slice(&e.orig_len.to_le_bytes());
            out.extend_from_slice(&e.obf_off.to_le_bytes());
            out.extend_from_slice(&e.obf_len.to_le_bytes());
            out.extend_from_slice(&self.by_obf.hashes[i].to_le_bytes());
            out.extend_from_slice(&self.by_orig.hashes[i].to_le_bytes());
        }
        for text in [&self.map_id, &self.compiler] {
            let t = text.as_deref().unwrap_or("");
            out.extend_from_slice(&(t.len() as u64).to_le_bytes());
            out.extend_from_slice(t.as_bytes());
        }
        out
    }

    /// The mapping `blob` with an index read back from [`Self::to_index_bytes`], or `None`
    /// when the index does not fit this file (another length, an entry that is not a class
    /// line of this file, damaged bytes): the caller then scans. Cheaper than a scan: only
    /// the class lines themselves are read again, to check them.
    pub fn from_index_bytes(blob: Blob, index: &[u8]) -> Option<Self> {
        let mut r = index.strip_prefix(INDEX_MAGIC)?;
        let mut u64_ = || -> Option<u64> {
            let (head, rest) = r.split_first_chunk::<8>()?;
            r = rest;
            Some(u64::from_le_bytes(*head))
        };
        if u64_()? != blob.len() as u64 {
            return None;
        }
        let n = usize::try_from(u64_()?).ok()?;
        let bytes = blob.as_slice();
        if n == 0 || n > bytes.len() / 4 + 1 {
            return None;
        }
        let mut classes = Vec::with_capacity(n);
        let mut obf = Vec::with_capacity(n);
        let mut orig = Vec::with_capacity(n);
        for _ in 0..n {
            let (rec, rest) = r.split_first_chunk::<36>()?;
            r = rest;
            let u32_at =
                |i: usize| u32::from_le_bytes([rec[i], rec[i + 1], rec[i + 2], rec[i + 3]]);
            let u64_at = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&rec[i..i + 8]);
                u64::from_le_bytes(b)
            };
            let e = ClassEntry {
                start: usize::try_from(u64_at(0)).ok()?,
                orig_len: u32_at(8),
                obf_off: u32_at(12),
                obf_len: u32_at(16),
            };
            // The entry must be a class line of this file with the names the hashes say.
            let (o, f) = (e.orig_len as usize, e.obf_off as usize);
            let obf_end = e.start.checked_add(f)?.checked_add(e.obf_len as usize)?;
            let line_start = e.start == 0 || bytes.get(e.start - 1) == Some(&b'\n');
            if !line_start
                || o == 0
                || f != o + 4
                || bytes.get(e.start + o..e.start + f) != Some(&b" -> "[..])
                || bytes.get(obf_end) != Some(&b':')
                || xxh3_64(&bytes[e.start + f..obf_end]) != u64_at(20)
                || xxh3_64(&bytes[e.start..e.start + o]) != u64_at(28)
            {
                return None;
            }
            classes.push(e);
            obf.push(u64_at(20));
            orig.push(u64_at(28));
        }
        if classes.windows(2).any(|w| w[0].start >= w[1].start) {
            return None;
        }
        let mut text = || -> Option<Option<String>> {
            let (len, rest) = r.split_first_chunk::<8>()?;
            let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
            let t = rest.get(..len)?;
            r = &rest[len..];
            let t = std::str::from_utf8(t).ok()?;
            Some((!t.is_empty()).then(|| t.to_owned()))
        };
        let (map_id, compiler) = (text()?, text()?);
        Some(Self {
            blob,
            classes,
            by_obf: NameTable::new(obf),
            by_orig: NameTable::new(orig),
            map_id,
            compiler,
        })
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

    /// Indexes of the classes whose obfuscated name is `name`, in file order (a name may
    /// appear more than once in a broken or concatenated mapping).
    pub(super) fn classes_by_obfuscated(&self, name: &str) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .by_obf
            .candidates(xxh3_64(name.as_bytes()))
            .filter(|&i| self.obfuscated(i) == name)
            .collect();
        v.sort_unstable();
        v
    }

    /// Indexes of the classes whose original name is `name`, in file order.
    pub(super) fn classes_by_original(&self, name: &str) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .by_orig
            .candidates(xxh3_64(name.as_bytes()))
            .filter(|&i| self.original(i) == name)
            .collect();
        v.sort_unstable();
        v
    }

    /// How many class lines name `obfuscated` (more than one in a concatenated mapping).
    pub fn class_lines(&self, obfuscated: &str) -> usize {
        self.classes_by_obfuscated(obfuscated).len()
    }

    /// Whether `obfuscated` is a class of this mapping.
    pub fn has_class(&self, obfuscated: &str) -> bool {
        self.by_obf
            .candidates(xxh3_64(obfuscated.as_bytes()))
            .any(|i| self.obfuscated(i) == obfuscated)
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
            + self.by_obf.heap_bytes()
            + self.by_orig.heap_bytes()
    }
}

/// The class lines whose final `:` lies in `from..to`, with their names' hashes, computed
/// while the line is in cache. A class line is the only kind that ends in `:` (members end
/// in `-> name`, comments in text or `}`), so a search for `":\n"` (and `":\r\n"` in CRLF
/// files) finds them all without visiting the member lines.
fn scan(bytes: &[u8], from: usize, to: usize, crlf: bool) -> Found {
    let mut found = Found::new();
    let window = &bytes[from..(to + 2).min(bytes.len())];
    let mut check = |colon: usize| {
        let start = memchr::memrchr(b'\n', &bytes[..colon]).map_or(0, |p| p + 1);
        if let Some(e) = class_line(bytes, start, colon) {
            let orig = &bytes[e.start..e.start + e.orig_len as usize];
            let obf_start = e.start + e.obf_off as usize;
            let obf = &bytes[obf_start..obf_start + e.obf_len as usize];
            found.push((e, xxh3_64(obf), xxh3_64(orig)));
        }
    };
    let lf = memchr::memmem::find_iter(window, b":\n").map(|p| from + p);
    if crlf {
        // Files with CRLF line breaks may mix in LF ones: both patterns, in file order.
        let mut all: Vec<usize> = lf
            .chain(memchr::memmem::find_iter(window, b":\r\n").map(|p| from + p))
            .filter(|&p| p < to)
            .collect();
        all.sort_unstable();
        all.into_iter().for_each(&mut check);
    } else {
        lf.filter(|&p| p < to).for_each(&mut check);
    }
    // The last line may have no line break.
    let end = bytes.trim_ascii_end().len();
    if end > 0
        && bytes[end - 1] == b':'
        && (from..to).contains(&(end - 1))
        && !bytes[end..].contains(&b'\n')
    {
        check(end - 1);
    }
    found
}

/// Whether the file uses CRLF line breaks (a `\r` in its first 64 KiB).
fn is_crlf(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(64 * 1024)];
    memchr::memchr(b'\r', head).is_some()
}

/// The class line from `start` to `colon` (the byte offset of its final `:`), validated as the
/// `proguard` crate reads class lines: not indented, not a `#` comment, `original -> obf:`
/// with no space in `original` and no `:` in `obf`, both UTF-8.
fn class_line(bytes: &[u8], start: usize, colon: usize) -> Option<ClassEntry> {
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
    let mut start = 0;
    let ends = memchr::memchr_iter(b'\n', prelude).chain(std::iter::once(prelude.len()));
    for end in ends {
        let line = &prelude[start..end];
        start = end + 1;
        let t = line.trim_ascii();
        // Headers are short; a long comment (junk) is not read.
        let Some(comment) = t.strip_prefix(b"#").filter(|c| c.len() < 4096) else {
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

    /// Splitting the scan anywhere finds the same class lines, each once.
    #[test]
    fn chunk_boundaries_find_every_class_once() {
        let text = "# c\na.B -> x:\n    1:1:void m() -> a\nc.D -> y:\r\n    int f -> b\ne.F -> z:";
        let bytes = text.as_bytes();
        let crlf = is_crlf(bytes);
        let whole = scan(bytes, 0, bytes.len(), crlf);
        assert_eq!(whole.len(), 3);
        for cut in 0..=bytes.len() {
            let mut parts = scan(bytes, 0, cut, crlf);
            parts.extend(scan(bytes, cut, bytes.len(), crlf));
            assert_eq!(parts, whole, "cut at {cut}");
        }
    }

    /// A runner that cuts the scan into many chunks gives the serial index.
    #[test]
    fn chunked_scan_equals_serial() {
        struct Many;
        impl ChunkRunner for Many {
            fn chunks_for(&self, _len: usize) -> usize {
                64
            }
            fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
                (0..n).rev().for_each(task);
            }
        }
        let mut text = String::new();
        let mut n = 0;
        while text.len() < 3 * MIN_CHUNK + 77 {
            text.push_str(&format!("orig.C{n} -> o{n}:\n    1:1:void m() -> a\n"));
            n += 1;
        }
        let serial = Mapping::parse(Blob::from(text.clone())).unwrap();
        let chunked = Mapping::parse_with(Blob::from(text), &Many).unwrap();
        assert_eq!(serial.classes, chunked.classes);
        assert_eq!(chunked.class_count(), n);
        assert_eq!(chunked.original_class("o7"), Some("orig.C7"));
        assert!(chunked.has_class(&format!("o{}", n - 1)));
    }

    /// The cached index reads back to the same mapping, and never fits another file.
    #[test]
    fn index_bytes_round_trip() {
        let text = "# compiler: R8\n# pg_map_id: abc\na.B -> x:\n    1:1:void m() -> a\nc.D -> y.z:\r\n    int f -> b\ng.H -> w:";
        let m = Mapping::parse(Blob::from(text)).unwrap();
        let idx = m.to_index_bytes();
        let back = Mapping::from_index_bytes(Blob::from(text), &idx).unwrap();
        assert_eq!(back.classes, m.classes);
        assert_eq!((back.map_id(), back.compiler()), (Some("abc"), Some("R8")));
        assert_eq!(back.original_class("y.z"), Some("c.D"));
        // Another file of the same length, a cut index, junk: no.
        let other = text.replace("a.B -> x:", "a.B -> q:");
        assert!(Mapping::from_index_bytes(Blob::from(other.as_str()), &idx).is_none());
        for cut in [0, 9, 20, idx.len() - 1] {
            assert!(Mapping::from_index_bytes(Blob::from(text), &idx[..cut]).is_none());
        }
        let mut flipped = idx.clone();
        flipped[24] ^= 0x40;
        assert!(Mapping::from_index_bytes(Blob::from(text), &flipped).is_none());
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
        // Empty and comment-only mappings are valid, with no classes.
        for text in ["", "\n", "# compiler: R8\n  # {'id':'x'}\n\n"] {
            assert_eq!(Mapping::parse(Blob::from(text)).unwrap().class_count(), 0);
        }
    }
}
