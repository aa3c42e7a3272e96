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
//! - `UNACKED` is set while the shell's activation has not acked (set when
//!   the shell takes it, cleared by the ack or the exit), so the end of an
//!   activation whose worker acked and then went on (a cleanup, a slow
//!   return) never clears the `RUNNING` of a new activation begun after
//!   that ack.
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

use super::NodeWait;
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
    /// node takes the activation just begun (unacked from here on). The
    /// shell's [pin](Self::pin_shell) does this now; generated code no
    /// longer calls it, and calling it before the shell's first poll
    /// changes nothing.
    #[doc(hidden)]
    #[deprecated(note = "the shell's `pin_shell` takes the activation; nothing needs to call this")]
    pub fn mark_resident(&self) {
        self.state.fetch_or(flag::UNACKED, Ordering::AcqRel);
    }

    /// Shell, first thing at its first poll: pin its own task as the
    /// node's for life, mark the node resident (`RESIDENT`, released after
    /// the pin so a reader that sees it sees the pinned task) and take the
    /// activation the glue spawned it for (`UNACKED`: its worker runs next,
    /// in this task, so nothing can ack it before). Until this poll the
    /// node reads as up, so no second activation can begin and ask for a
    /// hand-over. From here on stops, resumes and hand-overs wake the shell
    /// lock-free, and its waits register nothing.
    #[doc(hidden)]
    pub fn pin_shell(&self) -> impl Future<Output = ()> + '_ {
        core::future::poll_fn(|cx| {
            self.task_waker
                .pin(cx.waker(), !self.spec.has_resident_shell());
            self.state
                .fetch_or(flag::RESIDENT | flag::UNACKED, Ordering::AcqRel);
            Poll::Ready(())
        })
    }

    /// The node's shell is resident (it pinned itself at its first poll):
    /// later activations wake it in place. Never cleared.
    pub fn is_resident(&self) -> bool {
        self.has(flag::RESIDENT)
    }

    /// Shell: park until the next activation is handed over. Returns at once
    /// if one already is (it was handed over while the shell still finished
    /// the previous one).
    // A plain future, not an `async fn`: the shell's state holds the wait
    // alone (an `async fn` kept the node twice beside it and a pointer to
    // it: 52 B instead of 36 on 32-bit targets, which rounded every shell
    // task's storage up by 8 B).
    #[doc(hidden)]
    pub fn wait_activation(&self) -> impl Future<Output = ()> + '_ {
        // The wait gives the node's waker slot back when it ends, so the
        // activation's own waits find it free.
        WaitActivation {
            wait: NodeWait::new(self),
        }
    }

    /// Take a handed-over activation: it is unacked from here on.
    fn take_activation(&self) -> bool {
        self.state
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |f| {
                (f & flag::RESUME != 0).then_some((f & !flag::RESUME) | flag::UNACKED)
            })
            .is_ok()
    }

    /// Shell: end one activation, once the worker returned and the shell
    /// put back what it lent and recorded its `exit:` value.
    ///
    /// Not acked: the same as [`mark_exited`](Self::mark_exited) (the node
    /// read as up until this step, so no new activation can have begun).
    /// Acked: record the exit only if no new activation began since the ack
    /// (a respawn may come as soon as the node reads as down, and its
    /// `RUNNING` must not be cleared by the previous activation's end).
    #[doc(hidden)]
    pub fn end_activation(&self) {
        self.end_activation_as(flag::EXITED);
    }

    /// [`end_activation`](Self::end_activation) for a worker whose end is a
    /// failure (its `exit:` value says so, or an injected crash): an
    /// unacked end is [`mark_failed`](Self::mark_failed), so a node with
    /// `restart: on_failure` is restarted. After an ack the supervisor
    /// stopped the node on purpose: no failure is recorded.
    #[doc(hidden)]
    pub fn end_failed_activation(&self) {
        self.end_activation_as(flag::EXITED | flag::FAILED);
    }

    fn end_activation_as(&self, unacked_end: u16) {
        if self.has(flag::UNACKED) {
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

pin_project_lite::pin_project! {
    /// [`TaskNode::wait_activation`]'s future.
    struct WaitActivation<'a> {
        #[pin]
        wait: NodeWait<'a>,
    }
}

impl Future for WaitActivation<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.project().wait.until(cx, TaskNode::take_activation) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}
