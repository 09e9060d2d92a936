//! Base64 VLQ decoding of `mappings` terms, with a 256-entry class table.

/// Class of a byte in `mappings`: a base64 digit (0..=63), a separator, or invalid.
pub(crate) const COMMA: u8 = 64;
/// Line separator class.
pub(crate) const SEMI: u8 = 65;
/// Invalid byte class.
pub(crate) const BAD: u8 = 0xFF;

/// Byte → class table: base64 digit values, `,` → [`COMMA`], `;` → [`SEMI`], else [`BAD`].
pub(crate) static CLASS: [u8; 256] = build_table();

/// Byte → signed value of a one-digit term (a digit without the continuation bit), else 0.
pub(crate) static ONE_DIGIT: [i8; 256] = build_one_digit();

const fn build_one_digit() -> [i8; 256] {
    let mut t = [0i8; 256];
    let mut b = 0;
    while b < 256 {
        let c = CLASS[b];
        if c < 32 {
            let mag = (c >> 1) as i8;
            t[b] = if c & 1 == 1 { -mag } else { mag };
        }
        b += 1;
    }
    t
}

const fn build_table() -> [u8; 256] {
    let mut t = [BAD; 256];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut i = 0;
    while i < 64 {
        t[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    t[b',' as usize] = COMMA;
    t[b';' as usize] = SEMI;
    t
}

/// Decodes the zig-zag sign bit of a finished VLQ value.
#[inline(always)]
pub(crate) fn unsign(v: u64) -> i64 {
    let mag = (v >> 1) as i64;
    if v & 1 == 1 { -mag } else { mag }
}

/// Encodes one signed value as base64 VLQ (used by tests and by map composition).
pub fn encode(out: &mut String, value: i64) {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut v: u64 = if value < 0 {
        ((value.unsigned_abs()) << 1) | 1
    } else {
        (value as u64) << 1
    };
    loop {
        let mut digit = (v & 31) as u8;
        v >>= 5;
        if v > 0 {
            digit |= 32;
        }
        out.push(alphabet[digit as usize] as char);
        if v == 0 {
            break;
        }
    }
}

/// Decodes a whole VLQ string into its values (small inputs: function maps, tests).
///
/// Returns `None` on an invalid digit, an unfinished term or a value over 32 bits.
pub fn decode_all(s: &[u8]) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    let mut acc: u64 = 0;
    let mut shift = 0u32;
    for &b in s {
        let c = CLASS[b as usize];
        if c >= 64 {
            return None;
        }
        let digit = u64::from(c & 31);
        if shift < 35 {
            acc |= digit << shift;
        } else if digit != 0 {
            return None;
        }
        if c & 32 != 0 {
            shift = (shift + 5).min(35);
        } else {
            if acc > u64::from(u32::MAX) {
                return None;
            }
            out.push(unsign(acc));
            acc = 0;
            shift = 0;
        }
    }
    if shift != 0 {
        return None;
    }
    Some(out)
}

/// The class of a byte (a base64 digit value, 64 for `,`, 65 for `;`, 255 otherwise).
pub fn class(b: u8) -> u8 {
    CLASS[b as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for v in [0i64, 1, -1, 15, 16, -16, 1000, -123456, i64::from(i32::MAX)] {
            let mut s = String::new();
            encode(&mut s, v);
            assert_eq!(decode_all(s.as_bytes()), Some(vec![v]), "{v} as {s}");
        }
    }

    #[test]
    fn rejects_bad_digits_and_overflow() {
        assert_eq!(decode_all(b"A!"), None);
        assert_eq!(decode_all(b"g"), None, "unfinished term");
        assert_eq!(decode_all(b"ggggggQ"), None, "over 32 bits");
        assert_eq!(decode_all(b"gggggggB"), None, "a digit past 32 bits");
        // Zero digits past 32 bits do not change the value (the spec bounds values only).
        assert_eq!(decode_all(b"iggggggggggggA"), Some(vec![1]));
    }
}
