//! Linux `perf script` text: native sample stacks, one [`Profile`] per thread.
//!
//! A sample is a header line (`comm pid/tid [cpu] time: [period] event:`), then one line per
//! frame, leaf first (`\t addr symbol+0xoff (dso)`), then a blank line. Addresses are taken as
//! `perf script` prints them: relative to the module's file when it did so, else absolute
//! and made relative through the `PERF_RECORD_MMAP`/`MMAP2` events `--show-mmap-events`
//! adds (`[0xstart(0xlen) @ 0xpgoff …]: … path`). Each frame becomes a location: the module
//! (its path, as `url`), the address (as `column`, line 0) and the symbol perf printed, its
//! offset left off; caller frames are return addresses. Kernel frames are kept as perf
//! named them (no debug file resolves them). A recording made with `--buildid-mmap` prints
//! each mapping's build ID (`@ 0xpgoff <hex>`): kept in [`Profile::module_ids`], so that the
//! debug file is found by it, as a crash's module is.

use super::cpuprofile::ProfileError;
use crate::model::{LocationInterner, Profile, ProfileLocation, ProfileNode};
use std::collections::HashMap;

/// One thread's profile.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadProfile {
    /// The command (`comm`).
    pub comm: String,
    /// The process.
    pub pid: u64,
    /// The thread.
    pub tid: u64,
    /// Its samples.
    pub profile: Profile,
}

/// Whether `text` reads as `perf script` output: a sample header whose next line is a frame
/// (`\t addr symbol (dso)`), among its first lines.
pub fn is_perf_script(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().take(200).collect();
    lines
        .windows(2)
        .any(|w| header(w[0]).is_some() && frame(w[1]).is_some())
}

/// A sample header's command, process, thread and time (µs).
fn header(line: &str) -> Option<(String, u64, u64, i64)> {
    if line.starts_with(char::is_whitespace) || line.contains("PERF_RECORD_") {
        return None;
    }
    let tokens: Vec<&str> = line.split_whitespace().collect();
    // The time: the first token `seconds.micros:` after the pid.
    let t = tokens
        .iter()
        .position(|t| t.ends_with(':') && seconds(t.trim_end_matches(':')).is_some())?;
    let time = seconds(tokens[t].trim_end_matches(':'))?;
    // The pid (or pid/tid) is the last number before the time (a `[cpu]` may come between).
    let ids = tokens[..t].iter().rposition(|x| {
        x.split('/')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    })?;
    if ids == 0 {
        return None;
    }
    let mut parts = tokens[ids].split('/');
    let pid: u64 = parts.next()?.parse().ok()?;
    let tid: u64 = parts.next().map_or(Some(pid), |t| t.parse().ok())?;
    Some((tokens[..ids].join(" "), pid, tid, time))
}

/// `123.456789` seconds as µs.
fn seconds(s: &str) -> Option<i64> {
    let (whole, frac) = s.split_once('.')?;
    if whole.is_empty()
        || frac.is_empty()
        || !whole
            .bytes()
            .chain(frac.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let mut frac = frac.to_owned();
    frac.truncate(6);
    while frac.len() < 6 {
        frac.push('0');
    }
    whole
        .checked_mul(1_000_000)?
        .checked_add(frac.parse().ok()?)
}

/// A frame line's address, symbol (offset left off) and module.
fn frame(line: &str) -> Option<(u64, &str, &str)> {
    if !line.starts_with(char::is_whitespace) {
        return None;
    }
    let line = line.trim();
    let (addr, rest) = line.split_once(char::is_whitespace)?;
    let addr = u64::from_str_radix(addr, 16).ok()?;
    let open = rest
        .rfind(" (")
        .or_else(|| rest.starts_with('(').then_some(0))?;
    let dso = rest[open..].trim().strip_prefix('(')?.strip_suffix(')')?;
    let symbol = rest[..open].trim();
    let symbol = match symbol.rfind("+0x") {
        Some(i) if u64::from_str_radix(&symbol[i + 3..], 16).is_ok() => &symbol[..i],
        _ => symbol,
    };
    Some((addr, symbol, dso))
}

/// Whether a frame's module is a JIT's perf map (`/tmp/perf-PID.map`, which the JVM writes
/// with `-XX:+DumpPerfMapAtExit`): its symbols are the JIT's names for generated code.
pub fn is_perf_map(dso: &str) -> bool {
    let name = dso.rsplit('/').next().unwrap_or(dso);
    name.strip_prefix("perf-")
        .and_then(|n| n.strip_suffix(".map"))
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// The Java method a profile location of a perf profile stands for: a JIT frame of a JVM's
/// perf map (see [`is_perf_map`]) named as [`crate::formats::java::parse_jvm_method`] reads.
pub fn jvm_method(loc: &ProfileLocation) -> Option<crate::formats::java::JvmMethod<'_>> {
    if !is_perf_map(&loc.url) {
        return None;
    }
    crate::formats::java::parse_jvm_method(&loc.function)
}

/// A mapping of a module: where it starts, how long, from what file offset, and its path.
struct Mapping {
    start: u64,
    len: u64,
    pgoff: u64,
    path: String,
    /// The module's build ID (`perf record --buildid-mmap` prints it as `<hex>`).
    build_id: Option<String>,
}

/// `… PERF_RECORD_MMAP2 pid/tid: [0xstart(0xlen) @ 0xpgoff …]: prot path`.
fn mapping(line: &str) -> Option<Mapping> {
    let at = line.find("PERF_RECORD_MMAP")?;
    let rest = &line[at..];
    let open = rest.find('[')? + 1;
    let close = rest[open..].find(']')? + open;
    let inside = &rest[open..close];
    let (start, after) = inside.split_once('(')?;
    let (len, after) = after.split_once(')')?;
    let mut fields = after.trim().strip_prefix('@')?.split_whitespace();
    let pgoff = fields.next()?;
    let build_id = fields
        .next()
        .and_then(|f| f.strip_prefix('<')?.strip_suffix('>'))
        .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_ascii_lowercase);
    let hex = |s: &str| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok();
    let path = rest[close + 1..].trim_start_matches(':').trim();
    // The protection comes first in MMAP2 (`r-xp /path`).
    let path = match path.split_once(' ') {
        Some((prot, p)) if prot.len() == 4 && prot.bytes().all(|b| b"rwxps-".contains(&b)) => p,
        _ => path,
    };
    Some(Mapping {
        start: hex(start)?,
        len: hex(len)?,
        pgoff: hex(pgoff)?,
        path: path.trim().to_owned(),
        build_id,
    })
}

/// A thread's profile being built.
#[derive(Default)]
struct Building {
    comm: String,
    interner: LocationInterner,
    nodes: Vec<ProfileNode>,
    children: HashMap<(u32, u32), u32>,
    samples: Vec<(i64, u32)>,
}

impl Building {
    fn new(comm: &str) -> Self {
        let mut b = Self {
            comm: comm.to_owned(),
            ..Self::default()
        };
        let root = b.interner.intern(ProfileLocation {
            function: "(root)".to_owned(),
            line: -1,
            column: -1,
            function_start: -1,
            ..ProfileLocation::default()
        });
        b.nodes.push(ProfileNode {
            id: 1,
            parent: None,
            location: root,
        });
        b
    }

    /// Adds a sample whose frames (leaf first) are `frames`.
    fn sample(&mut self, time: i64, frames: &[(u64, String, String)]) {
        let mut at = 0u32;
        for (depth, (addr, symbol, dso)) in frames.iter().rev().enumerate() {
            let is_leaf = depth + 1 == frames.len();
            // A JIT-compiled Java method is one location whatever its address (its code
            // is gone once the JVM ends; its name is what the perf map recorded).
            let java = is_perf_map(dso) && crate::formats::java::parse_jvm_method(symbol).is_some();
            let loc = self.interner.intern(ProfileLocation {
                function: symbol.clone(),
                url: dso.clone(),
                script_id: String::new(),
                line: 0,
                column: if java {
                    -1
                } else {
                    (*addr).min(i64::MAX as u64) as i64
                },
                function_start: -1,
                return_address: !is_leaf && !java,
            });
            let next = self.nodes.len() as u32;
            at = *self.children.entry((at, loc)).or_insert_with(|| {
                self.nodes.push(ProfileNode {
                    id: u64::from(next) + 1,
                    parent: Some(at),
                    location: loc,
                });
                next
            });
        }
        self.samples.push((time, at));
    }

    fn finish(mut self) -> Profile {
        self.samples.sort_by_key(|&(t, _)| t);
        let start = self.samples.first().map_or(0, |&(t, _)| t);
        let end = self.samples.last().map_or(0, |&(t, _)| t);
        Profile {
            start_us: start,
            end_us: end,
            locations: self.interner.locations,
            nodes: self.nodes,
            samples: self.samples.iter().map(|&(_, s)| s).collect(),
            times_us: self.samples.iter().map(|&(t, _)| t).collect(),
            warnings: Vec::new(),
            bytecode: false,
            native: true,
            totals: None,
            module_ids: Vec::new(),
            weight: crate::model::Weight::Time,
        }
    }
}

/// Reads `perf script` output: a profile per thread, in the order threads first sample.
pub fn parse(text: &str) -> Result<Vec<ThreadProfile>, ProfileError> {
    let mut maps: Vec<Mapping> = Vec::new();
    let mut threads: Vec<((u64, u64), Building)> = Vec::new();
    let mut index: HashMap<(u64, u64), usize> = HashMap::new();
    let mut current: Option<(usize, i64)> = None;
    let mut frames: Vec<(u64, String, String)> = Vec::new();
    let mut unread = 0usize;
    let flush = |threads: &mut Vec<((u64, u64), Building)>,
                 current: &mut Option<(usize, i64)>,
                 frames: &mut Vec<(u64, String, String)>| {
        if let Some((k, time)) = current.take()
            && !frames.is_empty()
        {
            threads[k].1.sample(time, frames);
        }
        frames.clear();
    };
    for line in text.lines() {
        if line.trim().is_empty() {
            flush(&mut threads, &mut current, &mut frames);
            continue;
        }
        if let Some(m) = mapping(line) {
            maps.push(m);
            continue;
        }
        if current.is_some()
            && let Some((addr, symbol, dso)) = frame(line)
        {
            // An absolute address inside a mapping of its module becomes file-relative.
            let addr = maps
                .iter()
                .rev()
                .find(|m| m.path == dso && addr >= m.start && addr - m.start < m.len)
                .map_or(addr, |m| addr - m.start + m.pgoff);
            frames.push((addr, symbol.to_owned(), dso.to_owned()));
            continue;
        }
        if let Some((comm, pid, tid, time)) = header(line) {
            flush(&mut threads, &mut current, &mut frames);
            let k = *index.entry((pid, tid)).or_insert_with(|| {
                threads.push(((pid, tid), Building::new(&comm)));
                threads.len() - 1
            });
            current = Some((k, time));
            continue;
        }
        unread += 1;
    }
    flush(&mut threads, &mut current, &mut frames);
    if threads.is_empty() {
        return Err(ProfileError::Field(
            "no perf script samples (a header line, then frames)",
        ));
    }
    // Each module's build ID, where the mappings give one.
    let mut ids: Vec<(String, String)> = Vec::new();
    for m in &maps {
        if let Some(id) = &m.build_id
            && !ids.iter().any(|(p, _)| *p == m.path)
        {
            ids.push((m.path.clone(), id.clone()));
        }
    }
    let mut out: Vec<ThreadProfile> = threads
        .into_iter()
        .map(|((pid, tid), b)| {
            let comm = b.comm.clone();
            let mut profile = b.finish();
            profile.module_ids = ids
                .iter()
                .filter(|(path, _)| profile.locations.iter().any(|l| l.url == *path))
                .cloned()
                .collect();
            ThreadProfile {
                comm,
                pid,
                tid,
                profile,
            }
        })
        .collect();
    if unread > 0
        && let Some(first) = out.first_mut()
    {
        first.profile.warnings.push(format!(
            "{unread} lines are neither a sample header, a frame nor a mapping: passed over"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "work  3911 26236.964193: PERF_RECORD_MMAP2 3911/3911: [0x561eb828f000(0x1000) @ 0x1000 fe:00 10740377 1974307815]: r-xp /tmp/w\n\
work  3911 26236.965605:     500000 cpu-clock:ppp: \n\
\t            122d main+0x3d (/tmp/w)\n\
\t           2724a __libc_start_call_main+0x7a (/usr/lib/libc.so.6)\n\
\n\
work  3911/3912 [001] 26236.966103:     500000 cpu-clock:ppp: \n\
\t    561eb828f17e hash_all+0x15 (/tmp/w)\n\
\t            122d main+0x3d (/tmp/w)\n\
\n";

    /// Headers with and without a tid and a cpu, frames leaf first, an absolute address made
    /// relative through its mapping, callers marked as return addresses.
    #[test]
    fn reads_samples_per_thread() {
        assert!(is_perf_script(TEXT));
        let threads = parse(TEXT).unwrap();
        assert_eq!(threads.len(), 2);
        let main = &threads[0].profile;
        assert_eq!(main.times_us, vec![26_236_965_605]);
        let t = &threads[1].profile;
        let leaf = t.nodes[t.samples[0] as usize];
        let loc = &t.locations[leaf.location as usize];
        assert_eq!(
            (loc.function.as_str(), loc.column, loc.return_address),
            ("hash_all", 0x117e, false)
        );
        let caller = &t.locations[t.nodes[leaf.parent.unwrap() as usize].location as usize];
        assert_eq!(
            (
                caller.function.as_str(),
                caller.column,
                caller.return_address
            ),
            ("main", 0x122d, true)
        );
        assert!(!is_perf_script("TypeError: x\n    at f (a.js:1:2)\n"));
    }
}
