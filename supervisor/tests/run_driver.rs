//! `Supervisor::run`: bring-up, then control commands and pool scaling from one
//! loop; it returns only on error, and the error names the node.
#![cfg(all(feature = "control", feature = "pool"))]
mod common;

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::{
    ControlOp, DeferredShrink, ElasticPool, FaultKind, Graph, Mode, NodeFault, NodeSpec, Pool,
    Supervisor, TaskNode, request_control,
};
use embassy_time::Duration;

static WEDGE_UPDATER: AtomicBool = AtomicBool::new(false);

#[embassy_executor::task(pool_size = 4)]
async fn worker(node: &'static TaskNode) {
    node.wait_shutdown().await;
    if core::ptr::eq(node, &UPDATER) && WEDGE_UPDATER.load(Ordering::Acquire) {
        core::future::pending::<()>().await;
    }
    node.mark_exited();
}

macro_rules! spawner_for {
    ($f:ident, $node:expr) => {
        fn $f(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
            s.spawn(worker(&$node)?);
            Ok(())
        }
    };
}

spawner_for!(spawn_net, NET);
spawner_for!(spawn_updater, UPDATER);
spawner_for!(spawn_w0, W[0]);
spawner_for!(spawn_w1, W[1]);
static NET: TaskNode = TaskNode::new(
    &NodeSpec::new("NET", Mode::Terminate)
        .with_spawn(spawn_net)
        .at(0),
);
static UPDATER: TaskNode = TaskNode::new(
    &NodeSpec::new("UPDATER", Mode::Terminate)
        .with_spawn(spawn_updater)
        .at(1)
        .disabled(),
);
static W: [TaskNode; 2] = [
    TaskNode::new(
        &NodeSpec::new("W[0]", Mode::Terminate)
            .with_spawn(spawn_w0)
            .at(2)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W[1]", Mode::OnDemand)
            .with_spawn(spawn_w1)
            .at(3)
            .in_pool(0),
    ),
];
static W_POOL: ElasticPool<DeferredShrink> =
    ElasticPool::new(&W, 2, 1, 2, DeferredShrink::new(Duration::from_secs(1)));
static POOLS: [&dyn Pool; 1] = [&W_POOL];
static G: Graph<4> = Graph::new(
    [Some(&NET), Some(&UPDATER), Some(&W[0]), Some(&W[1])],
    [&[], &[0], &[0], &[0]],
)
.with_pools(&POOLS);
static SUP: Supervisor<4> = Supervisor::new(&G);

#[embassy_executor::task]
async fn drive(spawner: Spawner) {
    let script = async {
        common::settle().await;
        assert!(
            NET.is_running() && W[0].is_running(),
            "run() brought the graph up"
        );
        assert!(!UPDATER.is_running(), "disabled at boot");

        request_control(&UPDATER, ControlOp::Activate).await;
        common::settle().await;
        assert!(UPDATER.is_running(), "control started the disabled node");

        W[0].mark_busy();
        common::settle().await;
        assert!(W[1].is_running(), "the same loop scales the pool");
        W[0].mark_idle();

        // A wedged node turns a Deactivate into run()'s error, naming it.
        WEDGE_UPDATER.store(true, Ordering::Release);
        request_control(&UPDATER, ControlOp::Deactivate).await;
        common::advance_after_idle(Duration::from_secs(3)).await;
        core::future::pending::<()>().await
    };
    match select(SUP.run(spawner), script).await {
        Either::First(e) => assert_eq!(e, NodeFault::new(&UPDATER, FaultKind::AckMissed), "{e}"),
        Either::Second(()) => unreachable!(),
    }
    common::pass();
}

#[test]
fn run_drives_control_and_pools_and_returns_only_on_error() {
    common::run(&[&NET, &UPDATER, &W[0], &W[1]], |s| {
        s.spawn(drive(s).unwrap())
    });
}
