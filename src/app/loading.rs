//! The app's jobs: loading an input, symbolicating a log.

use crate::formats::{self, detect::peek};
use crate::jobs::{self, JobContext, ParallelIndex, ReportingIndex};
use crate::model::{Blob, FileKind, FrameTable, SourceText};
use crate::symbolicate::{self, BundleFile, Options, Outcome, SymbolSet, scan_bundle};
use crate::symbols::native::{BUILD_PHASE, NativeSymbols};
use crate::symbols::proguard::Mapping;
use crate::symbols::sourcemap::SourceMap;
use std::sync::Arc;
use std::time::Instant;

/// A stable id of an input for the app's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputId(pub u64);

/// What was loaded from an input.
#[derive(Clone, Debug)]
pub enum Loaded {
    /// A parsed and indexed source map, with the milliseconds it took.
    Map(Arc<SourceMap>, f64),
    /// An indexed ProGuard/R8 mapping, with the milliseconds its scan took.
    ProguardMapping(Arc<Mapping>, f64),
    /// A native debug file converted to a SymCache, with the milliseconds it took.
    Native(Arc<NativeSymbols>, f64),
    /// A bundle: its map comments and its text (line starts computed once, for the inspector).
    Bundle(BundleFile, Arc<SourceText>),
    /// A parsed log (symbolicated once its symbolication finishes).
    Log(Arc<FrameTable>),
    /// Something Symscope does not read (kept in the workspace, not used).
    Other,
}

/// What a job hands back.
#[derive(Debug)]
pub enum JobOutput {
    /// An input was loaded.
    Loaded {
        /// Which.
        input: InputId,
        /// What it turned out to be.
        kind: FileKind,
        /// The result.
        loaded: Loaded,
    },
    /// A log was symbolicated.
    Symbolicated {
        /// Which log.
        log: InputId,
        /// The log with its result.
        table: Box<FrameTable>,
    },
}

/// Where an input's derived data may be cached: the workspace's cache folder and the
/// input's content fingerprint (`xxh3:…`).
#[derive(Clone, Debug)]
pub struct CacheKey {
    /// The cache folder (`NAME.cache/` beside the workspace).
    pub dir: std::path::PathBuf,
    /// The input's fingerprint, as the workspace records it.
    pub fingerprint: String,
}

impl CacheKey {
    /// The cache file for derived data of `kind` (`proguard-index`).
    pub fn file(&self, kind: &str) -> std::path::PathBuf {
        let id: String = self
            .fingerprint
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        self.dir.join(format!("{kind}-{id}.bin"))
    }
}

/// A ProGuard/R8 mapping: its index read from the workspace cache when one fits, else
/// scanned on every core (each finished chunk reported) and written to the cache.
fn load_mapping(
    ctx: &mut JobContext<JobOutput>,
    path: &str,
    blob: Blob,
    cache: Option<&CacheKey>,
) -> Result<Loaded, String> {
    let start = Instant::now();
    let file = cache.map(|c| c.file("proguard-index"));
    if let Some(file) = &file {
        let cached = ctx.phase("read cached index", |_| {
            let index = std::fs::read(file).ok()?;
            Mapping::from_index_bytes(blob.clone(), &index)
        });
        if let Some(mapping) = cached {
            return Ok(Loaded::ProguardMapping(
                Arc::new(mapping),
                start.elapsed().as_secs_f64() * 1e3,
            ));
        }
    }
    let reporter = ctx.reporter("scan");
    let on_task = |done, total| reporter.report(done, total);
    let runner = ReportingIndex { on_task: &on_task };
    let mapping = ctx
        .phase("scan", |_| Mapping::parse_with(blob, &runner))
        .map_err(|e| format!("{path}: {e}"))?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    if let Some(file) = &file {
        // Derived data: a failed write only means the next open scans again.
        ctx.phase("write cached index", |_| {
            crate::workspace::write_cache(file, &mapping.to_index_bytes()).ok()
        });
    }
    Ok(Loaded::ProguardMapping(Arc::new(mapping), ms))
}

/// A native debug file: its SymCache read from the workspace cache when one is there, else
/// built (symbolic) and written to the cache.
fn load_native(
    ctx: &mut JobContext<JobOutput>,
    path: &str,
    bytes: Blob,
    cache: Option<&CacheKey>,
) -> Result<Loaded, String> {
    let start = Instant::now();
    let file = cache.map(|c| c.file("symcache"));
    if let Some(file) = &file {
        let cached = ctx.phase("read cached SymCache", |_| {
            NativeSymbols::from_cache(Arc::new(std::fs::read(file).ok()?))
        });
        if let Some(native) = cached {
            return Ok(Loaded::Native(
                Arc::new(native),
                start.elapsed().as_secs_f64() * 1e3,
            ));
        }
    }
    let native = ctx
        .phase(BUILD_PHASE, |ctx| {
            NativeSymbols::convert_reporting(bytes.as_slice(), None, &ParallelIndex, ctx)
        })
        .map_err(|e| format!("{path}: {e}"))?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    if let Some(file) = &file {
        ctx.phase("write cached SymCache", |_| {
            crate::workspace::write_cache(file, &native.to_cache_bytes()).ok()
        });
    }
    Ok(Loaded::Native(Arc::new(native), ms))
}

/// Detects, parses and indexes one input; `cache` says where derived data may be kept.
pub fn load(
    ctx: &mut JobContext<JobOutput>,
    input: InputId,
    path: &str,
    blob: Blob,
    cache: Option<&CacheKey>,
) -> Result<JobOutput, String> {
    let bytes = blob.as_slice();
    let kind = ctx.phase("detect", |_| peek(bytes));
    let loaded = match kind {
        FileKind::SourceMap => {
            let start = Instant::now();
            // The index pass reports each finished chunk, for the workspace panel's bar.
            let reporter = ctx.reporter("parse + index");
            let on_task = |done, total| reporter.report(done, total);
            let runner = ReportingIndex { on_task: &on_task };
            let map = ctx.phase("parse + index", |_| {
                SourceMap::parse_with(blob.clone(), &runner)
            });
            let map = map.map_err(|e| format!("{path}: {e}"))?;
            Loaded::Map(Arc::new(map), start.elapsed().as_secs_f64() * 1e3)
        }
        FileKind::JavaScript => {
            let bundle = ctx.phase("scan", |_| scan_bundle(path, bytes));
            if bundle
                .source_mapping_url
                .as_deref()
                .is_some_and(|u| u.starts_with("data:"))
            {
                // An inline map: load it as a map named after the bundle.
                let mut set = SymbolSet::new();
                set.add_with(path, blob.clone(), &ParallelIndex)
                    .map_err(|e| e.to_string())?;
                match set.maps.pop() {
                    Some(m) => Loaded::Map(m.map, m.parse_ms),
                    None => Loaded::Bundle(bundle, Arc::new(SourceText::default())),
                }
            } else {
                let text = ctx.phase("line starts", |_| {
                    SourceText::new(String::from_utf8_lossy(bytes).into_owned())
                });
                Loaded::Bundle(bundle, Arc::new(text))
            }
        }
        FileKind::ProguardMapping => load_mapping(ctx, path, blob.clone(), cache)?,
        FileKind::NativeSymbols => load_native(ctx, path, blob.clone(), cache)?,
        FileKind::Log if formats::minidump::is_minidump(bytes) => {
            let (report, trace) = minidump_report(ctx, path, bytes, &Default::default())?;
            Loaded::Log(Arc::new(FrameTable::build(&report, &trace, None)))
        }
        FileKind::Log => log_table(ctx, bytes),
        FileKind::HermesBytecode | FileKind::Unknown => {
            if memchr::memchr(0, &bytes[..bytes.len().min(4096)]).is_none() && !bytes.is_empty() {
                // Text that looks like nothing else: treat it as a log (every line kept).
                log_table(ctx, bytes)
            } else {
                Loaded::Other
            }
        }
    };
    Ok(JobOutput::Loaded {
        input,
        kind,
        loaded,
    })
}

/// A minidump's text report and trace (its stacks walked with `cfi`).
fn minidump_report(
    ctx: &mut JobContext<JobOutput>,
    path: &str,
    bytes: &[u8],
    cfi: &std::collections::HashMap<String, String>,
) -> Result<(String, crate::model::Trace), String> {
    ctx.phase("walk stacks", |_| {
        Ok((
            formats::minidump::report(bytes, cfi)?,
            formats::minidump::parse_with_cfi(bytes, cfi)?,
        ))
    })
    .map_err(|e: formats::minidump::MinidumpError| format!("{path}: {e}"))
}

/// Logs at least this big give their parse's freed memory back to the system when stored.
const RELEASE_AFTER: usize = 4 << 20;

/// Parses a log into its compact table (the parsed `Trace` is dropped).
fn log_table(ctx: &mut JobContext<JobOutput>, bytes: &[u8]) -> Loaded {
    let text = String::from_utf8_lossy(bytes);
    let trace = ctx.phase("parse", |_| formats::parse_text(&text));
    let table = ctx.phase("store", |_| FrameTable::build(&text, &trace, None));
    drop(trace);
    if text.len() >= RELEASE_AFTER {
        ctx.phase("release memory", |_| jobs::release_freed_memory());
    }
    Loaded::Log(Arc::new(table))
}

/// Symbolicates one log; cancellation is honoured between frames. The log is parsed again
/// from its text (the app keeps only the compact table) and stored compact with its result.
pub fn symbolicate_log(
    ctx: &mut JobContext<JobOutput>,
    log: InputId,
    table: &FrameTable,
    symbols: &SymbolSet,
    column_base: Option<u32>,
    path: &std::path::Path,
) -> Result<JobOutput, String> {
    // A minidump is walked again (its table keeps only the report, so the dump is read
    // again from its file), with the Breakpad CFI loaded.
    let (text, trace) = if table.format() == crate::model::LogFormat::Minidump {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        minidump_report(ctx, &path.display().to_string(), &bytes, &symbols.cfi())?
    } else {
        let text = table.text();
        let trace = ctx.phase("parse", |_| formats::parse_text(&text));
        (text, trace)
    };
    let outcome = ctx.phase("look-up", |ctx| {
        symbolicate::symbolicate(&trace, symbols, Options { column_base }, ctx)
    });
    match outcome {
        Outcome::Done(result) => {
            let table = ctx.phase("store", |_| FrameTable::build(&text, &trace, Some(&result)));
            drop((trace, result));
            if text.len() >= RELEASE_AFTER {
                ctx.phase("release memory", |_| jobs::release_freed_memory());
            }
            Ok(JobOutput::Symbolicated {
                log,
                table: Box::new(table),
            })
        }
        Outcome::Cancelled(_) => Err("cancelled".to_owned()),
    }
}
