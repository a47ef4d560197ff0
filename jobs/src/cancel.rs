//! Cancellation tokens: a shared flag a job checks before it starts and
//! between its stages.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A job's cancellation flag. Cloning shares it.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A fresh, uncancelled token.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the job to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the job should stop; check it between stages.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
