// A `shared local` slot stays on one core: a provider's stop may not clear it.
use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
async fn c(_n: &'static TaskNode, _h: u8) {}

supervisor_graph! {
    node P = Terminate, deps: [], task: w, provides: [H];
    node C = Terminate, deps: [P], task: c, resources: [H: shared local u8];
}

fn main() {}
