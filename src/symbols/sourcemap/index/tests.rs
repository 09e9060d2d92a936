//! The index checked against decoding whole lines, on hand-written and generated mappings.

use super::*;

fn decode_line(ix: &LineIndex, m: &[u8], line: u32) -> Vec<RawSegment> {
    let mut all = Vec::new();
    let mut buf = Vec::new();
    for k in 0..ix.block_count(line) {
        let b = ix.block(line, k).unwrap();
        LineIndex::decode_block(m, &b, &mut buf);
        all.extend_from_slice(&buf);
    }
    all
}

#[test]
fn simple_lines() {
    // Line 0: col 0 → src 0 line 0 col 0; col 4 → src 0 line 0 col 2 name 0.
    // Line 1: empty. Line 2: col 1 → src 0 line 1 col 0.
    let m = b"AAAA,IAAEA;;CACF";
    let ix = LineIndex::build(m, 1, 1).unwrap();
    assert_eq!(ix.line_count(), 3);
    assert_eq!(ix.segment_count(), 3);
    let l0 = decode_line(&ix, m, 0);
    assert_eq!(l0.len(), 2);
    assert_eq!((l0[1].gen_col, l0[1].src_col, l0[1].name), (4, 2, 0));
    assert!(decode_line(&ix, m, 1).is_empty());
    let l2 = decode_line(&ix, m, 2);
    assert_eq!(
        (l2[0].gen_col, l2[0].src_line, l2[0].src_col, l2[0].name),
        (1, 1, 0, NONE)
    );
}

#[test]
fn chunks_stitch_to_the_same_index() {
    let mut m = String::new();
    for line in 0..300 {
        for seg in 0..(line % 150 + 1) {
            if seg > 0 {
                m.push(',');
            }
            m.push_str(if seg % 3 == 0 { "CACA" } else { "EAAAC" });
        }
        m.push(';');
    }
    let m = m.as_bytes();
    let whole = LineIndex::build(m, 1, 1_000_000).unwrap();
    for n in [2, 3, 7, 16] {
        let chunks = split_chunks(m, n)
            .into_iter()
            .map(|r| index_chunk(m, r, 1, 1_000_000))
            .collect();
        let stitched = LineIndex::stitch(chunks, m, 1, 1_000_000).unwrap();
        assert_eq!(stitched.line_count(), whole.line_count());
        assert_eq!(stitched.checkpoint_count(), whole.checkpoint_count());
        for line in 0..whole.line_count() as u32 {
            assert_eq!(
                decode_line(&stitched, m, line),
                decode_line(&whole, m, line),
                "line {line} n {n}"
            );
        }
    }
}

#[test]
fn errors_are_named() {
    assert_eq!(
        LineIndex::build(b"AA!A", 1, 0).unwrap_err().kind,
        ErrorKind::BadBase64
    );
    assert_eq!(
        LineIndex::build(b"AAA", 1, 0).unwrap_err().kind,
        ErrorKind::BadSegmentSize
    );
    assert_eq!(
        LineIndex::build(b"AAAAAA", 1, 1).unwrap_err().kind,
        ErrorKind::BadSegmentSize
    );
    assert_eq!(
        LineIndex::build(b"ACAA", 1, 0).unwrap_err().kind,
        ErrorKind::BadSourceIndex
    );
    assert_eq!(
        LineIndex::build(b"AAAAC", 1, 1).unwrap_err().kind,
        ErrorKind::BadNameIndex
    );
    assert_eq!(
        LineIndex::build(b"ggggggQ", 1, 0).unwrap_err().kind,
        ErrorKind::VlqOverflow
    );
    assert_eq!(
        LineIndex::build(b"gggggggB", 1, 0).unwrap_err().kind,
        ErrorKind::VlqOverflow
    );
    assert_eq!(
        LineIndex::build(b"D", 1, 0).unwrap_err().kind,
        ErrorKind::NegativeValue
    );
    let e = LineIndex::build(b"AAAA;AAAA;ACAA", 1, 0).unwrap_err();
    assert_eq!((e.kind, e.line), (ErrorKind::BadSourceIndex, Some(2)));
    assert!(LineIndex::build(b"", 0, 0).unwrap().line_count() == 1);
}

/// The first chunk takes about the asked share, every chunk after it starts just after a
/// separator, and together they cover `mappings` once.
#[test]
fn a_head_chunk_takes_its_share() {
    let m = "AAAA,CAAC;EAAE,GAAG;".repeat(5_000);
    let m = m.as_bytes();
    for (n, head) in [(2, 50), (16, 50), (16, 30), (5, 90), (3, 0)] {
        let ranges = split_chunks_with_head(m, n, head);
        assert_eq!(ranges[0].start, 0);
        assert_eq!(ranges.last().unwrap().end, m.len());
        for pair in ranges.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
            assert!(matches!(m[pair[1].start - 1], b';' | b','));
        }
        let share = ranges[0].len() * 100 / m.len();
        assert!(share.abs_diff(head) <= 1, "{n} {head}: {share}%");
        assert!(ranges.len() <= n, "{n} {head}: {}", ranges.len());
    }
    // One long line: the head ends after a `,` near its share.
    let line = "AAAA,".repeat(40_000);
    let ranges = split_chunks_with_head(line.as_bytes(), 4, 50);
    assert_eq!(ranges.len(), 4);
    assert!((ranges[0].len() * 100 / line.len()).abs_diff(50) <= 1);
}

/// A first chunk indexed before the counts are known (while the JSON is still read)
/// learns the largest source and name indices; `stitch` then finds a range error there
/// exactly as the serial pass does, and otherwise gives the serial index.
#[test]
fn a_head_indexed_before_the_counts_are_known_is_checked_by_stitch() {
    let mut m = String::new();
    for line in 0..400 {
        for seg in 0..(line % 70 + 1) {
            if seg > 0 {
                m.push(',');
            }
            // Source index 1 and name index 9 appear in the first eighth only.
            m.push_str(match (line, seg) {
                (50, 0) => "ACAAS",
                (60, 0) => "ADAAT",
                _ if seg % 3 == 0 => "CAAA",
                _ => "EAACA",
            });
        }
        m.push(';');
    }
    let m = m.as_bytes();
    for (sources, names) in [(1, 10), (2, 10), (1, 9), (1, 1), (0, 0)] {
        let serial = LineIndex::build(m, sources, names);
        for head in [10, 50, 90] {
            let chunks = split_chunks_with_head(m, 6, head)
                .into_iter()
                .map(|r| index_chunk_unchecked(m, r))
                .collect();
            let early = LineIndex::stitch(chunks, m, sources, names);
            match (&serial, early) {
                (Ok(s), Ok(e)) => {
                    assert_eq!(e.segment_count(), s.segment_count());
                    assert_eq!(e.checkpoint_count(), s.checkpoint_count());
                    for line in (0..s.line_count() as u32).step_by(7) {
                        assert_eq!(decode_line(&e, m, line), decode_line(s, m, line));
                    }
                }
                (Err(s), Err(e)) => {
                    assert_eq!((e.kind, e.line, e.offset), (s.kind, s.line, s.offset));
                }
                (s, e) => panic!(
                    "{sources}/{names} head {head}: serial {:?} vs early {:?}",
                    s.as_ref().err(),
                    e.err()
                ),
            }
        }
    }
    // Source 1 of 2 and name 9 of 10 are in range: the map indexes.
    LineIndex::build(m, 2, 10).unwrap();
    assert_eq!(
        LineIndex::build(m, 1, 10).unwrap_err().kind,
        ErrorKind::BadSourceIndex
    );
}

/// Found by `cargo fuzz` (target `mappings`, input `ICFC`): a lone chunk indexed before the
/// counts were known named its segment's source index (beyond the largest seen so far)
/// where the serial pass names the negative original line.
#[test]
fn regression_early_single_chunk_error_kind() {
    let m = b"ICFC";
    let serial = LineIndex::build(m, 64, 256).unwrap_err();
    assert_eq!(serial.kind, ErrorKind::NegativeValue);
    let chunks = vec![index_chunk_unchecked(m, 0..m.len())];
    let early = LineIndex::stitch(chunks, m, 64, 256).unwrap_err();
    assert_eq!((early.kind, early.offset), (serial.kind, serial.offset));
    // With too few sources the serial pass names the source first, and so does the stitch.
    let serial = LineIndex::build(m, 1, 256).unwrap_err();
    assert_eq!(serial.kind, ErrorKind::BadSourceIndex);
    let chunks = vec![index_chunk_unchecked(m, 0..m.len())];
    let early = LineIndex::stitch(chunks, m, 1, 256).unwrap_err();
    assert_eq!(early.kind, ErrorKind::BadSourceIndex);
}

/// Found by `cargo fuzz` (target `mappings`): a chunk whose first 5-field segment has an
/// out-of-range name passed the chunked range check (its empty starting range looked
/// like "everything"), while the serial pass rejected it.
#[test]
fn regression_chunk_first_name_range() {
    let m = b"AAAA,EAIA;;ACACF";
    let serial = LineIndex::build(m, 64, 256).unwrap_err();
    assert_eq!(serial.kind, ErrorKind::BadNameIndex);
    for n in 2..5 {
        let chunks = split_chunks(m, n)
            .into_iter()
            .map(|r| index_chunk(m, r, 64, 256))
            .collect();
        let chunked = LineIndex::stitch(chunks, m, 64, 256).unwrap_err();
        assert_eq!(chunked.kind, ErrorKind::BadNameIndex, "{n} chunks");
        assert_eq!(chunked.line, Some(2));
    }
}

/// Found by `cargo fuzz` (target `mappings`): with a range problem in one chunk and a
/// syntax error later in the same chunk, the chunked index reported the later error.
#[test]
fn regression_chunked_error_order() {
    let m = b"AAAA;AAAA;AAAA;AAAA;AAAF;AA";
    let serial = LineIndex::build(m, 64, 256).unwrap_err();
    assert_eq!(
        (serial.kind, serial.line),
        (ErrorKind::NegativeValue, Some(4))
    );
    for n in 2..6 {
        let chunks = split_chunks(m, n)
            .into_iter()
            .map(|r| index_chunk(m, r, 64, 256))
            .collect();
        let chunked = LineIndex::stitch(chunks, m, 64, 256).unwrap_err();
        assert_eq!(
            (chunked.kind, chunked.line),
            (serial.kind, serial.line),
            "{n} chunks"
        );
    }
}

/// One huge generated line (minified bundles) is cut inside the line, after a `,`; the
/// stitched index decodes exactly like the serial one, ties, unsorted stretches and range
/// errors across chunk borders included.
#[test]
fn chunks_inside_one_long_line() {
    let enc = |v: i64, out: &mut String| crate::symbols::sourcemap::vlq::encode(out, v);
    for variant in 0..4 {
        let mut m = String::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15 ^ variant;
        for seg in 0..5_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if seg > 0 {
                m.push(',');
            }
            // Mostly increasing columns, some ties; variant 1 goes backwards once (unsorted).
            let dcol = if variant == 1 && seg == 3_700 {
                -40
            } else {
                (x % 7) as i64
            };
            enc(dcol, &mut m);
            enc(0, &mut m);
            enc((x >> 8) as i64 % 3 - 1, &mut m);
            enc((x >> 16) as i64 % 5 - 2, &mut m);
        }
        if variant == 2 {
            m.push_str(";AAAA,CAAC"); // A second line after the long one.
        }
        if variant == 3 {
            m.push_str(",AAAAC"); // Name 1 of 1: a range error at the very end.
        }
        let m = m.as_bytes();
        let serial = LineIndex::build(m, 1, 1);
        for n in 2..12 {
            let ranges = split_chunks(m, n);
            assert!(ranges.len() > 1, "the line is cut");
            let chunks = ranges
                .into_iter()
                .map(|r| index_chunk(m, r, 1, 1))
                .collect();
            let stitched = LineIndex::stitch(chunks, m, 1, 1);
            match (&serial, &stitched) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.line_count(), b.line_count());
                    assert_eq!(a.unsorted, b.unsorted, "variant {variant} n {n}");
                    for line in 0..a.line_count() as u32 {
                        assert_eq!(
                            decode_line(a, m, line),
                            decode_line(b, m, line),
                            "variant {variant} n {n}"
                        );
                        for col in (0..20_000).step_by(37) {
                            let (ba, bb) = (a.block_for(line, col), b.block_for(line, col));
                            let (mut sa, mut sb) = (Vec::new(), Vec::new());
                            LineIndex::decode_block(m, &ba.unwrap(), &mut sa);
                            LineIndex::decode_block(m, &bb.unwrap(), &mut sb);
                            let pick = |v: &[RawSegment]| {
                                v.iter().rev().find(|s| s.gen_col <= col).map(|s| s.gen_col)
                            };
                            assert_eq!(pick(&sa), pick(&sb), "variant {variant} n {n} col {col}");
                        }
                    }
                }
                (Err(a), Err(b)) => assert_eq!((a.kind, a.line), (b.kind, b.line)),
                (a, b) => panic!(
                    "variant {variant} n {n}: {:?} vs {:?}",
                    a.as_ref().err(),
                    b.as_ref().err()
                ),
            }
        }
    }
}

#[test]
fn branchless_count_equals_partition_point() {
    let cols: Vec<u32> = (0..300).map(|i| i * 3 + (i % 7)).collect();
    for n in 0..cols.len() {
        let slice = &cols[..n];
        for x in 0..1000 {
            assert_eq!(
                count_at_most(slice, x),
                slice.partition_point(|&c| c <= x),
                "n {n} x {x}"
            );
        }
    }
}

#[test]
fn unsorted_lines_are_sorted_on_decode() {
    let m = b"IAAA,DAAC,CAAC";
    let ix = LineIndex::build(m, 1, 0).unwrap();
    let cols: Vec<u32> = decode_line(&ix, m, 0).iter().map(|s| s.gen_col).collect();
    assert_eq!(cols, vec![3, 4, 4]);
}

/// Mappings for [`lean_pass_equals_the_general_one`]: lines of up to 200 segments of 1, 4
/// or 5 fields with one- to four-digit terms, and now and then a negative column delta (an
/// unsorted line, or a negative column), an equal column, an empty segment or line, a
/// value out of range, a bad byte or a cut-off end.
fn generated_mappings(seed: u64) -> Vec<u8> {
    use super::super::vlq::encode;
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let mut m = String::new();
    // Source, original line, original column, name.
    let mut acc = [0i64; 4];
    for _ in 0..next(12) + 1 {
        let segments = [1, 5, 70, 200][next(4) as usize];
        for k in 0..next(segments) + 1 {
            if k > 0 {
                m.push(',');
            }
            let col = match next(100) {
                0 => -(next(30) as i64) - 1,
                1 => 0,
                // Two digits.
                2..=4 => next(495) as i64 + 16,
                _ => next(15) as i64 + 1,
            };
            encode(&mut m, col);
            let fields = [1, 4, 4, 4, 5, 5][next(6) as usize];
            if fields == 1 && next(3) == 0 {
                // An empty segment instead.
                m.pop();
                continue;
            }
            let targets = [
                if next(20) == 0 {
                    next(6) as i64
                } else {
                    acc[0]
                },
                (acc[1] + next(7) as i64 - 2).max(0),
                if next(30) == 0 {
                    next(40_000) as i64
                } else {
                    (acc[2] + next(9) as i64 - 4).max(0)
                },
                // Now and then far (a name of two to four digits).
                if next(400) == 0 {
                    next(500_000) as i64
                } else {
                    next(4) as i64
                },
            ];
            for (f, target) in targets.into_iter().enumerate().take(fields - 1) {
                // Now and then past the counts or negative.
                let target = match next(4_000) {
                    0 => -1,
                    1 => [6, 4, 400, 40][f],
                    _ => target,
                };
                encode(&mut m, target - acc[f]);
                acc[f] = target;
            }
            if next(2_000) == 0 {
                m.push(['!', '"', 'A', 'g'][next(4) as usize]);
            }
        }
        m.push(';');
        if next(8) == 0 {
            m.push(';');
        }
    }
    let mut m = m.into_bytes();
    if next(4) == 0 {
        m.truncate(next(m.len() as u64 + 1) as usize);
    }
    m
}

/// A vendored corpus map (under `tests/fixtures/js`), as JSON.
fn corpus_json(path: &str) -> serde_json::Value {
    let path = format!("{}/tests/fixtures/js/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The lean pass takes every corpus map, with its own source and name counts, without handing
/// it to the general pass (which finds the same, only slower), and its plain loop takes
/// nearly every segment: the rest go term by term. The Hermes map has no names (a check of
/// its name index on segments without one left every segment to the slow path).
#[test]
fn the_plain_loop_takes_nearly_every_segment_of_the_corpus_maps() {
    use super::pass::{LEFT_BY_PLAIN, empty_chunk, index_lean};
    for path in [
        "pdfjs-dist-worker/pdf.worker.mjs.map",
        "three-esbuild/three.min.js.map",
        "metro-hermes/index.android.bundle.hbc.map",
        "react-dom-server-esbuild/react-dom-server.min.js.map",
    ] {
        let json = corpus_json(path);
        let m = json["mappings"].as_str().unwrap().as_bytes();
        let count = |key: &str| json[key].as_array().map_or(0, |a| a.len() as u64);
        let (sources, names) = (count("sources"), count("names"));
        let segments = m
            .split(|&b| b == b',' || b == b';')
            .filter(|s| !s.is_empty());
        let segments = segments.count() as u64;
        for learn in [false, true] {
            let mut ix = empty_chunk(m, 0..m.len());
            LEFT_BY_PLAIN.with(|c| c.set(0));
            let done = if learn {
                index_lean::<true, true>(m, 0, (0, 0), [0; 4], None, None, &mut ix)
            } else {
                index_lean::<true, false>(m, 0, (sources, names), [0; 4], None, None, &mut ix)
            };
            assert!(done.is_ok(), "{path} {learn}");
            let left = LEFT_BY_PLAIN.with(|c| c.get());
            assert!(
                left * 10 < segments,
                "{path} {learn}: {left} of {segments} segments left by the plain loop"
            );
        }
    }
}

/// The lean pass finds what the general pass finds, for the whole string and for chunks
/// cut at `;` and inside lines, with the counts known or learned: on the corpus's largest
/// maps and on 3,000 generated mappings.
#[test]
fn lean_pass_equals_the_general_one() {
    let mut inputs: Vec<Vec<u8>> = (0..3_000).map(generated_mappings).collect();
    for path in [
        "pdfjs-dist-worker/pdf.worker.mjs.map",
        "three-esbuild/three.min.js.map",
        "index-map-rxjs-lodash/vendor.min.js.map",
    ] {
        let json = corpus_json(path);
        let mut add = |v: &serde_json::Value| {
            if let Some(m) = v["mappings"].as_str() {
                inputs.push(m.as_bytes().to_vec());
            }
        };
        add(&json);
        json["sections"]
            .as_array()
            .into_iter()
            .flatten()
            .for_each(|s| add(&s["map"]));
    }
    let (mut errors, mut unsorted, mut checkpoints) = (0, 0, 0);
    let (mut mid_line, mut partial_unsorted) = (0, 0);
    for m in &inputs {
        for counts in [
            None,
            Some((6, 4)),
            Some((6, 0)),
            Some((400, 40)),
            Some((1 << 20, 1 << 20)),
        ] {
            let lean = index_chunk_by(m, 0..m.len(), counts, true);
            let general = index_chunk_by(m, 0..m.len(), counts, false);
            assert_eq!(lean, general, "{counts:?} {:?}", String::from_utf8_lossy(m));
            errors += usize::from(lean.error.is_some());
            unsorted += lean.unsorted.len();
            checkpoints += lean.checkpoints.len();
        }
        // Chunks cut after every few separators, `;` or `,` alike.
        let cuts: Vec<usize> = (1..m.len())
            .filter(|&i| matches!(m[i - 1], b',' | b';'))
            .collect();
        let ends: Vec<usize> = cuts
            .iter()
            .copied()
            .step_by(cuts.len() / 6 + 1)
            .chain([m.len()])
            .collect();
        for r in ends.windows(2).map(|w| w[0]..w[1]) {
            let lean = index_chunk_by(m, r.clone(), None, true);
            let general = index_chunk_by(m, r.clone(), None, false);
            assert_eq!(lean, general, "{r:?} {:?}", String::from_utf8_lossy(m));
            mid_line += usize::from(lean.mid_line);
            partial_unsorted += usize::from(lean.partial_unsorted);
        }
    }
    // The generated inputs reach every branch of the pass.
    assert!(
        errors > 1_000 && unsorted > 1_000 && checkpoints > 1_000,
        "{errors} {unsorted} {checkpoints}"
    );
    assert!(errors < 10_000, "{errors} of 15,000 passes failed");
    assert!(
        mid_line > 500 && partial_unsorted > 50,
        "{mid_line} {partial_unsorted}"
    );
}

/// A map indexed as far as a line, then grown from there with the accumulators entering the
/// next line (the lazy reader's growth), stitches to the index of the whole string, or to its
/// error: on 3,000 generated mappings (faults included) cut after every few `;`, and on the
/// corpus's largest map. The head chunk gone on with to the end (the growth on one core,
/// [`resume_chunk`]) is the chunk of the whole string, field for field.
#[test]
fn a_chunk_entering_known_accumulators_stitches_as_the_whole() {
    let mut inputs: Vec<Vec<u8>> = (0..3_000).map(generated_mappings).collect();
    let path = format!(
        "{}/tests/fixtures/js/pdfjs-dist-worker/pdf.worker.mjs.map",
        env!("CARGO_MANIFEST_DIR")
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    inputs.push(json["mappings"].as_str().unwrap().as_bytes().to_vec());
    let (sources, names) = (6, 4);
    let (mut grown, mut faults, mut resumed_heads) = (0, 0, 0);
    for (k, m) in inputs.iter().enumerate() {
        let (sources, names) = if k == 3_000 {
            (1 << 20, 1 << 20)
        } else {
            (sources, names)
        };
        let whole = LineIndex::build(m, sources, names);
        let whole_chunk = index_chunk(m, 0..m.len(), sources, names);
        let semis: Vec<usize> = memchr::memchr_iter(b';', m).map(|i| i + 1).collect();
        for &cut in semis.iter().step_by(semis.len() / 5 + 1) {
            let head = index_chunk(m, 0..cut, sources, names);
            let resumed = resume_chunk(m, head.clone(), 0, [0; 4], m.len(), sources, names);
            assert_eq!(resumed, whole_chunk, "resumed at {cut}");
            resumed_heads += 1;
            let Ok(head_index) = LineIndex::stitch(vec![head.clone()], &m[..cut], sources, names)
            else {
                continue; // The fault is in the head: the growth never starts.
            };
            let last = head_index.line_count() as u32 - 1;
            let s = head_index.block(last, 0).unwrap().state;
            let entering = [s.source, s.src_line, s.src_col, s.name].map(i64::from);
            let tail = index_chunk_entering(m, cut..m.len(), sources, names, entering);
            let stitched = LineIndex::stitch(vec![head, tail], m, sources, names);
            match (&whole, &stitched) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.line_count(), b.line_count());
                    assert_eq!(a.segment_count(), b.segment_count());
                    assert_eq!(a.checkpoint_count(), b.checkpoint_count());
                    assert_eq!(a.unsorted_lines(), b.unsorted_lines());
                    for line in 0..a.line_count() as u32 {
                        assert_eq!(decode_line(a, m, line), decode_line(b, m, line));
                    }
                    grown += 1;
                }
                (Err(a), Err(b)) => {
                    assert_eq!(format!("{a:?}"), format!("{b:?}"));
                    faults += 1;
                }
                _ => panic!(
                    "whole {:?} vs grown {:?} at {cut}",
                    whole.as_ref().err(),
                    stitched.as_ref().err()
                ),
            }
        }
    }
    assert!(
        grown > 1_000 && faults > 100 && resumed_heads > grown + faults,
        "{grown} grown, {faults} faults, {resumed_heads} resumed"
    );
}

/// A segment of every shape of one- to four-digit terms, one to six of them (the shapes the
/// index pass's fast path takes, and those next to them that it must refuse). The valid ones
/// (one, four or five terms) in one map, each twice: ending its line, and between two plain
/// segments, each followed by a segment that undoes its deltas; indexed and decoded line by
/// line as the `sourcemap` crate decodes them. The others (two, three or six terms), between
/// plain segments, at a line's end and at the end of `mappings`, and segments with a term
/// left unfinished: refused, as that crate refuses them.
#[test]
fn segment_shapes_decode_as_the_sourcemap_crate_does() {
    use super::super::vlq::encode;
    // Positive deltas of one, two, three and four digits.
    const VALUES: [i64; 4] = [3, 100, 600, 20_000];
    const COUNT: usize = 20_001;
    let shapes = |terms: u32| {
        (0..4usize.pow(terms)).map(move |shape| {
            (0..terms)
                .map(|k| VALUES[(shape / 4usize.pow(k)) % 4])
                .collect::<Vec<i64>>()
        })
    };
    let vlq = |values: &[i64]| {
        let mut out = String::new();
        for &v in values {
            encode(&mut out, v);
        }
        out
    };
    let json = |count: usize, mappings: &str| {
        let list = |prefix: &str| {
            let items: Vec<String> = (0..count).map(|k| format!("\"{prefix}{k}\"")).collect();
            items.join(",")
        };
        format!(
            r#"{{"version":3,"sources":[{}],"names":[{}],"mappings":"{mappings}"}}"#,
            list("s"),
            list("n")
        )
    };

    let mut mappings = String::new();
    for terms in [1, 4, 5] {
        for values in shapes(terms) {
            let probe = vlq(&values);
            // The probe's source, line, column and name deltas undone.
            let undo: Vec<i64> = values.iter().skip(1).map(|v| -v).collect();
            let (at_start, after) = if undo.is_empty() {
                ("AAAA".to_owned(), String::new())
            } else {
                (format!("A{}", vlq(&undo)), format!(",C{}", vlq(&undo)))
            };
            mappings += &format!("AAAA,{probe};{at_start},CAAA;AAAA,{probe}{after},CAAA;");
        }
    }
    // And one ending `mappings` (four-digit deltas of 20,000: `ginB`).
    mappings += &format!("AAAA,G{}", "ginB".repeat(4));
    let theirs = sourcemap::SourceMap::from_slice(json(COUNT, &mappings).as_bytes()).unwrap();
    let ix = LineIndex::build(mappings.as_bytes(), COUNT, COUNT).unwrap();
    let mut expected: Vec<Vec<RawSegment>> = vec![Vec::new(); ix.line_count()];
    for t in theirs.tokens() {
        // A one-term segment: the crate says !0 where we keep 0.
        let one = t.get_src_id() == NONE;
        expected[t.get_dst_line() as usize].push(RawSegment {
            gen_col: t.get_dst_col(),
            source: t.get_src_id(),
            src_line: if one { 0 } else { t.get_src_line() },
            src_col: if one { 0 } else { t.get_src_col() },
            name: t.get_name_id(),
        });
    }
    assert_eq!(ix.line_count(), 3 * (4 + 256 + 1024) + 1);
    for (line, expected) in expected.iter().enumerate() {
        let ours = decode_line(&ix, mappings.as_bytes(), line as u32);
        assert_eq!(&ours, expected, "line {line}");
    }

    let mut refused = 0;
    for terms in [2, 3, 6] {
        for values in shapes(terms) {
            let probe = vlq(&values);
            for mappings in [
                format!("AAAA,{probe},CAAA;AAAAA"),
                format!("AAAA,{probe};AAAAA"),
                format!("AAAA,{probe}"),
            ] {
                let theirs = sourcemap::SourceMap::from_slice(json(1, &mappings).as_bytes());
                let ours = LineIndex::build(mappings.as_bytes(), COUNT, COUNT);
                assert!(ours.is_err() && theirs.is_err(), "{mappings}");
                refused += 1;
            }
        }
    }
    // A term left unfinished (one to four continuing digits, then a separator or the end)
    // after zero to five whole ones.
    for whole in 0..=5 {
        for continuing in 1..=4 {
            let segment = format!("{}{}", "C".repeat(whole), "g".repeat(continuing));
            for next in [",AAAA", ";AAAA", ",A,AAAA", ";A;AAAA", ""] {
                let mappings = format!("AAAA,{segment}{next}");
                let theirs = sourcemap::SourceMap::from_slice(json(1, &mappings).as_bytes());
                let ours = LineIndex::build(mappings.as_bytes(), COUNT, COUNT);
                assert!(
                    ours.is_err() && theirs.is_err(),
                    "{mappings}: {:?} {:?}",
                    ours.err(),
                    theirs.err()
                );
                refused += 1;
            }
        }
    }
    assert_eq!(refused, 3 * (16 + 64 + 4096) + 6 * 4 * 5);
}

/// A pass told to stop inside a line stops at the first checkpoint past the column, only
/// where the rest of the line is in column order, and resumed from there makes the chunk the
/// pass makes without a stop: on 3,000 generated mappings (lines out of order and faults
/// included), and at many columns of the corpus maps' longest lines.
#[test]
fn a_pass_stopped_inside_a_line_resumes_to_the_whole() {
    let mut inputs: Vec<(Vec<u8>, Vec<Stop>)> = (0..3_000)
        .map(|seed| {
            let m = generated_mappings(seed);
            let lines = memchr::memchr_iter(b';', &m).count() as u32 + 1;
            let stops = (0..3)
                .map(|k| Stop {
                    line: (seed as u32 + k) % lines,
                    col: (seed as u32 * 7 + k * 100) % 400,
                    min_rest: [0, 40, 400][k as usize],
                })
                .collect();
            (m, stops)
        })
        .collect();
    for path in [
        "three-esbuild/three.min.js.map",
        "lodash-terser/lodash.min.js.map",
        "react-dom-server-esbuild/react-dom-server.min.js.map",
    ] {
        let json = corpus_json(path);
        let m = json["mappings"].as_str().unwrap().as_bytes().to_vec();
        let (line, len) = m
            .split(|&b| b == b';')
            .enumerate()
            .map(|(k, l)| (k as u32, l.len() as u32))
            .max_by_key(|&(_, len)| len)
            .unwrap();
        let stops = (0..20)
            .map(|k| Stop {
                line,
                col: len / 20 * k,
                min_rest: 1 << 12,
            })
            .collect();
        inputs.push((m, stops));
    }
    let (mut stopped, mut out_of_order, mut short) = (0, 0, 0);
    for (m, stops) in &inputs {
        let (sources, names) = (400, 40);
        let full = index_chunk(m, 0..m.len(), sources, names);
        for &stop in stops {
            let part = index_chunk_until(m, 0..m.len(), sources, names, [0; 4], Some(stop));
            let end = part.end();
            // The checkpoints of the stop's line the whole pass makes, past the column.
            let line_cps = |ix: &ChunkIndex| {
                let Some(entry) = ix.lines.get(stop.line as usize) else {
                    return Vec::new();
                };
                let to = ix
                    .lines
                    .get(stop.line as usize + 1)
                    .map_or(ix.checkpoints.len(), |l| l.first_cp as usize);
                ix.checkpoints[entry.first_cp as usize..to].to_vec()
            };
            let past = line_cps(&full)
                .into_iter()
                .find(|c| c.first_gen_col > stop.col);
            if end == m.len() {
                assert_eq!(part, full);
                if full.error.is_some() {
                } else if full.unsorted.contains(&stop.line) {
                    // Out of order (before or after the column): decoded whole.
                    out_of_order += 1;
                } else if let Some(cp) = past {
                    // In order, with a checkpoint past the column: its rest is too short.
                    let rest = &m[cp.offset as usize..];
                    let rest = &rest[..memchr::memchr(b';', rest).unwrap_or(rest.len())];
                    assert!(rest.len() < stop.min_rest, "{stop:?}");
                    short += 1;
                }
                continue;
            }
            stopped += 1;
            // Stopped just where the whole pass has its first checkpoint past the column (a
            // line out of order has none).
            let cp = past.expect("a line in order");
            assert_eq!(end, cp.offset as usize, "{stop:?}");
            assert_eq!(line_cps(&part).last(), Some(&cp));
            assert!(m[end..].len() >= stop.min_rest);
            let resumed = resume_chunk(m, part, 0, [0; 4], m.len(), sources, names);
            assert_eq!(resumed, full, "{stop:?}");
        }
    }
    // Every outcome is reached.
    assert!(
        stopped > 100 && out_of_order > 100 && short > 30,
        "{stopped} {out_of_order} {short}"
    );
}
