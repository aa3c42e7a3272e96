//! The driver: `run` = `start`, then one loop (`driver/passes.rs`) of named
//! passes (pools, the controller, restarts) and a wait for a control
//! command, a lifecycle or load change, or a pass's deadline.

use embassy_executor::Spawner;
use embassy_time::Instant;

use crate::Supervisor;
use crate::fault::{NodeFault, RunError};
use crate::log::log_warn;
#[cfg(any(feature = "pool", feature = "controller", feature = "restart"))]
use crate::notify;

#[cfg(feature = "control")]
mod control;
mod passes;
#[cfg(feature = "pool")]
mod pools;
#[cfg(feature = "restart")]
mod restarts;

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
    /// Drive the graph's pools forever: wake on load and lifecycle changes and
    /// on policy deadlines (never polls), grow and shrink one member at a
    /// time. Completes only when a shrink hits a member that misses its ack.
    /// The fault is [`FaultKind::AckMissed`](crate::FaultKind::AckMissed).
    #[cfg(feature = "pool")]
    pub async fn run_pools(&self, spawner: Spawner) -> NodeFault {
        let mut pools = pools::PoolDrive::default();
        loop {
            // The pass reads the epoch the wait compares against.
            match self.scale_pools(&mut pools, spawner).await {
                Ok(deadline) => {
                    wait_change(pools.since(), deadline).await;
                }
                Err(e) => return e,
            }
        }
    }

    /// `start`, then drive pools, the controller, control and (feature
    /// `restart`) automatic restarts forever.
    /// Returns only on a fault, naming the node: a failed bring-up (which
    /// gate stayed closed, or why the spawn was refused), a control command
    /// that could not bring a node up (`Activate`, `Restart`; see
    /// `apply_control`, feature `control`), or a stop (pool shrink,
    /// `Deactivate`, `Restart`, a controller's Replace) that missed its ack.
    /// A refused control command is logged, not returned; a pool member that
    /// fails to grow is not a fault either: the pool tries again at its next
    /// change. An automatic restart whose budget is spent tears the graph
    /// down and returns [`FaultKind::Escalated`](crate::FaultKind::Escalated).
    /// A refusal in the initial `start` (a node latched or a teardown begun
    /// while it came up) is logged like a refused command, and the loop
    /// goes on: a race lost by microseconds must not end the driver.
    ///
    /// The value is a [`RunError`]: the fault in the specification's two
    /// arms (`Shutdown` for a missed ack, `Spawn` for the rest); it derefs
    /// to the [`NodeFault`].
    pub async fn run(&self, spawner: Spawner) -> RunError {
        let Err(fault) = passes::Passes::drive(self, spawner).await;
        RunError::from(fault)
    }
}

/// A verb's result as `run()` takes it: a refusal (a node latched, a
/// teardown begun meanwhile: nothing malfunctioned) is logged as `what`'s
/// and is `Ok`; any other fault ends `run()`.
fn logged(what: &'static str) -> impl Fn(NodeFault) -> Result<(), NodeFault> {
    move |e| {
        if !e.is_refusal() {
            return Err(e);
        }
        log_warn!("{}: {}", what, e);
        Ok(())
    }
}

/// Wait until anything changes after `epoch`, or until `deadline`. Without
/// pools or a controller nothing but control needs the driver, so it waits
/// forever.
// The wait itself, not an `async fn` around it: no wrapper state holding
// the arguments beside it (flash, and 24 B of the driver's future).
// The driver's own waker slot, not the observers' list (see
// `notify::ChangeWait`).
#[cfg(any(feature = "pool", feature = "controller", feature = "restart"))]
fn wait_change(epoch: u32, deadline: Option<Instant>) -> notify::ChangeWait {
    notify::ChangeWait::new(epoch, deadline.map(|d| d.as_ticks()))
}

#[cfg(not(any(feature = "pool", feature = "controller", feature = "restart")))]
async fn wait_change(_epoch: u32, _deadline: Option<Instant>) {
    core::future::pending::<()>().await
}
