// `shared local` and `shared` are one static each: a name keeps its shape.
use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode, _d: u8) {}

supervisor_graph! {
    node A = Terminate, deps: [], task: w, resources: [D: shared local u8];
    node B = Terminate, deps: [], task: w, resources: [D: shared u8];
}

fn main() {}
