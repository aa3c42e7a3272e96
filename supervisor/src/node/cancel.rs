//! The future behind `run_cancellable` and `run_cancellable_acked`: a task's
//! work raced against a stop request on its node.
//!
//! Hand-written rather than an `async fn`: it lives in every worker's task
//! storage, which is RAM per node, and as a plain struct it is the wait on
//! the node and the work future, with no generator bookkeeping (whether it
//! acks is part of its type).

use core::fmt;
use core::future::Future;
use core::marker::PhantomData;
use core::pin::Pin;
use core::task::{Context, Poll};

use super::{NodeWait, TaskNode};

pin_project_lite::pin_project! {
    /// Resolves with the work's output, or `Err(Aborted)` once a stop is
    /// requested (the work is then dropped in place with this future).
    /// `A`: whether it acks the stop when it wins (the `_acked` variant).
    pub(crate) struct Cancellable<'a, F, A> {
        mode: PhantomData<A>,
        #[pin]
        work: F,
        // Gives the node's waker slot back when this future is dropped.
        #[pin]
        stop: NodeWait<'a>,
    }
}

/// What a [`Cancellable`] does when the stop wins: a type, not a field, so
/// it costs no RAM in the worker's task storage.
pub(crate) trait OnStop {
    const ACK: bool;
}

/// `run_cancellable_acked`: ack the stop.
pub(crate) struct Ack;
/// `run_cancellable`: leave the ack to the task.
pub(crate) struct NoAck;

impl OnStop for Ack {
    const ACK: bool = true;
}

impl OnStop for NoAck {
    const ACK: bool = false;
}

impl<'a, F, A: OnStop> Cancellable<'a, F, A> {
    pub(crate) fn new(node: &'a TaskNode, work: F) -> Self {
        Self {
            mode: PhantomData,
            work,
            stop: NodeWait::new(node),
        }
    }
}

impl<F: Future, A: OnStop> Future for Cancellable<'_, F, A> {
    type Output = Result<F::Output, Aborted>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        // The work first: a result that is ready wins over a stop arriving in
        // the same poll.
        if let Poll::Ready(v) = this.work.poll(cx) {
            return Poll::Ready(Ok(v));
        }
        if this.stop.as_mut().until(cx, TaskNode::shutdown_requested) {
            if A::ACK {
                this.stop.node().ack_dropped();
            }
            return Poll::Ready(Err(Aborted));
        }
        Poll::Pending
    }
}

/// Returned by the `run_cancellable*` combinators when a stop was requested
/// before the raced future completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aborted;

impl fmt::Display for Aborted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("aborted by a shutdown request")
    }
}

impl core::error::Error for Aborted {}

#[cfg(feature = "defmt")]
impl defmt::Format for Aborted {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "aborted by a shutdown request")
    }
}
