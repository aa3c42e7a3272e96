//! What a graph uses, as the second parameter of [`Supervisor`]: the code
//! of a feature the parameter leaves out is not in the program.
//!
//! `Supervisor<N>` (every bit, the default; [`Supervisor::new`]) runs any
//! graph. A graph of `supervisor_graph!` also gets `<GRAPH>_USES`, the bits
//! of what it declares; a supervisor typed with it
//! ([`Supervisor::with_uses`]) links only that:
//!
//! ```
//! use embassy_supervisor::{Supervisor, TaskNode, supervisor_graph, uses};
//! # async fn worker(node: &'static TaskNode) {
//! #     let _ = node.run_cancellable_acked(core::future::pending::<()>()).await;
//! # }
//! supervisor_graph! {
//!     node SENSOR = Terminate, task: worker;
//!     node REPORTER = Terminate, deps: [SENSOR], task: worker;
//! }
//! // No gates and no `Pause` node: GRAPH_USES is 0, and neither the gate
//! // waits of a bring-up nor the resume of a parked instance is linked.
//! static SUP: Supervisor<2, GRAPH_USES> = Supervisor::with_uses(&GRAPH);
//! # assert_eq!(GRAPH_USES, 0);
//! // A chain (REPORTER depends on SENSOR): with its width bit too, the
//! // teardown's and `deactivate`'s stop waves are not linked either.
//! static LEAN: Supervisor<2, { GRAPH_USES | GRAPH_WIDTH }> = Supervisor::with_uses(&GRAPH);
//! # assert_eq!(GRAPH_WIDTH, uses::CHAIN);
//! ```
//!
//! `Supervisor<N>` itself (the specification's
//! `static SUP: Supervisor<N> = Supervisor::new(&GRAPH)`) picks the same
//! bits, and the graph's width, from its graph when the `static` is
//! evaluated (at compile time): it holds a pointer to the code for exactly
//! what the graph uses, and the rest is never referenced, so never linked.
//! That form calls the picked code out of line, where the typed form
//! inlines some of it, and a wide graph's build keeps the chain's stop
//! beside the wave: on the bench's builds, 0.4 to 2.2 KB more flash and up
//! to 21 instructions a node more (docs/runtime.md and BENCHMARKS.md have
//! the figures).
//!
//! A supervisor whose parameter leaves out something its graph uses does
//! not compile (its `static` fails const evaluation in `with_uses`), so the
//! bits can only remove code a graph does not need. A hand-built [`Graph`]
//! declares every bit.
//!
//! [`Supervisor`]: crate::Supervisor
//! [`Supervisor::new`]: crate::Supervisor::new
//! [`Supervisor::with_uses`]: crate::Supervisor::with_uses
//! [`Graph`]: crate::Graph

/// Nodes that wait before they spawn: a resource or executor slot, or a
/// `ready` dependency. Without it a bring-up has nothing to wait for but
/// the one retry of a `Busy` spawn: the gate waits, their deadlines and
/// clock, and the wake-ups on a filled slot are left out.
pub const GATES: u8 = 1 << 0;

/// `Pause` nodes: a bring-up resumes a parked instance in place. Without
/// it that check and the resume are left out.
pub const PAUSE: u8 = 1 << 1;

/// A width bit (not part of `<GRAPH>_USES`, which says what a graph
/// declares; `supervisor_graph!` emits the width as `<GRAPH>_WIDTH`): two
/// nodes have no order between them, so a teardown runs as a stop wave
/// (nodes with no order between them wind down at once).
pub const WAVE: u8 = 1 << 2;

/// A width bit (see [`WAVE`]): the dependency order is total (a chain:
/// each node depends directly on the one ranked before it), so a teardown
/// and a `deactivate` stop one node at a time, the last first, with no wave
/// state. A supervisor typed `Supervisor<N, { GRAPH_USES | GRAPH_WIDTH }>`
/// links only the stop its graph's width needs; with neither width bit
/// (`Supervisor<N>`, `Supervisor<N, GRAPH_USES>`) the width is picked from
/// the graph in const evaluation (a chain links no wave code).
pub const CHAIN: u8 = 1 << 3;

/// Every bit a graph can declare: what `Supervisor<N>` means, and what a
/// hand-built graph declares. (The width bits are not declared: a graph's
/// width is read off its dependencies.)
pub const ALL: u8 = GATES | PAUSE;
