//! Property test: for every segment of every corpus map, our decoder and look-up equal the
//! `sourcemap` crate's (the oracle), wherever the crate answers on the same generated line.

use std::path::{Path, PathBuf};
use symscope::symbols::sourcemap::{SourceMap, Token};

fn corpus_maps() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).into_iter().flatten())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "map"))
        .collect();
    out.sort();
    assert_eq!(out.len(), 10, "the ten corpus maps");
    out
}

/// A comparable view of a look-up result: (gen line, gen col, source, src line, src col, name).
type View = (
    u32,
    u32,
    Option<String>,
    Option<u32>,
    Option<u32>,
    Option<String>,
);

fn ours_view(t: &Token<'_>, line_offset: u32, col_offset: u32) -> View {
    let first_line = t.gen_line == 0;
    (
        t.gen_line + line_offset,
        t.gen_col() + if first_line { col_offset } else { 0 },
        t.source().map(|s| s.into_owned()),
        t.src_line(),
        t.src_col(),
        t.name().map(|s| s.into_owned()),
    )
}

fn theirs_view(t: &sourcemap::Token<'_>) -> View {
    let has_src = t.get_source().is_some();
    (
        t.get_dst_line(),
        t.get_dst_col(),
        t.get_source().map(str::to_owned),
        has_src.then(|| t.get_src_line()),
        has_src.then(|| t.get_src_col()),
        t.get_name().map(str::to_owned),
    )
}

/// The crate's regular map for a corpus file (index maps flattened).
fn oracle_map(bytes: &[u8]) -> sourcemap::SourceMap {
    match sourcemap::decode_slice(bytes).unwrap() {
        sourcemap::DecodedMap::Regular(m) => m,
        sourcemap::DecodedMap::Index(ix) => ix.flatten().unwrap(),
        sourcemap::DecodedMap::Hermes(h) => (*h).clone(),
    }
}

/// Our look-up at (line, col), as a view in whole-file coordinates.
fn our_lookup(map: &SourceMap, line: u32, col: u32) -> Option<View> {
    let token = map.lookup(line, col).unwrap()?;
    // Index maps: tokens are in section coordinates; find the section's offset.
    let (lo, co) = match map {
        SourceMap::Regular(_) => (0, 0),
        SourceMap::Index(ix) => {
            let k = ix
                .sections()
                .partition_point(|s| (s.line, s.column) <= (line, col));
            let s = &ix.sections()[k - 1];
            (s.line, s.column)
        }
    };
    Some(ours_view(&token, lo, co))
}

#[test]
fn every_segment_of_every_corpus_map_matches_the_sourcemap_crate() {
    let mut segments = 0usize;
    let mut lookups = 0usize;
    for path in corpus_maps() {
        let bytes = std::fs::read(&path).unwrap();
        let ours = SourceMap::parse(bytes.clone()).unwrap();
        let theirs = oracle_map(&bytes);
        let ctx = path.file_name().unwrap().to_string_lossy().into_owned();

        // 1. The full decode: every token of the crate, in order, equals ours.
        let all: Vec<View> = theirs.tokens().map(|t| theirs_view(&t)).collect();
        if let SourceMap::Regular(m) = &ours {
            let mut mine = Vec::new();
            for line in 0..m.index().unwrap().line_count() as u32 {
                for seg in m.line_segments(line) {
                    mine.push(ours_view(&m.token(line, seg), 0, 0));
                }
            }
            assert_eq!(mine.len(), all.len(), "{ctx}: segment count");
            for (a, b) in mine.iter().zip(&all) {
                assert_eq!(a, b, "{ctx}: decoded segment");
            }
        }

        // 2. Look-ups at each segment, between segments and past the end of each line.
        for (i, t) in all.iter().enumerate() {
            let (line, col) = (t.0, t.1);
            let next_col = all.get(i + 1).filter(|n| n.0 == line).map(|n| n.1);
            let mut probes = vec![col];
            match next_col {
                Some(n) if n > col + 1 => probes.push(n - 1),
                None => probes.push(col + 1000),
                _ => {}
            }
            for probe in probes {
                let Some(expected) = theirs.lookup_token(line, probe).map(|t| theirs_view(&t))
                else {
                    continue;
                };
                if expected.0 != line {
                    continue; // The crate answered from an earlier line; we never do.
                }
                let got = our_lookup(&ours, line, probe);
                assert_eq!(
                    got.as_ref(),
                    Some(&expected),
                    "{ctx}: look-up at {line}:{probe}"
                );
                lookups += 1;
            }
            segments += 1;
        }
    }
    // The corpus README counts 747,811 segments in all; the index map's flattening keeps them.
    assert!(segments > 700_000, "{segments} segments");
    assert!(lookups > segments, "{lookups} look-ups");
}

/// Where the crate answers from an earlier line (a column before the line's first segment),
/// we answer nothing, as trace-mapping and browsers do.
#[test]
fn before_the_first_segment_of_a_line_there_is_no_answer() {
    let map = br#"{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA;EACA"}"#;
    let ours = SourceMap::parse(map.to_vec()).unwrap();
    assert!(ours.lookup(1, 0).unwrap().is_none());
    assert!(ours.lookup(1, 2).unwrap().is_some());
    let theirs = sourcemap::SourceMap::from_slice(map).unwrap();
    assert_eq!(
        theirs.lookup_token(1, 0).map(|t| t.get_dst_line()),
        Some(0),
        "the crate differs here"
    );
}

/// Indexed on all cores (the first chunk while the JSON is still read, the rest in chunks
/// stitched together), every corpus map decodes and looks up exactly as indexed on one core.
/// (The in-line checkpoints may sit elsewhere: a chunk that starts inside a line counts its
/// segments from its own start.)
#[test]
fn every_corpus_map_indexed_on_all_cores_decodes_as_on_one() {
    use symscope::jobs::ParallelIndex;
    use symscope::model::Blob;
    use symscope::model::ChunkRunner;
    let mut chunked = 0;
    for path in corpus_maps() {
        let ctx = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let one = SourceMap::parse(bytes.clone()).unwrap();
        let all = SourceMap::parse_with(Blob::from(bytes), &ParallelIndex).unwrap();
        let (one, all) = (one.regular_maps(), all.regular_maps());
        assert_eq!(one.len(), all.len(), "{ctx}");
        for (a, b) in one.iter().zip(&all) {
            let (ia, ib) = (a.index().unwrap(), b.index().unwrap());
            assert_eq!(ia.line_count(), ib.line_count(), "{ctx}");
            assert_eq!(ia.segment_count(), ib.segment_count(), "{ctx}");
            for line in 0..ia.line_count() as u32 {
                let segments = a.line_segments(line);
                assert_eq!(segments, b.line_segments(line), "{ctx} {line}");
                // Look-ups go through the in-line checkpoints, which chunks place themselves.
                for col in segments.iter().flat_map(|s| [s.gen_col, s.gen_col + 1]) {
                    let (x, y) = (a.lookup(line, col).unwrap(), b.lookup(line, col).unwrap());
                    assert_eq!(
                        x.map(|t| t.segment),
                        y.map(|t| t.segment),
                        "{ctx} {line}:{col}"
                    );
                }
            }
        }
        chunked += usize::from(ParallelIndex.chunks_for(all[0].index().unwrap().byte_len()) > 1);
    }
    // pdf.worker's and three.min.js's maps are big enough to be cut into chunks.
    assert!(chunked >= 2, "{chunked} maps chunked");
}

/// Read lazily (`mappings` indexed only as far as the lines looked up, grown as later ones
/// are), on one core and on all, every corpus map answers the crate's look-ups at each of its
/// segments exactly, asked in an order that jumps back and forth (each growth starts where the
/// last stopped; a line already indexed is never indexed again).
#[test]
fn every_corpus_map_read_lazily_looks_up_as_the_sourcemap_crate() {
    use symscope::jobs::ParallelIndex;
    use symscope::model::Serial;
    let mut lazy_maps = 0;
    for path in corpus_maps() {
        let ctx = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let theirs = oracle_map(&bytes);
        let all: Vec<View> = theirs.tokens().map(|t| theirs_view(&t)).collect();
        let eager = SourceMap::parse(bytes.clone()).unwrap();
        for (k, lazy) in [
            SourceMap::parse_lazy(bytes.clone(), &Serial).unwrap(),
            SourceMap::parse_lazy(bytes.clone(), &ParallelIndex).unwrap(),
        ]
        .into_iter()
        .enumerate()
        {
            // A stride through the segments: lines far apart, then back.
            let n = all.len();
            let stride = (n / 7).max(1) | 1;
            let mut first = true;
            for i in 0..n {
                let t = &all[(i * stride + n / 3) % n];
                let (line, col) = (t.0, t.1);
                let Some(expected) = theirs.lookup_token(line, col).map(|t| theirs_view(&t)) else {
                    continue;
                };
                if expected.0 != line {
                    continue;
                }
                assert_eq!(
                    our_lookup(&lazy, line, col).as_ref(),
                    Some(&expected),
                    "{ctx} ({k}): lazy look-up at {line}:{col}"
                );
                if first {
                    first = false;
                    // One look-up indexes the map only as far as its line (the index that
                    // answers it, as it is: asked for a whole line, it would grow).
                    if let SourceMap::Regular(m) = &lazy {
                        let lines = m.index_at(line, col).unwrap().line_count();
                        let whole = match &eager {
                            SourceMap::Regular(e) => e.index().unwrap().line_count(),
                            SourceMap::Index(_) => unreachable!(),
                        };
                        if (line as usize) + 2 < whole {
                            assert!(!m.is_indexed(), "{ctx}: indexed whole for line {line}");
                            assert!(lines < whole, "{ctx}: {lines} of {whole} lines");
                            lazy_maps += 1;
                        }
                    }
                }
            }
            // Indexed whole in the end, it is the eager map's index.
            for (a, b) in lazy.regular_maps().iter().zip(eager.regular_maps()) {
                let (ia, ib) = (a.index().unwrap(), b.index().unwrap());
                assert_eq!(ia.line_count(), ib.line_count(), "{ctx}");
                assert_eq!(ia.segment_count(), ib.segment_count(), "{ctx}");
                assert!(a.is_indexed());
            }
        }
    }
    // pdf.worker's, three.min.js's and other many-line maps were indexed in part first.
    assert!(lazy_maps >= 4, "{lazy_maps} maps indexed in part");
}

/// Read lazily and looked up from four threads at once (as `buckets` does with one map and
/// many logs), the biggest corpus map grows under its lock and answers every thread as the
/// map indexed whole does.
#[test]
fn a_map_read_lazily_answers_threads_that_grow_it_at_once() {
    use symscope::model::Serial;
    let path = corpus_maps()
        .into_iter()
        .find(|p| p.ends_with("pdf.worker.mjs.map"))
        .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let eager = SourceMap::parse(bytes.clone()).unwrap();
    let lazy = SourceMap::parse_lazy(bytes, &Serial).unwrap();
    let SourceMap::Regular(whole) = &eager else {
        panic!("a regular map")
    };
    let lines = whole.index().unwrap().line_count() as u32;
    let answer = |m: &SourceMap, line: u32, col: u32| {
        m.lookup(line, col)
            .unwrap()
            .map(|t| (t.gen_col(), t.source_index(), t.src_line(), t.src_col()))
    };
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let (lazy, eager) = (&lazy, &eager);
            s.spawn(move || {
                // Each thread walks the lines in its own order: up, down, strided.
                for k in 0..2_000u32 {
                    let line = match t {
                        0 => k * lines / 2_000,
                        1 => lines - 1 - k * lines / 2_000,
                        _ => (k * 7_919 + t * 13) % lines,
                    };
                    for col in [0, 17, 200] {
                        assert_eq!(
                            answer(lazy, line, col),
                            answer(eager, line, col),
                            "thread {t}, {line}:{col}"
                        );
                    }
                }
            });
        }
    });
    let SourceMap::Regular(m) = &lazy else {
        panic!("a regular map")
    };
    assert!(m.is_indexed(), "grown to the end by the threads");
}
