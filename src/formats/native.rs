//! Native crash records made of addresses: the `crashy`-style record (a JSON line with the
//! faulting `pc` and `backtrace()` return addresses, then `/proc/self/maps` lines), sanitizer
//! reports (`#3 0x5622ccbb858a  (/build/asan/crashy-asan+0x258a)`, whose callers are already
//! return address − 1), and a plain list of hex addresses, one per line, read as offsets
//! into the one native symbol file given (as `llvm-symbolizer --obj` reads them).

use super::images::basename;
use crate::model::{Frame, FrameInput, LogFormat, Module, Stack, Trace};

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

/// A sanitizer frame line: `#N 0xADDR  (module+0xOFFSET)` (unsymbolized) or
/// `#N 0xADDR in function file:line` (already symbolized: the module is not printed).
/// Returns (address, module path and offset).
fn sanitizer_frame(line: &str) -> Option<(u64, Option<(&str, u64)>)> {
    let t = line.trim_start().strip_prefix('#')?;
    let (n, rest) = t.split_once(' ')?;
    if n.is_empty() || !n.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let rest = rest.trim_start();
    let (addr, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    if !addr.starts_with("0x") {
        return None;
    }
    let addr = hex(addr)?;
    let rest = rest.trim();
    let module = rest
        .strip_prefix('(')
        .and_then(|r| r.split_once(')'))
        .and_then(|(inner, _)| inner.rsplit_once('+'))
        .and_then(|(path, off)| Some((path, hex(off)?)));
    Some((addr, module))
}

/// An Android tombstone frame: `#00 pc 00000000000588e0  /system/lib64/libc.so (tgkill+8)`,
/// optionally `(BuildId: …)`. Returns (pc, module path, symbol, build ID); the pc is already
/// relative to the module.
fn tombstone_frame(line: &str) -> Option<(u64, &str, Option<&str>, Option<&str>)> {
    let t = line.trim_start().strip_prefix('#')?;
    let (n, rest) = t.split_once(' ')?;
    if n.is_empty() || !n.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let rest = rest.trim_start().strip_prefix("pc ")?.trim_start();
    let (pc, rest) = rest.split_once(' ')?;
    let pc = hex(pc)?;
    let rest = rest.trim();
    let (module, mut tail) = match rest.find(" (") {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, ""),
    };
    let (mut symbol, mut build_id) = (None, None);
    while let Some(inner) = tail.trim_start().strip_prefix('(') {
        let close = inner.rfind(')').filter(|_| !inner.contains(") ("));
        let end = close.or_else(|| inner.find(") (")).unwrap_or(inner.len());
        let part = &inner[..end];
        if let Some(id) = part.strip_prefix("BuildId: ") {
            build_id = Some(id.trim());
        } else {
            symbol = Some(part.rsplit_once('+').map_or(part, |(s, _)| s));
        }
        tail = inner.get(end + 1..).unwrap_or("");
    }
    (!module.is_empty()).then_some((pc, module, symbol, build_id))
}

/// Whether `text` is an Android tombstone with a backtrace.
fn is_tombstone(text: &str) -> bool {
    text.lines().take(2000).any(|l| l.trim() == "backtrace:")
        && text
            .lines()
            .take(4000)
            .any(|l| tombstone_frame(l).is_some())
}

/// Whether `text` is a sanitizer report with frames.
fn is_sanitizer(text: &str) -> bool {
    text.lines().take(400).any(|l| l.contains("Sanitizer"))
        && text
            .lines()
            .take(400)
            .any(|l| sanitizer_frame(l).is_some_and(|(_, m)| m.is_some()))
}

/// A gdb `bt` line: `#1  0x000055555555563a in f (args) at pipeline.cpp:26`, or without an
/// address (frame 0, and the inlined frames gdb prints as frames of their own):
/// `#2  app::Pipeline::run (sink=0x0) at pipeline.cpp:39`. Returns (address, function,
/// file, line, library).
type GdbFrame<'a> = (
    Option<u64>,
    Option<&'a str>,
    Option<&'a str>,
    Option<u32>,
    Option<&'a str>,
);

fn gdb_frame(line: &str) -> Option<GdbFrame<'_>> {
    let t = line.strip_prefix('#')?;
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || !t[digits..].starts_with("  ") && !t[digits..].starts_with(' ') {
        return None;
    }
    let rest = t[digits..].trim_start();
    let (addr, rest) = match rest.strip_prefix("0x").and_then(|r| r.split_once(" in ")) {
        Some((a, r)) => (Some(hex(a)?), r),
        None => (None, rest),
    };
    if rest.starts_with("0x") {
        return None;
    }
    // `f (args) at file:line` / `f (args) from lib.so` / `f ()`.
    let (head, at) = match rest.rsplit_once(" at ") {
        Some((h, a)) if !a.contains(' ') => (h, Some(a)),
        _ => (rest, None),
    };
    let (head, from) = match head.rsplit_once(" from ") {
        Some((h, f)) if !f.contains(' ') => (h, Some(f)),
        _ => (head, None),
    };
    // The function ends where its argument list starts: ` (` at bracket depth 0.
    let mut depth = 0i32;
    let mut end = head.len();
    for (i, c) in head.char_indices() {
        match c {
            '(' if depth == 0 && head[..i].ends_with(' ') => {
                end = i - 1;
                break;
            }
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            _ => {}
        }
    }
    let function = head[..end].trim();
    let (file, line_no) = match at.and_then(|a| a.rsplit_once(':')) {
        Some((f, l)) => (Some(f), l.parse().ok()),
        None => (at, None),
    };
    Some((
        addr,
        Some(function).filter(|f| !f.is_empty() && *f != "??"),
        file,
        line_no,
        from,
    ))
}

/// A gdb `info proc mappings` line: `0x555555554000 0x555555555000 0x1000 0x0 r--p crashy`.
fn gdb_map_line(line: &str) -> Option<MapLine> {
    let mut parts = line.split_whitespace();
    let start = hex(parts.next().filter(|p| p.starts_with("0x"))?)?;
    let end = hex(parts.next()?)?;
    let _size = hex(parts.next()?)?;
    let offset = hex(parts.next()?)?;
    let rest: Vec<&str> = parts.collect();
    // gdb 12+ prints permissions before the file; older versions do not.
    let path = match rest.first() {
        Some(p) if p.len() == 4 && p.chars().all(|c| "rwxps-".contains(c)) => rest[1..].join(" "),
        _ => rest.join(" "),
    };
    Some(MapLine {
        start,
        end,
        offset,
        path,
    })
}

/// Whether `text` is a gdb backtrace.
fn is_gdb(text: &str) -> bool {
    let mut lines = text.lines().take(4000);
    lines.any(|l| l.starts_with("#0 ") && gdb_frame(l).is_some())
}

/// A gdb backtrace: one stack; frames with an address are looked up (every one after
/// frame 0 a return address) in the module `info proc mappings` puts them in; frames
/// without one (frame 0, inlined frames) keep what gdb printed and are not looked up.
fn parse_gdb(text: &str) -> Trace {
    let maps: Vec<MapLine> = text.lines().filter_map(gdb_map_line).collect();
    let title = text
        .lines()
        .find(|l| l.starts_with("Program received signal") || l.starts_with("Program terminated"))
        .map_or(String::new(), |l| l.trim_end_matches('.').to_owned());
    let title_line = text
        .lines()
        .position(|l| l.trim_end_matches('.') == title && !title.is_empty())
        .map_or(0, |i| i + 1);
    let mut stack = Stack {
        title,
        title_line,
        crashed: true,
        frames: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        let Some((addr, function, file, line_no, from)) = gdb_frame(line) else {
            continue;
        };
        let (module, module_offset) = addr.map_or((None, None), |a| module_at(&maps, a));
        let module = module.or_else(|| from.map(|f| basename(f).to_owned()));
        stack.frames.push(Frame {
            raw: line.to_owned(),
            line_no: i + 1,
            input: Some(FrameInput {
                function: function.map(str::to_owned),
                file: file.map(str::to_owned),
                line: line_no,
                address: addr,
                module,
                module_offset,
                return_address: addr.is_some(),
                builtin: addr.is_none(),
                ..FrameInput::default()
            }),
        });
    }
    Trace {
        format: LogFormat::GdbBacktrace,
        stacks: vec![stack],
        modules: maps_modules(&maps),
    }
}

/// Whether `text` is a native address record or list this module reads.
pub fn is_native(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.trim_start().starts_with('{') && first.contains("\"backtrace\"") {
        return true;
    }
    if is_sanitizer(text) || is_tombstone(text) || is_gdb(text) {
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
    if is_sanitizer(text) {
        return parse_sanitizer(text);
    }
    if is_tombstone(text) {
        return parse_tombstone(text);
    }
    if is_gdb(text) {
        return parse_gdb(text);
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
    stack.crashed = true;
    Trace {
        format: LogFormat::NativeAddresses,
        stacks: vec![stack],
        modules: Vec::new(),
    }
}

/// A glibc `backtrace_symbols` line: `./app(+0x14b9)[0x55…]`, `./app(walk+0x19)[0x55…]`,
/// `libc.so.6(__libc_start_main+0x85)[0x7f…]`. Returns (module as printed, symbol, address).
fn backtrace_symbols_line(line: &str) -> Option<(&str, Option<&str>, u64)> {
    let t = line.trim();
    let (head, addr) = t.strip_suffix(']')?.rsplit_once('[')?;
    let (module, inner) = head.strip_suffix(')')?.split_once('(')?;
    let symbol = inner.split_once('+').map_or(inner, |(s, _)| s);
    Some((module, Some(symbol).filter(|s| !s.is_empty()), hex(addr)?))
}

/// The crashy record: frames start at the faulting `pc` (the signal handler's own frames
/// before it are left out); each frame's module and module offset come from the maps. When
/// the record has `backtrace_symbols` lines, every printed line is a frame (its raw line and
/// printed symbol kept), the handler's included.
fn parse_record(text: &str) -> Option<Trace> {
    let mut lines = text.lines();
    let json: serde_json::Value = serde_json::from_str(lines.next()?).ok()?;
    let maps: Vec<MapLine> = text.lines().skip(1).filter_map(map_line).collect();
    let printed: Vec<(usize, &str, Option<&str>, u64)> = text
        .lines()
        .enumerate()
        .skip(1)
        .filter_map(|(i, l)| backtrace_symbols_line(l).map(|(m, s, a)| (i, m, s, a)))
        .collect();
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
    if !printed.is_empty() {
        let frames = printed
            .iter()
            .map(|&(i, printed_module, symbol, addr)| {
                let (module, module_offset) = module_at(&maps, addr);
                Frame {
                    raw: text.lines().nth(i).unwrap_or_default().to_owned(),
                    line_no: i + 1,
                    input: Some(FrameInput {
                        function: symbol.map(str::to_owned),
                        address: Some(addr),
                        module: module.or_else(|| Some(basename(printed_module).to_owned())),
                        module_offset,
                        return_address: Some(addr) != pc,
                        ..FrameInput::default()
                    }),
                }
            })
            .collect();
        return Some(Trace {
            format: LogFormat::NativeAddresses,
            stacks: vec![Stack {
                title,
                title_line: 1,
                crashed: true,
                frames,
            }],
            modules: maps_modules(&maps),
        });
    }
    let frames = backtrace[start..]
        .iter()
        .enumerate()
        .map(|(i, (raw, addr))| {
            let (module, module_offset) = module_at(&maps, *addr);
            Frame {
                raw: raw.clone(),
                line_no: 1,
                input: Some(FrameInput {
                    address: Some(*addr),
                    module,
                    module_offset,
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
            crashed: true,
            frames,
        }],
        modules: maps_modules(&maps),
    })
}

/// A sanitizer report: one stack per `#0` run of frames, titled by the `ERROR:` line (or
/// the line before the run); other lines are left out.
fn parse_sanitizer(text: &str) -> Trace {
    let mut stacks: Vec<Stack> = Vec::new();
    let mut title = (String::new(), 0);
    for (i, line) in text.lines().enumerate() {
        let Some((addr, module)) = sanitizer_frame(line) else {
            let t = line.trim();
            // `==17569==ERROR: AddressSanitizer: SEGV on …` → `AddressSanitizer: SEGV on …`
            let t = t
                .strip_prefix("==")
                .and_then(|r| r.split_once("=="))
                .map_or(t, |(_, r)| r);
            let t = t.strip_prefix("ERROR: ").unwrap_or(t);
            let wanted =
                (t.contains("Sanitizer") && !t.starts_with("SUMMARY")) || title.0.is_empty();
            if wanted && !t.is_empty() && !t.starts_with("====") {
                title = (t.to_owned(), i + 1);
            }
            continue;
        };
        let n: usize = line
            .trim_start()
            .trim_start_matches('#')
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        if n == 0 || stacks.is_empty() {
            stacks.push(Stack {
                title: std::mem::take(&mut title.0),
                title_line: title.1,
                crashed: stacks.is_empty(),
                frames: Vec::new(),
            });
        }
        let input = FrameInput {
            address: Some(addr),
            module: module.map(|(m, _)| basename(m).to_owned()),
            module_offset: module.map(|(_, off)| off),
            // ASan prints callers at return address − 1 already.
            return_address: false,
            ..FrameInput::default()
        };
        if let Some(stack) = stacks.last_mut() {
            stack.frames.push(Frame {
                raw: line.to_owned(),
                line_no: i + 1,
                input: Some(input),
            });
        }
    }
    Trace {
        format: LogFormat::NativeAddresses,
        stacks,
        modules: Vec::new(),
    }
}

/// A tombstone: one stack per `backtrace:` block, titled by the thread (`pid: …, tid: …`)
/// and the signal line; pcs are module-relative and looked up as printed.
fn parse_tombstone(text: &str) -> Trace {
    let mut stacks: Vec<Stack> = Vec::new();
    let (mut thread, mut signal) = (String::new(), String::new());
    let mut in_backtrace = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with("pid: ") {
            thread = t.to_owned();
        } else if t.starts_with("signal ") {
            signal = t.to_owned();
        }
        if t == "backtrace:" {
            let title = [thread.as_str(), signal.as_str()]
                .iter()
                .filter(|s| !s.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join("\n");
            stacks.push(Stack {
                title,
                title_line: i + 1,
                // debuggerd prints the crashing thread first.
                crashed: stacks.is_empty(),
                frames: Vec::new(),
            });
            in_backtrace = true;
            continue;
        }
        let Some((pc, module, symbol, build_id)) = tombstone_frame(line).filter(|_| in_backtrace)
        else {
            if in_backtrace && !t.is_empty() {
                in_backtrace = false;
            }
            continue;
        };
        if let Some(stack) = stacks.last_mut() {
            stack.frames.push(Frame {
                raw: line.to_owned(),
                line_no: i + 1,
                input: Some(FrameInput {
                    function: symbol.map(str::to_owned),
                    address: Some(pc),
                    module: Some(basename(module).to_owned()),
                    module_offset: Some(pc),
                    build_id: build_id.map(str::to_owned),
                    ..FrameInput::default()
                }),
            });
        }
    }
    Trace {
        format: LogFormat::AndroidTombstone,
        stacks,
        modules: Vec::new(),
    }
}

/// The module mapped at `addr` and the address's offset from the module's load base (where
/// its file offset 0 is mapped).
fn module_at(maps: &[MapLine], addr: u64) -> (Option<String>, Option<u64>) {
    let Some(map) = maps.iter().find(|m| (m.start..m.end).contains(&addr)) else {
        return (None, None);
    };
    let base = maps
        .iter()
        .filter(|o| o.path == map.path)
        .map(|o| o.start.wrapping_sub(o.offset))
        .min();
    (
        Some(basename(&map.path).to_owned()),
        base.map(|b| addr.wrapping_sub(b)),
    )
}

/// The modules of `/proc/self/maps`: one per file, based where its offset 0 is mapped.
fn maps_modules(maps: &[MapLine]) -> Vec<Module> {
    let mut modules: Vec<Module> = Vec::new();
    for m in maps
        .iter()
        .filter(|m| !m.path.is_empty() && !m.path.starts_with('['))
    {
        let base = m.start.wrapping_sub(m.offset);
        match modules
            .iter_mut()
            .find(|x| x.path.as_deref() == Some(&m.path))
        {
            Some(x) => {
                let end = x.base.saturating_add(x.size.unwrap_or(0)).max(m.end);
                x.base = x.base.min(base);
                x.size = Some(end.saturating_sub(x.base));
            }
            None => modules.push(Module {
                name: basename(&m.path).to_owned(),
                path: Some(m.path.clone()),
                base,
                size: Some(m.end.saturating_sub(base)),
                ..Module::default()
            }),
        }
    }
    modules
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
    fn backtrace_symbols_lines() {
        assert_eq!(
            backtrace_symbols_line("./btsym(+0x14b9)[0x555addd6c4b9]"),
            Some(("./btsym", None, 0x555addd6c4b9))
        );
        assert_eq!(
            backtrace_symbols_line("/lib/libc.so.6(__libc_start_main+0x85)[0x7f19]"),
            Some(("/lib/libc.so.6", Some("__libc_start_main"), 0x7f19))
        );
        assert_eq!(backtrace_symbols_line("hello [x]"), None);
    }

    #[test]
    fn tombstone_frames() {
        assert_eq!(
            tombstone_frame("    #00 pc 00000000000588e0  /system/lib64/libc.so (tgkill+8)"),
            Some((0x588e0, "/system/lib64/libc.so", Some("tgkill"), None))
        );
        assert_eq!(
            tombstone_frame(
                "#00 pc 000000000004c1a4  /system/lib64/libc.so (abort+164) (BuildId: 1a2b)"
            ),
            Some((
                0x4c1a4,
                "/system/lib64/libc.so",
                Some("abort"),
                Some("1a2b")
            ))
        );
        assert_eq!(
            tombstone_frame("#06 pc 18958  /system/lib64/libc.so (__pthread_start(void*)+52)"),
            Some((
                0x18958,
                "/system/lib64/libc.so",
                Some("__pthread_start(void*)"),
                None
            ))
        );
        assert_eq!(
            tombstone_frame("#04 pc 00000000000016e0  /system/xbin/crasher64"),
            Some((0x16e0, "/system/xbin/crasher64", None, None))
        );
    }

    #[test]
    fn a_sanitizer_report() {
        let text = "AddressSanitizer:DEADLYSIGNAL\n==1==ERROR: AddressSanitizer: SEGV on unknown address 0x0 (pc 0x5b01 T0)\n    #0 0x5b01  (/build/asan/crashy-asan+0x2b01)\n    #1 0x7f49  (/lib/x86_64-linux-gnu/libc.so.6+0x27249)\n\nSUMMARY: AddressSanitizer: SEGV (/build/asan/crashy-asan+0x2b01)\n";
        assert!(is_native(text));
        let t = parse(text);
        assert_eq!(t.stacks.len(), 1);
        assert_eq!(
            t.stacks[0].title,
            "AddressSanitizer: SEGV on unknown address 0x0 (pc 0x5b01 T0)"
        );
        let f = t.stacks[0].frames[0].input.as_ref().unwrap();
        assert_eq!(
            (f.module.as_deref(), f.module_offset, f.return_address),
            (Some("crashy-asan"), Some(0x2b01), false)
        );
        assert_eq!(
            t.stacks[0].frames[1]
                .input
                .as_ref()
                .unwrap()
                .module
                .as_deref(),
            Some("libc.so.6")
        );
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
