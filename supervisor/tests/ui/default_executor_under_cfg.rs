use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}

supervisor_graph! {
    #[cfg(feature = "irq")]
    default executor THREAD;
    node A = Terminate, task: w;
}

fn main() {}
