use core::sync::atomic::{AtomicU32, Ordering};
use embassy_supervisor::{derive_dataflow, TaskNode};
static SAMPLE: AtomicU32 = AtomicU32::new(0);
static BACKUP: AtomicU32 = AtomicU32::new(0);

#[derive_dataflow]
async fn sensor(node: &'static TaskNode) {
    let target = if Ordering::Relaxed == Ordering::SeqCst { &SAMPLE } else { &BACKUP };
    node.publish(target, 1);
}

fn main() {}
