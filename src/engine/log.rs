//! A log's journey: read (detected, parsed into the compact table as the parser goes), then
//! symbolicated against a symbol set (results written into the table frame by frame). The CLI
//! and the window both take it; neither holds a whole parsed trace or result.

use super::detect::Detected;
use super::error::{Error, Reason};
use super::table::{FrameTable, LogBuilder, ResultsBuilder};
use crate::formats::{self, minidump};
use crate::model::{Blob, Progress};
use crate::symbolicate::{self, Options, SymbolSet};
use std::collections::{BTreeSet, HashMap};
use std::ops::ControlFlow;
use std::sync::Arc;

/// A log as the engine keeps it: its table (parsed; symbolicated once a run finished) and,
/// for a minidump, its bytes and the call-frame information its stacks were walked with.
#[derive(Clone, Debug)]
pub struct LogFile {
    /// The file as the user named it.
    pub name: String,
    /// The log, compact.
    pub table: Arc<FrameTable>,
    minidump: Option<Minidump>,
}

/// A minidump's bytes, walked again when other call-frame information is loaded.
#[derive(Clone, Debug)]
struct Minidump {
    bytes: Blob,
    /// The debug IDs whose CFI the current table's stacks were walked with.
    walked_with: BTreeSet<String>,
}

/// Call-frame information of Breakpad files, by debug ID (what minidumps are walked with).
pub type Cfi = HashMap<String, String>;

/// How much of a text log is looked at for NUL bytes (a binary file is refused).
pub const BINARY_SNIFF: usize = 64 * 1024;

/// Reads a log into its table: a minidump's stacks are walked (with `cfi`), a text log is
/// parsed as it is read. A binary file that is not a minidump is refused.
pub fn read_log(file: &Detected, cfi: &Cfi, progress: &mut dyn Progress) -> Result<LogFile, Error> {
    let bytes = file.blob.as_slice();
    let name = file.name.as_str();
    let stop = || Error::new(name, Reason::Cancelled);
    if minidump::is_minidump(bytes) {
        return Ok(LogFile {
            name: file.name.clone(),
            table: Arc::new(walk(name, bytes, cfi, progress)?),
            minidump: Some(Minidump {
                bytes: file.blob.clone(),
                walked_with: cfi.keys().cloned().collect(),
            }),
        });
    }
    if memchr::memchr(0, &bytes[..bytes.len().min(BINARY_SNIFF)]).is_some() {
        return Err(Error::new(name, Reason::Binary));
    }
    if progress.step("parse", 0, 0) == ControlFlow::Break(()) {
        return Err(stop());
    }
    let text = String::from_utf8_lossy(bytes);
    let mut table = LogBuilder::default();
    formats::parse_text_into(&text, &mut table);
    Ok(LogFile {
        name: file.name.clone(),
        table: Arc::new(table.finish()),
        minidump: None,
    })
}

/// A minidump's table, its stacks walked with `cfi`.
fn walk(
    name: &str,
    bytes: &[u8],
    cfi: &Cfi,
    progress: &mut dyn Progress,
) -> Result<FrameTable, Error> {
    if progress.step("walk stacks", 0, 0) == ControlFlow::Break(()) {
        return Err(Error::new(name, Reason::Cancelled));
    }
    let trace = minidump::parse_with_cfi(bytes, cfi).map_err(|e| Error::new(name, e))?;
    let mut table = LogBuilder::default();
    trace.replay(&mut table);
    Ok(table.finish())
}

impl LogFile {
    /// The same log with `table` (its symbolication).
    pub fn with_table(&self, table: Arc<FrameTable>) -> Self {
        Self {
            table,
            ..self.clone()
        }
    }

    /// Whether the log is a minidump (its bytes are kept, to walk its stacks again).
    pub fn is_minidump(&self) -> bool {
        self.minidump.is_some()
    }

    /// Symbolicates the log against `symbols`; a minidump is walked again first when the
    /// set's call-frame information differs from the one its stacks were walked with.
    /// Returns the log with its symbolicated table; a stop is [`Reason::Cancelled`].
    pub fn symbolicate(
        &self,
        symbols: &SymbolSet,
        options: Options,
        progress: &mut dyn Progress,
    ) -> Result<LogFile, Error> {
        let mut log = self.clone();
        if let Some(dump) = &mut log.minidump {
            let cfi = symbols.cfi();
            let ids: BTreeSet<String> = cfi.keys().cloned().collect();
            if ids != dump.walked_with {
                log.table = Arc::new(walk(&self.name, dump.bytes.as_slice(), &cfi, progress)?);
                dump.walked_with = ids;
            }
        }
        let mut results = ResultsBuilder::new(&log.table);
        let summary =
            symbolicate::symbolicate_into(&*log.table, symbols, options, progress, &mut results);
        if summary.cancelled {
            return Err(Error::new(&self.name, Reason::Cancelled));
        }
        let table = results.finish(summary);
        log.table = Arc::new(table);
        Ok(log)
    }
}
