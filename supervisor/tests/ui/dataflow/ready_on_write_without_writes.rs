use core::sync::atomic::AtomicU32;
use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
static SAMPLE: AtomicU32 = AtomicU32::new(0);

supervisor_graph! {
    node SENSOR = Terminate, task: w, reads: [SAMPLE extern], ready_on_write;
}

fn main() {}
