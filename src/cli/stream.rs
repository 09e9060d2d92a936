//! `symscope symbolicate` of a JavaScript log as it streams (`engine::stream`): the file is
//! read a piece at a time and parsed into windows on one thread while the symbol files load
//! and, on this one, each window is symbolicated and written; memory stays the same however
//! long the log. A log whose first lines are not JavaScript's, or whose columns depend on
//! what comes later (a Hermes bytecode frame anywhere makes them 0-based), is read whole
//! instead: the same output either way. So is `--pretty` (the indented document is serde's,
//! of a whole table). Standard input is spooled to a temporary file first.

use super::{Failure, SymbolicateArgs, SymbolicateFormat, load_symbols, unusable};
use crate::engine::report::Output;
use crate::engine::stream::{Reader, Symbolicator, WINDOW, Window, can_stream};
use crate::engine::{BINARY_SNIFF, Detected};
use crate::formats;
use crate::model::Blob;
use crate::symbolicate::SymbolSet;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::Instant;

/// How much of the file is read at a time.
const PIECE: u64 = 1 << 20;

/// What [`symbolicate`] did.
pub(super) enum Streamed {
    /// The log was symbolicated and written.
    Done,
    /// The log is not a JavaScript one (or cannot stream): its bytes, to read whole.
    NotJavaScript(Detected),
}

/// Standard input copied, a piece at a time, into a temporary file (in the system's
/// temporary folder, removed when dropped), so that a log piped in streams as a named one
/// does (its Hermes check reads it twice).
pub(super) fn spool_stdin() -> Result<tempfile::NamedTempFile, Failure> {
    let failed = |e: io::Error| unusable(format!("standard input: {e}"));
    let mut file = tempfile::NamedTempFile::new().map_err(failed)?;
    io::copy(&mut io::stdin().lock(), &mut file).map_err(failed)?;
    Ok(file)
}

/// Symbolicates the JavaScript log at `path` (called `name`) as it streams, writing to `out`.
pub(super) fn symbolicate(
    args: &SymbolicateArgs,
    path: &Path,
    name: &str,
    start: Instant,
    out: &mut dyn Write,
) -> Result<Streamed, Failure> {
    let name = name.to_owned();
    let failed = |e: io::Error| unusable(format!("{name}: {e}"));
    let mut file = File::open(path).map_err(failed)?;
    // The head: enough lines to tell the format, and the bytes a binary file is told by.
    let mut head = Vec::new();
    let mut lines = 0;
    let mut end = false;
    while !end && (lines < formats::HEAD_LINES || head.len() < BINARY_SNIFF) {
        let before = head.len();
        end = read_piece(&mut file, &mut head).map_err(failed)?;
        lines += memchr::memchr_iter(b'\n', &head[before..]).count();
    }
    let streams = can_stream(&head)
        && (args.column_base.is_some() || !has_hermes_bytecode(path).map_err(failed)?);
    if !streams {
        if !end {
            file.read_to_end(&mut head).map_err(failed)?;
        }
        return Ok(Streamed::NotJavaScript(Detected::new(
            name,
            Blob::from(head),
        )));
    }
    let output = match args.format {
        SymbolicateFormat::Text => Output::Text,
        _ => Output::Json { path: None },
    };
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let (windows, received) = mpsc::sync_channel::<io::Result<Vec<Window>>>(2);
    // Input failures end the run (exit 2); a write's error is the output's.
    let written: Result<io::Result<()>, Failure> = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("symscope-read".to_owned())
            .spawn_scoped(scope, move || read_windows(file, head, end, &windows))
            .map_err(|e| unusable(format!("starting the log's reader: {e}")))?;
        let mut symbols = SymbolSet::new();
        let mut warnings = Vec::new();
        for path in &args.symbols {
            load_symbols(path, args.cache.as_deref(), &mut symbols, &mut warnings)?;
        }
        let base = args.column_base.unwrap_or(1);
        let mut run = match Symbolicator::new(&symbols, base, output, &mut out) {
            Ok(run) => run,
            Err(e) => return Ok(Err(e)),
        };
        for windows in received {
            for window in windows.map_err(failed)? {
                if let Err(e) = run.window(window, &mut out) {
                    return Ok(Err(e));
                }
            }
        }
        let (stacks, frames) = run.counts();
        warnings.extend(super::empty_log(&name, stacks, frames));
        let total_ms = start.elapsed().as_secs_f64() * 1e3;
        let text = matches!(args.format, SymbolicateFormat::Text);
        Ok(run
            .finish(&warnings, total_ms, &mut out)
            .and_then(|()| if text { Ok(()) } else { writeln!(out) })
            .and_then(|()| out.flush()))
    });
    super::finish_output(written?)?;
    Ok(Streamed::Done)
}

/// Appends the next piece of `file` to `buf`; returns whether the file ended.
fn read_piece(file: &mut File, buf: &mut Vec<u8>) -> io::Result<bool> {
    Ok(Read::by_ref(file).take(PIECE).read_to_end(buf)? == 0)
}

/// Whether the log holds a Hermes bytecode frame (`at f (address at file:1:2)`), whose
/// columns are 0-based: the whole log's columns are then (read a piece at a time).
fn has_hermes_bytecode(path: &Path) -> io::Result<bool> {
    const MARK: &[u8] = b"(address at ";
    let finder = memchr::memmem::Finder::new(MARK);
    let mut file = File::open(path)?;
    let mut buf = Vec::new();
    loop {
        let end = read_piece(&mut file, &mut buf)?;
        if finder.find(&buf).is_some() {
            return Ok(true);
        }
        if end {
            return Ok(false);
        }
        // A mark cut by the piece's edge is found with the next piece.
        let keep = buf.len().saturating_sub(MARK.len() - 1);
        buf.drain(..keep);
    }
}

/// The reader's thread: parses the log (its head already read; `end`: the file is all in
/// it) into windows, sending them as they fill; stops when the receiver is gone.
fn read_windows(
    mut file: File,
    mut pending: Vec<u8>,
    mut end: bool,
    windows: &mpsc::SyncSender<io::Result<Vec<Window>>>,
) {
    let mut reader = Reader::new(WINDOW);
    loop {
        // Whole lines only: a line break never falls inside a UTF-8 sequence, so each piece
        // decodes as the whole log would.
        let cut = if end {
            pending.len()
        } else {
            memchr::memrchr(b'\n', &pending).map_or(0, |i| i + 1)
        };
        if cut > 0 {
            let ready = reader.feed(&String::from_utf8_lossy(&pending[..cut]));
            if !ready.is_empty() && windows.send(Ok(ready)).is_err() {
                return;
            }
            pending.drain(..cut);
        }
        if end {
            break;
        }
        match read_piece(&mut file, &mut pending) {
            Ok(e) => end = e,
            Err(e) => {
                windows.send(Err(e)).ok();
                return;
            }
        }
    }
    windows.send(Ok(reader.finish())).ok();
}
