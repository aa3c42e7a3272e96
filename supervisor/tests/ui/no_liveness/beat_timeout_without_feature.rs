use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}

supervisor_graph! {
    node PUMP = Terminate, task: w, beat_timeout: 500;
}

fn main() {}
