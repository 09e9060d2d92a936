//! The source-map reader's parallel runner.

use crate::model::ChunkRunner;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Stack of the thread that writes a SymCache beside the reading one (only touched pages
/// cost memory).
const WRITER_STACK: usize = 64 << 20;

/// Below this many bytes of `mappings`, splitting costs more than it saves.
const MIN_CHUNK: usize = 128 * 1024;

/// Runs source-map parsing work (the JSON read and the index pass over `mappings`) on all
/// cores of rayon's current pool.
///
/// The calling thread works too: it and the pool's threads take tasks from a shared counter,
/// so work starts at once and a pool thread that is slow to wake up only joins later, never
/// delaying the result (on a VM an idle core can take milliseconds to wake).
#[derive(Clone, Copy, Debug, Default)]
pub struct ParallelIndex;

impl ChunkRunner for ParallelIndex {
    fn chunks_for(&self, len: usize) -> usize {
        let threads = rayon::current_num_threads().max(1);
        (len / MIN_CHUNK).clamp(1, threads * 8)
    }

    fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        if n <= 1 {
            (0..n).for_each(task);
            return;
        }
        let next = AtomicUsize::new(0);
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                task(i);
            }
        };
        let helpers = rayon::current_num_threads().saturating_sub(1).min(n - 1);
        rayon::in_place_scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(|_| work());
            }
            work();
        });
    }

    fn run_beside(&self, read: &mut dyn FnMut(), write: &mut (dyn FnMut() + Send)) -> bool {
        if rayon::current_num_threads() < 2 {
            return false;
        }
        // A thread of its own, not a rayon task: `write` waits on `read` through a channel,
        // and a pool busy with other jobs must never leave it queued behind them.
        std::thread::scope(|scope| {
            let writer = std::thread::Builder::new()
                .name("symscope-beside".into())
                // symbolic's writer recurses through inline trees as deep as a file nests
                // them; give it more room than the reading side, which built those trees.
                .stack_size(WRITER_STACK)
                .spawn_scoped(scope, write);
            match writer {
                Ok(handle) => {
                    read();
                    if let Err(panic) = handle.join() {
                        std::panic::resume_unwind(panic);
                    }
                    true
                }
                // No thread to be had: the caller runs both on this one.
                Err(_) => false,
            }
        })
    }
}

/// A [`ParallelIndex`] that calls `on_task(done, n)` each time one of its tasks finishes, so
/// a job can show how far a big map's index pass is.
pub struct ReportingIndex<'a> {
    /// Called with the number of finished tasks and the number of tasks.
    pub on_task: &'a (dyn Fn(u64, u64) + Sync),
}

impl ChunkRunner for ReportingIndex<'_> {
    fn chunks_for(&self, len: usize) -> usize {
        ParallelIndex.chunks_for(len)
    }

    fn run_beside(&self, read: &mut dyn FnMut(), write: &mut (dyn FnMut() + Send)) -> bool {
        ParallelIndex.run_beside(read, write)
    }

    fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        let done = AtomicUsize::new(0);
        ParallelIndex.for_each(n, &|i| {
            task(i);
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            (self.on_task)(d as u64, n as u64);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Blob;
    use crate::symbols::sourcemap::{LineIndex, SourceMap, index_chunk, split_chunks};
    use std::sync::OnceLock;

    fn synthetic_mappings() -> String {
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
        m
    }

    /// A ProGuard mapping's scan on all cores reports every finished chunk (the workspace
    /// panel's bar while a large mapping loads) and finds what the serial scan finds.
    #[test]
    fn mapping_scan_reports_each_chunk() {
        use crate::symbols::proguard::Mapping;
        use std::sync::Mutex;
        let mut text = String::new();
        let mut n = 0;
        while text.len() < 4 << 20 {
            text.push_str(&format!("orig.C{n} -> o{n}:\n    1:9:void m(int) -> a\n"));
            n += 1;
        }
        let reports = Mutex::new(Vec::new());
        let on_task = |done: u64, total: u64| reports.lock().unwrap().push((done, total));
        let runner = ReportingIndex { on_task: &on_task };
        let m = Mapping::parse_with(Blob::from(text.clone()), &runner).unwrap();
        assert_eq!(m.class_count(), n);
        let reports = reports.into_inner().unwrap();
        let total = reports[0].1;
        assert!(total >= 2, "{reports:?}");
        assert_eq!(reports.len() as u64, total);
        assert!(reports.iter().any(|&(d, t)| d == t));
    }

    #[test]
    fn parallel_index_equals_serial() {
        let m = synthetic_mappings();
        let m = m.as_bytes();
        let serial = LineIndex::build(m, 1, 1).unwrap();
        let ranges = split_chunks(m, ParallelIndex.chunks_for(m.len()).max(3));
        assert!(ranges.len() >= 3);
        let cells: Vec<OnceLock<_>> = ranges.iter().map(|_| OnceLock::new()).collect();
        ParallelIndex.for_each(ranges.len(), &|i| {
            cells[i].set(index_chunk(m, ranges[i].clone(), 1, 1)).ok();
        });
        let chunks = cells.into_iter().map(|c| c.into_inner().unwrap()).collect();
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

    /// Indexing while the JSON is read (the guessed `mappings` range) gives the same map, and
    /// range errors are still found although the chunks were indexed before the counts were known.
    #[test]
    fn early_index_equals_serial_parse() {
        let m = synthetic_mappings();
        for (sources, names) in [(r#"["a.js"]"#, r#"["n"]"#), (r#"["a.js"]"#, "[]")] {
            let json =
                format!(r#"{{"version":3,"sources":{sources},"names":{names},"mappings":"{m}"}}"#);
            let par = SourceMap::parse_with(Blob::from(json.clone()), &ParallelIndex);
            let ser = SourceMap::parse(json.into_bytes());
            match (par, ser) {
                (Ok(p), Ok(s)) => {
                    for (l, c) in [(0, 0), (5, 3), (19_998, 200), (7_000, 10_000)] {
                        let a = p.lookup(l, c).unwrap().map(|t| t.segment);
                        let b = s.lookup(l, c).unwrap().map(|t| t.segment);
                        assert_eq!(a, b, "{l}:{c}");
                    }
                }
                (Err(p), Err(s)) => assert_eq!((p.kind, p.line), (s.kind, s.line)),
                (p, s) => panic!("parallel {:?} vs serial {:?}", p.err(), s.err()),
            }
        }
    }

    /// The reporting runner reports every finished task, ending at n of n, and indexes the
    /// same map.
    #[test]
    fn reporting_index_reports_each_chunk() {
        let m = synthetic_mappings();
        let json = format!(r#"{{"version":3,"sources":["a.js"],"names":["n"],"mappings":"{m}"}}"#);
        let seen = std::sync::Mutex::new(Vec::new());
        let on_task = |done, total| seen.lock().unwrap().push((done, total));
        let runner = ReportingIndex { on_task: &on_task };
        let map = SourceMap::parse_with(Blob::from(json.clone()), &runner).unwrap();
        let serial = SourceMap::parse(json.into_bytes()).unwrap();
        assert_eq!(
            map.lookup(19_998, 200).unwrap().map(|t| t.segment),
            serial.lookup(19_998, 200).unwrap().map(|t| t.segment)
        );
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        let total = seen.last().map(|&(_, t)| t).unwrap();
        assert!(total >= 2, "a {} KB mappings is split", m.len() / 1024);
        assert_eq!(seen, (1..=total).map(|d| (d, total)).collect::<Vec<_>>());
    }
}
