//! Automatic restarts (feature `restart`): the pass `run()` makes over the
//! graph's policy nodes ([`Graph::restarts`](crate::Graph::restarts)) when
//! one of them started or ended an instance, or when a deadline it set
//! (a backoff, a possible stall) comes. Never on other events, never over
//! the nodes without a policy.
//!
//! Each restart is the manual verb's ([`Supervisor::restart`]): rest-for-one,
//! refused by `disabled`, held, detached, a halted supervisor or a spent
//! budget before anything stops, and beaten by a `deactivate` or `teardown`
//! that begins meanwhile. A spent budget escalates: the graph is torn down
//! and `run()` returns a [`FaultKind::Escalated`] fault.

use crate::sync::Ordering;
use embassy_executor::Spawner;
use embassy_time::Instant;

use super::Supervisor;
#[cfg(feature = "events")]
use crate::event::{EventKind, publish};
use crate::log::log_warn;
use crate::node::now_ticks32;
use crate::policy::{RestartPolicy, RestartSpec, ms_to_ticks32, phase, reached};
use crate::{FaultKind, NodeFault, TaskNode};

/// What one policy node needs now.
enum Step {
    /// Nothing before this instant (32-bit ticks), if any.
    Wait(Option<u32>),
    /// Its restart is due.
    Restart,
}

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
    /// Schedule the restarts that exits and stalls call for, perform the
    /// due ones, and return the earliest instant the pass must run again.
    /// O(policy nodes) plus the restarts it makes.
    pub(crate) async fn restart_pass(
        &self,
        spawner: Spawner,
    ) -> Result<Option<Instant>, NodeFault> {
        let mut soonest: Option<u64> = None;
        for &slot in self.graph().restarts {
            let Some(node) = self.graph().node(slot as usize) else {
                continue;
            };
            let Some(spec) = node.restart_spec() else {
                continue;
            };
            let mut step = self.step(node, spec, now_ticks32());
            if let Step::Restart = step {
                self.auto_restart(node, spec, spawner).await?;
                step = self.step(node, spec, now_ticks32());
            }
            if let Step::Wait(Some(due)) = step {
                let now64 = crate::clock::now();
                let at = now64 + u64::from(due.wrapping_sub(now64 as u32));
                soonest = Some(soonest.map_or(at, |s| s.min(at)));
            }
        }
        Ok(soonest.map(Instant::from_ticks))
    }

    /// Decide for one node at `now`: schedule a restart for an exit its
    /// policy covers or a stall, drop a schedule something overtook (the
    /// node is up again, held down, or the graph halted).
    fn step(&self, node: &'static TaskNode, spec: &RestartSpec, now: u32) -> Step {
        let st = spec.state;
        let f = node.state();
        if f.is_blocked() || self.is_halted() {
            st.phase.store(phase::IDLE, Ordering::Relaxed);
            return Step::Wait(None);
        }
        let running = f.is_up();
        let overtaken = match st.phase.load(Ordering::Relaxed) {
            phase::IDLE => true,
            phase::AFTER_EXIT => running,
            phase::AFTER_PARTIAL => !self.still_held(st.left.load(Ordering::Relaxed)),
            _ => !running || !stalled(node, spec, now),
        };
        if !overtaken {
            let due = st.due.load(Ordering::Relaxed);
            return if reached(now, due) {
                Step::Restart
            } else {
                Step::Wait(Some(due))
            };
        }
        st.phase.store(phase::IDLE, Ordering::Relaxed);
        if running {
            return watch(node, spec, now);
        }
        let exited = f.exited_unasked();
        let wanted = match spec.policy {
            RestartPolicy::Never => false,
            RestartPolicy::OnFailure => f.has_failed(),
            RestartPolicy::Always => true,
        };
        if exited && wanted {
            schedule(node, spec, now, phase::AFTER_EXIT)
        } else {
            Step::Wait(None)
        }
    }

    /// Slot `slot` is down and held, as a restart that failed to bring it
    /// back left it (nothing else has brought it up or latched it since).
    fn still_held(&self, slot: u8) -> bool {
        let left = |n: &TaskNode| n.state().is_down_held_only();
        self.graph().node(slot.into()).is_some_and(left)
    }

    /// Make a due restart through the manual verb, and settle its outcome:
    /// a spent budget escalates, a missed ack ends the driver, a failed
    /// spawn is a failure: retried after the next backoff (the budget
    /// applies), the node's own if it stayed down, or, if a dependent did
    /// not come back, the whole restart again (which brings the held
    /// dependents back); a refusal drops it.
    async fn auto_restart(
        &self,
        node: &'static TaskNode,
        spec: &RestartSpec,
        spawner: Spawner,
    ) -> Result<(), NodeFault> {
        let st = spec.state;
        st.phase.store(phase::IDLE, Ordering::Relaxed);
        match self.restart(node, spawner).await {
            Ok(()) => st.up_at.store(now_ticks32(), Ordering::Relaxed),
            Err(NodeFault {
                kind:
                    FaultKind::BudgetSpent {
                        restarts,
                        window_ms,
                    },
                ..
            }) => {
                #[cfg(feature = "events")]
                publish(EventKind::RestartEscalated {
                    node: node.name,
                    restarts,
                });
                log_warn!("restart: `{}` spent its budget; tearing down", node.name);
                self.teardown().await?;
                return Err(NodeFault::new(
                    node,
                    FaultKind::Escalated {
                        restarts,
                        window_ms,
                    },
                ));
            }
            Err(e) if e.kind == FaultKind::AckMissed => return Err(e),
            // Refused: something that wins over a restart holds it down.
            Err(e) if e.is_refusal() => {}
            Err(NodeFault { node: failed, .. }) => {
                log_warn!("restart: `{}` did not come back; retrying", failed.name);
                let slot = self.graph().index_of(failed);
                let why = match slot.filter(|_| !core::ptr::eq(failed, node)) {
                    Some(slot) => {
                        st.left.store(slot as u8, Ordering::Relaxed);
                        phase::AFTER_PARTIAL
                    }
                    None => phase::AFTER_EXIT,
                };
                schedule(node, spec, now_ticks32(), why);
            }
        }
        Ok(())
    }
}

/// Schedule a restart of `node` after its backoff. The backoff starts over
/// when the node stayed up for its stable period (the backoff ceiling)
/// since its last automatic restart.
fn schedule(node: &'static TaskNode, spec: &RestartSpec, now: u32, why: u8) -> Step {
    let st = spec.state;
    let stable = ms_to_ticks32(spec.backoff_max_ms);
    if now.wrapping_sub(st.up_at.load(Ordering::Relaxed)) >= stable {
        st.attempt.store(0, Ordering::Relaxed);
    }
    let attempt = st.attempt.load(Ordering::Relaxed);
    st.attempt
        .store(attempt.saturating_add(1), Ordering::Relaxed);
    let delay_ms = spec.backoff_ms(attempt);
    let due = now.wrapping_add(ms_to_ticks32(delay_ms));
    st.due.store(due, Ordering::Relaxed);
    st.phase.store(why, Ordering::Relaxed);
    #[cfg(feature = "events")]
    publish(EventKind::RestartScheduled {
        node: node.name,
        delay_ms,
    });
    let _ = node;
    if reached(now, due) {
        Step::Restart
    } else {
        Step::Wait(Some(due))
    }
}

/// A running `on_failure` node with a `beat_timeout:` (feature
/// `liveness`): schedule its restart if it stalled, else wake when it can.
fn watch(node: &'static TaskNode, spec: &RestartSpec, now: u32) -> Step {
    #[cfg(feature = "liveness")]
    if spec.policy == RestartPolicy::OnFailure {
        match crate::health::beat_state(node, now) {
            crate::health::Beat::Unpoliced => {}
            crate::health::Beat::FreshFor(ticks) => {
                return Step::Wait(Some(now.wrapping_add(ticks as u32)));
            }
            crate::health::Beat::Stale => {
                if node.claim_stale_report() {
                    #[cfg(feature = "events")]
                    publish(EventKind::NodeStale { node: node.name });
                }
                return schedule(node, spec, now, phase::AFTER_STALL);
            }
        }
    }
    let _ = (node, spec, now);
    Step::Wait(None)
}

/// The node still runs without a beat past its timeout.
fn stalled(node: &'static TaskNode, spec: &RestartSpec, now: u32) -> bool {
    let _ = spec;
    #[cfg(feature = "liveness")]
    return matches!(
        crate::health::beat_state(node, now),
        crate::health::Beat::Stale
    );
    #[cfg(not(feature = "liveness"))]
    {
        let _ = (node, now);
        false
    }
}
