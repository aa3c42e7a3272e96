//! Feature `dataflow`: which node feeds which while they run.
//!
//! `deps:` orders spawns; it says nothing about the data that moves between
//! running tasks. A graph's dataflow is a table of [`Flow`]s, one per signal
//! static the nodes exchange data through (an embassy-sync `Signal`,
//! `Watch`, `Channel`, `PubSubChannel`, an atomic, or any other `static`):
//! the signal's address, its name, the slots that write it and the slots
//! that read it. `supervisor_graph!` builds the table from the `reads:` /
//! `writes:` clauses and checks it at compile time (every signal written
//! by one node unless marked `shared`, none one-sided unless marked
//! `extern`); a hand-built graph attaches one with [`Graph::with_dataflow`].
//!
//! Dataflow may be cyclic (the estimator feeds the controller, the
//! controller's output feeds the estimator back): the table never takes part
//! in the dependency order.
//!
//! The queries ([`Graph::writers_of`], [`Graph::readers_of`],
//! [`Graph::reads_of`], [`Graph::writes_of`], [`Graph::affected_by`])
//! allocate nothing. A write made through the node ([`TaskNode::publish`],
//! [`TaskNode::writer`]) is the node's heartbeat (feature `liveness`) and,
//! on a `ready_on_write` node, its readiness (feature `readiness`).
//!
//! [`Graph::with_dataflow`]: crate::Graph::with_dataflow
//! [`Graph::writers_of`]: crate::Graph::writers_of
//! [`Graph::readers_of`]: crate::Graph::readers_of
//! [`Graph::reads_of`]: crate::Graph::reads_of
//! [`Graph::writes_of`]: crate::Graph::writes_of
//! [`Graph::affected_by`]: crate::Graph::affected_by
//! [`TaskNode::publish`]: crate::TaskNode::publish
//! [`TaskNode::writer`]: crate::TaskNode::writer

mod access;
mod derived;
mod publish;
mod queries;

pub use crate::flow::Flow;
pub use derived::{Derived, DerivedAccess, same_signal};
pub use publish::Publish;
pub use queries::Affected;
