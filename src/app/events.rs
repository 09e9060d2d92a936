//! Starting the app's jobs and taking in what they hand back.

use super::loading::Source;
use super::{AppState, InputId, InputState, JobOutput, JobTiming, Loaded, loading};
use crate::engine::{Cache, SymbolFile};
use crate::jobs::{JobEvent, JobState};
use crate::symbolicate::SymbolSet;
use crate::workspace;
use std::sync::Arc;
use std::time::Instant;

/// What a finished job brought into the workspace.
enum Taken {
    /// A log, to symbolicate.
    Log(InputId),
    /// A symbol file: every log is symbolicated again.
    Symbols,
}

impl AppState {
    /// Handles job events; called once per frame. Returns whether anything changed.
    pub fn poll_jobs(&mut self) -> bool {
        let events = self.jobs.poll();
        let mut changed = false;
        // A new symbol file re-runs every log; a new log only needs itself.
        let mut resymbolicate = false;
        let mut new_logs: Vec<InputId> = Vec::new();
        for event in events {
            changed = true;
            let JobEvent::Finished {
                id,
                state,
                result,
                spans,
                elapsed,
            } = event
            else {
                continue;
            };
            let name = self
                .running
                .names
                .remove(&id)
                .unwrap_or_else(|| format!("job {}", id.0));
            let loaded_input = self
                .running
                .loading
                .iter()
                .find_map(|(input, job)| (*job == id).then_some(*input));
            self.running.loading.retain(|_, job| *job != id);
            // A comparison that failed or was cancelled is no longer running.
            if self.running.comparing_heaps == Some(id) && !matches!(state, JobState::Done) {
                self.running.comparing_heaps = None;
            }
            self.timings.push(JobTiming {
                name: name.clone(),
                end_ns: self.now_ns(),
                spans,
                elapsed,
                state: state.clone(),
            });
            match (state, result) {
                (JobState::Done, Some(output)) => match self.job_done(id, output) {
                    Some(Taken::Log(log)) => new_logs.push(log),
                    Some(Taken::Symbols) => resymbolicate = true,
                    None => {}
                },
                (JobState::Failed(message), _) => {
                    // The input is found by the job's id, never by the name in its label
                    // (two inputs may share a file name).
                    // (A failed SymCache build leaves its input answering lazily: Ready.)
                    if let Some(e) = loaded_input
                        .and_then(|input| self.inputs.iter_mut().find(|e| e.id == input))
                        .filter(|e| e.state == InputState::Loading)
                    {
                        e.state = InputState::Failed(message.clone());
                    }
                    self.errors.push(format!("{name}: {message}"));
                }
                (JobState::Cancelled, _) => {
                    if let Some(e) = loaded_input
                        .and_then(|input| self.inputs.iter_mut().find(|e| e.id == input))
                        .filter(|e| e.state == InputState::Loading)
                    {
                        e.state = InputState::Cancelled;
                    }
                }
                _ => {}
            }
        }
        if changed {
            self.bucket_added_together();
        }
        if resymbolicate {
            self.symbolicate_all();
        } else {
            // A comparison waiting for a log it names compares once the log is loaded.
            let names: Vec<String> = self
                .workspace
                .compare
                .iter()
                .flat_map(|c| [c.a.clone(), c.b.clone()])
                .collect();
            let mut compare = false;
            for log in new_logs {
                self.symbolicate_logs(Some(log));
                compare |= self
                    .inputs
                    .iter()
                    .position(|e| e.id == log)
                    .and_then(|i| self.workspace.inputs.get(i))
                    .is_some_and(|doc| names.contains(&doc.path));
            }
            if compare {
                self.compare_again();
            }
        }
        changed
    }

    /// Takes in what a finished job handed back, by its kind, in the file of the part of
    /// the app that owns it; says what the workspace took in, if anything.
    fn job_done(&mut self, id: crate::jobs::JobId, output: JobOutput) -> Option<Taken> {
        match output {
            JobOutput::Loaded {
                input,
                kind: crate::model::FileKind::SymbolicatedLogs,
                ..
            } => self.open_as_buckets(input),
            JobOutput::Loaded {
                input,
                kind,
                loaded,
                size,
                hash,
            } => return Some(self.input_loaded(input, kind, *loaded, size, hash)),
            JobOutput::Converted { input, file } => self.symcache_converted(input, *file),
            JobOutput::Folder {
                dir,
                files,
                logs,
                errors,
            } => self.folder_searched(dir, files, logs, errors),
            JobOutput::Symbolicated { log, file } => self.log_symbolicated(id, log, *file),
            JobOutput::ProfilesResolved { input, profiles } => {
                if self.running.symbolicating.get(&input) == Some(&id) {
                    self.running.symbolicating.remove(&input);
                    if let Some(e) = self.inputs.iter_mut().find(|e| e.id == input) {
                        e.loaded = Some(Loaded::Profiles(profiles));
                    }
                    // The frame detail of a selected function shows its new name.
                    self.caches.changed();
                }
            }
            JobOutput::HeapResolved { input, heap } => {
                if self.running.symbolicating.get(&input) == Some(&id) {
                    self.running.symbolicating.remove(&input);
                    if let Some(e) = self.inputs.iter_mut().find(|e| e.id == input) {
                        e.loaded = Some(Loaded::Heap(heap));
                    }
                }
            }
            JobOutput::HeapCompared(c) => {
                if self.running.comparing_heaps == Some(id) {
                    self.running.comparing_heaps = None;
                    self.heap_comparison = Some(c);
                }
            }
            JobOutput::Bucketed(buckets) => self.crashes_bucketed(id, buckets),
            JobOutput::LogsCompared(compare) => self.view.buckets.log_compare = Some(compare),
            JobOutput::SourceRead(key, context) => self.source_read(*key, context),
            JobOutput::Extracted { .. }
            | JobOutput::Compared(_)
            | JobOutput::Searched { .. }
            | JobOutput::OriginalIndexed { .. }
            | JobOutput::InspectorLine(..)
            | JobOutput::MapChecked { .. } => self.inspector_job_done(output),
        }
        None
    }

    /// An input is loaded: what it is and what it holds are recorded.
    /// An input that holds `symbolicate --format jsonl`'s lines opens as the Buckets view's
    /// source (its logs symbolicated already) rather than as an input.
    fn open_as_buckets(&mut self, input: InputId) {
        let Some(i) = self.inputs.iter().position(|e| e.id == input) else {
            return;
        };
        let path = self.inputs.remove(i).path;
        self.workspace.remove_input(i);
        self.apply_buckets(super::BucketsCommand::BucketCrashes(vec![path]));
    }

    fn input_loaded(
        &mut self,
        input: InputId,
        kind: crate::model::FileKind,
        loaded: Loaded,
        size: u64,
        hash: String,
    ) -> Taken {
        if matches!(loaded, Loaded::Heap(_)) {
            self.view.memory.shown = Some(input);
            self.view.memory.compare_with = None;
            self.view.memory.closed = false;
            self.show_pane = Some(super::Pane::Memory);
        }
        if let Loaded::Profiles(list) = &loaded
            && self.view.profile.shown.is_none()
        {
            // The busiest thread first (a JVM's perf profile begins with its launcher's
            // thread, which samples once).
            let busiest = (0..list.len())
                .max_by_key(|&i| {
                    let samples = list[i].resolved.profile.sample_count();
                    (samples, std::cmp::Reverse(i))
                })
                .unwrap_or(0);
            self.view.profile.shown = Some((input, busiest));
            self.view.profile.closed = false;
            self.show_pane = Some(super::Pane::Profile);
        }
        let taken = if matches!(
            loaded,
            Loaded::Log(_) | Loaded::Profiles(_) | Loaded::Heap(_)
        ) {
            Taken::Log(input)
        } else {
            Taken::Symbols
        };
        if let Loaded::Symbols(SymbolFile::Native(native), _) = &loaded
            && let Some(blob) = native.symbols.lazy_source()
        {
            self.start_symcache(input, native.path.clone(), blob, hash.clone());
        }
        if let Some(e) = self.inputs.iter_mut().find(|e| e.id == input) {
            e.kind = kind;
            e.state = InputState::Ready;
            e.loaded = Some(loaded);
        }
        if let Some(i) = self.inputs.iter().position(|e| e.id == input)
            && let Some(doc) = self.workspace.inputs.get_mut(i)
        {
            // A new file, or one changed since the workspace recorded it: its kind, size
            // and fingerprint are recorded.
            if doc.kind != kind || doc.size != size || doc.hash != hash {
                doc.kind = kind;
                doc.size = size;
                doc.hash = hash;
                self.autosave.changed(Instant::now());
            }
            if kind == crate::model::FileKind::Log && self.workspace.selection.log.is_none() {
                self.workspace.selection.log = Some(doc.path.clone());
            }
        }
        taken
    }

    /// A native file's SymCache is built: it answers as the lazy reader did (the frames
    /// already symbolicated stand; those that follow are looked up in it).
    fn symcache_converted(&mut self, input: InputId, file: SymbolFile) {
        if let Some(e) = self.inputs.iter_mut().find(|e| e.id == input)
            && let Some(Loaded::Symbols(SymbolFile::Native(old), _)) = &e.loaded
            && old.symbols.is_lazy()
        {
            e.loaded = Some(Loaded::Symbols(file, None));
        }
    }

    /// A dropped folder is searched: its symbol files are added; its crash logs are
    /// bucketed when there are several, else the one is opened.
    fn folder_searched(
        &mut self,
        dir: std::path::PathBuf,
        files: Vec<std::path::PathBuf>,
        logs: Vec<loading::ParsedLog>,
        errors: Vec<String>,
    ) {
        self.errors.extend(errors);
        if files.is_empty() && logs.is_empty() {
            self.errors.push(format!(
                "{}: no symbol files or crash logs in this folder",
                dir.display()
            ));
        }
        for path in files {
            self.add_path(path);
        }
        // Each log goes on parsed: the search read it once, for good.
        if logs.len() >= 2 {
            self.running.parsed_logs = logs.into_iter().map(|p| (p.path, p.log)).collect();
            self.apply_one(super::BucketsCommand::BucketCrashes(vec![dir]));
        } else {
            for log in logs {
                let path = log.path.clone();
                self.add_input(
                    path,
                    crate::model::FileKind::Log,
                    Source::Parsed(Box::new(log)),
                );
            }
        }
    }

    /// A log is symbolicated (job `id`): only the newest run of a log counts (an older one
    /// may finish later); the symbolicated table replaces the parsed one.
    fn log_symbolicated(
        &mut self,
        id: crate::jobs::JobId,
        log: InputId,
        file: crate::engine::LogFile,
    ) {
        if self.running.symbolicating.get(&log) != Some(&id) {
            return;
        }
        self.running.symbolicating.remove(&log);
        let table = file.table.clone();
        if let Some(e) = self.inputs.iter_mut().find(|e| e.id == log) {
            e.loaded = Some(Loaded::Log(file));
        }
        self.results.insert(log, table);
        self.caches.changed();
        // Until the frame's map is there (a log may be symbolicated before it).
        if self.view.inspector.when_ready && self.selected_log().is_some_and(|e| e.id == log) {
            self.inspect_selected_frame();
            self.view.inspector.when_ready = self.view.inspector.segment.is_none();
        }
    }

    /// The cache folder of this workspace: under the user's cache root, for a workspace
    /// that has a file.
    fn cache_folder(&self) -> Option<std::path::PathBuf> {
        let root = self.cache_root.as_deref()?;
        let ws = self.workspace_path.as_deref()?;
        Some(workspace::user_dirs::cache_dir(root, ws))
    }

    /// Starts loading input `id` from `source` (a path is read by the job).
    pub(super) fn start_load(&mut self, id: InputId, source: Source) {
        let Some(entry) = self.inputs.iter_mut().find(|e| e.id == id) else {
            return;
        };
        entry.state = InputState::Loading;
        let name = entry.name.clone();
        // Derived data (a mapping's index, a native file's SymCaches) is cached in the
        // user's cache folder, one folder per workspace file, keyed by the input's
        // fingerprint (computed by the job); never beside the user's file.
        let cache = self.cache_folder().map(|dir| Cache {
            dir,
            fingerprint: None,
        });
        let job = self
            .jobs
            .spawn(move |ctx| loading::load(ctx, id, source, cache.as_ref()));
        self.running.names.insert(job, format!("load {name}"));
        self.running.loading.insert(id, job);
    }

    /// Starts building the SymCache of native input `id`, opened lazily (its bytes `blob`,
    /// its fingerprint `hash`), kept in the workspace's cache folder when it has one.
    fn start_symcache(
        &mut self,
        id: InputId,
        path: String,
        blob: crate::model::Blob,
        hash: String,
    ) {
        let cache = self.cache_folder().map(|dir| Cache {
            dir,
            fingerprint: Some(hash),
        });
        let name = crate::symbolicate::basename(&path).to_owned();
        let job = self
            .jobs
            .spawn(move |ctx| loading::build_symcache(ctx, id, &path, blob, cache.as_ref()));
        self.running
            .names
            .insert(job, format!("build SymCache {name}"));
        self.running.loading.insert(id, job);
    }

    /// Runs the map doctor on the inspected map in a job, against its bundle's text when the
    /// inspector has it.
    pub(super) fn start_map_check(&mut self) {
        let Some(view) = self.inspector_view() else {
            return;
        };
        let Some(path) = self.workspace.selection.inspected_map.clone() else {
            return;
        };
        let map = view.map.clone();
        let bundle = view.generated.clone();
        let name = view.map_name.clone();
        let job = self.jobs.spawn(move |ctx| {
            let bundle = bundle.as_ref().map(|t| t.as_str().as_bytes());
            let report = crate::engine::doctor::check_map_with(
                &map,
                bundle,
                &crate::jobs::ParallelIndex,
                ctx,
            );
            Ok::<_, std::convert::Infallible>(JobOutput::MapChecked {
                map: path,
                report: Arc::new(report),
            })
        });
        self.running.names.insert(job, format!("check {name}"));
    }

    /// Opens the "go to original" window on the inspected map, with its index by original
    /// position when built, else once the job building it is done.
    pub(super) fn open_original(&mut self) {
        let Some(path) = self.workspace.selection.inspected_map.clone() else {
            return;
        };
        if self
            .view
            .inspector
            .original
            .as_ref()
            .is_some_and(|n| n.map == path)
        {
            return;
        }
        let index = self
            .view
            .inspector
            .originals
            .as_ref()
            .filter(|(m, _)| *m == path)
            .map(|(_, i)| i.clone());
        self.view.inspector.original = Some(super::OriginalNav {
            map: path,
            index,
            ..Default::default()
        });
        self.ensure_originals();
    }

    /// Indexes the inspected map's segments by original position in a job (an index map's
    /// sections one after the other), unless that is done or under way.
    pub(super) fn ensure_originals(&mut self) {
        let Some(view) = self.inspector_view() else {
            return;
        };
        let Some(path) = self.workspace.selection.inspected_map.clone() else {
            return;
        };
        let known = self
            .view
            .inspector
            .originals
            .as_ref()
            .is_some_and(|(m, _)| *m == path);
        if known || self.view.inspector.originals_pending.as_ref() == Some(&path) {
            return;
        }
        self.view.inspector.originals_pending = Some(path.clone());
        let map = view.map.clone();
        let name = view.map_name.clone();
        let job = self.jobs.spawn(move |_| {
            let index = crate::symbols::sourcemap::OriginalIndex::of(&map);
            Ok::<_, std::convert::Infallible>(JobOutput::OriginalIndexed {
                map: path,
                index: Arc::new(index),
            })
        });
        self.running
            .names
            .insert(job, format!("index originals of {name}"));
    }

    /// Compares the inspected map with the loaded map at input path `other`, in a job.
    pub(super) fn start_compare(&mut self, other: String) {
        let Some(view) = self.inspector_view() else {
            return;
        };
        let Some(path) = self.workspace.selection.inspected_map.clone() else {
            return;
        };
        let Some(theirs) = self
            .inputs
            .iter()
            .zip(&self.workspace.inputs)
            .find(|(_, d)| d.path == other)
            .and_then(|(e, _)| e.loaded.as_ref()?.map().map(|m| m.map.clone()))
        else {
            return;
        };
        let ours = view.map.clone();
        let name = view.map_name.clone();
        let job = self.jobs.spawn(move |ctx| {
            let diff =
                crate::engine::map_diff::diff_maps(&ours, &theirs, ctx).ok_or_else(|| {
                    std::io::Error::other(
                    "these maps cannot be compared line by line: a regular map and an index map, or index maps whose sections sit elsewhere",
                )
                })?;
            Ok::<_, std::io::Error>(JobOutput::Compared(Box::new(super::MapCompare {
                a: path,
                b: other,
                diff: Arc::new(diff),
                shown: 0,
            })))
        });
        self.running.names.insert(job, format!("compare {name}"));
    }

    /// Searches the inspected map (and its bundle's text, when loaded) for `query` in a job.
    pub(super) fn start_map_search(&mut self, query: String) {
        let Some(view) = self.inspector_view() else {
            return;
        };
        let Some(path) = self.workspace.selection.inspected_map.clone() else {
            return;
        };
        let (map, bundle, name) = (
            view.map.clone(),
            view.generated.clone(),
            view.map_name.clone(),
        );
        let job = self.jobs.spawn(move |ctx| {
            let hits = crate::engine::map_search::search_map(&map, bundle.as_deref(), &query, ctx);
            Ok::<_, std::convert::Infallible>(JobOutput::Searched {
                map: path,
                hits: Arc::new(hits),
            })
        });
        self.running.names.insert(job, format!("search {name}"));
    }

    /// Writes the inspected map's sources into `dir` in a job.
    pub(super) fn start_extract(&mut self, dir: std::path::PathBuf) {
        let Some(view) = self.inspector_view() else {
            return;
        };
        let (map, name) = (view.map.clone(), view.map_name.clone());
        let job = self.jobs.spawn(move |_| {
            let done = crate::workspace::extract_sources(&map, &dir)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())))?;
            Ok::<_, std::io::Error>(JobOutput::Extracted { dir, done })
        });
        self.running.names.insert(job, format!("extract {name}"));
    }

    /// Re-symbolicates every loaded log against the loaded symbol files (after any change),
    /// and buckets the crash folders and compares the picked logs again.
    pub fn symbolicate_all(&mut self) {
        self.symbolicate_logs(None);
        self.start_bucketing();
        self.compare_again();
    }

    /// Once every file of a drop of several is loaded: two or more crash logs among them are
    /// bucketed (they stay inputs, each opens in the stack list).
    fn bucket_added_together(&mut self) {
        let together = &self.running.added_together;
        if together.is_empty()
            || self
                .inputs
                .iter()
                .any(|e| e.state == InputState::Loading && together.contains(&e.id))
        {
            return;
        }
        // The logs as loaded: the bucketing reads none of them again.
        let logs: Vec<(std::path::PathBuf, crate::engine::LogFile)> = self
            .inputs
            .iter()
            .filter(|e| together.contains(&e.id))
            .filter_map(|e| match &e.loaded {
                Some(Loaded::Log(log)) => Some((e.path.clone(), log.clone())),
                _ => None,
            })
            .collect();
        self.running.added_together.clear();
        if logs.len() >= 2 {
            let paths = logs.iter().map(|(p, _)| p.clone()).collect();
            self.running.parsed_logs = logs.into_iter().collect();
            self.apply_one(super::BucketsCommand::BucketCrashes(paths));
        }
    }

    /// Compares the workspace's two logs again (the symbol files changed).
    pub(super) fn compare_again(&mut self) {
        let Some(c) = self.workspace.compare.clone() else {
            return;
        };
        let dir = self.workspace_dir();
        // A side that is an input (a pasted log by its name) is that input; none while it
        // is still loading: its load compares again.
        let side = |name: &str| match self.workspace.inputs.iter().position(|d| d.path == name) {
            Some(i) => self
                .inputs
                .get(i)
                .filter(|e| e.state != super::InputState::Loading)
                .map(|e| e.path.clone()),
            None => Some(dir.join(name)),
        };
        if let (Some(a), Some(b)) = (side(&c.a), side(&c.b)) {
            self.start_log_compare(
                super::ComparePick {
                    log: a,
                    stack: c.stack_a,
                },
                super::ComparePick {
                    log: b,
                    stack: c.stack_b,
                },
            );
        }
    }

    /// How the workspace names a compared log: an input by its path in the document (a
    /// pasted log by its name), any other file relative to the document.
    pub(super) fn compare_name(&self, log: &std::path::Path) -> String {
        self.inputs
            .iter()
            .zip(&self.workspace.inputs)
            .find(|(e, _)| e.path == log)
            .map_or_else(
                || crate::workspace::relative_path(&self.workspace_dir(), log),
                |(_, doc)| doc.path.clone(),
            )
    }

    /// The loaded symbol files, as one set.
    fn symbol_set(&self) -> Arc<SymbolSet> {
        let mut symbols = SymbolSet::new();
        for e in &self.inputs {
            if let Some(Loaded::Symbols(file, _)) = &e.loaded {
                file.add_to(&mut symbols);
            }
        }
        Arc::new(symbols)
    }

    /// Buckets the workspace's crash folders against the loaded symbol files, in a job (an
    /// older run is cancelled).
    pub(super) fn start_bucketing(&mut self) {
        if self.workspace.buckets.sources.is_empty() {
            return;
        }
        if let Some(old) = self.running.bucketing.take() {
            self.jobs.cancel(old);
        }
        let dir = self.workspace_dir();
        let sources: Vec<std::path::PathBuf> = self
            .workspace
            .buckets
            .sources
            .iter()
            .map(|s| dir.join(s))
            .collect();
        let symbols = self.symbol_set();
        // Logs read and parsed already are taken as they are, once.
        let parsed = std::mem::take(&mut self.running.parsed_logs);
        let job = self
            .jobs
            .spawn(move |ctx| loading::bucket_crashes(ctx, &sources, &parsed, &symbols));
        self.running
            .names
            .insert(job, "bucket crash logs".to_owned());
        self.running.bucketing = Some(job);
    }

    /// Compares two logs (or stacks) in a job: a loaded log as the window has it (a pasted
    /// one included), any other read from its file.
    pub(super) fn start_log_compare(&mut self, a: super::ComparePick, b: super::ComparePick) {
        let symbols = self.symbol_set();
        let name = format!("compare {} with {}", a.label(), b.label());
        let loaded = |pick: &super::ComparePick| {
            self.inputs
                .iter()
                .zip(&self.workspace.inputs)
                .find(|(e, _)| e.path == pick.log)
                .and_then(|(e, doc)| match &e.loaded {
                    Some(Loaded::Log(log)) => Some((log.clone(), doc.settings.column_base)),
                    _ => None,
                })
        };
        let sides = [(a.clone(), loaded(&a)), (b.clone(), loaded(&b))];
        let job = self
            .jobs
            .spawn(move |ctx| loading::compare_logs(ctx, sides, &symbols));
        self.running.names.insert(job, name);
    }

    /// Symbolicates one log (`Some`) or every loaded log (`None`) against the loaded symbol
    /// files.
    pub(super) fn symbolicate_logs(&mut self, only: Option<InputId>) {
        let symbols = self.symbol_set();
        let logs: Vec<_> = self
            .inputs
            .iter()
            .zip(&self.workspace.inputs)
            .filter(|(e, _)| only.is_none_or(|id| id == e.id))
            .filter_map(|(e, doc)| match &e.loaded {
                Some(Loaded::Log(log)) => {
                    Some((e.id, e.name.clone(), log.clone(), doc.settings.column_base))
                }
                _ => None,
            })
            .collect();
        let profiles: Vec<_> = self
            .inputs
            .iter()
            .filter(|e| only.is_none_or(|id| id == e.id))
            .filter_map(|e| match &e.loaded {
                Some(Loaded::Profiles(list)) => Some((e.id, e.name.clone(), list.clone())),
                _ => None,
            })
            .collect();
        let heaps: Vec<_> = self
            .inputs
            .iter()
            .filter(|e| only.is_none_or(|id| id == e.id))
            .filter_map(|e| match &e.loaded {
                Some(Loaded::Heap(h)) => Some((e.id, e.name.clone(), h.heap.clone())),
                _ => None,
            })
            .collect();
        for (id, name, heap) in heaps {
            if let Some(old) = self.running.symbolicating.remove(&id) {
                self.jobs.cancel(old);
            }
            let symbols = symbols.clone();
            let label = name.clone();
            let job = self
                .jobs
                .spawn(move |ctx| loading::resolve_heap(ctx, id, &label, &heap, &symbols));
            self.running
                .names
                .insert(job, format!("name the classes of {name}"));
            self.running.symbolicating.insert(id, job);
        }
        for (id, name, list) in profiles {
            if let Some(old) = self.running.symbolicating.remove(&id) {
                self.jobs.cancel(old);
            }
            let symbols = symbols.clone();
            let job = self
                .jobs
                .spawn(move |ctx| loading::resolve_profiles(ctx, id, &list, &symbols));
            self.running.names.insert(job, format!("resolve {name}"));
            self.running.symbolicating.insert(id, job);
        }
        for (id, name, log, column_base) in logs {
            if let Some(old) = self.running.symbolicating.remove(&id) {
                self.jobs.cancel(old);
            }
            let symbols = symbols.clone();
            let job = self
                .jobs
                .spawn(move |ctx| loading::symbolicate_log(ctx, id, &log, &symbols, column_base));
            self.running
                .names
                .insert(job, format!("symbolicate {name}"));
            self.running.symbolicating.insert(id, job);
        }
    }
}
