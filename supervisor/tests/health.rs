//! Feature `liveness`: the health of the policed nodes (those with a beat
//! timeout): `all_fresh()`, `stale_nodes()` and `wait_health()`, on the mock
//! clock.
#![cfg(feature = "liveness")]
mod common;

use std::sync::Mutex;

use embassy_executor::Spawner;
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_time::Duration;

static A: TaskNode = TaskNode::new(
    &NodeSpec::new("A", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .with_beat_timeout(100)
        .at(0),
);
// Not policed: never stale, however long it goes without a beat.
static B: TaskNode = TaskNode::new(
    &NodeSpec::new("B", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(1),
);
static C: TaskNode = TaskNode::new(
    &NodeSpec::new("C", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .with_beat_timeout(300)
        .at(2),
);
static G: Graph<3> = Graph::new([Some(&A), Some(&B), Some(&C)], [&[], &[0], &[1]]);
static SUP: Supervisor<3> = Supervisor::new(&G);

fn stale() -> Vec<&'static str> {
    G.stale_nodes().map(|n| n.name).collect()
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[embassy_executor::task]
async fn flips(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    assert!(G.all_fresh(), "a fresh spawn counts as a beat");
    common::advance(ms(100));
    assert!(G.all_fresh(), "exactly at the timeout is still fresh");
    common::advance(ms(1));
    assert!(!G.all_fresh());
    assert_eq!(stale(), ["A"]);
    A.beat();
    assert!(G.all_fresh(), "a beat makes it fresh again");
    common::advance(ms(250));
    assert_eq!(stale(), ["A", "C"], "slot order; B has no timeout");
    // A stopped node is not policed.
    SUP.stop_node(&C).await.unwrap();
    assert_eq!(stale(), ["A"]);
    A.set_detached(true);
    assert!(G.all_fresh(), "a detached node is not policed");
    A.set_detached(false);
    SUP.teardown().await.unwrap();
    assert!(G.all_fresh(), "a torn-down graph is fresh");
    common::pass();
}

#[test]
fn all_fresh_flips_and_stale_nodes_names_the_culprits() {
    common::run(&[&A, &B, &C], |s| s.spawn(flips(s).unwrap()));
}

static REPORTS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

fn reports() -> Vec<&'static str> {
    REPORTS.lock().unwrap().clone()
}

#[embassy_executor::task]
async fn monitor() {
    loop {
        let node = G.wait_health().await;
        REPORTS.lock().unwrap().push(node.name);
    }
}

#[embassy_executor::task]
async fn reports_once_per_episode(spawner: Spawner) {
    REPORTS.lock().unwrap().clear();
    SUP.start(spawner).await.unwrap();
    spawner.spawn(monitor().unwrap());
    common::settle().await;
    common::advance(ms(100));
    common::settle().await;
    assert!(
        reports().is_empty(),
        "fresh at its timeout: {:?}",
        reports()
    );
    common::advance(ms(1));
    common::settle().await;
    assert_eq!(reports(), ["A"], "stale one tick past its timeout");

    // Still stale, long after: reported once, not again and again.
    C.beat();
    common::advance(ms(200));
    common::settle().await;
    assert_eq!(reports(), ["A"]);

    // A recovers, then stalls again: a second episode, a second report.
    A.beat();
    C.beat();
    common::settle().await;
    common::advance(ms(101));
    common::settle().await;
    assert_eq!(reports(), ["A", "A"]);

    // C, policed with its own timeout, goes stale too.
    common::advance(ms(300));
    common::settle().await;
    assert_eq!(reports(), ["A", "A", "C"]);

    // A node that is brought up again starts a fresh budget.
    SUP.teardown().await.unwrap();
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    assert_eq!(reports(), ["A", "A", "C"]);
    common::advance(ms(101));
    common::settle().await;
    assert_eq!(reports(), ["A", "A", "C", "A"]);
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn wait_health_reports_each_stale_episode_once() {
    common::run(&[&A, &B, &C], |s| {
        s.spawn(reports_once_per_episode(s).unwrap())
    });
}
