//! The graph's dataflow queries: each a walk over the flow table, no
//! allocation. A signal is found by its address, a node by its slot.

use super::Flow;
use crate::{Graph, TaskNode};

impl<const N: usize> Graph<N> {
    /// Attach the graph's dataflow: one [`Flow`] per signal
    /// (`supervisor_graph!` emits it from `reads:` / `writes:`).
    pub const fn with_dataflow(mut self, flows: &'static [Flow]) -> Self {
        self.flows = flows;
        self
    }

    /// Every signal of the graph's dataflow, in declaration order.
    pub fn flows(&self) -> &'static [Flow] {
        self.flows
    }

    /// The flow of `signal`, if the graph's dataflow names it.
    pub fn flow<T: ?Sized>(&self, signal: &T) -> Option<&'static Flow> {
        self.flows.iter().find(|f| f.is(signal))
    }

    /// The nodes that write `signal` (none if the graph does not name it).
    pub fn writers_of<T: ?Sized>(
        &self,
        signal: &T,
    ) -> impl Iterator<Item = &'static TaskNode> + '_ {
        let slots = self.flow(signal).map_or(&[][..], |f| f.writers);
        slots.iter().filter_map(|&s| self.node(usize::from(s)))
    }

    /// The nodes that read `signal` (none if the graph does not name it).
    pub fn readers_of<T: ?Sized>(
        &self,
        signal: &T,
    ) -> impl Iterator<Item = &'static TaskNode> + '_ {
        let slots = self.flow(signal).map_or(&[][..], |f| f.readers);
        slots.iter().filter_map(|&s| self.node(usize::from(s)))
    }

    /// The signals `node` reads (none if it is not in the graph).
    pub fn reads_of(&self, node: &TaskNode) -> impl Iterator<Item = &'static Flow> + '_ {
        let slot = self.index_of(node);
        self.flows
            .iter()
            .filter(move |f| slot.is_some_and(|s| f.is_read_by(s)))
    }

    /// The signals `node` writes (none if it is not in the graph).
    pub fn writes_of(&self, node: &TaskNode) -> impl Iterator<Item = &'static Flow> + '_ {
        let slot = self.index_of(node);
        self.flows
            .iter()
            .filter(move |f| slot.is_some_and(|s| f.is_written_by(s)))
    }

    /// Who is affected if `node` cycles: the readers of what it writes, the
    /// readers of what those write, and so on (the node itself only if its
    /// data comes back to it through a cycle). In slot order; the set is a
    /// `[bool; N]` on the stack, built in at most N passes over the table.
    pub fn affected_by(&self, node: &TaskNode) -> Affected<'_, N> {
        let mut hit = [false; N];
        let mut source = [false; N];
        if let Some(s) = self.index_of(node) {
            source[s] = true;
            let mut changed = true;
            while changed {
                changed = false;
                for f in self.flows {
                    if !f.writers.iter().any(|&w| source[usize::from(w)]) {
                        continue;
                    }
                    for &r in f.readers {
                        let r = usize::from(r);
                        if !hit[r] {
                            hit[r] = true;
                            source[r] = true;
                            changed = true;
                        }
                    }
                }
            }
        }
        Affected {
            graph_nodes: &self.nodes,
            hit,
            next: 0,
        }
    }
}

/// The nodes [`Graph::affected_by`] found, in slot order.
pub struct Affected<'g, const N: usize> {
    graph_nodes: &'g [Option<&'static TaskNode>; N],
    hit: [bool; N],
    next: usize,
}

impl<const N: usize> Iterator for Affected<'_, N> {
    type Item = &'static TaskNode;

    fn next(&mut self) -> Option<Self::Item> {
        while self.next < N {
            let i = self.next;
            self.next += 1;
            if self.hit[i] {
                if let Some(n) = self.graph_nodes[i] {
                    return Some(n);
                }
            }
        }
        None
    }
}
