//! Sentry events (JSON) with native frames: `threads.values[].stacktrace.frames` (listed
//! outermost first, as Sentry stores them) with `instruction_addr`/`image_addr`, and the
//! loaded images in `debug_meta.images` (`image_addr`, `image_size`, `uuid`/`debug_id`).
//! Threads become stacks, the crashed thread first, frames innermost first.

use super::images::basename;
use crate::model::{Frame, FrameInput, LogFormat, Module, Stack, Trace};
use serde_json::Value;

fn hex_value(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::String(s) => {
            let d = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
            u64::from_str_radix(d, 16).ok()
        }
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

fn str_of<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// Mach-O `cpu_type` → architecture name.
fn arch_of(cpu_type: Option<u64>) -> Option<&'static str> {
    match cpu_type? {
        7 => Some("x86"),
        0x0100_0007 => Some("x86_64"),
        12 => Some("arm"),
        0x0100_000c => Some("arm64"),
        _ => None,
    }
}

/// Whether `text` is a Sentry event with native frames (it has `debug_meta` images and
/// stack traces with `instruction_addr`).
pub fn is_sentry_event(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with('{') && t.contains("\"debug_meta\"") && t.contains("\"instruction_addr\"")
}

/// Parses a Sentry event; `None` when it is not JSON of that shape.
pub fn parse(text: &str) -> Option<Trace> {
    let event: Value = serde_json::from_str(text).ok()?;
    let modules: Vec<Module> = event
        .pointer("/debug_meta/images")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|img| {
            let path = str_of(img, "code_file").or_else(|| str_of(img, "name"))?;
            Some(Module {
                name: basename(path).to_owned(),
                path: Some(path.to_owned()),
                base: hex_value(img.get("image_addr"))?,
                size: img.get("image_size").and_then(Value::as_u64),
                id: str_of(img, "uuid")
                    .or_else(|| str_of(img, "debug_id"))
                    .or_else(|| str_of(img, "code_id"))
                    .map(str::to_owned),
                arch: str_of(img, "arch")
                    .or_else(|| arch_of(img.get("cpu_type").and_then(Value::as_u64)))
                    .map(str::to_owned),
            })
        })
        .collect();
    let exception = event
        .pointer("/exception/values/0")
        .map_or(String::new(), |e| {
            match (str_of(e, "type"), str_of(e, "value")) {
                (Some(t), Some(v)) => format!("{t}: {v}"),
                (Some(t), None) => t.to_owned(),
                (None, Some(v)) => v.to_owned(),
                (None, None) => String::new(),
            }
        });
    let exception_frames = event.pointer("/exception/values/0/stacktrace/frames");
    let mut stacks = Vec::new();
    let threads = event.pointer("/threads/values").and_then(Value::as_array);
    for (n, thread) in threads.into_iter().flatten().enumerate() {
        let crashed = thread.get("crashed").and_then(Value::as_bool) == Some(true);
        let frames = thread
            .pointer("/stacktrace/frames")
            .or(if crashed { exception_frames } else { None })
            .and_then(Value::as_array);
        let Some(frames) = frames else { continue };
        let id = thread.get("id").and_then(Value::as_u64).unwrap_or(n as u64);
        let title = super::images::thread_title(id, crashed, str_of(thread, "name"), &exception);
        let mut stack = Stack {
            title,
            title_line: 0,
            crashed,
            frames: Vec::new(),
        };
        for (index, f) in frames.iter().rev().enumerate() {
            let addr = hex_value(f.get("instruction_addr"));
            let image_addr = hex_value(f.get("image_addr"));
            let image = modules.iter().find(|m| {
                Some(m.base) == image_addr
                    || addr.is_some_and(|a| {
                        a >= m.base
                            && m.size.is_some_and(|s| a - m.base < s)
                            && image_addr.is_none()
                    })
            });
            let function = str_of(f, "function").filter(|s| *s != "<redacted>");
            let module = image
                .map(|m| m.name.clone())
                .or_else(|| str_of(f, "package").map(|p| basename(p).to_owned()));
            let raw = format!(
                "{index:<4}{:<30} {}{}",
                module.as_deref().unwrap_or("???"),
                addr.map_or("?".to_owned(), |a| format!("{a:#018x}")),
                function.map_or(String::new(), |s| format!(" {s}"))
            );
            let input = FrameInput {
                function: function.map(str::to_owned),
                address: addr,
                module,
                module_offset: image.zip(addr).map(|(m, a)| a.wrapping_sub(m.base)),
                build_id: image.and_then(|m| m.id.clone()),
                arch: image.and_then(|m| m.arch.clone()),
                return_address: index > 0,
                ..FrameInput::default()
            };
            stack.frames.push(Frame {
                raw,
                line_no: 0,
                input: Some(input),
            });
        }
        stacks.push(stack);
    }
    Some(Trace {
        format: LogFormat::SentryEvent,
        stacks: super::images::crashed_first(stacks),
        modules,
    })
}
