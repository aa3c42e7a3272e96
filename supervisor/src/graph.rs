//! `Graph<N>`: the static tables a supervisor walks: node slots, dependency
//! indices, and the dependency order computed at compile time.

use crate::TaskNode;

/// A supervised graph of `N` slots (pool members included). Every index is a
/// `u8`, so a graph holds at most 256 slots.
///
/// `supervisor_graph!` emits one; a hand-built graph uses the same const API:
///
/// ```
/// use embassy_supervisor::{Graph, Mode, NodeSpec, TaskNode};
/// static NET: TaskNode = TaskNode::new(&NodeSpec::new("NET", Mode::Terminate).at(0));
/// static APP: TaskNode = TaskNode::new(&NodeSpec::new("APP", Mode::Terminate).at(1));
/// static GRAPH: Graph<2> = Graph::new([Some(&NET), Some(&APP)], [&[], &[0]]);
/// assert_eq!(GRAPH.order, [0, 1]);
/// ```
pub struct Graph<const N: usize> {
    /// Node slots; a `#[cfg]`-removed node keeps its slot as `None`.
    pub nodes: [Option<&'static TaskNode>; N],
    /// Per slot, the slot indices it depends on.
    pub deps: [&'static [u8]; N],
    /// Slot indices in dependency order (dependencies first).
    pub order: [u8; N],
    /// Per slot, its position in `order`: a cascade walks only the part of
    /// the order its nodes can reach.
    rank: [u8; N],
    /// Per slot, the highest rank among itself and its transitive
    /// dependents: a walk for a node's dependents stops there, so a cascade
    /// from a node with few dependents reads no more of the order.
    reach: [u8; N],
    /// The graph's elastic pools; a member's `TaskNode::in_pool` indexes here.
    #[cfg(feature = "pool")]
    pub pools: &'static [&'static dyn crate::pool::Pool],
    /// Per slot, the dependencies marked `ready`: a spawn also waits for their
    /// `set_ready()`, and pool growth defers while one is not ready.
    #[cfg(feature = "readiness")]
    pub ready_deps: [&'static [u8]; N],
    /// The slots of the nodes with a restart configuration (feature
    /// `restart`): all the driver looks at for automatic restarts.
    #[cfg(feature = "restart")]
    pub restarts: &'static [u8],
    /// The graph's dataflow (feature `dataflow`): one entry per signal, empty
    /// unless declared ([`with_dataflow`](Self::with_dataflow)).
    #[cfg(feature = "dataflow")]
    pub(crate) flows: &'static [crate::flow::Flow],
    /// What the graph uses ([`uses`](crate::uses) bits): every bit unless
    /// `supervisor_graph!` declared it.
    uses: u8,
    /// The dependency order is total (see [`is_chain`](Self::is_chain)).
    chain: bool,
    /// A node starts latched (`disabled`) or may be latched by `start`
    /// (`enabled_if:`): only then does a bring-up in order first hold the
    /// dependents of latched nodes. Read off the nodes' specs.
    pub(crate) declares_latches: bool,
}

impl<const N: usize> Graph<N> {
    /// Build a graph, computing the dependency order at compile time.
    ///
    /// Fails const evaluation (a compile error for a `static`) on a dependency
    /// cycle, an out-of-range dependency index, or more than 256 slots.
    pub const fn new(nodes: [Option<&'static TaskNode>; N], deps: [&'static [u8]; N]) -> Self {
        let order = topological_order(&deps);
        let rank = ranks(&order);
        Self {
            nodes,
            reach: reaches(&deps, &order, &rank),
            deps,
            order,
            rank,
            #[cfg(feature = "pool")]
            pools: &[],
            #[cfg(feature = "readiness")]
            ready_deps: [&[]; N],
            #[cfg(feature = "restart")]
            restarts: &[],
            #[cfg(feature = "dataflow")]
            flows: &[],
            uses: crate::uses::ALL,
            chain: is_path(&order, &deps),
            declares_latches: declares_latches(&nodes),
        }
    }

    /// `supervisor_graph!`'s width bit for `<GRAPH>_WIDTH`
    /// ([`uses::CHAIN`](crate::uses::CHAIN) or
    /// [`uses::WAVE`](crate::uses::WAVE)), computed from the dependencies
    /// as the build's `#[cfg]`s leave them, as [`new`](Self::new) does.
    #[doc(hidden)]
    pub const fn __width_of(deps: &[&'static [u8]; N]) -> u8 {
        if is_path(&topological_order(deps), deps) {
            crate::uses::CHAIN
        } else {
            crate::uses::WAVE
        }
    }

    /// The dependency order is total (a chain: each node depends directly
    /// on the one ranked before it); a whole-graph stop then runs one node
    /// at a time (`supervisor/chain_stop.rs`).
    pub(crate) const fn is_chain(&self) -> bool {
        self.chain
    }

    /// What the graph uses ([`uses`](crate::uses) bits): what
    /// `supervisor_graph!` found in its declaration, or every bit for a
    /// hand-built graph.
    pub const fn uses(&self) -> u8 {
        self.uses
    }

    /// `supervisor_graph!`'s declaration of what the graph uses (it sees
    /// every node's clauses). Not for hand-built graphs: a graph that uses
    /// more than it declares would run under a supervisor without that code.
    #[doc(hidden)]
    pub const fn __declare_uses(mut self, uses: u8) -> Self {
        self.uses = uses;
        self
    }

    /// List the slots whose nodes carry a [`RestartSpec`](crate::RestartSpec)
    /// ([`NodeSpec::with_restart`](crate::NodeSpec::with_restart)): the
    /// driver restarts those, and only those, automatically.
    #[cfg(feature = "restart")]
    pub const fn with_restarts(mut self, slots: &'static [u8]) -> Self {
        self.restarts = slots;
        self
    }

    /// Mark dependencies `ready` (a subset of each slot's `deps`).
    #[cfg(feature = "readiness")]
    pub const fn with_ready_deps(mut self, ready_deps: [&'static [u8]; N]) -> Self {
        self.ready_deps = ready_deps;
        self
    }

    /// Attach the graph's pools.
    #[cfg(feature = "pool")]
    pub const fn with_pools(mut self, pools: &'static [&'static dyn crate::pool::Pool]) -> Self {
        self.pools = pools;
        self
    }

    /// The slot of `node` in this graph, or `None` if it is not a member.
    /// O(1) when the node's index hint is right (always, for macro graphs).
    pub fn index_of(&self, node: &TaskNode) -> Option<usize> {
        let hint = node.index as usize;
        if let Some(Some(n)) = self.nodes.get(hint) {
            if core::ptr::eq(*n, node) {
                return Some(hint);
            }
        }
        self.nodes
            .iter()
            .position(|n| n.is_some_and(|n| core::ptr::eq(n, node)))
    }

    /// The position of slot `i` in [`order`](Self::order).
    pub fn rank(&self, i: usize) -> usize {
        self.rank[i] as usize
    }

    /// The highest rank among slot `i` and its transitive dependents: every
    /// dependent of `i` sits in `order[rank(i)..=reach(i)]`.
    pub fn reach(&self, i: usize) -> usize {
        self.reach[i] as usize
    }

    /// The node in slot `i`, if present.
    pub fn node(&self, i: usize) -> Option<&'static TaskNode> {
        self.nodes.get(i).copied().flatten()
    }
}

/// Kahn's algorithm, in a `const fn`: dependencies before dependents; ties by
/// slot index, so the order is deterministic.
const fn topological_order<const N: usize>(deps: &[&'static [u8]; N]) -> [u8; N] {
    assert!(N <= 256, "a graph holds at most 256 slots (indices are u8)");
    let mut order = [0u8; N];
    let mut placed = [false; N];
    let mut count = 0;
    while count < N {
        let mut progressed = false;
        let mut i = 0;
        while i < N {
            if !placed[i] && all_placed(deps[i], &placed) {
                placed[i] = true;
                order[count] = i as u8;
                count += 1;
                progressed = true;
            }
            i += 1;
        }
        assert!(
            progressed,
            "dependency cycle in the supervisor graph (supervisor_graph! names the nodes)"
        );
    }
    order
}

/// `order` is the graph's only dependency order (width 1). A topological
/// order is the only one exactly when each node depends directly on the
/// one ranked before it (the order is a path).
const fn is_path<const N: usize>(order: &[u8; N], deps: &[&'static [u8]; N]) -> bool {
    let mut r = 1;
    while r < N {
        let dep_list = deps[order[r] as usize];
        let mut k = 0;
        let mut follows = false;
        while k < dep_list.len() {
            follows |= dep_list[k] == order[r - 1];
            k += 1;
        }
        if !follows {
            return false;
        }
        r += 1;
    }
    true
}

/// The inverse permutation of `order`.
const fn ranks<const N: usize>(order: &[u8; N]) -> [u8; N] {
    let mut rank = [0u8; N];
    let mut pos = 0;
    while pos < N {
        rank[order[pos] as usize] = pos as u8;
        pos += 1;
    }
    rank
}

/// Per slot, the highest rank among itself and its transitive dependents.
/// Backwards over the order, a node's reach is final before it is handed
/// to its dependencies: O(nodes + edges), at compile time.
const fn reaches<const N: usize>(
    deps: &[&'static [u8]; N],
    order: &[u8; N],
    rank: &[u8; N],
) -> [u8; N] {
    let mut reach = *rank;
    let mut pos = N;
    while pos > 0 {
        pos -= 1;
        let i = order[pos] as usize;
        let mut j = 0;
        while j < deps[i].len() {
            let d = deps[i][j] as usize;
            if reach[d] < reach[i] {
                reach[d] = reach[i];
            }
            j += 1;
        }
    }
    reach
}

const fn all_placed<const N: usize>(deps: &[u8], placed: &[bool; N]) -> bool {
    let mut j = 0;
    while j < deps.len() {
        let d = deps[j] as usize;
        assert!(d < N, "dependency index out of range");
        if !placed[d] {
            return false;
        }
        j += 1;
    }
    true
}

#[cfg(feature = "trace")]
impl<const N: usize> crate::trace::TracedGraph for Graph<N> {
    fn traced_node(&self, i: usize) -> Option<&'static TaskNode> {
        self.node(i)
    }

    fn slots(&self) -> usize {
        N
    }
}

/// Some node of `nodes` is declared `disabled` or has an `enabled_if:`
/// predicate (see [`Graph::declares_latches`]).
const fn declares_latches<const N: usize>(nodes: &[Option<&'static TaskNode>; N]) -> bool {
    let mut i = 0;
    while i < N {
        if let Some(n) = nodes[i] {
            let spec = n.spec();
            #[cfg(feature = "enabled-if")]
            if spec.enabled_if.is_some() {
                return true;
            }
            if spec.disabled {
                return true;
            }
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::Graph;

    // 0 <- 1 <- 3 ; 2 alone ; 4 <- {2, 0}: order 0, 1, 2, 3, 4.
    static G: Graph<5> = Graph::new([None; 5], [&[], &[0], &[], &[1], &[2, 0]]);

    #[test]
    fn reach_is_the_last_rank_among_a_slot_and_its_transitive_dependents() {
        assert_eq!(G.order, [0, 1, 2, 3, 4]);
        let reach: [usize; 5] = core::array::from_fn(|i| G.reach(i));
        // 1's dependents end at 3, not at the end of the order; 2 reaches
        // 4 through its dependent, 0 through both of its.
        assert_eq!(reach, [4, 3, 4, 3, 4]);
    }
}
