//! Metro's `x_facebook_sources` function maps: the enclosing function's name at any original
//! position, as `metro-symbolicate` shows it for React Native frames.
//!
//! Each `sources` entry has `null` or a metadata array whose first element is
//! `{ "names": [...], "mappings": "..." }`. The mappings are VLQ triples
//! `(column delta, name delta, line delta)` over original positions, lines 1-based and
//! columns 0-based, with the column reset at each `;`. The name at a position is the last
//! mapping at or before it, exactly as metro-symbolicate's `findEnclosingMapping`.

use super::vlq;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct RawFunctionMap {
    names: Vec<String>,
    mappings: String,
}

/// One source's decoded function map.
#[derive(Clone, Debug, Default)]
pub struct FunctionMap {
    /// `(line (1-based), column (0-based), name index)`, in file order.
    entries: Vec<(u32, u32, u32)>,
    names: Vec<String>,
}

impl FunctionMap {
    fn decode(raw: RawFunctionMap) -> Option<Self> {
        let mut entries = Vec::new();
        let mut line: i64 = 1;
        let mut name: i64 = 0;
        for line_mappings in raw.mappings.split(';') {
            let mut column: i64 = 0;
            for mapping in line_mappings.split(',').filter(|m| !m.is_empty()) {
                let v = vlq::decode_all(mapping.as_bytes())?;
                let (dc, dn, dl) = (*v.first()?, *v.get(1)?, v.get(2).copied().unwrap_or(0));
                line += dl;
                name += dn;
                column += dc;
                if line < 0 || column < 0 || name < 0 || name as usize >= raw.names.len() {
                    return None;
                }
                entries.push((line as u32, column as u32, name as u32));
            }
        }
        Some(Self {
            entries,
            names: raw.names,
        })
    }

    /// The name of the function enclosing `(line, column)` (1-based line, 0-based column).
    pub fn name_at(&self, line: u32, column: u32) -> Option<&str> {
        let k = self
            .entries
            .partition_point(|&(l, c, _)| (l, c) <= (line, column));
        let &(_, _, n) = self.entries.get(k.checked_sub(1)?)?;
        self.names.get(n as usize).map(String::as_str)
    }
}

/// All function maps of one source map, by source index.
#[derive(Clone, Debug, Default)]
pub struct FacebookSources {
    per_source: Vec<Option<FunctionMap>>,
}

impl FacebookSources {
    /// Parses the raw JSON value of `x_facebook_sources`; `None` if it is malformed.
    pub fn parse(raw: &[u8]) -> Option<Self> {
        let value: Vec<Option<Vec<serde_json::Value>>> = serde_json::from_slice(raw).ok()?;
        let per_source = value
            .into_iter()
            .map(|meta| {
                let first = meta?.into_iter().next()?;
                let raw: RawFunctionMap = serde_json::from_value(first).ok()?;
                FunctionMap::decode(raw)
            })
            .collect();
        Some(Self { per_source })
    }

    /// The enclosing function's name in source `idx` at `(line, column)` (1-based, 0-based).
    pub fn function_name(&self, idx: u32, line: u32, column: u32) -> Option<String> {
        let map = self.per_source.get(idx as usize)?.as_ref()?;
        map.name_at(line, column).map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enclosing_function() {
        // <global> from 1:0, foo from 2:4, <global> again from 5:0.
        let raw = br#"[null, [{"names": ["<global>", "foo"], "mappings": "AAA,ICC;ADG"}]]"#;
        let fb = FacebookSources::parse(raw).unwrap();
        assert_eq!(fb.function_name(0, 1, 0), None);
        assert_eq!(fb.function_name(1, 1, 0).as_deref(), Some("<global>"));
        assert_eq!(fb.function_name(1, 2, 3).as_deref(), Some("<global>"));
        assert_eq!(fb.function_name(1, 2, 4).as_deref(), Some("foo"));
        assert_eq!(fb.function_name(1, 4, 99).as_deref(), Some("foo"));
        assert_eq!(fb.function_name(1, 5, 0).as_deref(), Some("<global>"));
    }
}
