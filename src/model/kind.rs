//! What a file is, and which engine or tool wrote a log.

use std::fmt;

/// The format of a crash log or stack trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogFormat {
    /// V8 (Chrome, Node, Edge): `at f (url:l:c)`.
    V8,
    /// SpiderMonkey (Firefox): `f@url:l:c`.
    Spidermonkey,
    /// JavaScriptCore (Safari): `f@url:l:c`, `global code@…`.
    Jsc,
    /// Hermes running JS source: `at f (file:l:c)`, `at f (native)`.
    Hermes,
    /// Hermes running bytecode: `at f (address at file.hbc:1:OFFSET)`.
    HermesBytecode,
    /// Java, Kotlin or Android (`\tat pkg.Cls.method(File.java:12)`, `Caused by:`, logcat).
    Java,
    /// Native addresses: a crash record with a module map, a sanitizer report, glibc
    /// `backtrace_symbols` lines, or a plain list of addresses.
    NativeAddresses,
    /// An Apple crash report in the classic text form (`.crash`).
    AppleCrash,
    /// An Apple crash report in the JSON form (`.ips`, `bug_type` 309).
    AppleIps,
    /// An Android debuggerd tombstone.
    AndroidTombstone,
    /// A gdb `bt` backtrace (with `info proc mappings` when present).
    GdbBacktrace,
    /// A Sentry event (JSON) with native frames and `debug_meta` images.
    SentryEvent,
    /// A minidump (binary), its stacks walked with the symbol files given.
    Minidump,
    /// Frames in the one-line forms mobile monitoring SDKs upload: iOS
    /// `module address load + offset [UUID]`, Android `pc … module [abi::build-id]`.
    SdkFrames,
    /// Nothing recognisable: every line is kept as `unparsed`.
    Unknown,
}

impl LogFormat {
    /// The name used in the CLI's JSON (`format`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V8 => "v8",
            Self::Spidermonkey => "spidermonkey",
            Self::Jsc => "jsc",
            Self::Hermes => "hermes",
            Self::HermesBytecode => "hermes-bytecode",
            Self::Java => "java",
            Self::NativeAddresses => "native-addresses",
            Self::AppleCrash => "apple-crash",
            Self::AppleIps => "apple-ips",
            Self::AndroidTombstone => "android-tombstone",
            Self::GdbBacktrace => "gdb-backtrace",
            Self::SentryEvent => "sentry-event",
            Self::Minidump => "minidump",
            Self::SdkFrames => "sdk-frames",
            Self::Unknown => "unknown",
        }
    }

    /// Whether frames of this format are native addresses (looked up in native debug files).
    pub fn is_native(self) -> bool {
        matches!(
            self,
            Self::NativeAddresses
                | Self::AppleCrash
                | Self::AppleIps
                | Self::AndroidTombstone
                | Self::GdbBacktrace
                | Self::SentryEvent
                | Self::Minidump
                | Self::SdkFrames
        )
    }

    /// The base of columns as the engine prints them (bytecode offsets are 0-based).
    pub fn default_column_base(self) -> u32 {
        match self {
            Self::HermesBytecode => 0,
            _ => 1,
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a dropped or named file is, detected from its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// A JavaScript source map (regular or index map).
    SourceMap,
    /// A JavaScript file (a bundle), possibly with `//# sourceMappingURL=`.
    JavaScript,
    /// A Hermes bytecode file (`.hbc`).
    HermesBytecode,
    /// An Android ProGuard or R8 mapping (`mapping.txt`).
    ProguardMapping,
    /// A native debug file: ELF, Mach-O, PE, PDB or Breakpad `.sym`.
    NativeSymbols,
    /// A stack trace or crash log (text).
    Log,
    /// A CPU profile: V8 `.cpuprofile`, Chrome trace events, a Hermes sampling profile.
    Profile,
    /// A V8 heap snapshot (`.heapsnapshot`, `.heaptimeline`).
    HeapSnapshot,
    /// Symbolicated logs as `symbolicate --format jsonl` writes them (a JSON line each):
    /// opened as buckets.
    SymbolicatedLogs,
    /// Binary or unrecognised content.
    Unknown,
}

impl FileKind {
    /// A short human name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SourceMap => "source map",
            Self::JavaScript => "JavaScript",
            Self::HermesBytecode => "Hermes bytecode",
            Self::ProguardMapping => "ProGuard mapping",
            Self::NativeSymbols => "native symbols",
            Self::Log => "log",
            Self::Profile => "CPU profile",
            Self::HeapSnapshot => "heap snapshot",
            Self::SymbolicatedLogs => "symbolicated logs (JSON lines)",
            Self::Unknown => "unknown",
        }
    }
}
