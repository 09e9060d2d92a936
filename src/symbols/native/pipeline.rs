//! Converting one object to a SymCache: what `SymCacheConverter::process_object` does, with
//! names cleaned, reading and writing on two threads where the runner has them.

use super::names::{Demangler, clean_name};
use super::schedule::{SHARES, build_from_dwarf, dwarf_sections, parse_dwarf};
use super::upstream::writer;
use super::{Answers, NativeError, NativeInfo, NativeObject};
use crate::model::{ChunkRunner, Progress};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use symbolic::common::{Arch, DebugId};
use symbolic::debuginfo::FileFormat;
use symbolic::debuginfo::{Function as DebugFunction, Object, ObjectDebugSession, Symbol};
use symbolic::symcache::SymCacheConverter;

/// The `MODULE` line, `STACK CFI`/`STACK WIN` records and function records (`FUNC`,
/// `PUBLIC`, which the stack walker uses to check scanned return addresses) of a Breakpad
/// file with CFI; line and inline records are left out.
fn breakpad_cfi(bytes: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut out = String::new();
    for line in text.lines() {
        let kept = ["MODULE ", "STACK ", "FUNC ", "PUBLIC "];
        if kept.iter().any(|k| line.starts_with(k)) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.contains("\nSTACK ").then_some(out)
}

/// What the reading half of a conversion hands to the writing half, in `process_object`'s
/// order: every function of the debug information, then every symbol.
enum Item<'s> {
    Function(DebugFunction<'s>),
    Symbol(Symbol<'s>),
}

pub(super) fn cache_error(e: impl std::fmt::Display) -> NativeError {
    NativeError::Cache(format!("bad debug file: {e}"))
}

/// The progress phase of a conversion; its unit is a function read (the total is unknown).
pub const BUILD_PHASE: &str = "build SymCache";

/// Reads `object`'s functions and symbols into `emit` (which answers whether to go on),
/// reporting each function to `progress`. Names are cleaned by the writer.
fn read_items<'s>(
    session: &'s ObjectDebugSession<'_>,
    object: &'s Object<'_>,
    progress: &mut dyn Progress,
    emit: &mut dyn FnMut(Item<'s>) -> bool,
) -> Result<(), NativeError> {
    for (n, function) in session.functions().enumerate() {
        if progress.step(BUILD_PHASE, n as u64, 0).is_break() {
            return Err(NativeError::Cancelled);
        }
        let function = function.map_err(cache_error)?;
        if !emit(Item::Function(function)) {
            return Ok(());
        }
    }
    for symbol in object.symbols() {
        if !emit(Item::Symbol(symbol)) {
            return Ok(());
        }
    }
    Ok(())
}

/// The writing half: our SymCache writer fed [`Item`]s.
struct CacheWriter(writer::CacheWriter);

impl CacheWriter {
    fn new(arch: Arch, debug_id: DebugId, file: &[u8]) -> Self {
        Self(writer::CacheWriter::new(arch, debug_id, clean_name, file))
    }

    fn take(&mut self, item: &Item<'_>) {
        match item {
            Item::Function(f) => self.0.take_function(f),
            Item::Symbol(s) => self.0.take_symbol(s),
        }
    }

    fn finish(self) -> Result<Vec<u8>, NativeError> {
        self.0
            .finish()
            .map_err(|e| NativeError::Cache(e.to_string()))
    }
}

/// The SymCache's bytes from a converter that has taken everything.
pub(super) fn serialize(converter: SymCacheConverter<'_>) -> Result<Vec<u8>, NativeError> {
    let mut out = Vec::new();
    converter
        .serialize(&mut out)
        .map_err(|e| NativeError::Cache(e.to_string()))?;
    Ok(out)
}

/// Functions handed from the reading half to the writing half at most this many ahead.
const PIPE_DEPTH: usize = 64;

/// Builds `object`'s SymCache: what `SymCacheConverter::process_object` does, with names
/// cleaned. PE and PDB files go through `process_object` itself; ELF and Mach-O files through
/// our DWARF reader, in shares ([`build_from_dwarf`]); others (Breakpad) are read by
/// `symbolic` while our writer writes them beside, when `runner` has a second thread.
fn build_symcache(
    object: &Object<'_>,
    runner: &dyn ChunkRunner,
    progress: &mut dyn Progress,
) -> Result<Vec<u8>, NativeError> {
    if matches!(
        object.file_format(),
        FileFormat::Pe | FileFormat::Pdb | FileFormat::PortablePdb
    ) {
        // `process_object` undecorates Windows names, which only it knows to do.
        let mut converter = SymCacheConverter::new();
        converter.add_transformer(Demangler::default());
        converter
            .process_object(object)
            .map_err(|e| NativeError::Cache(e.to_string()))?;
        return serialize(converter);
    }
    if let Some(sections) = dwarf_sections(object) {
        let info = parse_dwarf(object, &sections).map_err(cache_error)?;
        return build_from_dwarf(object, &info, SHARES, runner, progress);
    }
    let session = object.debug_session().map_err(cache_error)?;
    let (arch, debug_id) = (object.arch(), object.debug_id());
    let (tx, rx) = std::sync::mpsc::sync_channel::<Item<'_>>(PIPE_DEPTH);
    // Written items go back to be freed where they were allocated: the reader's allocator
    // then reuses its memory at once (freed elsewhere, it costs fresh pages and locks).
    let (done_tx, done_rx) = std::sync::mpsc::channel::<Item<'_>>();
    let (mut tx, mut rx, mut done_tx) = (Some(tx), Some(rx), Some(done_tx));
    let mut read_result = Ok(());
    let mut written = None;
    // Set when the reader stops early (an error, or cancelled): the writer then skips
    // serializing what it has, so a cancel is honoured at once.
    let read_failed = AtomicBool::new(false);
    let beside = runner.run_beside(
        &mut || {
            if let Some(tx) = tx.take() {
                read_result = read_items(&session, object, &mut *progress, &mut |item| {
                    done_rx.try_iter().for_each(drop);
                    tx.send(item).is_ok()
                });
                read_failed.store(read_result.is_err(), Ordering::Relaxed);
                drop(tx);
                done_rx.iter().for_each(drop);
            }
        },
        &mut || {
            if let (Some(rx), Some(done)) = (rx.take(), done_tx.take()) {
                let mut writer = CacheWriter::new(arch, debug_id, object.data());
                for item in rx {
                    // After a failed or cancelled read, what is queued is only freed.
                    if !read_failed.load(Ordering::Relaxed) {
                        writer.take(&item);
                    }
                    // The reader is gone only when it failed; then the item is freed here.
                    let _ = done.send(item);
                }
                drop(done);
                if !read_failed.load(Ordering::Relaxed) {
                    written = Some(writer.finish());
                }
            }
        },
    );
    if !beside {
        let mut writer = CacheWriter::new(arch, debug_id, object.data());
        read_items(&session, object, progress, &mut |item| {
            writer.take(&item);
            true
        })?;
        return writer.finish();
    }
    read_result?;
    written.unwrap_or_else(|| Err(NativeError::Cache("the SymCache writer stopped".into())))
}

pub(super) fn convert_object(
    object: &Object<'_>,
    bytes: &[u8],
    runner: &dyn ChunkRunner,
    progress: &mut dyn Progress,
) -> Result<NativeObject, NativeError> {
    if !object.has_symbols() && !object.has_debug_info() {
        return Err(NativeError::NoSymbols);
    }
    let info = NativeInfo::of(object);
    // Names are demangled once here, so look-ups (the warm path) only read them.
    let symcache = build_symcache(object, runner, progress)?;
    let cfi = match object {
        Object::Breakpad(_) => breakpad_cfi(bytes),
        _ => None,
    };
    let this = NativeObject {
        info,
        answers: Answers::SymCache {
            range: 0..symcache.len(),
            data: Arc::new(symcache),
        },
        cfi,
    };
    this.symcache()?;
    Ok(this)
}
