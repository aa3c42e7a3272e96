use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
fn lora_on() -> bool {
    true
}

supervisor_graph! {
    pool P = [Terminate, OnDemand], task: w, enabled_if: lora_on,
        policy: embassy_supervisor::DeferredShrink::new(embassy_time::Duration::from_secs(1)),
        min: 1, max: 2;
}

fn main() {}
