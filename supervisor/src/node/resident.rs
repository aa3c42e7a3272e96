//! Resident task shells: a generated `task:` shell is spawned once, at its
//! node's first activation, and parks between activations; every later
//! activation wakes it in place. A respawn therefore never needs embassy to
//! have released the previous instance's task slot, which a respawn from a
//! higher-priority executor (or another core) could otherwise find still
//! taken (`SpawnError::Busy`).
//!
//! The protocol, on the node's flag word:
//! - the spawn glue runs after the supervisor's atomic step that marked the
//!   node running; if the node's shell is [resident](TaskNode::is_resident)
//!   it hands the activation over ([`wake_resident`](TaskNode::wake_resident):
//!   `RESUME`, then embassy's lock-free wake of the pinned shell task),
//!   otherwise it spawns the shell, which [pins](TaskNode::pin_shell) its
//!   own task at its first poll and sets `RESIDENT`;
//! - the shell runs one activation, ends it
//!   ([`end_activation`](TaskNode::end_activation)), and parks in
//!   [`wait_activation`](TaskNode::wait_activation) until `RESUME`;
//! - the shell knows its activation by the node's activation parity
//!   (`GEN`, flipped by every activation step) when it took it: a
//!   [`ShellTurn`]. `RUNNING` with the same parity is its own activation,
//!   not acked yet; another parity is a new activation begun after its
//!   ack, which the end of its own (a cleanup, a slow return after the
//!   ack) never clears. Taking a hand-over is a load: `RESUME` with
//!   another parity than the last one taken.
//!
//! The shell lives in the executor of the node's first activation for the
//! rest of the program: later activations run there even if the spawner the
//! verb was given (or the published `executor:` spawner) now belongs to
//! another executor. Embedded executors never return, so the shell is always
//! served; an executor that stops being polled (a host test's) strands it,
//! and a stop of such a node then ends in its ack timeout.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::sync::Ordering;

use super::{TaskNode, flag};
use crate::notify;

impl TaskNode {
    /// Spawn glue: hand the activation just begun to this node's parked
    /// resident shell and wake it. `false` (nothing done) if the node has no
    /// resident shell yet: the glue spawns one, which takes the activation
    /// at its first poll.
    ///
    /// Call it last, after everything fallible: the shell starts the
    /// activation as soon as it sees the hand-over.
    #[doc(hidden)]
    pub fn wake_resident(&self) -> bool {
        // `RESIDENT` is never cleared: a load tells, and the hand-over is a
        // plain RMW (the first activation, before the shell exists, costs
        // one load).
        if !self.has(flag::RESIDENT) {
            return false;
        }
        self.hand_over();
        true
    }

    /// Hand the activation just begun to the parked resident shell and wake
    /// it: the glue's [`wake_resident`](Self::wake_resident) past its test,
    /// and what the supervisor does itself for a node whose glue would do
    /// nothing else (`NodeSpec::hands_over_directly`, after its activation
    /// step saw the node resident). Call it last, after everything fallible.
    // Always inline: a cascade's per-node step (`FastPath::try_now`) left
    // it out of line once the step got smaller, for +3 instructions a node
    // on CHAIN(64) activate(last) (bench/budget.sh).
    #[inline(always)]
    pub(crate) fn hand_over(&self) {
        let before = self.state.fetch_or(flag::RESUME, Ordering::AcqRel);
        self.task_waker.wake(before);
        // A shell that found the node's waker slot held waits with the
        // observers (see `node/waiter.rs`).
        if before & flag::SHARED_WAIT != 0 {
            notify::changed();
        }
    }

    /// Spawn glue of earlier versions: the shell task just created for this
    /// node takes the activation just begun. The shell's
    /// [pin](Self::pin_shell) does this now; generated code no longer calls
    /// it, and it does nothing.
    #[doc(hidden)]
    #[deprecated(note = "the shell's `pin_shell` takes the activation; nothing needs to call this")]
    pub fn mark_resident(&self) {}

    /// Shell, first thing at its first poll: pin its own task as the
    /// node's for life, mark the node resident (`RESIDENT`, released after
    /// the pin so a reader that sees it sees the pinned task) and take the
    /// activation the glue spawned it for (its worker runs next, in this
    /// task, so nothing can ack it before). Until this poll the node reads
    /// as up, so no second activation can begin and ask for a hand-over.
    /// From here on stops, resumes and hand-overs wake the shell lock-free,
    /// and its waits register nothing.
    #[doc(hidden)]
    pub fn pin_shell(&self) -> impl Future<Output = ShellTurn> + '_ {
        core::future::poll_fn(|cx| {
            self.task_waker
                .pin(cx.waker(), !self.spec.has_resident_shell());
            let before = self.state.fetch_or(flag::RESIDENT, Ordering::AcqRel);
            Poll::Ready(ShellTurn(before & flag::GEN))
        })
    }

    /// The node's shell is resident (it pinned itself at its first poll):
    /// later activations wake it in place. Never cleared.
    pub fn is_resident(&self) -> bool {
        self.has(flag::RESIDENT)
    }

    /// Shell: park until an activation after `last` is handed over, and
    /// take it. Returns at once if one already is (it was handed over
    /// while the shell still finished the previous one).
    ///
    /// Only the node's pinned shell task may await it, after
    /// [`pin_shell`](Self::pin_shell): it registers nothing, because every
    /// hand-over wakes that task.
    // A plain future, not an `async fn`: the shell's state holds the node
    // and the parity alone.
    #[doc(hidden)]
    pub fn wait_activation(&self, last: ShellTurn) -> impl Future<Output = ShellTurn> + '_ {
        WaitActivation { node: self, last }
    }

    /// A handed-over activation after `last`, if there is one. A load: the
    /// hand-over's `RESUME` stays set for the activation it handed over
    /// (the next activation step clears it), except on a `Pause` node,
    /// where it is the worker's resume signal (`wait_resume`) and is taken
    /// back here.
    #[inline]
    fn taken_after(&self, last: ShellTurn) -> Option<ShellTurn> {
        let f = self.flags();
        if f & flag::RESUME == 0 || f & flag::GEN == last.0 {
            return None;
        }
        if self.spec.mode == crate::Mode::Pause {
            self.state.fetch_and(!flag::RESUME, Ordering::AcqRel);
        }
        Some(ShellTurn(f & flag::GEN))
    }

    /// Shell: end the activation `turn` (what
    /// [`pin_shell`](Self::pin_shell) or
    /// [`wait_activation`](Self::wait_activation) returned), once the
    /// worker returned and the shell put back what it lent and recorded its
    /// `exit:` value.
    ///
    /// Not acked: the same as [`mark_exited`](Self::mark_exited) (the node
    /// read as up until this step, so no new activation can have begun).
    /// Acked: record the exit only if no new activation began since the ack
    /// (a respawn may come as soon as the node reads as down, and its
    /// `RUNNING` must not be cleared by the previous activation's end).
    #[doc(hidden)]
    pub fn end_activation(&self, turn: ShellTurn) {
        self.end_activation_as(turn, flag::EXITED);
    }

    /// [`end_activation`](Self::end_activation) for a worker whose end is a
    /// failure (its `exit:` value says so, or an injected crash): an
    /// unacked end is [`mark_failed`](Self::mark_failed), so a node with
    /// `restart: on_failure` is restarted. After an ack the supervisor
    /// stopped the node on purpose: no failure is recorded.
    #[doc(hidden)]
    pub fn end_failed_activation(&self, turn: ShellTurn) {
        self.end_activation_as(turn, flag::EXITED | flag::FAILED);
    }

    fn end_activation_as(&self, turn: ShellTurn, unacked_end: u16) {
        // Its own activation, still up: nothing else can end it (its ack
        // is its worker's, which returned), nor begin another.
        if self.flags() & (flag::RUNNING | flag::GEN) == flag::RUNNING | turn.0 {
            self.exited(unacked_end);
            return;
        }
        let recorded = self
            .state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |f| {
                (f & flag::RUNNING == 0).then_some(f | flag::EXITED)
            })
            .is_ok();
        if recorded {
            super::transition(self, crate::phase::Phase::Exited);
        }
    }
}

/// Which activation a resident shell runs: the node's activation parity
/// when the shell took it. Generated shells pass it from
/// [`TaskNode::pin_shell`] or [`TaskNode::wait_activation`] to the
/// activation's end and to the next park.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShellTurn(u16);

/// [`TaskNode::wait_activation`]'s future.
struct WaitActivation<'a> {
    node: &'a TaskNode,
    last: ShellTurn,
}

impl Future for WaitActivation<'_> {
    type Output = ShellTurn;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ShellTurn> {
        // No registration: the caller is the pinned shell task, which every
        // hand-over wakes (`hand_over`), after its `RESUME`. Any other task
        // would never be woken: say so in debug builds.
        debug_assert!(
            self.node.is_resident() && self.node.task_waker.is_pinned(cx.waker()),
            "`wait_activation` of `{}` awaited outside its pinned shell task",
            self.node.name
        );
        match self.node.taken_after(self.last) {
            Some(turn) => Poll::Ready(turn),
            None => Poll::Pending,
        }
    }
}
