//! The driver: control application, pool scaling, and `run` = `start` + both,
//! in one loop that wakes only on a control command, a lifecycle or load
//! change, or a policy deadline.

use embassy_executor::Spawner;
#[cfg(any(feature = "pool", feature = "controller"))]
use embassy_time::Instant;

#[cfg(feature = "control")]
use crate::control::{ControlCommand, ControlOp};
use crate::error::RunError;
#[cfg(any(feature = "pool", feature = "control"))]
use crate::error::ShutdownTimeout;
#[cfg(feature = "pool")]
use crate::pool::{Pool, PoolAction, PoolLoad};
use crate::{Supervisor, notify};

impl<const N: usize> Supervisor<N> {
    /// Apply one control command: `Activate` → [`activate`](Self::activate),
    /// `Deactivate` → [`deactivate`](Self::deactivate). A command naming a node
    /// outside this supervisor's graph is a no-op (the mailbox is shared by
    /// every graph in the binary).
    #[cfg(feature = "control")]
    pub async fn apply_control(
        &self,
        cmd: ControlCommand,
        spawner: Spawner,
    ) -> Result<(), ShutdownTimeout> {
        if self.graph().index_of(cmd.node).is_none() {
            return Ok(());
        }
        #[cfg(feature = "events")]
        crate::event::publish(crate::event::EventKind::ControlApplied {
            node: cmd.node.name,
            op: cmd.op,
        });
        match cmd.op {
            ControlOp::Activate => {
                self.activate(cmd.node, spawner).await;
                Ok(())
            }
            ControlOp::Deactivate => self.deactivate(cmd.node).await,
        }
    }

    /// Drive the graph's pools forever: wake on load and lifecycle changes and
    /// on policy deadlines (never polls), grow and shrink one member at a
    /// time. Completes only when a shrink hits a member that misses its ack.
    #[cfg(feature = "pool")]
    pub async fn run_pools(&self, spawner: Spawner) -> ShutdownTimeout {
        loop {
            let epoch = notify::epoch();
            match self.scale_pools(spawner).await {
                Ok(deadline) => wait_change(epoch, deadline).await,
                Err(e) => return e,
            }
        }
    }

    /// `start`, then drive pools and control forever. Returns only on error:
    /// a failed bring-up, or a stop (shrink, `Deactivate`) that missed its ack.
    pub async fn run(&self, spawner: Spawner) -> RunError {
        if let Err(e) = self.start(spawner).await {
            return RunError::Spawn(e);
        }
        loop {
            let epoch = notify::epoch();
            #[cfg(feature = "pool")]
            let deadline = match self.scale_pools(spawner).await {
                Ok(d) => d,
                Err(e) => return RunError::Shutdown(e),
            };
            #[cfg(not(feature = "pool"))]
            let deadline = None;
            #[cfg(feature = "controller")]
            let deadline = match self.drive_controller(spawner).await {
                Ok(due) => earliest(deadline, due),
                Err(e) => return RunError::Shutdown(e),
            };
            #[cfg(feature = "control")]
            {
                use embassy_futures::select::{Either, select};
                let next =
                    select(crate::control::wait_control(), wait_change(epoch, deadline)).await;
                if let Either::First(cmd) = next
                    && let Err(e) = self.apply_control(cmd, spawner).await
                {
                    return RunError::Shutdown(e);
                }
            }
            #[cfg(not(feature = "control"))]
            wait_change(epoch, deadline).await;
        }
    }

    /// One evaluation of every pool; returns the earliest policy deadline.
    #[cfg(feature = "pool")]
    async fn scale_pools(
        &self,
        spawner: Spawner,
    ) -> Result<Option<embassy_time::Instant>, ShutdownTimeout> {
        let mut earliest: Option<Instant> = None;
        for pool in self.graph().pools {
            // Each step changes the running count by one; a pool can need at
            // most `members` steps to reach its target.
            for _ in 0..=pool.slots().len() {
                let decision = pool.decide(self.load_of(*pool), Instant::now());
                if let Some(at) = decision.recheck_at {
                    earliest = Some(earliest.map_or(at, |e| e.min(at)));
                }
                let acted = match decision.action {
                    PoolAction::Hold => false,
                    PoolAction::Grow => match self.grow_member(*pool) {
                        Some(m) => self.grow(m, spawner).await,
                        None => false,
                    },
                    PoolAction::Shrink => match self.shrink_member(*pool) {
                        Some(m) => {
                            crate::supervisor::await_ack(m).await?;
                            #[cfg(feature = "events")]
                            crate::event::publish(crate::event::EventKind::PoolShrank {
                                node: m.name,
                            });
                            true
                        }
                        None => false,
                    },
                };
                if !acted {
                    break;
                }
            }
        }
        Ok(earliest)
    }

    #[cfg(feature = "pool")]
    fn load_of(&self, pool: &dyn Pool) -> PoolLoad {
        let (min, max) = pool.bounds();
        let mut load = PoolLoad {
            running: 0,
            idle: 0,
            busy: 0,
            min,
            max,
        };
        for m in pool.nodes() {
            let (running, busy) = (m.is_running(), m.is_busy());
            // Saturating: a pool has at most 256 members and u8 counts.
            load.running = load.running.saturating_add(running as u8);
            load.busy = load.busy.saturating_add(busy as u8);
            load.idle = load.idle.saturating_add((running && !busy) as u8);
        }
        load
    }

    /// The lowest down member that may run: enabled, attached, and with
    /// every dependency up (and ready, for `ready` deps). `None` if none can,
    /// or if the graph is torn down (it stays down until started again).
    #[cfg(feature = "pool")]
    fn grow_member(&self, pool: &dyn Pool) -> Option<&'static crate::TaskNode> {
        if self.is_halted() {
            return None;
        }
        pool.slots().find_map(|slot| {
            let m = self.graph().node(slot)?;
            (!m.is_running() && !m.is_disabled() && !m.is_detached() && self.deps_up(slot))
                .then_some(m)
        })
    }

    /// Bring up one member chosen by [`grow_member`](Self::grow_member).
    #[cfg(feature = "pool")]
    async fn grow(&self, m: &'static crate::TaskNode, spawner: Spawner) -> bool {
        let grew = self.bring_up(m, spawner).await.is_ok();
        #[cfg(feature = "events")]
        if grew {
            crate::event::publish(crate::event::EventKind::PoolGrew { node: m.name });
        }
        grew
    }

    /// Ask the highest idle running member to stop, re-checking idleness in
    /// the same atomic step that requests the stop. `None` if none is idle.
    #[cfg(feature = "pool")]
    fn shrink_member(&self, pool: &dyn Pool) -> Option<&'static crate::TaskNode> {
        pool.slots()
            .rev()
            .filter_map(|slot| self.graph().node(slot))
            .find(|m| m.request_shutdown_if_idle())
    }

    /// Every dependency of `slot` is running (a `#[cfg]`-removed dependency
    /// counts as satisfied), and every `ready` dependency is ready.
    #[cfg(feature = "pool")]
    fn deps_up(&self, slot: usize) -> bool {
        let g = self.graph();
        let up = g.deps[slot]
            .iter()
            .all(|&d| g.node(d as usize).is_none_or(|n| n.is_running()));
        #[cfg(feature = "readiness")]
        let up = up
            && g.ready_deps[slot]
                .iter()
                .all(|&d| g.node(d as usize).is_none_or(|n| n.is_ready()));
        up
    }
}

/// Wait until anything changes after `epoch`, or until `deadline`. Without
/// pools or a controller nothing but control needs the driver, so it waits
/// forever.
#[cfg(any(feature = "pool", feature = "controller"))]
async fn wait_change(epoch: u32, deadline: Option<Instant>) {
    crate::wait::Until::by(crate::wait::Cond::Changed(epoch), deadline).await;
}

#[cfg(not(any(feature = "pool", feature = "controller")))]
async fn wait_change(_epoch: u32, _deadline: Option<embassy_time::Instant>) {
    core::future::pending::<()>().await
}

/// The earlier of two optional deadlines.
#[cfg(feature = "controller")]
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
