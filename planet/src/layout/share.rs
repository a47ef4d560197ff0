//! The layout's work shared among the cores: per-cell maps split into
//! contiguous shares, and independent parts run side by side. Every share
//! computes exactly what one thread would, in the same order within a cell,
//! so the layout is the same bits on any number of threads (the golden
//! layout signatures, and `the_layout_does_not_depend_on_the_threads`). A
//! thread that cannot be started, or that panicked, leaves its work to the
//! calling thread (where a panic goes on up, as it would without threads).

use std::ops::Range;

/// Threads a layout shares its work among: the cores, at most four.
#[must_use]
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 4)
}

/// `f` of every index below `len`, in order, the indexes shared among up to
/// `threads` threads in contiguous runs.
pub fn map<T: Send>(len: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let run = |range: Range<usize>| -> Vec<T> { range.map(&f).collect() };
    let chunk = len.div_ceil(threads.max(1)).max(1);
    let ranges: Vec<Range<usize>> = (0..len).step_by(chunk).map(|a| a..(a + chunk).min(len)).collect();
    let Some((mine, others)) = ranges.split_first() else { return Vec::new() };
    if others.is_empty() {
        return run(mine.clone());
    }
    let parts: Vec<Vec<T>> = std::thread::scope(|scope| {
        let spawned: Vec<_> =
            others.iter().map(|r| (r, std::thread::Builder::new().spawn_scoped(scope, || run(r.clone())))).collect();
        let mut parts = vec![run(mine.clone())];
        for (r, thread) in spawned {
            parts.push(thread.ok().and_then(|t| t.join().ok()).unwrap_or_else(|| run(r.clone())));
        }
        parts
    });
    parts.into_iter().flatten().collect()
}

/// `a` and `b`, side by side where there is more than one thread.
pub fn join<A: Send, B>(threads: usize, a: impl Fn() -> A + Sync, b: impl FnOnce() -> B) -> (A, B) {
    if threads <= 1 {
        return (a(), b());
    }
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().spawn_scoped(scope, &a);
        let got_b = b();
        (thread.ok().and_then(|t| t.join().ok()).unwrap_or_else(&a), got_b)
    })
}
