// The init expression is checked against the declared type.
use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode, _s: &mut u32) {}

supervisor_graph! {
    node A = Terminate, deps: [], task: w, state: u32 = "zero";
}

fn main() {}
