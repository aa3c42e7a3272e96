use core::sync::atomic::{AtomicU32, Ordering};
use embassy_supervisor::derive_dataflow;
static SAMPLE: AtomicU32 = AtomicU32::new(0);

#[derive_dataflow]
async fn sensor() {
    SAMPLE.store(1, Ordering::Relaxed);
}

fn main() {}
