//! The headless command line: `symscope symbolicate`, `buckets`, `diff`, `check-map` and
//! `extract-sources`.

use crate::engine::{self, Cache, Detected, Loader, MapRoute, NativeRoute, report};
use crate::jobs::ParallelIndex;
use crate::model::{Blob, NoProgress};
use crate::symbolicate::{Options, SymbolSet};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod stream;

/// Symscope: a symbol and trace explorer.
///
/// With no command it opens the window: `symscope` (the last workspace, or an empty one),
/// `symscope WORKSPACE.ron`, or `symscope FILE...` (a new workspace with those files).
#[derive(Debug, Parser)]
#[command(
    name = "symscope",
    version,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true,
    after_help = "With no command, Symscope opens its window: `symscope` (the last workspace, or an empty one), `symscope WORKSPACE.ron`, or `symscope FILE...` (a new workspace with those files)."
)]
pub struct Cli {
    /// What to do; with none, Symscope opens its window.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// A workspace (`.ron`) or files to open in the window.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Symbolicate a stack trace or crash log against symbol files.
    Symbolicate(SymbolicateArgs),
    /// Group many crash logs (files or folders, read recursively) by their symbolicated
    /// signature: buckets, largest first.
    Buckets(BucketsArgs),
    /// Compare two crash logs: their crashed stacks side by side, frames aligned.
    Diff(DiffArgs),
    /// Check a source map (and its bundle) for what is wrong with it: exit 0 when it has no
    /// errors, 1 when it has, 2 when it cannot be read.
    CheckMap(CheckMapArgs),
    /// Write a source map's original sources (`sourcesContent`) into a folder, each under its
    /// own path kept inside the folder.
    ExtractSources(ExtractArgs),
    /// Symbolicate a CPU profile (`.cpuprofile`, or the profiles of a Chrome trace-event
    /// file) and rank its functions by self time.
    Profile(ProfileArgs),
    /// Summarise a V8 heap snapshot by constructor (count, self and retained size), the
    /// classes named from the original sources, optionally against an earlier snapshot.
    Heap(HeapArgs),
}

/// Arguments of `heap`.
#[derive(Debug, clap::Args)]
pub struct HeapArgs {
    /// A symbol file, or a directory searched recursively (repeatable).
    #[arg(short = 's', long = "symbols", value_name = "PATH")]
    pub symbols: Vec<PathBuf>,
    /// An earlier snapshot of the same process: what was added and freed since, by node id.
    #[arg(long, value_name = "OTHER")]
    pub compare: Option<PathBuf>,
    /// Only the first N constructors.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Also write the snapshot to OUT with its allocation stack frames pointing into the
    /// original sources (as `metro-symbolicate` rewrites it), for DevTools to show.
    #[arg(long, value_name = "OUT")]
    pub write_symbolicated: Option<PathBuf>,
    /// The snapshot (`.heapsnapshot`, `.heaptimeline`).
    #[arg(value_name = "SNAPSHOT")]
    pub snapshot: PathBuf,
}

/// Arguments of `profile`.
#[derive(Debug, clap::Args)]
pub struct ProfileArgs {
    /// A symbol file, or a directory searched recursively (repeatable).
    #[arg(short = 's', long = "symbols", value_name = "PATH")]
    pub symbols: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ProfileFormat::Text)]
    pub format: ProfileFormat,
    /// Only the first N functions (json and text).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// The profile (`.cpuprofile` or trace-event JSON), or `-` for standard input.
    #[arg(value_name = "PROFILE")]
    pub profile: PathBuf,
}

/// What `profile` writes (the JSON contract is documented in `engine::profile`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProfileFormat {
    /// The functions by self time, as a table.
    Text,
    /// The JSON document: every node resolved, the functions ranked.
    Json,
    /// Folded stacks (`a;b;c 12`) with original names, for flame graph tools.
    Collapsed,
    /// The profile itself with original call frames (DevTools, speedscope).
    Cpuprofile,
    /// speedscope's own file format: every profile, each sample's stack of original frames.
    Speedscope,
}

/// Arguments of `buckets`.
#[derive(Debug, clap::Args)]
pub struct BucketsArgs {
    /// A symbol file, or a directory searched recursively (repeatable).
    #[arg(short = 's', long = "symbols", value_name = "PATH")]
    pub symbols: Vec<PathBuf>,
    /// How many in-app frames a signature takes.
    #[arg(long, value_name = "N", default_value_t = crate::engine::signature::DEFAULT_FRAMES)]
    pub frames: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// A folder for derived data, as for `symbolicate`.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// The JSON lines `symbolicate --format jsonl` wrote (`-`: standard input), grouped as they
    /// are, without symbolicating again (instead of logs and symbol files).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["logs", "symbols"])]
    pub from_jsonl: Option<PathBuf>,
    /// Crash logs, or folders of them (read recursively).
    #[arg(value_name = "LOG|DIR", required_unless_present = "from_jsonl")]
    pub logs: Vec<PathBuf>,
}

/// Arguments of `diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// A symbol file, or a directory searched recursively (repeatable).
    #[arg(short = 's', long = "symbols", value_name = "PATH")]
    pub symbols: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// The stack of A to compare, by its index in `symbolicate`'s output (from 0); the
    /// crashed stack when not given.
    #[arg(long, value_name = "N")]
    pub stack_a: Option<usize>,
    /// The stack of B to compare (A and B may be the same log).
    #[arg(long, value_name = "N")]
    pub stack_b: Option<usize>,
    /// The first log.
    #[arg(value_name = "A")]
    pub a: PathBuf,
    /// The second log.
    #[arg(value_name = "B")]
    pub b: PathBuf,
}

/// Arguments of `extract-sources`.
#[derive(Debug, clap::Args)]
pub struct ExtractArgs {
    /// The source map.
    #[arg(value_name = "MAP")]
    pub map: PathBuf,
    /// The folder to write into (made when missing).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Arguments of `check-map`.
#[derive(Debug, clap::Args)]
pub struct CheckMapArgs {
    /// The bundle the map is for: generated positions are checked against its text.
    #[arg(long, value_name = "FILE")]
    pub bundle: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// The source map.
    #[arg(value_name = "MAP")]
    pub map: PathBuf,
}

/// Output format of `symbolicate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The trace as written, each frame resolved beneath it.
    Text,
    /// The JSON document whose contract `engine::report` documents.
    Json,
}

/// Output format of `symbolicate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SymbolicateFormat {
    /// The trace as written, each frame resolved beneath it.
    Text,
    /// The JSON document whose contract `engine::report` documents.
    Json,
    /// JSON lines: many logs, one line each (its path and its JSON document, or its error),
    /// in input order, written as they are done.
    Jsonl,
}

/// Arguments of `symbolicate`.
#[derive(Debug, clap::Args)]
pub struct SymbolicateArgs {
    /// A symbol file, or a directory searched recursively (repeatable).
    #[arg(short = 's', long = "symbols", value_name = "PATH")]
    pub symbols: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SymbolicateFormat::Text)]
    pub format: SymbolicateFormat,
    /// Base of the columns in the log (default: the detected format's).
    #[arg(long, value_name = "0|1", value_parser = clap::value_parser!(u32).range(0..=1))]
    pub column_base: Option<u32>,
    /// JSON indented for people (the default is compact: one line, for programs).
    #[arg(long)]
    pub pretty: bool,
    /// A folder for derived data (native SymCaches, mapping indexes): read when it is there,
    /// filled when not. Without it the command writes nothing.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// The log file, or `-` for standard input. With `--format jsonl`: logs and folders of
    /// them (read recursively), `-` reading log paths from standard input, one a line.
    #[arg(value_name = "LOG", required = true)]
    pub logs: Vec<PathBuf>,
}

/// An error that stops the command, with its exit code.
#[derive(Debug)]
pub struct Failure {
    /// 2: unusable input; 1: internal error.
    pub code: u8,
    /// The message (names the file and the problem).
    pub message: String,
}

/// An input the command cannot use (exit code 2).
fn unusable(e: impl std::fmt::Display) -> Failure {
    Failure {
        code: 2,
        message: e.to_string(),
    }
}

/// Runs a CLI command and returns the process exit code (`None` opens the window, which
/// `main.rs` does).
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::ExtractSources(args) => exit_code(extract_command(&args).map(|()| 0)),
        Command::CheckMap(args) => {
            let mut stdout = std::io::stdout().lock();
            exit_code(check_map_command(&args, &mut stdout).map(|clean| u8::from(!clean)))
        }
        Command::Symbolicate(args) => {
            let mut stdout = std::io::stdout().lock();
            exit_code(symbolicate_command(&args, &mut stdout).map(|()| 0))
        }
        Command::Buckets(args) => {
            let mut stdout = std::io::stdout().lock();
            exit_code(buckets_command(&args, &mut stdout).map(|()| 0))
        }
        Command::Diff(args) => {
            let mut stdout = std::io::stdout().lock();
            exit_code(diff_command(&args, &mut stdout).map(|()| 0))
        }
        Command::Profile(args) => {
            let mut stdout = std::io::stdout().lock();
            exit_code(profile_command(&args, &mut stdout).map(|()| 0))
        }
        Command::Heap(args) => {
            let mut stdout = std::io::stdout().lock();
            exit_code(heap_command(&args, &mut stdout).map(|()| 0))
        }
    }
}

/// The symbol files at `paths` (no cache), what could not be used said on standard error.
fn symbols_with_warnings(paths: &[PathBuf]) -> Result<SymbolSet, Failure> {
    let mut symbols = SymbolSet::new();
    let mut warnings = Vec::new();
    for path in paths {
        load_symbols(path, None, &mut symbols, &mut warnings)?;
    }
    for w in &warnings {
        eprintln!("symscope: warning: {w}");
    }
    Ok(symbols)
}

/// `symscope heap`, writing its output to `out`: the snapshot read from the file as it
/// streams, its dominator tree built, the Summary's classes resolved through the symbol
/// files (see `engine::heap`).
pub fn heap_command(args: &HeapArgs, out: &mut dyn std::io::Write) -> Result<(), Failure> {
    use engine::heap;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    let read = |path: &Path| -> Result<heap::Heap, Failure> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| unusable(format!("{name}: {e}")))?;
        let size = file.metadata().map_or(0, |m| m.len());
        // The edges are read on a second thread from a second handle on the file.
        let reopen = |offset: u64| -> std::io::Result<Box<dyn std::io::Read>> {
            let mut file = std::fs::File::open(path)?;
            std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(offset))?;
            Ok(Box::new(file))
        };
        heap::read_heap_with(
            &name,
            std::io::BufReader::with_capacity(1 << 16, file),
            size,
            Some((&reopen, &ParallelIndex)),
            &mut NoProgress,
        )
        .map_err(unusable)
    };
    let h = read(&args.snapshot)?;
    let symbols = symbols_with_warnings(&args.symbols)?;
    let all = h.summary();
    let rows = all[..args.top.unwrap_or(all.len()).min(all.len())].to_vec();
    let classes = heap::resolve_classes(rows, &h, &symbols, &mut NoProgress).map_err(unusable)?;
    let name = args.snapshot.display().to_string();
    let baseline = match &args.compare {
        Some(path) => {
            let before = read(path)?;
            let mut changes = before.compare(&h);
            if let Some(n) = args.top {
                changes.truncate(n);
            }
            // The changed classes named as the Summary names them.
            let rows: Vec<heap::ClassRow> = changes
                .iter()
                .filter_map(|c| all.iter().find(|r| r.name == c.name).cloned())
                .collect();
            let names =
                heap::resolve_classes(rows, &h, &symbols, &mut NoProgress).map_err(unusable)?;
            Some((path.display().to_string(), changes, names))
        }
        None => None,
    };
    let allocations =
        engine::allocations::resolve_allocations(&name, &h, &symbols, &mut NoProgress)
            .map_err(unusable)?;
    if let Some(to) = &args.write_symbolicated {
        write_symbolicated(&args.snapshot, to, &h, allocations.as_ref())?;
    }
    let allocating = allocations.as_ref().map(|a| {
        let mut rows = a.functions();
        rows.truncate(args.top.unwrap_or(rows.len()));
        rows
    });
    let compare = baseline
        .as_ref()
        .map(|(b, c, n)| (b.as_str(), c.as_slice(), n.as_slice()));
    let written = match args.format {
        OutputFormat::Json => {
            let mut doc = heap::to_json(&name, &h, &classes, compare);
            if let Some(rows) = &allocating {
                doc["allocations"] = engine::allocations::to_json(rows);
            }
            serde_json::to_writer_pretty(&mut out, &doc)
                .map_err(std::io::Error::other)
                .and_then(|()| out.write_all(b"\n"))
        }
        _ => {
            let mut text = heap::to_text(&name, &h, &classes, compare);
            if let Some(rows) = &allocating {
                text.push_str(&engine::allocations::to_text(rows));
            }
            out.write_all(text.as_bytes())
        }
    };
    finish_output(written.and_then(|()| out.flush()))
}

/// `symscope heap --write-symbolicated`: the snapshot at `from` (read as `heap`) written to
/// `to` with its allocation frames resolved, atomically; a note on standard error says how
/// many frames now point into original sources.
fn write_symbolicated(
    from: &Path,
    to: &Path,
    heap: &engine::heap::Heap,
    allocations: Option<&engine::allocations::Allocations>,
) -> Result<(), Failure> {
    use engine::allocations;
    let name = from.display().to_string();
    let allocations = allocations.ok_or_else(|| {
        unusable(format!(
            "{name}: no allocation stacks to symbolicate (take a heap timeline: \
                 allocation tracking on)"
        ))
    })?;
    let bytes = crate::jobs::read_or_map(from).map_err(|e| unusable(format!("{name}: {e}")))?;
    let mut result = Ok(0);
    engine::write_atomically_with(to, &mut |w| {
        result = allocations::write_symbolicated(&name, bytes.as_slice(), heap, allocations, w);
        match &result {
            Err(e) => Err(std::io::Error::other(e.to_string())),
            Ok(_) => Ok(()),
        }
    })
    .map_err(|e| unusable(format!("{}: {e}", to.display())))?;
    let resolved = result.map_err(unusable)?;
    eprintln!(
        "symscope: wrote {}: {resolved} of {} allocation frames point into original sources",
        to.display(),
        heap.trace_functions().len()
    );
    Ok(())
}

/// `symscope profile`, writing its output to `out`: the profile read, each distinct
/// location resolved once against the symbol files, the functions ranked (see
/// `engine::profile`).
pub fn profile_command(args: &ProfileArgs, out: &mut dyn std::io::Write) -> Result<(), Failure> {
    // Standard output is line-buffered: a profile of a million samples is one long line.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    let out: &mut dyn std::io::Write = &mut out;
    // A ranking needs each node's totals, not the samples: a `.cpuprofile` streams from the
    // file into them, the file never held.
    let totals = match args.format {
        ProfileFormat::Json | ProfileFormat::Text | ProfileFormat::Collapsed
            if args.profile.as_os_str() != "-" =>
        {
            profile_totals(&args.profile)?
        }
        _ => None,
    };
    // Otherwise a long profile is mapped, not copied: it is read once, into compact samples,
    // and dropped.
    let (name, totals) = match totals {
        Some((name, p)) => (name, Some(p)),
        None => (args.profile.display().to_string(), None),
    };
    let mut tracks = None;
    let profiles = match totals {
        Some(p) => vec![(name, p)],
        None => {
            let file = if args.profile.as_os_str() == "-" {
                read_log(&args.profile)?
            } else {
                let blob = crate::jobs::read_or_map(&args.profile)
                    .map_err(|e| unusable(format!("{name}: {e}")))?;
                Detected::new(name, blob)
            };
            let (profiles, t) = read_profiles(file, args.format)?;
            tracks = t;
            profiles
        }
    };
    let symbols = symbols_with_warnings(&args.symbols)?;
    let several = profiles.len() > 1;
    let mut resolved = Vec::with_capacity(profiles.len());
    for (label, profile) in profiles {
        resolved.push(
            engine::profile::symbolicate_profile(
                &label,
                std::sync::Arc::new(profile),
                &symbols,
                &mut NoProgress,
            )
            .map_err(unusable)?,
        );
    }
    let written = match args.format {
        ProfileFormat::Text => {
            let tables: Vec<String> = resolved.iter().map(|r| r.to_text(args.top)).collect();
            out.write_all(tables.join("\n").as_bytes())
        }
        ProfileFormat::Collapsed => resolved.iter().try_for_each(|r| {
            let text = r.collapsed();
            if several {
                // Each profile's stacks under its own root.
                let root = r.name.replace(';', ":");
                text.lines().try_for_each(|l| writeln!(out, "{root};{l}"))
            } else {
                out.write_all(text.as_bytes())
            }
        }),
        ProfileFormat::Json => {
            let mut doc = serde_json::json!({
                "profiles": resolved.iter().map(|r| r.to_json(args.top)).collect::<Vec<_>>(),
            });
            if let Some(t) = tracks.as_ref().filter(|t| !t.threads.is_empty()) {
                doc["tracks"] = engine::profile::tracks_json(t);
            }
            serde_json::to_writer_pretty(&mut *out, &doc)
                .map_err(std::io::Error::other)
                .and_then(|()| out.write_all(b"\n"))
        }
        ProfileFormat::Speedscope => serde_json::to_writer(
            &mut *out,
            &engine::profile::to_speedscope(&resolved, env!("CARGO_PKG_VERSION")),
        )
        .map_err(std::io::Error::other)
        .and_then(|()| out.write_all(b"\n")),
        ProfileFormat::Cpuprofile => serde_json::to_writer(&mut *out, &resolved[0].to_cpuprofile())
            .map_err(std::io::Error::other)
            .and_then(|()| out.write_all(b"\n")),
    };
    finish_output(written.and_then(|()| out.flush()))
}

/// A `.cpuprofile` read as per-node totals from the file (its first kilobytes detect it);
/// `None`: read it whole.
fn profile_totals(path: &Path) -> Result<Option<(String, crate::model::Profile)>, Failure> {
    let name = path.display().to_string();
    let failed = |e: std::io::Error| unusable(format!("{name}: {e}"));
    let mut file = std::fs::File::open(path).map_err(failed)?;
    let mut head = Vec::with_capacity(1 << 16);
    (&mut file)
        .take(1 << 16)
        .read_to_end(&mut head)
        .map_err(failed)?;
    let input = std::io::Read::chain(head.as_slice(), file);
    // The samples are read again beside their deltas from a second handle: none is held.
    let reopen = |offset: u64| -> std::io::Result<Box<dyn std::io::Read>> {
        let mut file = std::fs::File::open(path)?;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(offset))?;
        Ok(Box::new(std::io::BufReader::with_capacity(0, file)))
    };
    let totals = engine::profile::read_profile_totals(&name, &head, input, Some(&reopen))
        .map_err(unusable)?;
    Ok(totals.map(|p| (name, p)))
}

/// The CPU profiles of a profile file, each with its label, and a trace's threads' duration
/// events; `--format cpuprofile` writes one profile.
#[allow(clippy::type_complexity)]
fn read_profiles(
    file: Detected,
    format: ProfileFormat,
) -> Result<
    (
        Vec<(String, crate::model::Profile)>,
        Option<crate::formats::trace_events::Tracks>,
    ),
    Failure,
> {
    let (profiles, tracks) = engine::profile::read_profile_file(&file).map_err(unusable)?;
    if format == ProfileFormat::Cpuprofile && profiles.len() > 1 {
        return Err(unusable(format!(
            "{}: the trace holds {} CPU profiles; --format cpuprofile writes one (use json)",
            file.name,
            profiles.len()
        )));
    }
    let bytes = profiles
        .iter()
        .any(|(_, p)| p.weight == crate::model::Weight::Bytes);
    if bytes
        && matches!(
            format,
            ProfileFormat::Cpuprofile | ProfileFormat::Speedscope
        )
    {
        return Err(unusable(format!(
            "{}: a sampling heap profile has no timeline to write as a CPU profile or a \
             speedscope file (use json, text or collapsed)",
            file.name
        )));
    }
    Ok((profiles, tracks))
}

/// The process exit code of a command's result, its failure said on standard error.
fn exit_code(result: Result<u8, Failure>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            eprintln!("symscope: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

/// `symscope symbolicate`, writing its output to `out`: a JavaScript log streams (see
/// `stream.rs`); any other takes the engine's journey (symbol files loaded, the log read into
/// its table, symbolicated), then the table is written out as it goes.
pub fn symbolicate_command(
    args: &SymbolicateArgs,
    out: &mut dyn std::io::Write,
) -> Result<(), Failure> {
    if args.format == SymbolicateFormat::Jsonl {
        return symbolicate_lines(args, out);
    }
    let [log_path] = args.logs.as_slice() else {
        return Err(unusable(format!(
            "{} logs given: --format text and json take one (--format jsonl takes many)",
            args.logs.len()
        )));
    };
    let start = Instant::now();
    // A JavaScript log is read, symbolicated and written as it streams; any other is read
    // whole first.
    let file = if args.pretty {
        read_log(log_path)?
    } else {
        let spooled = if log_path.as_os_str() == "-" {
            Some(stream::spool_stdin()?)
        } else {
            None
        };
        let (path, name) = match &spooled {
            Some(f) => (f.path(), "standard input".to_owned()),
            None => (log_path.as_path(), log_path.display().to_string()),
        };
        match stream::symbolicate(args, path, &name, start, out)? {
            stream::Streamed::Done => return Ok(()),
            stream::Streamed::NotJavaScript(file) => file,
        }
    };
    // A text log is read first (its errors come first); a minidump once its symbols are
    // loaded, whose call-frame information walks its stacks.
    let mut log = if crate::formats::minidump::is_minidump(file.blob.as_slice()) {
        None
    } else {
        Some(engine::read_log(&file, &engine::Cfi::new(), &mut NoProgress).map_err(unusable)?)
    };
    let mut symbols = SymbolSet::new();
    let mut warnings = Vec::new();
    let cache = args.cache.as_deref();
    for path in &args.symbols {
        load_symbols(path, cache, &mut symbols, &mut warnings)?;
    }
    let log = match log.take() {
        Some(log) => log,
        None => engine::read_log(&file, &symbols.cfi(), &mut NoProgress).map_err(unusable)?,
    };
    drop(file);
    let table = &log.table;
    warnings.extend(empty_log(
        &log.name,
        table.stack_count(),
        table.frame_count(),
    ));
    let options = Options {
        column_base: args.column_base,
    };
    let log = log
        .symbolicate(&symbols, options, &mut NoProgress)
        .map_err(unusable)?;
    // What the symbol files hold (a large binary's parsed units) is freed on a thread of its
    // own: the process need not wait for it before it ends.
    std::thread::spawn(move || drop(symbols));
    let total_ms = start.elapsed().as_secs_f64() * 1e3;
    // Buffered: standard output writes each line as it comes, and a pretty document of
    // 10,000 frames is 300,000 lines.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    let written = match args.format {
        SymbolicateFormat::Json | SymbolicateFormat::Jsonl => {
            let json = report::Json {
                table: &log.table,
                warnings: &warnings,
                total_ms,
            };
            report::write_json(&json, args.pretty, &mut out)
        }
        SymbolicateFormat::Text => report::write_text(&log.table, &warnings, &mut out),
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure {
            code: 1,
            message: format!("writing output: {e}"),
        }),
    }
}

/// `symbolicate --format jsonl`: the symbol files loaded once, then every log (folders read
/// recursively, `-` paths on standard input, one a line, taken a batch at a time as they come)
/// symbolicated on every core and written as one line, in input order, as soon as it and those
/// before it are done. A log that cannot be used is a line with its error; the symbol files'
/// warnings go to standard error.
fn symbolicate_lines(args: &SymbolicateArgs, out: &mut dyn std::io::Write) -> Result<(), Failure> {
    let mut symbols = SymbolSet::new();
    let mut warnings = Vec::new();
    for path in &args.symbols {
        load_symbols(path, args.cache.as_deref(), &mut symbols, &mut warnings)?;
    }
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    let mut lines = LineWriter {
        symbols: &symbols,
        options: Options {
            column_base: args.column_base,
        },
        out: &mut out,
        closed: false,
    };
    for path in &args.logs {
        if path.as_os_str() != "-" {
            lines.write(&expand_one(path))?;
            continue;
        }
        // So that `find … | symscope symbolicate --format jsonl -` streams.
        let mut batch = Vec::new();
        for line in std::io::BufRead::lines(std::io::stdin().lock()) {
            let line = line.map_err(|e| unusable(format!("standard input: {e}")))?;
            if !line.trim().is_empty() {
                batch.extend(expand_one(Path::new(line.trim())));
            }
            if batch.len() >= crate::jobs::batch::CHUNK {
                lines.write(&std::mem::take(&mut batch))?;
            }
        }
        lines.write(&batch)?;
    }
    std::thread::spawn(move || drop(symbols));
    Ok(())
}

/// A folder's logs (searched recursively, its errors said on standard error), or a file as
/// given (an unreadable one is a line of its own).
fn expand_one(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let (found, errors) = crate::workspace::expand_paths(&[path.to_path_buf()]);
    for e in errors {
        eprintln!("warning: {e}");
    }
    found
}

/// Writes `symbolicate --format jsonl`'s lines, a batch of logs at a time.
struct LineWriter<'a, W: std::io::Write> {
    symbols: &'a SymbolSet,
    options: Options,
    out: &'a mut W,
    /// The reader went away (`| head`): nothing more is done.
    closed: bool,
}

impl<W: std::io::Write> LineWriter<'_, W> {
    /// Symbolicates `paths` on every core and writes a line for each in their order, each
    /// flushed as soon as it and those before it are done.
    fn write(&mut self, paths: &[PathBuf]) -> Result<(), Failure> {
        if self.closed {
            return Ok(());
        }
        let mut result = Ok(());
        let out = &mut *self.out;
        crate::jobs::batch::each_log(paths, self.symbols, self.options, &mut |i, log| {
            let path = paths[i].display().to_string();
            let written = match log {
                Ok((table, ms)) => {
                    let doc = report::Json {
                        table: &table,
                        warnings: &[],
                        total_ms: ms,
                    };
                    report::write_json_line(&path, &doc, &mut *out)
                }
                Err(e) => {
                    let line = report::JsonLineError {
                        path: &path,
                        error: e.reason.to_string(),
                    };
                    serde_json::to_writer(&mut *out, &line).map_err(std::io::Error::from)
                }
            };
            result = written
                .and_then(|()| writeln!(out))
                .and_then(|()| out.flush());
            result.is_ok()
        });
        self.closed = result.is_err();
        finish_output(result)
    }
}

/// Writes output, a closed pipe (`| head`) not being an error of ours.
fn finish_output(written: std::io::Result<()>) -> Result<(), Failure> {
    match written {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure {
            code: 1,
            message: format!("writing output: {e}"),
        }),
    }
}

/// `symscope buckets`: every log under the paths given read, symbolicated against the
/// symbol files (each loaded once) on all cores, and grouped by signature (the JSON
/// contract is documented in `engine::report`). A log that cannot be used is listed, never
/// fatal; a path that does not exist is (exit 2).
pub fn buckets_command(args: &BucketsArgs, out: &mut dyn std::io::Write) -> Result<(), Failure> {
    if let Some(lines) = &args.from_jsonl {
        return buckets_from_lines(args, lines, out);
    }
    let start = Instant::now();
    let mut symbols = SymbolSet::new();
    let mut warnings = Vec::new();
    for path in &args.symbols {
        load_symbols(path, args.cache.as_deref(), &mut symbols, &mut warnings)?;
    }
    let loaded_ms = start.elapsed().as_secs_f64() * 1e3;
    for path in &args.logs {
        std::fs::metadata(path).map_err(|e| unusable(format!("{}: {e}", path.display())))?;
    }
    let (paths, errors) = crate::workspace::expand_paths(&args.logs);
    warnings.extend(errors);
    let batch = crate::jobs::batch::bucket_logs(
        &paths,
        &Default::default(),
        &[],
        &symbols,
        Options::default(),
        args.frames.max(1),
        &|_, _| true,
    );
    std::thread::spawn(move || drop(symbols));
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let unreadable: Vec<(String, String)> = batch
        .unreadable
        .iter()
        .map(|(i, error)| (names[*i].clone(), error.reason.to_string()))
        .collect();
    let total_ms = start.elapsed().as_secs_f64() * 1e3;
    let phases = [
        ("load symbols".to_owned(), loaded_ms),
        ("bucket logs".to_owned(), total_ms - loaded_ms),
    ];
    let json = report::BucketsJson {
        buckets: &batch.buckets,
        paths: &names,
        unreadable: &unreadable,
        warnings: &warnings,
        phases: &phases,
        total_ms,
    };
    write_buckets(args, &json, out)
}

/// `buckets --from-jsonl`: each line `symbolicate --format jsonl` wrote read back into its
/// table and bucketed as `buckets` buckets a log; a line with an error is listed as
/// unreadable, as its log would be.
fn buckets_from_lines(
    args: &BucketsArgs,
    file: &Path,
    out: &mut dyn std::io::Write,
) -> Result<(), Failure> {
    let start = Instant::now();
    let text = if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
            .map_err(|e| unusable(format!("standard input: {e}")))?;
        text
    } else {
        std::fs::read_to_string(file).map_err(|e| unusable(format!("{}: {e}", file.display())))?
    };
    let lines = report::documents_of_lines(&text)
        .map_err(|e| unusable(format!("{}: {e}", file.display())))?;
    let (mut names, mut failed, mut read_back) = (Vec::new(), Vec::new(), Vec::new());
    for (i, line) in lines.into_iter().enumerate() {
        match line {
            report::LineDocument::Table(path, table) => {
                names.push(path);
                read_back.push((i, std::sync::Arc::new(*table)));
            }
            report::LineDocument::Failed(path, error) => {
                names.push(path);
                failed.push((i, error));
            }
        }
    }
    let batch = crate::jobs::batch::bucket_logs(
        &[],
        &Default::default(),
        &read_back,
        &SymbolSet::new(),
        Options::default(),
        args.frames.max(1),
        &|_, _| true,
    );
    let reasons = batch
        .unreadable
        .iter()
        .map(|(i, e)| (*i, e.reason.to_string()));
    let mut unreadable: Vec<(usize, String)> = failed.into_iter().chain(reasons).collect();
    unreadable.sort_by_key(|(i, _)| *i);
    let unreadable: Vec<(String, String)> = unreadable
        .into_iter()
        .map(|(i, reason)| (names[i].clone(), reason))
        .collect();
    let total_ms = start.elapsed().as_secs_f64() * 1e3;
    let json = report::BucketsJson {
        buckets: &batch.buckets,
        paths: &names,
        unreadable: &unreadable,
        warnings: &[],
        phases: &[("bucket lines".to_owned(), total_ms)],
        total_ms,
    };
    write_buckets(args, &json, out)
}

/// Writes `buckets`' output in the format asked for.
fn write_buckets(
    args: &BucketsArgs,
    json: &report::BucketsJson<'_>,
    out: &mut dyn std::io::Write,
) -> Result<(), Failure> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    let written = match args.format {
        OutputFormat::Json => serde_json::to_writer_pretty(&mut out, json)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out)),
        OutputFormat::Text => report::write_buckets_text(json, &mut out),
    };
    finish_output(written.and_then(|()| out.flush()))
}

/// `symscope diff A B`: both logs symbolicated against the same symbol files, their crashed
/// stacks (or the stacks `--stack-a`/`--stack-b` name) aligned (the JSON contract is documented in `engine::report`).
pub fn diff_command(args: &DiffArgs, out: &mut dyn std::io::Write) -> Result<(), Failure> {
    let mut symbols = SymbolSet::new();
    let mut warnings = Vec::new();
    for path in &args.symbols {
        load_symbols(path, None, &mut symbols, &mut warnings)?;
    }
    let cfi = symbols.cfi();
    let mut tables = Vec::new();
    let mut stacks = Vec::new();
    for (path, stack) in [(&args.a, args.stack_a), (&args.b, args.stack_b)] {
        let file = read_log(path)?;
        let log = engine::read_log(&file, &cfi, &mut NoProgress).map_err(unusable)?;
        let log = log
            .symbolicate(&symbols, Options::default(), &mut NoProgress)
            .map_err(unusable)?;
        let picked = engine::stack_diff::pick_stack(&log.table, stack)
            .map_err(|reason| unusable(engine::Error::new(&file.name, reason)))?;
        stacks.push(picked);
        tables.push((file.name, log.table));
    }
    let (a, b) = (&tables[0], &tables[1]);
    let diff = engine::stack_diff::diff(&a.1, stacks[0], &b.1, stacks[1]);
    let json = report::DiffJson {
        a: (&a.0, &a.1),
        b: (&b.0, &b.1),
        diff: &diff,
    };
    let mut out = std::io::BufWriter::new(out);
    let written = match args.format {
        OutputFormat::Json => serde_json::to_writer_pretty(&mut out, &json)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out)),
        OutputFormat::Text => report::write_diff_text(&json, &mut out).and_then(|()| {
            warnings
                .iter()
                .try_for_each(|w| writeln!(out, "warning: {w}"))
        }),
    };
    finish_output(written.and_then(|()| out.flush()))
}

/// `symscope check-map`, writing the doctor's report to `out` (its JSON contract is
/// documented in `engine::doctor`); whether the map has no errors.
pub fn check_map_command(
    args: &CheckMapArgs,
    out: &mut dyn std::io::Write,
) -> Result<bool, Failure> {
    let name = args.map.display().to_string();
    let bytes =
        crate::jobs::read_or_map(&args.map).map_err(|e| unusable(format!("{name}: {e}")))?;
    let map = crate::symbols::sourcemap::SourceMap::parse_with(bytes, &ParallelIndex)
        .map_err(|e| unusable(format!("{name}: {e}")))?;
    let bundle = match &args.bundle {
        Some(path) => Some(
            crate::jobs::read_or_map(path)
                .map_err(|e| unusable(format!("{}: {e}", path.display())))?,
        ),
        None => None,
    };
    let report = engine::doctor::check_map_with(
        &map,
        bundle.as_ref().map(Blob::as_slice),
        &ParallelIndex,
        &mut NoProgress,
    );
    let bundle_name = args.bundle.as_ref().map(|p| p.display().to_string());
    let written = match args.format {
        OutputFormat::Json => {
            let doc = engine::doctor::to_json(&report, &name, bundle_name.as_deref());
            serde_json::to_writer_pretty(&mut *out, &doc)
                .map_err(std::io::Error::other)
                .and_then(|()| writeln!(out))
        }
        OutputFormat::Text => out.write_all(engine::doctor::to_text(&report, &name).as_bytes()),
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            return Err(Failure {
                code: 1,
                message: format!("writing output: {e}"),
            });
        }
    }
    Ok(!report.has_errors())
}

/// `symscope extract-sources MAP DIR`: what was written and what was skipped, on standard
/// output.
fn extract_command(args: &ExtractArgs) -> Result<(), Failure> {
    let name = args.map.display().to_string();
    let bytes =
        crate::jobs::read_or_map(&args.map).map_err(|e| unusable(format!("{name}: {e}")))?;
    let map = crate::symbols::sourcemap::SourceMap::parse_with(bytes, &ParallelIndex)
        .map_err(|e| unusable(format!("{name}: {e}")))?;
    let done = crate::workspace::extract_sources(&map, &args.dir)
        .map_err(|e| unusable(format!("{}: {e}", args.dir.display())))?;
    for skipped in &done.skipped {
        println!("skipped {skipped}");
    }
    println!(
        "{} sources written to {}",
        done.written.len(),
        args.dir.display()
    );
    Ok(())
}

/// The warning for a log of no stacks or no frames (`stacks`, `frames`: its counts).
fn empty_log(name: &str, stacks: usize, frames: usize) -> Option<String> {
    if stacks == 0 {
        Some(format!("{name}: the log is empty"))
    } else if frames == 0 {
        Some(format!("{name}: no stack frames found"))
    } else {
        None
    }
}

/// The log's bytes, from its file or standard input (`-`).
fn read_log(path: &Path) -> Result<Detected, Failure> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| unusable(format!("standard input: {e}")))?;
        return Ok(Detected::new("standard input", Blob::from(buf)));
    }
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| unusable(format!("{name}: {e}")))?;
    Ok(Detected::new(name, Blob::from(bytes)))
}

/// Loads one symbol file into `symbols` (on all cores, through the cache folder if any).
fn add_file(
    file: &Detected,
    cache: Option<&Path>,
    symbols: &mut SymbolSet,
) -> Result<(), engine::Error> {
    let cache = cache.map(|dir| Cache {
        dir: dir.to_path_buf(),
        fingerprint: None,
    });
    // Without a cache folder a native file is answered lazily (a crash's few frames read
    // only their units); with one, its SymCache is built once and kept for every later run.
    let loader = Loader {
        runner: &ParallelIndex,
        maps: MapRoute::AsAsked(&ParallelIndex),
        cache: cache.as_ref(),
        native: if cache.is_some() {
            NativeRoute::SymCache
        } else {
            NativeRoute::Lazy
        },
    };
    engine::load_symbols(file, loader, &mut NoProgress)?.add_to(symbols);
    Ok(())
}

/// Loads a symbol file (errors are fatal) or walks a folder (errors become warnings).
fn load_symbols(
    path: &Path,
    cache: Option<&Path>,
    symbols: &mut SymbolSet,
    warnings: &mut Vec<String>,
) -> Result<(), Failure> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| unusable(format!("{name}: {e}")))?;
    if meta.is_dir() {
        let (files, errors) = crate::workspace::files_under(path);
        warnings.extend(errors);
        let count =
            |s: &SymbolSet| s.natives.len() + s.maps.len() + s.mappings.len() + s.bundles.len();
        let before = count(symbols);
        for file in files {
            let display = file.display().to_string();
            match crate::jobs::read_or_map(&file) {
                Err(e) => warnings.push(format!("{display}: skipped: {e}")),
                Ok(bytes) => {
                    let file = Detected::new(display, bytes);
                    if file.is_symbols()
                        && let Err(e) = add_file(&file, cache, symbols)
                    {
                        warnings.push(format!("skipped {e}"));
                    }
                }
            }
        }
        if count(symbols) == before {
            warnings.push(format!(
                "{name}: no symbol files in this folder (a dSYM without its DWARF file?)"
            ));
        }
        return Ok(());
    }
    let bytes = crate::jobs::read_or_map(path).map_err(|e| unusable(format!("{name}: {e}")))?;
    add_file(&Detected::new(name, bytes), cache, symbols).map_err(unusable)
}
