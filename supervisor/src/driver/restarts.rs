//! `run()`'s restart pass (feature `restart`): when it runs. The pass
//! itself (policy, backoff, budget) is `supervisor/auto.rs`.

use embassy_executor::Spawner;
use embassy_time::Instant;

use crate::Supervisor;
use crate::fault::NodeFault;

/// When `run()` makes its restart pass: after a policy node started or
/// ended an instance (the policy epoch moved), or when the pass's own
/// deadline came. Other events cost one load (and a clock read while a
/// deadline is set).
pub(super) struct RestartWatch {
    seen: u32,
    due: Option<Instant>,
    first: bool,
}

impl RestartWatch {
    pub(super) fn new() -> Self {
        Self {
            seen: 0,
            due: None,
            first: true,
        }
    }

    /// Run the pass if it is wanted; the deadline it must run again at.
    pub(super) async fn poll<const N: usize, const USES: u8>(
        &mut self,
        sup: &Supervisor<N, USES>,
        spawner: Spawner,
    ) -> Result<Option<Instant>, NodeFault> {
        let epoch = crate::policy::epoch();
        // The clock is read only while a deadline is set.
        let due = |d: Instant| d.as_ticks() <= crate::clock::now();
        if self.first || epoch != self.seen || self.due.is_some_and(due) {
            self.first = false;
            // Taken before the pass: the restarts it makes move the epoch,
            // and one more (quiet) pass confirms them.
            self.seen = epoch;
            self.due = sup.restart_pass(spawner).await?;
        }
        Ok(self.due)
    }
}
