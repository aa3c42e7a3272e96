//! `restart:` on a pool (feature `restart`): every member gets its own
//! restart state and budget, the graph lists every member's slot, and a
//! member that ends on its own is brought back by `run()`.
#![cfg(all(feature = "macros", feature = "restart", feature = "pool"))]
mod common;

use core::sync::atomic::{AtomicU32, Ordering};

use common::Event::Started;
use embassy_executor::Spawner;
use embassy_supervisor::{DeferredShrink, RestartPolicy, Supervisor, TaskNode};
use embassy_time::Duration;

static ENDS: AtomicU32 = AtomicU32::new(1);

/// The first instance (of either member) ends at once; the rest serve.
async fn member(node: &'static TaskNode) {
    common::log::record(node, Started);
    if ENDS
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
    {
        return;
    }
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
}

embassy_supervisor::supervisor_graph! {
    node HEAD = Terminate, task: common::serve;
    pool WORKERS = [Terminate, OnDemand], task: member, deps: [HEAD],
        policy: DeferredShrink::new(Duration::from_millis(50)), min: 1, max: 2,
        restart: always, backoff: 10..10, restart_budget: 3 in 1000;
}
static SUP: Supervisor<3> = Supervisor::new(&GRAPH);

#[test]
fn each_member_has_its_own_restart_state() {
    assert_eq!(GRAPH.restarts, &[1, 2]);
    assert!(HEAD.restart_spec().is_none());
    let (a, b) = (
        WORKERS[0].restart_spec().unwrap(),
        WORKERS[1].restart_spec().unwrap(),
    );
    assert!(!core::ptr::eq(a, b));
    assert_eq!(a.policy(), RestartPolicy::Always);
    assert_eq!(b.budget(), Some((3, 1000)));
}

#[embassy_executor::task]
async fn run(spawner: Spawner) {
    let _ = SUP.run(spawner).await;
}

#[embassy_executor::task]
async fn ends_and_returns(spawner: Spawner) {
    spawner.spawn(run(spawner).unwrap());
    // The floor member ends at once; `run()` (its restart, or the pool's
    // own regrow) brings one back and it serves.
    common::wait_until(
        || common::log::count(&WORKERS[0], Started) == 2 && WORKERS[0].is_running(),
        Duration::from_millis(30),
    )
    .await
    .unwrap();
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn a_member_that_ends_comes_back() {
    common::run(&common::nodes_of(&GRAPH), |s| {
        s.spawn(ends_and_returns(s).unwrap())
    });
}
