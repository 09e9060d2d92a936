//! How the Buckets view and the comparison of two logs or stacks apply what the UI asks of them.

use super::BucketsCommand;
use super::*;

impl AppState {
    /// Applies a request for the Buckets view and the comparison of two logs or stacks.
    pub(super) fn apply_buckets(&mut self, command: BucketsCommand) {
        let changed = Instant::now();
        match command {
            BucketsCommand::BucketCrashes(paths) => {
                let paths: Vec<_> = paths
                    .iter()
                    .map(|p| crate::workspace::normalized(p))
                    .collect();
                let dir = self.workspace_dir();
                let mut known: std::collections::HashSet<String> =
                    self.workspace.buckets.sources.iter().cloned().collect();
                for p in &paths {
                    let rel = crate::workspace::relative_path(&dir, p);
                    if known.insert(rel.clone()) {
                        self.workspace.buckets.sources.push(rel);
                    }
                }
                self.autosave.changed(changed);
                // Buckets opens as a main tab, in front (bucketing again later does not
                // take the front from what the user looks at).
                self.view.buckets.closed = false;
                self.show_pane = Some(super::Pane::Buckets);
                self.start_bucketing();
            }
            BucketsCommand::CloseBuckets => {
                self.workspace.buckets.sources.clear();
                self.workspace.buckets.selected = None;
                self.view.buckets.bucketed = None;
                if let Some(job) = self.running.bucketing.take() {
                    self.jobs.cancel(job);
                }
                self.autosave.changed(changed);
            }
            BucketsCommand::SelectBucket(fp) => {
                self.workspace.buckets.selected = fp;
                self.autosave.changed(changed);
            }
            BucketsCommand::SetBucketNote(fp, note) => {
                if note.trim().is_empty() {
                    self.workspace.buckets.notes.remove(&fp);
                } else {
                    self.workspace.buckets.notes.insert(fp, note);
                }
                self.autosave.changed(changed);
            }
            BucketsCommand::SetBucketFilter(f) => self.view.buckets.filter = f,
            BucketsCommand::SortBuckets(column) => {
                let (current, reversed) = self.view.buckets.sort;
                self.view.buckets.sort = (column, current == column && !reversed);
            }
            BucketsCommand::OpenCrashLog(path) => {
                // The log's stacks come to the front.
                self.show_pane = Some(super::Pane::Stack);
                self.open_crash_log(path);
            }
            BucketsCommand::PickCompare(b_side, path) => {
                if b_side {
                    self.view.buckets.compare_pick.1 = Some(path);
                } else {
                    self.view.buckets.compare_pick.0 = Some(path);
                }
                if let (Some(a), Some(b)) = self.view.buckets.compare_pick.clone() {
                    self.apply_one(BucketsCommand::CompareLogs(a, b));
                }
            }
            BucketsCommand::CompareLogs(a, b) => {
                self.workspace.compare = Some(crate::workspace::Compare {
                    a: self.compare_name(&a.log),
                    b: self.compare_name(&b.log),
                    stack_a: a.stack,
                    stack_b: b.stack,
                });
                self.view.buckets.compare_pick = (Some(a.clone()), Some(b.clone()));
                self.autosave.changed(changed);
                self.show_pane = Some(super::Pane::LogCompare);
                self.start_log_compare(a, b);
            }
            BucketsCommand::CloseLogCompare => {
                self.view.buckets.log_compare = None;
                self.view.buckets.compare_pick = (None, None);
                self.workspace.compare = None;
                self.autosave.changed(changed);
            }
        }
    }
}

impl AppState {
    /// Crash logs are bucketed (by job `id`; an older bucketing's answer is dropped).
    pub(super) fn crashes_bucketed(
        &mut self,
        id: crate::jobs::JobId,
        buckets: std::sync::Arc<super::CrashBuckets>,
    ) {
        if self.running.bucketing != Some(id) {
            return;
        }
        self.running.bucketing = None;
        self.errors.extend(buckets.errors.iter().cloned());
        self.view.buckets.bucketed = Some(buckets);
    }
}
