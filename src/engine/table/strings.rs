//! The table's storage: interned strings, deduplicated records, and text that is an interned
//! string or a span of a frame's own line.

use rustc_hash::FxHashMap;
use std::hash::Hash;

/// "No value" in a `u32` id field.
pub(super) const NONE: u32 = u32::MAX;

/// Interned strings: one buffer and the end of each string in it.
#[derive(Clone, Debug, Default)]
pub(super) struct Strings {
    bytes: String,
    ends: Vec<u32>,
}

impl Strings {
    /// The string `id` (`None` for [`NONE`] or an unknown id).
    pub(super) fn get(&self, id: u32) -> Option<&str> {
        let end = *self.ends.get(id as usize)? as usize;
        let start = match id {
            0 => 0,
            _ => self.ends[id as usize - 1] as usize,
        };
        self.bytes.get(start..end)
    }

    /// Bytes held on the heap.
    pub(super) fn heap_bytes(&self) -> usize {
        self.bytes.capacity() + self.ends.capacity() * 4
    }
}

/// Builds [`Strings`], deduplicating by a 64-bit hash (checked, so a collision only costs a
/// duplicate). The map is dropped when the table is finished.
#[derive(Default)]
pub(super) struct StringsBuilder {
    strings: Strings,
    map: FxHashMap<u64, u32>,
}

impl StringsBuilder {
    pub(super) fn intern(&mut self, s: &str) -> u32 {
        let h = xxhash_rust::xxh3::xxh3_64(s.as_bytes());
        if let Some(&id) = self.map.get(&h)
            && self.strings.get(id) == Some(s)
        {
            return id;
        }
        let id = self.strings.ends.len() as u32;
        self.strings.bytes.push_str(s);
        self.strings.ends.push(self.strings.bytes.len() as u32);
        self.map.entry(h).or_insert(id);
        id
    }

    pub(super) fn intern_opt(&mut self, s: Option<&str>) -> u32 {
        s.map_or(NONE, |s| self.intern(s))
    }

    pub(super) fn finish(self) -> Strings {
        let mut strings = self.strings;
        strings.bytes.shrink_to_fit();
        strings.ends.shrink_to_fit();
        strings
    }
}

/// Deduplicates records of any `Copy + Eq + Hash` type into a vector of distinct ones.
pub(super) struct Dedup<T> {
    items: Vec<T>,
    map: FxHashMap<T, u32>,
}

impl<T: Copy + Eq + Hash> Dedup<T> {
    pub(super) fn new() -> Self {
        Self {
            items: Vec::new(),
            map: FxHashMap::default(),
        }
    }

    pub(super) fn id(&mut self, item: T) -> u32 {
        *self.map.entry(item).or_insert_with(|| {
            self.items.push(item);
            self.items.len() as u32 - 1
        })
    }

    pub(super) fn finish(self) -> Vec<T> {
        let mut items = self.items;
        items.shrink_to_fit();
        items
    }
}

/// A record's text: nothing, an interned string, or a span of the frame's own line. A name
/// or file the parser read off the line costs no string of its own, and records that differ
/// only in such text (a million frames each printing another function name) are one record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Text {
    /// No text.
    None,
    /// An interned string.
    Str(u32),
    /// `(start, len)` in the frame's line.
    Span(u16, u16),
}

impl Text {
    /// `s` as a span of `raw` when it is a part of it (a slice of it, or found in it) and the
    /// span fits in 16 bits; else interned.
    pub(super) fn of(s: Option<&str>, raw: &str, strings: &mut StringsBuilder) -> Self {
        let Some(s) = s else {
            return Self::None;
        };
        let (at, base) = (s.as_ptr() as usize, raw.as_ptr() as usize);
        let start = if at >= base && at + s.len() <= base + raw.len() {
            Some(at - base)
        } else {
            raw.find(s)
        };
        match start.map(|st| (u16::try_from(st), u16::try_from(s.len()))) {
            Some((Ok(start), Ok(len))) => Self::Span(start, len),
            _ => Self::Str(strings.intern(s)),
        }
    }

    /// The text, with `raw` the frame's line and `strings` the pool `Str` ids point into.
    pub(super) fn get<'a>(self, raw: &'a str, strings: &'a Strings) -> Option<&'a str> {
        match self {
            Self::None => None,
            Self::Str(id) => strings.get(id),
            Self::Span(start, len) => raw.get(start as usize..start as usize + len as usize),
        }
    }
}
