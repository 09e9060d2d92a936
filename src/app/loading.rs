//! The app's jobs, on the engine's journey: loading an input, symbolicating a log.

use crate::engine::{
    self, Cache, Detected, Input, Loader, LogFile, MapRoute, NativeRoute, SymbolFile,
};
use crate::jobs::{self, JobContext, ReportingIndex};
use crate::model::{FileKind, Progress, SourceText};
use crate::symbolicate::{Options, SymbolSet};
use std::sync::Arc;

/// A stable id of an input for the app's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputId(pub u64);

/// What was loaded from an input.
#[derive(Clone, Debug)]
pub enum Loaded {
    /// A symbol file, and a bundle's text (its line starts computed once, for the inspector).
    Symbols(SymbolFile, Option<Arc<SourceText>>),
    /// A log: its table (symbolicated once its symbolication finishes).
    Log(LogFile),
    /// CPU profiles (resolved once their symbolication finishes).
    Profiles(Vec<super::LoadedProfile>),
    /// A heap snapshot (its classes named once their resolution finishes).
    Heap(Arc<LoadedHeap>),
    /// Something Symscope does not read (kept in the workspace, not used).
    Other,
}

impl Loaded {
    /// The source map it holds (a map, or a bundle's inline map).
    pub fn map(&self) -> Option<&crate::symbolicate::MapFile> {
        match self {
            Self::Symbols(file, _) => file.map(),
            _ => None,
        }
    }

    /// The log's table, when it is a log.
    pub fn table(&self) -> Option<&Arc<engine::FrameTable>> {
        match self {
            Self::Log(log) => Some(&log.table),
            _ => None,
        }
    }
}

/// Where a load job gets its input's bytes.
#[derive(Debug)]
pub enum Source {
    /// Bytes in hand (pasted, or dropped without a path), detected once.
    Detected(Detected),
    /// A file, read (or mapped) by the job: the window's thread reads no file.
    Path(std::path::PathBuf),
    /// A log another job already read and parsed (a folder's search): taken as it is.
    Parsed(Box<ParsedLog>),
}

/// A log read and parsed once, handed to whoever takes it next (the load of a folder's one
/// log, the bucketing of several) so that none reads or parses it again.
#[derive(Debug)]
pub struct ParsedLog {
    /// The file.
    pub path: std::path::PathBuf,
    /// The log, parsed.
    pub log: LogFile,
    /// Its size in bytes.
    pub size: u64,
    /// Its content fingerprint, as the workspace records it.
    pub hash: String,
}

/// What a job hands back.
#[derive(Debug)]
pub enum JobOutput {
    /// A long generated line decoded for the inspector.
    InspectorLine(Box<super::caches::InspectorKey>, Arc<super::InspectorView>),
    /// An input was loaded.
    Loaded {
        /// Which.
        input: InputId,
        /// What it turned out to be.
        kind: FileKind,
        /// The result (boxed: a loaded file is much larger than a symbolicated log's handle).
        loaded: Box<Loaded>,
        /// Its size in bytes.
        size: u64,
        /// Its content fingerprint (computed by the job, as the workspace records it).
        hash: String,
    },
    /// A dropped folder was searched: the symbol files under it and the logs in it with
    /// frames, and the files that could not be read.
    Folder {
        /// The folder.
        dir: std::path::PathBuf,
        /// The symbol files worth adding.
        files: Vec<std::path::PathBuf>,
        /// The logs with frames in it, parsed.
        logs: Vec<ParsedLog>,
        /// What could not be read.
        errors: Vec<String>,
    },
    /// A native file answered lazily got its SymCache.
    Converted {
        /// Which.
        input: InputId,
        /// The file, answered from its SymCache.
        file: Box<SymbolFile>,
    },
    /// Crash logs were bucketed.
    Bucketed(Arc<super::CrashBuckets>),
    /// Two logs were compared.
    LogsCompared(Arc<super::LogCompare>),
    /// A map's sources were written into a folder.
    Extracted {
        /// The folder.
        dir: std::path::PathBuf,
        /// What was written and skipped.
        done: crate::workspace::Extracted,
    },
    /// Two maps were compared.
    Compared(Box<super::MapCompare>),
    /// A map was searched.
    Searched {
        /// The map's input path.
        map: String,
        /// What was found.
        hits: Arc<crate::engine::map_search::SearchHits>,
    },
    /// A map's segments were indexed by original position.
    OriginalIndexed {
        /// The map's input path.
        map: String,
        /// The index.
        index: Arc<crate::symbols::sourcemap::OriginalIndex>,
    },
    /// The frame detail's source, read from a source folder.
    SourceRead(
        Box<super::caches::DetailKey>,
        Option<super::detail::SourceContext>,
    ),
    /// A map was checked by the map doctor.
    MapChecked {
        /// The map's input path.
        map: String,
        /// What the doctor found.
        report: Arc<crate::engine::doctor::MapReport>,
    },
    /// Two heap snapshots compared by node id.
    HeapCompared(Arc<super::memory::HeapComparison>),
    /// A heap snapshot's classes were named through the symbol files.
    HeapResolved {
        /// Which input.
        input: InputId,
        /// The snapshot with its classes named.
        heap: Arc<LoadedHeap>,
    },
    /// An input's CPU profiles were resolved against the symbol files.
    ProfilesResolved {
        /// Which input.
        input: InputId,
        /// Its profiles, resolved.
        profiles: Vec<super::LoadedProfile>,
    },
    /// A log was symbolicated.
    Symbolicated {
        /// Which log.
        log: InputId,
        /// The log with its symbolicated table.
        file: Box<LogFile>,
    },
}

/// Logs at least this big (bytes, or bytes of table) give the memory their parse or
/// symbolication freed back to the system.
const RELEASE_AFTER: usize = 4 << 20;

/// Loads one input on the engine's route: reads it when given its path, fingerprints it
/// (the workspace records the fingerprint; derived data in `cache` is named by it), detects
/// it once and loads it. A map's index pass and a mapping's scan report each finished
/// chunk, for the workspace panel's bar.
pub fn load(
    ctx: &mut JobContext<JobOutput>,
    input: InputId,
    source: Source,
    cache: Option<&Cache>,
) -> Result<JobOutput, engine::Error> {
    let file = match source {
        Source::Parsed(parsed) => {
            let ParsedLog {
                log, size, hash, ..
            } = *parsed;
            return Ok(JobOutput::Loaded {
                input,
                kind: FileKind::Log,
                loaded: Box::new(Loaded::Log(log)),
                size,
                hash,
            });
        }
        Source::Detected(file) => file,
        Source::Path(path) => ctx
            .phase("read", |_| super::input_bytes(&path))
            .map_err(|e| {
                engine::Error::new(&path.display().to_string(), engine::Reason::Read(e))
            })?,
    };
    let hash = ctx.phase("fingerprint", |_| engine::fingerprint(file.blob.as_slice()));
    let cache = cache.map(|c| Cache {
        dir: c.dir.clone(),
        fingerprint: Some(hash.clone()),
    });
    let cache = cache.as_ref();
    let file = &file;
    // A native file is answered lazily first; its SymCache is built by a job of its own
    // ([`build_symcache`]) for the frames that follow.
    let loaded = with_loader(ctx, file, cache, NativeRoute::Lazy, "detect", engine::load)?;
    let loaded = match loaded {
        Input::Symbols(symbols) => {
            let text = match &symbols {
                SymbolFile::Bundle { bytes, .. } => Some(ctx.phase("line starts", |_| {
                    Arc::new(SourceText::new(
                        String::from_utf8_lossy(bytes.as_slice()).into_owned(),
                    ))
                })),
                _ => None,
            };
            Loaded::Symbols(symbols, text)
        }
        Input::Log(log) => {
            if file.blob.len() >= RELEASE_AFTER {
                ctx.phase("release memory", |_| jobs::release_freed_memory());
            }
            Loaded::Log(log)
        }
        Input::Profiles(list, tracks) => Loaded::Profiles(ctx.phase("flame chart", |ctx| {
            // Shown at once with the names as recorded; resolved by a job of its own.
            let none = SymbolSet::new();
            let tracks = tracks.unwrap_or_default();
            list.into_iter()
                .map(|(label, mut p)| {
                    p.warnings.extend(tracks.warnings.iter().cloned());
                    let r = engine::profile::symbolicate_profile(&label, Arc::new(p), &none, ctx)?;
                    let mut loaded = super::LoadedProfile::new(label, r, None);
                    loaded.tracks = Arc::new(super::profile::thread_tracks(&tracks, &loaded.chart));
                    Ok(loaded)
                })
                .collect::<Result<Vec<_>, engine::Error>>()
        })?),
        Input::Heap(heap) => Loaded::Heap(Arc::new(ctx.phase("summary", |ctx| {
            // Shown at once with the names as recorded; named by a job of its own.
            LoadedHeap::new(&file.name, heap, &SymbolSet::new(), ctx)
        })?)),
        Input::Other => Loaded::Other,
    };
    Ok(JobOutput::Loaded {
        input,
        kind: file.kind,
        loaded: Box::new(loaded),
        size: file.blob.len() as u64,
        hash,
    })
}

/// Runs `load` on `file` in phase `phase` with a loader whose chunked work (a map's index
/// pass, a mapping's scan) reports each finished chunk to the job, derived data kept in
/// `cache`, native files made ready by `native`.
fn with_loader<T>(
    ctx: &mut JobContext<JobOutput>,
    file: &Detected,
    cache: Option<&Cache>,
    native: NativeRoute,
    phase: &str,
    load: impl FnOnce(&Detected, Loader<'_>, &mut dyn Progress) -> Result<T, engine::Error>,
) -> Result<T, engine::Error> {
    let reporter = ctx.reporter(file.chunked_phase());
    let on_task = |done, total| reporter.report(done, total);
    let runner = ReportingIndex { on_task: &on_task };
    let loader = Loader {
        runner: &runner,
        cache,
        native,
        maps: MapRoute::Whole,
    };
    ctx.phase(phase, |ctx| load(file, loader, ctx))
}

/// Builds the SymCache of a native file that was opened lazily (`name`, its bytes `blob`):
/// read from the cache when there, else built (its progress shown as any job's) and written
/// to the cache.
pub fn build_symcache(
    ctx: &mut JobContext<JobOutput>,
    input: InputId,
    name: &str,
    blob: crate::model::Blob,
    cache: Option<&Cache>,
) -> Result<JobOutput, engine::Error> {
    let file = Detected::new(name, blob);
    let loaded = with_loader(
        ctx,
        &file,
        cache,
        NativeRoute::SymCache,
        "convert",
        engine::load_symbols,
    )?;
    Ok(JobOutput::Converted {
        input,
        file: Box::new(loaded),
    })
}

/// Searches a dropped folder (a `.dSYM` bundle, a build's output) for what to add: every
/// symbol file under it, and every log in it with frames; other files (an `Info.plist`)
/// are passed over.
pub fn search_folder(
    ctx: &mut JobContext<JobOutput>,
    dir: std::path::PathBuf,
) -> Result<JobOutput, engine::Error> {
    let (found, mut errors) = ctx.phase("list", |_| crate::workspace::files_under(&dir));
    let mut files = Vec::new();
    let mut logs = Vec::new();
    ctx.phase("detect", |_| {
        for path in found {
            let file = match super::input_bytes(&path) {
                Ok(f) => f,
                Err(e) => {
                    errors.push(format!("{}: {e}", path.display()));
                    continue;
                }
            };
            match file.role() {
                engine::Role::Symbols => files.push(path),
                engine::Role::Log(log) => logs.push(ParsedLog {
                    path,
                    log: *log,
                    size: file.blob.len() as u64,
                    hash: engine::fingerprint(file.blob.as_slice()),
                }),
                engine::Role::Neither => {}
            }
        }
    });
    Ok(JobOutput::Folder {
        dir,
        files,
        logs,
        errors,
    })
}

/// Buckets every log under `sources` (folders read recursively) against `symbols`, on every
/// thread of the pool; progress per log, cancellation between logs. A log in `parsed` (read
/// and parsed by the folder's search, or loaded as an input) is not read again. A source that
/// holds `symbolicate --format jsonl`'s lines is read back as its logs, symbolicated already.
pub fn bucket_crashes(
    ctx: &mut JobContext<JobOutput>,
    sources: &[std::path::PathBuf],
    parsed: &std::collections::HashMap<std::path::PathBuf, LogFile>,
    symbols: &SymbolSet,
) -> Result<JobOutput, engine::Error> {
    let mut lines = Vec::new();
    let mut logs = Vec::new();
    ctx.phase("read lines", |_| -> Result<(), engine::Error> {
        for source in sources {
            let file = match source.is_file().then(|| super::input_bytes(source)) {
                Some(Ok(file)) if file.kind == crate::model::FileKind::SymbolicatedLogs => file,
                _ => {
                    logs.push(source.clone());
                    continue;
                }
            };
            let text = String::from_utf8_lossy(file.blob.as_slice());
            lines.extend(
                engine::report::documents_of_lines(&text)
                    .map_err(|e| engine::Error::new(&file.name, engine::Reason::Document(e)))?,
            );
        }
        Ok(())
    })?;
    let (mut paths, errors) = ctx.phase("list", |_| crate::workspace::expand_paths(&logs));
    let (mut read_back, mut failed) = (Vec::new(), Vec::new());
    for line in lines {
        let i = paths.len();
        match line {
            engine::report::LineDocument::Table(path, table) => {
                paths.push(path.into());
                read_back.push((i, Arc::new(*table)));
            }
            engine::report::LineDocument::Failed(path, error) => {
                let e = engine::Error::new(&path, engine::Reason::Symbolicated(error));
                paths.push(path.into());
                failed.push((i, Arc::new(e)));
            }
        }
    }
    let cancel = ctx.cancel_flag();
    let reporter = ctx.reporter("bucket");
    let batch = ctx.phase("bucket", |_| {
        crate::jobs::batch::bucket_logs(
            &paths[..paths.len() - read_back.len() - failed.len()],
            parsed,
            &read_back,
            symbols,
            Options::default(),
            crate::engine::signature::DEFAULT_FRAMES,
            &|done, total| {
                reporter.report(done as u64, total as u64);
                !cancel.load(std::sync::atomic::Ordering::Relaxed)
            },
        )
    });
    if batch.cancelled {
        return Err(engine::Error::new("buckets", engine::Reason::Cancelled));
    }
    let mut unreadable = batch.unreadable;
    unreadable.extend(failed);
    unreadable.sort_unstable_by_key(|(i, _)| *i);
    Ok(JobOutput::Bucketed(Arc::new(super::CrashBuckets {
        paths,
        buckets: batch.buckets,
        unreadable,
        errors,
    })))
}

/// One side of a comparison: what was picked, and the log when it is loaded (with its
/// column base); else it is read from its file.
pub type CompareSide = (super::ComparePick, Option<(LogFile, Option<u32>)>);

/// Symbolicates two logs (or one log twice) and aligns the picked stacks.
pub fn compare_logs(
    ctx: &mut JobContext<JobOutput>,
    [a, b]: [CompareSide; 2],
    symbols: &SymbolSet,
) -> Result<JobOutput, engine::Error> {
    let cfi = symbols.cfi();
    let mut read =
        |(pick, loaded): &CompareSide| -> Result<(Arc<engine::FrameTable>, usize), engine::Error> {
            let name = pick.log.display().to_string();
            let done = match loaded {
                Some((log, column_base)) => ctx.phase("look-up", |ctx| {
                    log.symbolicate(
                        symbols,
                        Options {
                            column_base: *column_base,
                        },
                        ctx,
                    )
                })?,
                None => {
                    let file =
                        super::input_bytes(&pick.log).map_err(|e| engine::Error::new(&name, e))?;
                    let log = ctx.phase("read", |ctx| engine::read_log(&file, &cfi, ctx))?;
                    ctx.phase("look-up", |ctx| {
                        log.symbolicate(symbols, Options::default(), ctx)
                    })?
                }
            };
            let stack = crate::engine::stack_diff::pick_stack(&done.table, pick.stack)
                .map_err(|reason| engine::Error::new(&name, reason))?;
            Ok((done.table, stack))
        };
    let (table_a, stack_a) = read(&a)?;
    let (table_b, stack_b) = read(&b)?;
    let diff = ctx.phase("align", |_| {
        crate::engine::stack_diff::diff(&table_a, stack_a, &table_b, stack_b)
    });
    Ok(JobOutput::LogsCompared(Arc::new(super::LogCompare {
        a: a.0,
        b: b.0,
        table_a,
        table_b,
        diff,
    })))
}

/// Symbolicates one log (cancellation is honoured between frames): its results are written
/// into its table beside the parsed frames, which it shares.
pub fn symbolicate_log(
    ctx: &mut JobContext<JobOutput>,
    id: InputId,
    log: &LogFile,
    symbols: &SymbolSet,
    column_base: Option<u32>,
) -> Result<JobOutput, engine::Error> {
    let options = Options { column_base };
    let done = ctx.phase("look-up", |ctx| log.symbolicate(symbols, options, ctx))?;
    if done.table.heap_bytes() >= RELEASE_AFTER {
        ctx.phase("release memory", |_| jobs::release_freed_memory());
    }
    Ok(JobOutput::Symbolicated {
        log: id,
        file: Box::new(done),
    })
}

/// A heap snapshot in the window: its graph, its Summary, and the Summary's classes named
/// through the symbol files loaded when they were last resolved.
#[derive(Debug)]
pub struct LoadedHeap {
    /// The graph with its dominator tree.
    pub heap: Arc<engine::heap::Heap>,
    /// The Summary, each class with its definition resolved where it could be.
    pub classes: Vec<engine::heap::ResolvedClass>,
    /// A timeline's allocation stacks as a profile weighed in bytes, resolved (the profile
    /// pane shows it as the input's profile 0).
    pub allocations: Option<super::LoadedProfile>,
    /// Every object's shortest retaining path, found once here, off the window's thread
    /// (`Heap::path_tree`): selecting an object costs its path's length.
    pub paths: Vec<u32>,
}

impl LoadedHeap {
    /// The Summary of `heap` (the file `name`), its classes and allocation stacks resolved
    /// against `symbols`.
    pub fn new(
        name: &str,
        heap: Arc<engine::heap::Heap>,
        symbols: &SymbolSet,
        progress: &mut dyn crate::model::Progress,
    ) -> Result<Self, engine::Error> {
        let classes = engine::heap::resolve_classes(heap.summary(), &heap, symbols, progress)?;
        let label = format!("{name} (allocations)");
        let allocations =
            engine::allocations::resolve_allocations(&label, &heap, symbols, progress)?
                .map(|a| super::LoadedProfile::new(label, a.resolved, None));
        let paths = heap.path_tree();
        Ok(Self {
            heap,
            classes,
            allocations,
            paths,
        })
    }
}

/// Names a heap snapshot's classes through `symbols`.
pub fn resolve_heap(
    ctx: &mut JobContext<JobOutput>,
    input: InputId,
    name: &str,
    heap: &Arc<engine::heap::Heap>,
    symbols: &SymbolSet,
) -> Result<JobOutput, engine::Error> {
    let loaded = ctx.phase("look-up", |ctx| {
        LoadedHeap::new(name, heap.clone(), symbols, ctx)
    })?;
    Ok(JobOutput::HeapResolved {
        input,
        heap: Arc::new(loaded),
    })
}

/// Resolves an input's CPU profiles against `symbols`, each distinct location once (the
/// flame charts, which depend on the samples alone, are kept).
pub fn resolve_profiles(
    ctx: &mut JobContext<JobOutput>,
    input: InputId,
    profiles: &[super::LoadedProfile],
    symbols: &SymbolSet,
) -> Result<JobOutput, engine::Error> {
    let mut out = Vec::with_capacity(profiles.len());
    for p in profiles {
        let resolved = ctx.phase("look-up", |ctx| {
            engine::profile::symbolicate_profile(&p.label, p.resolved.profile.clone(), symbols, ctx)
        })?;
        let mut loaded = super::LoadedProfile::new(
            p.label.clone(),
            resolved,
            Some((p.chart.clone(), p.levels.clone())),
        );
        loaded.tracks = p.tracks.clone();
        out.push(loaded);
    }
    Ok(JobOutput::ProfilesResolved {
        input,
        profiles: out,
    })
}
