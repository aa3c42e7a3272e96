//! The future behind `run_cancellable` and `run_cancellable_acked`: a task's
//! work raced against a stop request on its node.
//!
//! Hand-written rather than an `async fn`: it lives in every worker's task
//! storage, which is RAM per node, and as a plain struct it is the wait on
//! the node, one flag and the work future, with no generator bookkeeping.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use super::{NodeWait, TaskNode};

pin_project_lite::pin_project! {
    /// Resolves with the work's output, or `Err(Aborted)` once a stop is
    /// requested (the work is then dropped in place with this future).
    pub(crate) struct Cancellable<'a, F> {
        // Ack the stop when it wins (the `_acked` variant).
        ack: bool,
        #[pin]
        work: F,
        // Gives the node's waker slot back when this future is dropped.
        #[pin]
        stop: NodeWait<'a>,
    }
}

impl<'a, F> Cancellable<'a, F> {
    pub(crate) fn new(node: &'a TaskNode, work: F, ack: bool) -> Self {
        Self {
            ack,
            work,
            stop: NodeWait::new(node),
        }
    }
}

impl<F: Future> Future for Cancellable<'_, F> {
    type Output = Result<F::Output, Aborted>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        // The work first: a result that is ready wins over a stop arriving in
        // the same poll.
        if let Poll::Ready(v) = this.work.poll(cx) {
            return Poll::Ready(Ok(v));
        }
        if this.stop.as_mut().until(cx, TaskNode::shutdown_requested) {
            if *this.ack {
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
