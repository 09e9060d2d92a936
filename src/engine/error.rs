//! What can go wrong reading an input: always the file, and the reason.

use crate::formats::minidump::MinidumpError;
use crate::symbols::native::NativeError;
use crate::symbols::proguard::MappingError;
use crate::symbols::sourcemap;

/// Why an input cannot be used: the file (as the user named it) and the reason.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {reason}")]
pub struct Error {
    /// The file, as the user named it (`standard input` for `-`).
    pub file: String,
    /// What is wrong.
    pub reason: Reason,
}

/// What is wrong with an input.
#[derive(Debug, thiserror::Error)]
pub enum Reason {
    /// It cannot be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// A source map that does not parse.
    #[error("{0}")]
    SourceMap(#[from] sourcemap::Error),
    /// A bundle's inline map (`sourceMappingURL=data:…`) is not base64 or percent-encoded.
    #[error("inline source map: the data: URL is not base64 or percent-encoded JSON")]
    InlineMapEncoding,
    /// A bundle's inline map does not parse.
    #[error("inline source map: {0}")]
    InlineMap(sourcemap::Error),
    /// A ProGuard/R8 mapping that cannot be used.
    #[error("{0}")]
    Mapping(#[from] MappingError),
    /// A CPU profile that cannot be read.
    #[error("{0}")]
    Profile(#[from] crate::formats::cpuprofile::ProfileError),
    /// A heap snapshot that cannot be read.
    #[error("{0}")]
    Heap(#[from] crate::formats::heapsnapshot::HeapError),
    /// What `symbolicate --format jsonl` said of a log it could not use (its line's `error`).
    #[error("{0}")]
    Symbolicated(String),
    /// A line of `symbolicate --format jsonl` that is not one.
    #[error("{0}")]
    Document(#[from] super::report::DocumentError),
    /// A trace-event file without a CPU profile in it.
    #[error("the trace holds no CPU profile (no Profile and ProfileChunk events)")]
    NoProfile,
    /// A native debug file that cannot be used.
    #[error("{0}")]
    Native(#[from] NativeError),
    /// Not a kind of symbol file Symscope reads.
    #[error("not a symbol file (detected: {0})")]
    NotSymbols(&'static str),
    /// A log that is binary.
    #[error("binary file, not a text log or stack trace")]
    Binary,
    /// A minidump that cannot be read.
    #[error("{0}")]
    Minidump(#[from] MinidumpError),
    /// A stack asked for by its index that the log does not have.
    #[error("no stack {stack}: the log has {count} (numbered from 0)")]
    NoStack {
        /// The index asked for.
        stack: usize,
        /// How many stacks the log has.
        count: usize,
    },
    /// The caller said stop.
    #[error("cancelled")]
    Cancelled,
    /// Not a crash log, where one was looked for (a folder of crashes).
    #[error("not a crash log (a {0} file)")]
    NotALog(&'static str),
    /// A crash log in which no stack frame was found.
    #[error("no stack frames found in it")]
    NoFrames,
    /// A crash log without a stack to sign.
    #[error("no stack found in it")]
    NoStackToSign,
}

/// A job that cannot fail fails as an input does.
impl From<std::convert::Infallible> for Error {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

impl Error {
    /// The error `reason` of `file`.
    pub fn new(file: &str, reason: impl Into<Reason>) -> Self {
        Self {
            file: file.to_owned(),
            reason: reason.into(),
        }
    }

    /// Whether the work was stopped rather than failed.
    pub fn is_cancelled(&self) -> bool {
        matches!(
            self.reason,
            Reason::Cancelled | Reason::Native(NativeError::Cancelled)
        )
    }
}
