//! Profiling helper: times the parts of the index pass over a corpus map's mappings
//! (`cargo run --release --example index_profile -- three-esbuild/three.min.js.map`).
use symscope::symbols::sourcemap::{LineIndex, index_chunk};
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
    let reps: u32 = std::env::var("REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let t = std::time::Instant::now();
    let mut chunks = Vec::new();
    for _ in 0..reps {
        chunks.push(index_chunk(m, 0..m.len(), usize::MAX, usize::MAX));
    }
    let e1 = t.elapsed() / reps;
    let t = std::time::Instant::now();
    let mut n = 0;
    for c in chunks {
        n += LineIndex::stitch(vec![c], m, usize::MAX, usize::MAX)
            .unwrap()
            .line_count();
    }
    let e2 = t.elapsed() / reps;
    let t = std::time::Instant::now();
    let mut s = 0u64;
    for _ in 0..reps {
        for &b in m {
            s = s.wrapping_add(symscope::symbols::sourcemap::vlq::class(b) as u64);
        }
    }
    let e3 = t.elapsed() / reps;
    println!(
        "{n} {s} chunk {:?} ({:.0} MB/s) stitch {:?} class-loop {:?}",
        e1,
        m.len() as f64 / 1e6 / e1.as_secs_f64(),
        e2,
        e3
    );
}
