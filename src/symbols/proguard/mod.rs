//! Android ProGuard/R8 mappings: a lazy class-header index over `mapping.txt`, and
//! deobfuscation through the `proguard` crate on only the classes a trace names.
//!
//! Real mappings run to tens or hundreds of MB, and the crate parses a whole one before its
//! first answer (`cargo bench --bench proguard` runs it in the same process); a trace names a
//! few dozen classes.
//! - **Index** ([`Mapping`], `index.rs`): class lines (`original.Name -> obf.Name:`) are the
//!   only lines ending in `:`, so one memmem pass for `":\n"` (and `":\r\n"`) finds them all
//!   without visiting member lines. The pass is cut into chunks (run on every core through the
//!   caller's runner); each class line's names are hashed while the line is in cache, into
//!   open-addressing tables. A class's block runs to the next class line. `# pg_map_id:` and
//!   `# compiler:` are read from the lines before the first class. The index can be written
//!   out and read back (the engine's cache), checked against the file.
//! - **Look-up** ([`Mapping::subset`]): the blocks of the classes the trace names (frames,
//!   headers, class names in messages) are cut out, with the blocks of the classes their
//!   inlined members come from (whose R8 `sourceFile` the crate reads), and the crate's
//!   [`proguard::ProguardCache`] is built over that small text. The remapping (line ranges,
//!   inline chains, R8 outlines and `outlineCallsite`, `rewriteFrame`, synthesized members) is
//!   the crate's, frame by frame.
//! - **Candidates**: members of one obfuscated name whose range holds the frame's line are
//!   grouped into chains (consecutive members with the same range are one inline chain); the
//!   first chain resolves the frame, the rest are alternatives. A line outside every range
//!   deobfuscates the class only and lists the methods of that name; a frame without a line
//!   is matched by name.
//!
//! Where our answer differs from the crate's `ProguardMapper`, on purpose: a frame whose
//! method or line is not in the mapping gets its class's R8 `sourceFile` (`Foo.kt`), as the
//! crate's `ProguardCache` gives it, where the mapper makes a file name up from the input
//! frame's extension (`tests/proguard_oracle.rs` requires equality with the cache everywhere
//! and with the mapper everywhere but this); and a class line with text after its final `:`
//! is not a class line (no ProGuard or R8 version writes one).

mod index;

pub use index::{Mapping, MappingError};

use proguard::{
    ProguardCache, ProguardMapping, ProguardRecord, StackFrame, class_name_to_descriptor,
};
use std::collections::{BTreeSet, HashMap};

/// One original frame of a deobfuscated frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OriginalFrame {
    /// Fully qualified original class.
    pub class: String,
    /// Original method name.
    pub method: String,
    /// Source file name as the JVM prints it (`Foo.java`), as the crate synthesizes it.
    pub file: Option<String>,
    /// Original line, when known.
    pub line: Option<u32>,
}

/// Why only the class of a frame could be deobfuscated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassOnlyReason {
    /// The mapping has no member with the frame's method name.
    MethodNotInMapping,
    /// The method is there, but no line range holds the frame's line.
    LineOutsideRanges,
}

/// How one obfuscated frame was deobfuscated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remapped {
    /// The class is not in the mapping: not obfuscated (a platform or kept library class).
    NotInMapping,
    /// An R8 outline: its position is carried into the next frame, and retrace hides it.
    Outline,
    /// Removed by an R8 `rewriteFrame` rule (a frame the compiler added, such as a
    /// synthesized null check).
    Removed,
    /// Only the class is known; `frame` keeps the obfuscated method name and line.
    ClassOnly {
        /// The frame with its class deobfuscated.
        frame: OriginalFrame,
        /// Why.
        reason: ClassOnlyReason,
        /// Methods with the frame's obfuscated name, matched by name only.
        by_name: Vec<OriginalFrame>,
    },
    /// Deobfuscated: the possible inline chains (innermost first), best first.
    Frames {
        /// Candidate chains; more than one when the mapping is ambiguous.
        candidates: Vec<Vec<OriginalFrame>>,
        /// Whether a line range chose them (false: matched by name, the frame had no line).
        by_line: bool,
    },
}

/// One member line of a class block, as far as grouping candidates needs it.
#[derive(Clone, Debug)]
struct MemberLine {
    start: usize,
    end: usize,
    /// Original class of the method (another class's, for an inlined one).
    class: String,
    /// Original method name.
    name: String,
}

/// The blocks of some classes of a mapping, ready for the crate.
pub struct Subset {
    cache: Vec<u8>,
    /// Obfuscated class → obfuscated method → member lines in file order.
    members: HashMap<String, HashMap<String, Vec<MemberLine>>>,
    /// Classes whose blocks were cut out.
    classes: usize,
    /// Bytes of mapping text handed to the crate.
    text_bytes: usize,
}

impl std::fmt::Debug for Subset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subset")
            .field("classes", &self.classes)
            .field("text_bytes", &self.text_bytes)
            .finish()
    }
}

impl Mapping {
    /// Cuts out the blocks of the named obfuscated classes (names not in the mapping are
    /// ignored), plus the blocks of the original classes their inlined members come from,
    /// and builds the crate's cache over them.
    pub fn subset<'a>(&self, obfuscated: impl IntoIterator<Item = &'a str>) -> Subset {
        let mut picked: BTreeSet<usize> = BTreeSet::new();
        for name in obfuscated {
            picked.extend(self.classes_by_obfuscated(name));
        }
        let mut receivers: BTreeSet<&str> = BTreeSet::new();
        for &i in &picked {
            for record in ProguardMapping::new(self.block(i)).iter().flatten() {
                if let ProguardRecord::Method {
                    original_class: Some(c),
                    ..
                } = record
                {
                    receivers.insert(c);
                }
            }
        }
        let mut all = picked.clone();
        for r in receivers {
            all.extend(self.classes_by_original(r));
        }
        let mut text: Vec<u8> = Vec::new();
        for &i in &all {
            text.extend_from_slice(self.block(i));
            if !text.ends_with(b"\n") {
                text.push(b'\n');
            }
        }
        let mapping = ProguardMapping::new(&text);
        let mut members: HashMap<String, HashMap<String, Vec<MemberLine>>> = HashMap::new();
        let mut class: Option<(&str, &str)> = None;
        for record in mapping.iter().flatten() {
            match record {
                ProguardRecord::Class {
                    obfuscated,
                    original,
                } => class = Some((obfuscated, original)),
                ProguardRecord::Method {
                    obfuscated,
                    original,
                    original_class,
                    line_mapping,
                    ..
                } => {
                    let Some((class, class_original)) = class else {
                        continue;
                    };
                    let (mut start, mut end) = line_mapping
                        .map(|l| (l.startline.unwrap_or(0), l.endline.unwrap_or(0)))
                        .unwrap_or((0, 0));
                    if start > end {
                        std::mem::swap(&mut start, &mut end);
                    }
                    members
                        .entry(class.to_owned())
                        .or_default()
                        .entry(obfuscated.to_owned())
                        .or_default()
                        .push(MemberLine {
                            start,
                            end,
                            class: original_class.unwrap_or(class_original).to_owned(),
                            name: original.to_owned(),
                        });
                }
                _ => {}
            }
        }
        let mut cache = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = ProguardCache::write(&mapping, &mut cache);
        Subset {
            cache,
            members,
            classes: all.len(),
            text_bytes: text.len(),
        }
    }
}

impl Subset {
    /// Number of class blocks cut out.
    pub fn class_count(&self) -> usize {
        self.classes
    }

    /// Bytes of mapping text the crate parsed.
    pub fn text_bytes(&self) -> usize {
        self.text_bytes
    }

    /// A remapper for one throwable's frames (outline positions and `rewriteFrame` rules
    /// do not cross from one `Caused by:` to the next, as in the crate).
    pub fn stack(&self) -> StackRemapper<'_> {
        StackRemapper {
            subset: self,
            cache: ProguardCache::parse(&self.cache).ok(),
            descriptor: None,
            can_rewrite: false,
            carried: None,
        }
    }
}

/// Deobfuscates the frames of one throwable in order.
pub struct StackRemapper<'s> {
    subset: &'s Subset,
    cache: Option<ProguardCache<'s>>,
    descriptor: Option<String>,
    can_rewrite: bool,
    carried: Option<usize>,
}

impl StackRemapper<'_> {
    /// The original name of an obfuscated class.
    pub fn remap_class(&self, obfuscated: &str) -> Option<String> {
        self.cache
            .as_ref()?
            .remap_class(obfuscated)
            .map(str::to_owned)
    }

    /// Declares the throwable's class (obfuscated, as printed): its `rewriteFrame` rules
    /// apply to the next frame. Returns the original class name, if the class is mapped.
    pub fn throwable(&mut self, class: &str) -> Option<String> {
        let original = self.remap_class(class);
        self.descriptor = Some(class_name_to_descriptor(
            original.as_deref().unwrap_or(class),
        ));
        self.can_rewrite = true;
        original
    }

    /// Deobfuscates the next frame.
    pub fn frame(
        &mut self,
        class: &str,
        method: &str,
        file: Option<&str>,
        line: Option<u32>,
    ) -> Remapped {
        let Some(cache) = self.cache.as_ref() else {
            return Remapped::NotInMapping;
        };
        let line = line.unwrap_or(0) as usize;
        let frame = match file {
            Some(f) => StackFrame::with_file(class, method, line, f),
            None => StackFrame::new(class, method, line),
        };
        let Some(iter) = cache.remap_frame_with_context(
            &frame,
            self.descriptor.as_deref(),
            self.can_rewrite,
            &mut self.carried,
        ) else {
            return Remapped::Outline;
        };
        self.can_rewrite = false;
        let had_mappings = iter.had_mappings();
        let out: Vec<OriginalFrame> = iter.map(|f| original(&f)).collect();
        if out.is_empty() {
            return if had_mappings {
                Remapped::Removed
            } else {
                Remapped::NotInMapping
            };
        }
        let empty = Vec::new();
        // Looked up by `&str`: no allocation per frame.
        let members = self
            .subset
            .members
            .get(class)
            .and_then(|m| m.get(method))
            .unwrap_or(&empty);
        let has_line_info = members.iter().any(|m| m.end > 0);
        if members.is_empty() {
            return class_only(out, ClassOnlyReason::MethodNotInMapping, Vec::new());
        }
        let in_range = |m: &MemberLine| m.end > 0 && m.start <= line && line <= m.end;
        if line > 0 && has_line_info && !members.iter().any(in_range) {
            let by_name = self.by_name(members);
            return class_only(out, ClassOnlyReason::LineOutsideRanges, by_name);
        }
        let by_line = line > 0 && has_line_info;
        let candidates = if by_line {
            // Members whose range holds the line, in file order; consecutive members with
            // the same range are one inline chain (callee first), as R8 and ProGuard write
            // them. The crate emits exactly these, minus any a rewrite rule removed first.
            let mut sizes: Vec<usize> = Vec::new();
            let mut last: Option<(usize, usize)> = None;
            for m in members.iter().filter(|m| in_range(m)) {
                if last == Some((m.start, m.end)) {
                    if let Some(n) = sizes.last_mut() {
                        *n += 1;
                    }
                } else {
                    sizes.push(1);
                    last = Some((m.start, m.end));
                }
            }
            split_chains(out, &sizes)
        } else {
            out.into_iter().map(|f| vec![f]).collect()
        };
        Remapped::Frames {
            candidates,
            by_line,
        }
    }

    /// Every method with this obfuscated name, matched by name only: the outermost member
    /// of each range group (inlined callees excluded), each original method once.
    fn by_name(&self, members: &[MemberLine]) -> Vec<OriginalFrame> {
        let mut seen = BTreeSet::new();
        members
            .iter()
            .enumerate()
            .filter(|&(i, m)| {
                members
                    .get(i + 1)
                    .is_none_or(|next| (next.start, next.end) != (m.start, m.end) || m.end == 0)
            })
            .filter(|(_, m)| seen.insert((m.class.as_str(), m.name.as_str())))
            .map(|(_, m)| OriginalFrame {
                class: m.class.clone(),
                method: m.name.clone(),
                file: None,
                line: None,
            })
            .collect()
    }
}

fn original(f: &StackFrame<'_>) -> OriginalFrame {
    OriginalFrame {
        class: f.class().to_owned(),
        method: f.method().to_owned(),
        file: f.file().map(str::to_owned),
        line: f
            .line()
            .and_then(|l| u32::try_from(l).ok())
            .filter(|&l| l > 0),
    }
}

fn class_only(
    mut out: Vec<OriginalFrame>,
    reason: ClassOnlyReason,
    by_name: Vec<OriginalFrame>,
) -> Remapped {
    let frame = out.swap_remove(0);
    Remapped::ClassOnly {
        frame,
        reason,
        by_name,
    }
}

/// Splits the crate's flat output into chains of the given sizes; a rewrite rule removes
/// frames from the front. When the sizes do not account for the output, each frame is its
/// own candidate.
fn split_chains(out: Vec<OriginalFrame>, sizes: &[usize]) -> Vec<Vec<OriginalFrame>> {
    let total: usize = sizes.iter().sum();
    if total < out.len() || sizes.is_empty() {
        return out.into_iter().map(|f| vec![f]).collect();
    }
    let mut removed = total - out.len();
    let mut frames = out.into_iter();
    let mut chains = Vec::new();
    for &size in sizes {
        let keep = size.saturating_sub(removed);
        removed -= size - keep;
        let chain: Vec<OriginalFrame> = frames.by_ref().take(keep).collect();
        if !chain.is_empty() {
            chains.push(chain);
        }
    }
    chains
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Blob;

    const SHOP: &str = include_str!("../../../tests/fixtures/java/shop/shop-mapping.txt");

    fn frames(r: &Remapped) -> Vec<Vec<String>> {
        match r {
            Remapped::Frames { candidates, .. } => candidates
                .iter()
                .map(|c| {
                    c.iter()
                        .map(|f| {
                            format!(
                                "{}.{}({}:{})",
                                f.class,
                                f.method,
                                f.file.as_deref().unwrap_or("?"),
                                f.line.unwrap_or(0)
                            )
                        })
                        .collect()
                })
                .collect(),
            other => panic!("not frames: {other:?}"),
        }
    }

    #[test]
    fn inline_chains_and_ambiguity() {
        let m = Mapping::parse(Blob::from(SHOP)).unwrap();
        let s = m.subset(["com.example.shop.c.a"]);
        let mut st = s.stack();
        // One chain of two (priceOne inlined into the lambda).
        assert_eq!(
            frames(&st.frame("com.example.shop.c.a", "a", Some("SourceFile"), Some(1025))),
            vec![vec![
                "com.example.shop.service.OrderService.priceOne(OrderService.java:25)",
                "com.example.shop.service.OrderService.lambda$processAll$1(OrderService.java:20)"
            ]]
        );
        // Two candidates (processAll's range and the lambda's both hold line 20).
        assert_eq!(
            frames(&st.frame("com.example.shop.c.a", "a", Some("SourceFile"), Some(20))),
            vec![
                vec!["com.example.shop.service.OrderService.processAll(OrderService.java:20)"],
                vec![
                    "com.example.shop.service.OrderService.lambda$processAll$1(OrderService.java:20)"
                ]
            ]
        );
        assert_eq!(
            st.frame("java.lang.Thread", "run", None, Some(1)),
            Remapped::NotInMapping
        );
        match st.frame("com.example.shop.c.a", "a", Some("SourceFile"), Some(9999)) {
            Remapped::ClassOnly {
                frame,
                reason,
                by_name,
            } => {
                assert_eq!(frame.class, "com.example.shop.service.OrderService");
                assert_eq!(frame.method, "a");
                assert_eq!(reason, ClassOnlyReason::LineOutsideRanges);
                assert!(by_name.len() >= 2, "{by_name:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_subset_is_small() {
        let m = Mapping::parse(Blob::from(SHOP)).unwrap();
        let s = m.subset(["com.example.shop.a.b", "not.there"]);
        assert_eq!(s.class_count(), 1);
        assert!(s.text_bytes() < SHOP.len() / 4);
    }
}
