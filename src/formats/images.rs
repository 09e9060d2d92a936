//! What native crash reports share: the images (modules) they list, how a frame's address
//! finds its image, and threads as stacks (titles, the crashed thread first). Used by the
//! Apple, minidump and Sentry readers.

use crate::model::{FrameInput, Module, Stack};

/// The last component of a path (`/usr/lib/libc.so.6` → `libc.so.6`, `C:\a\b.dll` → `b.dll`).
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// `2d903291397d3d14bfca52c7fb8c5e00` → `2D903291-397D-3D14-BFCA-52C7FB8C5E00` (already
/// dashed UUIDs are upper-cased only).
pub(super) fn uuid_with_dashes(id: &str) -> String {
    let id = id.trim();
    if id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        format!(
            "{}-{}-{}-{}-{}",
            &id[..8],
            &id[8..12],
            &id[12..16],
            &id[16..20],
            &id[20..]
        )
        .to_ascii_uppercase()
    } else {
        id.to_ascii_uppercase()
    }
}

/// The image holding `addr`: by name first (a frame prints its image's name), else by range.
fn image_of<'a>(modules: &'a [Module], name: Option<&str>, addr: u64) -> Option<&'a Module> {
    let contains = |m: &Module| addr >= m.base && m.size.is_none_or(|s| addr - m.base < s);
    name.and_then(|n| {
        modules.iter().find(|m| {
            // `ends_with` first: a report lists hundreds of images, each frame looks.
            (m.name == n
                || m.path
                    .as_deref()
                    .is_some_and(|p| p.ends_with(n) && basename(p) == n))
                && contains(m)
        })
    })
    .or_else(|| modules.iter().find(|m| m.base > 0 && contains(m)))
}

/// The frame input for an address in a report with `modules`.
pub(super) fn frame_input(
    modules: &[Module],
    module: Option<&str>,
    addr: u64,
    symbol: Option<&str>,
    index: usize,
) -> FrameInput {
    let image = image_of(modules, module, addr);
    FrameInput {
        function: symbol.map(str::to_owned),
        address: Some(addr),
        module: module
            .filter(|m| *m != "???")
            .map(str::to_owned)
            .or_else(|| image.map(|m| m.name.clone())),
        module_offset: image.map(|m| addr - m.base),
        build_id: image.and_then(|m| m.id.clone()),
        arch: image.and_then(|m| m.arch.clone()),
        // Frame 0 of each thread is where it stood; the others are return addresses.
        return_address: index > 0,
        ..FrameInput::default()
    }
}

/// `Thread 5 Crashed: com.apple.main-thread` plus the exception line for the crashed thread.
pub(super) fn thread_title(id: u64, crashed: bool, name: Option<&str>, exception: &str) -> String {
    let mut title = format!("Thread {id}");
    if crashed {
        title.push_str(" Crashed");
    }
    if let Some(name) = name.filter(|n| !n.is_empty()) {
        title.push_str(": ");
        title.push_str(name);
    }
    if crashed && !exception.is_empty() {
        title.push('\n');
        title.push_str(exception);
    }
    title
}

/// The stacks with the crashed ones moved to the front (otherwise in log order).
pub(super) fn crashed_first(mut stacks: Vec<Stack>) -> Vec<Stack> {
    stacks.sort_by_key(|s| !s.crashed);
    stacks
}
