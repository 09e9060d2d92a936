//! The result of symbolication: each frame's status and original locations.

use super::LogFormat;

/// Why a frame is or is not resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameStatus {
    /// Mapped to at least one original location.
    Resolved,
    /// No symbol file matched the frame.
    NoSymbols,
    /// A symbol file matched but has no mapping at the frame's position.
    NotCovered,
    /// The line was kept but not understood.
    Unparsed,
    /// Deliberately not looked up (native or built-in frames).
    Skipped,
}

impl FrameStatus {
    /// The name used in the CLI's JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Resolved => "resolved",
            Self::NoSymbols => "no_symbols",
            Self::NotCovered => "not_covered",
            Self::Unparsed => "unparsed",
            Self::Skipped => "skipped",
        }
    }
}

/// Where a resolved frame's function name came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NameSource {
    /// Metro's function map (`x_facebook_sources`), as metro-symbolicate shows it.
    FunctionMap,
    /// The function that encloses the frame in the bundle, parsed, its name's identifiers
    /// mapped to their original names (Chrome DevTools' and Sentry's way); with no function
    /// name, the enclosing function is anonymous (or the frame is top-level code).
    Scope,
    /// The function that encloses the frame's original position in the map's
    /// `sourcesContent`, parsed (the bundle is not here): the same position always gets the
    /// same name, whoever called it; with no function name, the function is anonymous (or
    /// the frame is top-level code).
    OriginalScope,
    /// The name of the caller frame's call-site token (the Sentry heuristic).
    CallerToken,
    /// The callee of the caller frame's call expression, read from the original source text
    /// (`this.expandByObject(` → `expandByObject`), where the token has no name.
    CallerSource,
    /// The name of the token at the frame's own position.
    Token,
    /// Nothing better: the function as the engine printed it (often minified, but property
    /// and method names usually survive minification).
    Trace,
}

/// One original location of a frame: owned (`ResolvedLocation`, what symbolication writes)
/// or borrowed (`ResolvedLocation<&str>`, read from the engine's table).
///
/// Serialised as the CLI's JSON writes it (the source index is for the app's source view).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct ResolvedLocation<S = String> {
    /// Original function name, if known.
    pub function: Option<S>,
    /// Where `function` came from.
    pub name_source: Option<NameSource>,
    /// The `names` entry at the looked-up position (the identifier there).
    pub token_name: Option<S>,
    /// Source path (`sourceRoot` applied).
    pub file: Option<S>,
    /// Index of the source in its map (for source context).
    #[serde(skip)]
    pub source_index: Option<u32>,
    /// 1-based original line.
    pub line: Option<u32>,
    /// 1-based original column (a source map's 0-based column + 1).
    pub column: Option<u32>,
    /// This entry was inlined into the next one.
    pub inlined: bool,
    /// The source is on the map's ignore list.
    pub ignored: bool,
}

impl ResolvedLocation {
    /// The location, borrowed.
    pub fn as_view(&self) -> ResolvedLocation<&str> {
        ResolvedLocation {
            function: self.function.as_deref(),
            name_source: self.name_source,
            token_name: self.token_name.as_deref(),
            file: self.file.as_deref(),
            source_index: self.source_index,
            line: self.line,
            column: self.column,
            inlined: self.inlined,
            ignored: self.ignored,
        }
    }
}

impl ResolvedLocation<&str> {
    /// The location, owned.
    pub fn to_owned(&self) -> ResolvedLocation {
        ResolvedLocation {
            function: self.function.map(str::to_owned),
            name_source: self.name_source,
            token_name: self.token_name.map(str::to_owned),
            file: self.file.map(str::to_owned),
            source_index: self.source_index,
            line: self.line,
            column: self.column,
            inlined: self.inlined,
            ignored: self.ignored,
        }
    }
}

/// One frame after symbolication.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolicatedFrame {
    /// The status.
    pub status: FrameStatus,
    /// File name of the symbol file used.
    pub symbol_file: Option<String>,
    /// The looked-up generated position (0-based line and column), when one was looked up.
    pub generated: Option<(u32, u32)>,
    /// Original locations, innermost first; empty unless resolved.
    pub resolved: Vec<ResolvedLocation>,
    /// Other possible chains, best first (ProGuard/R8).
    pub alternatives: Vec<Vec<ResolvedLocation>>,
    /// Why the frame is not resolved, in words a person can act on; on a resolved JavaScript
    /// frame, which function in the bundle named it, or the eval'd position.
    pub note: Option<String>,
}

/// One stack after symbolication.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolicatedStack {
    /// The error header (or thread name).
    pub title: String,
    /// Whether this is the crashing stack (the first exception for JS).
    pub crashed: bool,
    /// Frames, in log order, parallel to the trace's frames.
    pub frames: Vec<SymbolicatedFrame>,
}

/// A timed phase of work.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// What was done (`index three.min.js.map`).
    pub name: String,
    /// Milliseconds.
    pub ms: f64,
}

/// Whether a native module found its debug file (the symbol-coverage report).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Coverage {
    /// A debug file matched the module.
    Found,
    /// No debug file was given for it.
    Missing,
    /// A file named like it was given, but for another build (its ID differs).
    Mismatch,
}

/// One module of a native log, and what Symscope has for it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ModuleCoverage {
    /// Module (image) name.
    pub name: String,
    /// Its identifier as the log prints it (UUID, build ID, debug ID).
    pub id: Option<String>,
    /// Frames of the log in this module.
    pub frames: usize,
    /// Of those, the frames resolved.
    pub resolved: usize,
    /// Found, missing or for another build.
    pub status: Coverage,
    /// The debug file used, when found.
    pub symbol_file: Option<String>,
}

/// A whole symbolicated log.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolicatedTrace {
    /// The log's format.
    pub format: LogFormat,
    /// Stacks, parallel to the trace's.
    pub stacks: Vec<SymbolicatedStack>,
    /// Skipped symbol files, ambiguous matches and other things a person should know.
    pub warnings: Vec<String>,
    /// Timed phases.
    pub timings: Vec<Timing>,
    /// Native: the modules the frames are in, most frames first, with their debug files.
    pub modules: Vec<ModuleCoverage>,
}
