//! `default executor NAME;`: every spawn the macro emits without
//! `executor:` (a `task:` shell, a named `spawn:` fn) is routed through NAME;
//! parked nodes and `spawn:` closures stay on the supervisor's executor, and
//! an explicit `executor:` wins.
#![cfg(feature = "macros")]
mod common;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::{FaultKind, NodeFault, Supervisor, TaskNode};
use embassy_time::Duration;

async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

#[embassy_executor::task(pool_size = 2)]
async fn named_task(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

embassy_supervisor::supervisor_graph! {
    default executor THREAD;
    executor OTHER;
    node EXPLICIT = Terminate, executor: OTHER, task: serve;
    node CLOSURE = Terminate, spawn: |s: Spawner| { let t = named_task(&CLOSURE)?; s.spawn(t) };
    node PARKED = Terminate;
    node ROUTED = Terminate, task: serve, deps: [EXPLICIT, CLOSURE];
    node NAMED = Terminate, spawn: named_task, deps: [ROUTED];
}

static SUP: Supervisor<5> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    OTHER.set(spawner.make_send());
    // THREAD is empty: the explicit and the closure node start, the first
    // defaulted node waits for its executor slot and fails.
    let (res, ()) = join(
        SUP.start(spawner),
        common::advance_after_idle(Duration::from_millis(200)),
    )
    .await;
    let fault = res.unwrap_err();
    assert_eq!(
        fault,
        NodeFault::new(&ROUTED, FaultKind::ExecutorUnpublished { gate: 0 })
    );
    assert_eq!(
        fault.to_string(),
        "node `ROUTED` not spawned: its executor (slot 0) was not published"
    );
    assert!(core::ptr::eq(SUP.failed_node().unwrap(), &ROUTED));
    // The app-spawned node is up without a spawn: nothing routed it.
    assert!(EXPLICIT.is_running() && CLOSURE.is_running() && PARKED.is_running());
    assert!(!ROUTED.is_running() && !NAMED.is_running());
    THREAD.set(spawner.make_send());
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    assert!(ROUTED.is_running() && NAMED.is_running());
    // No task acks for the app-spawned node: leave it out of the teardown.
    PARKED.set_detached(true);
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn default_executor_routes_what_the_macro_spawns() {
    common::run(&[&EXPLICIT, &CLOSURE, &ROUTED, &NAMED], |s| {
        s.spawn(driver(s).unwrap())
    });
}
