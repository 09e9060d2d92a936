//! A symbolicated stack's signature: what makes two crashes "the same crash", and its short
//! hash, the `fingerprint` on every stack of the CLI's JSON and the key of [`super::buckets`].
//!
//! The signature is the platform, the exception type (Java: deobfuscated) and the top `N`
//! (default [`DEFAULT_FRAMES`]) symbolicated in-app frames, innermost first, each by its
//! original function and file without line or column. What was symbolicated names the crash:
//! the same crash seen by two engines (V8 and JavaScriptCore running one bundle) resolves to
//! the same original frames, while the frames no symbol file answers (a page's script, a
//! harness) are printed differently by each engine. So the frames are taken from the first
//! of these that has any: resolved in-app frames; resolved frames of libraries; unresolved
//! in-app frames; every frame.
//! - a resolved frame gives each entry of its chain (inlined callees first), as Sentry and
//!   Xcode list inlined frames;
//! - library frames are left out: a source on the map's ignore list or under `node_modules`,
//!   the runtime's own frames (`node:internal`, built-ins), unmapped `node_modules` files, JDK/Android/Kotlin classes,
//!   and unresolved native frames in system libraries (`/usr/lib`, `/system/lib`, libc, …);
//! - an unresolved frame is taken by its module (native) or file name (JavaScript, Java),
//!   without path, query or address, and the function the log printed, if any;
//! - unparsed lines and skipped frames (`... 12 more`) are left out;
//! - recursion is collapsed: a run of equal entries counts once;
//!
//! Nothing in it depends on addresses, load bases, messages, line prefixes, timestamps or the
//! machine, so the variants of one crash (ASLR, another message, another logcat prefix) share
//! it. The fingerprint is the 64-bit FNV-1a hash of the signature's text, written as 16 hex
//! digits: the same on every machine and in every version that keeps this definition.

use super::table::{FrameRef, FrameTable};
use crate::model::{FrameStatus, LogFormat};

/// How many frames a signature takes by default.
pub const DEFAULT_FRAMES: usize = 5;

/// The platform a log comes from, by its format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Platform {
    /// JavaScript (V8, SpiderMonkey, JavaScriptCore, Hermes).
    JavaScript,
    /// Java, Kotlin, Android.
    Java,
    /// Native (addresses, Apple reports, tombstones, minidumps, …).
    Native,
    /// A log nothing was recognised in.
    Unknown,
}

impl Platform {
    /// The platform of a log format.
    pub fn of(format: LogFormat) -> Self {
        match format {
            LogFormat::V8
            | LogFormat::Spidermonkey
            | LogFormat::Jsc
            | LogFormat::Hermes
            | LogFormat::HermesBytecode => Self::JavaScript,
            LogFormat::Java => Self::Java,
            LogFormat::Unknown => Self::Unknown,
            _ => Self::Native,
        }
    }

    /// The name the CLI's JSON uses: `javascript` | `java` | `native` | `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::JavaScript => "javascript",
            Self::Java => "java",
            Self::Native => "native",
            Self::Unknown => "unknown",
        }
    }
}

/// One entry of a signature: an original function and its file (or, unresolved, the
/// function the log printed and the module or file name).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SigFrame {
    /// The function (empty when not known).
    pub function: String,
    /// The file (resolved) or module / file name (unresolved).
    pub file: String,
}

/// A stack's signature (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    /// The log's platform.
    pub platform: Platform,
    /// The exception type (`TypeError`, `java.lang.NullPointerException`, `SIGSEGV`).
    pub exception: String,
    /// The top in-app frames, innermost first, recursion collapsed.
    pub frames: Vec<SigFrame>,
    /// The stack's frames (indices in the stack) the entries come from, in order.
    pub frame_indices: Vec<usize>,
}

/// A signature's short hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u64);

impl std::fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl Signature {
    /// The signature as text: the platform and exception on the first line, then one
    /// `function  (file)` line per entry. The fingerprint hashes this.
    pub fn text(&self) -> String {
        let mut s = format!("{} {}", self.platform.as_str(), self.exception);
        for f in &self.frames {
            s.push('\n');
            s.push_str(if f.function.is_empty() {
                "?"
            } else {
                &f.function
            });
            s.push_str("  (");
            s.push_str(&f.file);
            s.push(')');
        }
        s
    }

    /// The signature's hash (FNV-1a, 64 bits, of [`Signature::text`]).
    pub fn fingerprint(&self) -> Fingerprint {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.text().bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Fingerprint(h)
    }
}

/// The stack a log is signed by: the crashed one, else the first.
pub fn signed_stack(table: &FrameTable) -> Option<usize> {
    let n = table.stack_count();
    (0..n)
        .find(|&s| table.stack_crashed(s))
        .or((n > 0).then_some(0))
}

/// The signature of stack `stack` of a (symbolicated) table, from its top `frames` in-app
/// frames.
pub fn signature(table: &FrameTable, stack: usize, frames: usize) -> Signature {
    let mut sig = SignatureBuilder::new(frames);
    for index in 0..table.stack_len(stack) {
        if sig.is_complete() {
            break;
        }
        if let Some(frame) = table.frame(stack, index) {
            sig.add(&frame, index);
        }
    }
    sig.finish(Platform::of(table.format()), table.stack_title(stack))
}

/// A stack's signature taken frame by frame, as a stream of them comes (a stack read a
/// window at a time): the entries of each kind of frame (resolved in-app ones, resolved ones,
/// unresolved in-app ones, every one) are gathered side by side, the first kind that has any
/// is the signature's.
pub struct SignatureBuilder {
    limit: usize,
    /// Per kind, as `(resolved_only, in_app_only)` in [`KINDS`]: the entries and the frames
    /// they come from.
    kinds: [(Vec<SigFrame>, Vec<usize>); 4],
}

/// The kinds of frames a signature is taken from, first choice first:
/// `(resolved_only, in_app_only)`.
const KINDS: [(bool, bool); 4] = [(true, true), (true, false), (false, true), (false, false)];

impl SignatureBuilder {
    /// A signature of the top `limit` frames, none added yet.
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            kinds: Default::default(),
        }
    }

    /// Whether no later frame can change the signature.
    pub fn is_complete(&self) -> bool {
        self.kinds[0].0.len() >= self.limit
    }

    /// Adds the stack's frame at `index`, the one after those added before.
    pub fn add(&mut self, frame: &FrameRef<'_>, index: usize) {
        let limit = self.limit;
        for (k, &(resolved_only, in_app_only)) in KINDS.iter().enumerate() {
            // A kind after one that has entries is never chosen.
            if self.kinds[..k].iter().any(|(e, _)| !e.is_empty()) {
                return;
            }
            let (entries_of_kind, indices) = &mut self.kinds[k];
            if entries_of_kind.len() >= limit
                || (resolved_only && frame.status() != Some(FrameStatus::Resolved))
            {
                continue;
            }
            for entry in entries(frame, in_app_only) {
                if entries_of_kind.len() >= limit {
                    break;
                }
                // Recursion: a run of one entry counts once.
                if entries_of_kind.last() == Some(&entry) {
                    continue;
                }
                entries_of_kind.push(entry);
                indices.push(index);
            }
        }
    }

    /// The signature of a stack headed `title` in a log of `platform`.
    pub fn finish(self, platform: Platform, title: &str) -> Signature {
        let exception = exception_type(title, platform);
        let (frames, frame_indices) = self
            .kinds
            .into_iter()
            .find(|(e, _)| !e.is_empty())
            .unwrap_or_default();
        Signature {
            platform,
            exception,
            frames,
            frame_indices,
        }
    }
}

/// A frame's signature entries (none when it is left out).
fn entries(frame: &FrameRef<'_>, in_app_only: bool) -> Vec<SigFrame> {
    let status = frame.status();
    if matches!(status, Some(FrameStatus::Unparsed | FrameStatus::Skipped)) {
        return Vec::new();
    }
    if in_app_only && frame.is_library() {
        return Vec::new();
    }
    if status == Some(FrameStatus::Resolved) {
        return frame
            .locations()
            .filter(|l| !(in_app_only && (l.ignored || l.file.is_some_and(is_dependency))))
            .map(|l| SigFrame {
                function: l.function.or(l.token_name).unwrap_or("").to_owned(),
                file: l.file.unwrap_or("").to_owned(),
            })
            .collect();
    }
    let Some(input) = frame.input() else {
        return Vec::new();
    };
    let function = input.function.map_or("", clean_function).to_owned();
    if let Some(module) = input.module {
        if in_app_only && is_system_module(module) {
            return Vec::new();
        }
        return vec![SigFrame {
            function,
            file: crate::symbolicate::basename(module).to_owned(),
        }];
    }
    let file = input
        .file
        .map_or("", crate::symbolicate::basename)
        .to_owned();
    if function.is_empty() && file.is_empty() {
        return Vec::new();
    }
    vec![SigFrame { function, file }]
}

/// Whether an original file is a dependency's (`node_modules`), not the app's.
fn is_dependency(file: &str) -> bool {
    file.contains("node_modules/") || file.contains("node_modules\\")
}

/// A printed native function without its offset (`main+0x1c`, `abort + 12`).
fn clean_function(f: &str) -> &str {
    let f = f.trim();
    match f.rfind('+') {
        Some(i)
            if i > 0
                && !f[i + 1..].trim().is_empty()
                && f[i + 1..]
                    .trim()
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() || b == b'x') =>
        {
            f[..i].trim_end()
        }
        _ => f,
    }
}

/// Whether a native module is the system's (its frames are not the app's).
fn is_system_module(module: &str) -> bool {
    const DIRS: [&str; 7] = [
        "/usr/lib/",
        "/lib/",
        "/lib64/",
        "/system/",
        "/apex/",
        "/System/Library/",
        "/usr/local/lib/",
    ];
    const NAMES: [&str; 9] = [
        "libc.so",
        "libc++",
        "libstdc++",
        "libm.so",
        "libgcc_s",
        "ld-linux",
        "libsystem_",
        "libdyld",
        "linux-vdso",
    ];
    let name = crate::symbolicate::basename(module);
    DIRS.iter().any(|d| module.starts_with(d))
        || NAMES.iter().any(|n| name.starts_with(n))
        || name.starts_with('[')
}

/// A stack's title on one line, as the stack list's header, a bucket's title and a
/// comparison show it: a Java or JavaScript exception line where the title holds one (logcat
/// puts `FATAL EXCEPTION` and `Process:` lines before it); else the first line with the lines
/// after it, a native crash's reason (`Thread 0 Crashed — EXC_BAD_ACCESS /
/// KERN_INVALID_ADDRESS at 0x0`), joined by ` — `.
pub fn headline(title: &str) -> String {
    let lines: Vec<&str> = title
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.len() > 1
        && let Some(exception) = lines
            .iter()
            .rev()
            .find(|l| crate::formats::java::parse_throwable(l).is_some())
    {
        return (*exception).to_owned();
    }
    lines.join(" — ")
}

/// The exception type of a stack's title: the error's class (`TypeError`,
/// `java.lang.IllegalStateException`, a `Caused by:` or `Exception in thread "…"` prefix
/// dropped), the signal of a native crash (`SIGSEGV`), a sanitizer's kind (`AddressSanitizer:
/// SEGV`); otherwise the title's first line with its numbers taken out.
pub fn exception_type(title: &str, platform: Platform) -> String {
    let mut t = title.trim();
    for prefix in ["Uncaught ", "Caused by: ", "Suppressed: "] {
        t = t.strip_prefix(prefix).unwrap_or(t);
    }
    if let Some(rest) = t.strip_prefix("Exception in thread \"")
        && let Some(end) = rest.find("\" ")
    {
        t = rest[end + 2..].trim_start();
    }
    if platform == Platform::Native || platform == Platform::Unknown {
        if let Some(sig) = t
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .find(|w| {
                w.len() > 3
                    && w.starts_with("SIG")
                    && w[3..].bytes().all(|b| b.is_ascii_uppercase())
            })
        {
            return sig.to_owned();
        }
        if let Some((tool, rest)) = t.split_once(": ")
            && tool.ends_with("Sanitizer")
        {
            let kind = rest.split_whitespace().next().unwrap_or("");
            return format!("{tool}: {kind}");
        }
    } else if let Some((class, _)) = t.split_once(':')
        && !class.is_empty()
        && !class.contains(char::is_whitespace)
    {
        return class.to_owned();
    } else if !t.is_empty() && !t.contains(char::is_whitespace) {
        return t.to_owned();
    }
    let first = t.lines().next().unwrap_or("");
    let mut out = String::with_capacity(first.len());
    let mut in_number = false;
    for w in first.split_inclusive(|c: char| !c.is_ascii_alphanumeric()) {
        let word = w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        let numeric = !word.is_empty()
            && (word.bytes().all(|b| b.is_ascii_digit())
                || (word.starts_with("0x") && word[2..].bytes().all(|b| b.is_ascii_hexdigit())));
        if numeric {
            if !in_number {
                out.push('#');
            }
            out.push_str(&w[word.len()..]);
            in_number = true;
        } else {
            out.push_str(w);
            in_number = false;
        }
    }
    out.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_types() {
        let cases = [
            (
                "TypeError: Cannot read properties of null (reading 'x')",
                Platform::JavaScript,
                "TypeError",
            ),
            (
                "Uncaught RangeError: Maximum call stack size exceeded",
                Platform::JavaScript,
                "RangeError",
            ),
            ("Error", Platform::JavaScript, "Error"),
            (
                "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke",
                Platform::Java,
                "java.lang.NullPointerException",
            ),
            (
                "Caused by: java.io.IOException: disk full",
                Platform::Java,
                "java.io.IOException",
            ),
            (
                "java.lang.IllegalStateException",
                Platform::Java,
                "java.lang.IllegalStateException",
            ),
            (
                "signal 11 (SIGSEGV) at fault address (nil)",
                Platform::Native,
                "SIGSEGV",
            ),
            (
                "Thread 5 Crashed\nSIGSEGV, SEGV_MAPERR at 0x88",
                Platform::Native,
                "SIGSEGV",
            ),
            (
                "AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x5622ccbb8b01)",
                Platform::Native,
                "AddressSanitizer: SEGV",
            ),
            (
                "Thread 12 name: worker 0x7f00",
                Platform::Native,
                "Thread # name: worker #",
            ),
        ];
        for (title, platform, want) in cases {
            assert_eq!(exception_type(title, platform), want, "{title}");
        }
    }

    #[test]
    fn native_function_offsets_and_system_modules() {
        assert_eq!(clean_function("main+0x1c"), "main");
        assert_eq!(clean_function("abort + 12"), "abort");
        assert_eq!(clean_function("operator+"), "operator+");
        assert!(is_system_module("/usr/lib/x86_64-linux-gnu/libc.so.6"));
        assert!(is_system_module(
            "/apex/com.android.runtime/lib64/bionic/libc.so"
        ));
        assert!(is_system_module("libsystem_kernel.dylib"));
        assert!(!is_system_module(
            "/data/app/com.example/lib/arm64/libapp.so"
        ));
        assert!(!is_system_module("crashy"));
    }

    #[test]
    fn fingerprint_is_fnv1a_of_the_text() {
        let sig = Signature {
            platform: Platform::JavaScript,
            exception: "TypeError".into(),
            frames: vec![SigFrame {
                function: "f".into(),
                file: "a.js".into(),
            }],
            frame_indices: vec![0],
        };
        assert_eq!(sig.text(), "javascript TypeError\nf  (a.js)");
        // Pinned (computed apart, in Python): the fingerprint must not change between
        // versions or machines.
        assert_eq!(sig.fingerprint().to_string(), "f1103f4a9e222517");
    }

    /// A native crash's reason joins its thread line; a logcat title gives its exception line.
    #[test]
    fn headlines_keep_the_crash_reason() {
        assert_eq!(
            super::headline("Thread 0 Crashed\nEXC_BAD_ACCESS / KERN_INVALID_ADDRESS at 0x45"),
            "Thread 0 Crashed — EXC_BAD_ACCESS / KERN_INVALID_ADDRESS at 0x45"
        );
        assert_eq!(
            super::headline(
                "FATAL EXCEPTION: main\nProcess: com.example, PID: 1\njava.lang.IllegalStateException: boom"
            ),
            "java.lang.IllegalStateException: boom"
        );
        assert_eq!(
            super::headline("TypeError: x is null"),
            "TypeError: x is null"
        );
        assert_eq!(super::headline(""), "");
    }
}
