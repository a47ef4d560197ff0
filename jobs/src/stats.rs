//! Job statistics: queue depth, and per kind of job the counts and the
//! run-time percentiles of its most recent runs.

use std::collections::BTreeMap;
use std::time::Duration;

/// How many recent run times each kind keeps for its percentiles.
const WINDOW: usize = 4096;

/// Statistics of one kind of job.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KindStats {
    /// Jobs of this kind submitted.
    pub submitted: u64,
    /// Jobs that ran to the end (current or not).
    pub completed: u64,
    /// Jobs cancelled before or while running.
    pub cancelled: u64,
    /// Results dropped because a newer version had been submitted.
    pub stale: u64,
    /// Run time percentiles (p50, p95, p99) over the recent runs.
    pub p50: Duration,
    /// 95th percentile.
    pub p95: Duration,
    /// 99th percentile.
    pub p99: Duration,
}

/// A snapshot of the job system.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Jobs waiting in the queue.
    pub queued: usize,
    /// Jobs running now.
    pub running: usize,
    /// Per kind.
    pub kinds: BTreeMap<&'static str, KindStats>,
}

/// The live counters behind `Stats`.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    kinds: BTreeMap<&'static str, (KindStats, Vec<Duration>, usize)>,
}

impl Counters {
    fn kind(&mut self, kind: &'static str) -> &mut (KindStats, Vec<Duration>, usize) {
        self.kinds.entry(kind).or_default()
    }

    pub(crate) fn submitted(&mut self, kind: &'static str) {
        self.kind(kind).0.submitted += 1;
    }

    pub(crate) fn cancelled(&mut self, kind: &'static str) {
        self.kind(kind).0.cancelled += 1;
    }

    pub(crate) fn stale(&mut self, kind: &'static str) {
        self.kind(kind).0.stale += 1;
    }

    pub(crate) fn completed(&mut self, kind: &'static str, run_time: Duration) {
        let (stats, times, next) = self.kind(kind);
        stats.completed += 1;
        if times.len() < WINDOW {
            times.push(run_time);
        } else {
            times[*next] = run_time;
            *next = (*next + 1) % WINDOW;
        }
    }

    pub(crate) fn snapshot(&self, queued: usize, running: usize) -> Stats {
        let kinds = self
            .kinds
            .iter()
            .map(|(&k, (stats, times, _))| {
                let mut sorted = times.clone();
                sorted.sort_unstable();
                let pick = |q: f64| {
                    if sorted.is_empty() {
                        Duration::ZERO
                    } else {
                        sorted[((sorted.len() - 1) as f64 * q).round() as usize]
                    }
                };
                (k, KindStats { p50: pick(0.5), p95: pick(0.95), p99: pick(0.99), ..stats.clone() })
            })
            .collect();
        Stats { queued, running, kinds }
    }
}
