//! [`Until`]: the one future every supervisor-side wait is made of (an ack,
//! a gate, a `ready` dep), optionally bounded by a timeout or a deadline.
//! (A driver's wait for the next change is `notify::ChangeWait`.)
//!
//! One concrete type instead of an `async` closure per call site:
//! every verb's state machine embeds the same small struct and calls one
//! shared `poll`, which keeps flash per verb and RAM per pending verb small.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use embassy_time::Duration;

use crate::TaskNode;
use crate::clock::{Tick, now};
use crate::notify::Observer;
use crate::resource::Gate;

/// What an [`Until`] waits for.
#[derive(Clone, Copy)]
pub(crate) enum Cond<'a> {
    /// The instance asked to stop is gone: the node is down, or a fresh
    /// activation cleared the stop request (that is a new instance).
    Acked(&'a TaskNode),
    /// A resource or executor slot is filled, or the node is up (another
    /// bring-up of it won).
    Filled(&'a dyn Gate, &'a TaskNode),
    /// The node reports ready (`wait_ready`).
    #[cfg(feature = "readiness")]
    Ready(&'a TaskNode),
    /// The `ready` dependency (first) reports ready, or the node (second) is
    /// up (another bring-up of it won).
    #[cfg(feature = "readiness")]
    DepReady(&'a TaskNode, &'a TaskNode),
}

impl Cond<'_> {
    /// How long an ack may take once the ack wait is armed: the node's own
    /// window (only `Acked` waits use it).
    fn ack_window(self) -> Duration {
        match self {
            Cond::Acked(n) => n.ack_timeout(),
            _ => crate::node::SHUTDOWN_ACK_TIMEOUT,
        }
    }

    // Out of line: `Until::poll` checks it in two places (flash).
    #[inline(never)]
    fn holds(self) -> bool {
        match self {
            Cond::Acked(n) => !n.state().is_stopping(),
            Cond::Filled(g, n) => g.is_filled() || n.is_running(),
            #[cfg(feature = "readiness")]
            Cond::Ready(n) => n.is_ready(),
            #[cfg(feature = "readiness")]
            Cond::DepReady(dep, n) => dep.is_ready() || n.is_running(),
        }
    }
}

/// Where an [`Until`] is in its wait (not the lifecycle [`Phase`](crate::Phase)
/// a trace records: the name is that one's).
enum Step {
    /// First poll of a stop: queue this task, then ask the node to stop. The
    /// run queue is LIFO, so a worker on this executor runs (and acks)
    /// before the next poll of this one.
    Request(&'static TaskNode),
    /// Yield this many times before arming the ack timeout: an ack from a
    /// worker on this executor needs no timer queue update.
    Spin(u8),
    /// Registered with the observers until this tick ([`FOREVER`]: no bound).
    Wait(Tick),
}

const FOREVER: u64 = u64::MAX;

pin_project_lite::pin_project! {
    /// Resolves `true` once its condition holds, `false` if the timeout or
    /// deadline passes first. The condition is re-checked after joining the
    /// observers, so a change between the check and the join is never
    /// missed; its place among the observers lives here, so any number of
    /// `Until`s can wait at once.
    pub(crate) struct Until<'a> {
        cond: Cond<'a>,
        step: Step,
        #[pin]
        observer: Observer,
    }
}

impl<'a> Until<'a> {
    /// Wait without a bound.
    #[cfg(feature = "readiness")]
    pub(crate) fn forever(cond: Cond<'a>) -> Self {
        Self {
            cond,
            step: Step::Wait(Tick::new(FOREVER)),
            observer: Observer::new(),
        }
    }

    /// Wait at most `timeout` from now.
    pub(crate) fn within(cond: Cond<'a>, timeout: Duration) -> Self {
        Self {
            cond,
            step: Step::Wait(Tick::new(after(timeout))),
            observer: Observer::new(),
        }
    }

    /// Ask `node` to stop, then wait for its ack, bounded by the node's
    /// ack timeout once two scheduler passes did not bring it.
    pub(crate) fn stop(node: &'static TaskNode) -> Self {
        Self {
            cond: Cond::Acked(node),
            step: Step::Request(node),
            observer: Observer::new(),
        }
    }
}

fn after(timeout: Duration) -> u64 {
    now().saturating_add(timeout.as_ticks())
}

impl Future for Until<'_> {
    type Output = bool;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        let this = self.project();
        if let Step::Request(node) = *this.step {
            *this.step = Step::Spin(2);
            cx.waker().wake_by_ref();
            node.request_shutdown();
            return Poll::Pending;
        }
        if this.cond.holds() {
            return Poll::Ready(true);
        }
        let deadline = match *this.step {
            Step::Spin(left @ 1..) => {
                *this.step = Step::Spin(left - 1);
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Step::Wait(at) => at.get(),
            _ => after(this.cond.ack_window()),
        };
        *this.step = Step::Wait(Tick::new(deadline));
        if deadline != FOREVER {
            if now() >= deadline {
                return Poll::Ready(this.cond.holds());
            }
            embassy_time_driver::schedule_wake(deadline, cx.waker());
        }
        let cond = *this.cond;
        if this.observer.sleep(cx, || cond.holds()) {
            Poll::Ready(true)
        } else {
            Poll::Pending
        }
    }
}

// A node verb, defined here so `node` needs nothing from `wait` (which is
// built on `TaskNode`): imports point one way.
#[cfg(feature = "readiness")]
impl TaskNode {
    /// Wait until the node is ready. Any number of tasks may wait.
    pub async fn wait_ready(&self) {
        Until::forever(Cond::Ready(self)).await;
    }
}
