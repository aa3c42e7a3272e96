//! The bring-up of `start`, `respawn_terminate`, `activate` and `restart`:
//! a fast path in dependency order while every node can come up at once,
//! then, from the first node that cannot, the bring-up wave. Every node
//! comes up as soon as
//! its dependencies in the wave are up and its own gates are open, so
//! independent slow gates overlap and a blocked node holds up only what
//! depends on it.
//!
//! Guarantees:
//!
//! - a node is spawned only after each dependency this bring-up started is
//!   up (as before: a dependency the bring-up skipped, being disabled or
//!   not wanted, does not hold it);
//! - a node waiting for a gate (resource, executor slot, `ready` dep) gets
//!   its own `slot_timeout`, counted from when it began waiting: a node
//!   that first waits for its dependencies waits for them without a bound
//!   of its own, and its budget starts when they are up;
//! - a failure (a gate that stayed closed, a refused spawn, a node latched
//!   meanwhile: refused at the next pass) keeps down the
//!   failed node and everything in the wave that depends on it, and
//!   nothing else: the other nodes still come up. The verb returns the
//!   first failure's error, and `failed_node` names that node;
//! - a teardown that begins meanwhile ends the wave: nothing more comes up
//!   (as every bring-up, through the era check);
//! - a spawn that returns a first `Busy` (embassy still freeing a finished
//!   instance's task slot) is tried once more after two executor passes,
//!   as [`bring_up`](Supervisor::bring_up) does, whatever else waits; if
//!   the wave ends first (a teardown, a latch, a dropped future), the
//!   node's pending retry goes with it, so its next bring-up gets its own.
//!
//! Budget per node: at most its own `slot_timeout` of gate waiting, from
//! when its dependencies in the wave are up; so the verb takes at most the
//! longest chain's sum of slot timeouts, not the sum over all nodes.
//!
//! Cost: no allocation; the future holds a state byte and a 32-bit deadline
//! per slot (5 bytes). A span whose gates are open never gets past the fast
//! path (each verb's own walk: one check and one `bring_up_now` per node,
//! the cost one-at-a-time had; [`FastPath`] for the cascades). Each wake-up (a change:
//! a slot filled, a node ready, or the earliest deadline) re-checks only
//! the span of the dependency order that still has waiting nodes, and the
//! edges of its waiting nodes.

use core::future::poll_fn;
use core::pin::{Pin, pin};
use core::task::{Context, Poll, Waker};

use crate::sync::Ordering;
use embassy_executor::Spawner;

use super::picked::BRING_UP_BITS;
use super::wave_clock::{WaveClock, units};
use super::{Cascade, Supervisor, blocked_by};
use crate::clock::now;
use crate::fault::{NodeFault, Refusal};
use crate::log::log_warn;
use crate::node::transition_wait;
use crate::notify::{self, Observer};
use crate::phase::Phase;
use crate::{Graph, TaskNode, uses};

/// Up, skipped, or not part of the wave: no hold on its dependents.
const FREE: u8 = 0;
/// A gate of its own is closed; its budget runs.
const WAITING: u8 = 1;
/// A dependency in the wave is not up yet.
const DEFERRED: u8 = 2;
/// It, or a dependency in the wave, did not come up.
const FAILED: u8 = 3;
/// Its spawn returned a first `Busy`: tried again at a later poll.
const RETRY: u8 = 4;

/// A cascade's fast path: its verb offers each node to come up, each
/// after its dependencies; they come up at once (no per-node state) until
/// the first that has to wait or fails. From then on every node offered is
/// left to the wave, which covers the ranks of all of them (a cascade may
/// offer a node ranked before one it offered earlier).
pub(super) struct FastPath {
    /// Ranks of the first and last node left to the wave (`from > hi`:
    /// none yet; the fast path is on).
    from: usize,
    hi: usize,
    /// The node whose spawn failed on the fast path (its slot), if one did.
    failed: Option<(usize, NodeFault)>,
}

impl FastPath {
    pub(super) const fn new() -> Self {
        Self {
            from: usize::MAX,
            hi: 0,
            failed: None,
        }
    }

    /// Bring node `i` up now if the fast path is still on; otherwise (or
    /// if it has to wait) leave it to the wave: `false` then, and the
    /// caller marks it for the wave. `true`: done with here (up, or failed:
    /// the wave keeps a failed node down with its dependents).
    // Inline: the per-node step of every cascade's walk.
    #[inline]
    pub(super) fn try_now<const N: usize, const USES: u8>(
        &mut self,
        sup: &Supervisor<N, USES>,
        i: usize,
        node: &'static TaskNode,
        spawner: Spawner,
        era: u32,
    ) -> bool {
        let mut done = false;
        if self.from > self.hi {
            // No state passed in: a seventh argument goes on the stack,
            // which costs what the load it saves (`bring_up_plain` reads
            // the state for the step).
            match sup.bring_up_plain(node, spawner, era) {
                Some(Ok(())) => return true,
                Some(Err(e)) => {
                    self.failed = Some((i, e));
                    done = true;
                }
                None => {}
            }
        }
        let r = sup.graph.rank(i);
        self.from = self.from.min(r);
        self.hi = self.hi.max(r);
        done
    }
}

/// Which nodes a bring-up brings up.
pub(super) enum Want<'a, const N: usize> {
    /// Each down node, neither latched nor detached, whose mode is in the
    /// set (bits `1 << mode`; `start`, `respawn_terminate`).
    Modes(u8),
    /// Each down node the cascade marked to come up (`activate`,
    /// `restart`). One latched meanwhile is refused, as a failure.
    Marked(&'a Cascade<N>),
    /// As `Marked` (`restart`), and a node marked in the array keeps the
    /// restart's collateral hold until its turn (its dependencies in the
    /// wave are up): no other verb brings it up before then.
    Rejoin(&'a Cascade<N>, &'a [bool; N]),
}

impl<const N: usize> Want<'_, N> {
    /// Node `i` is one to bring up now.
    fn has(&self, i: usize, node: &TaskNode) -> bool {
        match self {
            Want::Modes(modes) => super::wanted_now(node, node.state(), *modes),
            Want::Marked(set) | Want::Rejoin(set, _) => set.wants(i) && !node.is_running(),
        }
    }

    /// Node `i`'s dependencies in the wave are up: a restart's own hold on
    /// it goes (unless something else explains it).
    fn at_turn<const USES: u8>(
        &self,
        sup: &Supervisor<N, USES>,
        i: usize,
        node: &'static TaskNode,
    ) {
        if let Want::Rejoin(_, held) = self {
            if held[i] {
                sup.release_hold(node, sup.graph.deps[i]);
            }
        }
    }
}

/// The wave's state: per slot a state and (while `WAITING`) a deadline, or
/// (while `RETRY`) the poll of its retry.
struct StartWave<const N: usize> {
    graph: &'static Graph<N>,
    state: [u8; N],
    /// Per slot: a `WAITING` node's deadline, in units from the clock's
    /// base ([`wave_clock`](super::wave_clock)); a `RETRY` node's poll of
    /// its retry.
    deadline: [u32; N],
    clock: WaveClock,
    /// The first error, with its node.
    first: Option<NodeFault>,
    /// Polls of the wave's future so far (wrapping).
    polls: u32,
    /// Some node entered `RETRY`: the end of the wave checks for a retry
    /// left pending.
    busy: bool,
}

/// A wave in progress: its state, the span of ranks still to look at,
/// and what every try shares. Held by the verb's future; each poll runs
/// [`Supervisor::start_step_as`] over it.
pub(super) struct StartRun<'w, const N: usize> {
    wave: StartWave<N>,
    /// Ranks of the first and last node still waiting.
    span: (usize, usize),
    /// No pass made yet: every wanted node of the span is tried.
    fresh: bool,
    want: &'w Want<'w, N>,
    spawner: Spawner,
    era: u32,
}

/// What a pass left waiting.
struct Left {
    /// Ranks of the first and last node still waiting.
    span: (usize, usize),
    /// The earliest deadline of a `WAITING` node (`u64::MAX`: none).
    earliest: u64,
    /// A node awaits its retry: poll again after the executor ran.
    retry: bool,
}

impl<const N: usize> StartWave<N> {
    /// A node did not come up: keep the first fault.
    fn failed(&mut self, e: NodeFault) -> u8 {
        self.first.get_or_insert(e);
        FAILED
    }

    /// Node `i`'s spawn returned a first `Busy`: retry it two polls from
    /// now (as [`bring_up`](Supervisor::bring_up)'s two yields: embassy runs
    /// each batch of ready tasks newest first).
    fn retry_later(&mut self, i: usize) -> u8 {
        self.deadline[i] = self.polls.wrapping_add(2);
        self.busy = true;
        RETRY
    }

    /// Tick `t` in units from the clock's base, each `WAITING` deadline
    /// moved with the base (a `RETRY` node's poll is not a time).
    fn clock(&mut self, t: u64) -> u32 {
        let state = &self.state;
        self.clock
            .units_at(t, &mut self.deadline, |i, _| state[i] == WAITING)
    }
}

impl<const N: usize> Drop for StartWave<N> {
    /// Every way out (done, a teardown, a dropped future): a node still
    /// awaiting its retry gives it up, so its next bring-up gets its own.
    fn drop(&mut self) {
        // A wave dropped mid-wait: its waiting nodes leave the breadcrumb's
        // list (a finished wave has none).
        #[cfg(feature = "breadcrumb")]
        for (i, &s) in self.state.iter().enumerate() {
            if let Some(node) = self.graph.node(i).filter(|_| s == WAITING) {
                crate::node::crumb::abandon(node);
            }
        }
        if !self.busy {
            return;
        }
        for (i, &s) in self.state.iter().enumerate() {
            if let Some(node) = self.graph.node(i).filter(|_| s == RETRY) {
                node.drop_retry();
            }
        }
    }
}

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
    /// The rest of a cascade's bring-up: the wave over what its fast path
    /// left, if anything.
    // `fast` by reference: moved by value into this future, it is a copy
    // between two places of the caller's future that LLVM cannot tell
    // apart, a `memmove` call that links compiler-builtins' general one.
    pub(super) async fn rest_as_wave(
        &self,
        fast: &mut FastPath,
        want: Want<'_, N>,
        spawner: Spawner,
        era: u32,
    ) -> Result<(), NodeFault> {
        if fast.from > fast.hi {
            return Ok(());
        }
        let span = (fast.from, fast.hi);
        self.start_wave(span, fast.failed.take(), &want, spawner, era)
            .await
    }

    /// Bring up the nodes `want` selects among ranks `from..=hi`, as a
    /// wave (see the module docs). `failed` is a node (its slot) of the
    /// span whose spawn already failed (the fast path tried it): it stays
    /// down, with its dependents. Every other node is tried here.
    pub(super) async fn start_wave(
        &self,
        (from, hi): (usize, usize),
        failed: Option<(usize, NodeFault)>,
        want: &Want<'_, N>,
        spawner: Spawner,
        era: u32,
    ) -> Result<(), NodeFault> {
        let mut run = StartRun {
            wave: StartWave {
                graph: self.graph,
                state: [FREE; N],
                deadline: [0; N],
                clock: WaveClock::new(if self.gates() { now() } else { 0 }),
                first: None,
                polls: 0,
                busy: false,
            },
            span: (from, hi.min(N.saturating_sub(1))),
            fresh: true,
            want,
            spawner,
            era,
        };
        if let Some((slot, e)) = failed {
            run.wave.state[slot] = FAILED;
            run.wave.first = Some(e);
        }
        let mut observer = pin!(Observer::new());
        poll_fn(|cx| self.start_step(&mut run, cx.waker(), observer.as_mut())).await;
        match run.wave.first {
            None => Ok(()),
            Some(e) => {
                // Later failures of the wave stored theirs: name the first.
                let slot = self
                    .graph
                    .index_of(e.node)
                    .map_or(super::NO_NODE, |i| i as u16);
                self.failed.store(slot, Ordering::Release);
                Err(e)
            }
        }
    }

    /// One poll of the wave, in the code for what the graph uses: a type
    /// with neither bring-up bit names the gate-free code, any other runs
    /// the code its graph's [`Picked`](super::picked) table names, so a
    /// `Supervisor<N>` over a gate-free graph links no gate wait.
    #[inline(always)]
    fn start_step(
        &self,
        run: &mut StartRun<'_, N>,
        waker: &Waker,
        observer: Pin<&mut Observer>,
    ) -> Poll<()> {
        match USES & BRING_UP_BITS {
            0 => self.start_step_as::<0>(run, waker, observer),
            _ => (self.picked.start_step)(self, run, waker, observer),
        }
    }

    /// [`start_step`](Self::start_step) for gate and `Pause` bits `U`:
    /// every pass the wave can make now, then a wait (one executor pass
    /// for a retry; with gates, a change or the earliest deadline). It
    /// takes the task's waker, not its `Context`: a `Context` passed out of
    /// line is built in memory at every poll of the caller's task, where
    /// the inline code kept it in registers (+4 instructions a poll).
    pub(super) fn start_step_as<const U: u8>(
        &self,
        run: &mut StartRun<'_, N>,
        waker: &Waker,
        mut observer: Pin<&mut Observer>,
    ) -> Poll<()> {
        let wave = &mut run.wave;
        wave.polls = wave.polls.wrapping_add(1);
        loop {
            let epoch = notify::epoch();
            let pass = Pass {
                // Only a gate's deadline reads the clock.
                t: if U & uses::GATES != 0 {
                    wave.clock(now())
                } else {
                    0
                },
                spawner: run.spawner,
                era: run.era,
            };
            let Some(left) = self.wave_pass::<U>(wave, run.span, run.fresh, run.want, pass) else {
                return Poll::Ready(());
            };
            (run.span, run.fresh) = (left.span, false);
            if self.era() != run.era {
                // A teardown began: nothing more comes up.
                let node = self.graph.node(self.graph.order[run.span.0] as usize);
                if let Some(node) = node.filter(|_| wave.first.is_none()) {
                    wave.first = Some(NodeFault::new(node, Refusal::Halted.into()));
                }
                return Poll::Ready(());
            }
            // Without gates only a retry waits (a node deferred behind it
            // included), so the wave never sleeps on a gate.
            if left.retry || U & uses::GATES == 0 {
                // Back after the executor ran what is ready now; the pass
                // then re-checks every waiting node anyway.
                waker.wake_by_ref();
                return Poll::Pending;
            }
            if left.earliest != u64::MAX {
                embassy_time_driver::schedule_wake(left.earliest, waker);
            }
            let cx = &mut Context::from_waker(waker);
            if !observer.as_mut().sleep(cx, || notify::epoch() != epoch) {
                return Poll::Pending;
            }
        }
    }

    /// One pass over ranks `lo..=hi`: try every node that may come up now
    /// (`fresh`: every wanted node; later: the waiting ones). Returns what
    /// still waits, or `None` if nothing does.
    fn wave_pass<const U: u8>(
        &self,
        wave: &mut StartWave<N>,
        (lo, hi): (usize, usize),
        fresh: bool,
        want: &Want<'_, N>,
        pass: Pass,
    ) -> Option<Left> {
        let mut span: Option<(usize, usize)> = None;
        let mut earliest = u32::MAX;
        let mut retry = false;
        for r in lo..=hi.min(N.saturating_sub(1)) {
            let i = self.graph.order[r] as usize;
            let Some(node) = self.graph.node(i) else {
                continue;
            };
            let s = wave.state[i];
            let candidate = if fresh {
                s == FREE && want.has(i, node)
            } else {
                matches!(s, WAITING | DEFERRED | RETRY)
            };
            if !candidate {
                continue;
            }
            let next = self.wave_step::<U>(wave, want, i, node, pass);
            wave.state[i] = next;
            if matches!(next, WAITING | DEFERRED | RETRY) {
                span = Some(span.map_or((r, r), |(a, _)| (a, r)));
                match next {
                    WAITING => earliest = earliest.min(wave.deadline[i]),
                    RETRY => retry = true,
                    _ => {}
                }
            }
        }
        // A slot timeout's deadline is a fine one, far below `u32::MAX`
        // units (`wave_clock::units`): raw order is time order.
        let earliest = if earliest == u32::MAX {
            u64::MAX
        } else {
            wave.clock.tick_at(earliest)
        };
        span.map(|span| Left {
            span,
            earliest,
            retry,
        })
    }

    /// What becomes of node `i` in this pass.
    fn wave_step<const U: u8>(
        &self,
        wave: &mut StartWave<N>,
        want: &Want<'_, N>,
        i: usize,
        node: &'static TaskNode,
        pass: Pass,
    ) -> u8 {
        let mut held = FREE;
        for &d in self.graph.deps[i] {
            match wave.state.get(d as usize).copied() {
                Some(FAILED) => {
                    log_warn!("`{}` not started: a dependency did not come up", node.name);
                    return FAILED;
                }
                Some(WAITING | DEFERRED | RETRY) => held = DEFERRED,
                _ => {}
            }
        }
        if held == DEFERRED {
            return DEFERRED;
        }
        want.at_turn(self, i, node);
        if let Some(why) = blocked_by(node.state()) {
            // Latched (or detached) during the wave: refused now, not at
            // the end of a gate wait it no longer needs.
            node.drop_retry();
            return match self.spawned(node, Err(why.into())) {
                Err(e) => wave.failed(e),
                Ok(()) => FREE,
            };
        }
        let before = wave.state[i];
        if before == RETRY {
            // Its poll not reached yet (wrapping: it is at most 2 ahead).
            if (wave.deadline[i].wrapping_sub(wave.polls) as i32) > 0 {
                return RETRY;
            }
            // The retry, made here; whatever its outcome, no retry stays
            // pending (a refusal or a teardown leaves the mark set).
            let next = self.wave_try::<U>(wave, i, node, pass);
            node.drop_retry();
            return next;
        }
        if node.retry_pending() {
            // A first `Busy` met before the wave (`start`'s fast path).
            return wave.retry_later(i);
        }
        self.wave_try::<U>(wave, i, node, pass)
    }

    /// Try to bring node `i` up now (its dependencies in the wave are up).
    fn wave_try<const U: u8>(
        &self,
        wave: &mut StartWave<N>,
        i: usize,
        node: &'static TaskNode,
        pass: Pass,
    ) -> u8 {
        let Pass { t, spawner, era } = pass;
        let before = wave.state[i];
        let outcome = match self.bring_up_now_as::<U>(node, spawner, era) {
            Some(outcome) => outcome,
            // A first `Busy` (not a closed gate met on the retry). Without
            // gates nothing else returns `None` (and a retry's `Busy` is its
            // error), so no gate code follows.
            None if U & uses::GATES == 0 || before != RETRY && node.retry_pending() => {
                return wave.retry_later(i);
            }
            None if before != WAITING => {
                // Its budget starts now, when it begins to wait.
                wave.deadline[i] = t + units(node.slot_timeout());
                transition_wait(node, Phase::Spawning);
                return WAITING;
            }
            None if t < wave.deadline[i] => return WAITING,
            None => {
                // The gate it waited for, named: which slot, or which dep.
                let closed = self.closed_gate_as::<U>(node).map(|(_, kind)| kind);
                self.spawned(node, Err(closed.unwrap_or(Refusal::Halted.into())))
            }
        };
        match outcome {
            Ok(()) => FREE,
            Err(e) => wave.failed(e),
        }
    }
}

/// What every try of one wave pass shares: the pass's clock reading (in
/// the wave's units) and the verb's spawner and era.
#[derive(Clone, Copy)]
struct Pass {
    t: u32,
    spawner: Spawner,
    era: u32,
}
