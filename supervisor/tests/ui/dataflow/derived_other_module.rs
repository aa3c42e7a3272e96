use embassy_supervisor::{derive_dataflow, supervisor_graph, TaskNode};

mod a {
    pub static STATE: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);
}
mod b {
    pub static STATE: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);
}

/// Writes `a::STATE`; the node below lists `b::STATE`, which ends alike:
/// the check compares more than the last segment, so both sides disagree.
#[derive_dataflow]
async fn sensor(node: &'static TaskNode) {
    node.publish(&a::STATE, 1);
}

supervisor_graph! {
    node SENSOR = Terminate, task: sensor, derived, writes: [b::STATE extern];
}

fn main() {}
