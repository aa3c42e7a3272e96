//! `Supervisor::restart`: cycle one node and what runs on top of it
//! (Erlang's rest-for-one), over the same dependents traversal `deactivate`
//! uses: its stop (one node at a time on a chain, else a stop wave), then a
//! bring-up wave (as `start`'s).

use embassy_executor::Spawner;

use super::start_wave::{FastPath, Want};
use core::marker::PhantomData;

use super::WholeStop;
use super::chain_stop::{Bits, GraphStop, chain_stop_members};
use super::stop_wave::{OnMiss, Race, typed_wave};
use super::{Cascade, Supervisor, blocked_by};
#[cfg(feature = "events")]
use crate::event::{EventKind, publish};
use crate::fault::{FaultKind, NodeFault, Refusal};
use crate::{TaskNode, notify};

/// The error [`restart`](Supervisor::restart) returned before the one fault
/// type: now a [`NodeFault`] (a refusal is [`FaultKind::Refused`], a missed
/// ack [`FaultKind::AckMissed`], a failed spawn the gate or refusal that
/// stopped it).
#[deprecated(since = "0.5.0", note = "use `NodeFault`")]
pub type RestartError = NodeFault;

/// What wins over a restart: now [`Refusal`], shared by every verb.
#[deprecated(since = "0.5.0", note = "use `Refusal`")]
pub type RestartRefusal = Refusal;

/// Count a restart of `node` against its budget, if it has one, and in its
/// restart count.
#[cfg(feature = "restart")]
fn take_budget(node: &'static TaskNode) -> Result<(), NodeFault> {
    let Some(spec) = node.restart_spec() else {
        return Ok(());
    };
    let now = crate::node::now_ticks32();
    match spec.take_budget(now) {
        Ok(()) => {
            spec.state.counted();
            Ok(())
        }
        Err(spent) => {
            #[cfg(feature = "events")]
            publish(EventKind::RestartRefused { node: node.name });
            Err(NodeFault::new(
                node,
                FaultKind::BudgetSpent {
                    restarts: spent.restarts,
                    window_ms: spent.window_ms,
                },
            ))
        }
    }
}

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
    /// Restart `node` rest-for-one: stop its running transitive dependents
    /// and the node itself as a stop wave (a node once its dependents
    /// acked, unrelated ones at once; on a chain, one node at a time; aborts
    /// at the first missed ack), then
    /// bring them back as [`start`](Self::start) does, so gates and `ready`
    /// dependencies are waited for again: a node whose gates are open comes
    /// back at once; past the first that must wait, as a wave (a node once
    /// its dependencies are back and its gates open, unrelated slow gates
    /// overlapping; each node waits at most its own slot timeout, counted
    /// from when it begins to wait for its gates). The node comes back even
    /// if it was down (an exited `Terminate` worker); a dependent comes
    /// back if it was running, or if an earlier restart of the node left it
    /// held (below). While they stop, the dependents carry the collateral
    /// hold, so no other verb brings one up under the wave. Detached nodes
    /// are never touched, nor what depends on the node only through one. A
    /// pool member restarts alone (not its pool).
    /// The node's own dependencies are left as they are (as with
    /// `start_node`; `activate` is the verb that starts them too).
    ///
    /// A `Pause` node is paused and resumed in place: it keeps what it
    /// holds. An app-spawned (parked) node is stopped and, as with every
    /// verb, only the application can spawn it again.
    ///
    /// Refused as a value, with nothing stopped, when the node is not in the
    /// graph, is `disabled`, held, or detached, or the supervisor is halted
    /// (after `teardown`, until the next `start`), or (feature `restart`)
    /// when the node's `restart_budget: R in T` already holds `R` restarts
    /// inside the last `T` ms ([`FaultKind::BudgetSpent`]; a restart that
    /// passes is counted, whatever its outcome). A `deactivate` or
    /// `teardown` that begins during the restart wins: what it latched or
    /// halted is not brought back ([`FaultKind::Refused`]).
    ///
    /// Errors: a refusal names the node held down; a missed ack
    /// ([`FaultKind::AckMissed`]) names the node still up (its dependents
    /// are down); a failed spawn names the node that did not come back and
    /// the gate that stayed closed. A node that does not come back (failed
    /// or refused) keeps down itself and the restarted nodes that depend on
    /// it; the others come back. The first such fault is returned. After a
    /// failure, the dependents left down keep the collateral hold, the node
    /// itself does not: `activate(node)`, or the next restart of the node
    /// that gets through, brings them back (`start` skips them, as it skips
    /// what a `deactivate` holds).
    ///
    /// Cost: `deactivate`'s traversal: one pass over the span of the
    /// dependency order from the node to its last dependent, and their
    /// edges; the future holds two `[bool; N]` and, on a graph that is not
    /// a chain, the stop wave's 7 bytes per slot (a chain's stop holds no
    /// per-slot state, and a supervisor of a chain links no wave code).
    pub async fn restart(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
    ) -> Result<(), NodeFault> {
        let seed = self.restartable(node)?;
        #[cfg(feature = "restart")]
        take_budget(node)?;
        let era = self.era();
        let mut set = Cascade::<N>::new();
        set.add(self.graph, seed);
        set.close_over_dependents(self.graph);
        let span = &self.graph.order[set.lo..=set.hi];
        let back = self.hold_dependents(seed, &set);
        if let Err(e) = self.stop_members(&set).await {
            self.release_holds(span, &back);
            return Err(e);
        }
        // Each hold goes at the node's turn (its dependencies are back), on
        // the fast path here or in the wave; one that something else
        // explains stays, and the bring-up reports it.
        let mut fast = FastPath::new();
        for &i in span {
            if back[i as usize] {
                set.come_up(i as usize);
            }
        }
        for &i in span {
            let i = i as usize;
            let down = self.graph.node(i).filter(|n| back[i] && !n.is_running());
            if let Some(n) = down {
                let released = self.release_hold(n, self.graph.deps[i]);
                if fast.try_now(self, i, n, spawner, era) {
                    // Done with: the wave must not bring it up again.
                    set.join(i);
                } else if released {
                    // Left to the wave, which releases it at its turn.
                    n.set_held(true);
                }
            }
        }
        let result = self
            .rest_as_wave(&mut fast, Want::Rejoin(&set, &back), spawner, era)
            .await;
        // A dependent a failure left down keeps the hold (`activate(node)`
        // or the next restart of `node` brings it back); after a refusal (a
        // latch, a teardown, a dependency stopping) the restart's holds go.
        if result.is_err_and(|e| !e.is_refusal()) {
            self.hold_again(span, |i| back[i] && i != seed);
        }
        notify::changed();
        #[cfg(feature = "events")]
        match result {
            Ok(()) => publish(EventKind::Restarted { node: node.name }),
            Err(NodeFault {
                node,
                kind: FaultKind::Refused(_),
            }) => publish(EventKind::RestartRefused { node: node.name }),
            Err(_) => {}
        }
        result
    }

    /// Stop the members of `set` as `deactivate` stops its own: on a chain
    /// ([`uses::CHAIN`](crate::uses::CHAIN), or the graph `picked` found
    /// to be one) one node at a time, else as a wave; the last rank first,
    /// aborting at the first missed ack; bring-ups may race it.
    fn stop_members<'a>(
        &'a self,
        set: &'a Cascade<N>,
    ) -> impl Future<Output = Result<(), NodeFault>> + 'a {
        let bits = PhantomData::<Bits<USES>>;
        let span = (set.lo, set.hi);
        match self.whole_stop() {
            WholeStop::Chain => GraphStop::Chain {
                stop: chain_stop_members(self.graph, span, |i| set.has(i)),
                bits,
            },
            WholeStop::Wave(picked) => GraphStop::Wave {
                stop: typed_wave::<N, Bits<USES>>(
                    self.graph,
                    move |w| w.join_span(span.0, span.1, &|i| set.has(i)),
                    OnMiss::Abort,
                    Race::Any,
                    picked.map(|code| code.chosen),
                ),
                bits,
            },
        }
    }

    /// `restart`'s refusals, made before anything is stopped: the node's
    /// slot, or the refusal (not in the graph, latched, detached, or the
    /// supervisor halted).
    fn restartable(&self, node: &'static TaskNode) -> Result<usize, NodeFault> {
        let refused = |why| NodeFault::new(node, FaultKind::Refused(why));
        let Some(seed) = self.graph.index_of(node) else {
            return Err(refused(Refusal::NotInGraph));
        };
        let why = match blocked_by(node.state()) {
            None if self.is_halted() => Some(Refusal::Halted),
            why => why,
        };
        if let Some(why) = why {
            #[cfg(feature = "events")]
            publish(EventKind::RestartRefused { node: node.name });
            return Err(refused(why));
        }
        Ok(seed)
    }

    /// Who comes back: the node, each member of `set` up now, and each one a
    /// failed restart of the node left held (its dependencies in the set
    /// come back, and nothing else holds it). The dependents among them get
    /// the collateral hold for the restart's duration: no other verb brings
    /// one up between its stop and its turn (or on top of its dependency
    /// while that one stops). One pass over the set's span in dependency
    /// order.
    fn hold_dependents(&self, seed: usize, set: &Cascade<N>) -> [bool; N] {
        let mut back = [false; N];
        back[seed] = true;
        for &i in &self.graph.order[set.lo..=set.hi] {
            let i = i as usize;
            let Some(n) = self.graph.node(i).filter(|_| set.has(i) && i != seed) else {
                continue;
            };
            let f = n.state();
            let up = f.is_up_unblocked();
            let left_held = f.is_down_held_only() && self.may_rejoin(i, set, &back);
            if up || left_held {
                back[i] = true;
                n.set_held(true);
            }
        }
        back
    }

    /// A held, down member of the set may come back with it: its
    /// dependencies in the set come back (`back`), the others run and are
    /// not latched. A `#[cfg]`-removed dependency is no obstacle.
    fn may_rejoin(&self, i: usize, set: &Cascade<N>, back: &[bool; N]) -> bool {
        let up = |n: &TaskNode| n.state().is_up_unblocked();
        self.graph.deps[i].iter().all(|&d| {
            let d = d as usize;
            if set.has(d) {
                back[d]
            } else {
                self.graph.node(d).is_none_or(up)
            }
        })
    }

    /// Release every hold of the restart's set that nothing else explains.
    fn release_holds(&self, span: &[u8], back: &[bool; N]) {
        for &i in span {
            if let Some(n) = self.graph.node(i as usize).filter(|_| back[i as usize]) {
                self.release_hold(n, self.graph.deps[i as usize]);
            }
        }
    }
}
