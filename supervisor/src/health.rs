//! Feature `liveness`: the graph's health over its *policed* nodes, those
//! declared with a `beat_timeout:` ([`NodeSpec::with_beat_timeout`]). A
//! policed node is stale while it runs (attached) and has not beaten for
//! longer than its timeout; a fresh spawn or resume counts as a beat.
//!
//! Report-only: nothing here stops or restarts a node. What a stale node
//! means is the application's decision (log it, [`restart`] it, or let the
//! hardware watchdog reset the chip by not feeding it).
//!
//! [`NodeSpec::with_beat_timeout`]: crate::NodeSpec::with_beat_timeout
//! [`restart`]: crate::Supervisor::restart

use embassy_time::Instant;

use crate::node::now_ticks32;
use crate::{Graph, TaskNode, notify};

/// Where a policed node stands at one instant.
pub(crate) enum Beat {
    /// Not policed now: no timeout, down, or detached.
    Unpoliced,
    /// Within its budget; it turns stale this many ticks from now.
    FreshFor(u64),
    /// No beat for longer than its timeout.
    Stale,
}

pub(crate) fn beat_state(node: &TaskNode, now: u32) -> Beat {
    let Some(timeout) = node.beat_timeout() else {
        return Beat::Unpoliced;
    };
    if !node.state().is_up_supervised() {
        return Beat::Unpoliced;
    }
    let age = u64::from(node.beat_age_at(now));
    // Ages are 32-bit tick counts (no 64-bit atomics); a budget past half
    // their range is cut to it, so a wrapped age never reads as fresh.
    let limit = timeout.as_ticks().min(u64::from(u32::MAX / 2));
    if age > limit {
        Beat::Stale
    } else {
        Beat::FreshFor(limit - age + 1)
    }
}

impl<const N: usize> Graph<N> {
    /// `true` unless a running, attached node with a `beat_timeout:` has gone
    /// longer than that without a [`beat`](TaskNode::beat). One clock read
    /// and one flag load per node, no waiting: the gate for feeding a
    /// hardware watchdog (`if GRAPH.all_fresh() { wdt.feed() }`), so a wedged
    /// node resets the chip even if the task handling health reports hung.
    pub fn all_fresh(&self) -> bool {
        self.stale_nodes().next().is_none()
    }

    /// The policed nodes that are stale now, in slot order (for the log line
    /// before the watchdog bites). Lazy and allocation-free; the clock is
    /// read once, when the iterator is made.
    pub fn stale_nodes(&self) -> impl Iterator<Item = &'static TaskNode> + '_ {
        let now = now_ticks32();
        self.nodes
            .iter()
            .flatten()
            .copied()
            .filter(move |n| matches!(beat_state(n, now), Beat::Stale))
    }

    /// Resolve with a policed node that went stale. Each stale episode is
    /// reported once: the node's next beat (or its next activation) ends the
    /// episode, so a node that recovers and stalls again is reported again,
    /// and a loop over `wait_health()` never spins on one stalled node.
    ///
    /// Sleeps until the earliest instant a policed node could go stale, or
    /// until a lifecycle change (a node started or stopped); beats do not
    /// wake it, and cost no more than they did. Each wake-up checks every
    /// node once: O(slots), never per beat. Meant for one consumer per graph
    /// (two would split the reports between them).
    pub async fn wait_health(&self) -> &'static TaskNode {
        loop {
            let epoch = notify::epoch();
            let (stale, due) = self.sweep();
            if let Some(node) = stale {
                return node;
            }
            notify::ChangeWait::new(epoch, due.map(|d| d.as_ticks())).await;
        }
    }

    /// One pass: the first stale node not yet reported (now marked
    /// reported), else the earliest instant a policed node can go stale.
    fn sweep(&self) -> (Option<&'static TaskNode>, Option<Instant>) {
        let now64 = crate::clock::now();
        let now = now64 as u32;
        let mut soonest: Option<u64> = None;
        for node in self.nodes.iter().flatten().copied() {
            match beat_state(node, now) {
                Beat::Unpoliced => {}
                Beat::Stale => {
                    if node.claim_stale_report() {
                        #[cfg(feature = "events")]
                        crate::event::publish(crate::event::EventKind::NodeStale {
                            node: node.name,
                        });
                        return (Some(node), None);
                    }
                }
                Beat::FreshFor(ticks) => {
                    soonest = Some(soonest.map_or(ticks, |s| s.min(ticks)));
                }
            }
        }
        let due = soonest.map(|t| Instant::from_ticks(now64.saturating_add(t)));
        (None, due)
    }
}
