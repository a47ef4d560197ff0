//! The generic job system (DESIGN.md, "Streaming and jobs"): jobs taken from a
//! priority queue onto a thread pool, results over a channel, cancellation
//! tokens and per-frame budgets. It knows nothing of planets.
//!
//! Not built yet: issue 5 fills this crate. It exists so the workspace has its
//! final shape and the crate graph (`engine` depends on `jobs`) is in place.
