//! File-kind detection from the first bytes of a file (`peek`), as symbolic's `peek` does.

use crate::model::FileKind;

/// How many bytes [`peek`] looks at.
pub const PEEK_LEN: usize = 64 * 1024;

/// The Hermes bytecode file magic (little-endian `u64` at offset 0).
const HERMES_MAGIC: [u8; 8] = 0x1F19_03C1_03BC_1FC6u64.to_le_bytes();

/// Detects what a file is from its first bytes (pass at least [`PEEK_LEN`] when available).
pub fn peek(bytes: &[u8]) -> FileKind {
    let head = &bytes[..bytes.len().min(PEEK_LEN)];
    if head.starts_with(&HERMES_MAGIC) {
        return FileKind::HermesBytecode;
    }
    if super::minidump::is_minidump(head) {
        return FileKind::Log;
    }
    if is_native_object(head) {
        return FileKind::NativeSymbols;
    }
    if memchr::memchr(0, head).is_some() {
        return FileKind::Unknown;
    }
    let text = head.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(head);
    let text = match text.strip_prefix(b")]}'") {
        Some(rest) => rest,
        None => text,
    };
    let trimmed = trim_ascii_start(text);
    if trimmed.first() == Some(&b'{') {
        if super::heapsnapshot::is_heapsnapshot(trimmed) {
            return FileKind::HeapSnapshot;
        }
        if is_symbolicated_line(trimmed) {
            return FileKind::SymbolicatedLogs;
        }
        let keys: [&[u8]; 4] = [
            b"\"mappings\"",
            b"\"sections\"",
            b"\"sourcesContent\"",
            b"\"sources\"",
        ];
        if keys.iter().any(|k| memchr::memmem::find(head, k).is_some()) {
            return FileKind::SourceMap;
        }
        if super::cpuprofile::is_cpuprofile(bytes)
            || super::cpuprofile::is_heap_profile(bytes)
            || super::trace_events::is_trace_events(bytes)
        {
            return FileKind::Profile;
        }
        let native_json: [&[u8]; 2] = [b"\"instruction_addr\"", b"\"bug_type\""];
        if super::native::is_native(&String::from_utf8_lossy(head))
            || native_json
                .iter()
                .any(|k| memchr::memmem::find(head, k).is_some())
        {
            return FileKind::Log;
        }
        return FileKind::Unknown;
    }
    if trimmed.first() == Some(&b'[') && super::trace_events::is_trace_events(bytes) {
        return FileKind::Profile;
    }
    if std::str::from_utf8(head).is_err()
        && std::str::from_utf8(&head[..head.len().saturating_sub(3)]).is_err()
    {
        return FileKind::Unknown;
    }
    if looks_like_proguard(text) {
        return FileKind::ProguardMapping;
    }
    if super::perf_script::is_perf_script(&String::from_utf8_lossy(text)) {
        return FileKind::Profile;
    }
    if looks_like_log(text) {
        return FileKind::Log;
    }
    if looks_like_javascript(trimmed) || has_source_mapping_comment(bytes) {
        return FileKind::JavaScript;
    }
    FileKind::Log
}

/// Native object files by their magic: ELF, Mach-O (thin, either byte order), a universal
/// Mach-O (`cafebabe` with a small architecture count: Java class files share the magic but
/// carry a version there), PE (`MZ` with a `PE\0\0` header), PDB (MSF 7) and Breakpad
/// (`MODULE os arch id name`).
/// Whether a JSON object is a line `symbolicate --format jsonl` wrote: `{"path":…` with the
/// document's `"schema"` or an `"error"` on its first line.
fn is_symbolicated_line(text: &[u8]) -> bool {
    let line = &text[..memchr::memchr(b'\n', text).unwrap_or(text.len())];
    line.starts_with(b"{\"path\":\"")
        && (memchr::memmem::find(line, b"\"schema\":").is_some()
            || memchr::memmem::find(line, b"\"error\":").is_some())
}

fn is_native_object(b: &[u8]) -> bool {
    const MACHO: [[u8; 4]; 4] = [
        [0xfe, 0xed, 0xfa, 0xce],
        [0xfe, 0xed, 0xfa, 0xcf],
        [0xce, 0xfa, 0xed, 0xfe],
        [0xcf, 0xfa, 0xed, 0xfe],
    ];
    if b.starts_with(b"\x7fELF") || MACHO.iter().any(|m| b.starts_with(m)) {
        return true;
    }
    if b.starts_with(&[0xca, 0xfe, 0xba, 0xbe])
        && b.len() >= 8
        && u32::from_be_bytes([b[4], b[5], b[6], b[7]]) < 32
    {
        return true;
    }
    if b.starts_with(b"MZ") && b.len() >= 0x40 {
        let at = u32::from_le_bytes([b[0x3c], b[0x3d], b[0x3e], b[0x3f]]) as usize;
        if b.get(at..at + 4) == Some(b"PE\0\0") {
            return true;
        }
    }
    // A WebAssembly module (version 1): its DWARF, name section or debug sections.
    b.starts_with(b"\0asm\x01\0\0\0")
        || b.starts_with(b"Microsoft C/C++ MSF 7.00")
        || (b.starts_with(b"MODULE ") && b[..b.len().min(256)].split(|&c| c == b' ').count() >= 5)
}

fn trim_ascii_start(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &b[n..]
}

/// Whether the first lines contain stack frames.
fn looks_like_log(text: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&text[..text.len().min(16 * 1024)]);
    let trace = super::parse_text(&text);
    let frames = trace
        .stacks
        .iter()
        .flat_map(|s| &s.frames)
        .filter(|f| f.input.is_some())
        .count();
    frames >= 1 && trace.format != crate::model::LogFormat::Unknown
}

/// Whether the text starts like a ProGuard/R8 mapping: after `#` comment lines, a class line
/// `original.Name -> obf.Name:` (or only comments: R8 writes a valid mapping with no classes
/// when nothing was renamed, and retrace passes a trace through it unchanged).
fn looks_like_proguard(text: &[u8]) -> bool {
    let mut r8_comment = false;
    let mut comments = 0;
    for line in text.split(|&c| c == b'\n').take(200) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let t = line.trim_ascii_start();
        if t.is_empty() {
            continue;
        }
        if t.starts_with(b"#") {
            comments += 1;
            r8_comment |= memchr::memmem::find(t, b"compiler: R8").is_some()
                || memchr::memmem::find(t, b"pg_map_id").is_some()
                || memchr::memmem::find(t, b"com.android.tools.r8").is_some();
            continue;
        }
        return line.len() == t.len()
            && line.ends_with(b":")
            && memchr::memmem::find(line, b" -> ").is_some()
            && !line.contains(&b'(');
    }
    r8_comment || (comments > 0 && text.len() < PEEK_LEN)
}

fn looks_like_javascript(t: &[u8]) -> bool {
    let starts: [&[u8]; 14] = [
        b"!function",
        b"(function",
        b"(()=>",
        b"(() =>",
        b"\"use strict\"",
        b"'use strict'",
        b"var ",
        b"let ",
        b"const ",
        b"import ",
        b"export ",
        b"/*",
        b"//",
        b"function",
    ];
    starts.iter().any(|s| t.starts_with(s))
}

/// Whether the file has a `//# sourceMappingURL=` or `//# debugId=` comment (searched from
/// the end: an inline `data:` map makes the last line megabytes long).
pub fn has_source_mapping_comment(bytes: &[u8]) -> bool {
    memchr::memmem::rfind(bytes, b"sourceMappingURL=").is_some()
        || memchr::memmem::rfind(bytes, b"debugId=").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(
            peek(br#"{"version":3,"sources":[],"names":[],"mappings":""}"#),
            FileKind::SourceMap
        );
        assert_eq!(peek(b")]}'\n{\"mappings\":\"\"}"), FileKind::SourceMap);
        assert_eq!(peek(br#"{"name": "package"}"#), FileKind::Unknown);
        assert_eq!(peek(b"TypeError: x\n    at f (a.js:1:2)\n"), FileKind::Log);
        assert_eq!(
            peek(b"!function(){}();\n//# sourceMappingURL=a.js.map"),
            FileKind::JavaScript
        );
        assert_eq!(peek(b"\x7fELF\x02\x01\x01\0\0\0"), FileKind::NativeSymbols);
        assert_eq!(
            peek(b"MODULE Linux x86_64 E54B69733C5597151AB4CE8884B9A5020 crashy\nFILE 0 a.c\n"),
            FileKind::NativeSymbols
        );
        assert_eq!(peek(b"0x1500\n0x163a\n"), FileKind::Log);
        assert_eq!(peek(&HERMES_MAGIC), FileKind::HermesBytecode);
        assert_eq!(peek(b""), FileKind::Log);
        assert_eq!(peek(b"# just a comment\n\n"), FileKind::ProguardMapping);
        assert_eq!(
            peek(b"# compiler: R8\n# pg_map_id: 1a2b\ncom.example.Main -> a.a:\n    1:1:void main() -> a\n"),
            FileKind::ProguardMapping
        );
        assert_eq!(
            peek(b"java.lang.IllegalStateException: x\n\tat a.b.c(SourceFile:1)\n"),
            FileKind::Log
        );
    }
}
