//! The two-thread schedule of an ELF or Mach-O file's DWARF: its compilation units are cut
//! into shares read side by side, the thread done first takes over the back half of what the
//! other has left, and the shares' writers are merged in unit order, so that the SymCache is
//! byte for byte the one `symbolic` writes reading the units in order.

use super::NativeError;
use super::names::{Demangler, clean_name};
use super::pipeline::{BUILD_PHASE, cache_error, serialize};
use super::upstream::dwarf::{DwarfInfo, DwarfSections, RangeScan};
use super::upstream::writer;
use crate::model::{ChunkRunner, NoProgress, Progress, Serial};
use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use symbolic::debuginfo::{Archive, Object};
use symbolic::symcache::SymCacheConverter;

/// How many shares of its units an ELF or Mach-O file's DWARF is read in, side by side.
pub(super) const SHARES: usize = 2;

/// The DWARF sections of an ELF or Mach-O object, which our reader reads (`None` for other
/// formats).
pub(super) fn dwarf_sections<'d>(object: &Object<'d>) -> Option<DwarfSections<'d>> {
    match object {
        Object::Elf(elf) => Some(DwarfSections::from_dwarf(elf)),
        Object::MachO(macho) => Some(DwarfSections::from_dwarf(macho)),
        _ => None,
    }
}

/// `object`'s DWARF from its `sections`, ready to be read unit by unit.
pub(super) fn parse_dwarf<'d, 'o: 'd>(
    object: &Object<'o>,
    sections: &'d DwarfSections<'d>,
) -> Result<DwarfInfo<'d>, symbolic::debuginfo::dwarf::DwarfError> {
    DwarfInfo::parse(
        sections,
        object.symbol_map(),
        object.load_address() as i64,
        object.kind(),
    )
}

/// How much more of the units the first share reads than the second: the second also scans
/// the first's function ranges (about a tenth of reading them) before it reads its own, and
/// is meant to finish first, so that it is the one taking over (which costs it little).
const LEAD: f64 = 1.4;

/// The least the first thread takes over from the second: 1/`STEAL_MIN` of all units'
/// bytes (it must first scan the function ranges of the second's units read so far).
const STEAL_MIN: usize = 64;

/// The least the second thread takes over from the first: 1/`TAKE_BACK_MIN` of all units'
/// bytes (it has scanned all the first's units already, so small halves pay).
const TAKE_BACK_MIN: usize = 1024;

/// What reading one share of a file's units gave.
struct Share {
    /// The share's units, `start..end` (shares are merged in this order).
    start: usize,
    end: usize,
    writer: writer::CacheWriter,
    /// The `(address, size)` of every function range of the units before and in the share.
    seen: BTreeSet<(u64, u64)>,
    /// `Ok` also when the share stopped because another one failed or the build was
    /// cancelled; then its writer is incomplete, and never used.
    result: Result<(), NativeError>,
}

/// Reads the functions of the units `next_unit` hands out (in increasing order, from unit
/// `start` on, with none left out) into a fresh writer; `seen` holds the function ranges of
/// the units before them. `step` is called before each function and answers whether to go on.
/// The writer is sealed unless `seal` is `false` (then [`write_shares`] seals it, beside the
/// merge: the first thread's own share, whose sealing would keep the other waiting).
fn read_share<'d>(
    info: &'d DwarfInfo<'d>,
    start: usize,
    next_unit: &mut dyn FnMut() -> Option<usize>,
    mut seen: BTreeSet<(u64, u64)>,
    new_writer: &dyn Fn() -> writer::CacheWriter,
    step: &mut dyn FnMut() -> bool,
    seal: bool,
) -> Share {
    let mut writer = new_writer();
    let mut end = start;
    let mut claim = || {
        let unit = next_unit()?;
        end = unit + 1;
        Some(unit)
    };
    let result = info
        .functions_of_claimed(&mut claim, &mut seen, &mut |function| {
            if !step() {
                return false;
            }
            writer.take_flat(&function);
            true
        })
        .map_err(cache_error);
    if seal {
        writer.seal();
    }
    Share {
        start,
        end,
        writer,
        seen,
        result,
    }
}

/// [`read_share`] of the units `units`.
fn read_units<'d>(
    info: &'d DwarfInfo<'d>,
    units: Range<usize>,
    seen: BTreeSet<(u64, u64)>,
    new_writer: &dyn Fn() -> writer::CacheWriter,
    step: &mut dyn FnMut() -> bool,
) -> Share {
    let start = units.start;
    let mut units = units;
    read_share(
        info,
        start,
        &mut || units.next(),
        seen,
        new_writer,
        step,
        true,
    )
}

/// Takes the back half, by `.debug_info` bytes, of the units `left` still holds, when they
/// are at least `min` bytes (all of them, if they are one unit): what the thread that is
/// done with its own share reads while the other reads the front half.
fn steal_back_half(
    left: &Mutex<Range<usize>>,
    info: &DwarfInfo<'_>,
    min: usize,
) -> Option<Range<usize>> {
    let mut left = left.lock().ok()?;
    if left.is_empty() {
        return None;
    }
    let begin = match left.start {
        0 => 0,
        start => info.unit_end(start - 1),
    };
    let bytes = info.unit_end(left.end - 1).saturating_sub(begin);
    if bytes < min {
        return None;
    }
    // The first unit that starts in the back half (the last unit, if none does).
    let half = begin + bytes / 2;
    let mut mid = left.start;
    while mid + 1 < left.end && (mid == 0 || info.unit_end(mid - 1) < half) {
        mid += 1;
    }
    let stolen = mid..left.end;
    left.end = mid;
    Some(stolen)
}

/// Reads the units taken over from `units_of` (the other thread's units not started), the
/// back half at a time while that pays, each half a share of its own. A share skips the
/// ranges in `base` and those `scan` found in the units before it; `scan` goes on to the
/// units before a half taken over first. Stops at the first share that fails, or when
/// `stop` answers `true`.
#[allow(
    clippy::too_many_arguments,
    reason = "what a thread brings to the units it takes over: where, what to skip, how to stop"
)]
fn take_over<'d>(
    info: &'d DwarfInfo<'d>,
    units_of: &Mutex<Range<usize>>,
    base: &BTreeSet<(u64, u64)>,
    scan: &mut RangeScan,
    min: usize,
    new_writer: &dyn Fn() -> writer::CacheWriter,
    stop: &dyn Fn() -> bool,
    step: &mut dyn FnMut() -> bool,
) -> Vec<Share> {
    let mut taken = Vec::new();
    while !stop() {
        let Some(units) = steal_back_half(units_of, info, min) else {
            break;
        };
        let between = scan.end()..units.start;
        if let Err(e) = info.function_ranges_of(between, scan, &mut || !stop()) {
            // The other thread meets this error reading these units, and it is reported
            // from there (it comes first in unit order).
            taken.push(Share {
                start: units.start,
                end: units.start,
                writer: new_writer(),
                seen: BTreeSet::new(),
                result: Err(cache_error(e)),
            });
            break;
        }
        if scan.end() < units.start {
            // Stopped while scanning: the build ends without these units.
            break;
        }
        let mut seen = base.clone();
        seen.extend(scan.before(units.start));
        let share = read_units(info, units, seen, new_writer, step);
        let failed = share.result.is_err();
        taken.push(share);
        if failed {
            break;
        }
    }
    taken
}

/// `info`'s units cut into at most `shares` runs of about equal `.debug_info` bytes, the
/// first `lead` times as many as the others.
fn cut_units(info: &DwarfInfo<'_>, shares: usize, lead: f64) -> Vec<Range<usize>> {
    let n = info.unit_count();
    if n == 0 {
        return std::iter::once(0..0).collect();
    }
    let total = info.unit_end(n - 1) as f64;
    let weights = lead + shares.saturating_sub(1) as f64;
    let mut cuts = Vec::new();
    let mut start = 0;
    for k in 1..shares.min(n) {
        let target = (total * (lead + (k - 1) as f64) / weights) as usize;
        let mut end = start + 1;
        while end < n && info.unit_end(end - 1) < target {
            end += 1;
        }
        if end < n {
            cuts.push(start..end);
            start = end;
        }
    }
    cuts.push(start..n);
    cuts
}

/// Builds the SymCache of an ELF or Mach-O object from its DWARF, byte for byte what
/// `process_object` builds: its units are cut into `shares` runs, each read into a writer of
/// its own (the first two side by side when `runner` has a second thread), and the writers
/// merged in unit order; then the symbol table is added. Side by side, the thread done
/// first with its own run takes over the back half of the units the other has not started,
/// each half again a share of its own, as long as that pays.
///
/// `symbolic` skips a function range that an earlier unit already had (C++ inline and
/// template functions are often described in several units), so a share starts from the
/// ranges of the units before it: read in order, it carries them over; beside the first
/// share, it first scans the first share's units for their function ranges alone (and a
/// thread taking over later units scans the ones between).
///
/// When a share fails, the others stop, and the error of the first share that failed is
/// returned (reading in order might have met another error of the first share first).
pub(super) fn build_from_dwarf<'d>(
    object: &Object<'_>,
    info: &'d DwarfInfo<'d>,
    shares: usize,
    runner: &dyn ChunkRunner,
    progress: &mut dyn Progress,
) -> Result<Vec<u8>, NativeError> {
    let (arch, debug_id) = (object.arch(), object.debug_id());
    let new_writer = || writer::CacheWriter::new(arch, debug_id, clean_name, object.data());
    let cuts = cut_units(info, shares, LEAD);
    let read_count = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let mut cancelled = false;
    let step = |progress: &mut dyn Progress, cancelled: &mut bool| {
        let n = read_count.fetch_add(1, Ordering::Relaxed);
        if progress.step(BUILD_PHASE, n, 0).is_break() {
            *cancelled = true;
            stop.store(true, Ordering::Relaxed);
        }
        !stop.load(Ordering::Relaxed)
    };
    let mut done: Vec<Share> = Vec::new();
    if let [first, second] = &cuts[..] {
        // The units of each thread's share not handed out yet. A thread done with its own
        // share takes the back half of the other's, again and again while that pays: units
        // differ in cost far more than in size, so no cut made beforehand keeps both busy.
        let (left, right) = (Mutex::new(first.clone()), Mutex::new(second.clone()));
        let min = info.unit_end(info.unit_count() - 1) / STEAL_MIN;
        let back_min = info.unit_end(info.unit_count() - 1) / TAKE_BACK_MIN;
        let (mut mine, mut theirs) = (Vec::new(), Vec::new());
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let mut done_tx = Some(done_tx);
        let beside = runner.run_beside(
            &mut || {
                let mut step = || step(progress, &mut cancelled);
                let share = read_share(
                    info,
                    first.start,
                    &mut || left.lock().ok()?.next(),
                    BTreeSet::new(),
                    &new_writer,
                    &mut step,
                    false,
                );
                let mut failed = share.result.is_err();
                // When this share read all its units, the ranges they had are the set to
                // skip from in the other's units, with those of the other's units before.
                if share.end == first.end && !failed {
                    let stop = || stop.load(Ordering::Relaxed);
                    let mut scan = RangeScan::from(second.start);
                    let taken = take_over(
                        info,
                        &right,
                        &share.seen,
                        &mut scan,
                        min,
                        &new_writer,
                        &stop,
                        &mut step,
                    );
                    failed = taken.iter().any(|share| share.result.is_err());
                    mine.extend(taken);
                }
                mine.push(share);
                if failed {
                    stop.store(true, Ordering::Relaxed);
                }
                // Progress and cancelling go on while the other thread reads (no report once
                // the build is stopping: a cancelled job hears nothing after its `Break`).
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                    done_rx.recv_timeout(std::time::Duration::from_millis(20))
                {
                    let n = read_count.load(Ordering::Relaxed);
                    if !stop.load(Ordering::Relaxed) && progress.step(BUILD_PHASE, n, 0).is_break()
                    {
                        cancelled = true;
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            },
            &mut || {
                let _done = done_tx.take();
                let mut count = || {
                    read_count.fetch_add(1, Ordering::Relaxed);
                    !stop.load(Ordering::Relaxed)
                };
                // The first share's function ranges, which `symbolic` skips in this share
                // and in any units taken over from the first.
                let mut scan = RangeScan::default();
                let scanned = info.function_ranges_of(first.clone(), &mut scan, &mut || {
                    !stop.load(Ordering::Relaxed)
                });
                if let Err(e) = scanned {
                    // Reading the first share meets this error too (or an earlier one),
                    // and that is the one reported.
                    stop.store(true, Ordering::Relaxed);
                    theirs.push(Share {
                        start: second.start,
                        end: second.start,
                        writer: new_writer(),
                        seen: BTreeSet::new(),
                        result: Err(cache_error(e)),
                    });
                    return;
                }
                let share = read_share(
                    info,
                    second.start,
                    &mut || right.lock().ok()?.next(),
                    scan.before(second.start),
                    &new_writer,
                    &mut count,
                    true,
                );
                let mut failed = share.result.is_err();
                theirs.push(share);
                if !failed {
                    let stop = || stop.load(Ordering::Relaxed);
                    let none = BTreeSet::new();
                    let taken = take_over(
                        info,
                        &left,
                        &none,
                        &mut scan,
                        back_min,
                        &new_writer,
                        &stop,
                        &mut count,
                    );
                    failed = taken.iter().any(|share| share.result.is_err());
                    theirs.extend(taken);
                }
                if failed {
                    stop.store(true, Ordering::Relaxed);
                }
            },
        );
        if beside {
            done.append(&mut mine);
            done.append(&mut theirs);
        }
    }
    if done.is_empty() {
        let mut seen = BTreeSet::new();
        for units in &cuts {
            let mut share = read_units(info, units.clone(), seen, &new_writer, &mut || {
                step(progress, &mut cancelled)
            });
            seen = std::mem::take(&mut share.seen);
            let failed = share.result.is_err();
            done.push(share);
            if failed || cancelled {
                break;
            }
        }
    }
    if cancelled {
        return Err(NativeError::Cancelled);
    }
    done.sort_by_key(|share| share.start);
    for share in &mut done {
        std::mem::replace(&mut share.result, Ok(()))?;
    }
    // A thread whose units were all taken over before it claimed one read none: its share
    // is empty, and would stand between the others (it starts where the share that took its
    // units starts).
    if done.len() > 1 {
        done.retain(|share| share.start < share.end);
    }
    let covered = done.first().is_some_and(|share| share.start == 0)
        && done.windows(2).all(|w| w[0].end == w[1].start)
        && done.last().map(|share| share.end) == Some(info.unit_count());
    if !covered {
        return Err(NativeError::Cache(
            "a share of the debug information was not read".into(),
        ));
    }
    let mut go_on = || {
        let n = read_count.load(Ordering::Relaxed);
        progress.step(BUILD_PHASE, n, 0).is_continue()
    };
    write_shares(object, done, &new_writer, runner, &mut go_on)
}

/// Merges `shares` (read from all the units, in unit order) into the first, adds the symbol
/// table and writes the SymCache; `go_on` is asked between the steps. The range starts the
/// first share's writer has not applied yet are applied beside the merge when `runner` has a
/// second thread.
fn write_shares(
    object: &Object<'_>,
    shares: Vec<Share>,
    new_writer: &dyn Fn() -> writer::CacheWriter,
    runner: &dyn ChunkRunner,
    go_on: &mut dyn FnMut() -> bool,
) -> Result<Vec<u8>, NativeError> {
    let mut shares = shares.into_iter();
    let mut writer = shares.next().map_or_else(new_writer, |share| share.writer);
    let mut ops = Some(writer.take_ops());
    let mut applied = None;
    let mut cancelled = false;
    let mut merge = || {
        for share in shares.by_ref() {
            if !go_on() {
                cancelled = true;
                return;
            }
            writer.merge(share.writer);
        }
    };
    let mut apply = || applied = ops.take().map(writer::RangeOps::apply);
    if !runner.run_beside(&mut merge, &mut apply) {
        merge();
        apply();
    }
    if cancelled {
        return Err(NativeError::Cancelled);
    }
    if let Some(applied) = applied {
        writer.put_first(applied);
    }
    if !go_on() {
        return Err(NativeError::Cancelled);
    }
    for symbol in object.symbols() {
        writer.take_symbol(&symbol);
    }
    if !go_on() {
        return Err(NativeError::Cancelled);
    }
    writer
        .finish()
        .map_err(|e| NativeError::Cache(e.to_string()))
}

/// For the fuzz target: every ELF or Mach-O object of `bytes` gives the same SymCache, or
/// the same error, read in one share, in `shares`, and in two whose second takes over units
/// from the first; the same SymCache as `symbolic`'s own converter; and scanning its units'
/// function ranges gives the ranges reading them adds. Panics when not.
pub(crate) fn check_shares(bytes: &[u8], shares: usize) {
    let Ok(archive) = Archive::parse(bytes) else {
        return;
    };
    for object in archive.objects().flatten() {
        let Some(sections) = dwarf_sections(&object) else {
            continue;
        };
        let Ok(info) = parse_dwarf(&object, &sections) else {
            continue;
        };
        let one = build_from_dwarf(&object, &info, 1, &Serial, &mut NoProgress);
        let many = build_from_dwarf(&object, &info, shares, &Serial, &mut NoProgress);
        assert!(one == many, "one share and {shares} differ");
        let mut converter = SymCacheConverter::new();
        converter.add_transformer(Demangler::default());
        let reference = converter
            .process_object(&object)
            .ok()
            .and_then(|()| serialize(converter).ok());
        assert_eq!(
            one.is_ok(),
            reference.is_some(),
            "symbolic's converter and ours disagree on whether the file converts"
        );
        if let (Ok(ours), Some(theirs)) = (&one, &reference) {
            assert!(ours == theirs, "our SymCache differs from symbolic's");
        }
        // The other thread taking over units from the first (its work run first, so that
        // it takes over all it can).
        let stolen = build_from_dwarf(&object, &info, 2, &OtherFirst, &mut NoProgress);
        assert!(one == stolen, "one share and shares taken over differ");
        let n = info.unit_count();
        let (mut read, mut scan) = (BTreeSet::new(), RangeScan::default());
        if info.functions_of(0..n, &mut read, &mut |_| true).is_ok() {
            let scanned = info.function_ranges_of(0..n, &mut scan, &mut || true);
            assert!(
                scanned.is_ok(),
                "the range scan failed where reading did not"
            );
            assert!(
                scan.before(n) == read,
                "the range scan differs from reading"
            );
        }
    }
}

/// A runner that runs the work meant for a second thread first, then the caller's, on the
/// calling thread: the second thread's share then takes over every unit it can from the
/// first (for checks; the order is the worst case of real threads).
struct OtherFirst;

impl ChunkRunner for OtherFirst {
    fn chunks_for(&self, _len: usize) -> usize {
        1
    }

    fn for_each(&self, n: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..n).for_each(task);
    }

    fn run_beside(&self, read: &mut dyn FnMut(), write: &mut (dyn FnMut() + Send)) -> bool {
        write();
        read();
        true
    }
}

#[cfg(test)]
mod tests;
