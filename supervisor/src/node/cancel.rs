//! The future behind `run_cancellable` and `run_cancellable_acked`: a task's
//! work raced against a stop request on its node.
//!
//! Hand-written rather than an `async fn`: it lives in every worker's task
//! storage, which is RAM per node, and as a plain struct it is the node
//! reference, one flag and the work future, with no generator bookkeeping.

use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use super::TaskNode;
use crate::notify::Observer;

pin_project_lite::pin_project! {
    /// Resolves with the work's output, or `Err(Aborted)` once a stop is
    /// requested (the work is then dropped in place with this future).
    pub(crate) struct Cancellable<'a, F> {
        node: &'a TaskNode,
        // Ack the stop when it wins (the `_acked` variant).
        ack: bool,
        #[pin]
        work: F,
        // Used only if another task already waits on the node.
        #[pin]
        observer: Observer,
    }
}

impl<'a, F> Cancellable<'a, F> {
    pub(crate) fn new(node: &'a TaskNode, work: F, ack: bool) -> Self {
        Self {
            node,
            ack,
            work,
            observer: Observer::new(),
        }
    }
}

impl<F: Future> Future for Cancellable<'_, F> {
    type Output = Result<F::Output, Aborted>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        // The work first: a result that is ready wins over a stop arriving in
        // the same poll.
        if let Poll::Ready(v) = this.work.poll(cx) {
            return Poll::Ready(Ok(v));
        }
        if this.node.stop_seen(cx, this.observer) {
            if *this.ack {
                this.node.ack_dropped();
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
