use core::sync::atomic::AtomicU32;
use embassy_supervisor::{supervisor_graph, TaskNode};
static SAMPLE: AtomicU32 = AtomicU32::new(0);

async fn sensor(node: &'static TaskNode) {
    node.publish(&SAMPLE, 1);
}

supervisor_graph! {
    node SENSOR = Terminate, task: sensor, derived, writes: [SAMPLE extern];
}

fn main() {}
