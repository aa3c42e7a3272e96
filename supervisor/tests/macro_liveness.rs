//! `beat_timeout:` in the DSL (feature `liveness`): the value lands on the
//! node's spec (under its `#[cfg]` gate too, as every value clause), and a
//! DSL worker that stops beating is reported by `wait_health()`.
#![cfg(all(feature = "macros", feature = "liveness"))]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode};
use embassy_time::Duration;

async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

// `cfg(all())` always holds, `cfg(any())` never does.
embassy_supervisor::supervisor_graph! {
    node PUMP = Terminate, task: serve, beat_timeout: 250;
    node VALVE = Terminate, task: serve, #[cfg(all())] beat_timeout: 400, deps: [PUMP];
    node LAMP = Terminate, task: serve, #[cfg(any())] beat_timeout: 400;
    node LOG = Terminate, task: serve;
}

static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

#[test]
fn beat_timeouts_follow_their_cfg() {
    assert_eq!(PUMP.beat_timeout(), Some(Duration::from_millis(250)));
    assert_eq!(VALVE.beat_timeout(), Some(Duration::from_millis(400)));
    assert_eq!(LAMP.beat_timeout(), None);
    assert_eq!(LOG.beat_timeout(), None);
}

#[embassy_executor::task]
async fn stall(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::advance(Duration::from_millis(200));
    PUMP.beat();
    let stale = embassy_futures::join::join(GRAPH.wait_health(), async {
        common::advance_after_idle(Duration::from_millis(201)).await;
    })
    .await
    .0;
    // VALVE's budget ran out first (401 ms since its spawn; PUMP beat 201 ms ago).
    assert_eq!(stale.name, "VALVE");
    assert_eq!(
        GRAPH.stale_nodes().map(|n| n.name).collect::<Vec<_>>(),
        ["VALVE"]
    );
    assert!(!GRAPH.all_fresh());
    SUP.teardown().await.unwrap();
    assert!(GRAPH.all_fresh());
    common::pass();
}

#[test]
fn a_dsl_worker_that_stops_beating_is_reported() {
    common::run(&[&PUMP, &VALVE, &LAMP, &LOG], |s| {
        s.spawn(stall(s).unwrap())
    });
}
