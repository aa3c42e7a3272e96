//! The trace accessors of a node (feature `trace`): its poll accounting
//! across instances and the id of the task bound to it.

use super::{NodeStats, NodeTrace, TaskNode};
use crate::sync::Ordering;

impl TaskNode {
    /// This node's poll accounting across its instances (feature `trace`).
    pub fn trace_stats(&self) -> NodeStats {
        #[cfg_attr(not(feature = "restart"), allow(unused_mut))]
        let mut stats = self.trace.stats();
        #[cfg(feature = "restart")]
        {
            stats.restarts = self.spec.restart.map_or(0, |r| r.restarts());
        }
        stats
    }

    /// The id of the task last bound to this node, if any (feature `trace`).
    pub fn task_id(&self) -> Option<u32> {
        Some(self.trace.task_id.load(Ordering::Acquire)).filter(|&id| id != 0)
    }

    pub(crate) fn trace_state(&self) -> &NodeTrace {
        &self.trace
    }
}
