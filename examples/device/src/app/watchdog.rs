//! WATCHDOG runs on the interrupt-priority executor tier, so it keeps
//! running while a thread-executor task hogs the CPU: every 250 ms it looks
//! for running nodes whose heartbeat is stale (`liveness`) and for a poll
//! that has been running too long (`trace`), and logs what it finds once.

use embassy_supervisor::{TaskNode, trace};
use embassy_time::{Duration, Ticker};
use portable_atomic::{AtomicU32, Ordering};

use super::graph::{ADMIN, CALIBRATE, GRAPH, HTTP_POOL, REPORT, SENSOR, UPDATE};
use super::log;

/// A running node that has not beaten for this long is stale.
pub const STALE_AFTER: Duration = Duration::from_secs(5);
/// A single poll longer than this is a stall.
pub const STALL: Duration = Duration::from_millis(200);

/// Bit `i`: graph slot `i` is stale (read by `/api/graph`).
pub static STALE: AtomicU32 = AtomicU32::new(0);
/// Stalls seen.
pub static STALLS: AtomicU32 = AtomicU32::new(0);

pub async fn watchdog_worker(node: &'static TaskNode) {
    let mut ticker = Ticker::every(Duration::from_millis(250));
    let _ = node
        .run_cancellable(async {
            loop {
                ticker.next().await;
                node.beat();
                let mut stale = 0u32;
                for (i, n) in GRAPH.nodes.iter().enumerate() {
                    if let Some(n) = n
                        && beats(n)
                        && n.is_stale(STALE_AFTER)
                    {
                        stale |= 1 << i;
                    }
                }
                let before = STALE.swap(stale, Ordering::AcqRel);
                for (i, n) in GRAPH.nodes.iter().enumerate() {
                    if stale & !before & (1 << i) != 0
                        && let Some(n) = n
                    {
                        log::push("stale", n.spec().name, "", 0);
                    }
                }
                if let Some(s) = trace::stalled_task(0, STALL.as_ticks() as u32) {
                    STALLS.add(1, Ordering::Relaxed);
                    log::push(
                        "stall",
                        s.node.map_or("(unsupervised)", |n| n.spec().name),
                        "",
                        0,
                    );
                }
            }
        })
        .await;
}

/// The nodes that promise a heartbeat: the HTTP workers, ADMIN, the sensor
/// pair and the job lanes. (ETH and NET only wait on the network.)
pub fn beats(n: &TaskNode) -> bool {
    let one_of = |list: &[&TaskNode]| list.iter().any(|m| core::ptr::eq(*m, n));
    HTTP_POOL.member_index(n).is_some() || one_of(&[&ADMIN, &SENSOR, &REPORT, &CALIBRATE, &UPDATE])
}
