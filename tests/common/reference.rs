//! `symbolic`'s own SymCache conversion, the reference our native converter is checked
//! against (shared by `tests/corpus_native.rs` and `benches/native.rs`).

/// symbolic's own conversion of every object of `bytes` (`process_object`), names demangled
/// and clone suffixes dropped by a transformer, as a reference.
pub fn reference_symcaches(bytes: &[u8]) -> Vec<Vec<u8>> {
    use std::collections::HashMap;
    use symbolic::common::{Language, Name, NameMangling};
    use symbolic::demangle::{Demangle, DemangleOptions};
    use symbolic::symcache::transform::{Function, Transformer};
    struct Clean(HashMap<String, String>);
    impl Transformer for Clean {
        fn transform_function<'f>(&'f mut self, mut f: Function<'f>) -> Function<'f> {
            let clean = self.0.entry(f.name.to_string()).or_insert_with_key(|raw| {
                let name = Name::new(raw.as_str(), NameMangling::Unknown, Language::Unknown);
                let demangled = name.try_demangle(DemangleOptions::complete());
                symscope::symbols::native::without_clone_suffix(&demangled).to_owned()
            });
            f.name = std::borrow::Cow::Owned(clean.clone());
            f
        }
    }
    let archive = symbolic::debuginfo::Archive::parse(bytes).unwrap();
    archive
        .objects()
        .map(|object| {
            let mut converter = symbolic::symcache::SymCacheConverter::new();
            converter.add_transformer(Clean(HashMap::new()));
            converter.process_object(&object.unwrap()).unwrap();
            let mut out = Vec::new();
            converter.serialize(&mut out).unwrap();
            out
        })
        .collect()
}
