//! The map doctor (`engine::doctor`, `symscope check-map`, issue #22 part 2) on the corpus
//! maps: clean, no errors (and `unused_name` equal to what the `sourcemap` crate's tokens
//! leave unused); with defects planted in three.js's map and bundle, each kind found with its
//! exact count; and the CLI's exit codes and JSON.

mod common;

use common::{arg, js};
use serde_json::{Value, json};
use symscope::engine::doctor::{MapReport, ProblemKind, check_map};
use symscope::model::NoProgress;
use symscope::symbols::sourcemap::{RawSegment, SourceMap, vlq};

/// The corpus maps, with their bundles.
const MAPS: &[(&str, &str)] = &[
    (
        "three-esbuild/three.min.js.map",
        "three-esbuild/three.min.js",
    ),
    (
        "lodash-terser/lodash.min.js.map",
        "lodash-terser/lodash.min.js",
    ),
    (
        "pdfjs-dist-worker/pdf.worker.mjs.map",
        "pdfjs-dist-worker/pdf.worker.mjs",
    ),
    (
        "react-dom-server-esbuild/react-dom-server.min.js.map",
        "react-dom-server-esbuild/react-dom-server.min.js",
    ),
    ("rxjs-esbuild/rxjs.min.js.map", "rxjs-esbuild/rxjs.min.js"),
    (
        "index-map-rxjs-lodash/vendor.min.js.map",
        "index-map-rxjs-lodash/vendor.min.js",
    ),
];

fn check(map: &[u8], bundle: Option<&[u8]>) -> MapReport {
    let map = SourceMap::parse(map.to_vec()).unwrap();
    check_map(&map, bundle, &mut NoProgress)
}

fn count(report: &MapReport, kind: ProblemKind) -> u64 {
    report.problem(kind).map_or(0, |p| p.count)
}

/// Names no token of the map uses, by the `sourcemap` crate (regular maps only).
fn unused_names_by_the_crate(map: &[u8]) -> Option<u64> {
    let sm = sourcemap::SourceMap::from_slice(map).ok()?;
    let mut used = vec![false; sm.get_name_count() as usize];
    for t in sm.tokens() {
        let id = t.get_raw_token().name_id;
        if let Some(u) = used.get_mut(id as usize) {
            *u = true;
        }
    }
    Some(used.iter().filter(|u| !**u).count() as u64)
}

/// Spread over the threads of the jobs layer, the doctor reports exactly what it reports on
/// one: the same counts, the same first examples.
#[test]
fn the_doctor_on_two_threads_reports_the_same() {
    use symscope::engine::doctor::check_map_with;
    for (map, bundle) in MAPS {
        let bytes = std::fs::read(js(map)).unwrap();
        let bundle = std::fs::read(js(bundle)).unwrap();
        let parsed = SourceMap::parse(bytes).unwrap();
        let serial = check_map(&parsed, Some(&bundle), &mut NoProgress);
        let parallel = check_map_with(
            &parsed,
            Some(&bundle),
            &symscope::jobs::ParallelIndex,
            &mut NoProgress,
        );
        assert_eq!(serial, parallel, "{map}");
    }
    // And with defects in many places.
    let monaco_like = std::fs::read(js("pdfjs-dist-worker/pdf.worker.mjs.map")).unwrap();
    let mut p = Planted::new(&monaco_like);
    for l in (0..p.lines.len()).step_by(97) {
        if let Some(s) = p.lines[l].iter_mut().find(|s| s.has_source()) {
            s.src_line += 1_000_000;
        }
    }
    let parsed = SourceMap::parse(p.write()).unwrap();
    let serial = check_map(&parsed, None, &mut NoProgress);
    let parallel = check_map_with(
        &parsed,
        None,
        &symscope::jobs::ParallelIndex,
        &mut NoProgress,
    );
    assert!(
        serial
            .problem(ProblemKind::OriginalOutOfRange)
            .unwrap()
            .count
            > 500
    );
    assert_eq!(serial, parallel);
}

/// Cut into many pieces, long lines at their blocks (lodash's bundle is 9 lines, one of
/// them most of it), the doctor reports exactly what it reports in one piece; with planted
/// segments past their line's end and unmapped stretches, in a long line too.
#[test]
fn the_doctor_cuts_long_lines_and_reports_the_same() {
    use symscope::engine::doctor::check_map_with;
    /// Asks for many pieces, runs them one after the other.
    struct ManyPieces;
    impl symscope::model::ChunkRunner for ManyPieces {
        fn chunks_for(&self, _len: usize) -> usize {
            50
        }
        fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
            (0..n).for_each(task);
        }
    }
    for (map, bundle) in MAPS {
        let bytes = std::fs::read(js(map)).unwrap();
        let bundle = std::fs::read(js(bundle)).unwrap();
        let parsed = SourceMap::parse(bytes.clone()).unwrap();
        let whole = check_map(&parsed, Some(&bundle), &mut NoProgress);
        let cut = check_map_with(&parsed, Some(&bundle), &ManyPieces, &mut NoProgress);
        assert_eq!(whole, cut, "{map}");
        if !matches!(parsed, SourceMap::Regular(_)) {
            continue;
        }
        // Every 50th segment made sourceless (unmapped columns) and every 70th moved past
        // its generated line's end.
        let mut p = Planted::new(&bytes);
        let mut k = 0;
        for line in &mut p.lines {
            for s in line.iter_mut() {
                k += 1;
                if k % 50 == 0 {
                    s.source = symscope::symbols::sourcemap::NONE;
                }
                if k % 70 == 0 {
                    s.gen_col += 10_000_000;
                }
            }
            line.sort_by_key(|s| s.gen_col);
        }
        let parsed = SourceMap::parse(p.write()).unwrap();
        let whole = check_map(&parsed, Some(&bundle), &mut NoProgress);
        let cut = check_map_with(&parsed, Some(&bundle), &ManyPieces, &mut NoProgress);
        assert!(
            whole
                .problem(ProblemKind::GeneratedOutOfRange)
                .is_some_and(|p| p.count > 10),
            "{map}"
        );
        assert_eq!(whole, cut, "{map}");
    }
}

#[test]
fn corpus_maps_have_no_errors() {
    for (map, bundle) in MAPS {
        let bytes = std::fs::read(js(map)).unwrap();
        let bundle = std::fs::read(js(bundle)).unwrap();
        let report = check(&bytes, Some(&bundle));
        assert!(!report.has_errors(), "{map}: {report:#?}");
        assert!(report.stats.segments > 10_000, "{map}: {:?}", report.stats);
        if let Some(unused) = unused_names_by_the_crate(&bytes) {
            assert_eq!(count(&report, ProblemKind::UnusedName), unused, "{map}");
        }
    }
}

/// A map's fields, its segments decoded line by line, to plant defects in and write back.
struct Planted {
    json: Value,
    lines: Vec<Vec<RawSegment>>,
    /// Extra `mappings` text to put after the first `,` of line 0 (an empty segment).
    empty_segment: bool,
}

impl Planted {
    fn new(bytes: &[u8]) -> Self {
        let json: Value = serde_json::from_slice(bytes).unwrap();
        let SourceMap::Regular(map) = SourceMap::parse(bytes.to_vec()).unwrap() else {
            panic!("a regular map");
        };
        let lines = (0..map.index().unwrap().line_count() as u32)
            .map(|l| map.line_segments(l))
            .collect();
        Self {
            json,
            lines,
            empty_segment: false,
        }
    }

    /// The map's JSON with `mappings` encoded from the (possibly changed) segments.
    fn write(&self) -> Vec<u8> {
        let mut mappings = String::new();
        let (mut source, mut src_line, mut src_col, mut name) = (0i64, 0i64, 0i64, 0i64);
        for (k, line) in self.lines.iter().enumerate() {
            if k > 0 {
                mappings.push(';');
            }
            let mut col = 0i64;
            for (j, s) in line.iter().enumerate() {
                if j > 0 {
                    mappings.push(',');
                }
                if k == 0 && j == 1 && self.empty_segment {
                    mappings.push(',');
                }
                vlq::encode(&mut mappings, i64::from(s.gen_col) - col);
                col = i64::from(s.gen_col);
                if s.has_source() {
                    vlq::encode(&mut mappings, i64::from(s.source) - source);
                    vlq::encode(&mut mappings, i64::from(s.src_line) - src_line);
                    vlq::encode(&mut mappings, i64::from(s.src_col) - src_col);
                    (source, src_line, src_col) = (
                        i64::from(s.source),
                        i64::from(s.src_line),
                        i64::from(s.src_col),
                    );
                    if s.name != symscope::symbols::sourcemap::NONE {
                        vlq::encode(&mut mappings, i64::from(s.name) - name);
                        name = i64::from(s.name);
                    }
                }
            }
        }
        let mut json = self.json.clone();
        json["mappings"] = Value::String(mappings);
        serde_json::to_vec(&json).unwrap()
    }
}

/// Lengths of the bundle's lines in columns (three.min.js is ASCII).
fn bundle_lines(bundle: &[u8]) -> Vec<u32> {
    bundle
        .split(|&b| b == b'\n')
        .map(|l| l.len() as u32)
        .collect()
}

#[test]
fn planted_defects_are_found_with_their_counts() {
    let bytes = std::fs::read(js("three-esbuild/three.min.js.map")).unwrap();
    let bundle = std::fs::read(js("three-esbuild/three.min.js")).unwrap();
    let clean = check(&bytes, Some(&bundle));
    assert!(!clean.has_errors());
    let mut p = Planted::new(&bytes);
    // Written back unchanged, the map reads the same.
    assert_eq!(check(&p.write(), Some(&bundle)), clean);
    let lens = bundle_lines(&bundle);
    // Lines with several segments, each a different line for each defect.
    let busy: Vec<usize> = (0..p.lines.len())
        .filter(|&l| p.lines[l].len() >= 4 && lens[l] > 0)
        .collect();
    let mut busy = busy.into_iter();
    let mut next = || busy.next().unwrap();
    let content: Vec<String> = p.json["sourcesContent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    let src_lines: Vec<Vec<usize>> = content
        .iter()
        .map(|c| c.split('\n').map(|l| l.encode_utf16().count()).collect())
        .collect();
    // 3 original lines past the end of their source, 2 columns past the end of their line.
    for _ in 0..3 {
        let l = next();
        let s = &mut p.lines[l][1];
        s.src_line = src_lines[s.source as usize].len() as u32 + 7;
    }
    for _ in 0..2 {
        let l = next();
        let s = &mut p.lines[l][1];
        let len = src_lines[s.source as usize][s.src_line as usize];
        s.src_col = len as u32 + 3;
    }
    // 2 generated columns past the end of their line (the line's last segment), and a line
    // past the bundle's end with one segment.
    for _ in 0..2 {
        let l = next();
        let last = p.lines[l].last_mut().unwrap();
        last.gen_col = lens[l] + 5;
    }
    let mut extra = p.lines[next()][0];
    extra.gen_col = 0;
    while p.lines.len() < lens.len() {
        p.lines.push(Vec::new());
    }
    p.lines.push(vec![extra]);
    // 2 unsorted lines.
    for _ in 0..2 {
        let l = next();
        p.lines[l].swap(0, 1);
    }
    // A segment made source-less: its span becomes unmapped.
    let l = next();
    let (col, next_col) = (p.lines[l][1].gen_col, p.lines[l][2].gen_col);
    p.lines[l][1] = RawSegment {
        gen_col: col,
        source: symscope::symbols::sourcemap::NONE,
        src_line: 0,
        src_col: 0,
        name: symscope::symbols::sourcemap::NONE,
    };
    // A duplicate source without content (missing content: 1, duplicate: 1), 4 unused names,
    // the ignore list with the first source and an index past the sources, an empty segment.
    let first = p.json["sources"][0].clone();
    p.json["sources"].as_array_mut().unwrap().push(first);
    p.json["sourcesContent"]
        .as_array_mut()
        .unwrap()
        .push(Value::Null);
    for n in 0..4 {
        p.json["names"]
            .as_array_mut()
            .unwrap()
            .push(json!(format!("planted{n}")));
    }
    p.json["ignoreList"] = json!([0, 99]);
    p.empty_segment = true;
    let report = check(&p.write(), Some(&bundle));
    let expect = [
        (ProblemKind::OriginalOutOfRange, 5),
        (ProblemKind::GeneratedOutOfRange, 3),
        (ProblemKind::UnsortedLine, 2),
        (ProblemKind::MissingSourceContent, 1),
        (ProblemKind::DuplicateSource, 1),
        (ProblemKind::IgnoreListOutOfRange, 1),
        (ProblemKind::EmptySegment, 1),
        (
            ProblemKind::UnusedName,
            count(&clean, ProblemKind::UnusedName) + 4,
        ),
        (ProblemKind::IgnoredSource, 1),
    ];
    for (kind, n) in expect {
        assert_eq!(count(&report, kind), n, "{}: {report:#?}", kind.as_str());
    }
    // Unmapped: what the clean map left, the source-less span, the line past the end is not
    // in the bundle; the out-of-range columns add nothing.
    assert_eq!(
        count(&report, ProblemKind::UnmappedGenerated),
        count(&clean, ProblemKind::UnmappedGenerated) + u64::from(next_col - col)
    );
    // Examples name positions: the first original_out_of_range one points past its source.
    let ex = &report
        .problem(ProblemKind::OriginalOutOfRange)
        .unwrap()
        .examples[0];
    let o = ex.original.as_ref().unwrap();
    assert!(ex.detail.contains("past the end"), "{ex:?}");
    assert!(
        o.line as usize > src_lines[0].len().min(src_lines[1].len()),
        "{ex:?}"
    );
    assert!(report.has_errors());
    // Without the bundle, the generated checks are not made.
    let no_bundle = check(&p.write(), None);
    assert_eq!(count(&no_bundle, ProblemKind::GeneratedOutOfRange), 0);
    assert_eq!(count(&no_bundle, ProblemKind::UnmappedGenerated), 0);
    assert_eq!(count(&no_bundle, ProblemKind::OriginalOutOfRange), 5);
}

#[test]
fn check_map_exit_codes_and_json() {
    let map = js("three-esbuild/three.min.js.map");
    let bundle = js("three-esbuild/three.min.js");
    let out = common::symscope(&[
        "check-map",
        "--format",
        "json",
        "--bundle",
        arg(&bundle),
        arg(&map),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["stats"]["sources"], 2);
    assert!(doc["stats"]["segments"].as_u64().unwrap() > 100_000);
    let kinds: Vec<&str> = doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["unmapped_generated"]);
    assert_eq!(doc["problems"][0]["severity"], "info");
    // A map with an error exits 1; one that cannot be read exits 2, naming the file.
    let dir = common::temp_dir("doctor");
    let mut json: Value = serde_json::from_slice(&std::fs::read(&map).unwrap()).unwrap();
    let first = json["sources"][0].clone();
    json["sources"].as_array_mut().unwrap().push(first);
    let broken = dir.join("dup.map");
    std::fs::write(&broken, serde_json::to_vec(&json).unwrap()).unwrap();
    let out = common::symscope(&["check-map", arg(&broken)]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("error duplicate_source: 1"), "{text}");
    assert!(text.contains("error missing_source_content: 1"), "{text}");
    let bad = dir.join("bad.map");
    std::fs::write(&bad, b"{\"version\": 3, \"mappings\": 7}").unwrap();
    let out = common::symscope(&["check-map", arg(&bad)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.map"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `symscope extract-sources`: pdf.js's shipped map (`webpack://` sources) written file by
/// file with its sourcesContent; a hostile map's `../`, absolute and scheme paths all land
/// inside the folder, and a symbolic link in the way is not written through.
#[test]
fn extract_sources_stays_inside_the_folder() {
    let dir = common::temp_dir("extract");
    let map = js("pdfjs-dist-worker/pdf.worker.mjs.map");
    let out = common::symscope(&["extract-sources", arg(&map), arg(&dir.join("pdf"))]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let json: Value = serde_json::from_slice(&std::fs::read(&map).unwrap()).unwrap();
    let contents = json["sourcesContent"].as_array().unwrap();
    let with_content = contents.iter().filter(|c| c.is_string()).count();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{with_content} sources written")),
        "{stdout}"
    );
    // Each written file holds its source's content, at the source's own path.
    let sources = json["sources"].as_array().unwrap();
    let (i, first) = sources
        .iter()
        .enumerate()
        .find(|(i, s)| s.as_str().unwrap().starts_with("webpack://") && contents[*i].is_string())
        .unwrap();
    // The path as the map names it: `sourceRoot` joined and normalized.
    let named = symscope::symbols::sourcemap::join_source_root(
        json["sourceRoot"].as_str(),
        first.as_str().unwrap(),
    );
    let rel = symscope::symbols::sourcemap::extraction_path(&named).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("pdf").join(rel)).unwrap(),
        contents[i].as_str().unwrap()
    );
    // A hostile map.
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let target = dir.join("hostile");
    std::fs::create_dir_all(&target).unwrap();
    std::os::unix::fs::symlink(&outside, target.join("link")).unwrap();
    let hostile = json!({
        "version": 3,
        "sources": ["../../escape.js", "/etc/abs.js", "webpack:///../up.js", "link/through.js", "a.js", "./a.js"],
        "sourcesContent": ["1", "2", "3", "4", "5", "6"],
        "names": [],
        "mappings": "AAAA,CCAA,CCAA,CCAA,CCAA,CCAA"
    });
    let hostile_map = dir.join("hostile.map");
    std::fs::write(&hostile_map, serde_json::to_vec(&hostile).unwrap()).unwrap();
    let out = common::symscope(&["extract-sources", arg(&hostile_map), arg(&target)]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("5 sources written"), "{stdout}");
    assert!(stdout.contains("skipped link/through.js"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(target.join("__/__/escape.js")).unwrap(),
        "1"
    );
    assert_eq!(
        std::fs::read_to_string(target.join("etc/abs.js")).unwrap(),
        "2"
    );
    // `webpack:///../up.js` is named `webpack:///up.js` by the map (a URL's path cannot rise
    // above its root).
    assert_eq!(std::fs::read_to_string(target.join("up.js")).unwrap(), "3");
    // Two sources at one path: the second gets its own name.
    assert_eq!(std::fs::read_to_string(target.join("a.js")).unwrap(), "5");
    assert_eq!(std::fs::read_to_string(target.join("a.js~2")).unwrap(), "6");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    assert!(!dir.join("escape.js").exists() && !dir.parent().unwrap().join("escape.js").exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// Searching three.js's map and bundle for "bOX3": names with their uses and first use as the
/// `sourcemap` crate's tokens count them, sources by path, and every place in the generated
/// code (case-insensitive, as a plain count of the text finds them).
#[test]
fn search_names_sources_and_code() {
    use symscope::engine::map_search::search_map;
    use symscope::model::SourceText;
    let bytes = std::fs::read(js("three-esbuild/three.min.js.map")).unwrap();
    let bundle = std::fs::read_to_string(js("three-esbuild/three.min.js")).unwrap();
    let map = SourceMap::parse(bytes.clone()).unwrap();
    let text = SourceText::new(bundle.clone());
    let hits = search_map(&map, Some(&text), "bOX3", &mut NoProgress);
    // The crate's view: each name's tokens, in generated order.
    let sm = sourcemap::SourceMap::from_slice(&bytes).unwrap();
    assert!(!hits.names.is_empty());
    for n in &hits.names {
        assert!(n.name.to_lowercase().contains("box3"), "{n:?}");
        let tokens: Vec<_> = sm
            .tokens()
            .filter(|t| t.get_raw_token().name_id == n.index)
            .collect();
        assert_eq!(n.uses, tokens.len() as u64, "{n:?}");
        let first = tokens.first().map(|t| (t.get_dst_line(), t.get_dst_col()));
        assert_eq!(n.first.map(|g| (g.line, g.column)), first, "{n:?}");
    }
    let expected = bundle.to_lowercase().matches("box3").count() as u64;
    assert_eq!(hits.generated_total, expected);
    assert!(expected > 2);
    let at = hits.generated[0];
    let line = text.line(at.line as usize).unwrap();
    let byte = line
        .char_indices()
        .scan(0u32, |units, (b, c)| {
            let here = *units;
            *units += c.len_utf16() as u32;
            Some((b, here))
        })
        .find(|&(_, u)| u == at.column)
        .unwrap()
        .0;
    assert!(line[byte..].to_lowercase().starts_with("box3"));
    let sources = search_map(&map, None, "CORE", &mut NoProgress).sources;
    assert_eq!(
        sources,
        [(1, "../node_modules/three/build/three.core.js".to_owned())]
    );
    // An index map: lodash's section comes second, its source numbered after rxjs's 223,
    // its names' first uses past the section's offset (line 3, 0-based).
    let index =
        SourceMap::parse(std::fs::read(js("index-map-rxjs-lodash/vendor.min.js.map")).unwrap())
            .unwrap();
    let hits = search_map(&index, None, "lodash", &mut NoProgress);
    assert_eq!(
        hits.sources,
        [(223, "node_modules/lodash/lodash.js".to_owned())]
    );
    let hits = search_map(&index, None, "baseFlatten", &mut NoProgress);
    assert!(!hits.names.is_empty());
    assert!(
        hits.names
            .iter()
            .all(|n| n.first.is_some_and(|g| g.line >= 2)),
        "{:?}",
        hits.names
    );
}

/// Two maps of three.js's bundle compared: the same map with its sources listed in another
/// order (every index changed) maps alike; a variant with segments changed on three lines
/// differs on those three lines only.
#[test]
fn compare_two_maps_of_one_bundle() {
    use symscope::engine::map_diff::diff_maps;
    let bytes = std::fs::read(js("three-esbuild/three.min.js.map")).unwrap();
    let parse = |b: &[u8]| SourceMap::parse(b.to_vec()).unwrap();
    let original = parse(&bytes);
    // Sources swapped, every segment's source index with them.
    let mut p = Planted::new(&bytes);
    for line in &mut p.lines {
        for s in line.iter_mut().filter(|s| s.has_source()) {
            s.source = 1 - s.source;
        }
    }
    let sources = p.json["sources"].as_array_mut().unwrap();
    sources.swap(0, 1);
    let contents = p.json["sourcesContent"].as_array_mut().unwrap();
    contents.swap(0, 1);
    let swapped = diff_maps(&original, &parse(&p.write()), &mut NoProgress).unwrap();
    assert_eq!(
        swapped.differing_total,
        0,
        "{:?}",
        swapped.differing.first().map(|d| d.line)
    );
    // Three lines changed: a column moved, an original line changed, a name dropped.
    let mut p = Planted::new(&bytes);
    let busy: Vec<usize> = (0..p.lines.len())
        .filter(|&l| p.lines[l].len() >= 3)
        .collect();
    let (l1, l2, l3) = (busy[3], busy[40], busy[200]);
    p.lines[l1][1].gen_col += 1;
    p.lines[l2][2].src_line += 1;
    let named = p.lines[l3]
        .iter()
        .position(|s| s.name != symscope::symbols::sourcemap::NONE)
        .unwrap();
    p.lines[l3][named].name = symscope::symbols::sourcemap::NONE;
    let diff = diff_maps(&original, &parse(&p.write()), &mut NoProgress).unwrap();
    let lines: Vec<u32> = diff.differing.iter().map(|d| d.line).collect();
    assert_eq!(lines, [l1 as u32, l2 as u32, l3 as u32]);
    assert_eq!(diff.differing_total, 3);
    let d = &diff.differing[1];
    assert_eq!(d.a.len(), d.b.len());
    let changed: Vec<usize> = (0..d.a.len()).filter(|&k| d.a[k] != d.b[k]).collect();
    assert_eq!(changed, [2]);
    // Two index maps, section by section: the same, then lodash's section changed on its
    // second line (generated line 4, 0-based: the section starts at line 3).
    let ix_bytes = std::fs::read(js("index-map-rxjs-lodash/vendor.min.js.map")).unwrap();
    let ix = parse(&ix_bytes);
    let same = diff_maps(&ix, &parse(&ix_bytes), &mut NoProgress).unwrap();
    assert_eq!(same.differing_total, 0);
    let mut json: Value = serde_json::from_slice(&ix_bytes).unwrap();
    let section = &mut json["sections"][1]["map"];
    let lines: Vec<String> = section["mappings"]
        .as_str()
        .unwrap()
        .split(';')
        .map(str::to_owned)
        .collect();
    // A segment without source appended to the section's second line.
    let mut changed_lines = lines.clone();
    changed_lines[1] = if changed_lines[1].is_empty() {
        "A".to_owned()
    } else {
        format!("{},Z", changed_lines[1])
    };
    section["mappings"] = Value::String(changed_lines.join(";"));
    let diff = diff_maps(
        &ix,
        &parse(&serde_json::to_vec(&json).unwrap()),
        &mut NoProgress,
    )
    .unwrap();
    let lines: Vec<u32> = diff.differing.iter().map(|d| d.line).collect();
    assert_eq!(lines, [4]);
    // A regular map and an index map are not compared.
    assert!(diff_maps(&original, &ix, &mut NoProgress).is_none());
}

/// The line lengths the doctor reads from `sourcesContent` without decoding it equal those
/// of the decoded text, for every source of every corpus map (escapes, `\r\n`, astral
/// characters included), and of a map written to hold the hard cases.
#[test]
fn source_line_lengths_without_decoding() {
    fn decoded(text: &str) -> Vec<u32> {
        let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
        normalized
            .split('\n')
            .map(|l| l.encode_utf16().count() as u32)
            .collect()
    }
    let mut checked = 0;
    let hard = serde_json::to_vec(&json!({
        "version": 3,
        "sources": ["a.js"],
        "sourcesContent": ["x\r\ny\rz\n\n😀é\\\"q\"\t\u{2028}end\r\n"],
        "names": [],
        "mappings": "AAAA"
    }))
    .unwrap();
    let mut maps: Vec<Vec<u8>> = MAPS
        .iter()
        .map(|(m, _)| std::fs::read(js(m)).unwrap())
        .collect();
    maps.push(hard);
    for bytes in maps {
        let map = SourceMap::parse(bytes).unwrap();
        for m in map.regular_maps() {
            for i in 0..m.source_count() as u32 {
                let Some(text) = m.source_content(i) else {
                    continue;
                };
                assert_eq!(
                    m.source_line_lengths(i).unwrap(),
                    decoded(&text),
                    "source {i}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked}");
}
