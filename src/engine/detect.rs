//! A file detected once: its bytes and what they are, for every step after to read.

use crate::formats;
use crate::model::{Blob, FileKind};

/// A file's bytes and what they are, detected once.
#[derive(Clone, Debug)]
pub struct Detected {
    /// The file as the user named it (a path, `standard input`).
    pub name: String,
    /// Its bytes.
    pub blob: Blob,
    /// What it is.
    pub kind: FileKind,
}

impl Detected {
    /// Detects what `blob` is.
    pub fn new(name: impl Into<String>, blob: Blob) -> Self {
        let name = name.into();
        let mut kind = formats::peek(blob.as_slice());
        // An empty file has no kind of its own; one named as a mapping is the mapping of a
        // build where nothing was renamed, which passes traces through unchanged.
        if blob.as_slice().trim_ascii().is_empty() && names_a_mapping(&name) {
            kind = FileKind::ProguardMapping;
        }
        Self { name, blob, kind }
    }

    /// The progress phase whose work a [`crate::model::ChunkRunner`] spreads over cores when
    /// this file loads: a map's index pass, a mapping's scan.
    pub fn chunked_phase(&self) -> &'static str {
        match self.kind {
            FileKind::SourceMap | FileKind::JavaScript => MAP_PHASE,
            FileKind::ProguardMapping => MAPPING_PHASE,
            _ => "load",
        }
    }
}

/// Whether a file name reads as a ProGuard/R8 mapping's (`mapping.txt`, `proguard-map.txt`).
fn names_a_mapping(name: &str) -> bool {
    let base = name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(name)
        .to_ascii_lowercase();
    base.contains("mapping") || base.contains("proguard")
}

/// The phase of a source map's parse and index pass.
pub(super) const MAP_PHASE: &str = "parse + index";

/// The phase of a mapping's class scan.
pub(super) const MAPPING_PHASE: &str = "scan";

/// What a file found in a folder is for, decided here once for the CLI (`-s DIR`) and the
/// window (a dropped folder) alike; a log comes parsed, so that whoever takes it next (the
/// window's load, its bucketing) never reads or parses it again.
#[derive(Debug)]
pub enum Role {
    /// A symbol file: a source map, a JavaScript bundle (its text names functions by
    /// their scopes, and may carry its map), a ProGuard/R8 mapping or a native debug file.
    Symbols,
    /// A crash log with at least one frame, read into its table.
    Log(Box<super::LogFile>),
    /// Neither (an `Info.plist`, a log without frames, a Hermes bytecode file).
    Neither,
}

impl Detected {
    /// Whether this file is a symbol file ([`Role::Symbols`]), told from its kind alone.
    pub fn is_symbols(&self) -> bool {
        matches!(
            self.kind,
            FileKind::SourceMap
                | FileKind::JavaScript
                | FileKind::ProguardMapping
                | FileKind::NativeSymbols
        )
    }

    /// What this file is for when it is found in a folder (a log is read into its table to
    /// find out, and handed over read).
    pub fn role(&self) -> Role {
        if self.is_symbols() {
            return Role::Symbols;
        }
        if self.kind != FileKind::Log {
            return Role::Neither;
        }
        match super::read_log(self, &super::Cfi::new(), &mut crate::model::NoProgress) {
            Ok(log) if has_frames(&log.table) => Role::Log(Box::new(log)),
            _ => Role::Neither,
        }
    }
}

/// Whether a log's table has a frame a parser understood.
fn has_frames(table: &super::FrameTable) -> bool {
    (0..table.stack_count()).any(|s| {
        (0..table.stack_len(s)).any(|f| table.frame(s, f).is_some_and(|fr| fr.input().is_some()))
    })
}
