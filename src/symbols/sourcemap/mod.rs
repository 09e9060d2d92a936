//! JavaScript source maps: our own lazy decoder. A stack trace touches a handful of generated
//! lines, so only those are decoded. It is our own rather than the `sourcemap` crate because
//! it is several times faster, cold and warm (`cargo bench --bench sourcemap` runs the crate
//! in the same process; `benches/README.md` has the figures).
//!
//! - The JSON is scanned, not materialised (`json.rs`): `sourcesContent`, `names` and
//!   `sources` stay byte ranges into the file (strings skipped quote to quote with memchr) and
//!   are decoded when someone shows them.
//! - [`LineIndex`] (`index/`): one allocation-light pass over `mappings` records, for every
//!   generated line, where it starts and the four running accumulators entering it, plus a
//!   checkpoint every [`CHECKPOINT_EVERY`] segments inside long lines, so a look-up in a
//!   one-line bundle decodes a few dozen segments. Segments of four or five one-digit terms
//!   (most of them) are decoded from one 6-byte window, a term of two digits inline. The
//!   accumulators are sums of deltas, so `mappings` is cut at `;` (or inside a line) into
//!   chunks indexed on separate cores (through the caller's [`crate::model::ChunkRunner`]) and
//!   stitched with a prefix sum; the first chunk is indexed while the rest of the JSON is
//!   still read.
//! - Two ways to read a map. [`SourceMap::parse_with`] indexes and validates all of
//!   `mappings` at once (the window, whose inspector and checks walk every line, and
//!   `check-map`). [`SourceMap::parse_lazy`] reads the JSON only and indexes `mappings` from
//!   its start as far as the lines looked up, growing as later lines are asked (`map/grown.rs`):
//!   a trace's first frame on pdf.worker's 5.8 MB map needs 1.8% of it. The CLI and the engine's
//!   serial loader read maps so (the engine's `MapRoute`); a fault in `mappings` is then
//!   the error of the frames that reach it, as in browsers and trace-mapping.
//! - The pass is a lean loop that keeps few values live, so they stay in registers: no
//!   previous column (a negative column delta is what makes a line unsorted), no pending
//!   checkpoint, everything rare behind one branch. It only says *that* a chunk is wrong; the
//!   general pass then indexes that chunk again and names the error and where it is. A test
//!   and the `mappings` fuzz target check that both build the same index.
//! - Decoded blocks live in a bounded per-thread cache (`map/lookup.rs`); a block keeps its
//!   columns packed, and a look-up counts those below its column in vector registers.
//! - Index maps (`sections`): each section is parsed and indexed on first touch.
//! - Look-ups equal `@jridgewell/trace-mapping`'s `originalPositionFor`, ties included (an
//!   exact column match answers with the first segment at that column, otherwise the last one
//!   before it), and source paths are normalised the same way (`paths.rs`). Columns are UTF-16
//!   code units, as engines print them and the spec defines them.
//! - The inverse look-up (`original.rs`: original position → generated ones) is built on
//!   demand and answers as trace-mapping's `generatedPositionFor` and
//!   `allGeneratedPositionsFor`.
//! - Extensions: `x_facebook_sources` (Metro's function map), `x_hermes_function_offsets`,
//!   `ignoreList` / `x_google_ignoreList`, `sourceRoot`, `debugId` / `debug_id`.
//!
//! Where the `sourcemap` crate (our test oracle) differs: its `lookup_token` searches all
//! tokens by `(line, column)`, so a column before a line's first segment returns the last
//! segment of an earlier line; we answer nothing there, as trace-mapping and every browser
//! do. Wherever the crate answers on the same line, we answer the same
//! (`tests/sourcemap_oracle.rs`, every segment of every corpus map).

mod error;
mod function_map;
mod index;
mod json;
mod map;
mod original;
mod paths;
mod validate;
pub mod vlq;

pub use error::{Error, ErrorKind, Result};
pub use function_map::{FacebookSources, FunctionMap};
pub(crate) use index::index_chunk_by;
pub use index::{
    Block, CHECKPOINT_EVERY, ChunkIndex, LineIndex, NONE, RawSegment, STOP_MIN, State, Stop,
    index_chunk, index_chunk_entering, index_chunk_unchecked, index_chunk_until, resume_chunk,
    split_chunks, split_chunks_with_head,
};
pub use json::StrRef;
pub use map::{IndexMap, RegularMap, Section, SourceMap, Token};
pub use original::{Bias, GeneratedPos, OriginalIndex, SourceEntry};
pub use paths::{extraction_path, join_source_root, normalize_path};
pub use validate::{Violation, validate};
