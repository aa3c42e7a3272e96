//! Feature `readiness`: the `ready` dep marker holds a dependent's spawn until
//! the dependency calls `set_ready()`, bounded by the dependent's slot timeout;
//! pool growth defers while a ready-marked dependency is not ready.
#![cfg(all(feature = "readiness", feature = "pool"))]
mod common;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_futures::select::{Either, select};
use embassy_supervisor::{
    DeferredShrink, ElasticPool, FaultKind, Graph, Mode, NodeFault, NodeSpec, Pool, Supervisor,
    TaskNode,
};
use embassy_time::Duration;

static NET: TaskNode = TaskNode::new(
    &NodeSpec::new("NET", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static HTTP: TaskNode = TaskNode::new(
    &NodeSpec::new("HTTP", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(1)
        .with_slot_timeout(10_000),
);
static G: Graph<2> =
    Graph::new([Some(&NET), Some(&HTTP)], [&[], &[0]]).with_ready_deps([&[], &[0]]);
static SUP: Supervisor<2> = Supervisor::new(&G);

#[embassy_executor::task]
async fn ready_gate(spawner: Spawner) {
    // The dependent's spawn waits for readiness, then proceeds.
    let (started, ()) = join(SUP.start(spawner), async {
        common::settle().await;
        assert!(
            NET.is_running() && !HTTP.is_running(),
            "HTTP must wait for NET's set_ready"
        );
        NET.set_ready();
    })
    .await;
    started.unwrap();
    assert!(HTTP.is_running());
    assert!(NET.is_ready());

    // Readiness is status, not control: clearing it stops nobody.
    NET.clear_ready();
    common::settle().await;
    assert!(HTTP.is_running() && !NET.is_ready());

    // A respawn resets readiness: the new NET instance must assert it again,
    // and the bounded wait turns "never ready" into a fault naming the dep.
    SUP.teardown().await.unwrap();
    let (r, ()) = join(
        SUP.start(spawner),
        common::advance_after_idle(Duration::from_millis(10_001)),
    )
    .await;
    let fault = r.unwrap_err();
    assert_eq!(
        fault,
        NodeFault::new(&HTTP, FaultKind::DepNotReady { dep: &NET }),
        "never ready within slot_timeout"
    );
    assert_eq!(
        fault.to_string(),
        "node `HTTP` not spawned: its `ready` dependency `NET` did not become ready"
    );
    assert!(NET.is_running() && !NET.is_ready() && !HTTP.is_running());
    assert!(
        core::ptr::eq(SUP.failed_node().unwrap(), &HTTP),
        "failed_node names HTTP"
    );
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn ready_dep_holds_spawn_until_set_ready_then_times_out_as_busy() {
    common::run(&[&NET, &HTTP], |s| s.spawn(ready_gate(s).unwrap()));
}

static LINK: TaskNode = TaskNode::new(
    &NodeSpec::new("LINK", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static W: [TaskNode; 2] = [
    TaskNode::new(
        &NodeSpec::new("W[0]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(1)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W[1]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(2)
            .in_pool(0),
    ),
];
static W_POOL: ElasticPool<DeferredShrink> =
    ElasticPool::new(&W, 1, 0, 2, DeferredShrink::new(Duration::from_secs(1)));
static W_POOLS: [&dyn Pool; 1] = [&W_POOL];
static PG: Graph<3> = Graph::new([Some(&LINK), Some(&W[0]), Some(&W[1])], [&[], &[0], &[0]])
    .with_pools(&W_POOLS)
    .with_ready_deps([&[], &[0], &[0]]);
static PSUP: Supervisor<3> = Supervisor::new(&PG);

#[embassy_executor::task]
async fn pool_defers(spawner: Spawner) {
    PSUP.start(spawner).await.unwrap();
    W[0].mark_busy(); // demand on an empty min: 0 pool
    let script = async {
        common::settle().await;
        assert!(!W[0].is_running(), "growth defers while LINK is not ready");
        LINK.set_ready();
        common::settle().await;
        assert!(W[0].is_running(), "LINK ready: the deferred growth happens");
    };
    if let Either::First(e) = select(PSUP.run_pools(spawner), script).await {
        panic!("run_pools ended: {e}");
    }
    common::pass();
}

#[test]
fn pool_growth_defers_while_a_ready_dep_is_not_ready() {
    common::run(&[&LINK, &W[0], &W[1]], |s| s.spawn(pool_defers(s).unwrap()));
}
