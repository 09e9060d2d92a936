//! Background work: the rayon side of the engine. The pure layers never start threads; this
//! layer runs their pieces in parallel.

use crate::symbols::sourcemap::{ChunkIndex, ChunkRunner, index_chunk};
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Below this many bytes of `mappings`, splitting costs more than it saves.
const MIN_CHUNK: usize = 256 * 1024;

/// Runs the source-map index pass on all cores of rayon's current pool.
///
/// The calling thread works too: it and the pool's threads take chunks from a shared counter,
/// so work starts at once and a pool thread that is slow to wake up only joins later, never
/// delaying the result (on a VM an idle core can take milliseconds to wake).
#[derive(Clone, Copy, Debug, Default)]
pub struct ParallelIndex;

impl ChunkRunner for ParallelIndex {
    fn chunks_for(&self, len: usize) -> usize {
        let threads = rayon::current_num_threads().max(1);
        (len / MIN_CHUNK).clamp(1, threads * 4)
    }

    fn run(
        &self,
        mappings: &[u8],
        ranges: Vec<Range<usize>>,
        sources: usize,
        names: usize,
    ) -> Vec<ChunkIndex> {
        if ranges.len() <= 1 {
            return ranges
                .into_iter()
                .map(|r| index_chunk(mappings, r, sources, names))
                .collect();
        }
        let next = AtomicUsize::new(0);
        let results: Vec<OnceLock<ChunkIndex>> = ranges.iter().map(|_| OnceLock::new()).collect();
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(range) = ranges.get(i) else { break };
                results[i]
                    .set(index_chunk(mappings, range.clone(), sources, names))
                    .ok();
            }
        };
        let helpers = rayon::current_num_threads()
            .saturating_sub(1)
            .min(ranges.len() - 1);
        rayon::in_place_scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(|_| work());
            }
            work();
        });
        results
            .into_iter()
            .zip(ranges)
            .map(|(cell, range)| {
                // Every index below `ranges.len()` was taken by exactly one worker.
                cell.into_inner()
                    .unwrap_or_else(|| index_chunk(mappings, range, sources, names))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::sourcemap::{LineIndex, split_chunks};

    #[test]
    fn parallel_index_equals_serial() {
        let mut m = String::new();
        for line in 0..20_000 {
            for seg in 0..(line % 90 + 1) {
                if seg > 0 {
                    m.push(',');
                }
                m.push_str(if seg % 4 == 0 { "gBACA" } else { "CAAC" });
            }
            m.push(';');
        }
        let m = m.as_bytes();
        let serial = LineIndex::build(m, 1, 1).unwrap();
        let n = ParallelIndex.chunks_for(m.len()).max(3);
        let chunks = ParallelIndex.run(m, split_chunks(m, n), 1, 1);
        assert!(chunks.len() >= 3);
        let parallel = LineIndex::stitch(chunks, m, 1, 1).unwrap();
        assert_eq!(parallel.line_count(), serial.line_count());
        assert_eq!(parallel.segment_count(), serial.segment_count());
        assert_eq!(parallel.checkpoint_count(), serial.checkpoint_count());
        for line in (0..serial.line_count() as u32).step_by(97) {
            for col in [0, 5, 100, 1000] {
                assert_eq!(
                    parallel.block_for(line, col),
                    serial.block_for(line, col),
                    "{line}:{col}"
                );
            }
        }
    }
}
