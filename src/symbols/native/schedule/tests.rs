//! The schedule checked against reading every unit in order, and against `symbolic`.

use super::*;
use crate::symbols::native::upstream::function_builder::FlatFunction;

/// Read in shares (up to one writer per unit, all merged in order, and with units taken
/// over by another thread), every corpus file with DWARF still gives symbolic's own
/// `process_object`'s SymCache, byte for byte.
#[test]
fn units_read_in_shares_and_merged_give_symbolics_symcache() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
    let mut merged = 0;
    for file in [
        "crashy/crashy",
        "crashy/crashy.debug",
        "macho/macho_crash.dSYM/Contents/Resources/DWARF/macho_crash",
        "sentry-symbolic/fixtures/linux/crash.debug",
        "sentry-symbolic/fixtures/macos/crash.dSYM/Contents/Resources/DWARF/crash",
        "sentry-symbolic/crashprobe/simulator-CrashProbeiOS.app.dSYM/Contents/Resources/DWARF/CrashProbeiOS",
    ] {
        let bytes = std::fs::read(root.join(file)).unwrap();
        let archive = Archive::parse(&bytes).unwrap();
        for object in archive.objects() {
            let object = object.unwrap();
            let mut converter = SymCacheConverter::new();
            converter.add_transformer(Demangler::default());
            converter.process_object(&object).unwrap();
            let reference = serialize(converter).unwrap();
            let sections = dwarf_sections(&object).expect("ELF or Mach-O");
            let info = parse_dwarf(&object, &sections).unwrap();
            let units = info.unit_count();
            for shares in [1, 2, 3, units] {
                let cuts = cut_units(&info, shares, LEAD);
                assert!(cuts.len() <= shares.max(1), "{file}");
                merged += cuts.len() - 1;
                let ours =
                    build_from_dwarf(&object, &info, shares, &Serial, &mut NoProgress).unwrap();
                assert!(
                    ours == reference,
                    "{file}: {units} units in {} shares: not symbolic's SymCache",
                    cuts.len()
                );
            }
            // Two threads, the second done first (its work runs first) and taking over
            // all it can of the first's units.
            let taken = build_from_dwarf(&object, &info, 2, &OtherFirst, &mut NoProgress);
            assert!(taken.unwrap() == reference, "{file}: units taken over");
        }
    }
    assert!(merged > 20, "only {merged} merges were tried");
}

/// A writer that takes functions after a merge, and one whose range starts were applied
/// apart and put back, write what one writer taking them all in order writes.
#[test]
fn functions_taken_after_a_merge_follow_the_merged_ones() {
    let mut tried = 0;
    with_dwarf_objects(&MANY_UNITS, |file, object, info| {
        let new_writer = || new_writer_for(object);
        let n = info.unit_count();
        let (a, b) = (n / 3, 2 * n / 3);
        if a == 0 || b == a {
            return;
        }
        let first = read_units(info, 0..a, BTreeSet::new(), &new_writer, &mut || true);
        let second = read_units(info, a..b, first.seen.clone(), &new_writer, &mut || true);
        let mut writer = first.writer;
        writer.merge(second.writer);
        let (mut seen, mut units) = (second.seen, b..n);
        info.functions_of_claimed(&mut || units.next(), &mut seen, &mut |function| {
            writer.take_flat(&function);
            true
        })
        .unwrap();
        for symbol in object.symbols() {
            writer.take_symbol(&symbol);
        }
        let ours = writer.finish().unwrap();
        let in_order = build_from_dwarf(object, info, 1, &Serial, &mut NoProgress).unwrap();
        assert!(ours == in_order, "{file}: functions taken after a merge");

        // The first share's range starts left unapplied, as the first thread leaves
        // them, and applied while the others merge.
        let mut units = 0..a;
        let first = read_share(
            info,
            0,
            &mut || units.next(),
            BTreeSet::new(),
            &new_writer,
            &mut || true,
            false,
        );
        let rest = read_units(info, a..n, first.seen.clone(), &new_writer, &mut || true);
        let shares = vec![first, rest];
        let ours = write_shares(object, shares, &new_writer, &Serial, &mut || true).unwrap();
        assert!(ours == in_order, "{file}: applied apart");
        tried += 1;
    });
    assert!(tried >= 2, "only {tried} files tried");
}

/// A function read flat, made a tree and flattened again is the same (the tree is how
/// `symbolic` and the Breakpad reader hand functions over).
#[test]
fn flat_functions_and_their_trees_are_the_same() {
    let mut inlinees = 0;
    with_dwarf_objects(&MANY_UNITS, |file, _, info| {
        let mut seen = BTreeSet::new();
        info.functions_of(0..info.unit_count(), &mut seen, &mut |flat| {
            inlinees += flat.nodes.len() - 1;
            let tree = flat.to_function();
            assert_eq!(tree.inlinees.len(), flat.inlinees_of(0).count(), "{file}");
            assert!(FlatFunction::from_function(&tree) == flat, "{file}");
            true
        })
        .unwrap();
    });
    assert!(inlinees > 100, "only {inlinees} inlinees");
}

/// Corpus files with several units of DWARF.
const MANY_UNITS: [&str; 3] = [
    "macho/macho_crash.dSYM/Contents/Resources/DWARF/macho_crash",
    "sentry-symbolic/fixtures/linux/crash.debug",
    "sentry-symbolic/crashprobe/simulator-CrashProbeiOS.app.dSYM/Contents/Resources/DWARF/CrashProbeiOS",
];

/// Calls `f` with each file of `files`, each of its objects, and the object's DWARF.
fn with_dwarf_objects(
    files: &[&str],
    mut f: impl for<'d> FnMut(&str, &Object<'_>, &'d DwarfInfo<'d>),
) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
    for file in files {
        let bytes = std::fs::read(root.join(file)).unwrap();
        let archive = Archive::parse(&bytes).unwrap();
        for object in archive.objects() {
            let object = object.unwrap();
            let sections = dwarf_sections(&object).expect("ELF or Mach-O");
            let info = parse_dwarf(&object, &sections).unwrap();
            f(file, &object, &info);
        }
    }
}

/// Checks shares read by two threads, one of which took over units from the other: each
/// share taken over skipped exactly the ranges of the units before it (the bytes alone
/// would not tell: a duplicate read twice often writes the same bytes), the shares cover
/// the units, and merged in unit order they give the SymCache read in order.
fn check_taken_over<'d>(
    file: &str,
    object: &Object<'_>,
    info: &'d DwarfInfo<'d>,
    mut shares: Vec<Share>,
    taken: Vec<Share>,
) {
    let n = info.unit_count();
    let mut all = RangeScan::default();
    info.function_ranges_of(0..n, &mut all, &mut || true)
        .unwrap();
    for share in &taken {
        assert!(
            share.seen == all.before(share.end),
            "{file}: units {:?} taken over skip from the wrong ranges",
            share.start..share.end
        );
    }
    shares.extend(taken);
    shares.sort_by_key(|share| share.start);
    assert!(
        shares.windows(2).all(|w| w[0].end == w[1].start)
            && shares.last().map(|s| s.end) == Some(n),
        "{file}: the shares do not cover the units"
    );
    let new_writer = || new_writer_for(object);
    let ours = write_shares(object, shares, &new_writer, &Serial, &mut || true).unwrap();
    let in_order = build_from_dwarf(object, info, 1, &Serial, &mut NoProgress).unwrap();
    assert!(ours == in_order, "{file}: not the SymCache read in order");
}

fn new_writer_for(object: &Object<'_>) -> writer::CacheWriter {
    writer::CacheWriter::new(object.arch(), object.debug_id(), clean_name, object.data())
}

/// The first thread, done with its own units, takes over the back half of the units the
/// other has not started, again and again, scanning the ranges of the other's units
/// before them.
#[test]
fn units_taken_over_by_the_first_thread_give_the_symcache_read_in_order() {
    let mut taken_over = 0;
    with_dwarf_objects(&MANY_UNITS, |file, object, info| {
        let new_writer = || new_writer_for(object);
        let n = info.unit_count();
        for k in 1..n.min(6) {
            // The first thread read units 0..k; the other one started k..m.
            let m = k + (n - k) / 3;
            let first = read_units(info, 0..k, BTreeSet::new(), &new_writer, &mut || true);
            let right = Mutex::new(m..n);
            let mut scan = RangeScan::from(k);
            let (seen, stop) = (&first.seen, &|| false);
            let taken = take_over(
                info,
                &right,
                seen,
                &mut scan,
                0,
                &new_writer,
                stop,
                &mut || true,
            );
            taken_over += taken.len();
            let mut scan = RangeScan::default();
            info.function_ranges_of(0..k, &mut scan, &mut || true)
                .unwrap();
            let end = right.into_inner().unwrap().end;
            let other = read_units(info, k..end, scan.before(k), &new_writer, &mut || true);
            check_taken_over(file, object, info, vec![first, other], taken);
        }
    });
    assert!(taken_over > 20, "only {taken_over} shares were taken over");
}

/// The same the other way round: the second thread, done with its own units, takes over
/// the back half of the first's units not started, skipping the ranges its scan of the
/// first's units found before each.
#[test]
fn units_taken_over_by_the_second_thread_give_the_symcache_read_in_order() {
    let mut taken_over = 0;
    with_dwarf_objects(&MANY_UNITS, |file, object, info| {
        let new_writer = || new_writer_for(object);
        let n = info.unit_count();
        for k in (n / 2).max(1)..n {
            // The second thread scanned units 0..k and read k..n; the first one has
            // started 0..j.
            let j = k / 3;
            let mut scan = RangeScan::default();
            info.function_ranges_of(0..k, &mut scan, &mut || true)
                .unwrap();
            let other = read_units(info, k..n, scan.before(k), &new_writer, &mut || true);
            let left = Mutex::new(j..k);
            let (none, stop) = (&BTreeSet::new(), &|| false);
            let taken = take_over(
                info,
                &left,
                none,
                &mut scan,
                0,
                &new_writer,
                stop,
                &mut || true,
            );
            taken_over += taken.len();
            let end = left.into_inner().unwrap().end;
            let first = read_units(info, 0..end, BTreeSet::new(), &new_writer, &mut || true);
            check_taken_over(file, object, info, vec![first, other], taken);
        }
    });
    assert!(taken_over > 20, "only {taken_over} shares were taken over");
}

/// The thread done with its own share takes the back half (by bytes) of the units the
/// other has left, again and again until what is left is too small to pay.
#[test]
fn the_back_half_of_the_units_left_is_taken_over() {
    with_cpp_units(|info| {
        let n = info.unit_count();
        let total = info.unit_end(n - 1);
        let bytes = |r: &Range<usize>| match r.start {
            0 => info.unit_end(r.end - 1),
            start => info.unit_end(r.end - 1) - info.unit_end(start - 1),
        };
        let left = Mutex::new(0..n);
        let mut taken = Vec::new();
        while let Some(stolen) = steal_back_half(&left, info, total / STEAL_MIN) {
            let before = left.lock().unwrap().start..stolen.end;
            assert!(bytes(&stolen) <= bytes(&before) / 2 || stolen.len() == 1);
            taken.push(stolen);
        }
        assert!(taken.len() >= 3, "{taken:?}");
        let mut end = n;
        for stolen in &taken {
            assert_eq!(stolen.end, end, "{taken:?}");
            assert!(!stolen.is_empty());
            end = stolen.start;
        }
        let left = left.into_inner().unwrap();
        assert_eq!(left, 0..end);
        assert!(left.is_empty() || bytes(&left) < total / STEAL_MIN);
    });
}

/// Calls `f` with the DWARF of `linux/crash.debug`, a C++ file with 20 units, some of
/// them describing the same inline functions.
fn with_cpp_units(f: impl for<'d> FnOnce(&'d DwarfInfo<'d>)) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/native");
    let bytes = std::fs::read(root.join("sentry-symbolic/fixtures/linux/crash.debug")).unwrap();
    let archive = Archive::parse(&bytes).unwrap();
    let object = archive.object_by_index(0).unwrap().unwrap();
    let sections = dwarf_sections(&object).expect("ELF");
    let info = parse_dwarf(&object, &sections).unwrap();
    f(&info);
}

/// A later share must skip the function ranges the units before it had, as `symbolic`
/// skips them reading all units in order. Scanning the earlier units' ranges gives exactly
/// the ranges reading them adds, and with them a share's functions are the serial run's.
/// Without them, duplicate functions across units would be read twice.
#[test]
fn the_range_scan_lets_a_share_skip_what_symbolic_skips() {
    with_cpp_units(|info| {
        let n = info.unit_count();
        let read = |units: Range<usize>, seen: &mut BTreeSet<(u64, u64)>| {
            let mut functions = Vec::new();
            info.functions_of(units, seen, &mut |f| {
                functions.push((
                    f.nodes[0].address,
                    f.nodes[0].size,
                    f.nodes[0].name.to_string(),
                ));
                true
            })
            .unwrap();
            functions
        };
        let mut read_ranges = BTreeSet::new();
        let all = read(0..n, &mut read_ranges);
        let mut scan = RangeScan::default();
        info.function_ranges_of(0..n, &mut scan, &mut || true)
            .unwrap();
        assert_eq!(scan.before(n), read_ranges);
        let mut duplicates_skipped = 0;
        for cut in 1..n {
            let mut seen = scan.before(cut);
            let mut scanned = RangeScan::default();
            info.function_ranges_of(0..cut, &mut scanned, &mut || true)
                .unwrap();
            assert_eq!(scanned.before(n), seen, "cut at unit {cut}");
            let mut head = read(0..cut, &mut BTreeSet::new());
            let tail = read(cut..n, &mut seen);
            let unskipped = read(cut..n, &mut BTreeSet::new());
            duplicates_skipped += unskipped.len() - tail.len();
            head.extend(tail);
            assert_eq!(head, all, "cut at unit {cut}");
        }
        assert!(duplicates_skipped > 0);
    });
}

/// Units are cut into runs that cover them all, in order, none empty.
#[test]
fn units_are_cut_into_runs_covering_all() {
    with_cpp_units(|info| {
        let n = info.unit_count();
        assert!(n > 10);
        for shares in 1..=n + 2 {
            let cuts = cut_units(info, shares, LEAD);
            assert!(cuts.len() <= shares);
            assert_eq!(cuts.first().unwrap().start, 0);
            assert_eq!(cuts.last().unwrap().end, n);
            assert!(cuts.iter().all(|r| !r.is_empty()));
            assert!(cuts.windows(2).all(|w| w[0].end == w[1].start));
        }
        assert_eq!(cut_units(info, 2, 1.1).len(), 2);
    });
}
