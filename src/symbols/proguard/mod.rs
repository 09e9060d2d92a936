//! Android ProGuard/R8 mappings: a lazy class-header index over `mapping.txt`, and
//! deobfuscation as R8's retrace does it, on only the classes a trace names.
//!
//! Real mappings run to tens or hundreds of MB, and the `proguard` crate parses a whole one
//! before its first answer (`cargo bench --bench proguard` runs it in the same process); a trace names a
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
//!   inlined members come from (for their R8 `sourceFile`), and their member lines are read
//!   with the crate's line parser ([`proguard::ProguardRecord`]). R8's JSON headers are read
//!   leniently, as R8 reads them (single quotes, unquoted keys).
//! - **R8's choice** (`r8.rs`): which member lines answer a frame and how they group into
//!   candidate chains is R8's retrace's rule (partitions by outermost signature, the position
//!   rules for frames with no line, ambiguous original ranges); the first candidate resolves
//!   the frame, the rest are alternatives, de-duplicated and sorted as retrace does. Then:
//!   `rewriteFrame`'s `removeInnerFrames` when its `throws(…)` holds for the first frame after
//!   the throwable (R8 knows no other condition); an outermost frame of a method R8 marks
//!   `synthesized` or `outline` hidden (a candidate left empty is dropped, so an ambiguity
//!   between a synthesized and a real method resolves to the real one); an outline frame
//!   carries its position to the next frame, whose `outlineCallsite` maps it to the caller's
//!   position (outlines in outlines, inlining in outlines). File names are retrace's: the
//!   class's `sourceFile`, else the outer class's name with the printed frame's extension
//!   (`.kt` kept), `Native Method` kept. A line no range holds deobfuscates the class alone
//!   and names the methods of that name in the note.
//!
//! Why ours and not the crate's remapper: each rule above has a reference case of R8's own in
//! `tests/fixtures/java/r8-retrace` that the crate's answer fails (all 65 agree with ours), and
//! not building the crate's cache over the cut-out classes halves the cold time
//! (`cargo bench --bench proguard`). `tests/proguard_oracle/` still compares every frame of
//! real mappings with the crate, allowing only the documented R8 rules.
//!
//! A class line with text after its final `:` is not a class line (no ProGuard or R8 version
//! writes one).

mod index;
mod r8;

pub use index::{Mapping, MappingError};

use r8::MemberLine;

use proguard::{ProguardMapping, ProguardRecord, class_name_to_descriptor};
use std::collections::{BTreeSet, HashMap};

/// One original frame of a deobfuscated frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OriginalFrame {
    /// Fully qualified original class.
    pub class: String,
    /// Original method name.
    pub method: String,
    /// Source file name as retrace prints it (`Foo.java`, `Foo.kt`, R8's `sourceFile`).
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
    /// Methods of that name are there, but none with the frame's return and argument types.
    SignatureNotInMapping,
}

/// A frame's obfuscated signature, when its printer gives one (a JVM's perf map names
/// compiled code `RET CLASS.METHOD(ARGS)`): it tells apart methods sharing an obfuscated name.
#[derive(Clone, Copy, Debug)]
pub struct Signature<'a> {
    /// The return type as printed (obfuscated class names, `[]` for arrays).
    pub returns: &'a str,
    /// The argument types as printed.
    pub arguments: &'a [&'a str],
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
    /// A method R8 marked `synthesized` (a lambda's class, a bridge): retrace hides it.
    Synthesized,
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

/// The blocks of some classes of a mapping, their member lines read.
pub struct Subset {
    /// Obfuscated class → original class, for every class cut out (members or not: the
    /// a class with no members still names an exception).
    class_names: HashMap<String, String>,
    /// Original class → the file R8's `sourceFile` header names.
    source_files: HashMap<String, String>,
    /// Obfuscated class → obfuscated method → member lines in file order.
    members: HashMap<String, HashMap<String, Vec<MemberLine>>>,
    /// Classes whose blocks were cut out.
    classes: usize,
    /// Bytes of mapping text cut out.
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
            push_block(&mut text, self.block(i));
            if !text.ends_with(b"\n") {
                text.push(b'\n');
            }
        }
        let mut members: HashMap<String, HashMap<String, Vec<MemberLine>>> = HashMap::new();
        let mut class: Option<(&str, &str)> = None;
        let mut class_names = HashMap::new();
        let mut source_files = HashMap::new();
        // The member a `synthesized` header after it marks (`None` right after a class line).
        let mut last_member: Option<(String, String)> = None;
        // Line by line (the crate's iterator does not say which line a header came from,
        // and does not export its header type): R8's JSON headers are read here.
        for raw in text.split(|&c| c == b'\n') {
            if raw.trim_ascii_start().starts_with(b"#") {
                let Some(h) = r8_header(raw) else { continue };
                // The member a header follows, if any.
                let member = last_member
                    .as_ref()
                    .and_then(|(c, o)| members.get_mut(c)?.get_mut(o)?.last_mut());
                match (h.id.as_str(), member) {
                    ("sourceFile", None) => {
                        if let Some((_, original)) = class {
                            source_files.insert(original.to_owned(), h.file_name);
                        }
                    }
                    ("com.android.tools.r8.synthesized", Some(m)) => m.synthesized = true,
                    ("com.android.tools.r8.outline", Some(m)) => m.outline = true,
                    ("com.android.tools.r8.outlineCallsite", Some(m)) => {
                        let mut positions: Vec<(usize, usize)> = h
                            .positions
                            .iter()
                            .filter_map(|(k, &v)| Some((k.parse().ok()?, v)))
                            .collect();
                        positions.sort_unstable();
                        m.callsite = positions;
                    }
                    ("com.android.tools.r8.rewriteFrame", Some(m)) => {
                        let remove = h
                            .actions
                            .iter()
                            .filter_map(|a| {
                                a.strip_prefix("removeInnerFrames(")?
                                    .strip_suffix(')')?
                                    .parse::<usize>()
                                    .ok()
                            })
                            .sum();
                        m.rewrites.push(r8::Rewrite {
                            conditions: h.conditions,
                            remove_inner_frames: remove,
                        });
                    }
                    _ => {}
                }
                continue;
            }
            let Ok(record) = ProguardRecord::try_parse(raw) else {
                continue;
            };
            match record {
                ProguardRecord::Class {
                    obfuscated,
                    original,
                } => {
                    class = Some((obfuscated, original));
                    class_names.insert(obfuscated.to_owned(), original.to_owned());
                    last_member = None;
                }
                ProguardRecord::Method {
                    ty,
                    obfuscated,
                    original,
                    arguments,
                    original_class,
                    line_mapping,
                } => {
                    let Some((class, class_original)) = class else {
                        continue;
                    };
                    let minified = line_mapping.and_then(|l| range(l.startline, l.endline));
                    let original_range =
                        line_mapping.and_then(|l| range(l.original_startline, l.original_endline));
                    let owner = original_class.unwrap_or(class_original);
                    let list = members
                        .entry(class.to_owned())
                        .or_default()
                        .entry(obfuscated.to_owned())
                        .or_default();
                    list.push(MemberLine {
                        minified,
                        original: original_range,
                        class: owner.to_owned(),
                        name: original.to_owned(),
                        signature: format!("{ty} {owner}.{original}({arguments})"),
                        synthesized: false,
                        outline: false,
                        callsite: Vec::new(),
                        rewrites: Vec::new(),
                    });
                    last_member = Some((class.to_owned(), obfuscated.to_owned()));
                }
                _ => {}
            }
        }
        // R8 keeps `synthesized` and `outline` on the method (its original signature and
        // obfuscated name), not on the one line the header follows.
        for lines in members.values_mut().flat_map(HashMap::values_mut) {
            r8::share_method_flags(lines);
        }
        Subset {
            class_names,
            source_files,
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

    /// Bytes of mapping text cut out.
    pub fn text_bytes(&self) -> usize {
        self.text_bytes
    }

    /// A remapper for one throwable's frames (outline positions and `rewriteFrame` rules
    /// do not cross from one `Caused by:` to the next, as in retrace).
    pub fn stack(&self) -> StackRemapper<'_> {
        StackRemapper {
            subset: self,
            descriptor: None,
            can_rewrite: false,
            outline_position: None,
        }
    }
}

/// Deobfuscates the frames of one throwable in order.
pub struct StackRemapper<'s> {
    subset: &'s Subset,
    /// The throwable's class as a descriptor, for `throws(…)` conditions.
    descriptor: Option<String>,
    /// Whether the next frame is the first after the throwable (the only one rewrite rules
    /// apply to).
    can_rewrite: bool,
    /// The obfuscated position of the outline the previous frame was in: the next frame's
    /// `outlineCallsite` says where in it the outlined code was.
    outline_position: Option<usize>,
}

impl StackRemapper<'_> {
    /// The original name of an obfuscated class.
    pub fn remap_class(&self, obfuscated: &str) -> Option<String> {
        self.subset.class_names.get(obfuscated).cloned()
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
        self.frame_with_signature(class, method, file, line, None)
    }

    /// A type as the original program names it (`a.b[]` → `com.example.Point[]`).
    fn original_type(&self, printed: &str) -> String {
        let base = printed.trim_end_matches("[]");
        let dims = &printed[base.len()..];
        let base = self
            .subset
            .class_names
            .get(base)
            .map_or(base, String::as_str);
        format!("{base}{dims}")
    }

    /// Whether a member's original signature (`RET owner.name(ARGS)`) has the return and
    /// argument types of `signature`, deobfuscated.
    fn same_signature(&self, original: &str, signature: Signature<'_>) -> bool {
        let Some((returns, rest)) = original.split_once(' ') else {
            return false;
        };
        let Some(arguments) = rest
            .rfind('(')
            .and_then(|open| rest[open + 1..].strip_suffix(')'))
        else {
            return false;
        };
        let mut theirs = arguments
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty());
        returns == self.original_type(signature.returns)
            && signature
                .arguments
                .iter()
                .all(|a| theirs.next() == Some(self.original_type(a).as_str()))
            && theirs.next().is_none()
    }

    /// Deobfuscates the next frame, its candidates narrowed to the methods of `signature`
    /// when given (as retrace does when its pattern reads the types).
    pub fn frame_with_signature(
        &mut self,
        class: &str,
        method: &str,
        file: Option<&str>,
        line: Option<u32>,
        signature: Option<Signature<'_>>,
    ) -> Remapped {
        let rewrite = std::mem::take(&mut self.can_rewrite);
        let outline_position = self.outline_position.take();
        let Some(original_class) = self.subset.class_names.get(class) else {
            return Remapped::NotInMapping;
        };
        let class_only = |reason, by_name| Remapped::ClassOnly {
            frame: OriginalFrame {
                class: original_class.clone(),
                method: method.to_owned(),
                file: self.file_for(original_class, file),
                line: line.filter(|&l| l > 0),
            },
            reason,
            by_name,
        };
        // Looked up by `&str`: no allocation per frame.
        let Some(members) = self
            .subset
            .members
            .get(class)
            .and_then(|m| m.get(method))
            .filter(|m| !m.is_empty())
        else {
            return class_only(ClassOnlyReason::MethodNotInMapping, Vec::new());
        };
        let mut line = line.filter(|&l| l > 0);
        // The frame after an outline: its callsite says which of its positions ran.
        if let (Some(p), Some(l)) = (outline_position, line)
            && let Some(at) = r8::callsite_position(members, l, p)
        {
            line = Some(at);
        }
        let Some(mut picks) = r8::candidates(members, line) else {
            return class_only(ClassOnlyReason::LineOutsideRanges, self.by_name(members));
        };
        if let Some(signature) = signature {
            picks.retain(|chain| {
                chain
                    .last()
                    .is_some_and(|p| self.same_signature(&members[p.member].signature, signature))
            });
            if picks.is_empty() {
                return class_only(
                    ClassOnlyReason::SignatureNotInMapping,
                    self.by_name(members),
                );
            }
        }
        // Rules ride on lines: a frame answered by its methods alone has none.
        let rewrite = rewrite && !r8::method_only(members, line);
        let mut candidates: Vec<Vec<OriginalFrame>> = Vec::new();
        let mut outline = false;
        let mut rewritten = false;
        for chain in picks {
            let outermost = chain.last().map(|p| &members[p.member]);
            outline |= outermost.is_some_and(|m| m.outline);
            let mut frames: Vec<OriginalFrame> = chain
                .iter()
                .map(|p| {
                    let m = &members[p.member];
                    OriginalFrame {
                        class: m.class.clone(),
                        method: m.name.clone(),
                        file: self.file_for(&m.class, file),
                        line: p.line,
                    }
                })
                .collect();
            if rewrite {
                let remove = self.removed_inner_frames(members, &chain);
                if remove > 0 && remove <= frames.len() {
                    frames.drain(..remove);
                    rewritten = true;
                }
            }
            // Retrace hides an outermost frame the compiler made (synthesized, an outline).
            if outermost.is_some_and(|m| m.synthesized || m.outline) && !frames.is_empty() {
                frames.pop();
            }
            if !frames.is_empty() {
                candidates.push(frames);
            }
        }
        if outline {
            self.outline_position = line.map(|l| l as usize);
        }
        if candidates.is_empty() {
            return if outline {
                Remapped::Outline
            } else if rewritten {
                Remapped::Removed
            } else {
                Remapped::Synthesized
            };
        }
        Remapped::Frames {
            candidates: r8_order(candidates, line.is_some()),
            by_line: line.is_some(),
        }
    }

    /// How many inner frames the chain's `rewriteFrame` rules remove for the throwable
    /// declared (`throws(Lpkg/Cls;)` conditions; `removeInnerFrames(n)` actions).
    fn removed_inner_frames(&self, members: &[MemberLine], chain: &[r8::Pick]) -> usize {
        let Some(thrown) = self.descriptor.as_deref() else {
            return 0;
        };
        let mut n = 0;
        for p in chain {
            for rule in &members[p.member].rewrites {
                let holds = rule.conditions.iter().all(|c| {
                    c.strip_prefix("throws(")
                        .and_then(|c| c.strip_suffix(')'))
                        .is_some_and(|d| d == thrown)
                });
                if holds && !rule.conditions.is_empty() {
                    n += rule.remove_inner_frames;
                }
            }
        }
        n
    }

    /// The file R8's retrace prints for a frame of original class `class`: the class's
    /// `sourceFile` header, else the outer class's simple name with the extension of the
    /// file the obfuscated frame printed (`.kt` stays `.kt`, a `…Kt` class is `….kt`, any
    /// other is `.java`); `Native Method` is kept.
    fn file_for(&self, class: &str, printed: Option<&str>) -> Option<String> {
        if printed == Some(NATIVE_METHOD) {
            return Some(NATIVE_METHOD.to_owned());
        }
        if let Some(f) = self.subset.source_files.get(class) {
            return Some(f.clone());
        }
        let simple = class.rsplit('.').next().unwrap_or(class);
        let simple = simple
            .split('$')
            .next()
            .filter(|s| !s.is_empty())
            .unwrap_or(simple);
        let ext = printed
            .and_then(|p| p.rsplit_once('.'))
            .map_or("", |(_, e)| e);
        Some(match simple.strip_suffix("Kt") {
            Some(base) if ext.is_empty() || ext == "kt" => format!("{base}.kt"),
            _ if ext == "kt" => format!("{simple}.kt"),
            _ => format!("{simple}.java"),
        })
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
                    .is_none_or(|next| next.minified != m.minified || m.minified.is_none())
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

/// A line range as written (`a:b` in either order, `a` alone as `a:a`).
fn range(start: Option<usize>, end: Option<usize>) -> Option<(usize, usize)> {
    let a = start?;
    let b = end.unwrap_or(a);
    Some((a.min(b), a.max(b)))
}

/// The fields of an R8 JSON header (`# {"id":"sourceFile","fileName":"Foo.kt"}`) that
/// retrace reads.
#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Header {
    id: String,
    file_name: String,
    conditions: Vec<String>,
    actions: Vec<String>,
    /// `outlineCallsite`: outline position → position in the caller.
    positions: std::collections::BTreeMap<String, usize>,
}

/// The R8 header of a `#` line, if it is one (after [`push_block`], strict JSON).
fn r8_header(line: &[u8]) -> Option<Header> {
    let text = std::str::from_utf8(line).ok()?.trim();
    serde_json::from_str(text.strip_prefix('#')?.trim()).ok()
}

/// Appends a class block, its R8 headers rewritten as strict JSON: R8 reads them leniently
/// (Gson), and mappings carry single quotes and unquoted keys
/// (`# { id: 'com.android.tools.r8.outline' }`), which the crate's strict reader would skip.
fn push_block(out: &mut Vec<u8>, block: &[u8]) {
    let mut rest = block;
    while !rest.is_empty() {
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        match lenient_header(line) {
            Some((indent, json)) => {
                out.extend_from_slice(indent);
                out.extend_from_slice(b"# ");
                out.extend_from_slice(json.as_bytes());
                out.push(b'\n');
            }
            None => out.extend_from_slice(line),
        }
    }
}

/// A `#` line whose JSON only a lenient reader accepts: its indentation and the JSON
/// rewritten strictly.
fn lenient_header(line: &[u8]) -> Option<(&[u8], String)> {
    let trimmed = line.trim_ascii_start();
    let json = trimmed.strip_prefix(b"#")?.trim_ascii();
    if !json.starts_with(b"{") {
        return None;
    }
    let json = std::str::from_utf8(json).ok()?;
    if serde_json::from_str::<serde::de::IgnoredAny>(json).is_ok() {
        return None;
    }
    let value: serde_json::Value = json5::from_str(json).ok()?;
    Some((&line[..line.len() - trimmed.len()], value.to_string()))
}

/// How `(Native Method)` frames name their file.
pub const NATIVE_METHOD: &str = "Native Method";

/// Candidates as R8's retrace lists them: a candidate whose top frame repeats an earlier
/// one's (class, method name, file and, when the frame had a line, line) is dropped whole,
/// and the rest are sorted by their top frame (class, method, file, line), stably.
fn r8_order(mut chains: Vec<Vec<OriginalFrame>>, by_line: bool) -> Vec<Vec<OriginalFrame>> {
    // Borrowed keys: nothing is copied to compare.
    fn key(c: &[OriginalFrame]) -> Option<(&str, &str, Option<&str>, Option<u32>)> {
        c.first().map(|f| {
            (
                f.class.as_str(),
                f.method.as_str(),
                f.file.as_deref(),
                f.line,
            )
        })
    }
    let mut keep = Vec::with_capacity(chains.len());
    {
        let mut seen = BTreeSet::new();
        for c in &chains {
            let top = key(c).map(|(c, m, f, l)| (c, m, f, l.filter(|_| by_line)));
            keep.push(seen.insert(top));
        }
    }
    let mut keep = keep.into_iter();
    chains.retain(|_| keep.next().unwrap_or(true));
    chains.sort_by(|a, b| key(a).cmp(&key(b)));
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
        // Two candidates (processAll's range and the lambda's both hold line 20), sorted by
        // method name as retrace sorts them.
        assert_eq!(
            frames(&st.frame("com.example.shop.c.a", "a", Some("SourceFile"), Some(20))),
            vec![
                vec![
                    "com.example.shop.service.OrderService.lambda$processAll$1(OrderService.java:20)"
                ],
                vec!["com.example.shop.service.OrderService.processAll(OrderService.java:20)"],
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
