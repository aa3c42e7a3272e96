//! `Supervisor<N>`: the lifecycle verbs over a static [`Graph`]. Each verb is
//! one row of the spec's lifecycle reference table; the per-node decision of
//! each row lives in the function named after it.
//!
//! Tiers: whole-graph (`start`, `teardown`, `teardown_continue`,
//! `respawn_terminate`, `resume_pausable`), single-node (`start_node`,
//! `stop_node`, `resume_node`), cascades (`activate`, `deactivate`).

use embassy_executor::{SpawnError, Spawner};
use portable_atomic::{AtomicBool, AtomicU16, Ordering};

use crate::error::ShutdownTimeout;
use crate::log::{log_debug, log_warn};
use crate::node::{Mode, flag};
use crate::wait::{Cond, Until};
use crate::{Graph, TaskNode, notify};

/// How long a stop waits for the node's ack before returning [`ShutdownTimeout`].
pub const SHUTDOWN_ACK_TIMEOUT: embassy_time::Duration = embassy_time::Duration::from_secs(2);

/// How long a spawn waits for each of its gates (resource slot, executor
/// slot, `ready` dep) unless the node sets `slot_timeout:`.
pub const DEFAULT_SLOT_TIMEOUT: embassy_time::Duration = embassy_time::Duration::from_millis(100);

const NO_NODE: u16 = u16::MAX;

/// Orchestrates one [`Graph`]. Construction is free and `const`:
///
/// ```
/// # use embassy_supervisor::{Graph, Mode, Supervisor, NodeSpec, TaskNode};
/// # static A: TaskNode = TaskNode::new(&NodeSpec::new("A", Mode::Terminate));
/// # static GRAPH: Graph<1> = Graph::new([Some(&A)], [&[]]);
/// static SUP: Supervisor<1> = Supervisor::new(&GRAPH);
/// ```
pub struct Supervisor<const N: usize> {
    graph: &'static Graph<N>,
    /// Slot of the node whose spawn failed last, or [`NO_NODE`].
    failed: AtomicU16,
    /// Set by `teardown` until the next `start`/`respawn_terminate`/`activate`:
    /// pools do not regrow a torn-down graph.
    halted: AtomicBool,
    #[cfg(feature = "controller")]
    pub(crate) controller: Option<&'static dyn crate::controller::DriveController>,
}

impl<const N: usize> Supervisor<N> {
    /// A supervisor over `graph`.
    pub const fn new(graph: &'static Graph<N>) -> Self {
        Self {
            graph,
            failed: AtomicU16::new(NO_NODE),
            halted: AtomicBool::new(false),
            #[cfg(feature = "controller")]
            controller: None,
        }
    }

    /// True between a `teardown` and the next `start`, `respawn_terminate` or
    /// `activate`: the pool driver grows nothing meanwhile.
    pub fn is_halted(&self) -> bool {
        self.halted.load(Ordering::Acquire)
    }

    /// The graph this supervisor drives.
    pub const fn graph(&self) -> &'static Graph<N> {
        self.graph
    }

    /// The node whose spawn failed most recently (bring-up stops at the
    /// first failure: every node before it in the order is up, it and the
    /// nodes after it are not). `None` until a spawn fails.
    pub fn failed_node(&self) -> Option<&'static TaskNode> {
        self.graph
            .node(self.failed.load(Ordering::Acquire) as usize)
    }

    fn nodes_in_order(&self) -> impl DoubleEndedIterator<Item = &'static TaskNode> + '_ {
        self.graph
            .order
            .iter()
            .filter_map(|&i| self.graph.node(i as usize))
    }

    // ---- whole graph ----------------------------------------------------

    /// Quiescent → running, from any state, in dependency order: each node is
    /// reset and spawned; running and detached nodes are skipped (so calling
    /// it twice spawns nothing twice); a `Pause` instance parked by an earlier
    /// teardown is resumed in place; `disabled` and `OnDemand` nodes stay down.
    ///
    /// Stops at the first failed spawn and returns its error;
    /// [`failed_node`](Self::failed_node) names the node. Under `trace` it
    /// also registers the graph with the recorders.
    // A plain fn returning the shared bring-up future: no wrapper state
    // machine per verb (flash).
    pub fn start(&self, spawner: Spawner) -> impl Future<Output = Result<(), SpawnError>> + '_ {
        #[cfg(feature = "trace")]
        if !crate::trace::register_graph(self.graph) {
            log_warn!("trace: more than MAX_GRAPHS graphs; this one's nodes are not named");
        }
        self.bring_up_in_order(spawner, |n| n.mode() != Mode::OnDemand)
    }

    /// Reverse-dependency shutdown: each running node is asked to stop and its
    /// ack awaited before its dependencies are stopped. Detached and down nodes
    /// are skipped. Aborts at the first missed ack, so a still-live dependent
    /// never loses its dependencies; the graph is then partially down.
    pub async fn teardown(&self) -> Result<(), ShutdownTimeout> {
        #[cfg(feature = "controller")]
        let _closing = crate::controller::Closing::new(self.controller);
        self.halted.store(true, Ordering::Release);
        for node in self.nodes_in_order().rev() {
            if node.flags() & (flag::DETACHED | flag::RUNNING) == flag::RUNNING {
                stop(node).await?;
            }
        }
        Ok(())
    }

    /// Best-effort teardown for the "hardware reset next" path: visits every
    /// node past a wedged one and returns the first timeout at the end.
    pub async fn teardown_continue(&self) -> Result<(), ShutdownTimeout> {
        #[cfg(feature = "controller")]
        let _closing = crate::controller::Closing::new(self.controller);
        self.halted.store(true, Ordering::Release);
        let mut first = Ok(());
        for node in self.nodes_in_order().rev() {
            if node.flags() & (flag::DETACHED | flag::RUNNING) != flag::RUNNING {
                continue;
            }
            if let Err(e) = stop(node).await {
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
    }

    /// The wake half of a sleep cycle: reset and respawn every down
    /// `Terminate` node in dependency order. `Pause` nodes are left for
    /// [`resume_pausable`](Self::resume_pausable), `OnDemand` nodes for their
    /// pool; disabled and detached nodes are skipped.
    ///
    /// Stops at the first failed spawn ([`failed_node`](Self::failed_node)).
    pub fn respawn_terminate(
        &self,
        spawner: Spawner,
    ) -> impl Future<Output = Result<(), SpawnError>> + '_ {
        self.bring_up_in_order(spawner, |n| n.mode() == Mode::Terminate)
    }

    /// Bring up, in dependency order, every down, enabled, attached node that
    /// `wanted` selects; stop at the first failure. Un-halts the pools, and
    /// notifies observers once at the end.
    async fn bring_up_in_order(
        &self,
        spawner: Spawner,
        // A fn pointer, not `impl Fn`: one copy of this state machine serves
        // both callers.
        wanted: fn(&TaskNode) -> bool,
    ) -> Result<(), SpawnError> {
        self.halted.store(false, Ordering::Release);
        let mut result = Ok(());
        for node in self.nodes_in_order() {
            if node.flags() & (flag::DETACHED | flag::DISABLED | flag::RUNNING) != 0
                || !wanted(node)
            {
                continue;
            }
            let outcome = match self.bring_up_now(node, spawner) {
                Some(now) => now,
                None => self.bring_up(node, spawner).await,
            };
            if let Err(e) = outcome {
                result = Err(e);
                break;
            }
        }
        notify::changed();
        result
    }

    /// Resume every parked `Pause` instance in place (it keeps what it holds).
    /// Running, disabled and detached nodes are untouched.
    pub fn resume_pausable(&self) {
        for node in self.nodes_in_order() {
            resume_if_parked(node);
        }
    }

    // ---- single node ----------------------------------------------------

    /// Start one node, no cascade. Idempotent on a running node; resumes a
    /// parked `Pause` instance in place; a detached node is left alone
    /// (`Ok`). A `disabled` node is refused with `SpawnError::Busy`: the latch
    /// is cleared only by `activate`.
    pub async fn start_node(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
    ) -> Result<(), SpawnError> {
        let f = node.flags();
        if f & (flag::DETACHED | flag::RUNNING) != 0 {
            return Ok(());
        }
        if f & flag::DISABLED != 0 {
            log_warn!(
                "start_node: `{}` is disabled (activate it first)",
                node.name
            );
            return Err(SpawnError::Busy);
        }
        let result = self.bring_up(node, spawner).await;
        notify::changed();
        result
    }

    /// Stop one node and await its ack (for a `Pause` node this is the
    /// single-node pause). No-op on a down or detached node.
    pub async fn stop_node(&self, node: &'static TaskNode) -> Result<(), ShutdownTimeout> {
        if node.flags() & (flag::DETACHED | flag::RUNNING) == flag::RUNNING {
            stop(node).await
        } else {
            Ok(())
        }
    }

    /// Resume one parked `Pause` node in place. No-op for other modes, for
    /// running, detached and disabled nodes (a manual pause sticks).
    pub fn resume_node(&self, node: &'static TaskNode) {
        resume_if_parked(node);
    }

    // ---- cascades -------------------------------------------------------

    /// Clear the `disabled` latch on `node`, its transitive dependencies and
    /// (for a pool member) its whole pool, then start them in dependency
    /// order: down nodes are spawned, parked `Pause` nodes resumed,
    /// `OnDemand` nodes only enabled (their pool regrows them). Detached nodes
    /// are never pulled in. Spawn errors are logged and swallowed: the
    /// cascade starts everything it can.
    pub async fn activate(&self, node: &'static TaskNode, spawner: Spawner) {
        let Some(seed) = self.graph.index_of(node) else {
            return;
        };
        if node.is_detached() {
            return;
        }
        self.halted.store(false, Ordering::Release);
        let mut set = Cascade::new(false);
        set.mark(self.graph, seed);
        // Walking the order backwards from the seed visits every dependent
        // before its dependencies (and nothing after the seed can be one), so
        // one pass closes the set over dependencies: O(nodes + edges).
        for &i in self.graph.order[..=set.hi].iter().rev() {
            if set.has(i as usize) {
                for &d in self.graph.deps[i as usize] {
                    set.mark(self.graph, d as usize);
                }
            }
        }
        for &i in &self.graph.order[set.lo..=set.hi] {
            let Some(n) = self.graph.node(i as usize) else {
                continue;
            };
            if !set.has(i as usize) {
                continue;
            }
            n.set_disabled(false);
            if n.mode() == Mode::OnDemand || n.flags() & flag::RUNNING != 0 {
                continue;
            }
            let result = match self.bring_up_now(n, spawner) {
                Some(now) => now,
                None => self.bring_up(n, spawner).await,
            };
            if let Err(e) = result {
                log_warn!("activate: `{}` did not start: {}", n.name, e);
            }
        }
        // One change for the whole cascade; it also wakes the pool driver
        // to regrow the enabled `OnDemand` members.
        notify::changed();
    }

    /// Latch `disabled` on `node`, its transitive dependents and (for pool
    /// members) whole pools, then stop them dependents-first. Detached nodes
    /// are never pulled in, nor is anything that depends on the target only
    /// through a detached node. Aborts at the first missed ack.
    pub async fn deactivate(&self, node: &'static TaskNode) -> Result<(), ShutdownTimeout> {
        let Some(seed) = self.graph.index_of(node) else {
            return Ok(());
        };
        if node.is_detached() {
            return Ok(());
        }
        // The cascade latches `disabled` on each node as it joins, before any
        // stop: no bring-up path (a pool regrow) can restart a member while
        // its siblings are being stopped.
        let mut set = Cascade::new(true);
        set.mark(self.graph, seed);
        // Walking the order forwards from the seed visits every dependency
        // before its dependents (and nothing before the seed can be one): one
        // pass closes the set over dependents, O(nodes + edges).
        for &i in &self.graph.order[set.lo..] {
            let i = i as usize;
            if !set.has(i) && self.graph.deps[i].iter().any(|&d| set.has(d as usize)) {
                set.mark(self.graph, i);
            }
        }
        let span = &self.graph.order[set.lo..=set.hi];
        for &i in span.iter().rev() {
            let member = self.graph.node(i as usize).filter(|_| set.has(i as usize));
            if let Some(n) = member.filter(|n| n.is_running()) {
                stop(n).await?;
            }
        }
        // The latch alone is a change drivers react to (a controller slot
        // whose target was already down must see it disabled).
        notify::changed();
        Ok(())
    }

    // ---- the one bring-up path ----------------------------------------

    /// Bring one down node up: resume it if it is a parked `Pause` instance,
    /// mark it running if the application spawns it, otherwise wait for its
    /// gates (each bounded by the node's slot timeout) and spawn it. Every
    /// bring-up verb goes through here or through
    /// [`bring_up_now`](Self::bring_up_now).
    ///
    /// Concurrent bring-ups of one node share its outcome without a lock:
    /// each waits for the same gates, and the atomic step that marks the node
    /// running lets exactly one of them spawn; the others find it up.
    pub(crate) async fn bring_up(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
    ) -> Result<(), SpawnError> {
        loop {
            if let Some(result) = self.bring_up_now(node, spawner) {
                return result;
            }
            let Some(cond) = self.closed_gate(node) else {
                continue; // opened since: try again
            };
            if !Until::within(cond, node.slot_timeout()).await {
                log_warn!(
                    "`{}`: a resource or executor slot, or a `ready` dependency, \
                     stayed closed; spawn refused",
                    node.name
                );
                return self.spawned(node, Err(SpawnError::Busy));
            }
            // The wait yielded: a `deactivate` that ran meanwhile found the
            // node down (nothing to stop) and latched it. The latch wins.
            if node.is_disabled() {
                log_warn!(
                    "`{}` was disabled during its gate wait; not spawned",
                    node.name
                );
                return self.spawned(node, Err(SpawnError::Busy));
            }
        }
    }

    /// The part of a bring-up that needs no waiting, which is all of it
    /// unless a gate is closed; `None` (and nothing done) if one is. Loops
    /// over many nodes call this first and create a bring-up future only for
    /// a node that waits, so a node with open gates costs no future.
    // One out-of-line copy shared by every bring-up loop (flash).
    #[inline(never)]
    pub(crate) fn bring_up_now(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
    ) -> Option<Result<(), SpawnError>> {
        if node.is_parked() {
            node.resume_parked();
            return Some(Ok(()));
        }
        let Some(spawn) = node.spawn_fn() else {
            // A parked (app-spawned) node: the supervisor cannot spawn it. It
            // is up unless its instance was stopped, which only the
            // application can undo (by spawning and `adopt`ing it again).
            if !node.shutdown_requested() {
                let _ = node.begin_activation();
            } else {
                log_debug!(
                    "`{}` is app-spawned and was stopped; not restarted",
                    node.name
                );
            }
            return Some(Ok(()));
        };
        if self.has_gates(node) {
            // Up already (another bring-up won while this one waited): its
            // outcome is ours.
            if node.is_running() {
                return Some(Ok(()));
            }
            if self.closed_gate(node).is_some() {
                return None;
            }
        }
        // Marking the node running is the one atomic step that decides who
        // spawns it; a bring-up that loses finds it up already.
        let Some(before) = node.try_begin_activation() else {
            return Some(Ok(()));
        };
        let spawned = spawn(node, spawner).inspect_err(|_| node.abort_activation(before));
        Some(self.spawned(node, spawned))
    }

    /// The node waits for something before it spawns: a resource or
    /// executor slot, or (feature `readiness`) a `ready` dependency.
    fn has_gates(&self, node: &'static TaskNode) -> bool {
        let gated = !node.gates().is_empty();
        #[cfg(feature = "readiness")]
        let gated = gated
            || self
                .graph
                .index_of(node)
                .is_some_and(|i| !self.graph.ready_deps[i].is_empty());
        gated
    }

    /// The first closed gate of `node`: its resource and executor slots in
    /// declaration order, then (feature `readiness`) its `ready` dependencies.
    fn closed_gate(&self, node: &'static TaskNode) -> Option<Cond<'static>> {
        if let Some(g) = node.gates().iter().find(|g| !g.is_filled()) {
            return Some(Cond::Filled(*g, node));
        }
        #[cfg(feature = "readiness")]
        if let Some(i) = self.graph.index_of(node) {
            // A `#[cfg]`-removed dependency counts as ready.
            return self.graph.ready_deps[i]
                .iter()
                .filter_map(|&d| self.graph.node(d as usize))
                .find(|d| !d.is_ready())
                .map(|dep| Cond::DepReady(dep, node));
        }
        None
    }

    /// Record a spawn's outcome. No change notification here: each verb
    /// notifies once when done, not once per node.
    fn spawned(
        &self,
        node: &'static TaskNode,
        spawned: Result<(), SpawnError>,
    ) -> Result<(), SpawnError> {
        match spawned {
            Ok(()) => {
                #[cfg(feature = "events")]
                crate::event::publish(crate::event::EventKind::NodeSpawned { node: node.name });
                Ok(())
            }
            Err(e) => self.fail(node, e),
        }
    }

    // Out of line: the cold end of every bring-up path (flash).
    #[inline(never)]
    fn fail(&self, node: &'static TaskNode, e: SpawnError) -> Result<(), SpawnError> {
        let slot = self.graph.index_of(node).map_or(NO_NODE, |i| i as u16);
        self.failed.store(slot, Ordering::Release);
        #[cfg(feature = "events")]
        crate::event::publish(crate::event::EventKind::SpawnFailed { node: node.name });
        log_warn!("spawn of `{}` failed: {}", node.name, e);
        Err(e)
    }
}

/// Ask `node` to stop and wait (bounded) for its ack.
pub(crate) fn stop(node: &'static TaskNode) -> AckWait {
    AckWait {
        node,
        until: Until::stop(node),
    }
}

/// Wait (bounded) for the ack of a stop already requested.
#[cfg(feature = "pool")]
pub(crate) fn await_ack(node: &'static TaskNode) -> AckWait {
    AckWait {
        node,
        until: Until::ack(node),
    }
}

/// A stop's ack wait, resolving to its result. A plain future rather than an
/// `async fn`: every verb that stops nodes embeds it (flash).
pub(crate) struct AckWait {
    node: &'static TaskNode,
    until: Until<'static>,
}

impl core::future::Future for AckWait {
    type Output = Result<(), ShutdownTimeout>;

    fn poll(
        mut self: core::pin::Pin<&mut Self>,
        cx: &mut core::task::Context<'_>,
    ) -> core::task::Poll<Self::Output> {
        let node = self.node;
        core::pin::Pin::new(&mut self.until)
            .poll(cx)
            .map(|in_time| acked(node, in_time))
    }
}

fn acked(node: &'static TaskNode, in_time: bool) -> Result<(), ShutdownTimeout> {
    if in_time {
        return Ok(());
    }
    log_warn!("`{}` missed its shutdown ack", node.name);
    #[cfg(feature = "events")]
    crate::event::publish(crate::event::EventKind::ShutdownTimeout { node: node.name });
    Err(ShutdownTimeout { node })
}

/// The node set of one cascade, with the span of the dependency order it
/// occupies (ranks `lo..=hi`), so its passes skip the rest of the graph.
struct Cascade<const N: usize> {
    set: [bool; N],
    lo: usize,
    hi: usize,
    /// Latch `disabled` on every node that joins (a deactivation).
    latch: bool,
}

impl<const N: usize> Cascade<N> {
    fn new(latch: bool) -> Self {
        Self {
            set: [false; N],
            lo: N,
            hi: 0,
            latch,
        }
    }

    fn has(&self, i: usize) -> bool {
        self.set[i]
    }

    /// Add slot `i`, with its whole pool if it is a pool member. Detached
    /// nodes never join.
    fn mark(&mut self, graph: &Graph<N>, i: usize) {
        let Some(n) = graph.node(i) else { return };
        if n.is_detached() {
            return;
        }
        self.add(graph, i, n);
        #[cfg(feature = "pool")]
        if let Some(pool) = graph.pools.get(n.pool as usize) {
            for m in pool.slots() {
                if let Some(member) = graph.node(m).filter(|n| !n.is_detached()) {
                    self.add(graph, m, member);
                }
            }
        }
    }

    fn add(&mut self, graph: &Graph<N>, i: usize, n: &TaskNode) {
        self.set[i] = true;
        if self.latch {
            n.set_disabled(true);
        }
        let r = graph.rank(i);
        self.lo = self.lo.min(r);
        self.hi = self.hi.max(r);
    }
}

fn resume_if_parked(node: &'static TaskNode) {
    if node.flags() & (flag::DETACHED | flag::DISABLED) == 0 && node.is_parked() {
        node.resume_parked();
    }
}
