//! JavaScript source maps: our own lazy decoder.
//!
//! A stack trace touches a handful of generated lines, so only those are decoded. Parsing
//! keeps `sourcesContent`, `names` and `sources` as byte ranges into the file, indexes
//! `mappings` in one pass ([`LineIndex`]), and a look-up decodes one block of one line.
//! Columns are UTF-16 code units throughout, as in engines' traces and the spec.
//!
//! Differences from the `sourcemap` crate's `lookup_token` (our oracle in tests): that crate
//! searches all tokens by `(line, column)`, so a column before a line's first segment returns
//! the last segment of an earlier line; we return nothing, as `@jridgewell/trace-mapping`
//! (and every browser) does. Wherever the crate answers on the same line, we answer the same.

mod error;
mod function_map;
mod index;
mod json;
mod map;
mod paths;
pub mod vlq;

pub use error::{Error, ErrorKind, Result};
pub use function_map::{FacebookSources, FunctionMap};
pub(crate) use index::index_chunk_by;
pub use index::{
    Block, CHECKPOINT_EVERY, ChunkIndex, LineIndex, NONE, RawSegment, State, index_chunk,
    index_chunk_unchecked, split_chunks, split_chunks_with_head,
};
pub use json::StrRef;
pub use map::{IndexMap, RegularMap, Section, SourceMap, Token};
pub use paths::{join_source_root, normalize_path};
