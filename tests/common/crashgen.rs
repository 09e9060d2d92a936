//! Crash logs generated from the corpus crashes (`tests/fixtures`), for the buckets tests and
//! `cargo bench --bench buckets`: each generated log is a variant of one real crash with what
//! changes from one occurrence to the next varied, and nothing else:
//! - the message after the exception type (JavaScript, Java) and the Java thread's name;
//! - line prefixes: JavaScript frame indentation and the page's origin in front of bundle
//!   URLs, Java logcat prefixes (threadtime, brief, or none, with other times and ids);
//! - native addresses: a load slide (ASLR) applied to every absolute address, and other
//!   process and thread ids.
//!
//! A fixed seed gives the same files on every machine.
#![allow(dead_code, reason = "the tests and the bench each use a part")]

use std::path::{Path, PathBuf};

/// How a source crash is varied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// V8-style `at` frames.
    JsAt,
    /// `f@url` frames (JavaScriptCore, SpiderMonkey).
    JsAtSign,
    /// Java, printed by the JVM.
    Java,
    /// Native crash records and reports.
    Native,
}

/// One real trace of the corpus.
#[derive(Clone, Copy, Debug)]
pub struct Source {
    /// A short name.
    pub id: &'static str,
    /// The crash it is a trace of: traces of one crash by several engines share it (their
    /// symbolicated frames agree, so they share a bucket).
    pub crash: &'static str,
    /// Its log, relative to `tests/fixtures`.
    pub log: &'static str,
    /// How it is varied.
    pub family: Family,
}

/// The corpus traces the logs are generated from. Each is a different crash but for
/// lodash's, seen by V8, JavaScriptCore and SpiderMonkey running one bundle: one crash, whose
/// symbolicated frames agree. (The three ASLR runs of `crashy` are one crash, so one of them
/// is here; three.js's JavaScriptCore trace is left out: its engine's tail calls drop a
/// frame the others show, so its symbolicated frames do not agree.)
pub const SOURCES: &[Source] = &[
    Source {
        id: "three-v8",
        crash: "three-v8",
        log: "js/three-esbuild/trace.txt",
        family: Family::JsAt,
    },
    Source {
        id: "lodash-v8",
        crash: "lodash",
        log: "js/lodash-terser/trace.txt",
        family: Family::JsAt,
    },
    Source {
        id: "lodash-jsc",
        crash: "lodash",
        log: "js/lodash-terser/trace-jsc.txt",
        family: Family::JsAtSign,
    },
    Source {
        id: "lodash-spidermonkey",
        crash: "lodash",
        log: "js/lodash-terser/trace-spidermonkey.txt",
        family: Family::JsAtSign,
    },
    Source {
        id: "react-dom",
        crash: "react-dom",
        log: "js/react-dom-server-esbuild/trace.txt",
        family: Family::JsAt,
    },
    Source {
        id: "rxjs",
        crash: "rxjs",
        log: "js/rxjs-esbuild/trace.txt",
        family: Family::JsAt,
    },
    Source {
        id: "pdfjs",
        crash: "pdfjs",
        log: "js/pdfjs-dist-worker/trace.txt",
        family: Family::JsAt,
    },
    Source {
        id: "index-map",
        crash: "index-map",
        log: "js/index-map-rxjs-lodash/trace.txt",
        family: Family::JsAt,
    },
    Source {
        id: "hermes",
        crash: "hermes",
        log: "js/metro-hermes/trace-hermes-source.txt",
        family: Family::JsAt,
    },
    Source {
        id: "java-pricing",
        crash: "java-pricing",
        log: "java/shop/obf-pricing.txt",
        family: Family::Java,
    },
    Source {
        id: "java-tree",
        crash: "java-tree",
        log: "java/shop/obf-tree.txt",
        family: Family::Java,
    },
    Source {
        id: "java-config",
        crash: "java-config",
        log: "java/shop/obf-config.txt",
        family: Family::Java,
    },
    Source {
        id: "crashy",
        crash: "crashy",
        log: "native/crashy/crash-aslr-1.txt",
        family: Family::Native,
    },
    Source {
        id: "asan",
        crash: "asan",
        log: "native/asan/asan-segv-unsymbolized.txt",
        family: Family::Native,
    },
    Source {
        id: "glibc-bt",
        crash: "glibc-bt",
        log: "native/glibc-backtrace/bt-plain-1.txt",
        family: Family::Native,
    },
    Source {
        id: "tombstone-arm64",
        crash: "tombstone-arm64",
        log: "native/android-tombstone/tombstone-arm64.txt",
        family: Family::Native,
    },
    Source {
        id: "tombstone-riscv64",
        crash: "tombstone-riscv64",
        log: "native/android-tombstone/tombstone-riscv64.txt",
        family: Family::Native,
    },
    Source {
        id: "apple-bruno",
        crash: "apple-bruno",
        log: "native/apple/apple-crash-report-parser/bruno.txt",
        family: Family::Native,
    },
    Source {
        id: "apple-spaces",
        crash: "apple-spaces",
        log: "native/apple/apple-crash-report-parser/spaces.txt",
        family: Family::Native,
    },
];

/// The symbol files the generated logs are symbolicated with, relative to `tests/fixtures`.
pub const SYMBOLS: &[&str] = &[
    "js/three-esbuild/three.min.js.map",
    "js/lodash-terser/lodash.min.js.map",
    "js/react-dom-server-esbuild/react-dom-server.min.js.map",
    "js/rxjs-esbuild/rxjs.min.js.map",
    "js/pdfjs-dist-worker/pdf.worker.mjs.map",
    "js/index-map-rxjs-lodash/vendor.min.js.map",
    "js/metro-hermes/index.android.bundle.map",
    "java/shop/shop-mapping.txt",
    "native/crashy/crashy.debug",
    "native/asan/crashy-asan",
    "native/glibc-backtrace/btsym",
];

/// The crashes of [`SOURCES`], each once, in order of first appearance.
pub fn crashes() -> Vec<&'static str> {
    let mut out: Vec<&str> = Vec::new();
    for s in SOURCES {
        if !out.contains(&s.crash) {
            out.push(s.crash);
        }
    }
    out
}

/// A small, fixed pseudo-random generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "order", "cart", "user", "session", "token", "widget", "frame", "payload", "retry", "timeout",
    "quota", "index", "cache", "stream", "record",
];

/// A message of a few words and an id.
fn message(rng: &mut Rng) -> String {
    let n = 2 + rng.below(4);
    let mut words: Vec<String> = (0..n).map(|_| (*rng.pick(WORDS)).to_owned()).collect();
    words.push(format!("#{}", rng.below(1_000_000)));
    words.join(" ")
}

/// The text of a source crash.
pub fn source_text(source: &Source) -> String {
    let path = fixtures().join(source.log);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `tests/fixtures`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// What a variant changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Varied {
    /// The title line: the exception's message, the Java thread's name (a native variant's
    /// title may change with its addresses).
    pub message: bool,
}

/// A variant of a source crash's text.
pub fn variant(text: &str, family: Family, rng: &mut Rng) -> (String, Varied) {
    match family {
        Family::JsAt | Family::JsAtSign => js_variant(text, family, rng),
        Family::Java => java_variant(text, rng),
        Family::Native => native_variant(text, rng),
    }
}

/// Replaces the message after the exception type on the first line (kept when the line has
/// none).
fn with_message(line: &str, rng: &mut Rng) -> (String, bool) {
    match line.find(": ") {
        Some(i) if rng.below(4) > 0 => (format!("{}: {}", &line[..i], message(rng)), true),
        _ => (line.to_owned(), false),
    }
}

fn js_variant(text: &str, family: Family, rng: &mut Rng) -> (String, Varied) {
    let indent = *rng.pick(&["    ", "  ", "\t", "        "]);
    let origin = *rng.pick(&[
        "",
        "http://localhost:3000/",
        "https://cdn.example.com/build-2817/",
        "https://app.example.org/static/",
    ]);
    let mut out = String::with_capacity(text.len() + 256);
    let mut varied = Varied::default();
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            let (l, changed) = with_message(line, rng);
            varied.message = changed;
            out.push_str(&l);
        } else if family == Family::JsAt && line.trim_start().starts_with("at ") {
            let l = line
                .trim_start()
                .replace("(out/", &format!("({origin}out/"));
            out.push_str(indent);
            out.push_str(&l);
        } else if family == Family::JsAtSign {
            out.push_str(&line.replace("@out/", &format!("@{origin}out/")));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    (out, varied)
}

fn java_variant(text: &str, rng: &mut Rng) -> (String, Varied) {
    let (pid, tid) = (1000 + rng.below(30_000), 1000 + rng.below(30_000));
    let (hour, min, sec, ms) = (rng.below(24), rng.below(60), rng.below(60), rng.below(1000));
    let prefix = match rng.below(3) {
        0 => String::new(),
        1 => {
            format!("11-25 {hour:02}:{min:02}:{sec:02}.{ms:03} {pid:5} {tid:5} E AndroidRuntime: ")
        }
        _ => format!("E/AndroidRuntime({pid:5}): "),
    };
    let thread = *rng.pick(&["main", "worker-1", "pool-3-thread-2", "OkHttp Dispatcher"]);
    let mut out = String::with_capacity(text.len() * 2);
    let mut varied = Varied::default();
    for (i, line) in text.lines().enumerate() {
        out.push_str(&prefix);
        if i == 0 {
            let line = line.replacen("\"main\"", &format!("\"{thread}\""), 1);
            varied.message = thread != "main" && line.contains(thread);
            // The message follows the class: the first ": " after the thread's quotes.
            let start = line.rfind('"').map_or(0, |q| q + 1);
            match line[start..].find(": ") {
                Some(j) if rng.below(4) > 0 => {
                    out.push_str(&line[..start + j]);
                    out.push_str(": ");
                    out.push_str(&message(rng));
                    varied.message = true;
                }
                _ => out.push_str(&line),
            }
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    (out, varied)
}

fn native_variant(text: &str, rng: &mut Rng) -> (String, Varied) {
    // One slide for every absolute address (a page multiple, as ASLR moves images).
    let slide = (1 + rng.below(0x7_0000)) << 12;
    let mut out = String::with_capacity(text.len() + 64);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let at_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let prefixed = bytes[i..].starts_with(b"0x");
        let start = if prefixed { i + 2 } else { i };
        let end = start
            + bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
        let after_ok = end >= bytes.len() || !bytes[end].is_ascii_alphanumeric();
        if at_word && end > start && after_ok && (prefixed || end - start >= 8) {
            let digits = &text[start..end];
            if let Ok(v) = u64::from_str_radix(digits, 16)
                && (1 << 32..1 << 48).contains(&v)
            {
                let moved = v + slide;
                let upper = digits.bytes().any(|b| b.is_ascii_uppercase());
                let hex = if upper {
                    format!("{moved:0width$X}", width = digits.len())
                } else {
                    format!("{moved:0width$x}", width = digits.len())
                };
                out.push_str(&text[i..start]);
                out.push_str(&hex);
                i = end;
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    // Another process: pid and tid of tombstones and Apple reports.
    let pid = 100 + rng.below(30_000);
    let mut renamed = String::with_capacity(out.len());
    for line in out.lines() {
        let l = if let Some(rest) = line.strip_prefix("pid: ") {
            let tail = rest.find(", name").map_or("", |k| &rest[k..]);
            format!("pid: {pid}, tid: {pid}{tail}")
        } else if line.starts_with("Process:") {
            let name = line.split('[').next().unwrap_or(line);
            format!("{name}[{pid}]")
        } else {
            line.to_owned()
        };
        renamed.push_str(&l);
        renamed.push('\n');
    }
    (renamed, Varied::default())
}

/// Writes `n` logs under `dir` (spread over sub-folders, as a night's crashes are), drawn
/// from [`SOURCES`] in turn with `seed`; returns each log's path and source index.
pub fn generate(dir: &Path, n: usize, seed: u64) -> Vec<(PathBuf, usize)> {
    let texts: Vec<String> = SOURCES.iter().map(source_text).collect();
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let s = k % SOURCES.len();
        let (text, _) = variant(&texts[s], SOURCES[s].family, &mut rng);
        let sub = dir.join(format!("night-{:02}", k / 1000));
        if k % 1000 == 0 {
            std::fs::create_dir_all(&sub).unwrap();
        }
        let path = sub.join(format!("crash-{k:06}.txt"));
        std::fs::write(&path, text).unwrap();
        out.push((path, s));
    }
    out
}

/// The index among `lines` of a Java log's second frame line (`\tat …`): the one the tests
/// take out to make a stack that lacks a frame.
pub fn second_java_frame(lines: &[&str]) -> usize {
    lines
        .iter()
        .position({
            let mut seen = 0;
            move |l| {
                seen += usize::from(l.contains("\tat "));
                seen == 2
            }
        })
        .expect("a Java log with two frames")
}
