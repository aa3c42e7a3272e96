//! A stalled `restart: on_failure` worker (no beat within its
//! `beat_timeout:`) is stopped and restarted by `run()`, and the watchdog
//! feed gate (`all_fresh`) flips with it (features `restart`, `liveness`).
#![cfg(all(feature = "macros", feature = "restart", feature = "liveness"))]
mod common;

use core::sync::atomic::{AtomicBool, Ordering};

use common::Event::Started;
use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode};
use embassy_time::{Duration, Timer};

static BEATING: AtomicBool = AtomicBool::new(true);

/// Beats every 10 ms (`PUMP` only while `BEATING`); a stop aborts it.
async fn pump(node: &'static TaskNode) {
    common::log::record(node, Started);
    let _ = node
        .run_cancellable_acked(async {
            loop {
                Timer::after(Duration::from_millis(10)).await;
                if BEATING.load(Ordering::SeqCst) || node.name == "IDLE" {
                    node.beat();
                }
            }
        })
        .await;
}

embassy_supervisor::supervisor_graph! {
    node PUMP = Terminate, task: pump, beat_timeout: 50, restart: on_failure,
        backoff: 5..5;
    node IDLE = Terminate, task: pump, beat_timeout: 50;
}
static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn run(spawner: Spawner) {
    let _ = SUP.run(spawner).await;
}

#[embassy_executor::task]
async fn stall(spawner: Spawner) {
    spawner.spawn(run(spawner).unwrap());
    common::wait_until(|| PUMP.is_running(), Duration::from_millis(5))
        .await
        .unwrap();
    // Beating: nothing happens for a while.
    common::wait_until(|| false, Duration::from_millis(100))
        .await
        .unwrap_err();
    assert_eq!(common::log::count(&PUMP, Started), 1);
    assert!(GRAPH.all_fresh());
    // Stalls: stale after 50 ms, restarted 5 ms later.
    BEATING.store(false, Ordering::SeqCst);
    common::wait_until(|| !GRAPH.all_fresh(), Duration::from_millis(70))
        .await
        .unwrap();
    BEATING.store(true, Ordering::SeqCst);
    common::wait_until(
        || common::log::count(&PUMP, Started) == 2,
        Duration::from_millis(10),
    )
    .await
    .unwrap();
    assert!(PUMP.is_running());
    assert!(GRAPH.all_fresh());
    // IDLE, without a policy, was never touched.
    assert_eq!(common::log::count(&IDLE, Started), 1);
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn a_stalled_worker_is_restarted_by_the_monitor() {
    common::run(&common::nodes_of(&GRAPH), |s| s.spawn(stall(s).unwrap()));
}
