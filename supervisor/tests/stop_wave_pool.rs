//! `deactivate`'s stop wave when a dependent's pool pulls in a member the
//! walk over the dependency order has already passed (a hand-built graph
//! whose pool members have different dependencies): that member and what
//! depends on it are still held, and the member is stopped although no
//! running dependent orders it.
#![cfg(feature = "pool")]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{
    DeferredShrink, ElasticPool, Graph, Mode, NodeSpec, Pool, Supervisor, TaskNode,
};
use embassy_time::Duration;

use common::log::Event::Acked;

// A <- P[1] ; P[0] (no deps) <- X (declared disabled) ; P = {P[0], P[1]}
// one pool.
// Dependency order: A, P[0], P[1], X. Deactivating A reaches P[1] at
// position 2 and, through its pool, P[0] at position 1: behind the walk.
static A: TaskNode = TaskNode::new(
    &NodeSpec::new("A", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static P: [TaskNode; 2] = [
    TaskNode::new(
        &NodeSpec::new("P[0]", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .at(1)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("P[1]", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .at(2)
            .in_pool(0),
    ),
];
static X: TaskNode = TaskNode::new(
    &NodeSpec::new("X", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(3)
        .disabled(),
);
static P_POOL: ElasticPool<DeferredShrink> =
    ElasticPool::new(&P, 1, 2, 2, DeferredShrink::new(Duration::from_secs(1)));
static POOLS: [&dyn Pool; 1] = [&P_POOL];
static G: Graph<4> = Graph::new(
    [Some(&A), Some(&P[0]), Some(&P[1]), Some(&X)],
    [&[], &[], &[0], &[1]],
)
.with_pools(&POOLS);
static SUP: Supervisor<4> = Supervisor::new(&G);

#[embassy_executor::task]
async fn drive(spawner: Spawner) {
    assert_eq!(G.order, [0, 1, 2, 3], "P[0] is ranked before P[1]");
    SUP.start(spawner).await.unwrap();
    assert!([&A, &P[0], &P[1]].iter().all(|n| n.is_running()));
    assert!(!X.is_running(), "X is declared disabled");

    SUP.deactivate(&A).await.unwrap();
    assert!(A.is_disabled() && !A.is_running());
    for n in [&P[0], &P[1]] {
        assert!(
            n.is_held() && !n.is_disabled() && !n.is_running(),
            "`{}` is held and down",
            n.name
        );
    }
    assert!(
        X.is_held() && X.is_disabled(),
        "X keeps its own latch, and is held"
    );
    let acked = common::log::order(Acked);
    let at = |name| acked.iter().position(|n| *n == name).unwrap();
    assert_eq!(acked.len(), 3, "every running node acked once: {acked:?}");
    assert!(at("P[1]") < at("A"), "P[1] stops before A: {acked:?}");
    common::pass();
}

#[test]
fn a_pool_member_behind_the_walk_is_still_held_and_stopped_dependents_first() {
    common::run(&[&A, &P[0], &P[1], &X], |s| s.spawn(drive(s).unwrap()));
}
