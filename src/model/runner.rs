//! The seam through which pure code runs on several threads without starting any: a reader
//! cuts its work into independent pieces and hands them to a [`ChunkRunner`]; the pure layers
//! use [`Serial`], the jobs layer runs the pieces on all cores (`jobs::ParallelIndex`).

/// Runs independent pieces of parsing work; the pure layers run them one after the other,
/// the jobs layer on all cores (`jobs::ParallelIndex`).
pub trait ChunkRunner: Sync {
    /// How many chunks to cut `len` bytes of input into (1: no parallelism).
    fn chunks_for(&self, len: usize) -> usize;

    /// Calls `task(i)` once for every `i` in `0..n`, possibly on several threads at once.
    fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync));

    /// Runs `read` on this thread and `write` beside it on another, returning when both are
    /// done; `false`, having run neither, when this runner has one thread only.
    ///
    /// Used for two halves of one job that talk through a bounded channel (reading a native
    /// file's debug information and writing its SymCache), which must not run one after the
    /// other.
    fn run_beside(&self, read: &mut dyn FnMut(), write: &mut (dyn FnMut() + Send)) -> bool {
        let _ = (read, write);
        false
    }
}

/// The single-threaded [`ChunkRunner`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Serial;

impl ChunkRunner for Serial {
    fn chunks_for(&self, _len: usize) -> usize {
        1
    }

    fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..n).for_each(task);
    }
}
