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
//!   ([`notify::activations`]), the wave's span is checked before the next
//!   node is asked; if a member runs again, nothing more is asked, and once
//!   the nodes in flight are down the wave chooses again among its members.
//!   Once a node is asked, no bring-up puts a dependent on it
//!   ([`FaultKind::DepStopping`](crate::FaultKind::DepStopping)).
//!
//! Cost: no allocation. The future holds, per graph slot, a count of
//! dependents still up (2 bytes), a place in the in-flight list (1 byte)
//! and a deadline (4 bytes: [`wave_clock`] units from
//! the wave's base, 8 bytes once per wave; an ack timeout of any length,
//! never early). Choosing the members reads each candidate's flags once
//! (for `deactivate`'s, [`StopWave::join_dependents`]: one pass over the
//! dependency order from the target to its last transitive dependent,
//! [`Graph::reach`], which also latches the holds);
//! counting is a walk from the running members down their dependencies,
//! so a member that is down and orders nothing costs nothing more. Each
//! ack costs one decrement per dependency of the node that acked; each
//! wake-up re-reads the flags of the nodes in flight (no scan of the
//! graph, no all-pairs recheck): in total O(nodes + edges) plus O(nodes in
//! flight) per wake-up, plus one pass over the span per node marked up
//! elsewhere meanwhile.

use core::future::poll_fn;
use core::pin::{Pin, pin};
use core::task::{Context, Poll};

use super::wave_clock::{self, WaveClock};
use crate::clock::now;
use crate::error::ShutdownTimeout;
use crate::fault::NodeFault;
use crate::node::State;
use crate::notify::{self, Observer};
use crate::sync::Ordering;
use crate::{Graph, TaskNode};

// The marks are the smallest values, so a fresh wave's per-slot arrays
// are all zeros: the future's set-up clears them (one `memclr`) where a
// fill with another byte linked `memset` (FP −184 B of flash).

/// Not in the wave, or done with.
const OUT: u16 = 0;
/// Asked to stop; its ack is awaited.
const FLYING: u16 = 1;
/// A member down at the choice and not (yet) found to order a running
/// member.
const UNSEEN: u16 = 2;
/// A member the wave counted down (acked, or down when reached), or one
/// left for the next choice (see [`StopWave::came_back`]). Every value
/// above it is a count of dependents still up, offset by [`NONE_UP`].
const DONE: u16 = 3;
/// A count of zero dependents still up; `NONE_UP + k` counts `k`.
const NONE_UP: u16 = 4;
/// A deadline not armed yet (see [`StopWave::ask`]); no armed deadline
/// reaches it (`wave_clock::deadline_ms`).
const UNARMED: u32 = u32::MAX;

/// The latch a deactivation puts on a member: `disabled` on the target
/// (and its pool), the collateral hold on the rest.
#[derive(Clone, Copy)]
enum Latch {
    Disabled,
    // Latched through `latch` only on a held dependent's pool members.
    #[cfg_attr(not(feature = "pool"), allow(dead_code))]
    Held,
}

/// What a missed ack does to the rest of the wave.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum OnMiss {
    /// Return the timeout at once; ask nothing more.
    Abort,
    /// Count the node as gone, stop the rest, return the first timeout at
    /// the end (`teardown_continue`).
    Continue,
}

/// One stop wave over a set of a graph's slots.
pub(crate) struct StopWave<const N: usize> {
    graph: &'static Graph<N>,
    /// Per slot: [`OUT`], [`FLYING`], [`UNSEEN`], [`DONE`], or
    /// [`NONE_UP`] plus the count of its dependents in the wave not yet
    /// down. Not a `u8`: a node of a 256-slot graph may have 255
    /// dependents, beside the five marks.
    left: [u16; N],
    /// Slots asked to stop and not yet acked: the first `flying` entries.
    /// While the wave is chosen, its running members, in dependency order.
    flight: [u8; N],
    flying: u16,
    /// Per slot in flight: when its ack window ends, in units from the
    /// clock's base.
    deadline: [u32; N],
    /// Its base: read first when the wave first sleeps (a reading from
    /// boot moves it up then, if far), so a wave whose acks land within
    /// the spin reads no clock.
    clock: WaveClock,
    /// Set by the first stop request of a poll: the task was queued
    /// before it, so a worker on this executor runs (and acks) first.
    asked: bool,
    /// Passes left before arming the timer: a worker on this executor
    /// acks within them and the wave needs no timer queue update.
    spin: u8,
    on_miss: OnMiss,
    first_miss: Option<ShutdownTimeout>,
    /// A span of the dependency order holding every member (ranks
    /// `lo..=hi`; empty if `lo > hi`).
    lo: u16,
    hi: u16,
    /// [`notify::activations`] when the wave last made sure no member
    /// came back behind it.
    seen: u32,
    /// A node was not asked because a member came back: choose again once
    /// the nodes in flight are down.
    again: bool,
    /// Bring-ups may race this wave (it is not behind a teardown's era
    /// fence): each ask is two-phase (see [`StopWave::ask`]).
    raced: bool,
}

/// What [`StopWave::ask`] did.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ask {
    /// Asked it to stop: it is in flight.
    Asked,
    /// It is down already (nothing done).
    Down,
    /// A member the wave counted down runs again: nothing asked.
    Back,
}

/// Which bring-ups may race a wave.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Race {
    /// Any (`restart`'s, `deactivate`'s wave): each ask marks the node,
    /// fences, and looks for a member that came back before it requests
    /// the stop.
    Any,
    /// None but an app-spawned node's own activation: the wave runs behind
    /// `halt`'s era fence (a teardown), which refuses every bring-up that
    /// has not marked its node up before the wave chose. The plain ask.
    Halted,
}

/// A raced stop's one entry in the crate-wide stopping count (a raced
/// wave's, a chain's `deactivate`), from before its first mark until it
/// ends, done or dropped: a bring-up that reads the count zero after its
/// fence has no marked dependency to find.
pub(super) struct Cover;

impl Cover {
    pub(super) fn raise() -> Self {
        notify::stop_requested();
        // Before the choice and the first look: a bring-up that read the
        // count without this stop (and so did not count its activation,
        // `still_clear`) fenced before this, and the look sees its node up.
        crate::sync::fence(Ordering::SeqCst);
        Cover
    }
}

impl Drop for Cover {
    fn drop(&mut self) {
        notify::stop_ended();
    }
}

/// A deactivation's rule for slot `i`, walked in dependency order after
/// the target: it joins if a dependency of it is a member (`member`) and
/// it is not detached, and then takes the collateral hold. The node and
/// the flags the hold was set over, if it joined. Both deactivations
/// (the wave's choice, the chain's `latch_members`) walk with it.
#[inline(always)]
pub(super) fn hold_if_dependent<const N: usize>(
    graph: &'static Graph<N>,
    i: usize,
    member: impl Fn(usize) -> bool,
) -> Option<(&'static TaskNode, State)> {
    if !graph.deps[i].iter().any(|&d| member(d as usize)) {
        return None;
    }
    let n = graph.node(i)?;
    let seen = n.state();
    if seen.is_detached() {
        return None;
    }
    n.hold_given(seen);
    Some((n, seen))
}

/// The running instance asked to stop is gone (down, or a fresh activation
/// replaced it).
fn acked(n: &TaskNode) -> bool {
    !n.state().is_stopping()
}

/// A wave's code behind one pointer: at the first call (`true`), choose
/// ([`WaveCode::all`]) and ask; at every call, wait.
pub(crate) type WaveStep<const N: usize> = fn(
    &mut StopWave<N>,
    bool,
    &mut Context<'_>,
    Pin<&mut Observer>,
) -> Poll<Result<(), ShutdownTimeout>>;

/// The stop wave's code a `Supervisor<N>` holds for a graph that is not
/// a chain, picked in const evaluation from the graph
/// (`Supervisor::over`): these pointers are the one reference to the
/// wave's code in that type's build, so the build of a chain links none of
/// it. (A supervisor typed with one width bit names its code instead:
/// [`typed_wave`].)
#[derive(Clone, Copy)]
pub(crate) struct WaveCode<const N: usize> {
    /// A teardown's: every slot joins ([`StopWave::step_all`]).
    pub(crate) all: WaveStep<N>,
    /// A wave whose members joined before its first poll (`deactivate`'s,
    /// [`StopWave::join_dependents`]): [`StopWave::step_chosen`].
    pub(crate) chosen: WaveStep<N>,
}

impl<const N: usize> WaveCode<N> {
    pub(crate) const CODE: Self = Self {
        all: StopWave::step_all,
        chosen: StopWave::step_chosen,
    };
}

/// A supervisor's wave, typed `B`: `choose` picks the members at the
/// first poll, then the wave runs. A type with one width bit
/// (`B::ONE_WIDTH`, a constant) runs the code it names; any other runs
/// `picked`, the pointer its graph's [`WaveCode`] holds (`choose` then
/// picks what that code does not: nothing for [`WaveCode::all`]).
pub(crate) fn typed_wave<const N: usize, B: super::chain_stop::UsesBits>(
    graph: &'static Graph<N>,
    choose: impl FnOnce(&mut StopWave<N>),
    on_miss: OnMiss,
    race: Race,
    picked: Option<WaveStep<N>>,
) -> impl Future<Output = Result<(), NodeFault>> {
    let mut choose = Some(choose);
    run_wave(graph, on_miss, race, move |w, cx, observer| {
        if B::ONE_WIDTH {
            return w.choose_then_poll(choose.take(), cx, observer);
        }
        let first = choose.take().map(|choose| choose(w)).is_some();
        match picked {
            Some(step) => step(w, first, cx, observer),
            // Never built (`Supervisor::whole_graph_wave`): a chain.
            None => Poll::Ready(Ok(())),
        }
    })
}

/// Run a wave that `poll` chooses at its first call, then drives.
async fn run_wave<const N: usize>(
    graph: &'static Graph<N>,
    on_miss: OnMiss,
    race: Race,
    mut poll: impl FnMut(
        &mut StopWave<N>,
        &mut Context<'_>,
        Pin<&mut Observer>,
    ) -> Poll<Result<(), ShutdownTimeout>>,
) -> Result<(), NodeFault> {
    let raced = race == Race::Any;
    // Dropped after the wave (declared before it), done or dropped.
    let _cover = raced.then(Cover::raise);
    // Built here, in the future's own storage: the per-slot arrays are
    // not copied from a constructor's return value.
    let mut wave = StopWave {
        graph,
        left: [OUT; N],
        flight: [0; N],
        flying: 0,
        // Read only for a node in flight, which `fly` set first.
        deadline: [0; N],
        clock: WaveClock::new(0),
        asked: false,
        spin: 0,
        on_miss,
        first_miss: None,
        lo: 1,
        hi: 0,
        seen: notify::activations(),
        again: false,
        raced,
    };
    let mut observer = pin!(Observer::new());
    poll_fn(|cx| {
        wave.asked = false;
        poll(&mut wave, cx, observer.as_mut())
    })
    .await
    .map_err(NodeFault::from)
}

impl<const N: usize> StopWave<N> {
    /// Join slot `i` with flags `flags`, its member dependencies joined
    /// already. A running member goes on the running list and counts
    /// itself on each of them; a member down waits to be found ordering
    /// a running one ([`UNSEEN`]); a detached node stays out. A dependency
    /// that was `UNSEEN` orders it: it goes on the walk's stack (the list's
    /// free tail, from `top` down) to count itself on its own dependencies.
    #[inline(always)]
    fn join(&mut self, i: usize, seen: State, top: &mut usize) {
        if seen.is_detached() {
            self.left[i] = OUT;
        } else if seen.is_up() {
            self.left[i] = NONE_UP;
            self.flight[self.flying as usize] = i as u8;
            self.flying += 1;
            self.count_on_deps(i, top);
        } else {
            self.left[i] = UNSEEN;
        }
    }

    /// Slot `i` runs or orders a running member: one more dependent up on
    /// each of its dependencies in the wave.
    #[inline(always)]
    fn count_on_deps(&mut self, i: usize, top: &mut usize) {
        for &d in self.graph.deps[i] {
            let Some(l) = self.left.get_mut(d as usize) else {
                continue;
            };
            if *l == UNSEEN {
                *l = NONE_UP + 1;
                *top -= 1;
                self.flight[*top] = d;
            } else if *l > DONE {
                *l += 1;
            }
        }
    }

    /// The members of a whole-graph or restart wave: the slots of ranks
    /// `lo..=hi` that `member` selects, in one pass over the span.
    pub(crate) fn join_span(&mut self, lo: usize, hi: usize, member: &impl Fn(usize) -> bool) {
        let graph = self.graph;
        let Some(span) = graph.order.get(lo..=hi) else {
            return; // an empty span, or a graph of no slots: the empty wave
        };
        (self.lo, self.hi) = (lo as u16, hi as u16);
        let mut top = N;
        for &i in span {
            let i = i as usize;
            if member(i) {
                // An empty slot is no member.
                let seen = graph.node(i).map_or(State::ABSENT, |n| n.state());
                self.join(i, seen, &mut top);
            }
        }
        self.count(top);
    }

    /// `deactivate`'s members: latch `disabled` on the node in slot `seed`
    /// (with its whole pool), the collateral hold on its transitive
    /// dependents (with their pools; detached nodes never join, nor what
    /// depends on the target only through one); the wave stops them all,
    /// aborting at the first missed ack. Each member is latched as it
    /// joins, before any stop, so no bring-up path (a pool regrow)
    /// restarts a member while its siblings stop. Choosing costs one pass
    /// over the dependency order from the target to its last transitive
    /// dependent ([`Graph::reach`]), a flag read or two per node there: a
    /// target with no dependents reads no other node.
    /// Walking the
    /// order forwards from the target visits every dependency before its
    /// dependents, and nothing before the target can be one: one pass.
    pub(crate) fn join_dependents(&mut self, seed: usize) {
        let graph = self.graph;
        let (mut lo, mut hi) = (N, 0);
        self.latch(seed, Latch::Disabled, 0, &mut lo, &mut hi);
        // A pool member that joins behind the walk missed its place in the
        // running list and in the counts: choose again over the span then.
        #[allow(unused_mut)] // only a pool member joins behind
        let mut behind = false;
        let mut top = N;
        // Every member lies within the reach of a latched node (`add`
        // counts it into `hi`): the walk ends there, so a target with few
        // dependents reads no more of the order.
        let mut pos = lo;
        while pos <= hi {
            let Some(&i) = graph.order.get(pos) else {
                break;
            };
            pos += 1;
            let i = i as usize;
            let Some(&l) = self.left.get(i) else { break };
            if l == OUT {
                let left = &self.left;
                let joined =
                    hold_if_dependent(graph, i, |d| left.get(d).is_some_and(|&l| l != OUT));
                let Some((n, seen)) = joined else { continue };
                #[cfg(not(feature = "pool"))]
                let _ = n;
                #[cfg(feature = "pool")]
                if n.pool.is_some() {
                    behind |= self.latch(i, Latch::Held, pos - 1, &mut lo, &mut hi);
                }
                if !seen.is_up() {
                    // What `join` does for a down member, without its
                    // running-member path: most dependents a deactivation
                    // holds are down (measured: 17 instructions less per
                    // held leaf on the M33).
                    self.left[i] = UNSEEN;
                    continue;
                }
                self.join(i, seen, &mut top);
            } else if l == UNSEEN {
                // Joined ahead of the walk (the target, a pool member).
                let seen = graph.node(i).map_or(State::ABSENT, |n| n.state());
                self.join(i, seen, &mut top);
            }
        }
        if lo > hi {
            return; // the target is detached or an empty slot
        }
        (self.lo, self.hi) = (lo as u16, hi as u16);
        if behind {
            self.choose_again();
        } else {
            self.count(top);
        }
    }

    /// Choose again among the members (every slot of the span not
    /// [`OUT`]), from their current flags: a pool member that joined
    /// behind the deactivation's walk, or a member that came back behind
    /// the wave. No latch is set again.
    fn choose_again(&mut self) {
        let graph = self.graph;
        let Some(span) = graph.order.get(self.lo as usize..=self.hi as usize) else {
            return;
        };
        self.flying = 0;
        let mut top = N;
        for &i in span {
            if self.left[i as usize] != OUT {
                self.left[i as usize] = UNSEEN;
            }
        }
        for &i in span {
            let i = i as usize;
            if self.left[i] != OUT {
                let seen = graph.node(i).map_or(State::ABSENT, |n| n.state());
                self.join(i, seen, &mut top);
            }
        }
        self.count(top);
    }

    /// A member the wave counted down runs again. Checked only if a node
    /// was marked up since the wave last looked: one pass over the span
    /// then.
    #[inline(always)]
    fn came_back(&mut self) -> bool {
        let now = notify::activations();
        now != self.seen && self.scan_for_back(now)
    }

    /// [`came_back`](Self::came_back) past its one load: some node was
    /// marked up since the wave last looked. Out of line: the rare case.
    #[inline(never)]
    fn scan_for_back(&mut self, now: u32) -> bool {
        let graph = self.graph;
        let span = graph
            .order
            .get(self.lo as usize..=self.hi as usize)
            .unwrap_or(&[]);
        let back = span.iter().any(|&j| {
            let j = j as usize;
            let counted_down = matches!(self.left[j], DONE | UNSEEN);
            counted_down && graph.node(j).is_some_and(|n| n.state().is_up_supervised())
        });
        if !back {
            self.seen = now;
        }
        back
    }

    /// Add slot `i`, with its whole pool if it is a pool member, latching
    /// `how` on each; detached nodes never join. `true` if a node joined
    /// at a rank below `pos` (the walk has passed it).
    fn latch(&mut self, i: usize, how: Latch, pos: usize, lo: &mut usize, hi: &mut usize) -> bool {
        let graph = self.graph;
        let Some(n) = graph.node(i).filter(|n| !n.is_detached()) else {
            return false;
        };
        #[allow(unused_mut)]
        let mut behind = self.add(i, n, how, pos, lo, hi);
        #[cfg(feature = "pool")]
        if let Some(pool) = n.pool.and_then(|p| graph.pools.get(p as usize)) {
            for m in pool.slots() {
                if let Some(member) = graph.node(m).filter(|n| !n.is_detached()) {
                    behind |= self.add(m, member, how, pos, lo, hi);
                }
            }
        }
        behind
    }

    fn add(
        &mut self,
        i: usize,
        n: &TaskNode,
        how: Latch,
        pos: usize,
        lo: &mut usize,
        hi: &mut usize,
    ) -> bool {
        match how {
            Latch::Disabled => n.set_disabled(true),
            Latch::Held => n.set_held(true),
        }
        let r = self.graph.rank(i);
        *lo = (*lo).min(r);
        // Up to its last dependent: the walk must reach those.
        *hi = (*hi).max(self.graph.reach(i));
        if self.left[i] != OUT {
            return false;
        }
        self.left[i] = UNSEEN;
        r < pos
    }

    /// Finish the counts: each member down at the choice that orders a
    /// running one (on the stack from `top`) counts itself on its own
    /// dependencies, once. Every member that runs or orders a running one
    /// has then counted itself on its dependencies, and nothing else has.
    fn count(&mut self, mut top: usize) {
        while top < N {
            let j = self.flight[top] as usize;
            top += 1;
            self.count_on_deps(j, &mut top);
        }
    }

    /// Ask, dependents first (the running list reversed), every running
    /// member nothing waits on.
    fn ask_first(&mut self, cx: &Context<'_>) {
        let running = self.flying as usize;
        self.flight[..running].reverse();
        self.flying = 0;
        for k in 0..running {
            let i = self.flight[k] as usize;
            if self.left[i] != NONE_UP {
                continue;
            }
            match self.ask(cx, i) {
                Ask::Asked => {}
                // It went down since the flag read: the first collection
                // finds it down and lets its dependencies go.
                Ask::Down => self.fly(i),
                // Left for the next choice, as in `done`.
                Ask::Back => {
                    self.left[i] = DONE;
                    self.again = true;
                }
            }
        }
    }

    /// Slot `i` has no dependent left up: ask it to stop if it runs
    /// ([`Ask::Asked`]); in a raced wave, unless a member the wave counted
    /// down came back ([`Ask::Back`]: it must be stopped first; a halted
    /// wave's `done` looks before it asks). A raced wave's ask is
    /// two-phase: mark the node (`TaskNode::mark_asked`), fence, look for a
    /// member that came back (taking the mark back if one did), then
    /// request. A bring-up that marks a dependent up after that look sees
    /// the mark after its own fence and undoes itself (`DepStopping`).
    // Inline: each wave pass asks through it (out of line: +26 instructions
    // per node on CHAIN(64) teardown, bench/budget.sh).
    #[inline(always)]
    fn ask(&mut self, cx: &Context<'_>, i: usize) -> Ask {
        let Some(n) = self.graph.node(i) else {
            return Ask::Down;
        };
        if self.raced {
            if n.mark_asked().is_err() {
                return Ask::Down;
            }
            // Pairs with the fence in a bring-up's `still_clear`.
            crate::sync::fence(Ordering::SeqCst);
            if self.came_back() {
                n.unmark_asked();
                return Ask::Back;
            }
        } else if !n.state().is_up_supervised() {
            return Ask::Down;
        }
        if !self.asked {
            self.asked = true;
            cx.waker().wake_by_ref();
        }
        self.fly(i);
        n.request_shutdown();
        Ask::Asked
    }

    #[inline]
    /// Put slot `i` in flight, its deadline armed when the wave first
    /// sleeps with it there: an ack within the two passes before that
    /// reads no clock at all.
    fn fly(&mut self, i: usize) {
        self.left[i] = FLYING;
        self.deadline[i] = UNARMED;
        self.flight[self.flying as usize] = i as u8;
        self.flying += 1;
    }

    /// Slot `i` is down: each of its dependencies in the wave has one
    /// dependent less to wait for. Iterative (a stack in the free tail of
    /// the in-flight list), so a run of down nodes costs no recursion.
    fn done(&mut self, cx: &Context<'_>, i: usize) {
        // Slots on the stack are neither in flight nor done yet, so the
        // stack and the in-flight list together never exceed N entries.
        let graph = self.graph;
        let mut top = N;
        self.left[i] = DONE;
        let mut j = i;
        loop {
            for &d in graph.deps[j] {
                let d = d as usize;
                let Some(l) = self.left.get_mut(d).filter(|l| **l > DONE) else {
                    continue;
                };
                *l -= 1;
                if *l > NONE_UP {
                    continue;
                }
                // A halted wave looks for a member back before it asks (an
                // app-spawned node's activation ignores the era); a raced
                // one in its ask, after its mark.
                let back = self.again || !self.raced && self.came_back();
                let asked = if back { Ask::Back } else { self.ask(cx, d) };
                match asked {
                    Ask::Asked => {}
                    Ask::Down => {
                        self.left[d] = DONE;
                        top -= 1;
                        self.flight[top] = d as u8;
                    }
                    // Left for the next choice, which finds the member up
                    // again and stops it first.
                    Ask::Back => {
                        self.left[d] = DONE;
                        self.again = true;
                    }
                }
            }
            if top == N {
                return;
            }
            j = self.flight[top] as usize;
            top += 1;
        }
    }

    /// Retire every node in flight that acked, and whatever that lets go.
    /// Only the nodes in flight before the call are read: one asked here
    /// was asked just now (the next poll, due at once, reads it).
    fn collect(&mut self, cx: &Context<'_>) {
        // Backwards: an acked entry's place takes the list's last entry,
        // which was read already or was asked in this call; entries
        // `0..k` are the ones still to read.
        for k in (0..self.flying as usize).rev() {
            let i = self.flight[k] as usize;
            if self.graph.node(i).is_none_or(acked) {
                self.drop_flight(k);
                // Asks land at the list's end; the stack stays in the tail.
                self.done(cx, i);
            }
        }
    }

    #[inline]
    fn drop_flight(&mut self, k: usize) {
        self.flying -= 1;
        self.flight[k] = self.flight[self.flying as usize];
    }

    /// The node in flight whose deadline passed first, if any, with its
    /// place in the list; otherwise the earliest deadline to come. Arms
    /// the deadline of each node asked since the last sleep. The earliest
    /// is a tick, to wake at.
    fn overdue(&mut self, now: u64) -> Result<u64, usize> {
        // Only a node in flight has an armed deadline, and each is moved
        // with the base here, in the one pass that reads them (a slot out
        // of flight keeps a stale one: `fly` disarms it before any read).
        let (at, moved) = self.clock.read(now);
        let mut earliest = u32::MAX;
        let mut missed = None;
        for k in 0..self.flying as usize {
            let i = self.flight[k] as usize;
            if self.deadline[i] != UNARMED {
                self.deadline[i] = moved.apply(self.deadline[i]);
            } else {
                let ms = self.graph.node(i).map_or(0, |n| n.ack_window_ms());
                self.deadline[i] = wave_clock::deadline_ms(at, ms);
            }
            // In units from the base, fine or coarse alike.
            let d = wave_clock::due(self.deadline[i]);
            if d <= at && missed.is_none_or(|(_, m)| d < m) {
                missed = Some((k, d));
            }
            earliest = earliest.min(d);
        }
        match missed {
            Some((k, _)) => Err(k),
            None => Ok(self.clock.tick_at(earliest)),
        }
    }

    fn any_acked(&self) -> bool {
        self.flight[..self.flying as usize]
            .iter()
            .any(|&i| self.graph.node(i as usize).is_none_or(acked))
    }

    /// A wave whose code its caller names: at the first poll (`choose`
    /// given), choose and ask the first; then one poll.
    #[inline(always)]
    fn choose_then_poll(
        &mut self,
        choose: Option<impl FnOnce(&mut Self)>,
        cx: &mut Context<'_>,
        observer: Pin<&mut Observer>,
    ) -> Poll<Result<(), ShutdownTimeout>> {
        if let Some(choose) = choose {
            choose(self);
            self.ask_first(cx);
        }
        self.poll_step(cx, observer)
    }

    /// A teardown's wave behind a [`WaveStep`] ([`WaveCode::all`]): at
    /// the first call, every slot joins and the first are asked; then one
    /// poll.
    pub(crate) fn step_all(
        &mut self,
        first: bool,
        cx: &mut Context<'_>,
        observer: Pin<&mut Observer>,
    ) -> Poll<Result<(), ShutdownTimeout>> {
        if first {
            self.join_span(0, N.saturating_sub(1), &|_| true);
        }
        self.step_chosen(first, cx, observer)
    }

    /// A wave chosen already, behind a [`WaveStep`]
    /// ([`WaveCode::chosen`]): at the first call, the first are asked;
    /// then one poll. Out of line: [`step_all`](Self::step_all) ends in
    /// it, so a build that links both holds one copy of the wave.
    #[inline(never)]
    pub(crate) fn step_chosen(
        &mut self,
        first: bool,
        cx: &mut Context<'_>,
        observer: Pin<&mut Observer>,
    ) -> Poll<Result<(), ShutdownTimeout>> {
        if first {
            self.ask_first(cx);
        }
        self.poll_step(cx, observer)
    }

    fn poll_step(
        &mut self,
        cx: &mut Context<'_>,
        mut observer: Pin<&mut Observer>,
    ) -> Poll<Result<(), ShutdownTimeout>> {
        loop {
            self.collect(cx);
            if self.flying == 0 && self.again {
                // A member came back behind the wave: choose again among
                // the members from their current state.
                self.again = false;
                self.seen = notify::activations();
                self.choose_again();
                self.ask_first(cx);
                continue;
            }
            if self.flying == 0 {
                return Poll::Ready(self.first_miss.take().map_or(Ok(()), Err));
            }
            if self.asked {
                self.spin = 2;
                return Poll::Pending;
            }
            if self.spin > 0 {
                self.spin -= 1;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            if let Some(out) = self.wait(cx, observer.as_mut()) {
                return out;
            }
        }
    }

    /// No ack within the spin: fail the first node past its deadline, or
    /// sleep until the earliest deadline or a change. `None`: go round
    /// again (an ack landed, or a missed node counts as gone).
    fn wait(
        &mut self,
        cx: &mut Context<'_>,
        observer: Pin<&mut Observer>,
    ) -> Option<Poll<Result<(), ShutdownTimeout>>> {
        match self.overdue(now()) {
            Ok(earliest) => {
                embassy_time_driver::schedule_wake(earliest, cx.waker());
                (!observer.sleep(cx, || self.any_acked())).then_some(Poll::Pending)
            }
            Err(k) => {
                let i = self.flight[k] as usize;
                self.drop_flight(k);
                let node = self.graph.node(i)?;
                let miss = super::missed_ack(node);
                if self.on_miss == OnMiss::Abort {
                    return Some(Poll::Ready(Err(miss)));
                }
                self.first_miss.get_or_insert(miss);
                self.done(cx, i);
                None
            }
        }
    }
}
