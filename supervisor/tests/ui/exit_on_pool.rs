use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
#[embassy_executor::task]
async fn t(_n: &'static TaskNode) {}

supervisor_graph! {
    pool P = [Terminate, OnDemand], deps: [], task: w, exit: u8,
        policy: embassy_supervisor::DeferredShrink::new(embassy_time::Duration::from_secs(1)), min: 1, max: 2;
}

fn main() {}
