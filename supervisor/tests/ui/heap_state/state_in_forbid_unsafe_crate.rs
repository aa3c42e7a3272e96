// The fallible-boxing helper is `unsafe` emitted into this crate: a crate
// that forbids unsafe code is told so at the `state:` clause.
#![forbid(unsafe_code)]
use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode, _s: &mut u32) {}

supervisor_graph! {
    node A = Terminate, deps: [], task: w, state: u32 = 0;
}

fn main() {}
