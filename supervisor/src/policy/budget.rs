//! The intensity limit: a ring of the last `R` restart stamps. The
//! `(R+1)`th restart inside `T` milliseconds is refused before anything
//! stops; a restart older than `T` leaves the window and stops counting.

use crate::sync::{AtomicU8, Ordering, PublicAtomicU32 as AtomicU32};

use super::{RestartSpec, ms_to_ticks32};

/// A node's budget log: one 32-bit stamp per allowed restart. The macro
/// emits one per node (and pool member) with a `restart_budget:`.
pub type RestartLog<const R: usize> = [AtomicU32; R];

/// Where the ring stands: the next slot to write and how many are filled.
pub(crate) struct Cursor {
    next: AtomicU8,
    filled: AtomicU8,
}

impl Cursor {
    pub(crate) const fn new() -> Self {
        Self {
            next: AtomicU8::new(0),
            filled: AtomicU8::new(0),
        }
    }
}

/// A refused restart: the restarts already inside the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spent {
    pub restarts: u16,
    pub window_ms: u32,
}

impl RestartSpec {
    /// Count a restart at `now` (32-bit ticks) against the budget: `Err`
    /// (nothing recorded) if `R` restarts already lie inside the window.
    /// O(1): with the ring full, its oldest stamp decides.
    pub(crate) fn take_budget(&self, now: u32) -> Result<(), Spent> {
        let Some((max, window_ms)) = self.budget else {
            return Ok(());
        };
        let cur = &self.state.log;
        let len = self.log.len();
        let next = usize::from(cur.next.load(Ordering::Relaxed)) % len;
        let filled = usize::from(cur.filled.load(Ordering::Relaxed));
        if filled >= len {
            let oldest = self.log[next].load(Ordering::Relaxed);
            if now.wrapping_sub(oldest) < ms_to_ticks32(window_ms) {
                return Err(Spent {
                    restarts: max,
                    window_ms,
                });
            }
        }
        self.log[next].store(now, Ordering::Relaxed);
        cur.next.store(((next + 1) % len) as u8, Ordering::Relaxed);
        cur.filled
            .store((filled + 1).min(len) as u8, Ordering::Relaxed);
        Ok(())
    }
}
