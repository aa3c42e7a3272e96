use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}

supervisor_graph! {
    node NET = Terminate, deps: [], task: w;
    node HTTP = Terminate, deps: [NET ready], task: w;
}

fn main() {}
