//! A WebAssembly module's layout, as resolving its frames needs it: where each function's
//! body lies, the code section's start, the function names of the `name` section, and the
//! custom sections that point at its debug information (`external_debug_info`,
//! `sourceMappingURL`, `build_id`). Read section by section with `wasmparser`, nothing
//! validated and no instruction decoded: a module of tens of thousands of functions is read
//! in the time its section headers take.
//!
//! Offsets: engines print a frame's byte offset from the module's first byte
//! (`wasm-function[9]:0x2a8`), a wasm source map maps the same offset (line 1, column =
//! offset), and `symbolic` states the functions of the symbol table and of DWARF in it too
//! (it moves DWARF's addresses by the code section's start). DWARF in a `.wasm` itself
//! states addresses from the code section's contents, as `llvm-symbolizer` takes them: the
//! one conversion between the two is [`WasmModule::dwarf_address`].

use std::collections::HashMap;
use std::ops::Range;
use wasmparser::{KnownCustom, Name, Parser, Payload, TypeRef};

/// Why a module's layout could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a readable WebAssembly module: {0}")]
pub struct WasmError(String);

/// What a WebAssembly module says about its functions and its debug information.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WasmModule {
    /// Offset of the code section's contents from the module's start: DWARF's address 0.
    pub code_offset: u64,
    /// Functions imported (they come first in the index space and have no body).
    pub imported: u32,
    /// Each defined function's body, as module offsets, in index order after the imports.
    pub bodies: Vec<Range<u64>>,
    /// The `name` section's function names, by function index.
    pub names: HashMap<u32, String>,
    /// The `external_debug_info` section: where the module's DWARF was moved
    /// (`-gseparate-dwarf`).
    pub external_debug_info: Option<String>,
    /// The `sourceMappingURL` section: the module's wasm source map.
    pub source_mapping_url: Option<String>,
    /// The `build_id` section's bytes, as hex digits.
    pub build_id: Option<String>,
    /// Whether the module carries DWARF (a `.debug_info` section).
    pub has_dwarf: bool,
    /// The DWARF sections (`.debug_info`, …): name and where their contents lie in the file.
    pub debug_sections: Vec<(String, Range<usize>)>,
}

/// A module offset (what engines print) as DWARF in the module states it: from the code
/// section's contents, which start at `code_offset`; `None` before the code section. The one
/// place the two are converted.
pub fn dwarf_address(module_offset: u64, code_offset: u64) -> Option<u64> {
    module_offset.checked_sub(code_offset)
}

/// Whether `bytes` begin like a binary WebAssembly module.
pub fn is_wasm(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\0asm")
}

/// A custom section's string: a length (LEB128) and that many UTF-8 bytes.
fn section_string(data: &[u8]) -> Option<String> {
    let mut reader = wasmparser::BinaryReader::new(data, 0);
    let s = reader.read_string().ok()?;
    Some(s.to_owned())
}

impl WasmModule {
    /// Reads the layout of the module in `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<Self, WasmError> {
        let err = |e: wasmparser::BinaryReaderError| WasmError(e.to_string());
        let mut module = Self::default();
        for payload in Parser::new(0).parse_all(bytes) {
            match payload.map_err(err)? {
                Payload::ImportSection(imports) => {
                    for import in imports {
                        if matches!(import.map_err(err)?.ty, TypeRef::Func(_)) {
                            module.imported += 1;
                        }
                    }
                }
                Payload::CodeSectionStart { range, count, .. } => {
                    module.code_offset = range.start as u64;
                    module.bodies.reserve(count as usize);
                }
                Payload::CodeSectionEntry(body) => {
                    let r = body.range();
                    module.bodies.push(r.start as u64..r.end as u64);
                }
                Payload::CustomSection(section) => match section.name() {
                    "external_debug_info" => {
                        module.external_debug_info = section_string(section.data());
                    }
                    "sourceMappingURL" => {
                        module.source_mapping_url = section_string(section.data());
                    }
                    "build_id" => {
                        let mut reader = wasmparser::BinaryReader::new(section.data(), 0);
                        let len = reader.read_var_u32().map_err(err)? as usize;
                        let id = reader.read_bytes(len).map_err(err)?;
                        module.build_id = Some(id.iter().map(|b| format!("{b:02x}")).collect());
                    }
                    name if name.starts_with(".debug_") => {
                        module.has_dwarf |= name == ".debug_info";
                        let at = section.data_offset();
                        module
                            .debug_sections
                            .push((name.to_owned(), at..at + section.data().len()));
                    }
                    _ => {
                        if let KnownCustom::Name(names) = section.as_known() {
                            for name in names {
                                // A malformed name subsection ends the names, not the module.
                                let Ok(Name::Function(map)) = name else {
                                    continue;
                                };
                                for naming in map.into_iter().flatten() {
                                    module.names.insert(naming.index, naming.name.to_owned());
                                }
                            }
                        }
                    }
                },
                _ => {}
            }
        }
        Ok(module)
    }

    /// The body of function `index` (in the whole index space, imports first), as module
    /// offsets; `None` for an import or an index past the last function.
    pub fn body(&self, index: u32) -> Option<Range<u64>> {
        let defined = index.checked_sub(self.imported)?;
        self.bodies.get(defined as usize).cloned()
    }

    /// Whether function `index` holds the module offset `offset` (a frame's function index
    /// and offset agree with this module).
    pub fn holds(&self, index: u32, offset: u64) -> bool {
        self.body(index).is_some_and(|b| b.contains(&offset))
    }

    /// A module offset as DWARF in the module states it (from the code section's contents;
    /// `None` before the code section).
    pub fn dwarf_address(&self, module_offset: u64) -> Option<u64> {
        dwarf_address(module_offset, self.code_offset)
    }

    /// Where DWARF section `name` (`.debug_info`) lies in the file.
    pub fn debug_section(&self, name: &str) -> Option<Range<usize>> {
        self.debug_sections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.clone())
    }

    /// The `name` section's name of function `index`.
    pub fn name(&self, index: u32) -> Option<&str> {
        self.names.get(&index).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixture module's layout: the functions V8 named at the offsets it printed
    /// (`tests/fixtures/wasm/crash.v8.txt`) hold them, and no other function does.
    #[test]
    fn bodies_hold_the_offsets_v8_printed() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wasm");
        let module = WasmModule::parse(&std::fs::read(root.join("crash.wasm")).unwrap()).unwrap();
        for (index, offset) in [(2, 0xb0), (2, 0xc5), (1, 0x7f), (3, 0xd5)] {
            assert!(
                module.holds(index, offset),
                "function {index} at {offset:#x}"
            );
            let others = (0..8).filter(|&i| i != index && module.holds(i, offset));
            assert_eq!(others.count(), 0);
        }
        // `report` is imported: index 0 has no body.
        assert_eq!(module.imported, 1);
        assert!(module.body(0).is_none());
        assert_eq!(module.name(1), Some("game::play(int, int)"));
        assert!(module.has_dwarf);
        let stripped =
            WasmModule::parse(&std::fs::read(root.join("separate.wasm")).unwrap()).unwrap();
        assert!(!stripped.has_dwarf);
        assert_eq!(
            stripped.external_debug_info.as_deref(),
            Some("separate.debug.wasm")
        );
        let mapped = WasmModule::parse(&std::fs::read(root.join("mapped.wasm")).unwrap()).unwrap();
        assert_eq!(
            mapped.source_mapping_url.as_deref(),
            Some("mapped.wasm.map")
        );
    }

    /// A truncated module is an error, not a panic.
    #[test]
    fn truncated_modules_are_errors() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wasm");
        let bytes = std::fs::read(root.join("crash.wasm")).unwrap();
        for cut in [9, 30, 200, bytes.len() - 3] {
            assert!(WasmModule::parse(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}
