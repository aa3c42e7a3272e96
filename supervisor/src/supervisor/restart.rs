//! `Supervisor::restart`: cycle one node and what runs on top of it
//! (Erlang's rest-for-one), over the same dependents traversal `deactivate`
//! uses, and the one bring-up path every verb uses.

use core::fmt;

use embassy_executor::{SpawnError, Spawner};

use super::stop_wave::{OnMiss, stop_wave};
use super::{Cascade, Supervisor};
use crate::error::ShutdownTimeout;
#[cfg(feature = "events")]
use crate::event::{EventKind, publish};
use crate::node::flag;
use crate::{TaskNode, notify};

/// Why a [`restart`](Supervisor::restart) did not happen, or stopped short.
///
/// Until the fault type of the restart-policy work lands, a restart reports
/// with the crate's existing values: [`ShutdownTimeout`] for a missed ack,
/// `SpawnError` (plus [`failed_node`](Supervisor::failed_node)) for a failed
/// spawn. Expect this enum to move to that type.
#[derive(Clone, Copy, Debug)]
pub enum RestartError {
    /// Something that wins over a restart holds `node` down. A refusal
    /// found before the first stop leaves everything as it was. During the
    /// bring-up, a `deactivate` that began meanwhile keeps what it latched
    /// down (the rest comes back; the first such node is named), and a
    /// `teardown` that began meanwhile keeps everything down.
    Refused {
        /// The node held down: the target, or the dependent about to start.
        node: &'static TaskNode,
        /// What holds it down.
        why: RestartRefusal,
    },
    /// A stop missed its ack: the node it names is still up, the nodes
    /// stopped before it (its dependents) are down.
    Shutdown(ShutdownTimeout),
    /// A node failed to spawn (a gate or `ready` dep stayed closed, the task
    /// pool was full). The nodes before it in the dependency order are back
    /// up; it and the ones after it are down.
    Spawn {
        /// The node that did not come back.
        node: &'static TaskNode,
        /// The spawn's error (also recorded as [`failed_node`](Supervisor::failed_node)).
        error: SpawnError,
    },
}

/// What wins over a restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RestartRefusal {
    /// The node is not in this supervisor's graph.
    NotInGraph,
    /// Declared `disabled` or deactivated: `activate` it instead.
    Disabled,
    /// Held down by a deactivated dependency (the collateral hold).
    Held,
    /// Self-managed: the supervisor does not touch it.
    Detached,
    /// The graph is torn down (or a teardown began during the restart).
    Halted,
}

impl fmt::Display for RestartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Refused { node, why } => {
                write!(f, "restart refused: `{}` is {:?}", node.name, why)
            }
            Self::Shutdown(e) => write!(f, "restart: {e}"),
            Self::Spawn { node, error } => {
                write!(f, "restart: `{}` did not come back: {}", node.name, error)
            }
        }
    }
}

impl core::error::Error for RestartError {}

#[cfg(feature = "defmt")]
impl defmt::Format for RestartError {
    fn format(&self, f: defmt::Formatter) {
        match self {
            Self::Refused { node, why } => {
                defmt::write!(f, "restart refused: `{=str}` is {}", node.name, why)
            }
            Self::Shutdown(e) => defmt::write!(f, "restart: {}", e),
            Self::Spawn { node, error } => {
                defmt::write!(
                    f,
                    "restart: `{=str}` did not come back: {}",
                    node.name,
                    error
                )
            }
        }
    }
}

/// What holds `node` down, if anything, given its flags.
fn blocked_by(flags: u16) -> Option<RestartRefusal> {
    if flags & flag::DETACHED != 0 {
        Some(RestartRefusal::Detached)
    } else if flags & flag::DISABLED != 0 {
        Some(RestartRefusal::Disabled)
    } else if flags & flag::HELD != 0 {
        Some(RestartRefusal::Held)
    } else {
        None
    }
}

impl<const N: usize> Supervisor<N> {
    /// Restart `node` rest-for-one: stop its running transitive dependents
    /// and the node itself as a stop wave (a node once its dependents
    /// acked, unrelated ones at once; aborts at the first missed ack), then bring
    /// them back in dependency order through the one bring-up path, so gates
    /// and `ready` dependencies are waited for again (each bounded by the
    /// node's slot timeout). The node comes back even if it was down (an
    /// exited `Terminate` worker); a dependent comes back only if it was
    /// running. Detached nodes are never touched, nor what depends on the
    /// node only through one. A pool member restarts alone (not its pool).
    /// The node's own dependencies are left as they are (as with
    /// `start_node`; `activate` is the verb that starts them too).
    ///
    /// A `Pause` node is paused and resumed in place: it keeps what it
    /// holds. An app-spawned (parked) node is stopped and, as with every
    /// verb, only the application can spawn it again.
    ///
    /// Refused as a value, with nothing stopped, when the node is not in the
    /// graph, is `disabled`, held, or detached, or the supervisor is halted
    /// (after `teardown`, until the next `start`). A `deactivate` or
    /// `teardown` that begins during the restart wins: what it latched or
    /// halted is not brought back ([`RestartError::Refused`]).
    ///
    /// Cost: `deactivate`'s traversal: one pass over the span of the
    /// dependency order from the node to its last dependent, and their
    /// edges; the future holds two `[bool; N]` and the stop wave's 11 bytes
    /// per slot.
    pub async fn restart(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
    ) -> Result<(), RestartError> {
        let refused = |node, why| RestartError::Refused { node, why };
        let Some(seed) = self.graph.index_of(node) else {
            return Err(refused(node, RestartRefusal::NotInGraph));
        };
        let why = match blocked_by(node.flags()) {
            None if self.is_halted() => Some(RestartRefusal::Halted),
            why => why,
        };
        if let Some(why) = why {
            #[cfg(feature = "events")]
            publish(EventKind::RestartRefused { node: node.name });
            return Err(refused(node, why));
        }
        let era = self.era();
        let mut set = Cascade::<N>::new(0);
        set.add(self.graph, seed, node);
        set.close_over_dependents(self.graph);
        let span = &self.graph.order[set.lo..=set.hi];
        // Who comes back: the node, and each member of the set up now.
        let mut back = [false; N];
        back[seed] = true;
        for &i in span {
            let i = i as usize;
            let up = |n: &TaskNode| n.flags() & (flag::DETACHED | flag::RUNNING) == flag::RUNNING;
            if set.has(i) && self.graph.node(i).is_some_and(up) {
                back[i] = true;
            }
        }
        stop_wave(self.graph, set.lo, set.hi, |i| set.has(i), OnMiss::Abort)
            .await
            .map_err(RestartError::Shutdown)?;
        let result = self.bring_back(span, &back, spawner, era).await;
        notify::changed();
        #[cfg(feature = "events")]
        match result {
            Ok(()) => publish(EventKind::Restarted { node: node.name }),
            Err(RestartError::Refused { node, .. }) => {
                publish(EventKind::RestartRefused { node: node.name })
            }
            Err(_) => {}
        }
        result
    }

    /// Bring up, in dependency order, the nodes of `span` marked in `back`.
    /// A node latched meanwhile (a `deactivate` in flight) is skipped, and
    /// the first such refusal returned at the end: its dependents are held
    /// by the same latch, everything else comes back. A teardown that began
    /// or a failed spawn ends the bring-up at once (nothing after a failed
    /// node may run without it).
    async fn bring_back(
        &self,
        span: &[u8],
        back: &[bool; N],
        spawner: Spawner,
        era: u32,
    ) -> Result<(), RestartError> {
        let mut first_refusal = Ok(());
        for &i in span {
            let i = i as usize;
            let Some(n) = self.graph.node(i).filter(|_| back[i]) else {
                continue;
            };
            let outcome = self.come_back(n, spawner, era).await;
            match outcome {
                Ok(()) => {}
                Err(RestartError::Refused {
                    why: RestartRefusal::Halted,
                    ..
                }) => return outcome,
                Err(e @ RestartError::Refused { .. }) => {
                    first_refusal = first_refusal.and(Err(e));
                }
                Err(e) => return Err(e),
            }
        }
        first_refusal
    }

    /// Bring one node of the restarted set up, unless something won over it.
    async fn come_back(
        &self,
        n: &'static TaskNode,
        spawner: Spawner,
        era: u32,
    ) -> Result<(), RestartError> {
        self.may_come_back(n, era)?;
        let spawned = match self.bring_up_now(n, spawner, era) {
            Some(now) => now,
            None => self.bring_up(n, spawner, era).await,
        };
        spawned.or_else(|error| {
            // A latch or a teardown that won the race is the refusal it is,
            // not a spawn failure.
            self.may_come_back(n, era)?;
            Err(RestartError::Spawn { node: n, error })
        })
    }

    /// `Err` if a `deactivate` latched `n` or a teardown began since `era`.
    fn may_come_back(&self, n: &'static TaskNode, era: u32) -> Result<(), RestartError> {
        let why = if self.era() != era {
            Some(RestartRefusal::Halted)
        } else {
            blocked_by(n.flags())
        };
        match why {
            Some(why) => Err(RestartError::Refused { node: n, why }),
            None => Ok(()),
        }
    }
}
