use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}

supervisor_graph! {
    pool WORKERS = [Terminate, OnDemand], deps: [], task: w,
        policy: Policy::new(), min: 1, max: 2;
}

fn main() {}
