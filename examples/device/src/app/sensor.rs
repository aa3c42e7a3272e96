//! SENSOR samples the board's sensor peripheral, which it keeps across a
//! pause (`Pause` mode, `resources:`); REPORT, a leaf, publishes a running
//! average once the network is ready.

use embassy_supervisor::TaskNode;
use embassy_time::{Duration, Ticker};
use portable_atomic::{AtomicU32, Ordering};

use crate::board::Sensor;

/// The last reading and how many were taken.
pub static LAST: AtomicU32 = AtomicU32::new(0);
pub static SAMPLES: AtomicU32 = AtomicU32::new(0);
/// REPORT's output: reports published.
pub static REPORTS: AtomicU32 = AtomicU32::new(0);

const PERIOD: Duration = Duration::from_millis(250);

/// SENSOR: sample every 250 ms; on a pause ack and park, still holding the
/// sensor, and carry on where it was on resume.
pub async fn sensor_worker(node: &'static TaskNode, hw: &mut Sensor) {
    loop {
        let mut ticker = Ticker::every(PERIOD);
        let _ = node
            .run_cancellable(async {
                loop {
                    LAST.store(hw.read(), Ordering::Relaxed);
                    SAMPLES.add(1, Ordering::Relaxed);
                    node.beat();
                    ticker.next().await;
                }
            })
            .await;
        node.ack_dropped();
        node.wait_resume().await;
    }
}

/// REPORT: once a second, "publish" the latest reading (counts it).
pub async fn report_worker(node: &'static TaskNode) {
    let mut ticker = Ticker::every(Duration::from_secs(1));
    let _ = node
        .run_cancellable(async {
            loop {
                ticker.next().await;
                node.beat();
                REPORTS.add(1, Ordering::Relaxed);
            }
        })
        .await;
}
