use core::sync::atomic::AtomicU32;
use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
static STATUS: AtomicU32 = AtomicU32::new(0);

// Two members may run at once: two writers.
supervisor_graph! {
    pool WORKER = [Terminate, OnDemand], task: w, writes: [STATUS],
        policy: embassy_supervisor::DeferredShrink::new(embassy_time::Duration::from_secs(1)),
        min: 1, max: 2;
    node REPORT = Terminate, task: w, reads: [STATUS];
}

fn main() {}
