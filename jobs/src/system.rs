//! The job system: submission, the priority queue, workers on a rayon pool (or
//! the caller, single-threaded), cancellation, superseded versions, results.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, unbounded};
use parking_lot::Mutex;

use crate::batch::{Change, JobBatch};
use crate::cancel::CancelToken;
use crate::queue::Queue;
use crate::stats::{Counters, Stats};

/// How urgent a job is: lower values run first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Priority(pub u64);

/// A finished job.
#[derive(Debug)]
pub struct Completed<K, R> {
    /// The job's key.
    pub key: K,
    /// The version the result belongs to (each submission gets a new one).
    pub version: u64,
    /// The job's kind, as submitted.
    pub kind: &'static str,
    /// The result; `None` if the job stopped early (cancelled) or panicked.
    pub result: Option<R>,
    /// How long it ran.
    pub run_time: Duration,
}

/// Where the workers stand with the OS scheduler.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorkerPriority {
    /// Below normal (nice 9 on Linux, a tenth of a normal thread's share,
    /// in the batch class): background work that still gets its share
    /// beside other programs, such as lavapipe's render threads. The batch
    /// class (`SCHED_BATCH`) keeps that share, but a worker woken by a job
    /// never preempts the running thread that woke it; only the scheduler's
    /// tick can switch. A plain nice-9 worker did: on the descent capture
    /// the frame's update waited 2-4 ms behind one, two preemptions a frame,
    /// on about 1% of frames.
    #[default]
    Low,
    /// The idle class (`SCHED_IDLE` on Linux; `Low` elsewhere): workers run
    /// only on cores no normal thread wants, and neither their wakeups nor
    /// the scheduler's tick take a core from a frame's thread. A machine
    /// busy with other work starves them: for a frame loop on a machine of
    /// its own.
    Idle,
}

/// The newest submitted version of a key and its token.
struct Current {
    version: u64,
    token: CancelToken,
}

struct Shared<K, R> {
    queue: Mutex<Queue<K, R>>,
    /// Newest version per key still waiting for its result. Lock before `queue`.
    current: Mutex<BTreeMap<K, Current>>,
    counters: Mutex<Counters>,
    running: AtomicUsize,
    shutting_down: AtomicBool,
    tx: Sender<Completed<K, R>>,
}

/// A prioritized job system over keys `K` with results `R`.
pub struct JobSystem<K, R> {
    shared: Arc<Shared<K, R>>,
    pool: Option<rayon::ThreadPool>,
    rx: Receiver<Completed<K, R>>,
    versions: AtomicU64,
    threads: usize,
}

impl<K, R> std::fmt::Debug for JobSystem<K, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobSystem").field("threads", &self.threads).finish_non_exhaustive()
    }
}

impl<K, R> JobSystem<K, R>
where
    K: Ord + Clone + Send + 'static,
    R: Send + 'static,
{
    /// A job system on `threads` worker threads at [`WorkerPriority::Low`];
    /// 0 makes it single-threaded (jobs run only in `run_pending`, on the
    /// caller).
    ///
    /// # Panics
    /// If the operating system refuses to start the threads.
    #[must_use]
    pub fn new(threads: usize) -> Self {
        Self::with_priority(threads, WorkerPriority::Low)
    }

    /// A job system on `threads` worker threads at `priority`.
    ///
    /// # Panics
    /// If the operating system refuses to start the threads.
    #[must_use]
    pub fn with_priority(threads: usize, priority: WorkerPriority) -> Self {
        let (tx, rx) = unbounded();
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::new()),
            current: Mutex::new(BTreeMap::new()),
            counters: Mutex::new(Counters::default()),
            running: AtomicUsize::new(0),
            shutting_down: AtomicBool::new(false),
            tx,
        });
        let pool = (threads > 0).then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("jobs-{i}"))
                .start_handler(move |_| set_worker_priority(priority))
                .build()
                .expect("the job threads start")
        });
        Self { shared, pool, rx, versions: AtomicU64::new(0), threads }
    }

    /// Worker threads (0: single-threaded).
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Submits `work` for `key`, superseding any earlier version of it (a
    /// waiting one is replaced, a running one cancelled and its result
    /// dropped). Returns the new version.
    pub fn submit(
        &self,
        key: K,
        kind: &'static str,
        priority: Priority,
        work: impl FnOnce(&CancelToken) -> Option<R> + Send + 'static,
    ) -> u64 {
        let mut batch = JobBatch::new();
        batch.submit(key, kind, priority, work);
        self.commit(batch)[0]
    }

    /// Changes the priority of a waiting job; false if it is not waiting.
    pub fn reprioritize(&self, key: &K, priority: Priority) -> bool {
        self.shared.queue.lock().reprioritize(key, priority.0)
    }

    /// Cancels the job for `key`, waiting or running; its result, if one
    /// arrives, is dropped. False if there was none.
    pub fn cancel(&self, key: &K) -> bool {
        let mut cancelled = Vec::new();
        let found = {
            let mut current = self.shared.current.lock();
            let mut queue = self.shared.queue.lock();
            cancel_locked(&mut current, &mut queue, key, &mut cancelled)
        };
        self.count(&[], &cancelled);
        found
    }

    /// Applies a batch's changes in order, taking each lock once (see
    /// `batch.rs` for why that matters to a frame). Returns the versions of
    /// its submissions, in order.
    pub fn commit(&self, batch: JobBatch<K, R>) -> Vec<u64> {
        let mut versions = Vec::new();
        let mut submitted = Vec::new();
        let mut cancelled = Vec::new();
        // Replaced jobs are dropped after the locks are released.
        let mut replaced = Vec::new();
        {
            let mut current = self.shared.current.lock();
            let mut queue = self.shared.queue.lock();
            for change in batch.changes {
                match change {
                    Change::Submit { key, kind, priority, work } => {
                        let version = self.versions.fetch_add(1, Ordering::Relaxed) + 1;
                        let token = CancelToken::new();
                        if let Some(old) = current.insert(key.clone(), Current { version, token: token.clone() }) {
                            old.token.cancel();
                        }
                        if let Some(old) = queue.push(key, priority.0, version, kind, token, work) {
                            cancelled.push(old.kind);
                            replaced.push(old);
                        }
                        submitted.push(kind);
                        versions.push(version);
                    }
                    Change::Reprioritize { key, priority } => {
                        queue.reprioritize(&key, priority.0);
                    }
                    Change::Cancel { key } => {
                        cancel_locked(&mut current, &mut queue, &key, &mut cancelled);
                    }
                }
            }
        }
        drop(replaced);
        self.count(&submitted, &cancelled);
        if let Some(pool) = &self.pool {
            for _ in 0..submitted.len() {
                let shared = Arc::clone(&self.shared);
                pool.spawn(move || {
                    run_one(&shared);
                });
            }
        }
        versions
    }

    /// Counts submissions and cancellations under one taking of the counters' lock.
    fn count(&self, submitted: &[&'static str], cancelled: &[&'static str]) {
        if submitted.is_empty() && cancelled.is_empty() {
            return;
        }
        let mut counters = self.shared.counters.lock();
        for kind in submitted {
            counters.submitted(kind);
        }
        for kind in cancelled {
            counters.cancelled(kind);
        }
    }

    /// Whether a current version of `key` is waiting, running or unread.
    #[must_use]
    pub fn is_pending(&self, key: &K) -> bool {
        self.shared.current.lock().contains_key(key)
    }

    /// Keys with a current version waiting, running or unread.
    #[must_use]
    pub fn pending(&self) -> usize {
        self.shared.current.lock().len()
    }

    /// Jobs waiting in the queue.
    #[must_use]
    pub fn queued(&self) -> usize {
        self.shared.queue.lock().len()
    }

    /// Runs up to `max` waiting jobs on this thread, most urgent first; returns
    /// how many ran. The way work gets done in single-threaded mode.
    pub fn run_pending(&self, max: usize) -> usize {
        (0..max).take_while(|_| run_one(&self.shared)).count()
    }

    /// Hands current results to `deliver` until `budget` has passed or none
    /// are left; stale ones are dropped. Returns how many were delivered.
    pub fn drain(&self, budget: Duration, mut deliver: impl FnMut(Completed<K, R>)) -> usize {
        let start = Instant::now();
        let mut delivered = 0;
        while start.elapsed() < budget {
            let Ok(done) = self.rx.try_recv() else { break };
            if let Some(done) = self.current(done) {
                deliver(done);
                delivered += 1;
            }
        }
        delivered
    }

    /// The next current result, waiting up to `timeout` (single-threaded: runs
    /// the most urgent job first if none is ready).
    pub fn wait(&self, timeout: Duration) -> Option<Completed<K, R>> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.pool.is_none() && self.rx.is_empty() && self.run_pending(1) == 0 {
                return None;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(done) => {
                    if let Some(done) = self.current(done) {
                        return Some(done);
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// Passes a result through if it belongs to the current version of its key.
    fn current(&self, done: Completed<K, R>) -> Option<Completed<K, R>> {
        let mut current = self.shared.current.lock();
        match current.get(&done.key) {
            Some(c) if c.version == done.version => {
                current.remove(&done.key);
                Some(done)
            }
            _ => {
                self.shared.counters.lock().stale(done.kind);
                None
            }
        }
    }

    /// A snapshot of the statistics.
    #[must_use]
    pub fn stats(&self) -> Stats {
        let queued = self.shared.queue.lock().len();
        self.shared.counters.lock().snapshot(queued, self.shared.running.load(Ordering::Relaxed))
    }
}

/// Cancels the job for `key` with both locks held (current, then queue):
/// its token is cancelled and a waiting one removed (its kind noted in
/// `cancelled`). False if there was none.
fn cancel_locked<K: Ord + Clone, R>(
    current: &mut BTreeMap<K, Current>,
    queue: &mut Queue<K, R>,
    key: &K,
    cancelled: &mut Vec<&'static str>,
) -> bool {
    let Some(c) = current.remove(key) else { return false };
    c.token.cancel();
    if let Some(w) = queue.remove(key) {
        cancelled.push(w.kind);
    }
    true
}

/// Sets the calling thread's OS priority to a worker's (best effort: where
/// the platform refuses, the thread runs at normal priority). The job
/// system's workers call it as they start; other background threads (the
/// world's planet makers) call it so they share the cores as the workers do.
pub fn set_worker_priority(priority: WorkerPriority) {
    // 23 of 0..=99 maps to nice 9 on Linux (weight about a tenth of nice 0).
    let Ok(nice_9) = thread_priority::ThreadPriorityValue::try_from(23u8) else { return };
    let low = thread_priority::ThreadPriority::Crossplatform(nice_9);
    #[cfg(target_os = "linux")]
    {
        use thread_priority::unix::{
            NormalThreadSchedulePolicy, ThreadSchedulePolicy, set_thread_priority_and_policy, thread_native_id,
        };
        let (policy, level) = match priority {
            WorkerPriority::Idle => (NormalThreadSchedulePolicy::Idle, thread_priority::ThreadPriority::Min),
            // The batch class keeps the nice-9 share, but a waking worker
            // never preempts a running thread (the kernel's wakeup
            // preemption skips batch tasks); only the tick can switch.
            WorkerPriority::Low => (NormalThreadSchedulePolicy::Batch, low),
        };
        if set_thread_priority_and_policy(thread_native_id(), level, ThreadSchedulePolicy::Normal(policy)).is_ok() {
            return;
        }
    }
    let _ = thread_priority::set_current_thread_priority(low);
}

/// Takes the most urgent waiting job and runs it; false if none was waiting.
fn run_one<K, R>(shared: &Shared<K, R>) -> bool
where
    K: Ord + Clone,
{
    if shared.shutting_down.load(Ordering::Relaxed) {
        return false;
    }
    let Some((key, job)) = shared.queue.lock().pop() else { return false };
    if job.token.is_cancelled() {
        shared.counters.lock().cancelled(job.kind);
        return true;
    }
    shared.running.fetch_add(1, Ordering::Relaxed);
    let start = Instant::now();
    let token = job.token.clone();
    // A panicking job must not take its worker (or the process) down: it counts as failed.
    let result = catch_unwind(AssertUnwindSafe(|| (job.work)(&token))).unwrap_or(None);
    let run_time = start.elapsed();
    shared.running.fetch_sub(1, Ordering::Relaxed);
    {
        let mut counters = shared.counters.lock();
        if result.is_some() {
            counters.completed(job.kind, run_time);
        } else {
            counters.cancelled(job.kind);
        }
    }
    // The receiver may be gone during shutdown; nothing to do then.
    let _ = shared.tx.send(Completed { key, version: job.version, kind: job.kind, result, run_time });
    true
}

impl<K, R> Drop for JobSystem<K, R> {
    /// Stops cleanly with work still queued: waiting jobs are dropped,
    /// running ones cancelled, and the pool winds down as they return.
    fn drop(&mut self) {
        self.shared.shutting_down.store(true, Ordering::Relaxed);
        for c in self.shared.current.lock().values() {
            c.token.cancel();
        }
        self.shared.queue.lock().clear();
    }
}
