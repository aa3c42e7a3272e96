use core::sync::atomic::{AtomicU32, Ordering};
use embassy_supervisor::{derive_dataflow, supervisor_graph, TaskNode};
static SAMPLE: AtomicU32 = AtomicU32::new(0);
static BACKUP: AtomicU32 = AtomicU32::new(0);

#[derive_dataflow]
async fn sensor(node: &'static TaskNode) {
    node.publish(&SAMPLE, 1);
}
#[derive_dataflow]
async fn report(node: &'static TaskNode) {
    let _ = node.reader(&SAMPLE).load(Ordering::Relaxed);
}

supervisor_graph! {
    node SENSOR = Terminate, task: sensor, derived, writes: [SAMPLE, BACKUP extern];
    node REPORT = Terminate, task: report, derived, reads: [SAMPLE];
}

fn main() {}
