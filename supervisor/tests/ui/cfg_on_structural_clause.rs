use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}

supervisor_graph! {
    node A = Terminate, #[cfg(feature = "radio")] task: w;
}

fn main() {}
