//! [`Until`]: the one future every supervisor-side wait is made of (an ack,
//! a gate, a `ready` dep, another operation's spawn claim, the driver's next
//! change), optionally bounded by a timeout or a deadline.
//!
//! One concrete, `Unpin` type instead of an `async` closure per call site:
//! every verb's state machine embeds the same small struct and calls one
//! shared `poll`, which keeps flash per verb and RAM per pending verb small.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

#[cfg(any(feature = "pool", feature = "controller"))]
use embassy_time::Instant;
use embassy_time::{Duration, Timer};

use crate::TaskNode;
use crate::node::flag;
use crate::notify;
use crate::resource::Gate;

/// What an [`Until`] waits for.
#[derive(Clone, Copy)]
pub(crate) enum Cond<'a> {
    /// The instance asked to stop is gone: the node is down, or a fresh
    /// activation cleared the stop request (that is a new instance).
    Acked(&'a TaskNode),
    /// A resource or executor slot is filled.
    Filled(&'a dyn Gate),
    /// The node reports ready.
    #[cfg(feature = "readiness")]
    Ready(&'a TaskNode),
    /// No operation holds the node's spawn claim.
    Unclaimed(&'a TaskNode),
    /// Anything changed since this epoch.
    #[cfg(any(feature = "pool", feature = "controller"))]
    Changed(u32),
}

impl Cond<'_> {
    fn holds(self) -> bool {
        match self {
            Cond::Acked(n) => {
                n.flags() & (flag::RUNNING | flag::SHUTDOWN) != (flag::RUNNING | flag::SHUTDOWN)
            }
            Cond::Filled(g) => g.is_filled(),
            #[cfg(feature = "readiness")]
            Cond::Ready(n) => n.is_ready(),
            Cond::Unclaimed(n) => !n.is_claimed(),
            #[cfg(any(feature = "pool", feature = "controller"))]
            Cond::Changed(epoch) => notify::epoch() != epoch,
        }
    }
}

enum Phase<'a> {
    /// First poll of a stop: queue this task, then ask `node` to stop. The
    /// run queue is LIFO, so a worker on this executor runs (and acks)
    /// before the next poll of this one.
    Request(&'a TaskNode),
    /// Yield this many times before arming the timer: an ack from a worker
    /// on this executor needs no timer queue update.
    Spin(u8),
    /// Registered with the observers, bounded by the timer (if any).
    Wait(Option<Timer>),
}

/// Resolves `true` once its condition holds, `false` if the timeout or
/// deadline passes first. The condition is re-checked after registering, so
/// a change between the check and the registration is never missed.
pub(crate) struct Until<'a> {
    cond: Cond<'a>,
    phase: Phase<'a>,
    /// Armed when the spins are over (a stop's ack timeout); `None` for
    /// waits that are unbounded or already carry their timer.
    timeout: Option<Duration>,
}

impl<'a> Until<'a> {
    /// Wait without a bound.
    pub(crate) fn forever(cond: Cond<'a>) -> Self {
        Self {
            cond,
            phase: Phase::Wait(None),
            timeout: None,
        }
    }

    /// Wait at most `timeout` from now.
    pub(crate) fn within(cond: Cond<'a>, timeout: Duration) -> Self {
        Self {
            cond,
            phase: Phase::Wait(Some(Timer::after(timeout))),
            timeout: None,
        }
    }

    /// Wait until `deadline`, or without a bound if there is none.
    #[cfg(any(feature = "pool", feature = "controller"))]
    pub(crate) fn until(cond: Cond<'a>, deadline: Option<Instant>) -> Self {
        Self {
            cond,
            phase: Phase::Wait(deadline.map(Timer::at)),
            timeout: None,
        }
    }

    /// The ack of a stop already requested from `node`, bounded by `timeout`
    /// once two scheduler passes did not bring it.
    #[cfg(feature = "pool")]
    pub(crate) fn ack(node: &'a TaskNode, timeout: Duration) -> Self {
        Self {
            cond: Cond::Acked(node),
            phase: Phase::Spin(2),
            timeout: Some(timeout),
        }
    }

    /// Ask `node` to stop, then wait for its ack as [`ack`](Self::ack) does.
    pub(crate) fn stop(node: &'a TaskNode, timeout: Duration) -> Self {
        Self {
            cond: Cond::Acked(node),
            phase: Phase::Request(node),
            timeout: Some(timeout),
        }
    }
}

impl Future for Until<'_> {
    type Output = bool;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        let this = self.get_mut();
        if let Phase::Request(node) = this.phase {
            this.phase = Phase::Spin(2);
            cx.waker().wake_by_ref();
            node.request_shutdown();
            return Poll::Pending;
        }
        if this.cond.holds() {
            return Poll::Ready(true);
        }
        match &mut this.phase {
            Phase::Spin(left) if *left > 0 => {
                *left -= 1;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Phase::Spin(_) => {
                this.phase = Phase::Wait(this.timeout.map(Timer::after));
            }
            _ => {}
        }
        if let Phase::Wait(Some(timer)) = &mut this.phase
            && Pin::new(timer).poll(cx).is_ready()
        {
            return Poll::Ready(this.cond.holds());
        }
        notify::register(cx.waker());
        if this.cond.holds() {
            Poll::Ready(true)
        } else {
            Poll::Pending
        }
    }
}
