//! The stops of a graph whose dependency order is total (a chain,
//! [`uses::CHAIN`]): a teardown's, and `deactivate`'s (below). One node at
//! a time, the last rank first, each through
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

use super::stop_wave::{Cover, OnMiss, hold_if_dependent};
use crate::fault::NodeFault;
use crate::sync::Ordering;
use crate::{Graph, TaskNode, notify, uses};

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
    /// Exactly one width bit: the type names its one whole-graph stop
    /// (else the graph's `WaveCode` pointer, if any, names the wave).
    const ONE_WIDTH: bool = {
        let width = Self::USES & (uses::WAVE | uses::CHAIN);
        width == uses::WAVE || width == uses::CHAIN
    };
}

impl<const USES: u8> UsesBits for Bits<USES> {
    const USES: u8 = USES;
}

/// `deactivate` on a chain: latch `disabled` on the node in slot `seed`
/// and the collateral hold on its transitive dependents (detached nodes
/// never join, nor what depends on the target only through one), every
/// latch before any stop, as the wave's choice does; then stop the members
/// the last rank first ([`MemberWalk`]). A chain holds no pool of two
/// members, so a member's pool is the member itself. Aborts at the first
/// missed ack.
pub(super) async fn chain_deactivate<const N: usize>(
    graph: &'static Graph<N>,
    seed: usize,
) -> Result<(), NodeFault> {
    // Before the first latch: a bring-up that reads the stopping count
    // zero after its fence has no marked dependency to find.
    let _cover = Cover::raise();
    let member = latch_members(graph, seed);
    let span = (graph.rank(seed), graph.reach(seed));
    let mut walk = MemberWalk::new(graph, span, |i| member[i]);
    while let Some(node) = walk.next_asked() {
        super::stop(node).await?;
    }
    Ok(())
}

/// `restart`'s stop on a chain: the members `member` selects within ranks
/// `lo..=hi` (latched by the caller), the last rank first, one at a time
/// ([`MemberWalk`]). Aborts at the first missed ack.
pub(super) async fn chain_stop_members<const N: usize>(
    graph: &'static Graph<N>,
    span: (usize, usize),
    member: impl Fn(usize) -> bool,
) -> Result<(), NodeFault> {
    let _cover = Cover::raise();
    let mut walk = MemberWalk::new(graph, span, member);
    while let Some(node) = walk.next_asked() {
        super::stop(node).await?;
    }
    Ok(())
}

/// The members of a raced chain stop, the last rank first. Bring-ups may
/// race it (a restart, a pool, `start_node`), so each ask is the wave's
/// two-phase ask: mark the node (`TaskNode::mark_asked`), fence, look for
/// a member it passed that is up again (that one goes first), and only
/// then hand the node over to be stopped. The caller counts once in the
/// stopping count for the whole walk ([`Cover`], raised before its first
/// latch).
struct MemberWalk<const N: usize, M> {
    graph: &'static Graph<N>,
    /// The span of ranks holding every member, and the next rank + 1.
    lo: usize,
    hi: usize,
    top: usize,
    member: M,
    /// [`notify::activations`] when the walk last made sure no member it
    /// passed came back.
    seen: u32,
}

impl<const N: usize, M: Fn(usize) -> bool> MemberWalk<N, M> {
    fn new(graph: &'static Graph<N>, (lo, hi): (usize, usize), member: M) -> Self {
        Self {
            graph,
            lo,
            hi,
            top: hi + 1,
            member,
            seen: notify::activations(),
        }
    }

    /// The next member to stop, marked asked; `None` once every member is
    /// down.
    fn next_asked(&mut self) -> Option<&'static TaskNode> {
        let graph = self.graph;
        while self.top > self.lo {
            self.top -= 1;
            let i = graph.order[self.top] as usize;
            let Some(node) = graph.node(i).filter(|_| (self.member)(i)) else {
                continue;
            };
            if node.mark_asked().is_err() {
                continue; // down (or detached since): nothing to stop
            }
            // Pairs with the fence in a bring-up's `still_clear`.
            crate::sync::fence(Ordering::SeqCst);
            let now = notify::activations();
            if now != self.seen {
                self.seen = now;
                let above = graph.order.get(self.top + 1..=self.hi).unwrap_or(&[]);
                let back = above.iter().any(|&j| {
                    (self.member)(j as usize)
                        && graph
                            .node(j as usize)
                            .is_some_and(|n| n.state().is_up_supervised())
                });
                if back {
                    // A member passed is up again: it goes first.
                    node.unmark_asked();
                    self.top = self.hi + 1;
                    continue;
                }
            }
            return Some(node);
        }
        None
    }
}

/// Latch the target in slot `seed` and hold its dependents (see
/// [`chain_deactivate`]); per slot, whether it is a member.
fn latch_members<const N: usize>(graph: &'static Graph<N>, seed: usize) -> [bool; N] {
    let mut member = [false; N];
    let Some(target) = graph.node(seed) else {
        return member;
    };
    target.set_disabled(true);
    member[seed] = true;
    let (lo, hi) = (graph.rank(seed), graph.reach(seed));
    for &i in graph.order.get(lo + 1..=hi).unwrap_or(&[]) {
        let i = i as usize;
        if hold_if_dependent(graph, i, |d| member.get(d) == Some(&true)).is_some() {
            member[i] = true;
        }
    }
    member
}

pin_project_lite::pin_project! {
    /// A whole-graph stop: the chain's or the wave's, chosen when built
    /// (`Supervisor::whole_graph_wave`). Its poll tests the type's bits
    /// first (a constant): a supervisor typed with a chain's bits links no
    /// wave code, one typed with a wide graph's none of the chain's.
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
            // Never built for this type (`Supervisor::whole_graph_wave`).
            _ => Poll::Ready(Ok(())),
        }
    }
}
