//! Many logs at once: each read, symbolicated against one symbol set and put in its bucket,
//! on every thread of the current rayon pool (the CLI's global pool, or the app's job pool
//! when a job calls it). A log that cannot be used is listed with its reason; it never stops
//! the run (as ripgrep goes on past a bad file).

use crate::engine::buckets::{Bucket, Bucketing};
use crate::engine::{self, Detected};
use crate::model::{FileKind, NoProgress};
use crate::symbolicate::{Options, SymbolSet};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a bucketing run found.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// The buckets, largest first; members are indices into the paths given.
    pub buckets: Vec<Bucket>,
    /// Logs that could not be used: index into the paths given, and why.
    pub unreadable: Vec<(usize, Arc<engine::Error>)>,
    /// The caller said stop before every log was read.
    pub cancelled: bool,
}

/// Reads, symbolicates and buckets the logs at `paths` (a log in `parsed`, read and parsed
/// already, is not read again), and with them the tables `read_back` (symbolicated already:
/// read back from `symbolicate --format jsonl`'s lines, each with its own index);
/// `on_log(done, total)` is called as logs are done and stops the run when it answers `false`.
pub fn bucket_logs(
    paths: &[PathBuf],
    parsed: &std::collections::HashMap<PathBuf, engine::LogFile>,
    read_back: &[(usize, Arc<engine::FrameTable>)],
    symbols: &SymbolSet,
    options: Options,
    frames: usize,
    on_log: &(dyn Fn(usize, usize) -> bool + Sync),
) -> Batch {
    let cfi = symbols.cfi();
    let done = AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let total = paths.len();
    let (bucketing, mut unreadable) = paths
        .par_iter()
        .enumerate()
        .fold(
            || (Bucketing::new(frames), Vec::new()),
            |(mut buckets, mut bad), (i, path)| {
                if stop.load(Ordering::Relaxed) {
                    return (buckets, bad);
                }
                match symbolicated(path, parsed.get(path), symbols, &cfi, options) {
                    Ok(table) => {
                        if buckets.add(i, &table).is_none() {
                            let name = path.display().to_string();
                            let error = engine::Error::new(&name, engine::Reason::NoStackToSign);
                            bad.push((i, Arc::new(error)));
                        }
                    }
                    Err(error) => bad.push((i, Arc::new(error))),
                }
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if !on_log(n, total) {
                    stop.store(true, Ordering::Relaxed);
                }
                (buckets, bad)
            },
        )
        .reduce(
            || (Bucketing::new(frames), Vec::new()),
            |(a, mut bad_a), (b, bad_b)| {
                bad_a.extend(bad_b);
                (a.merge(b), bad_a)
            },
        );
    let mut bucketing = bucketing;
    for (i, table) in read_back {
        if bucketing.add(*i, table).is_none() {
            let error = engine::Error::new(&format!("log {i}"), engine::Reason::NoStackToSign);
            unreadable.push((*i, Arc::new(error)));
        }
    }
    unreadable.sort_unstable_by_key(|(i, _)| *i);
    Batch {
        buckets: bucketing.finish(),
        unreadable,
        cancelled: stop.load(Ordering::Relaxed),
    }
}

/// A log [`each_log`] symbolicated, and the milliseconds its read and look-up took.
pub type Done = (Arc<engine::FrameTable>, f64);

/// Logs at a time in [`each_log`]: the results of one chunk are held, no more.
pub const CHUNK: usize = 64;

/// Reads and symbolicates the logs at `paths` on every thread, handing each result (with its
/// milliseconds) to `emit` in the order of `paths` (a chunk of logs at a time, so that results are written as they
/// finish and few are held); `emit` answers whether to go on.
pub fn each_log(
    paths: &[PathBuf],
    symbols: &SymbolSet,
    options: Options,
    emit: &mut dyn FnMut(usize, Result<Done, engine::Error>) -> bool,
) {
    let cfi = symbols.cfi();
    for (c, chunk) in paths.chunks(CHUNK).enumerate() {
        let done: Vec<_> = chunk
            .par_iter()
            .map(|path| {
                let start = std::time::Instant::now();
                let table = symbolicated(path, None, symbols, &cfi, options)?;
                Ok((table, start.elapsed().as_secs_f64() * 1e3))
            })
            .collect();
        for (k, result) in done.into_iter().enumerate() {
            if !emit(c * CHUNK + k, result) {
                return;
            }
        }
    }
}

/// One log read (unless `parsed` has it) and symbolicated, or why it cannot be.
fn symbolicated(
    path: &std::path::Path,
    parsed: Option<&engine::LogFile>,
    symbols: &SymbolSet,
    cfi: &engine::Cfi,
    options: Options,
) -> Result<Arc<engine::FrameTable>, engine::Error> {
    if let Some(log) = parsed {
        return Ok(log.symbolicate(symbols, options, &mut NoProgress)?.table);
    }
    let name = path.display().to_string();
    let bytes =
        super::read_or_map(path).map_err(|e| engine::Error::new(&name, engine::Reason::Read(e)))?;
    let file = Detected::new(name.clone(), bytes);
    if file.kind != FileKind::Log {
        return Err(engine::Error::new(
            &name,
            engine::Reason::NotALog(file.kind.as_str()),
        ));
    }
    let log = engine::read_log(&file, cfi, &mut NoProgress)?;
    if log.table.frame_count() == 0 {
        return Err(engine::Error::new(&name, engine::Reason::NoFrames));
    }
    Ok(log.symbolicate(symbols, options, &mut NoProgress)?.table)
}
