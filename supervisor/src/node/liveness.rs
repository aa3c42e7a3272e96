//! Liveness (feature `liveness`): the heartbeat a node's task stamps and
//! the age `health.rs` polices against its `beat_timeout:`.

use super::{TaskNode, now_ticks32};
use crate::notify;
use crate::sync::Ordering;

impl TaskNode {
    /// Heartbeat: stamp the embassy-time clock.
    pub fn beat(&self) {
        self.last_beat.store(now_ticks32(), Ordering::Release);
        // A plain load on the hot path; the read-modify-write (and the
        // wake of `wait_health`, which polices the node again) only on the
        // recovery after a stale report.
        if self.stale.load(Ordering::Acquire) {
            self.stale.store(false, Ordering::Release);
            notify::changed();
        }
    }

    /// Ticks between the last beat and `now` (a truncated tick count).
    pub(crate) fn beat_age_at(&self, now: u32) -> u32 {
        now.wrapping_sub(self.last_beat.load(Ordering::Acquire))
    }

    /// Mark this instance reported stale: `true` if it was not yet.
    pub(crate) fn claim_stale_report(&self) -> bool {
        !self.stale.swap(true, Ordering::AcqRel)
    }

    /// embassy-time ticks since the last beat (a fresh spawn counts as one).
    /// Wraps after `u32::MAX` ticks; sample faster than that.
    pub fn ticks_since_beat(&self) -> u32 {
        now_ticks32().wrapping_sub(self.last_beat.load(Ordering::Acquire))
    }

    /// Running, but no beat within `max_age`.
    pub fn is_stale(&self, max_age: embassy_time::Duration) -> bool {
        self.is_running() && u64::from(self.ticks_since_beat()) > max_age.as_ticks()
    }
}
