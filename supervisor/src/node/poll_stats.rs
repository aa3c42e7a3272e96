//! A node's poll accounting (feature `trace`): the per-node cells the trace
//! recorders write. Defined with the node, which holds them, so `node`
//! imports nothing from `trace` (the recorders are built on `TaskNode`).

use crate::sync::{AtomicU32, Ordering};

/// Add to a counter that has one writer: a load and a store, no
/// read-modify-write (which is a critical section on cores without atomics).
pub(crate) fn add(a: &AtomicU32, v: u32) {
    a.store(a.load(Ordering::Relaxed).wrapping_add(v), Ordering::Relaxed);
}

/// One node's poll accounting (16 bytes of `TaskNode` under `trace`).
pub(crate) struct NodeTrace {
    pub(crate) task_id: AtomicU32,
    exec_ticks: AtomicU32,
    polls: AtomicU32,
    max_poll: AtomicU32,
}

impl NodeTrace {
    pub(crate) const fn new() -> Self {
        Self {
            task_id: AtomicU32::new(0),
            exec_ticks: AtomicU32::new(0),
            polls: AtomicU32::new(0),
            max_poll: AtomicU32::new(0),
        }
    }

    pub(crate) fn record(&self, took: u32) {
        // One writer: the executor running the node's one instance. (An old
        // instance still finishing on another executor after its ack could
        // lose one update here; a read-modify-write would cost a critical
        // section per poll on cores without atomics.)
        add(&self.exec_ticks, took);
        add(&self.polls, 1);
        if took > self.max_poll.load(Ordering::Relaxed) {
            self.max_poll.store(took, Ordering::Relaxed);
        }
    }

    pub(crate) fn stats(&self) -> NodeStats {
        NodeStats {
            exec_ticks: self.exec_ticks.load(Ordering::Relaxed),
            polls: self.polls.load(Ordering::Relaxed),
            max_poll_ticks: self.max_poll.load(Ordering::Relaxed),
            #[cfg(feature = "restart")]
            restarts: 0,
        }
    }
}

/// One node's accounting across all its instances
/// ([`TaskNode::trace_stats`](crate::TaskNode::trace_stats)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NodeStats {
    /// Ticks spent inside the node's polls (wrapping).
    pub exec_ticks: u32,
    /// Polls (wrapping).
    pub polls: u32,
    /// The longest single poll ever: the "never yields" watermark.
    pub max_poll_ticks: u32,
    /// Restarts of the node, manual and automatic (feature `restart`;
    /// saturating): kept by its restart state, so 0 for a node without a
    /// `restart:` or `restart_budget:` clause.
    #[cfg(feature = "restart")]
    pub restarts: u16,
}
