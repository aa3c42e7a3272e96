//! The driver: control application, pool scaling, and `run` = `start` + both,
//! in one loop that wakes only on a control command, a lifecycle or load
//! change, or a policy deadline.

use embassy_executor::Spawner;
#[cfg(any(feature = "pool", feature = "controller", feature = "restart"))]
use embassy_time::Instant;

#[cfg(feature = "control")]
use crate::control::{ControlCommand, ControlOp};
use crate::fault::{NodeFault, RunError};
use crate::log::log_warn;
use crate::{Supervisor, notify};

#[cfg(feature = "pool")]
mod pools;

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
    /// Apply one control command: `Activate` → [`activate`](Self::activate),
    /// `Deactivate` → [`deactivate`](Self::deactivate), `Restart` →
    /// [`restart`](Self::restart). A command naming a node outside this
    /// supervisor's graph is a no-op (the mailbox is shared by every graph in
    /// the binary).
    ///
    /// The `Err` is the verb's [`NodeFault`]: a missed ack, a node an
    /// `Activate` or `Restart` could not bring up, a refusal (a restart of a
    /// disabled node). `run()` ends on the first two (the mailbox has no
    /// reply path, so `run`'s value is how the application hears of a node
    /// that should be up and is not) and logs a refusal
    /// ([`NodeFault::is_refusal`]) and drives on: nothing malfunctioned.
    #[cfg(feature = "control")]
    pub async fn apply_control(
        &self,
        cmd: ControlCommand,
        spawner: Spawner,
    ) -> Result<(), NodeFault> {
        if self.graph().index_of(cmd.node).is_none() {
            return Ok(());
        }
        #[cfg(feature = "events")]
        crate::event::publish(crate::event::EventKind::ControlApplied {
            node: cmd.node.name,
            op: cmd.op,
        });
        // Each verb polled out of line: this frame does not hold every
        // verb's stack temporaries at once (see `out_of_line`).
        use crate::out_of_line::OutOfLine;
        match cmd.op {
            ControlOp::Activate => OutOfLine::new(self.activate(cmd.node, spawner)).await,
            ControlOp::Deactivate => OutOfLine::new(self.deactivate(cmd.node)).await,
            ControlOp::Restart => OutOfLine::new(self.restart(cmd.node, spawner)).await,
        }
    }

    /// Drive the graph's pools forever: wake on load and lifecycle changes and
    /// on policy deadlines (never polls), grow and shrink one member at a
    /// time. Completes only when a shrink hits a member that misses its ack.
    /// The fault is [`FaultKind::AckMissed`](crate::FaultKind::AckMissed).
    #[cfg(feature = "pool")]
    pub async fn run_pools(&self, spawner: Spawner) -> NodeFault {
        let mut pools = pools::PoolDrive::default();
        loop {
            let epoch = notify::epoch();
            match self.scale_pools(&mut pools, spawner).await {
                Ok(deadline) => {
                    wait_change(epoch, deadline).await;
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
    /// [`apply_control`](Self::apply_control)), or a stop (pool shrink,
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
        RunError::from(self.drive(spawner).await)
    }

    /// [`run`](Self::run)'s loop, with its fault as the verbs return it.
    async fn drive(&self, spawner: Spawner) -> NodeFault {
        match self.start(spawner).await {
            Err(e) if e.is_refusal() => log_warn!("start: {}", e),
            Err(e) => return e,
            Ok(()) => {}
        }
        #[cfg(feature = "restart")]
        let mut restarts = RestartWatch::new();
        #[cfg(feature = "pool")]
        let mut pools = pools::PoolDrive::default();
        loop {
            let epoch = notify::epoch();
            #[cfg(feature = "pool")]
            let deadline = match self.scale_pools(&mut pools, spawner).await {
                Ok(d) => d,
                Err(e) => return e,
            };
            #[cfg(not(feature = "pool"))]
            let deadline = None;
            #[cfg(feature = "controller")]
            let deadline = match self.drive_controller(spawner).await {
                Ok(due) => earliest(deadline, due),
                Err(e) => return e,
            };
            #[cfg(feature = "restart")]
            let deadline = match restarts.poll(self, spawner).await {
                Ok(due) => earliest(deadline, due),
                Err(e) => return e,
            };
            #[cfg(feature = "control")]
            {
                use embassy_futures::select::{Either, select};
                // Only this graph's commands: another graph's driver takes its own.
                let mine = |n: &crate::TaskNode| self.graph().index_of(n).is_some();
                let next = select(
                    crate::control::wait_control_where(&mine),
                    wait_change(epoch, deadline),
                )
                .await;
                if let Either::First(cmd) = next {
                    match self.apply_control(cmd, spawner).await {
                        Err(e) if e.is_refusal() => log_warn!("control: {}", e),
                        Err(e) => return e,
                        Ok(()) => {}
                    }
                }
            }
            #[cfg(not(feature = "control"))]
            wait_change(epoch, deadline).await;
        }
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
async fn wait_change(_epoch: u32, _deadline: Option<embassy_time::Instant>) {
    core::future::pending::<()>().await
}

/// The earlier of two optional deadlines.
#[cfg(any(feature = "controller", feature = "restart"))]
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// When `run()` makes its restart pass: after a policy node started or
/// ended an instance (the policy epoch moved), or when the pass's own
/// deadline came. Other events cost one load (and a clock read while a
/// deadline is set).
#[cfg(feature = "restart")]
struct RestartWatch {
    seen: u32,
    due: Option<Instant>,
    first: bool,
}

#[cfg(feature = "restart")]
impl RestartWatch {
    fn new() -> Self {
        Self {
            seen: 0,
            due: None,
            first: true,
        }
    }

    /// Run the pass if it is wanted; the deadline it must run again at.
    async fn poll<const N: usize, const USES: u8>(
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
