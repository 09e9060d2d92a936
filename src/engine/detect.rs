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
        let kind = formats::peek(blob.as_slice());
        Self {
            name: name.into(),
            blob,
            kind,
        }
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

/// The phase of a source map's parse and index pass.
pub(super) const MAP_PHASE: &str = "parse + index";

/// The phase of a mapping's class scan.
pub(super) const MAPPING_PHASE: &str = "scan";
