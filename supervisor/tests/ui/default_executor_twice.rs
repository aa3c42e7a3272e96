use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}

supervisor_graph! {
    default executor THREAD;
    default executor HIGH;
    node A = Terminate, task: w;
}

fn main() {}
