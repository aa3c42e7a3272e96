//! Trace-hook observability (feature `trace`): per-node poll time, poll
//! count and longest poll, per-executor time decomposition, and stall
//! detection, from embassy-executor's `_embassy_trace_*` hooks.
//!
//! The hooks identify a task only by an id. The spawn glue binds each
//! spawned task's id to its node ([`TaskNode::bind`](crate::TaskNode::bind);
//! `adopt` does it for hand-spawned tasks), and every `start()` registers its
//! graph, so each poll is attributed to a *named* node, across respawns, in
//! O(1) and without a lock.
//!
//! The recorders are the `on_*` functions. Feature `trace-hooks` makes the
//! unnamed `supervisor_graph!` define the seven hook symbols, forwarding to
//! them; without it, define the hooks yourself (exactly one set per binary)
//! and forward:
//!
//! ```ignore
//! #[unsafe(no_mangle)]
//! fn _embassy_trace_task_exec_begin(executor_id: u32, task_id: u32) {
//!     embassy_supervisor::trace::on_task_exec_begin(executor_id, task_id);
//!     // ... and your own tracer
//! }
//! ```
//!
//! Every figure is a wrapping `u32` of embassy-time ticks or a wrapping
//! count: sample twice, `wrapping_sub`, divide. Without `trace-nested`, a
//! poll that an interrupt executor preempts on the same core includes the
//! preempting poll's time. Time spent in interrupt handlers is invisible
//! either way (it lands in whatever the executor was doing).

mod executors;
#[cfg(feature = "trace-nested")]
mod nested;
mod table;

use crate::TaskNode;
pub use crate::node::NodeStats;
use crate::node::add_single_writer as add;

pub use executors::{
    ExecutorStats, InFlight, current_task, executor_stats, stalled_task, untracked_executors,
};
#[cfg(feature = "trace-nested")]
pub use nested::{MAX_CORES, set_core_id_fn};
pub use table::TracedGraph;

/// Executors tracked; hooks from more are counted by [`untracked_executors`].
pub const MAX_EXECUTORS: usize = 4;
/// Graphs whose nodes the recorders can name; `start()` registers its graph.
pub const MAX_GRAPHS: usize = 4;
/// Attribution table entries: the number of distinct task storages that
/// supervised nodes run in, at most, with room to spare (keep under about
/// half of it: the table is probed linearly, at most [`MAX_PROBES`] entries).
/// A task that finds no entry is counted by [`untracked`], never attributed
/// to the wrong node.
pub const MAX_TASKS: usize = 128;

/// The embassy-time clock, as wrapping 32-bit ticks.
fn ticks() -> u32 {
    embassy_time_driver::now() as u32
}

/// The node task `task_id` runs, if it is a supervised task of a registered
/// graph. O(1).
pub fn node_of(task_id: u32) -> Option<&'static TaskNode> {
    table::node_of(task_id)
}

/// Tasks that could not be attributed because the attribution table had no
/// free entry near their id (see [`MAX_TASKS`]).
pub fn untracked() -> u32 {
    table::untracked()
}

/// How many attribution-table entries a poll of `task_id` costs to
/// attribute: at most a small constant, whatever the number of nodes
/// (pitfall 13 of the published 0.3.4 was a linear scan per poll).
#[doc(hidden)]
pub fn __lookup_cost(task_id: u32) -> usize {
    table::lookup_cost(task_id)
}

/// The most attribution-table entries one lookup reads.
pub const MAX_PROBES: usize = table::MAX_PROBES;

pub(crate) fn bind(node: &'static TaskNode, task_id: u32) {
    table::bind(node, task_id);
}

/// Register a graph so the recorders can name its nodes (`start()` does).
/// `false` if [`MAX_GRAPHS`] other graphs are registered.
pub fn register_graph(graph: &'static dyn TracedGraph) -> bool {
    table::register(graph)
}

// ---- recorders: one per `_embassy_trace_*` hook ----------------------------

/// `_embassy_trace_poll_start`: a scheduler pass begins.
pub fn on_poll_start(executor_id: u32) {
    if let Some(s) = executors::slot(executor_id) {
        s.poll_start();
    }
}

/// `_embassy_trace_executor_idle`: the pass ended; the executor sleeps.
pub fn on_executor_idle(executor_id: u32) {
    if let Some(s) = executors::slot(executor_id) {
        s.idle();
    }
}

/// `_embassy_trace_task_new`: a task was allocated (nothing to record: the
/// spawn glue binds it).
pub fn on_task_new(_executor_id: u32, _task_id: u32) {}

/// `_embassy_trace_task_end`: a task's storage was freed; it may next run
/// something else.
pub fn on_task_end(_executor_id: u32, task_id: u32) {
    table::unbind(task_id);
}

/// `_embassy_trace_task_ready_begin`: a task was woken (may run in an
/// interrupt).
pub fn on_task_ready_begin(executor_id: u32, _task_id: u32) {
    if let Some(s) = executors::slot(executor_id) {
        s.woke();
    }
}

/// `_embassy_trace_task_exec_begin`: a poll begins.
pub fn on_task_exec_begin(executor_id: u32, task_id: u32) {
    if let Some(s) = executors::slot(executor_id) {
        s.exec_begin(task_id);
    }
}

/// `_embassy_trace_task_exec_end`: the poll ended; charge it to the
/// executor and, if the task is a node's, to the node.
pub fn on_task_exec_end(executor_id: u32, task_id: u32) {
    let Some(s) = executors::slot(executor_id) else {
        return;
    };
    let node = table::node_of(task_id);
    if let (Some(took), Some(n)) = (s.exec_end(node.is_some()), node) {
        n.trace_state().record(took);
    }
}
