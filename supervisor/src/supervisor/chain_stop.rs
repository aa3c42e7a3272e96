//! The stop of a whole graph whose dependency order is total (a chain,
//! [`uses::CHAIN`]): one node at a time, the last rank first, each through
//! the single stop's request and ack wait (`supervisor::stop`). A chain
//! has no two nodes to stop at once, so the stop wave's bookkeeping (its
//! per-slot counts, in-flight list and deadlines) buys it nothing.
//!
//! Guarantees, as the wave's for such a graph: a node is asked only once
//! every node ranked after it is down (each depends on the one before it);
//! detached nodes are skipped; each node's ack window runs from its own
//! request; [`OnMiss`] as the wave's; a node that comes up behind the stop
//! (an app-spawned activation, which no era refuses) is stopped before the
//! node it depends on: when the activation count moved, the stop looks
//! again from the top (the nodes down cost a flag load each).

use core::marker::PhantomData;
use core::pin::Pin;
use core::task::{Context, Poll};

use super::stop_wave::OnMiss;
use crate::fault::NodeFault;
use crate::{Graph, notify, uses};

/// Stop every up, supervised node of `graph`, the last rank first.
pub(super) async fn chain_stop<const N: usize>(
    graph: &'static Graph<N>,
    on_miss: OnMiss,
) -> Result<(), NodeFault> {
    let mut first_miss = None;
    let mut seen = notify::activations();
    let mut top = N;
    while top > 0 {
        let now = notify::activations();
        if now != seen {
            seen = now;
            top = N;
        }
        top -= 1;
        let Some(node) = graph.node(graph.order[top] as usize) else {
            continue;
        };
        if !node.state().is_up_supervised() {
            continue;
        }
        if let Err(miss) = super::stop(node).await {
            if on_miss == OnMiss::Abort {
                return Err(miss.into());
            }
            first_miss.get_or_insert(miss);
        }
    }
    first_miss.map_or(Ok(()), |m| Err(m.into()))
}

/// A supervisor type's `USES` bits, as a type (a const parameter cannot
/// go through `pin_project!`).
pub(super) struct Bits<const USES: u8>;

/// What [`GraphStop`] reads of its supervisor's type.
pub(super) trait UsesBits {
    const USES: u8;
}

impl<const USES: u8> UsesBits for Bits<USES> {
    const USES: u8 = USES;
}

pin_project_lite::pin_project! {
    /// A whole-graph stop: the chain's or the wave's, chosen when built
    /// (`Supervisor::chain`). Its poll tests the type's bits first (a
    /// constant): a supervisor typed with a chain's bits links no wave
    /// code, one typed with a wide graph's none of the chain's.
    #[project = GraphStopProj]
    pub(super) enum GraphStop<C, W, B> {
        Chain { #[pin] stop: C, bits: PhantomData<B> },
        Wave { #[pin] stop: W, bits: PhantomData<B> },
    }
}

impl<C, W, B> Future for GraphStop<C, W, B>
where
    C: Future<Output = Result<(), NodeFault>>,
    W: Future<Output = Result<(), NodeFault>>,
    B: UsesBits,
{
    type Output = Result<(), NodeFault>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Exactly one width bit names the one stop this type builds.
        let width = B::USES & (uses::WAVE | uses::CHAIN);
        match self.project() {
            GraphStopProj::Chain { stop, .. } if width != uses::WAVE => stop.poll(cx),
            GraphStopProj::Wave { stop, .. } if width != uses::CHAIN => stop.poll(cx),
            // Never built for this type (`Supervisor::chain`).
            _ => Poll::Ready(Ok(())),
        }
    }
}
