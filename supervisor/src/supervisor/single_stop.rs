//! A single node's stop: the request and the ack wait, the one protocol
//! `stop_node`, a chain's stops, `restart`'s own stop and the loom models
//! use (the waves track their members in their own state; a pool shrink's
//! ack rides the driver's wait).
//!
//! The request queues the stopper first, then asks the node: embassy runs
//! each batch of ready tasks newest first, so a worker on the stopper's
//! executor runs (and acks) before the stopper's next poll. Two executor
//! passes pass with a flag load each and nothing else; only then is the
//! ack's window armed (the node's `ack_timeout`, from then) and the wait
//! joins the observers with a timer (`wait::Until`). An ack within the
//! passes costs no timer, no observer entry and no clock read.

use core::pin::Pin;
use core::task::{Context, Poll};

use crate::TaskNode;
use crate::error::ShutdownTimeout;
use crate::log::log_warn;
use crate::node::transition;
use crate::phase::Phase;
use crate::wait::{Cond, Until};

/// Executor passes before the ack wait arms its window.
const PASSES: u8 = 2;

/// Ask `node` to stop and wait (bounded) for its ack.
pub(crate) fn stop(node: &'static TaskNode) -> AckWait {
    AckWait::Ask { node, left: None }
}

pin_project_lite::pin_project! {
    /// A stop's ack wait, resolving to its result. A plain future rather
    /// than an `async fn`: every verb that stops nodes embeds it (flash).
    #[project = AckWaitProj]
    pub(crate) enum AckWait {
        /// Not asked yet (`left: None`), or asked with this many executor
        /// passes left before the window is armed.
        Ask { node: &'static TaskNode, left: Option<u8> },
        /// The window is armed: waiting with the observers and a timer.
        Wait { node: &'static TaskNode, #[pin] until: Until<'static> },
    }
}

impl core::future::Future for AckWait {
    type Output = Result<(), ShutdownTimeout>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let node = match self.as_mut().project() {
            AckWaitProj::Wait { node, until } => return armed(node, until, cx),
            AckWaitProj::Ask { node, left } => {
                let node = *node;
                match *left {
                    None => {
                        *left = Some(PASSES);
                        cx.waker().wake_by_ref();
                        node.request_shutdown();
                        return Poll::Pending;
                    }
                    Some(_) if !node.state().is_stopping() => return Poll::Ready(Ok(())),
                    Some(n @ 1..) => {
                        *left = Some(n - 1);
                        cx.waker().wake_by_ref();
                        return Poll::Pending;
                    }
                    Some(0) => node,
                }
            }
        };
        // The passes went by without the ack: arm its window.
        let until = Until::within(Cond::Acked(node), node.ack_timeout());
        self.set(AckWait::Wait { node, until });
        self.poll(cx)
    }
}

/// The wait once its window is armed. Out of line: inline, the window's
/// wait crowded the ask's hot polls, which never reach it (+2
/// instructions a node on CHAIN(64) teardown where it was `Until`'s one
/// caller).
#[inline(never)]
fn armed(
    node: &'static TaskNode,
    until: Pin<&mut Until<'static>>,
    cx: &mut Context<'_>,
) -> Poll<Result<(), ShutdownTimeout>> {
    until.poll(cx).map(|in_time| acked(node, in_time))
}

fn acked(node: &'static TaskNode, in_time: bool) -> Result<(), ShutdownTimeout> {
    if in_time {
        return Ok(());
    }
    Err(missed_ack(node))
}

/// `node` missed its shutdown ack: the one place that says so (the log
/// line, the trace phase) and builds the value, for a single stop, a
/// stop wave, a pool shrink and the controller alike.
#[cold]
pub(crate) fn missed_ack(node: &'static TaskNode) -> ShutdownTimeout {
    log_warn!("`{}` missed its shutdown ack", node.name);
    transition(node, Phase::StopTimedOut);
    ShutdownTimeout { node }
}
