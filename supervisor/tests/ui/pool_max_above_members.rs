use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
#[embassy_executor::task]
async fn t(_n: &'static TaskNode) {}

supervisor_graph! {
    pool P = [Terminate, OnDemand], deps: [], task: w,
        policy: embassy_supervisor::DeferredShrink::new(embassy_time::Duration::from_secs(1)), min: 1, max: 3;
}

fn main() {}
