//! Emission from the checked model only: no rule is decided here. Everything
//! reaches the runtime through `::embassy_supervisor` (and embassy through its
//! `__private` re-exports), so users need no direct embassy dependency for
//! the generated code.
//!
//! One function per emitted item kind, in emission order:
//!
//! ```text
//! statics::executor_statics     `executor X;`        SpawnerSlot statics
//! statics::local_type           any `local` entry    the graph's local slot type
//! statics::heap_module          any `state:`         the fallible-boxing helper
//! statics::take_slot_statics    lend/consume entries ResourceSlot statics (arrays for pools)
//! statics::shared_slot_statics  `shared` entries     one static per name
//! per unit:
//!   node::emit_node             `node`               TaskNode static
//!   pool::emit_pool             `pool`               bound consts, members, ElasticPool
//!   dataflow::spec_ready_on_write `ready_on_write` on the spec chain
//!   pool::member_gate_statics   pool members         per-member gate lists
//!   restart::restart_statics    `restart:` & co.     RestartSpec, state, budget log
//!   spawn::node_spawn_fn / pool_spawn_fn             the spawn glue fn
//!   shell::emit_shell           `task:`              exit slot and task shell
//!   dataflow::derived_check     `derived`            lists against the task fn's table
//! graph::emit_graph                                  the Graph static
//!   dataflow::with_dataflow     `reads:` / `writes:` its Flow table
//! graph::trace_hooks            `trace-hooks`        executor hook symbols
//! ```

mod dataflow;
mod graph;
mod node;
mod pool;
mod restart;
mod shell;
mod spawn;
mod statics;

use proc_macro2::TokenStream;
use quote::quote;

use crate::model::Model;

fn rt() -> TokenStream {
    quote!(::embassy_supervisor)
}

fn exec() -> TokenStream {
    quote!(::embassy_supervisor::__private::embassy_executor)
}

/// The whole expansion of a checked graph.
pub fn emit(m: &Model) -> TokenStream {
    let mut out = statics::executor_statics(m);
    if let Some(sp) = m.any_local {
        out.extend(statics::local_type(m, sp));
    }
    if let Some(sp) = m.any_state {
        out.extend(statics::heap_module(m, sp));
    }
    out.extend(statics::take_slot_statics(m));
    out.extend(statics::shared_slot_statics(m));
    for u in &m.units {
        out.extend(match &u.pool {
            None => node::emit_node(m, u),
            Some(_) => pool::emit_pool(m, u),
        });
        out.extend(restart::restart_statics(u));
        out.extend(dataflow::derived_check(u));
    }
    out.extend(graph::emit_graph(m));
    // Once per binary: only the unnamed graph defines the trace hooks.
    if m.suffix.is_empty() && crate::trace_hooks_feature() {
        out.extend(graph::trace_hooks());
    }
    out
}
