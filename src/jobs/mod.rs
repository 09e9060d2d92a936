//! Background work: the rayon side of the engine. The pure layers never start threads; this
//! layer runs their pieces in parallel.

use crate::symbols::sourcemap::{ChunkIndex, ChunkRunner, index_chunk};
use rayon::prelude::*;
use std::ops::Range;

/// Below this many bytes of `mappings`, splitting costs more than it saves.
const MIN_CHUNK: usize = 256 * 1024;

/// Runs the source-map index pass on all cores of rayon's current pool.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParallelIndex;

impl ChunkRunner for ParallelIndex {
    fn chunks_for(&self, len: usize) -> usize {
        let threads = rayon::current_num_threads().max(1);
        (len / MIN_CHUNK).clamp(1, threads)
    }

    fn run(
        &self,
        mappings: &[u8],
        ranges: Vec<Range<usize>>,
        sources: usize,
        names: usize,
    ) -> Vec<ChunkIndex> {
        ranges
            .into_par_iter()
            .map(|r| index_chunk(mappings, r, sources, names))
            .collect()
    }
}
