//! Entry points shared by the `cargo fuzz` targets (`fuzz/`) and the test that replays their
//! corpus in CI (`tests/fuzz_corpus.rs`). Each must return normally on any input: a panic or
//! a hang is a bug.

use crate::engine::{self, AddSymbols as _, Detected, FrameTable};
use crate::formats;
use crate::model::{Blob, NoProgress, Serial};
use crate::symbolicate::{self, Options, SymbolSet};
use crate::symbols::sourcemap::{
    LineIndex, RawSegment, RegularMap, SourceMap, Stop, index_chunk, index_chunk_by,
    index_chunk_entering, index_chunk_unchecked, index_chunk_until, resume_chunk, split_chunks,
    split_chunks_with_head,
};

/// Parses any bytes as a source map, serially and in chunks (which must agree); when that
/// succeeds, looks up positions derived from the input and decodes lines, and reads sources,
/// names and contents.
pub fn sourcemap(data: &[u8]) {
    let serial = SourceMap::parse(data.to_vec());
    // In chunks (run in reverse order), the map must parse and decode the same.
    let chunked = SourceMap::parse_with(Blob::from(data), &ReverseChunks);
    let map = match (serial, chunked) {
        (Ok(a), Ok(b)) => {
            for (x, y) in a.regular_maps().iter().zip(b.regular_maps()) {
                let lines = |m: &RegularMap| m.index().map(|i| i.line_count()).ok();
                assert_eq!(lines(x), lines(y));
                for line in 0..lines(x).unwrap_or(0).min(64) as u32 {
                    assert_eq!(x.line_segments(line), y.line_segments(line), "line {line}");
                }
            }
            a
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.kind, b.kind);
            // Read lazily, the map fails with the same fault when indexed whole (unless the
            // JSON read found none: then the fault is in `mappings`).
            if let Ok(lazy) = SourceMap::parse_lazy(data.to_vec(), &ReverseChunks) {
                let whole: Result<Vec<usize>, _> = lazy
                    .regular_maps()
                    .iter()
                    .map(|m| m.index().map(|i| i.line_count()))
                    .collect();
                assert_eq!(whole.err().map(|e| e.kind), Some(a.kind));
            }
            return;
        }
        (a, b) => panic!("serial {:?} vs chunked {:?}", a.err(), b.err()),
    };
    let probes: Vec<(u32, u32)> = data
        .chunks(4)
        .take(64)
        .map(|c| {
            let v = c
                .iter()
                .fold(0u32, |a, &b| a.wrapping_mul(131).wrapping_add(u32::from(b)));
            (v % 8, v % 4096)
        })
        .chain([(0, 0), (1, 1), (u32::MAX, u32::MAX)])
        .collect();
    // Read lazily (indexed as the probes ask, in their order), the map answers every probe
    // as the map indexed whole does.
    if let Ok(lazy) = SourceMap::parse_lazy(data.to_vec(), &ReverseChunks) {
        for &(line, col) in &probes {
            let seg = |m: &SourceMap| {
                m.lookup(line, col)
                    .map(|t| t.map(|t| (t.gen_col(), t.source_index(), t.src_line(), t.src_col())))
            };
            assert_eq!(
                seg(&lazy).ok(),
                seg(&map).ok(),
                "lazy look-up at {line}:{col}"
            );
        }
    }
    for (line, col) in probes {
        if let Ok(Some(t)) = map.lookup(line, col) {
            let _ = (
                t.source(),
                t.source_path(),
                t.name(),
                t.is_ignored(),
                t.function_map_name(),
            );
        }
    }
    for m in map.regular_maps() {
        for line in 0..m.index().map_or(0, |i| i.line_count()).min(16) as u32 {
            let _ = m.line_segments(line);
        }
        for i in 0..m.source_count().min(8) as u32 {
            let _ = m.source_content(i);
            // The line lengths read without decoding equal the decoded text's (where the
            // text decodes as written: no lone surrogate escapes).
            if let (Some(text), Some(lengths)) = (m.source_content(i), m.source_line_lengths(i))
                && !text.contains('\u{fffd}')
            {
                let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
                let decoded: Vec<u32> = normalized
                    .split('\n')
                    .map(|l| l.encode_utf16().count() as u32)
                    .collect();
                assert_eq!(lengths, decoded, "source {i}");
            }
        }
        let _ = (m.has_hermes_offsets(), m.hermes_function_at(100));
    }
    // The inspector's tools (issue #22) on any map that parses: never a panic, and the map
    // doctor reports on several threads what it reports on one.
    let bundle = data.get(..data.len().min(256));
    let serial = crate::engine::doctor::check_map(&map, bundle, &mut NoProgress);
    let chunked =
        crate::engine::doctor::check_map_with(&map, bundle, &ReverseChunks, &mut NoProgress);
    assert_eq!(serial, chunked);
    let index = crate::symbols::sourcemap::OriginalIndex::of(&map);
    for (source, _) in index.sources().iter().enumerate().take(4) {
        for line in index.mapped_lines(source as u32).into_iter().take(4) {
            for bias in [
                crate::symbols::sourcemap::Bias::GreatestLowerBound,
                crate::symbols::sourcemap::Bias::LeastUpperBound,
            ] {
                let _ = index.generated_position_for(source as u32, line, 3, bias);
                let _ = index.all_generated_positions_for(source as u32, line, 3, bias);
            }
        }
    }
    let text = crate::model::SourceText::new(String::from_utf8_lossy(data).into_owned());
    let _ = crate::engine::map_search::search_map(&map, Some(&text), "a", &mut NoProgress);
    if let Some(diff) = crate::engine::map_diff::diff_maps(&map, &map, &mut NoProgress) {
        assert_eq!(diff.differing_total, 0, "a map compared with itself");
    }
}

/// A runner that cuts work into three chunks and runs them one after the other, last first.
struct ReverseChunks;

impl crate::model::ChunkRunner for ReverseChunks {
    fn chunks_for(&self, _len: usize) -> usize {
        3
    }

    fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..n).rev().for_each(task);
    }
}

/// Indexes any bytes as a `mappings` string, serially and in chunks, and checks that the
/// chunked index decodes every line exactly as the serial one, and that the lean pass finds
/// what the general pass finds.
pub fn mappings(data: &[u8]) {
    let (sources, names) = (64, 256);
    let cuts = std::iter::once(0).chain(split_chunks(data, 3).into_iter().map(|r| r.end));
    for (k, start) in cuts.enumerate() {
        let range = start.min(data.len())..data.len();
        let counts = [Some((sources, names)), None][k % 2];
        assert_eq!(
            index_chunk_by(data, range.clone(), counts, true),
            index_chunk_by(data, range, counts, false)
        );
    }
    stopped_and_resumed(data, sources, names);
    let serial = LineIndex::build(data, sources, names);
    // Equal chunks with the counts known, and a head chunk plus the rest indexed before the
    // counts are known (as while the JSON is still being read).
    for (n, early) in [(2, false), (3, false), (3, true), (4, true)] {
        let chunks = if early {
            split_chunks_with_head(data, n, 50)
                .into_iter()
                .map(|r| index_chunk_unchecked(data, r))
                .collect()
        } else {
            split_chunks(data, n)
                .into_iter()
                .map(|r| index_chunk(data, r, sources, names))
                .collect()
        };
        let stitched = LineIndex::stitch(chunks, data, sources, names);
        match (&serial, &stitched) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.line_count(), b.line_count());
                for line in 0..a.line_count() as u32 {
                    assert_eq!(
                        decode_line(a, data, line),
                        decode_line(b, data, line),
                        "line {line}"
                    );
                }
            }
            (Err(a), Err(b)) => assert_eq!(a.kind, b.kind),
            (a, b) => panic!(
                "serial {:?} vs chunked {:?}",
                a.as_ref().err(),
                b.as_ref().err()
            ),
        }
    }
    // Grown as a map read lazily grows: indexed up to a `;`, then on from there with the
    // accumulators entering the next line.
    let semis: Vec<usize> = memchr::memchr_iter(b';', data).map(|i| i + 1).collect();
    for cut in [semis.first(), semis.get(semis.len() / 2)]
        .into_iter()
        .flatten()
    {
        let head = index_chunk(data, 0..*cut, sources, names);
        let Ok(head_index) = LineIndex::stitch(vec![head.clone()], &data[..*cut], sources, names)
        else {
            continue;
        };
        let last = head_index.line_count().saturating_sub(1) as u32;
        let Some(s) = head_index.block(last, 0).map(|b| b.state) else {
            continue;
        };
        let entering = [s.source, s.src_line, s.src_col, s.name].map(i64::from);
        let tail = index_chunk_entering(data, *cut..data.len(), sources, names, entering);
        let grown = LineIndex::stitch(vec![head, tail], data, sources, names);
        match (&serial, &grown) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.line_count(), b.line_count());
                for line in 0..a.line_count() as u32 {
                    assert_eq!(decode_line(a, data, line), decode_line(b, data, line));
                }
            }
            (Err(a), Err(b)) => assert_eq!(a.kind, b.kind),
            (a, b) => panic!(
                "serial {:?} vs grown {:?}",
                a.as_ref().err(),
                b.as_ref().err()
            ),
        }
    }
}

/// A pass stopped inside a line (as a map read lazily stops on a long line) and resumed
/// makes the chunk the pass makes without a stop; the stopped index answers the stop's line
/// with a prefix of its segments, all that come before the segment it stopped at.
fn stopped_and_resumed(data: &[u8], sources: usize, names: usize) {
    let lines = memchr::memchr_iter(b';', data).count() as u32 + 1;
    let seed = data
        .iter()
        .fold(0u32, |h, &b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let stop = Stop {
        line: seed % lines,
        col: seed % 97,
        min_rest: 0,
    };
    let full = index_chunk(data, 0..data.len(), sources, names);
    let stopped = index_chunk_until(data, 0..data.len(), sources, names, [0; 4], Some(stop));
    let end = stopped.end();
    if end == data.len() {
        assert_eq!(stopped, full);
        return;
    }
    assert_eq!(data.get(end - 1), Some(&b','));
    if let (Ok(part), Ok(whole)) = (
        LineIndex::stitch(vec![stopped.clone()], &data[..end], sources, names),
        LineIndex::stitch(vec![full.clone()], data, sources, names),
    ) {
        for line in 0..stop.line {
            assert_eq!(
                decode_line(&part, data, line),
                decode_line(&whole, data, line)
            );
        }
        let head = decode_line(&part, data, stop.line);
        let all = decode_line(&whole, data, stop.line);
        assert_eq!(head[..], all[..head.len()]);
        // The line is in column order: the segment the pass stopped at is past the column,
        // and no later one is before it.
        let next = all.get(head.len()).map_or(u32::MAX, |s| s.gen_col);
        assert!(next > stop.col);
        assert!(head.iter().all(|s| s.gen_col < next));
        assert!(all[head.len()..].iter().all(|s| s.gen_col >= next));
    }
    let resumed = resume_chunk(data, stopped, 0, [0; 4], data.len(), sources, names);
    assert_eq!(resumed, full);
}

fn decode_line(ix: &LineIndex, data: &[u8], line: u32) -> Vec<RawSegment> {
    let mut all = Vec::new();
    let mut buf = Vec::new();
    for k in 0..ix.block_count(line) {
        if let Some(b) = ix.block(line, k) {
            LineIndex::decode_block(data, &b, &mut buf);
            all.extend_from_slice(&buf);
        }
    }
    all
}

/// Indexes any bytes as a ProGuard/R8 mapping, serially and in chunks (the same classes
/// must be found), then deobfuscates frames named by the input's own dotted words and a small
/// Java trace against it.
pub fn proguard(data: &[u8]) {
    use crate::symbols::proguard::Mapping;
    let serial = Mapping::parse(Blob::from(data));
    let chunked = Mapping::parse_with(Blob::from(data), &ReverseChunks);
    match (&serial, &chunked) {
        (Ok(a), Ok(b)) => assert_eq!(a.class_count(), b.class_count()),
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("serial and chunked scans disagree"),
    }
    let Ok(mapping) = serial else { return };
    let text = String::from_utf8_lossy(data);
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ':' || c == '(')
        .filter(|w| !w.is_empty())
        .take(64)
        .collect();
    let subset = mapping.subset(words.iter().copied());
    let mut stack = subset.stack();
    stack.throwable(words.first().copied().unwrap_or("a"));
    for (i, w) in words.iter().enumerate() {
        let method = words.get(i + 1).copied().unwrap_or("a");
        let line = u32::try_from(i * 7).ok();
        let _ = stack.frame(w, method, Some("SourceFile"), line);
        let _ = stack.frame(w, method, None, None);
        // A JIT frame's signature (`RET CLASS.METHOD(ARGS)`) narrowing the candidates.
        let arguments: Vec<&str> = words.iter().skip(i + 2).take(2).copied().collect();
        let signature = crate::symbols::proguard::Signature {
            returns: words.get(i + 2).copied().unwrap_or("int"),
            arguments: &arguments,
        };
        let _ = stack.frame_with_signature(w, method, None, None, Some(signature));
    }
    let mut symbols = SymbolSet::new();
    symbols.add("mapping.txt", Blob::from(data)).ok();
    let trace = formats::parse_text(
        "java.lang.IllegalStateException: a.a\n\tat a.a.a(SourceFile:2)\n\tat a.b.c(Unknown Source)\nCaused by: a.b: x\n\tat a.a.a(SourceFile:4)\n\t... 1 more\n",
    );
    let _ = symbolicate::symbolicate(&trace, &symbols, Options::default(), &mut NoProgress);
}

/// Parses any bytes as a log and symbolicates it against no symbols and a tiny map; the
/// compact frame table of the result gives the result back exactly, the engine's journey
/// (the log streamed into its table, symbolicated from it) gives the same result, and a
/// JavaScript log streamed window by window writes the same output as its whole table.
pub fn stack_parsers(data: &[u8]) {
    let _ = formats::peek(data);
    let trace = formats::parse_log(data);
    let mut symbols = SymbolSet::new();
    let map = br#"{"version":3,"file":"a.js","sources":["src/a.ts"],"sourcesContent":["f(x)\nthis.g(y)"],"names":["f","g"],"mappings":"AAAAA;AACA,IAAIC"}"#;
    symbols.add("a.js.map", Blob::from(&map[..])).ok();
    let mapping = "com.example.Main -> a.a:\n    1:3:void run():10:12 -> a\n    1:3:void main(java.lang.String[]):5 -> a\n    4:4:void run() -> a\ncom.example.Boom -> a.b:\n";
    symbols.add("mapping.txt", Blob::from(mapping)).ok();
    if let symbolicate::Outcome::Done(result) =
        symbolicate::symbolicate(&trace, &symbols, Options::default(), &mut NoProgress)
    {
        let table = FrameTable::from_trace(&trace, Some(&result));
        assert_eq!(table.to_result().as_ref(), Some(&result));
        for (s, stack) in trace.stacks.iter().enumerate() {
            for (f, frame) in stack.frames.iter().enumerate() {
                assert_eq!(
                    table.frame(s, f).map(|fr| fr.raw()),
                    Some(frame.raw.as_str())
                );
            }
        }
        // Its JSON document reads back into a table with the same signature (what
        // `buckets --from-jsonl` buckets by).
        let json = engine::report::Json {
            table: &table,
            warnings: &[],
            total_ms: 0.0,
        };
        let doc = serde_json::to_value(&json).expect("our document serialises");
        let back = engine::report::table_of_document(&doc).expect("our document reads back");
        if let Some(s) = engine::signature::signed_stack(&table) {
            let sign = |t: &FrameTable| engine::signature::signature(t, s, 5).fingerprint();
            assert_eq!(sign(&back), sign(&table));
        }
    }
    // Any JSON read as a symbolicated log: a table or an error, never a panic.
    if let Ok(doc) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = engine::report::table_of_document(&doc);
    }
    let file = Detected::new("log", Blob::from(data));
    if let Ok(log) = engine::read_log(&file, &engine::Cfi::new(), &mut NoProgress) {
        let journey = log.symbolicate(&symbols, Options::default(), &mut NoProgress);
        let direct =
            symbolicate::symbolicate(&trace, &symbols, Options::default(), &mut NoProgress);
        if let (Ok(journey), symbolicate::Outcome::Done(mut direct)) = (journey, direct)
            && let Some(mut journey) = journey.table.to_result()
        {
            // The same phases, timed apart.
            for timing in journey.timings.iter_mut().chain(&mut direct.timings) {
                timing.ms = 0.0;
            }
            assert_eq!(journey, direct);
        }
        if let Ok(done) = log.symbolicate(&symbols, Options::default(), &mut NoProgress) {
            signatures_and_diffs(&done.table);
        }
    }
    let _ = symbolicate::symbolicate(
        &trace,
        &SymbolSet::new(),
        Options {
            column_base: Some(0),
        },
        &mut NoProgress,
    );
    streams_as_whole(data, &symbols);
}

/// A JavaScript log streamed a line at a time through small windows (`engine::stream`)
/// writes the same JSON and text as its whole table.
fn streams_as_whole(data: &[u8], symbols: &SymbolSet) {
    use crate::engine::report::{self, Output};
    use crate::engine::stream::{Reader, Symbolicator};
    if !crate::engine::stream::can_stream(data) {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let file = Detected::new("log", Blob::from(data));
    let Ok(log) = engine::read_log(&file, &engine::Cfi::new(), &mut NoProgress) else {
        return;
    };
    let options = Options {
        column_base: Some(1),
    };
    let Ok(done) = log.symbolicate(symbols, options, &mut NoProgress) else {
        return;
    };
    let untimed = |json: &[u8]| {
        let mut v: serde_json::Value = serde_json::from_slice(json).expect("our JSON");
        v["timings"] = serde_json::Value::Null;
        v
    };
    let json = engine::report::Json {
        table: &done.table,
        warnings: &[],
        total_ms: 0.0,
    };
    let mut whole_json = Vec::new();
    report::write_json(&json, false, &mut whole_json).expect("writing to memory");
    let mut whole_text = Vec::new();
    report::write_text(&done.table, &[], &mut whole_text).expect("writing to memory");
    for window in [1, 3] {
        for output in [Output::Json { path: None }, Output::Text] {
            let json = output != Output::Text;
            let mut out = Vec::new();
            let mut run = Symbolicator::new(symbols, 1, output, &mut out).expect("in memory");
            let mut reader = Reader::new(window);
            for line in text.split_inclusive('\n') {
                for w in reader.feed(line) {
                    run.window(w, &mut out).expect("in memory");
                }
            }
            for w in reader.finish() {
                run.window(w, &mut out).expect("in memory");
            }
            run.finish(&[], 0.0, &mut out).expect("in memory");
            if json {
                assert_eq!(untimed(&out), untimed(&whole_json));
            } else {
                assert_eq!(out, whole_text);
            }
        }
    }
}

/// A log's signatures, buckets and stack diffs: a stack compared with itself is the same
/// frame by frame; its signature's fingerprint is the same each time; bucketing the log twice
/// gives one bucket of two.
fn signatures_and_diffs(table: &std::sync::Arc<FrameTable>) {
    use crate::engine::{buckets::Bucketing, signature, stack_diff};
    let n = table.stack_count();
    for s in 0..n.min(8) {
        let sig = signature::signature(table, s, 5);
        assert_eq!(
            sig.fingerprint(),
            signature::signature(table, s, 5).fingerprint()
        );
        let same = stack_diff::diff(table, s, table, s);
        assert_eq!(same.rows.len(), table.stack_len(s));
        assert!(same.rows.iter().all(|r| r.kind() == "same"), "{same:?}");
        let _ = stack_diff::diff(table, s, table, n - 1 - s);
    }
    if n > 0 {
        let mut b = Bucketing::new(5);
        let first = b.add(0, table);
        assert_eq!(b.add(1, table), first);
        let buckets = b.finish();
        assert_eq!(buckets.len(), usize::from(first.is_some()));
        for b in &buckets {
            assert_eq!(b.count(), 2);
            let _ = (b.title(), b.top_frame());
        }
    }
}

/// Reads any bytes as JavaScript and finds the function enclosing positions derived from the
/// input (each `@` marks one, removed): the names found must be identifiers inside the text,
/// and where the whole text parses, the slices must give what the whole parse gives.
pub fn scopes(data: &[u8]) {
    use crate::symbols::scopes::{Scope, enclosing_functions, enclosing_functions_whole};
    let text = String::from_utf8_lossy(data);
    let mut offsets: Vec<usize> = text.match_indices('@').map(|(i, _)| i).collect();
    for (k, at) in offsets.iter_mut().enumerate() {
        *at -= k;
    }
    let src = text.replace('@', "");
    if offsets.is_empty() {
        offsets = vec![0, src.len() / 3, src.len() / 2, src.len()];
    }
    offsets.truncate(16);
    let found = enclosing_functions(&src, &offsets);
    assert_eq!(found.len(), offsets.len());
    for f in found.iter().flatten() {
        assert!(f.function_at <= src.len());
        if let Scope::Named(parts) = &f.scope {
            for r in parts {
                let name = src.get(r.clone()).expect("a name inside the text");
                assert!(!name.is_empty());
            }
        }
    }
    let whole = enclosing_functions_whole(&src, &offsets);
    for ((slices, whole), at) in found.iter().zip(&whole).zip(&offsets) {
        if let (Some(s), Some(w)) = (slices, whole) {
            assert_eq!(
                (&s.scope, s.function_at),
                (&w.scope, w.function_at),
                "at {at}"
            );
        }
    }
}

/// Reads any bytes as a WebAssembly module's layout, and as a native debug file (ELF,
/// Mach-O, PE, PDB, Breakpad, WebAssembly, through `symbolic`); when one converts, looks addresses up in every object, writes the cache file
/// and reads it back; then reads the input itself as a cache file, and checks that DWARF
/// read in shares gives what it gives read in one.
pub fn native_symbols(data: &[u8]) {
    use crate::symbols::native::{NativeSymbols, WasmModule};
    // A WebAssembly module's layout: read or refused, never a panic; bodies in order.
    if let Ok(module) = WasmModule::parse(data) {
        let count = module.imported.saturating_add(module.bodies.len() as u32);
        for index in [0, module.imported, count.saturating_sub(1), count, u32::MAX] {
            let _ = (module.body(index), module.name(index));
        }
        assert!(module.bodies.windows(2).all(|w| w[0].end <= w[1].start));
    }
    if let Ok(native) = NativeSymbols::convert(data, None) {
        let probes = data
            .chunks(8)
            .take(32)
            .map(|c| c.iter().fold(0u64, |a, &b| a << 8 | u64::from(b)));
        for addr in probes.chain([0, 1, 0x1000, u64::MAX]) {
            for o in native.objects() {
                let _ = (o.lookup(addr), o.cfi());
            }
        }
        let written = native.to_cache_bytes();
        let back = written.and_then(|w| NativeSymbols::from_cache_bytes(&w));
        assert!(back.is_some(), "a cache file we wrote must read back");
    }
    let _ = NativeSymbols::from_cache_bytes(data).map(|n| n.lookup(0x1000));
    // Read in three shares and merged, the debug information gives what one share gives.
    crate::symbols::native::check_shares(data, 3);
    // The lazy reader (issue #21) never panics on any input, and answers as the SymCache
    // does where the SymCache answers with DWARF (file and line).
    let blob = Blob::from(data.to_vec());
    let opened = NativeSymbols::open(&blob, None, &Serial, &mut NoProgress);
    if let Ok(opened) = opened
        && opened.is_lazy()
    {
        let lazy = &opened.objects()[0];
        let single = NativeSymbols::convert(data, None).ok();
        let probes = data
            .chunks(8)
            .take(32)
            .map(|c| c.iter().fold(0u64, |a, &b| a << 8 | u64::from(b)));
        for addr in probes.chain([0, 1, 0x1000, u64::MAX]) {
            let ours = lazy.lookup(addr);
            if let Some(native) = &single
                && native.objects().len() == 1
            {
                let theirs = native.objects()[0].lookup(addr);
                if theirs.iter().all(|l| l.file.is_some()) && !theirs.is_empty() {
                    assert_eq!(ours, theirs, "lazy and SymCache answers at {addr:#x}");
                }
            }
        }
    }
}

/// Reads any bytes as a V8 CPU profile (and as trace events, Chrome's and Hermes'); when one
/// parses, the profile must hold together
/// (parents first, samples naming nodes, times in order), every view of it must be written
/// without a panic, and the rewritten profile must read back with the same samples. A V8
/// profile read as totals (`symscope profile`'s rankings) must agree with the whole reading.
pub fn cpuprofile(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // The trace-event forms read the same bytes: chunks, and Hermes' stack frames.
    if let Ok((profiles, tracks)) = formats::trace_events::parse_trace(&text) {
        for p in profiles {
            check_profile(p.profile);
        }
        // A thread's events of one depth never overlap.
        for t in &tracks.threads {
            for d in 0..=t.events.iter().map(|e| e.depth).max().unwrap_or(0) {
                let mut row: Vec<_> = t.events.iter().filter(|e| e.depth == d).collect();
                row.sort_by_key(|e| e.start_us);
                assert!(row.windows(2).all(|w| w[0].end_us <= w[1].start_us));
                assert!(row.iter().all(|e| (e.name as usize) < tracks.names.len()));
            }
        }
    }
    if let Ok(Some(p)) = formats::trace_events::parse_hermes(&text) {
        // The scanner's reading is serde's wherever serde reads the file too.
        if let Ok(Some(q)) = formats::trace_events::parse_hermes_with_serde(&text) {
            assert_eq!(p, q, "the Hermes scanner and serde disagree");
        }
        check_profile(p);
    }
    // A sampling heap profile: a tree parents first, a total per node.
    if let Ok(p) = formats::cpuprofile::parse_heap_profile(&text) {
        let t = p.totals.as_ref().expect("a heap profile is read as totals");
        assert_eq!(
            (t.self_us.len(), t.hits.len()),
            (p.nodes.len(), p.nodes.len())
        );
        check_profile(p);
    }
    let whole = formats::cpuprofile::parse(&text);
    // Read holding the sample ids or reading them again: the same answer.
    let bytes: std::sync::Arc<[u8]> = data.into();
    let reopen = move |at: u64| -> std::io::Result<Box<dyn std::io::Read>> {
        let mut c = std::io::Cursor::new(bytes.clone());
        c.set_position(at);
        Ok(Box::new(c))
    };
    assert_eq!(
        format!("{:?}", formats::cpuprofile::read_totals(data).ok()),
        format!(
            "{:?}",
            formats::cpuprofile::read_totals_reopening(data, &reopen).ok()
        )
    );
    // What the totals reader takes, the whole reader reads to the same totals.
    if let (Ok(Some(t)), Ok(true)) = (
        formats::cpuprofile::read_totals(data),
        std::str::from_utf8(data).map(|_| true),
    ) {
        let whole = whole.as_ref().expect("the whole reader reads it too");
        assert_eq!(
            (&t.nodes, &t.locations, &t.warnings),
            (&whole.nodes, &whole.locations, &whole.warnings)
        );
        assert_eq!((t.start_us, t.end_us), (whole.start_us, whole.end_us));
        assert_eq!(t.self_us(), whole.self_us(), "self times");
        assert_eq!(t.hits(), whole.hits());
        assert_eq!(t.sample_count(), whole.samples.len());
    }
    if let Ok(profile) = whole {
        check_profile(profile);
    }
    if let Ok(threads) = formats::perf_script::parse(&text) {
        for t in threads {
            check_profile(t.profile);
        }
    }
}

/// What must hold of any profile read (see [`cpuprofile`]).
fn check_profile(profile: crate::model::Profile) {
    for (i, n) in profile.nodes.iter().enumerate() {
        assert!(n.parent.is_none_or(|p| (p as usize) < i), "parents first");
        assert!((n.location as usize) < profile.locations.len());
    }
    assert!(
        profile
            .samples
            .iter()
            .all(|&s| (s as usize) < profile.nodes.len())
    );
    assert!(profile.times_us.windows(2).all(|w| w[0] <= w[1]));
    let samples = profile.samples.len();
    // A mapping, for a perf profile's JIT-compiled Java methods.
    let mut symbols = SymbolSet::new();
    let mapping = "com.example.Main -> a.a:\n    int run(a.b) -> a\n    long run() -> a\ncom.example.Boom -> a.b:\n";
    symbols.add("mapping.txt", Blob::from(mapping)).ok();
    let Ok(resolved) = engine::profile::symbolicate_profile(
        "fuzz",
        std::sync::Arc::new(profile),
        &symbols,
        &mut NoProgress,
    ) else {
        return;
    };
    let _ = resolved.to_text(Some(10));
    let _ = resolved.collapsed();
    // The window's views: bars of a row in order, never overlapping; trees add up.
    let chart = engine::flame::flame_chart(&resolved.profile);
    for row in &chart.rows {
        assert!(row.windows(2).all(|w| w[0].end <= w[1].start));
    }
    for (min_len, level) in chart.levels() {
        for (row, coarse) in chart.rows.iter().zip(&level.rows) {
            assert!(coarse.windows(2).all(|w| w[0].end <= w[1].start));
            // Every bar at least `min_len` long is kept as it was.
            let long = row.iter().filter(|s| s.end - s.start >= min_len);
            assert!(long.clone().all(|s| coarse.contains(s)));
        }
    }
    let functions = engine::flame::Functions::new(&resolved);
    let down = engine::flame::top_down(&resolved.profile, &functions, None, false);
    let up = engine::flame::bottom_up(&resolved.profile, &functions, None, true);
    assert_eq!(down.total_us, up.total_us);
    for row in &down.flame_graph().rows {
        assert!(row.windows(2).all(|w| w[0].end <= w[1].start));
    }
    let _ = resolved.to_json(None);
    let again = serde_json::to_string(&resolved.to_cpuprofile()).unwrap_or_default();
    let back = formats::cpuprofile::parse(&again).expect("the rewritten profile reads back");
    assert_eq!(back.samples.len(), samples);
}

/// Reads any bytes as a V8 heap snapshot; when one reads, its analysis must hold together:
/// the root dominates itself and retains every byte, each node retains at least itself and
/// no more than its dominator, the Summary's counts and self sizes add up to the nodes', a
/// snapshot compared with itself changes nothing, and every retaining path starts at the
/// root and ends at its node.
pub fn heapsnapshot(data: &[u8]) {
    // The edges read beside the nodes on a second thread: the same answer, or the same error.
    let bytes: std::sync::Arc<[u8]> = data.into();
    let reopen = move |at: u64| -> std::io::Result<Box<dyn std::io::Read>> {
        let mut c = std::io::Cursor::new(bytes.clone());
        c.set_position(at);
        Ok(Box::new(c))
    };
    let beside = engine::heap::read_heap_with(
        "fuzz",
        data,
        data.len() as u64,
        Some((&reopen, &crate::jobs::ParallelIndex)),
        &mut NoProgress,
    );
    let read = engine::heap::read_heap("fuzz", data);
    match (&read, &beside) {
        (Ok(a), Ok(b)) => assert_eq!(a.summary(), b.summary()),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("read beside: {:?}", beside.as_ref().err()),
    }
    let Ok(heap) = read else {
        return;
    };
    let n = heap.node_count() as u32;
    assert_eq!(heap.dominator(0), 0);
    assert_eq!(heap.retained_size(0), heap.total_size());
    for k in 0..n {
        assert!(heap.retained_size(k) >= heap.self_size(k));
        assert!(heap.retained_size(heap.dominator(k)) >= heap.retained_size(k));
    }
    let summary = heap.summary();
    let counted: u64 = summary.iter().map(|r| r.self_size).sum();
    assert!(counted <= heap.total_size());
    assert!(summary.iter().all(|r| r.retained_size >= r.self_size));
    assert!(heap.compare(&heap).is_empty());
    // A class's largest objects: the first of its objects by retained size, in node order.
    for row in summary.iter().take(3) {
        let mut all = heap.objects_of(row.class, usize::MAX);
        all.sort_by_key(|&o| std::cmp::Reverse(heap.retained_size(o)));
        all.truncate(2);
        assert_eq!(heap.largest_objects(row.class, 2), all);
    }
    for k in (0..n).step_by((n as usize / 8).max(1)) {
        if let Some(path) = heap.retaining_path(k) {
            let mut at = 0;
            for e in path {
                assert_eq!(heap.edge_from(e), at);
                at = heap.edge_to(e);
            }
            assert_eq!(at, k);
        }
        let _ = heap.dominated(k);
    }
    // A timeline's allocation stacks: the tree as a profile, and the file rewritten (no
    // symbols: every frame's name set to itself) reads again with the same frames.
    if let Some((profile, _)) = engine::allocations::allocation_profile(&heap) {
        assert_eq!(profile.nodes.len(), heap.trace_nodes().len());
        let symbols = SymbolSet::default();
        if let Ok(Some(a)) =
            engine::allocations::resolve_allocations("fuzz", &heap, &symbols, &mut NoProgress)
        {
            let mut out = Vec::new();
            if engine::allocations::write_symbolicated("fuzz", data, &heap, &a, &mut out).is_ok() {
                let again = engine::heap::read_heap("fuzz", out.as_slice())
                    .expect("a rewritten snapshot reads again");
                let frames = |h: &engine::heap::Heap| -> Vec<(String, String, u32, u32)> {
                    h.trace_functions()
                        .iter()
                        .map(|f| {
                            let s = |i| h.string(i).to_owned();
                            (s(f.name), s(f.script_name), f.line, f.column)
                        })
                        .collect()
                };
                assert_eq!(frames(&again), frames(&heap));
            }
        }
    }
}
