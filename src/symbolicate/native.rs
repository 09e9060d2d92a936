//! Native frames against native debug files. A frame's module finds its file by the
//! identifier the log prints (a tombstone's build ID, an Apple image's UUID, a minidump
//! module's debug ID: it picks the file and, in a universal file, the slice), else by name
//! (`crashy` ↔ `crashy`, `crashy.debug`, `crashy.sym`), files with line information first; a
//! stripped binary found by name hands over to the file with its build ID and line
//! information (the `.gnu_debuglink` and `.build-id/xx/rest.debug` routes). A file named like
//! the module but with another ID is refused (`no_symbols`, its note naming both IDs), never
//! used for wrong frames. The module offset is looked up, a caller's return address minus one
//! (a crash record's callers; sanitizer reports and tombstones print theirs as looked up).
//! A coverage report counts, per module, its frames, those resolved and its debug file.

use super::{Resolve, ResultSink, Summary, SymbolSet, timings, unresolved, walk};
use crate::model::{
    Coverage, FrameInput, FrameStatus, FrameView, ModuleCoverage, Progress, ResolvedLocation,
    SymbolicatedFrame, TraceView,
};
use crate::symbols::native::{NativeLocation, NativeObject};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::Instant;

/// Whether a symbol file named `file` describes module `module`.
fn names_module(file: &str, module: &str) -> bool {
    let stem = [".debug", ".sym", ".dbg"]
        .iter()
        .find_map(|ext| file.strip_suffix(ext))
        .unwrap_or(file);
    file == module || stem == module
}

/// Which native object a frame's module is looked up in.
#[derive(Clone)]
enum Found<'a> {
    /// This file's object.
    Object(usize, &'a NativeObject),
    /// Files named like the module exist, but for another build: their IDs differ from the
    /// module's (file name, its ID).
    Mismatch(String, String),
    /// No file for the module.
    Nothing,
}

/// The native object for a frame's module. An identifier the log prints (build ID, UUID,
/// debug ID) names the object exactly, in any file, picking the slice of a universal file;
/// files with line information come first. Without an identifier match, the module is
/// matched by name (with no module, the one file given): a file whose own identifier differs
/// from the log's is another build and is refused. A file found by name without line
/// information (a stripped binary) hands over to a file with the same build ID that has it
/// (its split debug file, whether found through `.gnu_debuglink` or a `.build-id/xx/rest.debug`
/// path: both hold the binary's build ID).
fn find<'a>(symbols: &'a SymbolSet, input: &FrameInput<&str>) -> Found<'a> {
    let files = &symbols.natives;
    if let Some(id) = input.build_id {
        let by_id: Vec<(usize, &NativeObject)> = files
            .iter()
            .enumerate()
            .filter_map(|(i, f)| Some((i, f.symbols.object_with_id(id)?)))
            .collect();
        if let Some(&(i, o)) = by_id
            .iter()
            .find(|(_, o)| o.info().has_debug_info)
            .or(by_id.first())
        {
            return Found::Object(i, o);
        }
    }
    let candidates: Vec<usize> = match input.module {
        Some(m) => (0..files.len())
            .filter(|&i| names_module(&files[i].name, m))
            .collect(),
        None => (0..files.len()).collect(),
    };
    if let Some(id) = input.build_id.filter(|id| !is_nil(id))
        && let Some(&i) = candidates.first()
    {
        // Named like the module, yet no object has the module's identifier.
        let theirs = files[i].symbols.info();
        return Found::Mismatch(
            files[i].name.clone(),
            format!(
                "{} (log: {id})",
                theirs.code_id.as_deref().unwrap_or(&theirs.debug_id)
            ),
        );
    }
    let arch = input.arch;
    let object = |i: usize| files[i].symbols.object_for_arch(arch);
    if let Some(i) = candidates
        .iter()
        .copied()
        .find(|&i| object(i).info().has_debug_info)
    {
        return Found::Object(i, object(i));
    }
    let Some(first) = candidates.first().copied() else {
        return Found::Nothing;
    };
    let code_id = object(first).info().code_id.clone();
    (0..files.len())
        .find_map(|j| {
            let o = files[j].symbols.object_for_arch(arch);
            (o.info().has_debug_info && code_id.is_some() && o.info().code_id == code_id)
                .then_some(Found::Object(j, o))
        })
        .unwrap_or(Found::Object(first, object(first)))
}

/// Whether an identifier is all zeros (an image the report could not identify).
fn is_nil(id: &str) -> bool {
    id.chars().filter(char::is_ascii_hexdigit).all(|c| c == '0')
}

/// A module as a frame names it: name, identifier, architecture.
type ModuleKey = (Option<String>, Option<String>, Option<String>);

/// [`find`] remembered per distinct module: a trace of many frames names few modules, and
/// matching by ID normalises strings.
struct Finder<'a> {
    symbols: &'a SymbolSet,
    memo: HashMap<u64, Vec<(ModuleKey, Found<'a>)>>,
}

impl<'a> Finder<'a> {
    fn new(symbols: &'a SymbolSet) -> Self {
        Self {
            symbols,
            memo: HashMap::new(),
        }
    }

    fn find(&mut self, input: &FrameInput<&str>) -> Found<'a> {
        let key = (input.module, input.build_id, input.arch);
        let mut h = std::hash::DefaultHasher::new();
        key.hash(&mut h);
        let bucket = self.memo.entry(h.finish()).or_default();
        let same = |k: &ModuleKey| (k.0.as_deref(), k.1.as_deref(), k.2.as_deref()) == key;
        if let Some((_, found)) = bucket.iter().find(|(k, _)| same(k)) {
            return found.clone();
        }
        let found = find(self.symbols, input);
        let owned = (
            key.0.map(str::to_owned),
            key.1.map(str::to_owned),
            key.2.map(str::to_owned),
        );
        bucket.push((owned, found.clone()));
        found
    }
}

fn resolve(input: Option<&FrameInput<&str>>, finder: &mut Finder<'_>) -> SymbolicatedFrame {
    let symbols = finder.symbols;
    let Some(input) = input else {
        return unresolved(
            FrameStatus::Unparsed,
            None,
            "this line was not understood as an address".to_owned(),
        );
    };
    if input.builtin && input.address.is_none() {
        return unresolved(
            FrameStatus::Skipped,
            None,
            "printed without an address (gdb's frame 0 or an inlined frame): its location is \
             what the debugger printed"
                .to_owned(),
        );
    }
    let Some(offset) = input.module_offset else {
        return unresolved(
            FrameStatus::NoSymbols,
            None,
            "the address is in no mapped module (the log's module map does not cover it)"
                .to_owned(),
        );
    };
    let module = input.module;
    let (file, object) = match finder.find(input) {
        Found::Object(i, o) => (&symbols.natives[i], o),
        Found::Mismatch(name, ids) => {
            return unresolved(
                FrameStatus::NoSymbols,
                None,
                format!(
                    "{name} is for another build of {}: its ID is {ids}; add the debug file of this build",
                    module.unwrap_or("this module")
                ),
            );
        }
        Found::Nothing => {
            let what = module.unwrap_or("this address list");
            let id = input
                .build_id
                .map_or(String::new(), |id| format!(" (ID {id})"));
            return unresolved(
                FrameStatus::NoSymbols,
                None,
                format!(
                    "no debug file for {what}{id}: add its debug file (.debug, dSYM, PDB) or its Breakpad .sym"
                ),
            );
        }
    };
    // A caller's return address points after its call; the call is at address − 1.
    let lookup = if input.return_address {
        offset.saturating_sub(1)
    } else {
        offset
    };
    let found = object.lookup(lookup);
    if found.is_empty() {
        return unresolved(
            FrameStatus::NotCovered,
            Some(file.name.clone()),
            format!("{} has no function at offset {lookup:#x}", file.name),
        );
    }
    SymbolicatedFrame {
        status: FrameStatus::Resolved,
        symbol_file: Some(file.name.clone()),
        generated: None,
        resolved: chain(found),
        alternatives: Vec::new(),
        note: None,
    }
}

/// A debug file's answer as the frame's locations: innermost first, each but the last
/// inlined into the next.
pub(super) fn chain(found: Vec<NativeLocation>) -> Vec<ResolvedLocation> {
    let n = found.len();
    found
        .into_iter()
        .enumerate()
        .map(|(k, l)| ResolvedLocation {
            function: Some(l.function).filter(|f| !f.is_empty()),
            file: l.file,
            line: l.line,
            inlined: k + 1 < n,
            ..ResolvedLocation::default()
        })
        .collect()
}

/// Resolving native frames, and counting per module the frames and those resolved: the
/// report that says which debug IDs to go and find.
struct Natives<'s> {
    finder: Finder<'s>,
    modules: Vec<ModuleCoverage>,
}

impl Resolve for Natives<'_> {
    fn frame(&mut self, frame: &FrameView<'_>, sink: &mut dyn ResultSink) {
        let result = resolve(frame.input.as_ref(), &mut self.finder);
        if let Some(input) = frame.input.as_ref().filter(|i| i.module.is_some()) {
            self.count(input, result.status == FrameStatus::Resolved);
        }
        sink.frame(result);
    }
}

impl Natives<'_> {
    fn count(&mut self, input: &FrameInput<&str>, resolved: bool) {
        let name = input.module.unwrap_or_default();
        let resolved = usize::from(resolved);
        if let Some(m) = self
            .modules
            .iter_mut()
            .find(|m| m.name == name && m.id.as_deref() == input.build_id)
        {
            m.frames += 1;
            m.resolved += resolved;
            return;
        }
        let (status, symbol_file) = match self.finder.find(input) {
            Found::Object(i, _) => (
                Coverage::Found,
                Some(self.finder.symbols.natives[i].name.clone()),
            ),
            Found::Mismatch(file, _) => (Coverage::Mismatch, Some(file)),
            Found::Nothing => (Coverage::Missing, None),
        };
        self.modules.push(ModuleCoverage {
            name: name.to_owned(),
            id: input.build_id.map(str::to_owned),
            frames: 1,
            resolved,
            status,
            symbol_file,
        });
    }
}

/// Symbolicates a native address trace.
pub(super) fn symbolicate(
    trace: &dyn TraceView,
    symbols: &SymbolSet,
    progress: &mut dyn Progress,
    sink: &mut dyn ResultSink,
) -> Summary {
    let start = Instant::now();
    let mut natives = Natives {
        finder: Finder::new(symbols),
        modules: Vec::new(),
    };
    let cancelled = walk(trace, &mut natives, progress, "look-up", sink);
    let loads = symbols
        .natives
        .iter()
        .map(|f| (format!("build SymCache {}", f.name), f.parse_ms));
    let timings = timings(loads, start);
    let mut warnings = Vec::new();
    let moduleless = (0..trace.stack_count()).any(|s| {
        (0..trace.frame_count(s))
            .filter_map(|f| trace.frame(s, f))
            .any(|f| f.input.is_some_and(|i| i.module.is_none()))
    });
    if moduleless && symbols.natives.len() > 1 {
        warnings.push(format!(
            "the addresses name no module and {} native files are loaded; using {}",
            symbols.natives.len(),
            match find(symbols, &FrameInput::default()) {
                Found::Object(i, _) => symbols.natives[i].name.as_str(),
                _ => "none",
            }
        ));
    }
    let mut modules = natives.modules;
    modules.sort_by(|a, b| b.frames.cmp(&a.frames).then_with(|| a.name.cmp(&b.name)));
    Summary {
        warnings,
        timings,
        modules,
        cancelled,
    }
}
