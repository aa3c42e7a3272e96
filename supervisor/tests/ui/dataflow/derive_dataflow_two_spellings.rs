use core::sync::atomic::Ordering;
use embassy_supervisor::{derive_dataflow, TaskNode};
mod a {
    pub static STATE: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);
}
mod b {
    pub static STATE: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);
}

#[derive_dataflow]
async fn sensor(node: &'static TaskNode) {
    node.publish(&a::STATE, 1);
    let _ = node.reader(&b::STATE).load(Ordering::Relaxed);
}

fn main() {}
