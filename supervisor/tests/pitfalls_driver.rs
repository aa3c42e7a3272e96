//! Regression tests for /work/shared/design/pitfalls.md items 10–12 (items 8
//! and 9 live in pool_policy.rs and pool_driver.rs).
#![cfg(all(feature = "control", feature = "pool"))]
mod common;

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::{
    ControlOp, ControlQueueFull, Decision, ElasticPool, Graph, Mode, NodeSpec, Pool, PoolAction,
    PoolLoad, ScalingPolicy, Supervisor, TaskNode, request_control, try_request_control,
    wait_control,
};
use embassy_time::Instant;

/// A policy whose decision is stale by construction: it always says Shrink,
/// whatever the load. The driver must still stop only an idle member.
struct AlwaysShrink;
impl ScalingPolicy for AlwaysShrink {
    fn decide(&mut self, _: PoolLoad, _: Instant) -> Decision {
        Decision {
            action: PoolAction::Shrink,
            recheck_at: None,
        }
    }
}

/// A policy that grows whenever below max (demand is assumed).
struct AlwaysGrow;
impl ScalingPolicy for AlwaysGrow {
    fn decide(&mut self, l: PoolLoad, _: Instant) -> Decision {
        let action = if l.running < l.max {
            PoolAction::Grow
        } else {
            PoolAction::Hold
        };
        Decision {
            action,
            recheck_at: None,
        }
    }
}

#[embassy_executor::task(pool_size = 4)]
async fn member(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

fn spawn_s0(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(member(&SHRINK[0])?);
    Ok(())
}
fn spawn_s1(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(member(&SHRINK[1])?);
    Ok(())
}
fn spawn_g0(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(member(&GROW[0])?);
    Ok(())
}
fn spawn_g1(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(member(&GROW[1])?);
    Ok(())
}

static SHRINK: [TaskNode; 2] = [
    TaskNode::new(
        &NodeSpec::new("SHRINK[0]", Mode::Terminate)
            .with_spawn(spawn_s0)
            .at(0)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("SHRINK[1]", Mode::Terminate)
            .with_spawn(spawn_s1)
            .at(1)
            .in_pool(0),
    ),
];
static SHRINK_POOL: ElasticPool<AlwaysShrink> = ElasticPool::new(&SHRINK, 0, 0, 2, AlwaysShrink);
static SHRINK_POOLS: [&dyn Pool; 1] = [&SHRINK_POOL];
static SHRINK_GRAPH: Graph<2> =
    Graph::new([Some(&SHRINK[0]), Some(&SHRINK[1])], [&[], &[]]).with_pools(&SHRINK_POOLS);
static SHRINK_SUP: Supervisor<2> = Supervisor::new(&SHRINK_GRAPH);

#[embassy_executor::task]
async fn shrink_rechecks(spawner: Spawner) {
    SHRINK_SUP.start(spawner).await.unwrap();
    // Both members turn busy: a shrink decided from an older view must not
    // stop either of them.
    SHRINK[0].mark_busy();
    SHRINK[1].mark_busy();
    let script = async {
        common::settle().await;
        assert!(
            SHRINK[0].is_running() && SHRINK[1].is_running(),
            "a busy member was stopped"
        );
        assert!(!SHRINK[0].shutdown_requested() && !SHRINK[1].shutdown_requested());
        // One turns idle: now exactly that one may go.
        SHRINK[1].mark_idle();
        common::settle().await;
        assert!(SHRINK[0].is_running(), "the busy member stays");
        assert!(!SHRINK[1].is_running(), "the idle member is shrunk");
    };
    if let Either::First(e) = select(SHRINK_SUP.run_pools(spawner), script).await {
        panic!("run_pools ended: {e}");
    }
    common::pass();
}

/// Pitfall 12: shrink re-checks idleness in the same step that stops.
#[test]
fn pitfall_12_shrink_rechecks_idleness_before_stopping() {
    common::run(&[&SHRINK[0], &SHRINK[1]], |s| {
        s.spawn(shrink_rechecks(s).unwrap())
    });
}

// Slot 0 is a node removed by `#[cfg]` (None); the pool still lists it as a
// dependency, as a graph without a per-dep cfg would.
static GROW: [TaskNode; 2] = [
    TaskNode::new(
        &NodeSpec::new("GROW[0]", Mode::OnDemand)
            .with_spawn(spawn_g0)
            .at(1)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("GROW[1]", Mode::OnDemand)
            .with_spawn(spawn_g1)
            .at(2)
            .in_pool(0),
    ),
];
static GROW_POOL: ElasticPool<AlwaysGrow> = ElasticPool::new(&GROW, 1, 0, 2, AlwaysGrow);
static GROW_POOLS: [&dyn Pool; 1] = [&GROW_POOL];
static GROW_GRAPH: Graph<3> =
    Graph::new([None, Some(&GROW[0]), Some(&GROW[1])], [&[], &[0], &[0]]).with_pools(&GROW_POOLS);
static GROW_SUP: Supervisor<3> = Supervisor::new(&GROW_GRAPH);

#[embassy_executor::task]
async fn removed_dependency(spawner: Spawner) {
    GROW_SUP.start(spawner).await.unwrap();
    let script = async {
        common::settle().await;
        assert!(
            GROW[0].is_running() && GROW[1].is_running(),
            "a removed dependency blocked growth"
        );
    };
    if let Either::First(e) = select(GROW_SUP.run_pools(spawner), script).await {
        panic!("run_pools ended: {e}");
    }
    common::pass();
}

/// Pitfall 11: a dependency on a `#[cfg]`-removed node does not block growth.
#[test]
fn pitfall_11_cfg_removed_dependency_does_not_block_growth() {
    common::run(&[&GROW[0], &GROW[1]], |s| {
        s.spawn(removed_dependency(s).unwrap())
    });
}

static MAILBOX_NODE: TaskNode = TaskNode::new(&NodeSpec::new("MAILBOX_NODE", Mode::Terminate));

#[embassy_executor::task]
async fn mailbox_never_drops(_spawner: Spawner) {
    // Drain anything an earlier test left (the mailbox is crate-global).
    while embassy_futures::poll_once(wait_control()).is_ready() {}
    for _ in 0..embassy_supervisor::CONTROL_QUEUE_DEPTH {
        try_request_control(&MAILBOX_NODE, ControlOp::Activate).unwrap();
    }
    assert_eq!(
        try_request_control(&MAILBOX_NODE, ControlOp::Deactivate),
        Err(ControlQueueFull)
    );
    // The awaiting form waits for room instead of dropping.
    let mut send = core::pin::pin!(request_control(&MAILBOX_NODE, ControlOp::Deactivate));
    assert!(
        embassy_futures::poll_once(send.as_mut()).is_pending(),
        "a full mailbox must make the sender wait"
    );
    let first = wait_control().await;
    assert_eq!(first.op, ControlOp::Activate);
    send.await;
    let mut ops = Vec::new();
    for _ in 0..embassy_supervisor::CONTROL_QUEUE_DEPTH {
        ops.push(wait_control().await.op);
    }
    assert_eq!(
        ops,
        [
            ControlOp::Activate,
            ControlOp::Activate,
            ControlOp::Activate,
            ControlOp::Deactivate
        ],
        "every accepted command arrives, in order"
    );
    common::pass();
}

/// Pitfall 10: a full mailbox is `ControlQueueFull` (sync) or a wait (async),
/// never a silent drop.
#[test]
fn pitfall_10_full_mailbox_refuses_or_waits_never_drops() {
    common::run(&[], |s| s.spawn(mailbox_never_drops(s).unwrap()));
}
