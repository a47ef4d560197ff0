//! `JobBatch`: a frame's submissions, re-prioritisations and cancellations,
//! applied under one taking of the queue's lock.
//!
//! Why: a streaming update touches hundreds of waiting jobs a frame, and the
//! workers pop under the same lock. Taken once per job, the lock is often
//! found held; the frame's thread then spins briefly, yields its core to a
//! runnable worker and, on a kernel with lazy preemption, waits for the next
//! scheduler tick (4 ms on a 250 Hz kernel) to get it back. Measured on the
//! low pass with two workers on two cores: one frame in 60 had its update
//! stretched by 2 to 5 ms that way. A batch meets the workers once a frame.

use crate::queue::Work;
use crate::system::Priority;

/// One change to the queue.
pub(crate) enum Change<K, R> {
    Submit { key: K, kind: &'static str, priority: Priority, work: Work<R> },
    Reprioritize { key: K, priority: Priority },
    Cancel { key: K },
}

/// Job changes gathered to be applied together, in order, by
/// [`crate::JobSystem::commit`].
pub struct JobBatch<K, R> {
    pub(crate) changes: Vec<Change<K, R>>,
}

impl<K, R> Default for JobBatch<K, R> {
    fn default() -> Self {
        Self { changes: Vec::new() }
    }
}

impl<K, R> std::fmt::Debug for JobBatch<K, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobBatch").field("changes", &self.changes.len()).finish()
    }
}

impl<K, R> JobBatch<K, R> {
    /// An empty batch.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the batch holds no change.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Changes gathered.
    #[must_use]
    pub fn len(&self) -> usize {
        self.changes.len()
    }

    /// Submits `work` for `key` on commit, as [`crate::JobSystem::submit`].
    pub fn submit(
        &mut self,
        key: K,
        kind: &'static str,
        priority: Priority,
        work: impl FnOnce(&crate::CancelToken) -> Option<R> + Send + 'static,
    ) {
        self.changes.push(Change::Submit { key, kind, priority, work: Box::new(work) });
    }

    /// Re-prioritises the waiting job of `key` on commit, as
    /// [`crate::JobSystem::reprioritize`] (nothing if it is not waiting then).
    pub fn reprioritize(&mut self, key: K, priority: Priority) {
        self.changes.push(Change::Reprioritize { key, priority });
    }

    /// Cancels the job of `key` on commit, as [`crate::JobSystem::cancel`].
    pub fn cancel(&mut self, key: K) {
        self.changes.push(Change::Cancel { key });
    }
}
