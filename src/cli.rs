//! The headless command line: `symscope symbolicate`.

use crate::formats::{self, detect};
use crate::jobs::ParallelIndex;
use crate::model::{Blob, FileKind, NoProgress};
use crate::symbolicate::{self, Options, Outcome, SymbolSet, report};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

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
}

/// Output format of `symbolicate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The trace as written, each frame resolved beneath it.
    Text,
    /// The JSON document of `shared/docs/cli-json.md`.
    Json,
}

/// Arguments of `symbolicate`.
#[derive(Debug, clap::Args)]
pub struct SymbolicateArgs {
    /// A symbol file, or a directory searched recursively (repeatable).
    #[arg(short = 's', long = "symbols", value_name = "PATH")]
    pub symbols: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
    /// Base of the columns in the log (default: the detected format's).
    #[arg(long, value_name = "0|1", value_parser = clap::value_parser!(u32).range(0..=1))]
    pub column_base: Option<u32>,
    /// A folder for converted native symbols (SymCaches): read when they are there, filled
    /// when not. Without it the command writes nothing.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// The log file, or `-` for standard input.
    #[arg(value_name = "LOG")]
    pub log: PathBuf,
}

/// An error that stops the command, with its exit code.
#[derive(Debug)]
pub struct Failure {
    /// 2: unusable input; 1: internal error.
    pub code: u8,
    /// The message (names the file and the problem).
    pub message: String,
}

fn unusable(message: String) -> Failure {
    Failure { code: 2, message }
}

/// Runs a CLI command and returns the process exit code (`None` opens the window, which
/// `main.rs` does).
pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Symbolicate(args) => {
            let mut stdout = std::io::stdout().lock();
            match symbolicate_command(&args, &mut stdout) {
                Ok(()) => ExitCode::SUCCESS,
                Err(f) => {
                    eprintln!("symscope: {}", f.message);
                    ExitCode::from(f.code)
                }
            }
        }
    }
}

/// `symscope symbolicate`, writing its output to `out`.
pub fn symbolicate_command(
    args: &SymbolicateArgs,
    out: &mut dyn std::io::Write,
) -> Result<(), Failure> {
    let start = Instant::now();
    let (log_name, log_bytes) = read_log(&args.log)?;
    let minidump = formats::minidump::is_minidump(&log_bytes);
    if !minidump && memchr::memchr(0, &log_bytes[..log_bytes.len().min(64 * 1024)]).is_some() {
        return Err(unusable(format!(
            "{log_name}: binary file, not a text log or stack trace"
        )));
    }
    let mut symbols = SymbolSet::new();
    let mut warnings = Vec::new();
    for path in &args.symbols {
        load_symbols(path, args.cache.as_deref(), &mut symbols, &mut warnings)?;
    }
    let trace = if minidump {
        // Stacks are walked with the CFI of the Breakpad files given.
        formats::minidump::parse_with_cfi(&log_bytes, &symbols.cfi())
            .map_err(|e| unusable(format!("{log_name}: {e}")))?
    } else {
        formats::parse_log(&log_bytes)
    };
    if trace.stacks.is_empty() {
        warnings.push(format!("{log_name}: the log is empty"));
    } else if trace.stacks.iter().all(|s| s.frames.is_empty()) {
        warnings.push(format!("{log_name}: no stack frames found"));
    }
    let options = Options {
        column_base: args.column_base,
    };
    let mut result = match symbolicate::symbolicate(&trace, &symbols, options, &mut NoProgress) {
        Outcome::Done(r) | Outcome::Cancelled(r) => r,
    };
    warnings.append(&mut result.warnings);
    result.warnings = warnings;
    let total_ms = start.elapsed().as_secs_f64() * 1e3;
    let written = match args.format {
        OutputFormat::Json => {
            let doc = report::json(&trace, &result, total_ms);
            // Buffered: standard output writes each line as it comes, and a pretty document
            // of 10,000 frames is 300,000 lines (0.1 s of write calls).
            use std::io::Write as _;
            let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut *out);
            serde_json::to_writer_pretty(&mut out, &doc)
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(out))
                .and_then(|()| out.flush())
        }
        OutputFormat::Text => out.write_all(report::text(&trace, &result).as_bytes()),
    };
    match written {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure {
            code: 1,
            message: format!("writing output: {e}"),
        }),
    }
}

fn read_log(path: &Path) -> Result<(String, Vec<u8>), Failure> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| unusable(format!("standard input: {e}")))?;
        return Ok(("standard input".to_owned(), buf));
    }
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| unusable(format!("{name}: {e}")))?;
    Ok((name, bytes))
}

/// Adds one symbol file; a native file goes through the SymCache folder when one is given
/// (read if its SymCache is there, else converted and written).
fn add_file(
    symbols: &mut SymbolSet,
    name: &str,
    blob: Blob,
    cache: Option<&Path>,
) -> Result<(), Failure> {
    let fail = |e: crate::symbolicate::LoadError| unusable(e.to_string());
    let bytes = blob.as_slice();
    let Some(dir) = cache.filter(|_| detect::peek(bytes) == FileKind::NativeSymbols) else {
        return symbols
            .add_with(name, blob, &ParallelIndex)
            .map(|_| ())
            .map_err(fail);
    };
    let start = Instant::now();
    let file = dir.join(format!(
        "symcache-{:016x}.bin",
        xxhash_rust::xxh3::xxh3_64(bytes)
    ));
    let cached = std::fs::read(&file)
        .ok()
        .and_then(|b| crate::symbols::native::NativeSymbols::from_cache(std::sync::Arc::new(b)));
    let native = match cached {
        Some(n) => n,
        None => {
            let n =
                crate::symbols::native::NativeSymbols::convert_with(bytes, None, &ParallelIndex)
                    .map_err(|e| unusable(format!("{name}: {e}")))?;
            crate::workspace::write_cache(&file, &n.to_cache_bytes())
                .map_err(|e| unusable(format!("{}: {e}", file.display())))?;
            n
        }
    };
    symbols.add_shared_native(
        name,
        std::sync::Arc::new(native),
        start.elapsed().as_secs_f64() * 1e3,
    );
    Ok(())
}

/// Loads a symbol file (errors are fatal) or walks a directory (errors become warnings).
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
                    let kind = detect::peek(bytes.as_slice());
                    if matches!(
                        kind,
                        FileKind::SourceMap
                            | FileKind::JavaScript
                            | FileKind::ProguardMapping
                            | FileKind::NativeSymbols
                    ) && let Err(e) = add_file(symbols, &display, bytes, cache)
                    {
                        warnings.push(format!("skipped {}", e.message));
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
    add_file(symbols, &name, bytes, cache)
}
