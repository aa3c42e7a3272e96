//! The stop wave: stop a set of nodes dependents-first, each node as soon
//! as its own dependents in the set are down, unrelated nodes concurrently.
//!
//! Guarantees, for the nodes of one wave:
//!
//! - a node is asked to stop only after every dependent of it in the set
//!   has acked (or was down): a down member still orders the wave, so a
//!   node never loses even a transitive dependent that is still up;
//! - nodes with no ordering between them are asked in the same pass and
//!   wind down concurrently: the wall time is the sum of ack times along
//!   the longest chain, not over all nodes;
//! - each node's ack deadline runs from its own stop request, for its own
//!   [`ack_timeout`](crate::NodeSpec::with_ack_timeout) (armed, as every
//!   ack wait's, after the two scheduler passes in which a worker on the
//!   same executor acks without any timer);
//! - [`OnMiss::Abort`]: at the first missed deadline the wave returns that
//!   node's [`ShutdownTimeout`] and asks nothing more. The wedged node's
//!   dependencies were not asked (they wait for its ack) and never are;
//!   nodes already asked keep their request and may still ack. Nothing
//!   waits for them.
//! - [`OnMiss::Continue`]: a node that missed its deadline counts as gone,
//!   the wave goes on to its dependencies, and the first miss is returned
//!   at the end.
//! - a member that another verb brought back up after the wave counted it
//!   down (an `activate` racing the wave) is stopped again before its
//!   dependencies: when any node was marked up since the wave last looked
//!   ([`notify::activations`]), the span is checked before the next node
//!   is asked; if a member runs again, nothing more is asked, and once the
//!   nodes in flight are down the wave walks its span again. Once a node
//!   is asked, no bring-up puts a dependent on it
//!   ([`FaultKind::DepStopping`](crate::FaultKind::DepStopping)).
//!
//! Cost: no allocation. The future holds, per graph slot, a count of
//! dependents still up (2 bytes), a place in the in-flight list (1 byte)
//! and a deadline (8 bytes). Building the wave is one pass over its span of
//! the dependency order and its edges; each ack costs one decrement per
//! dependency of the node that acked; each wake-up re-reads the flags of
//! the nodes in flight (no scan of the graph, no all-pairs recheck): in
//! total O(nodes + edges) plus O(nodes in flight) per wake-up, plus one
//! pass over the span per node marked up elsewhere meanwhile.

use core::future::poll_fn;
use core::pin::{Pin, pin};
use core::task::{Context, Poll};

use crate::clock::now;
use crate::error::ShutdownTimeout;
use crate::fault::NodeFault;
use crate::log::log_warn;
use crate::node::{flag, transition};
use crate::notify::{self, Observer};
use crate::phase::Phase;
use crate::wait::Tick;
use crate::{Graph, TaskNode};

/// Not in the wave, or done with.
const OUT: u16 = u16::MAX;
/// Asked to stop; its ack is awaited.
const FLYING: u16 = u16::MAX - 1;
/// A deadline not armed yet (see [`Run::ask`]).
const UNARMED: u64 = u64::MAX;

/// What a missed ack does to the rest of the wave.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnMiss {
    /// Return the timeout at once; ask nothing more.
    Abort,
    /// Count the node as gone, stop the rest, return the first timeout at
    /// the end (`teardown_continue`).
    Continue,
}

/// One stop wave over a set of a graph's slots (see [`stop_wave`]).
struct StopWave<const N: usize> {
    graph: &'static Graph<N>,
    /// Per slot: [`OUT`], [`FLYING`], or the count of its dependents in
    /// the wave not yet down.
    left: [u16; N],
    /// Slots asked to stop and not yet acked: the first `flying` entries.
    flight: [u8; N],
    flying: u16,
    /// Per slot in flight: when its ack window ends.
    deadline: [Tick; N],
    /// The span of the dependency order the wave covers (ranks `lo..=hi`).
    lo: u16,
    hi: u16,
    started: bool,
    /// Passes left before arming the timer: a worker on this executor
    /// acks within them and the wave needs no timer queue update.
    spin: u8,
    on_miss: OnMiss,
    first_miss: Option<ShutdownTimeout>,
    /// [`notify::activations`] when the wave last made sure no dependent
    /// came back behind it.
    seen: u32,
    /// A node was not asked because a dependent of it came back: walk the
    /// span again once the nodes in flight are down.
    again: bool,
}

impl<const N: usize> StopWave<N> {
    /// A wave within ranks `lo..=hi` of the dependency order; its members
    /// are chosen, and the first nodes asked, by the first poll
    /// ([`Run::begin`]): one pass over the span and its edges.
    fn new(graph: &'static Graph<N>, lo: usize, hi: usize, on_miss: OnMiss) -> Self {
        // An empty span (`lo > hi`, or a graph of no slots) is the empty wave.
        let (lo, hi) = if lo <= hi && hi < N { (lo, hi) } else { (1, 0) };
        Self {
            graph,
            left: [OUT; N],
            flight: [0; N],
            flying: 0,
            deadline: [Tick::new(0); N],
            lo: lo as u16,
            hi: hi as u16,
            started: false,
            spin: 0,
            on_miss,
            first_miss: None,
            seen: notify::activations(),
            again: false,
        }
    }
}

/// The running instance asked to stop is gone (down, or a fresh activation
/// replaced it).
fn acked(n: &TaskNode) -> bool {
    n.flags() & (flag::RUNNING | flag::SHUTDOWN) != (flag::RUNNING | flag::SHUTDOWN)
}

/// The wave's mutable state, borrowed out of the pinned future.
struct Run<'a, const N: usize> {
    graph: &'static Graph<N>,
    left: &'a mut [u16; N],
    flight: &'a mut [u8; N],
    flying: &'a mut u16,
    deadline: &'a mut [Tick; N],
    /// Set by the first stop request of this poll: the task was queued
    /// before it, so a worker on this executor runs (and acks) first.
    asked: bool,
    seen: &'a mut u32,
    again: &'a mut bool,
    lo: usize,
    hi: usize,
}

impl<const N: usize> Run<'_, N> {
    /// The first pass, dependents first: each member counts itself on its
    /// dependencies if it runs or a dependent of it in the wave waits (a
    /// down member still orders the wave, so nothing loses a transitive
    /// dependent that is up), and is asked at once if it runs and nothing
    /// waits on it. A down member with nothing above it leaves the wave
    /// here, for the cost of one flag read. A slot's count is final when
    /// the pass reaches it: its dependents come later in the order.
    fn begin(&mut self, cx: &Context<'_>, lo: usize, hi: usize, member: &impl Fn(usize) -> bool) {
        let graph = self.graph;
        for &i in graph.order[lo..=hi].iter().rev() {
            let i = i as usize;
            // Detached nodes are self-managed: they neither stop nor order.
            let flags = graph
                .node(i)
                .filter(|_| member(i))
                .map_or(flag::DETACHED, |n| n.flags());
            let running = flags & (flag::DETACHED | flag::RUNNING) == flag::RUNNING;
            // `OUT` until a dependent counted itself here.
            let count = if self.left[i] == OUT { 0 } else { self.left[i] };
            if flags & flag::DETACHED != 0 || (!running && count == 0) {
                self.left[i] = OUT;
                continue;
            }
            self.left[i] = count;
            for &d in graph.deps[i] {
                // A dependency before the span is not in the wave.
                if graph.rank(d as usize) >= lo {
                    let l = &mut self.left[d as usize];
                    *l = if *l == OUT { 1 } else { *l + 1 };
                }
            }
            if self.left[i] == 0 && !self.ask(cx, i) {
                // It went down since the flag read. Not `done` here: the
                // counts of its dependencies are not final yet; the first
                // collection finds it down.
                self.left[i] = FLYING;
                self.deadline[i] = Tick::new(UNARMED);
                self.flight[*self.flying as usize] = i as u8;
                *self.flying += 1;
            }
        }
    }

    /// Slot `i` has no dependent left up: ask it to stop if it runs
    /// (`true`); `false` if it is down already (nothing done).
    fn ask(&mut self, cx: &Context<'_>, i: usize) -> bool {
        let Some(n) = self.graph.node(i) else {
            return false;
        };
        if n.flags() & (flag::DETACHED | flag::RUNNING) != flag::RUNNING {
            return false;
        }
        if !self.asked {
            self.asked = true;
            cx.waker().wake_by_ref();
        }
        self.left[i] = FLYING;
        // Armed when the wave first sleeps with the node in flight: an ack
        // within the two passes before that reads no clock at all.
        self.deadline[i] = Tick::new(UNARMED);
        self.flight[*self.flying as usize] = i as u8;
        *self.flying += 1;
        n.request_shutdown();
        true
    }

    /// Slot `i` is down: each of its dependencies in the wave has one
    /// dependent less to wait for. Iterative (a stack in the free tail of
    /// the in-flight list), so a run of down nodes costs no recursion.
    fn done(&mut self, cx: &Context<'_>, i: usize, member: &impl Fn(usize) -> bool) {
        // Slots on the stack are neither in flight nor done yet, so the
        // stack and the in-flight list together never exceed N entries.
        let mut top = N;
        self.left[i] = OUT;
        let mut next = Some(i);
        while let Some(j) = next {
            for &d in self.graph.deps[j] {
                let d = d as usize;
                let Some(l) = self.left.get_mut(d).filter(|l| **l < FLYING) else {
                    continue;
                };
                *l -= 1;
                if *l > 0 {
                    continue;
                }
                if *self.again || self.member_came_back(member) {
                    // Left for the next walk of the span, which finds the
                    // member up again and stops it first.
                    self.left[d] = OUT;
                    *self.again = true;
                    continue;
                }
                if !self.ask(cx, d) {
                    self.left[d] = OUT;
                    top -= 1;
                    self.flight[top] = d as u8;
                }
            }
            next = (top < N).then(|| {
                top += 1;
                self.flight[top - 1] as usize
            });
        }
    }

    /// A member the wave counted down (acked, or down when reached) runs
    /// again. Checked only if a node was marked up since the wave last
    /// looked: one pass over the span then.
    fn member_came_back(&mut self, member: &impl Fn(usize) -> bool) -> bool {
        let now = notify::activations();
        if now == *self.seen {
            return false;
        }
        let graph = self.graph;
        let back = graph.order[self.lo..=self.hi].iter().any(|&j| {
            let j = j as usize;
            let up = graph
                .node(j)
                .is_some_and(|n| n.flags() & (flag::DETACHED | flag::RUNNING) == flag::RUNNING);
            up && self.left[j] == OUT && member(j)
        });
        if !back {
            *self.seen = now;
        }
        back
    }

    /// Retire every node in flight that acked, and whatever that lets go.
    fn collect(&mut self, cx: &Context<'_>, member: &impl Fn(usize) -> bool) {
        let mut k = 0;
        while k < *self.flying as usize {
            let i = self.flight[k] as usize;
            if self.graph.node(i).is_none_or(acked) {
                self.drop_flight(k);
                self.done(cx, i, member);
            } else {
                k += 1;
            }
        }
    }

    fn drop_flight(&mut self, k: usize) {
        *self.flying -= 1;
        self.flight[k] = self.flight[*self.flying as usize];
    }

    /// The node in flight whose deadline passed first, if any, with its
    /// place in the list; otherwise the earliest deadline to come. Arms
    /// the deadline of each node asked since the last sleep.
    fn overdue(&mut self, at: u64) -> Result<u64, usize> {
        let mut earliest = u64::MAX;
        let mut missed = None;
        for k in 0..*self.flying as usize {
            let i = self.flight[k] as usize;
            if self.deadline[i].get() == UNARMED {
                let window = self.graph.node(i).map_or(0, |n| n.ack_timeout().as_ticks());
                self.deadline[i] = Tick::new(at.saturating_add(window));
            }
            let d = self.deadline[i].get();
            if d <= at && missed.is_none_or(|(_, m)| d < m) {
                missed = Some((k, d));
            }
            earliest = earliest.min(d);
        }
        missed.map_or(Ok(earliest), |(k, _)| Err(k))
    }

    fn any_acked(&self) -> bool {
        self.flight[..*self.flying as usize]
            .iter()
            .any(|&i| self.graph.node(i as usize).is_none_or(acked))
    }
}

/// Stop the slots `member` selects within ranks `lo..=hi` of the
/// dependency order as one wave: `Ok` once every member is down, or the
/// first missed ack (see [`OnMiss`]).
pub(crate) async fn stop_wave<const N: usize>(
    graph: &'static Graph<N>,
    lo: usize,
    hi: usize,
    member: impl Fn(usize) -> bool,
    on_miss: OnMiss,
) -> Result<(), NodeFault> {
    // Built here, in the future's own storage: the per-slot arrays are
    // not copied from a constructor's return value.
    let mut wave = StopWave::new(graph, lo, hi, on_miss);
    let mut observer = pin!(Observer::new());
    poll_fn(|cx| wave.poll_step(cx, observer.as_mut(), &member))
        .await
        .map_err(NodeFault::from)
}

impl<const N: usize> StopWave<N> {
    fn poll_step(
        &mut self,
        cx: &mut Context<'_>,
        mut observer: Pin<&mut Observer>,
        member: &impl Fn(usize) -> bool,
    ) -> Poll<Result<(), ShutdownTimeout>> {
        let this = self;
        let mut run = Run {
            graph: this.graph,
            left: &mut this.left,
            flight: &mut this.flight,
            flying: &mut this.flying,
            deadline: &mut this.deadline,
            asked: false,
            seen: &mut this.seen,
            again: &mut this.again,
            lo: this.lo as usize,
            hi: this.hi as usize,
        };
        if !this.started {
            this.started = true;
            if this.lo <= this.hi {
                run.begin(cx, this.lo as usize, this.hi as usize, member);
            }
        }
        loop {
            run.collect(cx, member);
            if *run.flying == 0 && *run.again {
                // A dependent came back behind the wave: walk the span
                // again from its current state (down members leave at once).
                *run.again = false;
                *run.seen = notify::activations();
                run.left.fill(OUT);
                run.begin(cx, run.lo, run.hi, member);
                continue;
            }
            if *run.flying == 0 {
                return Poll::Ready(this.first_miss.take().map_or(Ok(()), Err));
            }
            if run.asked {
                this.spin = 2;
                return Poll::Pending;
            }
            if this.spin > 0 {
                this.spin -= 1;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            let earliest = match run.overdue(now()) {
                Ok(earliest) => earliest,
                Err(k) => {
                    let i = run.flight[k] as usize;
                    let Some(node) = run.graph.node(i) else {
                        run.drop_flight(k);
                        continue;
                    };
                    let miss = missed(node);
                    if this.on_miss == OnMiss::Abort {
                        return Poll::Ready(Err(miss));
                    }
                    this.first_miss.get_or_insert(miss);
                    run.drop_flight(k);
                    run.done(cx, i, member);
                    continue;
                }
            };
            embassy_time_driver::schedule_wake(earliest, cx.waker());
            if !observer.as_mut().sleep(cx, || run.any_acked()) {
                return Poll::Pending;
            }
        }
    }
}

fn missed(node: &'static TaskNode) -> ShutdownTimeout {
    log_warn!("`{}` missed its shutdown ack", node.name);
    transition(node, Phase::StopTimedOut);
    ShutdownTimeout { node }
}
