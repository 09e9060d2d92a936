//! The view models the panels read, each computed once per change of what it depends on,
//! then kept: the selected log's rows, the selected frame's detail (its source context
//! decodes a `sourcesContent` entry, which must not happen every frame), the inspector's line.

use super::{AppState, FrameDetail, InputId, InspectorView, Loaded, StackRows, frame_detail};
use crate::symbols::sourcemap::SourceMap;
use std::sync::Arc;

/// What the panels show this frame, computed before they are drawn.
#[derive(Clone, Default)]
pub struct Views {
    /// The selected log's stack-list rows.
    pub rows: Option<Arc<StackRows>>,
    /// The selected frame's detail.
    pub detail: Option<Arc<FrameDetail>>,
    /// The segment inspector's line, when the inspector is open.
    pub inspector: Option<Arc<InspectorView>>,
    /// The profile pane's model, when a profile is loaded.
    pub profile: Option<Arc<super::ProfileModel>>,
    /// The call tree's rows as shown (node, depth), in a call tree view.
    pub profile_rows: Option<super::profile::TreeRows>,
    /// The Memory pane's model, when a heap snapshot is shown.
    pub memory: Option<Arc<super::MemoryModel>>,
}

/// A value and what it was computed from.
struct Cached<K, V> {
    key: K,
    value: V,
}

/// What the stack-list rows depend on.
#[derive(Clone, PartialEq, Eq)]
struct RowsKey {
    log: InputId,
    filter: String,
    generation: usize,
}

/// What a frame detail depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetailKey {
    log: InputId,
    /// A profile's index in its input and the location, when the detail is a profile
    /// function's (a perf profile's Java methods are in a table of their own).
    profile: Option<(usize, u32)>,
    stack: usize,
    frame: usize,
    generation: usize,
}

/// What the inspector's line depends on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InspectorKey {
    map: String,
    line: u32,
}

/// A line with more index blocks than this (about 64 segments each; decoding 65,000 takes
/// about a millisecond) is decoded in a job:
/// a minified bundle's one line may hold a million segments.
const DECODE_IN_A_JOB: u32 = 1024;

/// The app's view-model caches.
#[derive(Default)]
pub(super) struct Caches {
    rows: Option<Cached<RowsKey, Arc<StackRows>>>,
    detail: Option<Cached<DetailKey, Option<Arc<FrameDetail>>>>,
    inspector: Option<Cached<InspectorKey, Arc<InspectorView>>>,
    /// The line being decoded in a job, and the column to select once it is.
    inspector_pending: Option<(InspectorKey, crate::jobs::JobId, Option<u32>)>,
    /// Bumped whenever results, folds or source folders change what is shown.
    generation: usize,
}

impl Caches {
    /// What is shown changed: rows and details are computed again.
    pub(super) fn changed(&mut self) {
        self.generation += 1;
    }

    /// The selected log changed wholesale (another workspace).
    pub(super) fn clear(&mut self) {
        let generation = self.generation + 1;
        *self = Self {
            generation,
            ..Self::default()
        };
    }
}

impl AppState {
    /// The view models of this frame.
    pub fn views(&mut self) -> Views {
        let inspector = if self.workspace.layout.inspector_open {
            // While a long line is decoded, the line shown before stays.
            self.inspector_view()
                .or_else(|| self.caches.inspector.as_ref().map(|c| c.value.clone()))
        } else {
            None
        };
        let profile = self.profile_model();
        Views {
            rows: self.stack_rows(),
            detail: self.selected_frame_detail(),
            inspector,
            profile_rows: profile.as_ref().and_then(|m| self.profile_tree_rows(m)),
            profile,
            memory: self.memory_model(),
        }
    }

    /// The rows of the selected log's stack list (cached per log, filter and result).
    pub fn stack_rows(&mut self) -> Option<Arc<StackRows>> {
        let entry = self.selected_log()?;
        let table = entry.loaded.as_ref()?.table()?.clone();
        let key = RowsKey {
            log: entry.id,
            filter: self.view.stack.filter.clone(),
            generation: self.caches.generation,
        };
        if let Some(c) = &self.caches.rows
            && c.key == key
        {
            return Some(c.value.clone());
        }
        let notes = self.frame_notes();
        let rows = Arc::new(StackRows::build(
            &table,
            &self.view.stack.filter,
            &self.view.stack.folds,
            &notes,
            !self.workspace.layout.raw_frames,
        ));
        self.caches.rows = Some(Cached {
            key,
            value: rows.clone(),
        });
        Some(rows)
    }

    /// The selected frame's detail, computed once per selection and result.
    pub fn selected_frame_detail(&mut self) -> Option<Arc<FrameDetail>> {
        let (key, table) = if self.view.profile.detail_shown {
            self.profile_detail_source()?
        } else {
            let (log, table) = self.selected_table()?;
            let sel = &self.workspace.selection;
            let key = DetailKey {
                log,
                profile: None,
                stack: sel.stack,
                frame: sel.frame?,
                generation: self.caches.generation,
            };
            (key, table)
        };
        if let Some(c) = &self.caches.detail
            && c.key == key
        {
            return c.value.clone();
        }
        let maps = self.loaded_maps();
        let mut detail = frame_detail(&table, &maps, key.stack, key.frame);
        // A source under a source folder is read by a job: the window's thread reads no file.
        let roots = self.source_roots();
        if let Some(d) = &mut detail
            && d.context.is_none()
            && !roots.is_empty()
            && let Some(loc) = d.location.clone().filter(|l| l.file.is_some())
        {
            d.source_pending = true;
            let job = self.jobs.spawn(move |ctx| {
                let context = ctx.phase("read source", |_| {
                    super::detail::source_from_roots(&roots, &loc)
                });
                Ok::<_, std::convert::Infallible>(super::JobOutput::SourceRead(
                    Box::new(key),
                    context,
                ))
            });
            self.running
                .names
                .insert(job, "read the frame's source".to_owned());
        }
        let detail = detail.map(Arc::new);
        self.caches.detail = Some(Cached {
            key,
            value: detail.clone(),
        });
        detail
    }

    /// The selected profile function as a frame: its detail's key and the table its location
    /// was resolved in.
    fn profile_detail_source(&self) -> Option<(DetailKey, Arc<crate::engine::FrameTable>)> {
        let shown = self.shown_profile()?;
        let p = self.profile(shown)?;
        let sel = self.view.profile.selected?;
        let loc = match sel.node {
            Some(n) => p.resolved.profile.nodes.get(n as usize)?.location,
            None => p
                .functions
                .of_location
                .iter()
                .position(|&f| f == sel.function)? as u32,
        };
        let (table, stack) = p.resolved.table_and_stack(loc);
        let key = DetailKey {
            log: shown.0,
            profile: Some((shown.1, loc)),
            stack: stack?,
            frame: 0,
            generation: self.caches.generation,
        };
        Some((key, table.clone()))
    }

    /// The frame detail's source, read by a job, for the detail it was read for.
    pub(super) fn source_read(
        &mut self,
        key: DetailKey,
        context: Option<super::detail::SourceContext>,
    ) {
        if let Some(c) = &mut self.caches.detail
            && c.key == key
            && let Some(d) = &mut c.value
        {
            let d = Arc::make_mut(d);
            d.context = context;
            d.source_pending = false;
        }
    }

    /// Maps that are loaded (maps, and bundles' inline maps), with the names frames know them
    /// by.
    pub fn loaded_maps(&self) -> Vec<(String, Arc<SourceMap>)> {
        self.inputs
            .iter()
            .filter_map(|e| e.loaded.as_ref()?.map())
            .map(|m| (m.name.clone(), m.map.clone()))
            .collect()
    }

    /// The inspected map's input: the one chosen, else the first loaded map.
    pub fn inspected_map(&self) -> Option<(String, Arc<SourceMap>)> {
        let chosen = self.workspace.selection.inspected_map.as_deref();
        let mut maps = self
            .inputs
            .iter()
            .zip(&self.workspace.inputs)
            .filter_map(|(e, d)| {
                let m = e.loaded.as_ref()?.map()?;
                Some((d.path.as_str(), m.name.clone(), m.map.clone()))
            });
        let first = maps.next()?;
        let found = std::iter::once(first.clone())
            .chain(maps)
            .find(|(p, _, _)| Some(*p) == chosen);
        let (_, name, map) = found.unwrap_or(first);
        Some((name, map))
    }

    /// The inspector's view of the current map and line (decoded once, then cached).
    pub fn inspector_view(&mut self) -> Option<Arc<InspectorView>> {
        let (name, map) = self.inspected_map()?;
        let key = InspectorKey {
            map: name.clone(),
            line: self.view.inspector.line,
        };
        if let Some(c) = &self.caches.inspector
            && c.key == key
        {
            return Some(c.value.clone());
        }
        if self
            .caches
            .inspector_pending
            .as_ref()
            .is_some_and(|(k, _, _)| *k == key)
        {
            return None;
        }
        // The generated text, when the bundle the map describes is loaded.
        let stem = name.strip_suffix(".map").unwrap_or(&name).to_owned();
        let file = map
            .file()
            .map(|f| crate::symbolicate::basename(f).to_owned());
        let generated = self.inputs.iter().find_map(|e| match &e.loaded {
            Some(Loaded::Symbols(_, Some(text)))
                if e.name == stem || Some(&e.name) == file.as_ref() =>
            {
                Some(text.clone())
            }
            _ => None,
        });
        let line = self.view.inspector.line;
        if InspectorView::line_blocks(&map, line) > DECODE_IN_A_JOB {
            if let Some((_, old, _)) = self.caches.inspector_pending.take() {
                self.jobs.cancel(old);
            }
            let job_key = key.clone();
            let job = self.jobs.spawn(move |ctx| {
                let view = ctx.phase("decode line", |_| {
                    let view = InspectorView::new(&name, map, line, generated);
                    // The line's columns and coverage, off the window's thread too.
                    view.line_facts();
                    view
                });
                Ok::<_, crate::engine::Error>(super::JobOutput::InspectorLine(
                    Box::new(job_key),
                    Arc::new(view),
                ))
            });
            self.running
                .names
                .insert(job, format!("decode line {} of {}", line + 1, key.map));
            self.caches.inspector_pending = Some((key, job, None));
            return None;
        }
        let view = Arc::new(InspectorView::new(&name, map, line, generated));
        self.caches.inspector = Some(Cached {
            key,
            value: view.clone(),
        });
        Some(view)
    }

    /// Selects the inspected line's segment at generated column `col`, now or once the line
    /// is decoded.
    pub(super) fn focus_inspector(&mut self, col: u32) {
        match self.inspector_view() {
            Some(view) => self.view.inspector.segment = view.segment_at(col),
            None => {
                self.view.inspector.segment = None;
                if let Some((_, _, pending)) = &mut self.caches.inspector_pending {
                    *pending = Some(col);
                }
            }
        }
    }

    /// A line decoded in a job: shown, its pending column selected.
    pub(super) fn inspector_line_decoded(&mut self, key: InspectorKey, view: Arc<InspectorView>) {
        // An older line's decoding that finished anyway is dropped.
        if !self
            .caches
            .inspector_pending
            .as_ref()
            .is_some_and(|(k, _, _)| *k == key)
        {
            return;
        }
        let col = self.caches.inspector_pending.take().and_then(|(_, _, c)| c);
        if let Some(col) = col {
            self.view.inspector.segment = view.segment_at(col);
        }
        self.caches.inspector = Some(Cached { key, value: view });
    }

    /// Points the inspector at the selected frame's map and segment.
    pub(super) fn inspect_selected_frame(&mut self) {
        let sel = self.workspace.selection.clone();
        let Some((_, table)) = self.selected_table() else {
            return;
        };
        let Some(frame) = sel.frame.and_then(|f| table.frame(sel.stack, f)) else {
            return;
        };
        let (Some(file), Some((line, col))) = (frame.symbol_file(), frame.generated()) else {
            return;
        };
        let file = file.to_owned();
        self.inspect_generated(&file, line, col);
    }

    /// Opens the inspector on the map named `file` (a resolved frame's symbol file) at a
    /// generated position (0-based line and column).
    pub(super) fn inspect_generated(&mut self, file: &str, line: u32, col: u32) {
        // A chained result names "outer + inner"; the frame's position is in the outer map.
        let outer = file.split(" + ").next().unwrap_or(file);
        let Some(path) = self
            .inputs
            .iter()
            .zip(&self.workspace.inputs)
            .find(|(e, _)| {
                e.loaded
                    .as_ref()
                    .and_then(Loaded::map)
                    .is_some_and(|m| m.name == outer)
            })
            .map(|(_, d)| d.path.clone())
        else {
            return;
        };
        self.workspace.selection.inspected_map = Some(path);
        self.workspace.layout.inspector_open = true;
        self.show_pane = Some(super::Pane::Inspector);
        self.view.inspector.line = line;
        self.focus_inspector(col);
    }
}
