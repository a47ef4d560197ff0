//! The job system: priority order, re-prioritising, cancellation, superseded
//! versions, no lost or duplicated results under many producers, statistics,
//! panics, and a clean shutdown with work still queued.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use jobs::{JobSystem, Priority};

fn collect<R: Send + 'static>(jobs: &JobSystem<u32, R>, n: usize) -> Vec<(u32, R)> {
    let mut out = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while out.len() < n && Instant::now() < deadline {
        if let Some(done) = jobs.wait(Duration::from_millis(100)) {
            out.push((done.key, done.result.expect("finished")));
        }
    }
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
fn a_pool_prefers_urgent_jobs() {
    // One worker, kept busy by a blocker while the others queue up.
    let jobs: JobSystem<u32, u32> = JobSystem::new(1);
    let gate = Arc::new(AtomicUsize::new(0));
    let g = Arc::clone(&gate);
    jobs.submit(0, "blocker", Priority(0), move |_| {
        while g.load(Ordering::SeqCst) == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        Some(0)
    });
    std::thread::sleep(Duration::from_millis(50));
    for key in 1..=20u32 {
        jobs.submit(key, "t", Priority(u64::from(100 - key)), move |_| Some(key));
    }
    gate.store(1, Ordering::SeqCst);
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
        for _ in 0..2000 {
            if cancel.is_cancelled() {
                return None; // stops between stages
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Some(1)
    });
    while started.load(Ordering::SeqCst) == 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    jobs.submit(7, "slow", Priority(0), |_| Some(2)); // supersedes the running one
    let got = collect(&jobs, 1);
    assert_eq!(got, vec![(7, 2)]);
    std::thread::sleep(Duration::from_millis(50));
    assert!(jobs.wait(Duration::from_millis(50)).is_none(), "the superseded result must be dropped");
    let stats = jobs.stats();
    assert!(stats.kinds["slow"].cancelled + stats.kinds["slow"].stale >= 1, "{stats:?}");
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
    for _ in 0..2 {
        if let Some(d) = jobs.wait(Duration::from_secs(5)) {
            results.push((d.key, d.result));
        }
    }
    results.sort();
    assert_eq!(results, vec![(1, None), (2, Some(2))]);
}

#[test]
fn shutting_down_with_work_queued_is_clean() {
    let ran = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    {
        let jobs: JobSystem<u32, u32> = JobSystem::new(2);
        for key in 0..10_000u32 {
            let ran = Arc::clone(&ran);
            jobs.submit(key, "queued", Priority(0), move |cancel| {
                ran.fetch_add(1, Ordering::SeqCst);
                for _ in 0..10 {
                    if cancel.is_cancelled() {
                        return None;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                Some(key)
            });
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    // Dropped with thousands waiting: few ran, and dropping did not wait for the rest.
    std::thread::sleep(Duration::from_millis(100));
    let n = ran.load(Ordering::SeqCst);
    assert!(n < 200, "{n} jobs ran after shutdown began");
    assert!(start.elapsed() < Duration::from_secs(5));
}
