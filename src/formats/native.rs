//! Native crash records made of addresses: the `crashy`-style record (a JSON line with the
//! faulting `pc` and `backtrace()` return addresses, then `/proc/self/maps` lines), and a
//! plain list of hex addresses, one per line, read as offsets into the one native symbol
//! file given (as `llvm-symbolizer --obj` reads them).

use crate::model::{Frame, FrameInput, LogFormat, Stack, Trace};

/// One mapping of `/proc/self/maps`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct MapLine {
    start: u64,
    end: u64,
    offset: u64,
    path: String,
}

fn hex(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    u64::from_str_radix(s, 16).ok()
}

fn map_line(line: &str) -> Option<MapLine> {
    let mut parts = line.split_whitespace();
    let (start, end) = parts.next()?.split_once('-')?;
    let perms = parts.next()?;
    if perms.len() != 4 {
        return None;
    }
    let offset = parts.next()?;
    let _dev = parts.next()?;
    let _inode = parts.next()?;
    let path = parts.collect::<Vec<_>>().join(" ");
    Some(MapLine {
        start: hex(start)?,
        end: hex(end)?,
        offset: hex(offset)?,
        path,
    })
}

/// Whether `text` is a native address record or list this module reads.
pub fn is_native(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.trim_start().starts_with('{') && first.contains("\"backtrace\"") {
        return true;
    }
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(200) {
        let t = line.trim();
        if !(t.starts_with("0x") || t.starts_with("0X")) || hex(t).is_none() {
            return false;
        }
        n += 1;
    }
    n > 0
}

/// Parses a native record or address list (see the module comment).
pub fn parse(text: &str) -> Trace {
    let first = text.lines().next().unwrap_or("");
    if first.trim_start().starts_with('{')
        && let Some(trace) = parse_record(text)
    {
        return trace;
    }
    let mut stack = Stack::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let input = hex(line).map(|address| FrameInput {
            address: Some(address),
            module_offset: Some(address),
            ..FrameInput::default()
        });
        stack.frames.push(Frame {
            raw: line.to_owned(),
            line_no: i + 1,
            input,
        });
    }
    Trace {
        format: LogFormat::NativeAddresses,
        stacks: vec![stack],
    }
}

/// The crashy record: frames start at the faulting `pc` (the signal handler's own frames
/// before it are left out); each frame's module and module offset come from the maps.
fn parse_record(text: &str) -> Option<Trace> {
    let mut lines = text.lines();
    let json: serde_json::Value = serde_json::from_str(lines.next()?).ok()?;
    let maps: Vec<MapLine> = lines.filter_map(map_line).collect();
    let pc = json.get("pc").and_then(|v| v.as_str()).and_then(hex);
    let backtrace: Vec<(String, u64)> = json
        .get("backtrace")?
        .as_array()?
        .iter()
        .filter_map(|v| {
            let s = v.as_str()?;
            Some((s.to_owned(), hex(s)?))
        })
        .collect();
    let start = pc
        .and_then(|pc| backtrace.iter().position(|(_, a)| *a == pc))
        .unwrap_or(0);
    let signal = json.get("signal").and_then(|v| v.as_u64());
    let fault = json.get("fault_addr").and_then(|v| v.as_str());
    let title = match (signal, fault) {
        (Some(s), Some(f)) => format!("signal {s} ({}) at fault address {f}", signal_name(s)),
        (Some(s), None) => format!("signal {s} ({})", signal_name(s)),
        _ => String::new(),
    };
    let frames = backtrace[start..]
        .iter()
        .enumerate()
        .map(|(i, (raw, addr))| {
            let map = maps.iter().find(|m| (m.start..m.end).contains(addr));
            let module = map.map(|m| basename(&m.path).to_owned());
            // The module's load base: where its file offset 0 is mapped.
            let base = map.and_then(|m| {
                maps.iter()
                    .filter(|o| o.path == m.path)
                    .map(|o| o.start.wrapping_sub(o.offset))
                    .min()
            });
            Frame {
                raw: raw.clone(),
                line_no: 1,
                input: Some(FrameInput {
                    address: Some(*addr),
                    module,
                    module_offset: base.map(|b| addr.wrapping_sub(b)),
                    // Every frame but the faulting pc is a return address.
                    return_address: i > 0,
                    ..FrameInput::default()
                }),
            }
        })
        .collect();
    Some(Trace {
        format: LogFormat::NativeAddresses,
        stacks: vec![Stack {
            title,
            title_line: 1,
            frames,
        }],
    })
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn signal_name(n: u64) -> &'static str {
    match n {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        11 => "SIGSEGV",
        5 => "SIGTRAP",
        _ => "signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_record() {
        let t = parse(
            "{\"signal\":11,\"fault_addr\":\"(nil)\",\"pc\":\"0x5500\",\"backtrace\":[\"0x53c0\",\"0x7f00\",\"0x5500\",\"0x563a\",\"0x7f10\"]}\n5000-6000 r--p 00000000 fe:00 1 crashy\n6000-7000 r-xp 00001000 fe:00 1 crashy\n7e00-8000 r-xp 00000000 fe:00 2 /usr/lib/libc.so.6\n",
        );
        assert_eq!(t.format, LogFormat::NativeAddresses);
        let s = &t.stacks[0];
        assert_eq!(s.title, "signal 11 (SIGSEGV) at fault address (nil)");
        assert_eq!(s.frames.len(), 3);
        let f0 = s.frames[0].input.as_ref().unwrap();
        assert_eq!(
            (f0.module.as_deref(), f0.module_offset, f0.return_address),
            (Some("crashy"), Some(0x500), false)
        );
        let f1 = s.frames[1].input.as_ref().unwrap();
        assert_eq!((f1.module_offset, f1.return_address), (Some(0x63a), true));
        let f2 = s.frames[2].input.as_ref().unwrap();
        assert_eq!(f2.module.as_deref(), Some("libc.so.6"));
    }

    #[test]
    fn an_address_list() {
        assert!(is_native("0x1500\n0x163a\n\n0x12d4\n"));
        assert!(!is_native("TypeError: x\n    at f (a.js:1:2)\n"));
        assert!(!is_native("0x1500\nhello\n"));
        let t = parse("0x1500\n0x163a\n");
        assert_eq!(t.stacks[0].frames.len(), 2);
        assert_eq!(
            t.stacks[0].frames[1].input.as_ref().unwrap().module_offset,
            Some(0x163a)
        );
    }
}
