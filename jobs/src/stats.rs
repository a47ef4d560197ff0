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
                let pick = |q: f64| nearest_rank(&sorted, q).unwrap_or_default();
                (k, KindStats { p50: pick(0.5), p95: pick(0.95), p99: pick(0.99), ..stats.clone() })
            })
            .collect();
        Stats { queued, running, kinds }
    }
}

/// The `q`-quantile (0..=1) of `sorted` (ascending) by nearest rank: the
/// smallest value with at least `q` of the values at or below it. The one
/// percentile of the project (job stats, frame times, smoke tests).
#[must_use]
pub fn nearest_rank<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::nearest_rank;

    #[test]
    fn nearest_rank_picks_the_smallest_value_covering_q() {
        let v: Vec<u32> = (1..=10).collect();
        assert_eq!(nearest_rank(&v, 0.5), Some(5));
        assert_eq!(nearest_rank(&v, 0.95), Some(10));
        assert_eq!(nearest_rank(&v, 0.0), Some(1));
        assert_eq!(nearest_rank(&[7], 0.99), Some(7));
        assert_eq!(nearest_rank::<u32>(&[], 0.5), None);
    }
}
