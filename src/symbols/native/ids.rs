//! Matching a module identifier as a log prints it (ELF build ID, Mach-O UUID, Breakpad
//! debug ID) to a debug file's.

use super::NativeInfo;

/// An identifier reduced to lowercase hex digits (`5B85B938-CD9C-…` → `5b85b938cd9c…`).
fn id_digits(id: &str) -> String {
    id.chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The debug ID that Breakpad and symbolic derive from an ELF build ID (hex digits), as
/// hex digits without its age: its first 16 bytes (zero-padded) read as a little-endian
/// GUID (`debugid`'s `from_guid_age`, as symbolic reads a little-endian ELF file's).
fn elf_debug_id(build_id: &str) -> Option<String> {
    let mut guid = [0u8; 16];
    let digits = build_id.as_bytes();
    if digits.len() < 2 || !digits.len().is_multiple_of(2) {
        return None;
    }
    for (byte, pair) in guid.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    let id = symbolic::common::DebugId::from_guid_age(&guid, 0).ok()?;
    Some(id_digits(&id.uuid().simple().to_string()))
}

impl NativeInfo {
    /// What `object`'s headers say of it.
    pub(super) fn of(object: &symbolic::debuginfo::Object<'_>) -> Self {
        Self {
            format: object.file_format().to_string(),
            arch: object.arch().name().to_owned(),
            debug_id: object.debug_id().breakpad().to_string(),
            code_id: object.code_id().map(|c| c.to_string()),
            has_debug_info: object.has_debug_info(),
        }
    }

    /// Whether a module identifier as a log prints it names this object: an ELF build ID
    /// or a Mach-O UUID (the code ID), a breakpad debug ID, or a UUID without its age.
    pub fn matches_id(&self, id: &str) -> bool {
        let id = id_digits(id);
        if id.is_empty() || id.chars().all(|c| c == '0') {
            return false;
        }
        let debug = id_digits(&self.debug_id);
        self.code_id.as_deref().is_some_and(|c| id_digits(c) == id)
            || debug == id
            || (id.len() == 32 && debug.len() > 32 && debug.starts_with(&id))
            || elf_debug_id(&id).is_some_and(|d| debug.len() >= 32 && debug[..32] == d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elf_build_ids_give_breakpad_debug_ids() {
        // crashy's build ID and the MODULE line of `dump_syms crashy`.
        assert_eq!(
            elf_debug_id("e54b69733c5597151ab4ce8884b9a502430e85c7").as_deref(),
            Some("73694be5553c15971ab4ce8884b9a502")
        );
        let info = NativeInfo {
            format: "breakpad".into(),
            arch: "x86_64".into(),
            debug_id: "73694BE5553C15971AB4CE8884B9A5020".into(),
            code_id: None,
            has_debug_info: true,
        };
        assert!(info.matches_id("e54b69733c5597151ab4ce8884b9a502430e85c7"));
        assert!(info.matches_id("73694BE5-553C-1597-1AB4-CE8884B9A502"));
        assert!(!info.matches_id("00000000-0000-0000-0000-000000000000"));
        assert!(!info.matches_id("e54b69733c5597151ab4ce8884b9a503430e85c7"));
    }
}
