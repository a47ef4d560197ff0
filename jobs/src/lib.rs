//! A generic prioritized job system (DESIGN.md, "Streaming and jobs"). It
//! knows nothing of planets: jobs are closures keyed by any ordered key.
//!
//! - Jobs wait in a priority queue (lowest [`Priority`] first) whose entries
//!   can be re-prioritised or cancelled while they wait; a rayon pool takes the
//!   best waiting job whenever a thread is free.
//! - Each job gets a [`CancelToken`], checked before it starts and by the job
//!   itself between its stages.
//! - Submitting a key again supersedes the earlier version: if that one is
//!   still running, it is cancelled and its result dropped on arrival.
//! - A [`JobBatch`] gathers a frame's submissions, re-prioritisations and
//!   cancellations; [`JobSystem::commit`] applies them under one taking of
//!   the queue's lock, which the workers share.
//! - Results come back over a crossbeam channel; [`JobSystem::drain`] hands
//!   out only current ones, within a time budget.
//! - [`JobSystem::stats`] reports queue depth and run-time percentiles per kind.
//! - Worker threads run below normal OS priority (nice 9 in the batch class
//!   on Linux), so a frame's main thread is not preempted when it wakes a
//!   worker, on a machine with as many workers as cores;
//!   [`WorkerPriority::Idle`] puts them in the idle class, where they run
//!   only on cores nothing else wants.
//! - With zero threads the system is single-threaded: nothing runs until
//!   [`JobSystem::run_pending`] runs jobs on the caller, in priority order
//!   (for tests and replay).
//!
//! ```
//! use jobs::{JobSystem, Priority};
//!
//! let jobs: JobSystem<u32, u64> = JobSystem::new(2);
//! for n in 0..10u32 {
//!     jobs.submit(n, "square", Priority(u64::from(10 - n)), move |_cancel| Some(u64::from(n) * u64::from(n)));
//! }
//! let mut results = Vec::new();
//! while results.len() < 10 {
//!     results.extend(jobs.wait(std::time::Duration::from_secs(5)).map(|done| done.result.unwrap()));
//! }
//! results.sort();
//! assert_eq!(results[9], 81);
//! ```

mod batch;
mod cancel;
mod queue;
mod stats;
mod system;

pub use batch::JobBatch;
pub use cancel::CancelToken;
pub use stats::{KindStats, Stats, nearest_rank};
pub use system::{Completed, JobSystem, Priority, WorkerPriority, set_worker_priority};
