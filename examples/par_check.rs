//! Profiling helper: when each task of the parallel parse starts and ends, and on which thread.
use std::time::Instant;
use symscope::jobs::ParallelIndex;
use symscope::model::Blob;
use symscope::symbols::sourcemap::{ChunkRunner, SourceMap};

struct Traced;
impl ChunkRunner for Traced {
    fn chunks_for(&self, len: usize) -> usize {
        ParallelIndex.chunks_for(len)
    }
    fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        let t0 = Instant::now();
        ParallelIndex.for_each(n, &|i| {
            let s = t0.elapsed();
            task(i);
            let main = std::thread::current().name() == Some("main");
            eprintln!(
                "task {i} {}: {:?} .. {:?}",
                if main { "main  " } else { "helper" },
                s,
                t0.elapsed()
            );
        });
    }
}

fn main() {
    let rel = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "three-esbuild/three.min.js.map".to_owned());
    let bytes: std::sync::Arc<[u8]> = std::fs::read(format!(
        "{}/tests/fixtures/js/{rel}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .into();
    for _ in 0..5 {
        std::thread::sleep(std::time::Duration::from_millis(30));
        let t = Instant::now();
        let m = SourceMap::parse_with(Blob::from(bytes.clone()), &Traced).unwrap();
        eprintln!("parallel parse {:?}\n", t.elapsed());
        drop(m);
    }
}
