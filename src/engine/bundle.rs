//! Reading a bundle: its `//# sourceMappingURL=` and `//# debugId=` comments, and a map
//! inlined in a `data:` URL.

use crate::symbolicate::{BundleFile, basename};

/// Reads the `//# sourceMappingURL=` and `//# debugId=` comments of a bundle (the last of
/// each, as browsers do; an inline `data:` URL may be megabytes long).
pub fn scan_bundle(path: &str, bytes: &[u8]) -> BundleFile {
    let comment = |key: &[u8]| -> Option<String> {
        let mut end = bytes.len();
        while let Some(at) = memchr::memmem::rfind(&bytes[..end], key) {
            let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |p| p + 1);
            let lead = bytes[line_start..at].trim_ascii();
            if lead == b"//#" || lead == b"//@" {
                let rest = &bytes[at + key.len()..];
                let value_end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
                let value = String::from_utf8_lossy(rest[..value_end].trim_ascii()).into_owned();
                return (!value.is_empty()).then_some(value);
            }
            end = at;
        }
        None
    };
    BundleFile {
        name: basename(path).to_owned(),
        source_mapping_url: comment(b"sourceMappingURL="),
        debug_id: comment(b"debugId="),
        bytes: None,
    }
}

/// Decodes a `data:` URL's payload: `data:application/json;base64,…` or percent-encoded.
pub fn decode_data_url(url: &str) -> Option<Vec<u8>> {
    let rest = url.strip_prefix("data:")?;
    let (meta, payload) = rest.split_once(',')?;
    if meta.split(';').any(|p| p.eq_ignore_ascii_case("base64")) {
        decode_base64(payload.trim())
    } else {
        percent_decode(payload)
    }
}

fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let digits: Vec<u8> = s
        .bytes()
        .filter(|&c| c != b'=' && !c.is_ascii_whitespace())
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for group in digits.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in group.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        match group.len() {
            4 => out.extend_from_slice(&bytes[1..4]),
            3 => out.extend_from_slice(&bytes[1..3]),
            2 => out.push(bytes[1]),
            _ => return None,
        }
    }
    Some(out)
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_urls() {
        assert_eq!(
            decode_data_url("data:application/json;base64,eyJhIjoxfQ==").unwrap(),
            br#"{"a":1}"#
        );
        assert_eq!(
            decode_data_url("data:application/json;charset=utf-8;base64,eyJhIjoxfQ").unwrap(),
            br#"{"a":1}"#
        );
        assert_eq!(
            decode_data_url("data:application/json,%7B%22a%22%3A1%7D").unwrap(),
            br#"{"a":1}"#
        );
        assert_eq!(decode_data_url("data:application/json;base64,e!"), None);
        assert_eq!(decode_data_url("http://x/a.map"), None);
    }

    #[test]
    fn bundle_comments() {
        let b = scan_bundle("dist/a.js", b"x()\n//# debugId=85314830-023f-4cf1-a267-535f4e37bb17\n//# sourceMappingURL=a.js.map\n");
        assert_eq!(b.source_mapping_url.as_deref(), Some("a.js.map"));
        assert_eq!(
            b.debug_id.as_deref(),
            Some("85314830-023f-4cf1-a267-535f4e37bb17")
        );
        assert_eq!(b.name, "a.js");
    }
}
