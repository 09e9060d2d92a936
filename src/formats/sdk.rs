//! The one-line-per-frame forms mobile monitoring SDKs upload (as in the MDAP write-up), where
//! each frame carries the identifier that picks its debug file:
//!
//! - iOS: `CoreFoundation 0x00007fff20422faa 0x7fff20311000 + 1122218 [8c17697f-…]`:
//!   module, address, load address `+` decimal offset, the image's UUID (picks the dSYM);
//! - Android native: `pc 0x0000000000022074 libc.so [arm64-v8a::77e6f9ea…]`: the pc relative
//!   to the module, the module, the ABI and the build ID (picks the ELF).
//!
//! Java frames printed without `at ` (`tg.a.e(MethodRecorder.kt:1)`) are read by the Java
//! reader. Lines around the frames (an exception line, a thread name) are the stack's title;
//! a blank line or a new title after frames starts a new stack.

use crate::model::{Frame, FrameInput, LogFormat, Stack, Trace};

fn hex(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    (!h.is_empty() && h.len() <= 16)
        .then(|| u64::from_str_radix(h, 16).ok())
        .flatten()
}

/// The `[…]` at the end of a line, and the text before it.
fn bracketed(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_end();
    let inner = t.strip_suffix(']')?;
    let open = inner.rfind('[')?;
    Some((inner[..open].trim_end(), &inner[open + 1..]))
}

/// Whether `id` reads as a UUID (`8c17697f-2e84-39e5-b491-fcf5169106ff`).
fn is_uuid(id: &str) -> bool {
    let parts: Vec<&str> = id.split('-').collect();
    parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.bytes().all(|c| c.is_ascii_hexdigit()))
}

/// An iOS frame: (module, address, load address, offset, UUID).
fn ios_frame(line: &str) -> Option<(&str, u64, u64, u64, &str)> {
    let (head, uuid) = bracketed(line)?;
    if !is_uuid(uuid) {
        return None;
    }
    let words: Vec<&str> = head.split_whitespace().collect();
    // module may contain spaces: the last five words are `ADDR LOAD + OFFSET`.
    let [.., addr, load, plus, offset] = words.as_slice() else {
        return None;
    };
    if *plus != "+" || words.len() < 5 {
        return None;
    }
    let module_words = &words[..words.len() - 4];
    let first = head.find(module_words[0])?;
    let last = module_words[module_words.len() - 1];
    let end = head.find(last)? + last.len();
    let module = &head[first..end];
    let (addr, load) = (hex(addr)?, hex(load)?);
    let offset: u64 = offset.parse().ok()?;
    (load.checked_add(offset) == Some(addr)).then_some((module, addr, load, offset, uuid))
}

/// An Android native frame: (pc, module, ABI, build ID).
fn android_frame(line: &str) -> Option<(u64, &str, &str, &str)> {
    let (head, tag) = bracketed(line)?;
    let (abi, build_id) = tag.split_once("::")?;
    if abi.is_empty() || build_id.is_empty() || !build_id.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let rest = head.trim_start().strip_prefix("pc ")?.trim_start();
    let (pc, module) = rest.split_once(char::is_whitespace)?;
    let module = module.trim();
    (!module.is_empty()).then_some((hex(pc)?, module, abi, build_id))
}

/// What one line is.
fn frame_input(line: &str) -> Option<FrameInput> {
    if let Some((module, addr, _load, offset, uuid)) = ios_frame(line) {
        return Some(FrameInput {
            address: Some(addr),
            module: Some(module.to_owned()),
            module_offset: Some(offset),
            build_id: Some(uuid.to_owned()),
            ..FrameInput::default()
        });
    }
    let (pc, module, abi, build_id) = android_frame(line)?;
    Some(FrameInput {
        address: Some(pc),
        module: Some(super::images::basename(module).to_owned()),
        module_offset: Some(pc),
        build_id: Some(build_id.to_owned()),
        arch: Some(abi.to_owned()),
        ..FrameInput::default()
    })
}

/// Whether `text` is made of SDK one-line frames (at least one among its first lines).
pub fn is_sdk(text: &str) -> bool {
    text.lines()
        .take(400)
        .any(|l| ios_frame(l).is_some() || android_frame(l).is_some())
}

/// Parses SDK one-line frames into stacks.
pub fn parse(text: &str) -> Trace {
    let mut stacks: Vec<Stack> = Vec::new();
    let mut title: Vec<(usize, &str)> = Vec::new();
    let mut open = false;
    for (i, line) in text.lines().enumerate() {
        match frame_input(line) {
            Some(input) => {
                if !open {
                    let first = title.first().map_or(0, |(n, _)| *n);
                    stacks.push(Stack {
                        title: title
                            .iter()
                            .map(|(_, t)| t.trim())
                            .collect::<Vec<_>>()
                            .join("\n"),
                        title_line: first,
                        crashed: stacks.is_empty(),
                        frames: Vec::new(),
                    });
                    title.clear();
                    open = true;
                }
                // The caller frames are return addresses; the SDKs print them as they are.
                let index = stacks.last().map_or(0, |s| s.frames.len());
                if let Some(stack) = stacks.last_mut() {
                    stack.frames.push(Frame {
                        raw: line.to_owned(),
                        line_no: i + 1,
                        input: Some(FrameInput {
                            return_address: index > 0 && input.arch.is_none(),
                            ..input
                        }),
                    });
                }
            }
            None if line.trim().is_empty() => open = false,
            None => {
                if open {
                    open = false;
                }
                title.push((i + 1, line));
            }
        }
    }
    Trace {
        format: LogFormat::SdkFrames,
        stacks,
        modules: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms() {
        let text = "NSInvalidArgumentException\n\
CoreFoundation 0x00007fff20422faa 0x7fff20311000 + 1122218 [8c17697f-2e84-39e5-b491-fcf5169106ff]\n\
My App 0x0000000100004a10 0x100000000 + 18960 [0b6d0c5e-1111-2222-3333-444455556666]\n\
\n\
signal 11 (SIGSEGV)\n\
pc 0x0000000000022074 libc.so [arm64-v8a::77e6f9ea7bad92cd845bdfb83dcb29d9]\n\
pc 0x00000000000a1b2c /data/app/lib/arm64/libapp.so [arm64-v8a::0123abcd]\n";
        assert!(is_sdk(text));
        let t = parse(text);
        assert_eq!(t.stacks.len(), 2);
        assert_eq!(t.stacks[0].title, "NSInvalidArgumentException");
        let f = t.stacks[0].frames[0].input.as_ref().unwrap();
        assert_eq!(f.module.as_deref(), Some("CoreFoundation"));
        assert_eq!(
            (f.address, f.module_offset),
            (Some(0x7fff20422faa), Some(1122218))
        );
        assert_eq!(
            f.build_id.as_deref(),
            Some("8c17697f-2e84-39e5-b491-fcf5169106ff")
        );
        let f = t.stacks[0].frames[1].input.as_ref().unwrap();
        assert_eq!(f.module.as_deref(), Some("My App"));
        assert!(f.return_address);
        assert_eq!(t.stacks[1].title, "signal 11 (SIGSEGV)");
        let f = t.stacks[1].frames[1].input.as_ref().unwrap();
        assert_eq!(f.module.as_deref(), Some("libapp.so"));
        assert_eq!(f.module_offset, Some(0xa1b2c));
        assert_eq!(f.arch.as_deref(), Some("arm64-v8a"));
        assert_eq!(f.build_id.as_deref(), Some("0123abcd"));
        // An offset that does not add up is no frame.
        assert!(!is_sdk(
            "X 0x10 0x5 + 3 [8c17697f-2e84-39e5-b491-fcf5169106ff]"
        ));
    }
}
