//! Settings-gated bring-up (feature `enabled-if`): a node's `enabled_if:`
//! predicate, asked by `start()`.

use crate::Supervisor;

impl<const N: usize, const USES: u8> Supervisor<N, USES> {
    /// Before `start()`'s wave: every node that is down (not running, not
    /// detached) and whose predicate says no gets the `disabled` latch, marked
    /// as the predicate's so `start_node` may lift it. A node already
    /// disabled keeps its latch as it is; `true` never clears one.
    pub(crate) fn latch_enabled_if(&self) {
        for node in self.graph().nodes.iter().flatten() {
            let Some(enabled) = node.enabled_if else {
                continue;
            };
            if node.state().may_be_gated() && !enabled() {
                node.latch_gated();
            }
        }
    }
}
