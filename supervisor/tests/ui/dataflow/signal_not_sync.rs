use embassy_supervisor::{supervisor_graph, TaskNode};
async fn w(_n: &'static TaskNode) {}
/// A `Cell` is not `Sync`: no task could share it.
const LOCAL: core::cell::Cell<u32> = core::cell::Cell::new(0);

supervisor_graph! {
    node SENSOR = Terminate, task: w, writes: [LOCAL];
    node REPORT = Terminate, task: w, reads: [LOCAL];
}

fn main() {}
