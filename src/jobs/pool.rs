//! The job pool: spawn, progress, cancellation, timing spans, panic isolation.

use crate::model::Progress;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// Identifies a job for its whole life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub u64);

/// Called from a worker whenever it has news (the UI passes `egui::Context::request_repaint`).
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// One timed phase of a job, in nanoseconds since the job started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The phase (`read`, `parse`, `index`, `look-up`, …).
    pub phase: String,
    /// Start, ns after the job started.
    pub start_ns: u64,
    /// End, ns after the job started.
    pub end_ns: u64,
}

impl Span {
    /// Duration in milliseconds.
    pub fn ms(&self) -> f64 {
        (self.end_ns.saturating_sub(self.start_ns)) as f64 / 1e6
    }
}

/// How a job ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobState {
    /// Still running.
    Running,
    /// Finished with a result.
    Done,
    /// Stopped because it was cancelled.
    Cancelled,
    /// Returned an error or panicked.
    Failed(JobFailure),
}

/// Why a job failed: the error its work returned, kept with its own type (the engine's
/// errors, read back with [`JobFailure::error`]), or a panic, an internal error. Turned into
/// text only where it is shown.
#[derive(Clone, Debug)]
pub enum JobFailure {
    /// The work returned this error.
    Error(Arc<dyn std::error::Error + Send + Sync>),
    /// The work panicked, with this message.
    Panic(String),
}

impl JobFailure {
    /// The error the work returned, as its own type `E`, when it was one.
    pub fn error<E: std::error::Error + 'static>(&self) -> Option<&E> {
        match self {
            Self::Error(e) => e.downcast_ref::<E>(),
            Self::Panic(_) => None,
        }
    }
}

impl std::fmt::Display for JobFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Error(e) => e.fmt(f),
            Self::Panic(message) => write!(f, "internal error: {message}"),
        }
    }
}

/// Two failures are alike when they say the same.
impl PartialEq for JobFailure {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for JobFailure {}

/// Progress of a running job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobProgress {
    /// The current phase.
    pub phase: String,
    /// Units done in the phase.
    pub done: u64,
    /// Units in the phase (0 when unknown).
    pub total: u64,
}

/// What a job tells the UI.
#[derive(Debug)]
pub enum JobEvent<T> {
    /// Progress (at most about every 15 ms per job).
    Progress(JobId, JobProgress),
    /// The job ended; `result` is `Some` exactly when `state` is `Done`.
    Finished {
        /// The job.
        id: JobId,
        /// How it ended.
        state: JobState,
        /// Its result.
        result: Option<T>,
        /// Its timing spans.
        spans: Vec<Span>,
        /// Wall time from start to end.
        elapsed: Duration,
    },
}

/// What a job's code gets: its cancel flag, progress reporting and span recording.
pub struct JobContext<T> {
    id: JobId,
    cancel: Arc<AtomicBool>,
    tx: Sender<JobEvent<T>>,
    waker: Waker,
    started: Instant,
    spans: Vec<Span>,
    /// The phase being timed, and when it (or its latest sub-phase) started.
    open: Option<(String, u64)>,
    last_report: Option<Instant>,
}

/// How often progress events are sent at most.
const REPORT_EVERY: Duration = Duration::from_millis(15);

impl<T> JobContext<T> {
    /// The job's id.
    pub fn id(&self) -> JobId {
        self.id
    }

    /// Whether the job was asked to stop.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The job's cancel flag, for work it spreads over the pool (set when it was asked to
    /// stop).
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }

    /// Runs `f` as the phase `name`, recording its span. Pure code that reports progress
    /// under another phase name (`class parse`, then `remap`) splits the span there, so the
    /// timing panel shows where inside the phase the time went.
    pub fn phase<R>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let start = self.started.elapsed().as_nanos() as u64;
        let outer = self.open.replace((name.to_owned(), start));
        self.report(name, 0, 0, true);
        let r = f(self);
        let end = self.started.elapsed().as_nanos() as u64;
        if let Some((phase, start_ns)) = std::mem::replace(&mut self.open, outer) {
            self.spans.push(Span {
                phase,
                start_ns,
                end_ns: end,
            });
        }
        r
    }

    fn report(&mut self, phase: &str, done: u64, total: u64, force: bool) {
        let now = Instant::now();
        if !force
            && self
                .last_report
                .is_some_and(|t| now.duration_since(t) < REPORT_EVERY)
        {
            return;
        }
        self.last_report = Some(now);
        let progress = JobProgress {
            phase: phase.to_owned(),
            done,
            total,
        };
        // The UI may be gone; a closed channel is fine.
        self.tx.send(JobEvent::Progress(self.id, progress)).ok();
        (self.waker)();
    }
}

impl<T: Send> JobContext<T> {
    /// A handle that reports progress of `phase` from any thread (for work the job spreads
    /// over the pool, such as a source map's index pass).
    pub fn reporter(&self, phase: &str) -> Reporter<T> {
        Reporter {
            id: self.id,
            phase: phase.to_owned(),
            tx: std::sync::Mutex::new(self.tx.clone()),
            waker: self.waker.clone(),
            last: std::sync::Mutex::new(None),
        }
    }
}

/// Reports one phase's progress from any thread; see [`JobContext::reporter`].
pub struct Reporter<T> {
    id: JobId,
    phase: String,
    tx: std::sync::Mutex<Sender<JobEvent<T>>>,
    waker: Waker,
    last: std::sync::Mutex<Option<Instant>>,
}

impl<T> Reporter<T> {
    /// Reports that `done` of `total` units are finished (at most about every 15 ms, and
    /// always the last unit).
    pub fn report(&self, done: u64, total: u64) {
        let now = Instant::now();
        {
            let Ok(mut last) = self.last.lock() else {
                return;
            };
            if done < total && last.is_some_and(|t| now.duration_since(t) < REPORT_EVERY) {
                return;
            }
            *last = Some(now);
        }
        let progress = JobProgress {
            phase: self.phase.clone(),
            done,
            total,
        };
        if let Ok(tx) = self.tx.lock() {
            tx.send(JobEvent::Progress(self.id, progress)).ok();
        }
        (self.waker)();
    }
}

impl<T> Progress for JobContext<T> {
    fn step(&mut self, phase: &str, done: u64, total: u64) -> ControlFlow<()> {
        if let Some((open, start_ns)) = self.open.as_mut()
            && open != phase
        {
            // A sub-phase begins: the span so far ends here.
            let now = self.started.elapsed().as_nanos() as u64;
            self.spans.push(Span {
                phase: std::mem::replace(open, phase.to_owned()),
                start_ns: *start_ns,
                end_ns: now,
            });
            *start_ns = now;
        }
        self.report(phase, done, total, false);
        if self.is_cancelled() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// The job pool and the UI's end of its event channel.
pub struct Jobs<T: Send + 'static> {
    pool: rayon::ThreadPool,
    tx: Sender<JobEvent<T>>,
    rx: Receiver<JobEvent<T>>,
    waker: Waker,
    next: u64,
    cancels: HashMap<JobId, Arc<AtomicBool>>,
    progress: HashMap<JobId, JobProgress>,
}

impl<T: Send + 'static> Jobs<T> {
    /// A pool of `threads` named workers (`symscope-job-N`; 0 = one per core).
    pub fn new(threads: usize, waker: Waker) -> Result<Self, rayon::ThreadPoolBuildError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("symscope-job-{i}"))
            .build()?;
        let (tx, rx) = channel();
        Ok(Self {
            pool,
            tx,
            rx,
            waker,
            next: 1,
            cancels: HashMap::new(),
            progress: HashMap::new(),
        })
    }

    /// Starts a job. `work` runs on the pool; its error (kept with its type) or panic
    /// becomes a failed job, unless the job was cancelled.
    pub fn spawn<E: std::error::Error + Send + Sync + 'static>(
        &mut self,
        work: impl FnOnce(&mut JobContext<T>) -> Result<T, E> + Send + 'static,
    ) -> JobId {
        let id = JobId(self.next);
        self.next += 1;
        let cancel = Arc::new(AtomicBool::new(false));
        self.cancels.insert(id, cancel.clone());
        self.progress.insert(
            id,
            JobProgress {
                phase: "queued".to_owned(),
                done: 0,
                total: 0,
            },
        );
        let tx = self.tx.clone();
        let waker = self.waker.clone();
        self.pool.spawn(move || {
            let mut ctx = JobContext {
                id,
                cancel,
                tx: tx.clone(),
                waker: waker.clone(),
                started: Instant::now(),
                spans: Vec::new(),
                open: None,
                last_report: None,
            };
            let outcome = catch_unwind(AssertUnwindSafe(|| work(&mut ctx)));
            let cancelled = ctx.is_cancelled();
            let (state, result) = match outcome {
                Ok(_) if cancelled => (JobState::Cancelled, None),
                Ok(Ok(value)) => (JobState::Done, Some(value)),
                Ok(Err(error)) => (JobState::Failed(JobFailure::Error(Arc::new(error))), None),
                Err(panic) => (
                    JobState::Failed(JobFailure::Panic(panic_message(&*panic))),
                    None,
                ),
            };
            let event = JobEvent::Finished {
                id,
                state,
                result,
                spans: std::mem::take(&mut ctx.spans),
                elapsed: ctx.started.elapsed(),
            };
            tx.send(event).ok();
            waker();
        });
        id
    }

    /// Asks a job to stop; it ends as `Cancelled` at its next progress report.
    pub fn cancel(&self, id: JobId) {
        if let Some(flag) = self.cancels.get(&id) {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// Drains the events that arrived (never blocks), keeping the running jobs' progress.
    pub fn poll(&mut self) -> Vec<JobEvent<T>> {
        let events: Vec<JobEvent<T>> = self.rx.try_iter().collect();
        for e in &events {
            match e {
                JobEvent::Progress(id, p) => {
                    if let Some(slot) = self.progress.get_mut(id) {
                        *slot = p.clone();
                    }
                }
                JobEvent::Finished { id, .. } => {
                    self.progress.remove(id);
                    self.cancels.remove(id);
                }
            }
        }
        events
    }

    /// The last progress of job `id`, while it runs.
    pub fn progress_of(&self, id: JobId) -> Option<&JobProgress> {
        self.progress.get(&id)
    }

    /// The jobs still running, with their last progress, oldest first.
    pub fn running(&self) -> Vec<(JobId, JobProgress)> {
        let mut v: Vec<(JobId, JobProgress)> =
            self.progress.iter().map(|(k, p)| (*k, p.clone())).collect();
        v.sort_by_key(|(k, _)| *k);
        v
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a job panicked".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A job's error in these tests.
    #[derive(Debug, thiserror::Error)]
    #[error("{0}")]
    struct Bad(String);

    fn pool<T: Send + 'static>() -> (Jobs<T>, Arc<AtomicUsize>) {
        let wakes = Arc::new(AtomicUsize::new(0));
        let w = wakes.clone();
        let jobs = Jobs::new(
            2,
            Arc::new(move || {
                w.fetch_add(1, Ordering::Relaxed);
            }),
        )
        .unwrap();
        (jobs, wakes)
    }

    /// Waits (polling, as the UI would each frame) until `id` finishes.
    fn wait<T: Send + 'static>(jobs: &mut Jobs<T>, id: JobId) -> JobEvent<T> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            for e in jobs.poll() {
                if matches!(&e, JobEvent::Finished { id: i, .. } if *i == id) {
                    return e;
                }
            }
            assert!(Instant::now() < deadline, "job did not finish");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn sub_phases_split_the_span() {
        let (mut jobs, _wakes) = pool::<u32>();
        let id = jobs.spawn(|ctx| {
            ctx.phase("look-up", |ctx| {
                let _ = ctx.step("class parse", 0, 1);
                let _ = ctx.step("remap", 1, 2);
                let _ = ctx.step("remap", 2, 2);
            });
            Ok::<_, Bad>(1)
        });
        let JobEvent::Finished { spans, .. } = wait(&mut jobs, id) else {
            unreachable!()
        };
        let phases: Vec<&str> = spans.iter().map(|s| s.phase.as_str()).collect();
        assert_eq!(phases, ["look-up", "class parse", "remap"]);
        assert!(spans.windows(2).all(|w| w[0].end_ns == w[1].start_ns));
    }

    #[test]
    fn results_spans_and_wakes() {
        let (mut jobs, wakes) = pool::<u32>();
        let id = jobs.spawn(|ctx| {
            let a = ctx.phase("read", |_| 20);
            let b = ctx.phase("parse", |_| 22);
            Ok::<_, Bad>(a + b)
        });
        let JobEvent::Finished {
            state,
            result,
            spans,
            ..
        } = wait(&mut jobs, id)
        else {
            unreachable!()
        };
        assert_eq!((state, result), (JobState::Done, Some(42)));
        let phases: Vec<&str> = spans.iter().map(|s| s.phase.as_str()).collect();
        assert_eq!(phases, ["read", "parse"]);
        assert!(spans[0].end_ns <= spans[1].start_ns);
        assert!(wakes.load(Ordering::Relaxed) >= 1, "the UI was woken");
        assert!(jobs.running().is_empty());
    }

    #[test]
    fn a_panic_is_a_failed_job_and_the_pool_keeps_working() {
        let (mut jobs, _) = pool::<u32>();
        let id = jobs.spawn(|_| -> Result<u32, Bad> { panic!("boom in the parser") });
        let JobEvent::Finished { state, result, .. } = wait(&mut jobs, id) else {
            unreachable!()
        };
        assert_eq!(result, None);
        assert_eq!(
            state,
            JobState::Failed(JobFailure::Panic("boom in the parser".to_owned()))
        );
        let id = jobs.spawn(|_| Err(Bad("bad.map: not a source map".to_owned())));
        let JobEvent::Finished { state, .. } = wait(&mut jobs, id) else {
            unreachable!()
        };
        // The error keeps its type: read back as a `Bad`, shown as its message.
        let JobState::Failed(failure) = state else {
            panic!("{state:?}")
        };
        assert_eq!(
            failure.error::<Bad>().map(|b| b.0.as_str()),
            Some("bad.map: not a source map")
        );
        assert_eq!(failure.to_string(), "bad.map: not a source map");
        let id = jobs.spawn(|_| Ok::<_, Bad>(7));
        let JobEvent::Finished { result, .. } = wait(&mut jobs, id) else {
            unreachable!()
        };
        assert_eq!(result, Some(7));
    }

    /// A job doing pure work that reports through `Progress` stops when cancelled (how fast
    /// is measured by a benchmark, not asserted here).
    #[test]
    fn cancel_stops_a_long_job() {
        let (mut jobs, _) = pool::<u64>();
        let id = jobs.spawn(|ctx| {
            ctx.phase("look-up", |ctx| {
                let mut acc = 0u64;
                for i in 0..u64::MAX {
                    acc = acc.wrapping_add(i.wrapping_mul(2_654_435_761));
                    if i % 1024 == 0 && ctx.step("look-up", i, 0).is_break() {
                        break;
                    }
                }
                Ok::<_, Bad>(acc)
            })
        });
        // Let it run and report for a moment.
        let deadline = Instant::now() + Duration::from_secs(5);
        while jobs.running().first().is_none_or(|(_, p)| p.done == 0) {
            jobs.poll();
            assert!(Instant::now() < deadline);
            std::thread::sleep(Duration::from_millis(2));
        }
        let asked = Instant::now();
        jobs.cancel(id);
        let JobEvent::Finished {
            state,
            result,
            elapsed,
            ..
        } = wait(&mut jobs, id)
        else {
            unreachable!()
        };
        let took = asked.elapsed();
        assert_eq!((state, result), (JobState::Cancelled, None));
        assert!(took < Duration::from_millis(50), "cancel took {took:?}");
        assert!(elapsed > Duration::ZERO);
    }

    #[test]
    fn workers_are_named() {
        let (mut jobs, _) = pool::<String>();
        let id =
            jobs.spawn(|_| Ok::<_, Bad>(std::thread::current().name().unwrap_or("").to_owned()));
        let JobEvent::Finished { result, .. } = wait(&mut jobs, id) else {
            unreachable!()
        };
        assert!(result.unwrap().starts_with("symscope-job-"));
    }
}
