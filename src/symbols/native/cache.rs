//! The cache file of a converted native file: each object's description and SymCache, to
//! write beside a workspace and read back in place.

use super::{Answers, NativeInfo, NativeObject, NativeSymbols};
use std::ops::Range;
use std::sync::Arc;

/// The first bytes of our SymCache file: info, then symbolic's SymCache.
const CACHE_MAGIC: &[u8; 8] = b"SYMNAT\x05\0";

impl NativeSymbols {
    /// Our cache file: each object's info and SymCache, to write beside a workspace; `None`
    /// when an object is answered lazily (it has no SymCache).
    pub fn to_cache_bytes(&self) -> Option<Vec<u8>> {
        let mut out = CACHE_MAGIC.to_vec();
        out.extend_from_slice(&(self.objects.len() as u32).to_le_bytes());
        for o in &self.objects {
            let fields = [
                o.info.format.as_str(),
                o.info.arch.as_str(),
                o.info.debug_id.as_str(),
                o.info.code_id.as_deref().unwrap_or(""),
                if o.info.has_debug_info { "1" } else { "0" },
                o.cfi.as_deref().unwrap_or(""),
            ];
            for f in fields {
                out.extend_from_slice(&(f.len() as u32).to_le_bytes());
                out.extend_from_slice(f.as_bytes());
            }
            let symcache = o.symcache_bytes()?;
            out.extend_from_slice(&(symcache.len() as u64).to_le_bytes());
            // SymCaches are read in place, and their records want 8-byte alignment.
            out.resize(out.len().next_multiple_of(8), 0);
            out.extend_from_slice(symcache);
        }
        Some(out)
    }

    /// Reads [`Self::to_cache_bytes`] back; `None` when the bytes are not such a file or a
    /// SymCache in it does not parse.
    pub fn from_cache_bytes(bytes: &[u8]) -> Option<Self> {
        Self::from_cache(Arc::new(bytes.to_vec()))
    }

    /// [`Self::from_cache_bytes`] on a buffer it keeps: the SymCaches are read in place.
    pub fn from_cache(data: Arc<Vec<u8>>) -> Option<Self> {
        let mut at = CACHE_MAGIC.len();
        if !data.starts_with(CACHE_MAGIC) {
            return None;
        }
        let mut take = |n: usize| -> Option<Range<usize>> {
            let range = at..at.checked_add(n).filter(|&e| e <= data.len())?;
            at = range.end;
            Some(range)
        };
        let bytes = |r: Range<usize>| &data[r];
        let count = u32::from_le_bytes(bytes(take(4)?).try_into().ok()?);
        let mut objects = Vec::new();
        for _ in 0..count {
            let mut field = || -> Option<String> {
                let len = u32::from_le_bytes(bytes(take(4)?).try_into().ok()?) as usize;
                Some(std::str::from_utf8(bytes(take(len)?)).ok()?.to_owned())
            };
            let (format, arch, debug_id, code_id, debug, cfi) =
                (field()?, field()?, field()?, field()?, field()?, field()?);
            let len_at = take(8)?;
            let len = u64::from_le_bytes(bytes(len_at.clone()).try_into().ok()?);
            take(len_at.end.next_multiple_of(8) - len_at.end)?;
            let range = take(usize::try_from(len).ok()?)?;
            let mut o = NativeObject {
                info: NativeInfo {
                    format,
                    arch,
                    debug_id,
                    code_id: (!code_id.is_empty()).then_some(code_id),
                    has_debug_info: debug == "1",
                },
                answers: Answers::SymCache {
                    data: data.clone(),
                    range: range.clone(),
                },
                cfi: (!cfi.is_empty()).then_some(cfi),
            };
            if o.symcache().is_err() {
                // A buffer not 8-byte aligned in memory: the SymCache gets its own copy.
                let data = Arc::new(data[range].to_vec());
                o.answers = Answers::SymCache {
                    range: 0..data.len(),
                    data,
                };
                o.symcache().ok()?;
            }
            objects.push(o);
        }
        (!objects.is_empty() && at == data.len()).then_some(Self { objects })
    }
}
