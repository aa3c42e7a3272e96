//! Readiness (feature `readiness`): the task says it is serving, and
//! `ready`-marked dependents may spawn (see `wait.rs` for the waits on it).

use super::{TaskNode, flag};
use crate::notify;
use crate::sync::Ordering;

impl TaskNode {
    /// Assert that this instance is serving: `ready`-marked dependents may spawn.
    pub fn set_ready(&self) {
        self.state.fetch_or(flag::READY, Ordering::AcqRel);
        // Also what `pool::request_scale` does: the pool driver re-evaluates
        // on this change.
        notify::changed();
    }

    /// Withdraw readiness. Status, not control: running dependents keep running.
    pub fn clear_ready(&self) {
        self.state.fetch_and(!flag::READY, Ordering::AcqRel);
        notify::changed();
    }

    /// The task asserted `set_ready()` (cleared by `clear_ready()` and the
    /// pre-spawn reset).
    pub fn is_ready(&self) -> bool {
        self.has(flag::READY)
    }
}
