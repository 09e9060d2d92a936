//! Errors of the source-map reader: a small `Copy` kind plus where it happened.

use std::fmt;

/// What went wrong while reading a source map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The bytes are not a JSON object, or the JSON is cut short or malformed.
    BadJson,
    /// The JSON is fine but not a source map (no `mappings` and no `sections`).
    NotASourceMap,
    /// `version` is present and not 3.
    UnsupportedVersion,
    /// `mappings` holds a byte that is not base64, `,` or `;`.
    BadBase64,
    /// A VLQ term in `mappings` does not fit in 32 bits.
    VlqOverflow,
    /// A segment has 2, 3 or more than 5 fields.
    BadSegmentSize,
    /// A segment names a source index outside `sources`.
    BadSourceIndex,
    /// A segment names a name index outside `names`.
    BadNameIndex,
    /// A segment has a negative generated column, original line or original column.
    NegativeValue,
    /// `mappings` is larger than 4 GiB, which the index cannot address.
    TooLarge,
    /// An index-map section is malformed (missing `offset`/`map`, `url` sections, unordered
    /// or overlapping, a `map` that is not an object, `mappings` beside `sections`).
    BadSection,
    /// A field the spec requires is missing (`sources`).
    MissingField,
}

impl ErrorKind {
    /// A short phrase for the kind, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::BadJson => "malformed or truncated JSON",
            Self::NotASourceMap => "not a source map (no `mappings` or `sections`)",
            Self::UnsupportedVersion => "unsupported source map version (only 3 is defined)",
            Self::BadBase64 => "invalid base64 character in `mappings`",
            Self::VlqOverflow => "VLQ value in `mappings` exceeds 32 bits",
            Self::BadSegmentSize => "mapping segment with 2, 3 or more than 5 fields",
            Self::BadSourceIndex => "mapping segment refers to a source index that does not exist",
            Self::BadNameIndex => "mapping segment refers to a name index that does not exist",
            Self::NegativeValue => "mapping segment has a negative column or line",
            Self::TooLarge => "`mappings` is larger than 4 GiB",
            Self::BadSection => "malformed index-map section",
            Self::MissingField => "a required field is missing",
        }
    }
}

/// An error reading a source map, with the byte offset or generated line where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Byte offset in the file (JSON errors) or in `mappings` (mapping errors), if known.
    pub offset: Option<usize>,
    /// The 0-based generated line of a mapping error, if known.
    pub line: Option<u32>,
    /// Extra detail, e.g. the offending index or JSON key.
    pub detail: Option<String>,
}

impl Error {
    /// An error of `kind` with no position.
    pub fn new(kind: ErrorKind) -> Self {
        Self {
            kind,
            offset: None,
            line: None,
            detail: None,
        }
    }

    /// An error of `kind` at byte `offset`.
    pub fn at(kind: ErrorKind, offset: usize) -> Self {
        Self {
            offset: Some(offset),
            ..Self::new(kind)
        }
    }

    /// Adds a detail string.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.describe())?;
        if let Some(detail) = &self.detail {
            write!(f, " ({detail})")?;
        }
        match (self.line, self.offset) {
            (Some(line), Some(off)) => write!(
                f,
                " at generated line {}, byte {off} of `mappings`",
                line + 1
            ),
            (Some(line), None) => write!(f, " at generated line {}", line + 1),
            (None, Some(off)) => write!(f, " at byte {off}"),
            (None, None) => Ok(()),
        }
    }
}

impl std::error::Error for Error {}

/// Result alias of the source-map reader.
pub type Result<T, E = Error> = std::result::Result<T, E>;
