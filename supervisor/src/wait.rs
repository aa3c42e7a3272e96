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

const FOREVER: u64 = u64::MAX;

pin_project_lite::pin_project! {
    /// Resolves `true` once its condition holds, `false` if the timeout or
    /// deadline passes first. The condition is re-checked after joining the
    /// observers, so a change between the check and the join is never
    /// missed; its place among the observers lives here, so any number of
    /// `Until`s can wait at once.
    pub(crate) struct Until<'a> {
        cond: Cond<'a>,
        // The tick the wait ends at (`FOREVER`: no bound).
        deadline: Tick,
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
            deadline: Tick::new(FOREVER),
            observer: Observer::new(),
        }
    }

    /// Wait at most `timeout` from now.
    pub(crate) fn within(cond: Cond<'a>, timeout: Duration) -> Self {
        Self {
            cond,
            deadline: Tick::new(now().saturating_add(timeout.as_ticks())),
            observer: Observer::new(),
        }
    }
}

impl Future for Until<'_> {
    type Output = bool;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        let this = self.project();
        if this.cond.holds() {
            return Poll::Ready(true);
        }
        let deadline = this.deadline.get();
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
