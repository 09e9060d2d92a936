//! Apple crash reports: the classic text form (`.crash`: `Thread 5 Crashed:` blocks of
//! `0   YetAnotherMac   0x00000001090a0132 0x10864e000 + 10821938` lines and a
//! `Binary Images:` list with UUIDs) and the JSON form (`.ips`: a JSON header line, then a
//! JSON body with `threads[].frames[].{imageIndex,imageOffset}` and `usedImages`). An `.ips`
//! whose body is not JSON (`bug_type` 109 from iOS 14) holds a text report after its header.
//!
//! Threads become stacks, the crashed thread first; each frame's module offset is its address
//! minus its image's load address, and its module is identified by the image UUID.

use super::images::{basename, crashed_first, frame_input, thread_title, uuid_with_dashes};
use crate::model::{Frame, FrameInput, LogFormat, Module, Stack, Trace};

fn hex(s: &str) -> Option<u64> {
    let s = s.trim();
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

/// `Thread 5 Crashed:` / `Thread 0:` → (id, crashed).
fn thread_header(line: &str) -> Option<(u32, bool)> {
    let rest = line.trim_end().strip_prefix("Thread ")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let id = rest[..digits].parse().ok()?;
    match &rest[digits..] {
        ":" => Some((id, false)),
        " Crashed:" => Some((id, true)),
        _ => None,
    }
}

/// `Thread 0 name:  Dispatch queue: com.apple.main-thread` → (id, name).
fn thread_name(line: &str) -> Option<(u32, &str)> {
    let rest = line.strip_prefix("Thread ")?;
    let (id, rest) = rest.split_once(' ')?;
    let name = rest.strip_prefix("name:")?;
    Some((id.parse().ok()?, name.trim()))
}

/// A frame line: `12  libdyld.dylib  0x00007fff61a8e085 0x7fff61a77000 + 94341` or, once
/// symbolicated, `4   kaki  0x0000000100081a1c main + 108`. Module names may hold spaces.
/// Returns (module, address, symbol).
fn frame_line(line: &str) -> Option<(&str, u64, Option<&str>)> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || !t[digits..].starts_with([' ', '\t']) {
        return None;
    }
    let rest = &t[digits..];
    // The address is the first `0x…` word after the module name.
    let mut at = None;
    let mut search = 0;
    while let Some(i) = rest[search..].find("0x") {
        let i = search + i;
        let before_ok = rest[..i].ends_with([' ', '\t']);
        let word_end = rest[i..].find([' ', '\t']).map_or(rest.len(), |e| i + e);
        if before_ok && i > 0 && !rest[..i].trim().is_empty() && hex(&rest[i..word_end]).is_some() {
            at = Some((i, word_end));
            break;
        }
        search = i + 2;
    }
    let (i, end) = at?;
    let module = rest[..i].trim();
    let addr = hex(&rest[i..end])?;
    let tail = rest[end..].trim();
    // `0xBASE + OFFSET` is the unsymbolicated form; anything else names a symbol.
    let symbol = match tail.split_once(" + ") {
        Some((head, _)) if hex(head).is_some() => None,
        Some((head, _)) => Some(head.trim()),
        None if tail.is_empty() => None,
        None => Some(tail),
    };
    Some((module, addr, symbol))
}

/// A `Binary Images:` line:
/// `0x10864e000 - 0x10ee0ffff +YetAnotherMac x86_64 (400.9.4 - 1.0.0) <2d90…> /Users/…`.
fn image_line(line: &str) -> Option<Module> {
    let t = line.trim();
    let (start, rest) = t.split_once(" - ")?;
    let base = hex(start)?;
    let rest = rest.trim_start();
    let (end, rest) = rest.split_once(' ')?;
    let end = hex(end)?;
    let rest = rest.trim_start();
    let (head, id, path) = match (rest.find('<'), rest.find('>')) {
        (Some(open), Some(close)) if close > open => (
            &rest[..open],
            Some(&rest[open + 1..close]),
            rest[close + 1..].trim(),
        ),
        _ => (rest, None, ""),
    };
    let head = head.trim();
    // A version in parentheses ends the head: strip it.
    let head = match head.rfind(" (") {
        Some(i) if head.ends_with(')') => head[..i].trim_end(),
        _ => head,
    };
    let (name, arch) = match head.rsplit_once(' ') {
        Some((name, arch)) => (name.trim(), Some(arch)),
        None => (head, None),
    };
    let name = name.strip_prefix('+').unwrap_or(name).trim();
    if name.is_empty() {
        return None;
    }
    Some(Module {
        name: name.to_owned(),
        path: (!path.is_empty()).then(|| path.to_owned()),
        base,
        size: end.checked_sub(base).map(|s| s.saturating_add(1)),
        id: id.map(uuid_with_dashes),
        arch: arch.map(str::to_owned),
    })
}

/// Whether `text` is an Apple crash report (text or `.ips`).
pub fn is_apple(text: &str) -> bool {
    let first = text.lines().next().unwrap_or("").trim();
    if first.starts_with('{') && first.contains("\"bug_type\"") {
        return true;
    }
    let (mut threads, mut images) = (false, false);
    for line in text.lines().take(20_000) {
        if line.starts_with("Incident Identifier:") {
            return true;
        }
        threads |= thread_header(line).is_some();
        images |= line.trim_end() == "Binary Images:";
        if threads && images {
            return true;
        }
    }
    false
}

/// Parses an Apple crash report (text or `.ips`).
pub fn parse(text: &str) -> Trace {
    let first = text.lines().next().unwrap_or("").trim();
    if first.starts_with('{') && first.contains("\"bug_type\"") {
        let body_at = text.find('\n').map_or(text.len(), |i| i + 1);
        let body = &text[body_at..];
        if let Ok(json) = serde_json::from_str::<serde_json::Value>(body) {
            return parse_ips(body, &json, 1);
        }
        // bug_type 109 and older: a JSON header line, then a text report.
        let mut trace = parse_crash(body, 1);
        trace.format = LogFormat::AppleIps;
        return trace;
    }
    parse_crash(text, 0)
}

/// The text form; `line_offset` lines come before `text` in the file.
fn parse_crash(text: &str, line_offset: usize) -> Trace {
    let lines: Vec<&str> = text.lines().collect();
    let mut modules = Vec::new();
    if let Some(at) = lines.iter().position(|l| l.trim_end() == "Binary Images:") {
        modules = lines[at + 1..]
            .iter()
            .map_while(|l| image_line(l))
            .collect();
    }
    let field = |key: &str| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(key).map(str::trim))
            .filter(|v| !v.is_empty())
    };
    let crashed_id: Option<u32> = field("Crashed Thread:")
        .or_else(|| field("Triggered by Thread:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok());
    let exception = [
        field("Exception Type:"),
        field("Exception Codes:"),
        field("Termination Reason:"),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ");
    let mut names: Vec<(u32, &str)> = Vec::new();
    let mut threads: Vec<(u32, Stack)> = Vec::new();
    let mut current: Option<(u32, Stack)> = None;
    for (i, line) in lines.iter().enumerate() {
        if let Some(n) = thread_name(line) {
            names.push(n);
            continue;
        }
        if let Some((id, crashed)) = thread_header(line) {
            threads.extend(current.take());
            let crashed = crashed || crashed_id == Some(id);
            current = Some((
                id,
                Stack {
                    title: String::new(),
                    title_line: i + 1 + line_offset,
                    crashed,
                    frames: Vec::new(),
                },
            ));
            continue;
        }
        let Some((_, stack)) = current.as_mut() else {
            continue;
        };
        if let Some((module, addr, symbol)) = frame_line(line) {
            let index = stack.frames.len();
            stack.frames.push(Frame {
                raw: (*line).to_owned(),
                line_no: i + 1 + line_offset,
                input: Some(frame_input(&modules, Some(module), addr, symbol, index)),
            });
        } else if !line.trim().is_empty() || !stack.frames.is_empty() {
            threads.extend(current.take());
        }
    }
    threads.extend(current.take());
    for (id, stack) in &mut threads {
        let name = names.iter().find(|(n, _)| n == id).map(|(_, s)| *s);
        stack.title = thread_title(u64::from(*id), stack.crashed, name, &exception);
    }
    Trace {
        format: LogFormat::AppleCrash,
        stacks: crashed_first(threads.into_iter().map(|(_, s)| s).collect()),
        modules,
    }
}

/// The JSON form (`bug_type` 309); `body` starts on line `line_offset + 1`.
fn parse_ips(body: &str, json: &serde_json::Value, line_offset: usize) -> Trace {
    use serde_json::Value;
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64);
    let images: Vec<Option<Module>> = json
        .get("usedImages")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|img| {
                    let name = str_of(img, "name")
                        .or_else(|| str_of(img, "path").map(|p| basename(&p).to_owned()))?;
                    Some(Module {
                        name,
                        path: str_of(img, "path"),
                        base: num(img, "base")?,
                        size: num(img, "size"),
                        id: str_of(img, "uuid").map(|u| u.to_ascii_uppercase()),
                        arch: str_of(img, "arch"),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let faulting = num(json, "faultingThread");
    let exception = json.get("exception").map_or(String::new(), |e| {
        [
            str_of(e, "type"),
            str_of(e, "signal").map(|s| format!("({s})")),
            str_of(e, "subtype"),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
    });
    // Line numbers: each frame object is found by its `imageOffset` key, in order.
    let threads_at = body.find("\"threads\"").unwrap_or(0);
    let mut offsets = body[threads_at..]
        .match_indices("\"imageOffset\"")
        .map(|(i, _)| threads_at + i);
    // Counted incrementally: the offsets only grow.
    let (mut counted_to, mut lines_before) = (0, 0);
    let mut line_of = |at: usize| {
        lines_before += memchr::memchr_iter(b'\n', &body.as_bytes()[counted_to..at]).count();
        counted_to = at;
        lines_before + 1 + line_offset
    };
    let mut stacks = Vec::new();
    let threads = json.get("threads").and_then(Value::as_array);
    for (n, thread) in threads.into_iter().flatten().enumerate() {
        let crashed = thread
            .get("triggered")
            .and_then(Value::as_bool)
            .unwrap_or(false)
            || faulting == Some(n as u64);
        let name = str_of(thread, "name").or_else(|| str_of(thread, "queue"));
        let mut stack = Stack {
            title: thread_title(n as u64, crashed, name.as_deref(), &exception),
            title_line: 0,
            crashed,
            frames: Vec::new(),
        };
        let frames = thread.get("frames").and_then(Value::as_array);
        for (index, f) in frames.into_iter().flatten().enumerate() {
            let image = num(f, "imageIndex")
                .and_then(|i| images.get(usize::try_from(i).ok()?))
                .and_then(Option::as_ref);
            let offset = num(f, "imageOffset");
            let symbol = str_of(f, "symbol");
            let line_no = offsets.next().map_or(0, &mut line_of);
            let (input, raw) = match (image, offset) {
                (Some(img), Some(off)) => {
                    let addr = img.base.wrapping_add(off);
                    let mut input = frame_input(
                        std::slice::from_ref(img),
                        Some(&img.name),
                        addr,
                        symbol.as_deref(),
                        index,
                    );
                    input.module_offset = Some(off);
                    let raw = format!(
                        "{index:<4}{:<30} {addr:#018x} {}",
                        img.name,
                        match (&symbol, num(f, "symbolLocation")) {
                            (Some(s), Some(l)) => format!("{s} + {l}"),
                            _ => format!("{:#x} + {off}", img.base),
                        }
                    );
                    (input, raw)
                }
                _ => {
                    let addr = offset.unwrap_or(0);
                    let input = FrameInput {
                        address: Some(addr),
                        function: symbol.clone(),
                        return_address: index > 0,
                        ..FrameInput::default()
                    };
                    (input, format!("{index:<4}{:<30} {addr:#018x}", "???"))
                }
            };
            if stack.title_line == 0 {
                stack.title_line = line_no.saturating_sub(1);
            }
            stack.frames.push(Frame {
                raw,
                line_no,
                input: Some(input),
            });
        }
        stacks.push(stack);
    }
    Trace {
        format: LogFormat::AppleIps,
        stacks: crashed_first(stacks),
        modules: images.into_iter().flatten().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_headers() {
        assert_eq!(thread_header("Thread 5 Crashed:"), Some((5, true)));
        assert_eq!(thread_header("Thread 12:"), Some((12, false)));
        assert_eq!(thread_header("Thread 0 name:  Dispatch queue: x"), None);
        assert_eq!(
            thread_header("Thread 0 crashed with ARM Thread State (64-bit):"),
            None
        );
        assert_eq!(
            thread_name("Thread 0 name:  Dispatch queue: com.apple.main-thread"),
            Some((0, "Dispatch queue: com.apple.main-thread"))
        );
    }

    #[test]
    fn frame_lines() {
        assert_eq!(
            frame_line(
                "0   App Namespace                       0x0000000102268e70 0x10211c000 + 1363568"
            ),
            Some(("App Namespace", 0x102268e70, None))
        );
        assert_eq!(
            frame_line("4   kaki                          \t0x0000000100081a1c main + 108"),
            Some(("kaki", 0x100081a1c, Some("main")))
        );
        assert_eq!(
            frame_line("2   ???                                 0x0000000054485244 0x0 + 0"),
            Some(("???", 0x54485244, None))
        );
        assert_eq!(frame_line("Thread 0:"), None);
        assert_eq!(frame_line("    x0: 0x0000000000000000"), None);
    }

    #[test]
    fn image_lines() {
        let m = image_line("       0x10864e000 -        0x10ee0ffff +YetAnotherMac x86_64 (400.9.4 - 1.0.0) <2d903291397d3d14bfca52c7fb8c5e00> /Users/b/YetAnotherMac").unwrap();
        assert_eq!(m.name, "YetAnotherMac");
        assert_eq!(m.arch.as_deref(), Some("x86_64"));
        assert_eq!(m.base, 0x10864e000);
        assert_eq!(m.size, Some(0x10ee10000 - 0x10864e000));
        assert_eq!(
            m.id.as_deref(),
            Some("2D903291-397D-3D14-BFCA-52C7FB8C5E00")
        );
        assert_eq!(m.path.as_deref(), Some("/Users/b/YetAnotherMac"));
        let m = image_line("       0x10211c000 -        0x1024b3fff App Namespace arm64  <debeff4e26534f38e59bc9de7b8daade> /private/App Namespace").unwrap();
        assert_eq!(
            (m.name.as_str(), m.arch.as_deref()),
            ("App Namespace", Some("arm64"))
        );
        assert_eq!(image_line("Thread 0:"), None);
    }
}
