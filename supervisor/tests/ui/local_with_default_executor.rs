use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode, _d: &mut u8) {}

supervisor_graph! {
    default executor THREAD;
    node A = Terminate, task: w, resources: [D: local u8];
}

fn main() {}
