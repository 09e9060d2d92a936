//! Native frames against native debug files: each frame's module is matched to a file by
//! name (`crashy` ↔ `crashy`, `crashy.debug`, `crashy.sym`), preferring files with line
//! information; the module offset is looked up (a return address minus one).

use super::{Outcome, SymbolSet, each_frame, outcome, unresolved};
use crate::model::{
    Frame, FrameStatus, Progress, ResolvedLocation, SymbolicatedFrame, SymbolicatedTrace, Timing,
    Trace,
};
use std::time::Instant;

/// Whether a symbol file named `file` describes module `module`.
fn names_module(file: &str, module: &str) -> bool {
    let stem = [".debug", ".sym", ".dbg"]
        .iter()
        .find_map(|ext| file.strip_suffix(ext))
        .unwrap_or(file);
    file == module || stem == module
}

/// The native file for a frame's module: by name, line information first; with no module
/// (a plain address list), the one file given. A file found by name without line
/// information (a stripped binary) hands over to a file with the same build ID that has it
/// (its split debug file, whether found through `.gnu_debuglink` or a
/// `.build-id/xx/rest.debug` path: both hold the binary's build ID).
fn find(symbols: &SymbolSet, module: Option<&str>, build_id: Option<&str>) -> Option<usize> {
    let info = |i: usize| symbols.natives[i].symbols.info();
    // A build ID the log prints (tombstones) names the file exactly.
    if let Some(id) = build_id {
        let by_id: Vec<usize> = (0..symbols.natives.len())
            .filter(|&i| {
                info(i)
                    .code_id
                    .as_deref()
                    .is_some_and(|c| c.eq_ignore_ascii_case(id))
            })
            .collect();
        if let Some(&i) = by_id
            .iter()
            .find(|&&i| info(i).has_debug_info)
            .or(by_id.first())
        {
            return Some(i);
        }
    }
    let candidates: Vec<usize> = match module {
        Some(m) => (0..symbols.natives.len())
            .filter(|&i| names_module(&symbols.natives[i].name, m))
            .collect(),
        None => (0..symbols.natives.len()).collect(),
    };
    if let Some(i) = candidates.iter().copied().find(|&i| info(i).has_debug_info) {
        return Some(i);
    }
    let first = candidates.first().copied()?;
    let same_build = |j: usize| {
        info(j).has_debug_info
            && info(first).code_id.is_some()
            && info(j).code_id == info(first).code_id
    };
    (0..symbols.natives.len())
        .find(|&j| same_build(j))
        .or(Some(first))
}

fn resolve(frame: &Frame, symbols: &SymbolSet) -> SymbolicatedFrame {
    let Some(input) = &frame.input else {
        return unresolved(
            FrameStatus::Unparsed,
            None,
            "this line was not understood as an address".to_owned(),
        );
    };
    let Some(offset) = input.module_offset else {
        return unresolved(
            FrameStatus::NoSymbols,
            None,
            "the address is in no mapped module (the log's module map does not cover it)"
                .to_owned(),
        );
    };
    let module = input.module.as_deref();
    let Some(i) = find(symbols, module, input.build_id.as_deref()) else {
        let what = module.unwrap_or("this address list");
        return unresolved(
            FrameStatus::NoSymbols,
            None,
            format!("no debug file for {what}: add it, its .debug file or its Breakpad .sym"),
        );
    };
    let file = &symbols.natives[i];
    // A caller's return address points after its call; the call is at address − 1.
    let lookup = if input.return_address {
        offset.saturating_sub(1)
    } else {
        offset
    };
    let found = file.symbols.lookup(lookup);
    if found.is_empty() {
        return unresolved(
            FrameStatus::NotCovered,
            Some(file.name.clone()),
            format!("{} has no function at offset {lookup:#x}", file.name),
        );
    }
    let n = found.len();
    SymbolicatedFrame {
        status: FrameStatus::Resolved,
        symbol_file: Some(file.name.clone()),
        generated: None,
        resolved: found
            .into_iter()
            .enumerate()
            .map(|(k, l)| ResolvedLocation {
                function: Some(l.function),
                file: l.file,
                line: l.line,
                inlined: k + 1 < n,
                ..ResolvedLocation::default()
            })
            .collect(),
        alternatives: Vec::new(),
        note: None,
    }
}

/// Symbolicates a native address trace.
pub(super) fn symbolicate(
    trace: &Trace,
    symbols: &SymbolSet,
    progress: &mut dyn Progress,
) -> Outcome {
    let start = Instant::now();
    let (stacks, cancelled) = each_frame(trace, progress, "look-up", |f| resolve(f, symbols));
    let mut timings: Vec<Timing> = symbols
        .natives
        .iter()
        .map(|f| Timing {
            name: format!("build SymCache {}", f.name),
            ms: f.parse_ms,
        })
        .collect();
    timings.push(Timing {
        name: "look-up".to_owned(),
        ms: start.elapsed().as_secs_f64() * 1e3,
    });
    let mut warnings = Vec::new();
    if trace
        .stacks
        .iter()
        .flat_map(|s| &s.frames)
        .any(|f| f.input.as_ref().is_some_and(|i| i.module.is_none()))
        && symbols.natives.len() > 1
    {
        warnings.push(format!(
            "the addresses name no module and {} native files are loaded; using {}",
            symbols.natives.len(),
            find(symbols, None, None).map_or("none", |i| symbols.natives[i].name.as_str())
        ));
    }
    let result = SymbolicatedTrace {
        format: trace.format,
        stacks,
        warnings,
        timings,
    };
    outcome(result, cancelled)
}
