use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
#[embassy_executor::task]
async fn t(_n: &'static TaskNode) {}

supervisor_graph! {
    executor HIGH;
    node A = Terminate, deps: [], executor: HIGH, spawn: |_s: embassy_executor::Spawner| Ok(());
}

fn main() {}
