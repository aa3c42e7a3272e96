use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
#[embassy_executor::task]
async fn t(_n: &'static TaskNode) {}

supervisor_graph! {
    node A = Terminate, deps: [], task: w, state: u32 = 0;
}

fn main() {}
