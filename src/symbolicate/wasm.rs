//! WebAssembly frames of a JavaScript stack (`wasm-function[9]:0x2a8`): each resolved by its
//! own kind of symbol file while the JavaScript frames around it go through source maps.
//!
//! The module is found by the frame's URL (`main.wasm` ↔ `main.wasm`, `main.debug.wasm`,
//! `main.wasm.debug`) or the module name V8 prints (`wasm://wasm/main.wasm-<hash>`); a frame
//! that names no file (V8's `wasm://wasm/<hash>`, `<anonymous>`,
//! a Firefox eval chain, JavaScriptCore) is matched to the loaded modules whose function at
//! the printed index holds the printed offset. A module without DWARF hands over to its
//! separate DWARF file, named by its `external_debug_info` section or sharing its `build_id`
//! (`-gseparate-dwarf`). Then, in this order: DWARF (inline chains, demangled names; the
//! offset moved into the debug file's own layout when its code section starts elsewhere), the
//! wasm source map (the frame's file's map, or the one the module's `sourceMappingURL` names;
//! looked up at line 1, column = offset, as engines and DevTools read them), the module's
//! `name` section (the function's name alone). A frame with no debug file says what to add.

use super::{Resolver, SymbolSet, basename, unresolved};
use crate::model::{FrameInput, FrameStatus, ResolvedLocation, SymbolicatedFrame};
use crate::symbols::native::{WasmModule, clean_name};

/// Where a WebAssembly frame goes.
pub(super) enum Wasm {
    /// Resolved, or why not.
    Done(SymbolicatedFrame),
    /// Through a source map: look up generated line 1 (0-based 0), column `offset`.
    Map(Resolver, u32),
}

/// Whether a frame's module string names a file (a URL or path), rather than an engine's
/// placeholder (`wasm://wasm/<hash>`, `<anonymous>`, `[wasm code]`, an eval chain).
fn names_file(module: &str) -> bool {
    !(module.starts_with("wasm://")
        || module.starts_with('<')
        || module.starts_with('[')
        || module.contains(" > "))
}

/// The module file a frame names: its URL's or path's base name, or the module name V8 puts
/// before the hash (`wasm://wasm/app.wasm-005cbf0a`, from the module's `name` section).
fn module_file(module: &str) -> Option<&str> {
    if names_file(module) {
        return Some(basename(module)).filter(|b| !b.is_empty());
    }
    let (name, hash) = module.strip_prefix("wasm://wasm/")?.rsplit_once('-')?;
    (!name.is_empty() && hash.len() == 8 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(name)
}

/// Whether a symbol file named `file` is the module `module` (a base name), or its debug file.
fn names_module(file: &str, module: &str) -> bool {
    let stem = module.strip_suffix(".wasm").unwrap_or(module);
    file == module
        || file == format!("{stem}.debug.wasm")
        || file == format!("{module}.debug")
        || file == format!("{stem}.dwarf")
}

/// The loaded WebAssembly modules a frame may be in: by the file its URL names, else those
/// whose function `index` holds `offset` (any module with that many functions when the
/// engine printed no offset).
fn candidates(symbols: &SymbolSet, input: &FrameInput<&str>, index: u32) -> Vec<usize> {
    let modules = || {
        symbols
            .natives
            .iter()
            .enumerate()
            .filter_map(|(i, f)| Some((i, f.wasm.as_deref()?)))
    };
    if let Some(base) = input.file.and_then(module_file) {
        let named: Vec<usize> = modules()
            .filter(|(i, _)| names_module(&symbols.natives[*i].name, base))
            .map(|(i, _)| i)
            .collect();
        if !named.is_empty() {
            return named;
        }
    }
    modules()
        .filter(|(_, m)| match input.module_offset {
            Some(offset) => m.holds(index, offset),
            None => m.body(index).is_some(),
        })
        .map(|(i, _)| i)
        .collect()
}

/// The file with the DWARF of module file `i`: itself when it has DWARF, else the file its
/// `external_debug_info` names, else a module with its build ID and DWARF.
fn debug_file(symbols: &SymbolSet, i: usize) -> Option<usize> {
    let module = symbols.natives[i].wasm.as_deref()?;
    if module.has_dwarf {
        return Some(i);
    }
    let with_dwarf = |j: usize| {
        symbols.natives[j]
            .wasm
            .as_deref()
            .is_some_and(|m| m.has_dwarf)
    };
    if let Some(url) = &module.external_debug_info {
        let name = basename(url);
        if let Some(j) = (0..symbols.natives.len()).find(|&j| symbols.natives[j].name == name) {
            return with_dwarf(j).then_some(j);
        }
    }
    let id = module.build_id.as_deref()?;
    (0..symbols.natives.len()).find(|&j| {
        with_dwarf(j)
            && symbols.natives[j]
                .wasm
                .as_deref()
                .and_then(|m| m.build_id.as_deref())
                == Some(id)
    })
}

/// `offset` in module `from` as the same code's offset in `to` (a separate debug file whose
/// code section starts elsewhere): through DWARF's address, which both share.
fn rebase(offset: u64, from: &WasmModule, to: &WasmModule) -> Option<u64> {
    from.dwarf_address(offset)?.checked_add(to.code_offset)
}

/// Resolves a WebAssembly frame of function `index`.
pub(super) fn resolve(input: &FrameInput<&str>, index: u32, symbols: &SymbolSet) -> Wasm {
    let found = candidates(symbols, input, index);
    let module = found.first().copied();
    let shown = input.file.and_then(module_file);
    if let (Some(i), Some(offset)) = (module, input.module_offset)
        && let Some(d) = debug_file(symbols, i)
    {
        let (main, debug) = (&symbols.natives[i], &symbols.natives[d]);
        let at = match (main.wasm.as_deref(), debug.wasm.as_deref()) {
            (Some(m), Some(dm)) => rebase(offset, m, dm),
            _ => None,
        };
        let located = at.map(|a| debug.symbols.lookup(a)).unwrap_or_default();
        if !located.is_empty() {
            let symbol_file = if d == i {
                debug.name.clone()
            } else {
                format!("{} + {}", main.name, debug.name)
            };
            let mut frame = SymbolicatedFrame {
                status: FrameStatus::Resolved,
                symbol_file: Some(symbol_file),
                generated: None,
                resolved: super::native::chain(located),
                alternatives: Vec::new(),
                note: None,
            };
            let mut builds: Vec<usize> = found
                .iter()
                .map(|&c| debug_file(symbols, c).unwrap_or(c))
                .collect();
            builds.dedup();
            if shown.is_none() && builds.len() > 1 {
                frame.note = Some(ambiguity(symbols, &found));
            }
            return Wasm::Done(frame);
        }
    }
    // A source map: the frame's file's, or the one the module names.
    if let Some(offset) = input.module_offset.and_then(|o| u32::try_from(o).ok()) {
        let by_file = input
            .file
            .and_then(module_file)
            .and_then(|f| symbols.find(f))
            .map(|m| m.resolver);
        let by_section = || {
            let url = symbols.natives[module?]
                .wasm
                .as_deref()?
                .source_mapping_url
                .as_deref()?;
            let name = basename(url);
            symbols
                .maps
                .iter()
                .position(|m| m.name == name)
                .map(Resolver::Map)
        };
        if let Some(resolver) = by_file.or_else(by_section) {
            return Wasm::Map(resolver, offset);
        }
    }
    // The name section alone.
    if let Some(i) = module
        && let Some(name) = symbols.natives[i]
            .wasm
            .as_deref()
            .and_then(|m| m.name(index))
    {
        return Wasm::Done(SymbolicatedFrame {
            status: FrameStatus::Resolved,
            symbol_file: Some(symbols.natives[i].name.clone()),
            generated: None,
            resolved: vec![ResolvedLocation {
                function: Some(clean_name(name).unwrap_or_else(|| name.to_owned())),
                ..ResolvedLocation::default()
            }],
            alternatives: Vec::new(),
            note: Some(format!(
                "named by {}'s name section: add its DWARF (built with -g, or its separate debug file) or its source map for a file and line",
                symbols.natives[i].name
            )),
        });
    }
    let what = shown.unwrap_or("this WebAssembly module");
    let note = match (module, input.module_offset) {
        (Some(i), None) => format!(
            "the engine printed no byte offset (function {index} only), and {} names no function {index}",
            symbols.natives[i].name
        ),
        (Some(i), Some(_)) => format!(
            "{} has no DWARF, source map or name for function {index}: add the module built with -g, its separate DWARF file, or its source map",
            symbols.natives[i].name
        ),
        (None, _) => format!(
            "no WebAssembly module here has function {index}{}: add {what} built with -g (or its separate DWARF file), or its source map",
            input
                .module_offset
                .map_or(String::new(), |o| format!(" at offset {o:#x}"))
        ),
    };
    Wasm::Done(unresolved(FrameStatus::NoSymbols, None, note))
}

/// The `name` section's name of a frame's function, in the module it is matched to.
pub(super) fn section_name<'s>(
    symbols: &'s SymbolSet,
    input: &FrameInput<&str>,
    index: u32,
) -> Option<&'s str> {
    let i = *candidates(symbols, input, index).first()?;
    symbols.natives[i].wasm.as_deref()?.name(index)
}

/// A wasm frame's name as V8 printed it, for people: without the module name V8 puts
/// before it when the module has one (`rust.wasm._RNv…` in `wasm://wasm/rust.wasm-<hash>`),
/// demangled (Rust, C++).
pub(super) fn printed_name(printed: &str, module: Option<&str>) -> String {
    let name = module
        .filter(|m| m.starts_with("wasm://"))
        .and_then(module_file)
        .and_then(|m| printed.strip_prefix(m)?.strip_prefix('.'))
        .unwrap_or(printed);
    clean_name(name).unwrap_or_else(|| name.to_owned())
}

/// The note of a frame several loaded modules could hold.
fn ambiguity(symbols: &SymbolSet, found: &[usize]) -> String {
    let names: Vec<&str> = found
        .iter()
        .map(|&i| symbols.natives[i].name.as_str())
        .collect();
    format!(
        "the frame names no module file and {} fit its function and offset; used {}",
        names.join(", "),
        names[0]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_names_lose_the_module_and_are_demangled() {
        // As node printed them (tests/fixtures/wasm/rust.v8.txt, crash.v8.txt).
        assert_eq!(
            printed_name(
                "rust.wasm._RNvNtCsgXGp5Oqx2Ny_4core9panicking9panic_fmt",
                Some("wasm://wasm/rust.wasm-005cbf0a")
            ),
            "core::panicking::panic_fmt"
        );
        assert_eq!(
            printed_name("game::play(int, int)", Some("wasm://wasm/e44aa4c6")),
            "game::play(int, int)"
        );
    }

    #[test]
    fn placeholders_name_no_file() {
        assert!(!names_file("wasm://wasm/00087162"));
        assert!(!names_file("<anonymous>"));
        assert!(!names_file("[wasm code]"));
        assert!(!names_file(
            "http://127.0.0.1:8080/dev.js line 97 > eval line 58 > WebAssembly.instantiate"
        ));
        assert!(names_file("https://app.example/main.wasm"));
        assert_eq!(
            module_file("https://app.example/main.wasm?v=2"),
            Some("main.wasm")
        );
        assert_eq!(
            module_file("wasm://wasm/rust.wasm-005cbf0a"),
            Some("rust.wasm")
        );
        assert_eq!(module_file("wasm://wasm/005cbf0a"), None);
        assert_eq!(module_file("<anonymous>"), None);
    }

    /// A debug file whose code section starts later (more sections before it) answers
    /// at the same DWARF address: the offset moves by the difference.
    #[test]
    fn offsets_move_into_the_debug_files_layout() {
        let main = WasmModule {
            code_offset: 0x40,
            ..WasmModule::default()
        };
        let debug = WasmModule {
            code_offset: 0x75,
            ..WasmModule::default()
        };
        assert_eq!(main.dwarf_address(0xb0), Some(0x70));
        assert_eq!(rebase(0xb0, &main, &debug), Some(0xe5));
        assert_eq!(rebase(0xb0, &main, &main), Some(0xb0));
        // Before the code section there is no code.
        assert_eq!(rebase(0x10, &main, &debug), None);
    }

    #[test]
    fn debug_files_are_named_after_their_module() {
        assert!(names_module("main.wasm", "main.wasm"));
        assert!(names_module("main.debug.wasm", "main.wasm"));
        assert!(names_module("main.wasm.debug", "main.wasm"));
        assert!(!names_module("other.wasm", "main.wasm"));
    }
}
