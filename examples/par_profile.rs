//! Profiling helper: the parallel index pass, back to back and after idle pauses.
use symscope::jobs::ParallelIndex;
use symscope::symbols::sourcemap::{ChunkRunner, LineIndex, split_chunks};
fn main() {
    let rel = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "pdfjs-dist-worker/pdf.worker.mjs.map".to_owned());
    let bytes = std::fs::read(format!(
        "{}/tests/fixtures/js/{rel}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let key = b"\"mappings\"";
    let k = memchr::memmem::find(&bytes, key).unwrap() + key.len();
    let at = k + memchr::memchr(b'"', &bytes[k..]).unwrap() + 1;
    let end = at + memchr::memchr(b'"', &bytes[at..]).unwrap();
    let m = &bytes[at..end];
    if std::env::var("PARSE").is_ok() {
        parses(&bytes);
        return;
    }
    for pause in [0u64, 20] {
        let mut v = Vec::new();
        for _ in 0..15 {
            std::thread::sleep(std::time::Duration::from_millis(pause));
            let t = std::time::Instant::now();
            let n = ParallelIndex.chunks_for(m.len());
            let chunks = ParallelIndex.run(m, split_chunks(m, n), usize::MAX, usize::MAX);
            let t1 = t.elapsed();
            let ix = LineIndex::stitch(chunks, m, usize::MAX, usize::MAX).unwrap();
            v.push((t.elapsed(), t1, ix.line_count()));
        }
        v.sort();
        println!(
            "pause {pause}ms: median total {:?} (run {:?})",
            v[7].0, v[7].1
        );
    }
}

/// Whole parses, serial and parallel, with pauses (called from `main` when PARSE=1).
pub fn parses(bytes: &[u8]) {
    use symscope::model::Blob;
    use symscope::symbols::sourcemap::SourceMap;
    let arc: std::sync::Arc<[u8]> = bytes.into();
    for pause in [0u64, 20] {
        for par in [false, true] {
            let mut v = Vec::new();
            for _ in 0..15 {
                std::thread::sleep(std::time::Duration::from_millis(pause));
                let t = std::time::Instant::now();
                let m = if par {
                    SourceMap::parse_with(Blob::from(arc.clone()), &ParallelIndex).unwrap()
                } else {
                    SourceMap::parse(Blob::from(arc.clone())).unwrap()
                };
                v.push(t.elapsed());
                drop(m);
            }
            v.sort();
            println!("parse par={par} pause {pause}ms: median {:?}", v[7]);
        }
    }
}
