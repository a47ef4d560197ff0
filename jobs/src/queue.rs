//! The waiting jobs: ordered by (priority, arrival), findable by key, so a
//! waiting job can be re-prioritised or removed in O(log n).

use std::collections::BTreeMap;

use crate::cancel::CancelToken;

/// A job's work: it gets its token and returns its result, or `None` if it stopped early.
pub(crate) type Work<R> = Box<dyn FnOnce(&CancelToken) -> Option<R> + Send>;

/// A waiting job.
pub(crate) struct Waiting<R> {
    pub(crate) version: u64,
    pub(crate) kind: &'static str,
    pub(crate) token: CancelToken,
    pub(crate) work: Work<R>,
    order: (u64, u64),
}

/// The priority queue.
pub(crate) struct Queue<K, R> {
    by_order: BTreeMap<(u64, u64), K>,
    by_key: BTreeMap<K, Waiting<R>>,
    arrivals: u64,
}

impl<K: Ord + Clone, R> Queue<K, R> {
    pub(crate) fn new() -> Self {
        Self { by_order: BTreeMap::new(), by_key: BTreeMap::new(), arrivals: 0 }
    }

    pub(crate) fn len(&self) -> usize {
        self.by_key.len()
    }

    /// Adds (or replaces) the job for `key`; returns the replaced one.
    pub(crate) fn push(
        &mut self,
        key: K,
        priority: u64,
        version: u64,
        kind: &'static str,
        token: CancelToken,
        work: Work<R>,
    ) -> Option<Waiting<R>> {
        let old = self.remove(&key);
        self.arrivals += 1;
        let order = (priority, self.arrivals);
        self.by_order.insert(order, key.clone());
        self.by_key.insert(key, Waiting { version, kind, token, work, order });
        old
    }

    /// Removes the job for `key`.
    pub(crate) fn remove(&mut self, key: &K) -> Option<Waiting<R>> {
        let w = self.by_key.remove(key)?;
        self.by_order.remove(&w.order);
        Some(w)
    }

    /// Changes the priority of a waiting job; false if it is not waiting.
    pub(crate) fn reprioritize(&mut self, key: &K, priority: u64) -> bool {
        let Some(w) = self.by_key.get_mut(key) else { return false };
        self.by_order.remove(&w.order);
        // Keep its arrival order among equals.
        w.order.0 = priority;
        self.by_order.insert(w.order, key.clone());
        true
    }

    /// Takes the most urgent job.
    pub(crate) fn pop(&mut self) -> Option<(K, Waiting<R>)> {
        let (_, key) = self.by_order.pop_first()?;
        let w = self.by_key.remove(&key).expect("both maps hold every job");
        Some((key, w))
    }
}

impl<K, R> Queue<K, R> {
    /// Empties the queue, dropping every waiting job.
    pub(crate) fn clear(&mut self) {
        self.by_order.clear();
        self.by_key.clear();
    }
}
