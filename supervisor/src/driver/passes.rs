//! The passes `run()` makes between its waits: pools (`driver/pools.rs`),
//! the controller (`controller/drive.rs`), automatic restarts
//! (`driver/restarts.rs`), each in its feature's own file, then the wait.
//! [`Passes::drive`] is their order, one line each; a pass whose feature is
//! off is no line.
// Lines in the loop, not one future per pass (with a ready `Ok(None)` for
// a feature that is off) nor an `async fn` for all of them: each such
// await or layer was state and code of the driver's future (FPRUN +280 B
// and +68 B of flash, bench/budget.sh).

use core::convert::Infallible;

use embassy_executor::Spawner;
#[cfg(any(feature = "controller", feature = "restart"))]
use embassy_time::Instant;

#[cfg(feature = "control")]
use embassy_futures::select::Either;

use super::logged;
#[cfg(not(feature = "control"))]
use super::wait_change;
use crate::Supervisor;
use crate::fault::NodeFault;
#[cfg(not(feature = "pool"))]
use crate::notify;

/// What the passes keep across the driver's waits.
pub(super) struct Passes {
    #[cfg(feature = "pool")]
    pools: super::pools::PoolDrive,
    #[cfg(feature = "restart")]
    restarts: super::restarts::RestartWatch,
}

impl Passes {
    fn new() -> Self {
        Self {
            #[cfg(feature = "pool")]
            pools: super::pools::PoolDrive::default(),
            #[cfg(feature = "restart")]
            restarts: super::restarts::RestartWatch::new(),
        }
    }

    /// `run()`: `start` (a refusal logged), then every pass once, in
    /// order, and the wait for a control command (feature `control`), a
    /// change, or the earliest deadline a pass gave; forever, or until the
    /// fault that ends `run()`.
    // With neither pools nor restarts there is nothing to keep.
    #[cfg_attr(
        not(any(feature = "pool", feature = "restart")),
        allow(unused_mut, unused_variables)
    )]
    pub(super) async fn drive<const N: usize, const USES: u8>(
        sup: &Supervisor<N, USES>,
        spawner: Spawner,
    ) -> Result<Infallible, NodeFault> {
        sup.start(spawner).await.or_else(logged("start"))?;
        // Made after `start`: not kept beside its future (RAM).
        let mut passes = Self::new();
        #[cfg(feature = "control")]
        let mine = |n: &crate::TaskNode| sup.graph().index_of(n).is_some();
        loop {
            // The epoch the wait compares against, read before the passes
            // (with pools, by the pool pass, which moves it past its own
            // stop request).
            #[cfg(not(feature = "pool"))]
            let epoch = notify::epoch();
            // The passes: when one must run again even if nothing changes.
            #[cfg(feature = "pool")]
            let due = sup.scale_pools(&mut passes.pools, spawner).await?;
            #[cfg(not(feature = "pool"))]
            let due = None;
            #[cfg(feature = "controller")]
            let due = earliest(due, sup.drive_controller(spawner).await?);
            #[cfg(feature = "restart")]
            let due = earliest(due, passes.restarts.poll(sup, spawner).await?);
            #[cfg(feature = "pool")]
            let epoch = passes.pools.since();
            // The wait, and the command it brought.
            #[cfg(feature = "control")]
            if let Either::First(cmd) = Supervisor::<N, USES>::next_command(&mine, epoch, due).await
            {
                let applied = sup.apply_control(cmd, spawner).await;
                applied.or_else(logged("control"))?;
            }
            #[cfg(not(feature = "control"))]
            wait_change(epoch, due).await;
        }
    }
}

/// The earlier of two optional deadlines.
#[cfg(any(feature = "controller", feature = "restart"))]
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
