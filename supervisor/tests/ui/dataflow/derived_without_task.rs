use core::sync::atomic::AtomicU32;
use embassy_supervisor::supervisor_graph;
static SAMPLE: AtomicU32 = AtomicU32::new(0);

supervisor_graph! {
    node SENSOR = Terminate, derived, writes: [SAMPLE extern];
}

fn main() {}
