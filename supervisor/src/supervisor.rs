//! `Supervisor<N>`: the lifecycle verbs over a static [`Graph`]. Each verb is
//! one row of the spec's lifecycle reference table; the per-node decision of
//! each row lives in the function named after it.
//!
//! Tiers: whole-graph (`start`, `teardown`, `teardown_continue`,
//! `respawn_terminate`, `resume_pausable`), single-node (`start_node`,
//! `stop_node`, `resume_node`), cascades (`activate`, `deactivate`).

use crate::sync::{AtomicBool, AtomicU8, AtomicU16, AtomicU32, Ordering, const_unless_loom};
use embassy_executor::Spawner;

use crate::fault::{FaultKind, NodeFault, Refusal};
use crate::log::{log_debug, log_warn};
use crate::node::{Mode, State};
use crate::node::{transition, transition_wait};
use crate::phase::Phase;
use crate::wait::{Cond, Until};
use crate::{Graph, TaskNode, notify, uses};

#[cfg(feature = "restart")]
mod auto;
mod chain_stop;
mod picked;
mod restart;
mod single_stop;
mod start_wave;
mod stop_wave;
mod wave_clock;

use chain_stop::{Bits, GraphStop, UsesBits};
use core::marker::PhantomData;
use picked::{BRING_UP_BITS, Picked};
use start_wave::{FastPath, Want};
use stop_wave::{OnMiss, Race, StopWave, WaveCode, typed_wave};

#[allow(deprecated)]
pub use restart::{RestartError, RestartRefusal};
pub(crate) use single_stop::{missed_ack, stop};

const NO_NODE: u16 = u16::MAX;

/// The modes `start` brings up (bits `1 << mode`): all but `OnDemand`.
const START_MODES: u8 = (1 << Mode::Terminate as u8) | (1 << Mode::Pause as u8);
/// The modes `respawn_terminate` brings up.
const RESPAWN_MODES: u8 = 1 << Mode::Terminate as u8;

/// Orchestrates one [`Graph`]. Construction is free and `const`:
///
/// ```
/// # use embassy_supervisor::{Graph, Mode, Supervisor, NodeSpec, TaskNode};
/// # static A: TaskNode = TaskNode::new(&NodeSpec::new("A", Mode::Terminate));
/// # static GRAPH: Graph<1> = Graph::new([Some(&A)], [&[]]);
/// static SUP: Supervisor<1> = Supervisor::new(&GRAPH);
/// ```
///
/// `USES` ([`uses`](crate::uses) bits, every bit by default) says what of
/// the graph's features the supervisor's code covers: one typed with its
/// graph's `<GRAPH>_USES` links nothing for a feature the graph does not
/// use.
pub struct Supervisor<const N: usize, const USES: u8 = { crate::uses::ALL }> {
    graph: &'static Graph<N>,
    /// Slot of the node whose spawn failed last, or [`NO_NODE`].
    failed: AtomicU16,
    /// Set by `teardown` until the next `start`/`respawn_terminate`/`activate`:
    /// pools do not regrow a torn-down graph.
    halted: AtomicBool,
    /// Teardowns begun (wrapping). A bring-up notes it when it starts and
    /// spawns only if no teardown began since: see [`era`](Self::era).
    teardowns: AtomicU32,
    /// Teardowns in flight: while one runs, no bring-up spawns (one that
    /// began after it would put a dependent back on a node it stops next).
    tearing: AtomicU8,
    /// The code for what the graph uses, where the type leaves it open
    /// (`Supervisor<N>`): picked in const evaluation from the graph
    /// (`supervisor/picked.rs`).
    picked: &'static Picked<N, USES>,
    #[cfg(feature = "controller")]
    pub(crate) controller: Option<&'static dyn crate::controller_port::DriveController>,
}

impl<const N: usize> Supervisor<N> {
    const_unless_loom! {
        /// A supervisor over `graph`, for any graph. What the graph uses
        /// (its gates, `Pause` nodes and width: [`Graph::uses`]) is picked
        /// from it here: declared in a `static` (evaluated at compile
        /// time), the supervisor links only the code its graph needs, as
        /// one typed with the graph's `<GRAPH>_USES` and `<GRAPH>_WIDTH`
        /// does ([`with_uses`](Self::with_uses)), up to a few hundred bytes
        /// the typed form inlines (docs/runtime.md).
        pub const fn new(graph: &'static Graph<N>) -> Self {
            Self::over(graph)
        }
    }
}

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
    const_unless_loom! {
        /// A supervisor over `graph` with the code for what `USES` names only,
        /// typed with the graph's `<GRAPH>_USES` (see [`uses`](crate::uses)):
        ///
        /// ```
        /// # use embassy_supervisor::{Supervisor, TaskNode, supervisor_graph};
        /// # async fn worker(node: &'static TaskNode) {}
        /// # supervisor_graph! { node A = Terminate, task: worker; }
        /// static SUP: Supervisor<1, GRAPH_USES> = Supervisor::with_uses(&GRAPH);
        /// ```
        ///
        /// # Panics
        ///
        /// If `graph` uses a feature `USES` leaves out, or `USES` is a
        /// chain's ([`uses::CHAIN`] without [`uses::WAVE`]) and `graph` is
        /// wider. In a `static`, where a supervisor is declared, that is a
        /// compile error (const evaluation), never a panic on the device.
        /// (`USES` with neither width bit, or both, runs either width: its
        /// whole-graph stops choose at run time; [`uses::WAVE`] alone links
        /// only the waves, which stop a chain correctly too.)
        pub const fn with_uses(graph: &'static Graph<N>) -> Self {
            assert!(
                graph.uses() & !USES == 0,
                "the graph uses a feature (gates or `Pause` nodes) that the supervisor's `USES` \
                 parameter leaves out: type it with the graph's own `<GRAPH>_USES` const, or \
                 write `Supervisor<N>` and `Supervisor::new`"
            );
            assert!(
                USES & WIDTH != uses::CHAIN || graph.is_chain(),
                "the supervisor's `USES` parameter is a chain's (`uses::CHAIN`) and the graph is \
                 wider (two nodes with no order between them): type it with the graph's own \
                 `<GRAPH>_WIDTH` const, or leave the width bits out"
            );
            Self::over(graph)
        }
    }

    const_unless_loom! {
        const fn over(graph: &'static Graph<N>) -> Self {
            Self {
                graph,
                failed: AtomicU16::new(NO_NODE),
                halted: AtomicBool::new(false),
                teardowns: AtomicU32::new(0),
                tearing: AtomicU8::new(0),
                picked: Picked::pick(graph),
                #[cfg(feature = "controller")]
                controller: None,
            }
        }
    }

    /// True between a `teardown` and the next `start`, `respawn_terminate` or
    /// `activate` (one that ends while the teardown is still in flight, its
    /// down nodes refused, leaves it true): the pool driver grows nothing
    /// meanwhile.
    pub fn is_halted(&self) -> bool {
        self.halted.load(Ordering::Acquire)
    }

    /// The era a bring-up starts in: the count of teardowns begun. A bring-up
    /// that waited (for a gate, a `ready` dep) spawns only if it is still the
    /// same era, checked after the atomic step that marks the node running,
    /// so a teardown that returned `Ok` never sees a node come up behind it.
    pub(crate) fn era(&self) -> u32 {
        self.teardowns.load(Ordering::SeqCst)
    }

    /// Begin a teardown: halt the drivers and end the era of every bring-up
    /// in flight. The fence pairs with the one in
    /// [`bring_up_now`](Self::bring_up_now): either that bring-up sees the new
    /// era and backs out, or this teardown sees its node running and stops it.
    /// The teardown counts as in flight until the returned guard drops.
    fn halt(&self) -> Tearing<'_> {
        self.halted.store(true, Ordering::SeqCst);
        self.tearing.fetch_add(1, Ordering::SeqCst);
        self.teardowns.fetch_add(1, Ordering::SeqCst);
        crate::sync::fence(Ordering::SeqCst);
        Tearing(&self.tearing)
    }

    /// The graph this supervisor drives.
    pub const fn graph(&self) -> &'static Graph<N> {
        self.graph
    }

    /// The node whose spawn failed most recently; after a `start` or
    /// `respawn_terminate` that failed, the first node of it that failed
    /// (that node and what depends on it are down, the rest came up).
    /// `None` until a spawn fails.
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
    /// A down node with a `disabled` (or held) dependency takes the
    /// collateral hold, as under a `deactivate`d one, and stays down with
    /// it: [`activate`](Self::activate) of that dependency brings both up.
    ///
    /// A node whose gates are open comes up at once; one that must wait (a
    /// resource or executor slot, a `ready` dep) waits as part of a wave: a
    /// node starts when its dependencies started here are up and its gates
    /// are open, so unrelated slow gates overlap. Each node waits at most
    /// its own `slot_timeout`, counted from when it begins to wait for its
    /// gates (not while it waits for its dependencies).
    ///
    /// A failure (a gate that stayed closed, a refused spawn) keeps down the
    /// failed node and the nodes that depend on it; every other node still
    /// comes up. Returns the first failure's error;
    /// [`NodeFault`] (which gate stayed closed, or why the spawn was refused);
    /// [`failed_node`](Self::failed_node) names that node too. Under `trace` it
    /// also registers the graph with the recorders. Under `enabled-if` it
    /// first asks each down node's `enabled_if:` predicate, when called, and
    /// latches `disabled` on a no.
    // A plain fn returning the shared bring-up future: no wrapper state
    // machine per verb (flash).
    pub fn start(&self, spawner: Spawner) -> impl Future<Output = Result<(), NodeFault>> + '_ {
        #[cfg(feature = "enabled-if")]
        self.latch_enabled_if();
        #[cfg(feature = "trace")]
        if !crate::trace::register_graph(self.graph) {
            log_warn!("trace: more than MAX_GRAPHS graphs; this one's nodes are not named");
        }
        self.bring_up_in_order(spawner, START_MODES)
    }

    /// Reverse-dependency shutdown as a wave: each running node is asked to
    /// stop as soon as all its dependents have acked (or were down), nodes
    /// with no ordering between them at the same time, so the wall time is
    /// the ack time of the longest chain. Each ack deadline runs from that
    /// node's own stop request (its `ack_timeout`). Detached nodes are
    /// skipped; down nodes still order the wave (a node never loses even a
    /// transitive dependent that is up).
    ///
    /// Returns the first missed ack at once, and asks nothing more: the
    /// wedged node's dependencies (which wait for its ack) are never
    /// stopped while it lives; nodes already asked keep their request and
    /// may still ack. The graph is then partially down.
    /// The fault is [`FaultKind::AckMissed`] naming the wedged node.
    ///
    /// A graph whose dependency order is total (a chain,
    /// [`uses::CHAIN`](crate::uses::CHAIN)) has no two nodes to stop at
    /// once: it is stopped one node at a time, the last first, with the
    /// same order, windows and result, and none of the wave's state.
    pub async fn teardown(&self) -> Result<(), NodeFault> {
        #[cfg(feature = "controller")]
        let _closing = crate::controller_port::Closing::new(self.controller);
        let _tearing = self.halt();
        self.whole_graph_wave(OnMiss::Abort).await
    }

    /// Best-effort teardown for the "hardware reset next" path: the same wave,
    /// but a node that missed its ack counts as gone, so its dependencies
    /// are stopped too; returns the first timeout at the end.
    pub async fn teardown_continue(&self) -> Result<(), NodeFault> {
        #[cfg(feature = "controller")]
        let _closing = crate::controller_port::Closing::new(self.controller);
        let _tearing = self.halt();
        self.whole_graph_wave(OnMiss::Continue).await
    }

    /// The stop of every node of the graph: the chain's one at a time, or
    /// the stop wave ([`GraphStop`] holds either; no `async` wrapper state
    /// around it). A type with one width bit names one of them (a
    /// constant); `Supervisor<N>` runs the wave through the code `over`
    /// picked for its graph, if any.
    fn whole_graph_wave(&self, on_miss: OnMiss) -> impl Future<Output = Result<(), NodeFault>> {
        let bits = PhantomData::<Bits<USES>>;
        let wave = match self.whole_stop() {
            WholeStop::Chain => {
                return GraphStop::Chain {
                    stop: chain_stop::chain_stop(self.graph, on_miss),
                    bits,
                };
            }
            WholeStop::Wave(picked) => picked.map(|code| code.all),
        };
        // A typed wave chooses here; the picked `all` chooses itself.
        let all = (0, N.saturating_sub(1));
        let choose = move |w: &mut StopWave<N>| {
            if <Bits<USES> as UsesBits>::ONE_WIDTH {
                w.join_span(all.0, all.1, &|_| true)
            }
        };
        GraphStop::Wave {
            stop: typed_wave::<N, Bits<USES>>(self.graph, choose, on_miss, Race::Halted, wave),
            bits,
        }
    }

    /// Which whole-graph stop this supervisor runs: what the type says (a
    /// constant, for one width bit: no load), else what `over` picked for
    /// the graph (`Supervisor<N>`).
    #[inline(always)]
    fn whole_stop(&self) -> WholeStop<N> {
        match USES & WIDTH {
            uses::CHAIN => WholeStop::Chain,
            uses::WAVE => WholeStop::Wave(None),
            _ => match &self.picked.wave {
                Some(code) => WholeStop::Wave(Some(code)),
                None => WholeStop::Chain,
            },
        }
    }

    /// The loom models' stop wave alone (`loom_hooks::stop_wave`): the
    /// whole graph, as `restart` stops a node and its dependents (bring-ups
    /// may race it).
    #[cfg(loom)]
    pub(crate) fn stop_wave_alone(&self) -> impl Future<Output = Result<(), NodeFault>> {
        let all = (0, N.saturating_sub(1));
        let choose = move |w: &mut StopWave<N>| w.join_span(all.0, all.1, &|_| true);
        // The wave's own code, named (as a type with `uses::WAVE` does).
        typed_wave::<N, Bits<{ uses::WAVE }>>(self.graph, choose, OnMiss::Abort, Race::Any, None)
    }

    /// The wake half of a sleep cycle: reset and respawn every down
    /// `Terminate` node in dependency order. `Pause` nodes are left for
    /// [`resume_pausable`](Self::resume_pausable), `OnDemand` nodes for their
    /// pool; disabled and detached nodes are skipped.
    ///
    /// Brings nodes up as [`start`](Self::start) does (a wave past the first
    /// node that waits; a failure keeps down only it and its dependents).
    pub fn respawn_terminate(
        &self,
        spawner: Spawner,
    ) -> impl Future<Output = Result<(), NodeFault>> + '_ {
        self.bring_up_in_order(spawner, RESPAWN_MODES)
    }

    /// Bring up, in dependency order, every down, enabled, attached node
    /// whose mode is in `modes` (bits `1 << mode`); a failure keeps down
    /// only it and its dependents. Un-halts the pools, and notifies
    /// observers once at the end.
    async fn bring_up_in_order(&self, spawner: Spawner, modes: u8) -> Result<(), NodeFault> {
        let era = self.era();
        self.halted.store(false, Ordering::Release);
        if self.graph.declares_latches {
            self.hold_under_latched();
        }
        let mut result = Ok(());
        if let Some((rank, failed)) = self.fast_pass(spawner, modes, era) {
            let rest = (rank, N.saturating_sub(1));
            result = self
                .start_wave(rest, failed, &Want::Modes(modes), spawner, era)
                .await;
        }
        self.halt_again_if_tearing();
        notify::changed();
        result
    }

    /// The fast path of [`bring_up_in_order`](Self::bring_up_in_order):
    /// nodes whose gates are open come up here, in order, with no per-node
    /// state. `None` if every node came up; otherwise the rank of the first
    /// that has to wait (or failed: its slot and fault), from which the
    /// bring-up wave takes the rest of the order.
    #[inline(always)]
    fn fast_pass(&self, spawner: Spawner, modes: u8, era: u32) -> Option<FastPassEnd> {
        match USES & BRING_UP_BITS {
            0 => self.fast_pass_as::<0>(spawner, modes, era),
            _ => match self.picked.fast_pass {
                Some(fast_pass) => fast_pass(self, spawner, modes, era),
                // Only a type without either bit holds none (and never
                // gets here): the bring-up wave takes every rank.
                None => Some((0, None)),
            },
        }
    }

    /// [`fast_pass`](Self::fast_pass) for gate and `Pause` bits `U`. A
    /// plain fn, not part of the verb's future: its locals stay in
    /// registers.
    pub(super) fn fast_pass_as<const U: u8>(
        &self,
        spawner: Spawner,
        modes: u8,
        era: u32,
    ) -> Option<FastPassEnd> {
        for (rank, &i) in self.graph.order.iter().enumerate() {
            let Some(node) = self.graph.node(i as usize) else {
                continue;
            };
            let seen = node.state();
            if !wanted_now(node, seen, modes) {
                continue;
            }
            return match self.bring_up_plain_as::<U>(node, Some(seen), spawner, era) {
                Some(Ok(())) => continue,
                Some(Err(e)) => Some((rank, Some((i as usize, e)))),
                None => Some((rank, None)),
            };
        }
        None
    }

    /// A bring-up un-halts the graph as it begins; if a teardown is still
    /// in flight as it ends (it refused the nodes it found down), the
    /// graph stays halted behind that teardown, as if the bring-up had
    /// come before it. A bring-up that outlasts the teardown keeps what it
    /// brought up after it, and the graph un-halted.
    fn halt_again_if_tearing(&self) {
        if self.tearing.load(Ordering::SeqCst) != 0 {
            self.halted.store(true, Ordering::Release);
        }
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
    /// (`Ok`). A `disabled` or held node is refused
    /// ([`Refusal::Disabled`] / [`Refusal::Held`]): only `activate` lifts
    /// them.
    pub async fn start_node(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
    ) -> Result<(), NodeFault> {
        let f = node.state();
        if f.is_up() || f.is_detached() {
            return Ok(());
        }
        #[cfg(feature = "enabled-if")]
        let f = if node.lift_gated() { node.state() } else { f };
        if let Some(why) = blocked_by(f) {
            let fault = NodeFault::new(node, FaultKind::Refused(why));
            log_warn!("start_node: {}", fault);
            return Err(fault);
        }
        let result = self.bring_up(node, spawner, self.era()).await;
        notify::changed();
        result
    }

    /// Stop one node and await its ack (for a `Pause` node this is the
    /// single-node pause). No-op on a down or detached node.
    pub async fn stop_node(&self, node: &'static TaskNode) -> Result<(), NodeFault> {
        if node.state().is_up_supervised() {
            Ok(stop(node).await?)
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

    /// Clear the `disabled` latch and the collateral hold on `node`, its
    /// transitive dependencies and (for a pool member) its whole pool, and
    /// release the hold of each transitive dependent of the nodes it
    /// enabled whose dependencies are all neither disabled nor held any
    /// more: `activate` undoes a `deactivate` of the same node. Detached
    /// nodes are never pulled in (activating one is `Ok` and does nothing).
    ///
    /// Then it brings the down nodes it enabled up as [`start`](Self::start)
    /// does: down nodes are spawned, parked `Pause` nodes resumed, `OnDemand`
    /// nodes only enabled (their pool regrows them). A node whose gates are
    /// open comes up at once; past the first node that must wait, as a
    /// wave: a node starts when its dependencies started here are up and its
    /// gates are open, so unrelated slow gates overlap; each waits at most
    /// its own `slot_timeout`, counted from when it begins to wait for its
    /// gates.
    ///
    /// A node that fails to come up keeps down only itself and the nodes
    /// started here that depend on it; everything else comes up, and the
    /// first failure is returned (each is logged;
    /// [`failed_node`](Self::failed_node) names the first). A dependent
    /// whose hold this call released and that stayed down takes the hold
    /// back, so `activate` of the same node again (once the cause is gone)
    /// brings it up. A node not in this graph is refused
    /// ([`Refusal::NotInGraph`]).
    pub async fn activate(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
    ) -> Result<(), NodeFault> {
        let Some(seed) = self.graph.index_of(node) else {
            return Err(NodeFault::new(node, Refusal::NotInGraph.into()));
        };
        if node.is_detached() {
            return Ok(());
        }
        let era = self.era();
        self.halted.store(false, Ordering::Release);
        let mut set = Cascade::new();
        let mut fast = self.enable(&mut set, seed, spawner, era);
        let result = self
            .rest_as_wave(&mut fast, Want::Marked(&set), spawner, era)
            .await;
        if result.is_err_and(|e| !e.is_refusal()) {
            let released = |i: usize| set.set[i] & REL != 0;
            let span = self.graph.order.get(set.lo..=set.reach);
            self.hold_again(span.unwrap_or_default(), released);
        }
        self.halt_again_if_tearing();
        // One change for the whole cascade; it also wakes the pool driver
        // to regrow the enabled `OnDemand` members.
        notify::changed();
        result
    }

    /// The part of [`activate`](Self::activate) that needs no waiting: close
    /// the set over dependencies from `seed`, lift their latches and bring
    /// them up (the fast path), then release the holds of their dependents
    /// and bring those up. Returns what the fast path left to the wave. A
    /// plain fn, not part of the verb's future: its locals stay in
    /// registers.
    fn enable(&self, set: &mut Cascade<N>, seed: usize, spawner: Spawner, era: u32) -> FastPath {
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
        // Nodes come up as they are released (the fast path), until one
        // has to wait or fails: the wave then takes the rest.
        let mut fast = FastPath::new();
        let (lo, hi) = (set.lo, set.hi);
        for &i in &self.graph.order[lo..=hi] {
            let i = i as usize;
            let Some(n) = self.graph.node(i).filter(|_| set.has(i)) else {
                continue;
            };
            let seen = n.lift_latches();
            if comes_up(n, seen) && !fast.try_now(self, i, n, spawner, era) {
                set.come_up(i);
            }
        }
        // Forwards from the set, every dependent comes after its
        // dependencies: one pass reaches the set's dependents, and releases
        // each held one whose dependencies (decided earlier in this same
        // pass) no longer block it. Every dependent of the set lies within
        // the set's reach: O(nodes + edges) up to there, not to the end.
        for &i in self.graph.order.get(lo..=set.reach).unwrap_or_default() {
            let i = i as usize;
            let Some(n) = self.graph.node(i) else {
                continue;
            };
            if set.has(i) || n.is_detached() {
                continue;
            }
            let deps = self.graph.deps[i];
            if !deps.iter().any(|&d| set.has(d as usize)) {
                continue;
            }
            set.join(i);
            if self.release_hold(n, deps) {
                set.release(i);
                let seen = n.state();
                if !seen.is_disabled()
                    && comes_up(n, seen)
                    && !fast.try_now(self, i, n, spawner, era)
                {
                    set.come_up(i);
                }
            }
        }
        fast
    }

    /// A dependency among `deps` is disabled or held: the one rule of the
    /// collateral hold. The cascades release a held node when it is false
    /// ([`release_hold`](Self::release_hold)); `start` holds a down node when
    /// it is true ([`hold_under_latched`](Self::hold_under_latched)). A
    /// `#[cfg]`-removed dependency blocks nothing.
    fn dep_blocked(&self, deps: &[u8]) -> bool {
        deps.iter().any(|&d| {
            self.graph
                .node(d as usize)
                .is_some_and(|d| d.state().is_latched())
        })
    }

    /// Release the collateral hold of `n`, whose dependencies are `deps`,
    /// if nothing else explains it ([`dep_blocked`](Self::dep_blocked); the
    /// dependencies come first in the order, so theirs were decided
    /// already): `activate`, `restart` and the start wave's rejoin. `true`
    /// if released.
    #[inline]
    pub(super) fn release_hold(&self, n: &'static TaskNode, deps: &[u8]) -> bool {
        let release = n.is_held() && !self.dep_blocked(deps);
        if release {
            n.set_held(false);
        }
        release
    }

    /// Before a bring-up in order, in a graph that declares latches
    /// ([`Graph::declares_latches`]; others pay nothing for it): every down
    /// node with a dependency that is disabled (declared `disabled`, or
    /// latched by its `enabled_if:`) or held takes the collateral hold, as if that dependency had been
    /// deactivated, so it does not come up without it; `activate` of the
    /// dependency releases it. In dependency order, so a hold reaches the
    /// transitive dependents in the same pass. O(nodes + edges of the down
    /// nodes), no state.
    fn hold_under_latched(&self) {
        for &i in self.graph.order.iter() {
            let i = i as usize;
            let Some(n) = self.graph.node(i) else {
                continue;
            };
            let f = n.state();
            if f.may_come_up() && self.dep_blocked(self.graph.deps[i]) {
                n.hold_given(f);
            }
        }
    }

    /// After a failed bring-up (`activate`, `restart`): each node of `span`
    /// whose collateral hold the verb `released` and that is still down
    /// takes it back, so the next `activate` of its ancestor brings it up
    /// (and `start` skips it, as before). One pass; failure path only.
    pub(super) fn hold_again(&self, span: &[u8], released: impl Fn(usize) -> bool) {
        for &i in span {
            let i = i as usize;
            let left_down = self
                .graph
                .node(i)
                .filter(|n| released(i) && !n.is_running());
            if let Some(n) = left_down {
                n.set_held(true);
            }
        }
    }

    /// Latch `disabled` on `node` (with its whole pool, for a pool member)
    /// and put the collateral hold on its transitive dependents (with their
    /// pools), then stop them as a wave, dependents first (as
    /// [`teardown`](Self::teardown) does, over this set). The hold is what `activate`
    /// of `node` releases; a node's own `disabled` latch only `activate` of
    /// that node clears. Detached nodes are never pulled in, nor is anything
    /// that depends on the target only through a detached node. Aborts at
    /// the first missed ack ([`FaultKind::AckMissed`]; nothing more is asked
    /// to stop). A node not in this graph is refused ([`Refusal::NotInGraph`]).
    pub async fn deactivate(&self, node: &'static TaskNode) -> Result<(), NodeFault> {
        let Some(seed) = self.graph.index_of(node) else {
            return Err(NodeFault::new(node, Refusal::NotInGraph.into()));
        };
        if node.is_detached() {
            return Ok(());
        }
        // The wave latches each node as it joins, before any stop: no
        // bring-up path (a pool regrow) can restart a member while its
        // siblings are being stopped. A chain's stop does the same, one
        // node at a time.
        let bits = PhantomData::<Bits<USES>>;
        let stop = match self.whole_stop() {
            WholeStop::Chain => GraphStop::Chain {
                stop: chain_stop::chain_deactivate(self.graph, seed),
                bits,
            },
            WholeStop::Wave(picked) => GraphStop::Wave {
                stop: typed_wave::<N, Bits<USES>>(
                    self.graph,
                    move |w| w.join_dependents(seed),
                    OnMiss::Abort,
                    Race::Any,
                    picked.map(|code| code.chosen),
                ),
                bits,
            },
        };
        stop.await?;
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
        era: u32,
    ) -> Result<(), NodeFault> {
        // A bring-up dropped while it waits leaves the breadcrumb's list.
        #[cfg(feature = "breadcrumb")]
        let _crumb = crate::node::crumb::Abandon(node);
        loop {
            if node.retry_pending() {
                // The spawn fn returned `Busy`: one executor pass (what
                // releases a finished task's slot), then the last try.
                // Embassy runs each batch of ready tasks newest first, so
                // every task that was ready at the failure has been polled
                // only after the second yield.
                embassy_futures::yield_now().await;
                embassy_futures::yield_now().await;
            }
            if let Some(result) = self.bring_up_now(node, spawner, era) {
                if result.is_err() {
                    // Refused or halted after a first `Busy`: the next
                    // bring-up gets its own retry.
                    node.drop_retry();
                }
                return result;
            }
            let Some((cond, closed)) = self.closed_gate(node) else {
                continue; // opened since: try again
            };
            transition_wait(node, Phase::Spawning);
            let gate = GateWait::<Bits<USES>> {
                until: Until::within(cond, node.slot_timeout()),
                bits: PhantomData,
            };
            if !gate.await {
                node.drop_retry();
                // The gate it waited for, named: which slot, or which dep.
                return self.spawned(node, Err(closed));
            }
            // The wait yielded: whatever ran meanwhile (a `deactivate`, a
            // `teardown`) is re-checked by `bring_up_now`, atomically with
            // the spawn decision.
        }
    }

    /// The part of a bring-up that needs no waiting, which is all of it
    /// unless a gate is closed or the spawn fn returned its first `Busy`;
    /// `None` (and nothing done) then: [`bring_up`](Self::bring_up) waits
    /// for the gate, or one executor pass before its one retry. Loops
    /// over many nodes call this first and create a bring-up future only for
    /// a node that waits, so a node with open gates costs no future.
    #[inline(always)]
    pub(crate) fn bring_up_now(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
        era: u32,
    ) -> Option<Result<(), NodeFault>> {
        match USES & BRING_UP_BITS {
            0 => self.bring_up_now_as::<0>(node, spawner, era),
            _ => (self.picked.bring_up_now)(self, node, spawner, era),
        }
    }

    /// [`bring_up_now`](Self::bring_up_now) for a graph whose gate and
    /// `Pause` bits are `U` (the type's, or those `picked` found).
    // One out-of-line copy shared by every bring-up loop (flash).
    #[inline(never)]
    pub(super) fn bring_up_now_as<const U: u8>(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
        era: u32,
    ) -> Option<Result<(), NodeFault>> {
        // Nothing comes up on top of a stopping dependency. A node up
        // already, a latch and a teardown are reported as such below. One
        // load while no node anywhere is stopping.
        if notify::any_stopping() {
            let settled = !node.state().may_come_up() || self.era() != era;
            if let Some(dep) = self.stopping_dep(node).filter(|_| !settled) {
                return Some(self.spawned(node, Err(FaultKind::DepStopping { dep })));
            }
        }
        if parked::<U>(node) {
            return Some(match node.try_begin_resume() {
                Ok(before) => {
                    if let Some(dep) = self.still_clear(node, before, era) {
                        return Some(self.refused_after_step(node, dep));
                    }
                    node.wake_resumed();
                    Ok(())
                }
                Err(now) => self.lost_race(node, now),
            });
        }
        let Some(spawn) = node.spawn_fn() else {
            // A parked (app-spawned) node: the supervisor cannot spawn it. It
            // is up unless its instance was stopped, which only the
            // application can undo (by spawning and `adopt`ing it again).
            if !node.shutdown_requested() {
                let _ = node.begin_activation();
                transition(node, Phase::Started);
            } else {
                log_debug!(
                    "`{}` is app-spawned and was stopped; not restarted",
                    node.name
                );
            }
            return Some(Ok(()));
        };
        if self.has_gates::<U>(node) {
            // Up already (another bring-up won while this one waited): its
            // outcome is ours.
            if node.is_running() {
                return Some(Ok(()));
            }
            if self.closed_gate_as::<U>(node).is_some() {
                return None;
            }
        }
        self.spawn_now(node, None, spawn, spawner, era)
    }

    /// The end of every spawn: the atomic step, the era check, the spawn.
    /// Inline: the whole-graph fast pass runs it in its own loop.
    #[inline(always)]
    fn spawn_now(
        &self,
        node: &'static TaskNode,
        seen: Option<State>,
        spawn: crate::node::SpawnFn,
        spawner: Spawner,
        era: u32,
    ) -> Option<Result<(), NodeFault>> {
        // Marking the node running is the one atomic step that decides who
        // spawns it (a bring-up that loses finds it up already), and it
        // refuses a node latched `disabled` or detached meanwhile.
        let before = match node.try_begin_activation(seen) {
            Ok(before) => before,
            Err(now) => return Some(self.lost_race(node, now)),
        };
        if let Some(dep) = self.still_clear(node, before, era) {
            return Some(self.refused_after_step(node, dep));
        }
        // A parked resident shell whose glue would only hand the activation
        // over (the step saw it resident): hand it over here, without the
        // glue's call.
        if before.is_resident() && node.hands_over_directly() {
            node.hand_over();
            return Some(self.spawned(node, Ok(())));
        }
        match spawn(node, spawner) {
            Ok(()) => Some(self.spawned(node, Ok(()))),
            // A first `Busy` is retried once, after one executor pass (see
            // `bring_up`): embassy may still be releasing the task slot of
            // an instance that just acked, on another core or a lower tier.
            Err(_) if node.abort_busy(before) => None,
            Err(e) => Some(self.spawned(node, Err(e.into()))),
        }
    }

    /// [`bring_up_now`](Self::bring_up_now) for the whole-graph fast pass:
    /// the common case (no node stopping anywhere, a node the supervisor
    /// spawns, neither parked nor gated) inline, every other case through
    /// `bring_up_now`. Same outcome either way.
    #[inline(always)]
    fn bring_up_plain(
        &self,
        node: &'static TaskNode,
        spawner: Spawner,
        era: u32,
    ) -> Option<Result<(), NodeFault>> {
        match USES & BRING_UP_BITS {
            // The state read here and handed to the step: its peeled first
            // try is 2 instructions a node cheaper than the plain loop. Not
            // on the picked path, whose `bring_up_now` reads it itself (an
            // atomic load made for it would never be dropped).
            0 => self.bring_up_plain_as::<0>(node, Some(node.state()), spawner, era),
            _ => (self.picked.bring_up_now)(self, node, spawner, era),
        }
    }

    /// [`bring_up_plain`](Self::bring_up_plain) for gate and `Pause` bits
    /// `U`.
    #[inline(always)]
    fn bring_up_plain_as<const U: u8>(
        &self,
        node: &'static TaskNode,
        seen: Option<State>,
        spawner: Spawner,
        era: u32,
    ) -> Option<Result<(), NodeFault>> {
        match node.spawn_fn() {
            // A stopping dependency is `spawn_now`'s to find (after its
            // atomic step, where no stop wave can slip in unseen).
            Some(spawn) if !parked::<U>(node) && !self.has_gates::<U>(node) => {
                self.spawn_now(node, seen, spawn, spawner, era)
            }
            _ => self.bring_up_now_as::<U>(node, spawner, era),
        }
    }

    /// After the atomic step that marked `node` running: `Ok` if no
    /// teardown began since the bring-up's `era` and none is in flight (a
    /// `start` that began during one waits for none), and no dependency is
    /// stopping or about to be asked by a stop wave. Otherwise the step is
    /// undone (and observers told, as a teardown or a stop wave may be
    /// waiting for this node's ack): nothing comes up behind a teardown,
    /// nor on top of a stopping dependency. Both checks come after the
    /// step and a fence: a teardown (`halt`) and a stop wave's ask
    /// (`TaskNode::mark_asked`) write, fence, then look for the node up, so
    /// either they see it up (and stop it first) or this sees them. A check
    /// of the dependencies before the step alone would leave a window (a
    /// stop landing between the check and the step).
    #[inline]
    fn still_clear(
        &self,
        node: &'static TaskNode,
        before: State,
        era: u32,
    ) -> Option<Option<&'static TaskNode>> {
        // Pairs with the fence in `halt` and with the one in a stop wave's ask.
        crate::sync::fence(Ordering::SeqCst);
        let halted = self.teardowns.load(Ordering::Relaxed) != era
            || self.tearing.load(Ordering::Relaxed) != 0;
        // No node stopping and no stop wave in flight (one load): nothing
        // to check among the dependencies.
        if !halted && !notify::any_stopping_after_fence() {
            return None;
        }
        self.refusal_after_step(node, before, halted)
    }

    /// [`still_clear`](Self::still_clear) found a teardown, or a node
    /// stopping somewhere: `None` if it is neither a teardown nor a
    /// dependency of this node; otherwise the step is undone and the
    /// refusal returned (`Some(None)`: a teardown; `Some(Some(dep))`: `dep`
    /// is stopping). Out of line: the cold end.
    #[inline(never)]
    fn refusal_after_step(
        &self,
        node: &'static TaskNode,
        before: State,
        halted: bool,
    ) -> Option<Option<&'static TaskNode>> {
        let why = if halted {
            None
        } else {
            // A stop wave may be looking: count the activation for its
            // came-back check, then fence before reading the dependencies.
            // The wave marks, fences, then reads the count: of the two
            // fences one comes first, so either it sees the count moved or
            // the check below sees its mark. (A bring-up that read the
            // stopping count zero counted nothing: a wave that raised it
            // after that fenced before choosing, and sees this node up.)
            notify::activated();
            crate::sync::fence(Ordering::SeqCst);
            Some(self.stopping_dep(node)?)
        };
        node.abort_activation(before);
        notify::changed();
        Some(why)
    }

    /// Report what [`still_clear`](Self::still_clear) refused: a teardown
    /// (`None`), or a stopping dependency. Out of line: the cold end.
    #[inline(never)]
    fn refused_after_step(
        &self,
        node: &'static TaskNode,
        dep: Option<&'static TaskNode>,
    ) -> Result<(), NodeFault> {
        let kind = match dep {
            Some(dep) => FaultKind::DepStopping { dep },
            None => {
                log_warn!(
                    "`{}`: a teardown began during its bring-up; not started",
                    node.name
                );
                Refusal::Halted.into()
            }
        };
        self.spawned(node, Err(kind))
    }

    /// The atomic step found `node` with these flags: up (another bring-up
    /// won, its outcome is ours), latched `disabled` / held / detached
    /// meanwhile, or (a resume) its parked instance quit meanwhile: that
    /// instance is still being freed, so it is the busy task pool.
    fn lost_race(&self, node: &'static TaskNode, seen: State) -> Result<(), NodeFault> {
        if seen.is_up() {
            return Ok(());
        }
        let kind = blocked_by(seen).map_or(FaultKind::SpawnBusy, FaultKind::Refused);
        self.spawned(node, Err(kind))
    }

    /// The graph may have gates (see [`uses`](crate::uses)): what the type
    /// says (`USES`, a constant: a bit left out links none of its code),
    /// then what `picked` found in the graph (a load, for a type that
    /// leaves the bit open).
    #[inline(always)]
    pub(super) fn gates(&self) -> bool {
        USES & uses::GATES != 0 && self.picked.gates
    }

    /// The node waits for something before it spawns: a resource or
    /// executor slot, or (feature `readiness`) a `ready` dependency. Never,
    /// for a graph without gates (`U`, see [`uses`](crate::uses)).
    #[inline(always)]
    fn has_gates<const U: u8>(&self, node: &'static TaskNode) -> bool {
        if U & uses::GATES == 0 {
            return false;
        }
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
    /// declaration order, then (feature `readiness`) its `ready` dependencies;
    /// with the fault a bring-up reports if it stays closed.
    #[inline(always)]
    fn closed_gate(&self, node: &'static TaskNode) -> Option<(Cond<'static>, FaultKind)> {
        match USES & uses::GATES {
            0 => None,
            _ => self
                .picked
                .closed_gate
                .and_then(|closed| closed(self, node)),
        }
    }

    /// [`closed_gate`](Self::closed_gate) for a graph whose gate bit is in
    /// `U` (never a gate without it).
    pub(super) fn closed_gate_as<const U: u8>(
        &self,
        node: &'static TaskNode,
    ) -> Option<(Cond<'static>, FaultKind)> {
        if U & uses::GATES == 0 {
            return None;
        }
        let gates = node.gates().iter().enumerate();
        if let Some((i, g)) = gates.clone().find(|(_, g)| !g.is_filled()) {
            // A node has at most a few gates: the index fits (saturates if not).
            let gate = i.min(u8::MAX as usize) as u8;
            let kind = if g.is_executor_slot() {
                FaultKind::ExecutorUnpublished { gate }
            } else {
                FaultKind::ResourceEmpty { gate }
            };
            return Some((Cond::Filled(*g, node), kind));
        }
        #[cfg(feature = "readiness")]
        if let Some(i) = self.graph.index_of(node) {
            // A `#[cfg]`-removed dependency counts as ready.
            return self.graph.ready_deps[i]
                .iter()
                .filter_map(|&d| self.graph.node(d as usize))
                .find(|d| !d.is_ready())
                .map(|dep| (Cond::DepReady(dep, node), FaultKind::DepNotReady { dep }));
        }
        None
    }

    /// The first dependency of `node` that is stopping: asked to stop (or
    /// pause) and not yet acked. A stop wave asks a node only once its
    /// dependents are down; this keeps a bring-up racing the wave from
    /// putting one back on it. A dependency already down is left as it is
    /// (as `start_node` does). O(the node's dependencies).
    fn stopping_dep(&self, node: &'static TaskNode) -> Option<&'static TaskNode> {
        let i = self.graph.index_of(node)?;
        self.graph.deps[i]
            .iter()
            .filter_map(|&d| self.graph.node(d as usize))
            .find(|d| d.state().is_stopping_supervised())
    }

    /// Record a spawn's outcome. No change notification here: each verb
    /// notifies once when done, not once per node.
    fn spawned(
        &self,
        node: &'static TaskNode,
        spawned: Result<(), FaultKind>,
    ) -> Result<(), NodeFault> {
        match spawned {
            Ok(()) => {
                transition(node, Phase::Started);
                Ok(())
            }
            Err(kind) => self.fail(node, kind),
        }
    }

    // Out of line: the cold end of every bring-up path (flash).
    #[inline(never)]
    fn fail(&self, node: &'static TaskNode, kind: FaultKind) -> Result<(), NodeFault> {
        let slot = self.graph.index_of(node).map_or(NO_NODE, |i| i as u16);
        self.failed.store(slot, Ordering::Release);
        transition(node, Phase::SpawnFailed);
        let fault = NodeFault::new(node, kind);
        log_warn!("{}", fault);
        Err(fault)
    }
}

/// Where a whole-graph fast pass stopped ([`Supervisor::fast_pass`]): the
/// rank of the first node that has to wait, and the slot and fault of one
/// that failed, if that is why.
pub(super) type FastPassEnd = (usize, Option<(usize, NodeFault)>);

/// A whole-graph stop ([`Supervisor::whole_stop`]): the chain's, or the
/// wave, with the code `over` picked for the graph unless the type names
/// it (`None`).
enum WholeStop<const N: usize> {
    Chain,
    Wave(Option<&'static WaveCode<N>>),
}

pin_project_lite::pin_project! {
    /// [`Supervisor::bring_up`]'s gate wait. Its poll tests the type's
    /// gate bit first (a constant): a type without it never builds one,
    /// and its build links no gate wait. (The `async fn`'s state for this
    /// await stays reachable from its resume switch whatever the bits, so
    /// an `Until` awaited there directly was linked into every build.)
    struct GateWait<B> {
        #[pin]
        until: Until<'static>,
        bits: PhantomData<B>,
    }
}

impl<B: UsesBits> Future for GateWait<B> {
    type Output = bool;

    fn poll(
        self: core::pin::Pin<&mut Self>,
        cx: &mut core::task::Context<'_>,
    ) -> core::task::Poll<bool> {
        if B::USES & uses::GATES == 0 {
            // Never built for this type (`closed_gate` is `None`).
            return core::task::Poll::Ready(false);
        }
        self.project().until.poll(cx)
    }
}

/// The width bits of a `USES` parameter: exactly one links only that
/// whole-graph stop; neither or both, both (chosen at run time).
const WIDTH: u8 = uses::WAVE | uses::CHAIN;

/// A teardown in flight (see [`Supervisor::halt`]); dropped when the
/// teardown ends, returned or cancelled.
struct Tearing<'a>(&'a AtomicU8);

impl Drop for Tearing<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The node set of one cascade, with the span of the dependency order it
/// occupies (ranks `lo..=hi`), so its passes skip the rest of the graph.
struct Cascade<const N: usize> {
    /// Per slot: [`OUT`], [`IN`] or [`UP`], with [`REL`] on a dependent
    /// whose hold the verb released.
    set: [u8; N],
    /// The ranks the members occupy (`lo..=hi`; empty if `lo > hi`).
    lo: usize,
    hi: usize,
    /// The highest rank among the members and their transitive
    /// dependents: a walk for dependents ends there.
    reach: usize,
}

/// Not in the cascade.
const OUT: u8 = 0;
/// In the cascade.
const IN: u8 = 1;
/// In the cascade, and to be brought up by its verb.
const UP: u8 = 2;
/// A dependent whose collateral hold the verb released (a bit beside
/// [`IN`] / [`UP`]).
const REL: u8 = 4;

impl<const N: usize> Cascade<N> {
    fn new() -> Self {
        Self {
            set: [OUT; N],
            lo: N,
            hi: 0,
            reach: 0,
        }
    }

    fn has(&self, i: usize) -> bool {
        self.set[i] != OUT
    }

    /// Add slot `i` alone (no pool, no latch, no span change).
    fn join(&mut self, i: usize) {
        self.set[i] = IN;
    }

    /// Member `i` is left to the bring-up wave (or, for a restart, to be
    /// brought back up).
    fn come_up(&mut self, i: usize) {
        self.set[i] = UP | (self.set[i] & REL);
    }

    /// Member `i` is to be brought up.
    fn wants(&self, i: usize) -> bool {
        self.set[i] & UP != 0
    }

    /// Member `i` is a dependent whose collateral hold the verb released.
    fn release(&mut self, i: usize) {
        self.set[i] |= REL;
    }

    /// Add slot `i`, with its whole pool if it is a pool member. Detached
    /// nodes never join.
    fn mark(&mut self, graph: &Graph<N>, i: usize) {
        let Some(n) = graph.node(i) else { return };
        if n.is_detached() {
            return;
        }
        self.add(graph, i);
        #[cfg(feature = "pool")]
        if let Some(pool) = n.pool {
            self.mark_pool(graph, pool);
        }
    }

    /// The rest of a pool member's pool (see [`mark`](Self::mark)). Out of
    /// line: most nodes are in no pool, and `mark` then saves no registers
    /// for this loop (measured: CHAIN(64) `activate(last)`, bench/budget.sh).
    #[cfg(feature = "pool")]
    #[inline(never)]
    fn mark_pool(&mut self, graph: &Graph<N>, pool: u8) {
        let Some(pool) = graph.pools.get(pool as usize) else {
            return;
        };
        for m in pool.slots() {
            if graph.node(m).is_some_and(|n| !n.is_detached()) {
                self.add(graph, m);
            }
        }
    }

    /// Add every transitive dependent of the set (with its pool; detached
    /// nodes never join, nor what depends on the set only through one).
    /// Walking the order forwards from the set visits every dependency
    /// before its dependents (and nothing before the set can be one): one
    /// pass, O(nodes + edges) up to the set's reach.
    fn close_over_dependents(&mut self, graph: &Graph<N>) {
        // `mark` moves `reach` on for a pool member beyond it.
        let mut pos = self.lo;
        while pos <= self.reach {
            let Some(&i) = graph.order.get(pos) else {
                break;
            };
            pos += 1;
            let i = i as usize;
            if !self.has(i) && graph.deps[i].iter().any(|&d| self.has(d as usize)) {
                self.mark(graph, i);
            }
        }
    }

    // Every verb adds its members before it marks any `UP`.
    #[inline]
    fn add(&mut self, graph: &Graph<N>, i: usize) {
        self.set[i] = IN;
        let r = graph.rank(i);
        self.lo = self.lo.min(r);
        self.hi = self.hi.max(r);
        self.reach = self.reach.max(graph.reach(i));
    }
}

/// An activation brings `n` up, whose state is `seen`: it is down and not
/// an `OnDemand` node (its pool grows it).
fn comes_up(n: &TaskNode, seen: State) -> bool {
    n.mode() != Mode::OnDemand && !seen.is_up()
}

/// What holds a node down, if anything, given its state.
pub(crate) fn blocked_by(seen: State) -> Option<Refusal> {
    if seen.is_detached() {
        Some(Refusal::Detached)
    } else if seen.is_disabled() {
        Some(Refusal::Disabled)
    } else if seen.is_held() {
        Some(Refusal::Held)
    } else {
        None
    }
}

/// `start` / `respawn_terminate` bring `node` up, whose state is `seen`:
/// it is down, neither latched nor detached, and its mode is in `modes`
/// (bits `1 << mode`).
fn wanted_now(node: &TaskNode, seen: State, modes: u8) -> bool {
    seen.may_come_up() && modes & (1 << node.mode() as u8) != 0
}

/// A parked `Pause` instance, to resume in place (never, for a graph
/// without `Pause` nodes: `U`, see [`uses`](crate::uses)).
#[inline(always)]
fn parked<const U: u8>(node: &'static TaskNode) -> bool {
    U & uses::PAUSE != 0 && node.is_parked()
}

fn resume_if_parked(node: &'static TaskNode) {
    if !node.state().is_blocked() && node.is_parked() {
        node.resume_parked();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Supervisor, WholeStop};
    use crate::{Graph, Mode, NodeSpec, TaskNode, uses};

    static A: TaskNode = TaskNode::new(&NodeSpec::new("A", Mode::Terminate));
    static B: TaskNode = TaskNode::new(&NodeSpec::new("B", Mode::Terminate));
    static C: TaskNode = TaskNode::new(&NodeSpec::new("C", Mode::Terminate));
    // B and C both depend on A and not on each other: a wave's graph.
    static CHAIN: Graph<2> = Graph::new([Some(&A), Some(&B)], [&[], &[0]]);
    static WIDE: Graph<3> = Graph::new([Some(&A), Some(&B), Some(&C)], [&[], &[0], &[0]]);

    // What `over` picks in const evaluation, as the statics users write.
    static CHAIN_SUP: Supervisor<2> = Supervisor::new(&CHAIN);
    static WIDE_SUP: Supervisor<3> = Supervisor::new(&WIDE);
    static WIDE_TYPED: Supervisor<3, { uses::ALL | uses::WAVE }> = Supervisor::with_uses(&WIDE);
    static CHAIN_TYPED: Supervisor<2, { uses::ALL | uses::CHAIN }> = Supervisor::with_uses(&CHAIN);
    static PLAIN: Graph<2> = Graph::new([Some(&A), Some(&B)], [&[], &[0]]).__declare_uses(0);
    static PLAIN_SUP: Supervisor<2> = Supervisor::new(&PLAIN);
    static PLAIN_TYPED: Supervisor<2, { uses::CHAIN }> = Supervisor::with_uses(&PLAIN);

    #[test]
    fn the_wave_code_is_picked_only_by_an_untyped_supervisor_of_a_wide_graph() {
        // The pointer is the one reference to the wave's code in an
        // untyped build: a chain's supervisor holds none.
        assert!(CHAIN_SUP.picked.wave.is_none());
        assert!(matches!(CHAIN_SUP.whole_stop(), WholeStop::Chain));
        assert!(WIDE_SUP.picked.wave.is_some());
        assert!(matches!(WIDE_SUP.whole_stop(), WholeStop::Wave(Some(_))));
        // A type with one width bit names its stop itself.
        assert!(WIDE_TYPED.picked.wave.is_none());
        assert!(matches!(WIDE_TYPED.whole_stop(), WholeStop::Wave(None)));
        assert!(CHAIN_TYPED.picked.wave.is_none());
        assert!(matches!(CHAIN_TYPED.whole_stop(), WholeStop::Chain));
    }

    #[test]
    fn the_bring_up_code_is_picked_for_the_graph_s_own_bits() {
        // A hand-built graph declares every bit: the gate code is picked.
        assert!(CHAIN_SUP.picked.gates && CHAIN_SUP.gates());
        // A graph that declares none: the code without gates, under the
        // type that leaves every bit open.
        assert!(!PLAIN_SUP.picked.gates && !PLAIN_SUP.gates());
        // A type without the gate bit never tests for a gate.
        assert!(!PLAIN_TYPED.gates());
    }
}
