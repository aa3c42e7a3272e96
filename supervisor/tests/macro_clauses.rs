//! DSL ergonomics on the host harness: clauses in any order after the item's
//! head, `deps:` optional (empty), and `#[cfg]` gates on value clauses.
#![cfg(all(feature = "macros", feature = "pool"))]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{DEFAULT_SLOT_TIMEOUT, DeferredShrink, Supervisor, TaskNode};
use embassy_time::Duration;

async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

// `cfg(all())` always holds, `cfg(any())` never does.
embassy_supervisor::supervisor_graph! {
    node BASE = Terminate, task: serve;
    node LATE = Terminate, task: serve, slot_timeout: 250, deps: [BASE];
    node GATED_ON = Terminate, #[cfg(all())] slot_timeout: 300, task: serve, deps: [LATE];
    node GATED_OFF = Terminate, #[cfg(any())] slot_timeout: 300, #[cfg(any())] disabled,
        task: serve;
    node OFF = Terminate, #[cfg(all())] disabled, task: serve;
    pool WORKERS = [Terminate, OnDemand], max: 2, min: 1, task: serve,
        policy: DeferredShrink::new(Duration::from_secs(1)), deps: [LATE];
}

static SUP: Supervisor<7> = Supervisor::new(&GRAPH);

#[test]
fn gated_values_follow_their_cfg() {
    assert_eq!(LATE.slot_timeout(), Duration::from_millis(250));
    assert_eq!(GATED_ON.slot_timeout(), Duration::from_millis(300));
    assert_eq!(GATED_OFF.slot_timeout(), DEFAULT_SLOT_TIMEOUT);
    assert!(OFF.is_disabled() && !GATED_OFF.is_disabled());
}

#[test]
fn deps_anywhere_or_absent() {
    let deps_of = |n: &TaskNode| GRAPH.deps[GRAPH.index_of(n).unwrap()];
    assert!(deps_of(&BASE).is_empty() && deps_of(&GATED_OFF).is_empty());
    let base = GRAPH.index_of(&BASE).unwrap() as u8;
    let late = GRAPH.index_of(&LATE).unwrap() as u8;
    assert_eq!(deps_of(&LATE), [base]);
    assert_eq!(deps_of(&GATED_ON), [late]);
    assert_eq!(deps_of(&WORKERS[0]), [late]);
    assert!(GRAPH.rank(base as usize) < GRAPH.rank(late as usize));
}

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    for n in [&BASE, &LATE, &GATED_ON, &GATED_OFF, &WORKERS[0]] {
        assert!(n.is_running(), "{} is down", n.name);
    }
    assert!(!OFF.is_running() && !WORKERS[1].is_running());
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn the_graph_runs_in_dependency_order() {
    let nodes: [&'static TaskNode; 7] = [
        &BASE,
        &LATE,
        &GATED_ON,
        &GATED_OFF,
        &OFF,
        &WORKERS[0],
        &WORKERS[1],
    ];
    common::run(&nodes, |s| s.spawn(driver(s).unwrap()));
}
