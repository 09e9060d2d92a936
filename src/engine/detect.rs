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
