//! Function names as users read them: demangled (C++, Rust), without GCC's clone suffixes.

use std::borrow::Cow;
use std::sync::Arc;
use symbolic::common::{Language, Name, NameMangling};
use symbolic::demangle::{Demangle, DemangleOptions};
use symbolic::symcache::transform::{Function, Transformer};

/// A function name without GCC's clone suffixes (`f.cold`, `f.part.0`, `f.isra.0`,
/// `f.constprop.0`, `f.lto_priv.0`): the symbol-table names of split or specialised copies,
/// where DWARF (and llvm-symbolizer) name the source function `f`.
pub fn without_clone_suffix(name: &str) -> &str {
    let mut name = name;
    loop {
        let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let trimmed = if trimmed.len() < name.len() {
            trimmed.strip_suffix('.').unwrap_or(name)
        } else {
            name
        };
        let next = [
            ".cold",
            ".part",
            ".isra",
            ".constprop",
            ".lto_priv",
            ".localalias",
        ]
        .iter()
        .find_map(|s| trimmed.strip_suffix(s))
        .filter(|rest| !rest.is_empty());
        match next {
            Some(rest) => name = rest,
            None => return name,
        }
    }
}

/// The demangled, clone-suffix-free form of a function name (C++, Rust legacy and v0; the
/// language is told from the name), or `None` when `raw` is already clean.
pub fn clean_name(raw: &str) -> Option<String> {
    let name = Name::new(raw, NameMangling::Unknown, Language::Unknown);
    let demangled = name.try_demangle(DemangleOptions::complete());
    let clean = without_clone_suffix(&demangled);
    (clean != raw).then(|| clean.to_owned())
}

/// Clean function names as the SymCache is written. Each distinct name is demangled once:
/// an optimised binary inlines the same functions thousands of times.
#[derive(Default)]
struct NameCleaner {
    /// Mangled name → clean name (`None`: the name stays as it is).
    seen: std::collections::HashMap<String, Option<Arc<str>>>,
}

impl NameCleaner {
    /// The clean form of `raw`, or `None` when it is already clean.
    fn clean(&mut self, raw: &str) -> Option<Arc<str>> {
        if let Some(known) = self.seen.get(raw) {
            return known.clone();
        }
        let clean: Option<Arc<str>> = clean_name(raw).map(Arc::from);
        self.seen.insert(raw.to_owned(), clean.clone());
        clean
    }
}

/// The [`NameCleaner`] as a SymCache transformer, for the objects converted through
/// `symbolic`'s own `process_object` (PE and PDB, whose names it also undecorates).
#[derive(Default)]
pub(super) struct Demangler(NameCleaner);

impl Transformer for Demangler {
    fn transform_function<'f>(&'f mut self, mut f: Function<'f>) -> Function<'f> {
        if let Some(clean) = self.0.clean(&f.name) {
            f.name = Cow::Owned(clean.to_string());
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clone_suffixes() {
        assert_eq!(
            without_clone_suffix("cxx_pipeline_run.cold"),
            "cxx_pipeline_run"
        );
        assert_eq!(without_clone_suffix("f.part.0"), "f");
        assert_eq!(without_clone_suffix("f.isra.0.cold"), "f");
        assert_eq!(without_clone_suffix("f.constprop.12"), "f");
        assert_eq!(without_clone_suffix("v2.0"), "v2.0");
        assert_eq!(without_clone_suffix(".cold"), ".cold");
        assert_eq!(without_clone_suffix("ns::f(int)"), "ns::f(int)");
    }
}
