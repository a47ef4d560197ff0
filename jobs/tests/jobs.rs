//! The job system: priority order, re-prioritising, cancellation, superseded
//! versions, batches that act as the same calls one by one, no lost or duplicated results under many producers, statistics,
//! panics, and a clean shutdown with work still queued.
//!
//! No test passes or fails on elapsed time: each waits for an event it
//! counts (a job started, a result arrived, a stale result was dropped),
//! and every wait is bounded by a deadline that fails with what it awaited.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use jobs::{JobBatch, JobSystem, Priority, WorkerPriority};

/// How long any wait may take before the test fails saying what it awaited
/// (far beyond what the event needs, even on a loaded machine).
const PATIENCE: Duration = Duration::from_secs(120);

/// Waits until `done` holds, failing with `what` past [`PATIENCE`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting for {what} after {PATIENCE:?}");
        std::thread::yield_now();
    }
}

/// The next `n` results, in arrival order.
fn collect<R: Send + 'static>(jobs: &JobSystem<u32, R>, n: usize) -> Vec<(u32, R)> {
    let mut out = Vec::new();
    wait_until(&format!("{n} results"), || {
        if let Some(done) = jobs.wait(Duration::from_millis(100)) {
            out.push((done.key, done.result.expect("finished")));
        }
        out.len() >= n
    });
    out
}

#[test]
fn single_threaded_runs_in_priority_order() {
    let jobs: JobSystem<u32, u32> = JobSystem::new(0);
    for (key, priority) in [(1, 50), (2, 10), (3, 30), (4, 20), (5, 40)] {
        jobs.submit(key, "t", Priority(priority), move |_| Some(key));
    }
    // Nothing runs until asked.
    assert_eq!(jobs.drain(Duration::from_secs(1), |_| panic!("ran early")), 0);
    assert!(jobs.reprioritize(&5, Priority(0)));
    assert!(!jobs.reprioritize(&99, Priority(0)));
    assert_eq!(jobs.run_pending(100), 5);
    let mut order = Vec::new();
    jobs.drain(Duration::from_secs(1), |d| order.push(d.key));
    assert_eq!(order, vec![5, 2, 4, 3, 1]);
}

#[test]
fn a_batch_applies_its_changes_in_order_as_single_calls_would() {
    // Random batches of submissions, re-prioritisations and cancellations
    // over a few keys, applied once as a batch and once call by call:
    // the same jobs run, in the same order, with the same counts.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    for _case in 0..200 {
        let batched: JobSystem<u32, (u32, u64)> = JobSystem::new(0);
        let single: JobSystem<u32, (u32, u64)> = JobSystem::new(0);
        let mut batch = JobBatch::new();
        let mut submitted = 0;
        for step in 0..next(30) {
            let key = next(6) as u32;
            let priority = Priority(next(10));
            match next(3) {
                0 => {
                    batch.submit(key, "t", priority, move |_| Some((key, step)));
                    submitted += 1;
                    single.submit(key, "t", priority, move |_| Some((key, step)));
                }
                1 => {
                    batch.reprioritize(key, priority);
                    single.reprioritize(&key, priority);
                }
                _ => {
                    batch.cancel(key);
                    single.cancel(&key);
                }
            }
        }
        assert_eq!(batched.commit(batch).len(), submitted);
        let run = |jobs: &JobSystem<u32, (u32, u64)>| {
            jobs.run_pending(100);
            let mut order = Vec::new();
            jobs.drain(Duration::from_secs(1), |d| order.push(d.result.expect("ran")));
            let stats = jobs.stats().kinds.get("t").map(|k| (k.submitted, k.cancelled));
            (order, stats)
        };
        assert_eq!(run(&batched), run(&single));
    }
}

#[test]
fn idle_class_workers_run_every_job() {
    // The waits below sleep in `recv_timeout`, so this thread leaves its core
    // to the idle-class workers.
    let jobs: JobSystem<u32, u32> = JobSystem::with_priority(2, WorkerPriority::Idle);
    for key in 0..64u32 {
        jobs.submit(key, "t", Priority(u64::from(key)), move |_| Some(key * 2));
    }
    let mut got: Vec<(u32, u32)> = collect(&jobs, 64);
    got.sort_unstable();
    assert_eq!(got, (0..64).map(|k| (k, k * 2)).collect::<Vec<_>>());
}

/// The calling thread's scheduling policy and nice value, from
/// `/proc/thread-self/stat` (fields 41 and 19, counted from 1).
#[cfg(target_os = "linux")]
fn policy_and_nice() -> (u32, i32) {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("/proc/thread-self/stat");
    // Fields after the command name (which may hold spaces) start at field 3.
    let fields: Vec<&str> = stat.rsplit_once(')').expect("stat has a command name").1.split_whitespace().collect();
    (fields[41 - 3].parse().expect("policy"), fields[19 - 3].parse().expect("nice"))
}

/// Low workers are in the batch class at nice 9 (a waking worker must not
/// preempt the frame's thread), idle ones in the idle class.
#[cfg(target_os = "linux")]
#[test]
fn workers_take_their_scheduling_class() {
    const SCHED_BATCH: u32 = 3;
    const SCHED_IDLE: u32 = 5;
    for (priority, policy, nice) in
        [(WorkerPriority::Low, SCHED_BATCH, Some(9)), (WorkerPriority::Idle, SCHED_IDLE, None)]
    {
        let jobs: JobSystem<u32, (u32, i32)> = JobSystem::with_priority(2, priority);
        for key in 0..8u32 {
            jobs.submit(key, "t", Priority(0), move |_| Some(policy_and_nice()));
        }
        for (key, (got_policy, got_nice)) in collect(&jobs, 8) {
            assert_eq!(got_policy, policy, "{priority:?} worker (job {key}): policy");
            if let Some(nice) = nice {
                assert_eq!(got_nice, nice, "{priority:?} worker (job {key}): nice");
            }
        }
    }
    // The thread that made the pools keeps its own class.
    assert_eq!(policy_and_nice().0, 0, "the caller's policy changed");
}

#[test]
fn a_pool_prefers_urgent_jobs() {
    // One worker, kept busy by a blocker while the others queue up.
    let jobs: JobSystem<u32, u32> = JobSystem::new(1);
    let gate = Arc::new(AtomicUsize::new(0));
    let g = Arc::clone(&gate);
    jobs.submit(0, "blocker", Priority(0), move |_| {
        g.store(1, Ordering::SeqCst);
        while g.load(Ordering::SeqCst) == 1 {
            std::thread::yield_now();
        }
        Some(0)
    });
    // The one worker is inside the blocker: everything below queues.
    wait_until("the blocker to start", || gate.load(Ordering::SeqCst) == 1);
    for key in 1..=20u32 {
        jobs.submit(key, "t", Priority(u64::from(100 - key)), move |_| Some(key));
    }
    gate.store(2, Ordering::SeqCst);
    let order: Vec<u32> = collect(&jobs, 21).into_iter().map(|(k, _)| k).collect();
    assert_eq!(order[0], 0);
    assert_eq!(order[1..], (1..=20).rev().collect::<Vec<_>>()[..]);
}

#[test]
fn cancelled_and_superseded_jobs_deliver_nothing() {
    let jobs: JobSystem<u32, &'static str> = JobSystem::new(0);
    jobs.submit(1, "t", Priority(1), |_| Some("first"));
    jobs.submit(1, "t", Priority(1), |_| Some("second")); // replaces the waiting one
    jobs.submit(2, "t", Priority(2), |_| Some("two"));
    assert!(jobs.cancel(&2));
    assert!(!jobs.cancel(&2));
    jobs.run_pending(10);
    let mut got = Vec::new();
    jobs.drain(Duration::from_secs(1), |d| got.push(d.result.unwrap()));
    assert_eq!(got, vec!["second"]);

    // A running job is cancelled through its token, and a late result is dropped.
    let jobs: JobSystem<u32, u32> = JobSystem::new(2);
    let started = Arc::new(AtomicUsize::new(0));
    let s = Arc::clone(&started);
    jobs.submit(7, "slow", Priority(0), move |cancel| {
        s.store(1, Ordering::SeqCst);
        // Runs until superseded: it stops between stages once its token is set.
        while !cancel.is_cancelled() {
            std::thread::yield_now();
        }
        None
    });
    wait_until("the slow job to start", || started.load(Ordering::SeqCst) == 1);
    jobs.submit(7, "slow", Priority(0), |_| Some(2)); // supersedes the running one
    let got = collect(&jobs, 1);
    assert_eq!(got, vec![(7, 2)]);
    // The superseded run stops at its token and its result arrives stale:
    // no `wait` ever hands it out, until the drop has been counted.
    wait_until("the superseded result to arrive and be dropped", || {
        assert!(jobs.wait(Duration::from_millis(10)).is_none(), "the superseded result must be dropped");
        jobs.stats().kinds["slow"].stale >= 1
    });
    assert_eq!(jobs.stats().kinds["slow"].cancelled, 1, "{:?}", jobs.stats());
}

#[test]
fn many_producers_lose_and_duplicate_nothing() {
    let jobs: Arc<JobSystem<u32, u32>> = Arc::new(JobSystem::new(4));
    let producers: Vec<_> = (0..8u32)
        .map(|p| {
            let jobs = Arc::clone(&jobs);
            std::thread::spawn(move || {
                for i in 0..500u32 {
                    let key = p * 1000 + i;
                    jobs.submit(key, "stress", Priority(u64::from(i % 17)), move |_| Some(key * 2));
                }
            })
        })
        .collect();
    for p in producers {
        p.join().unwrap();
    }
    let mut got = collect(&jobs, 4000);
    assert_eq!(got.len(), 4000);
    got.sort_unstable();
    got.dedup();
    assert_eq!(got.len(), 4000, "duplicates");
    assert!(got.iter().all(|&(k, v)| v == k * 2));
    let stats = jobs.stats();
    assert_eq!(stats.kinds["stress"].completed, 4000);
    assert_eq!(stats.queued, 0);
    assert!(stats.kinds["stress"].p50 <= stats.kinds["stress"].p99);
}

#[test]
fn a_panicking_job_fails_alone() {
    let jobs: JobSystem<u32, u32> = JobSystem::new(1);
    jobs.submit(1, "bad", Priority(0), |_| panic!("boom"));
    jobs.submit(2, "good", Priority(1), |_| Some(2));
    let mut results = Vec::new();
    wait_until("both results", || {
        if let Some(d) = jobs.wait(Duration::from_millis(100)) {
            results.push((d.key, d.result));
        }
        results.len() == 2
    });
    results.sort();
    assert_eq!(results, vec![(1, None), (2, Some(2))]);
}

#[test]
fn shutting_down_with_work_queued_is_clean() {
    let (ran, returned) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let at_drop;
    {
        let jobs: JobSystem<u32, u32> = JobSystem::new(2);
        for key in 0..10_000u32 {
            let (ran, returned) = (Arc::clone(&ran), Arc::clone(&returned));
            jobs.submit(key, "queued", Priority(0), move |cancel| {
                ran.fetch_add(1, Ordering::SeqCst);
                // Runs until cancelled: only shutting down ends it.
                while !cancel.is_cancelled() {
                    std::thread::yield_now();
                }
                returned.fetch_add(1, Ordering::SeqCst);
                None
            });
        }
        wait_until("both workers to be inside a job", || ran.load(Ordering::SeqCst) == 2);
        at_drop = ran.load(Ordering::SeqCst);
    }
    // Dropping did not wait for the queue (its jobs never end by themselves):
    // it cancelled the running ones, which return, and no other job starts.
    wait_until("the running jobs to return", || returned.load(Ordering::SeqCst) == at_drop);
    for _ in 0..1000 {
        std::thread::yield_now();
    }
    assert_eq!(ran.load(Ordering::SeqCst), at_drop, "jobs started after shutdown began");
}
