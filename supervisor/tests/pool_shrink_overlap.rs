//! A pool shrink's ack is awaited across `run()`'s waits, not inside its
//! pool pass: while a member takes its time to ack, `run()` still applies
//! control commands, and a member that never acks still ends `run()` with
//! its `AckMissed` once its window closes.
#![cfg(all(feature = "control", feature = "pool"))]
mod common;

use embassy_executor::Spawner;
use embassy_futures::select::{Either, select};
use embassy_supervisor::{
    ControlOp, DeferredShrink, ElasticPool, FaultKind, Graph, Mode, NodeSpec, Pool, Supervisor,
    TaskNode, request_control,
};
use embassy_time::Duration;

// ---- LAMP (independent) ; NET -> WORKERS[2] (a pool, 1..=2) ---------------
static LAMP: TaskNode = TaskNode::new(
    &NodeSpec::new("LAMP", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static NET: TaskNode = TaskNode::new(
    &NodeSpec::new("NET", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(1),
);
static WORKERS: [TaskNode; 2] = [
    TaskNode::new(
        &NodeSpec::new("WORKERS[0]", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .at(2)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("WORKERS[1]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .with_ack_timeout(1_000)
            .at(3)
            .in_pool(0),
    ),
];
static WORKERS_POOL: ElasticPool<DeferredShrink> = ElasticPool::new(
    &WORKERS,
    2,
    1,
    2,
    DeferredShrink::new(Duration::from_millis(100)),
);
static POOLS: [&dyn Pool; 1] = [&WORKERS_POOL];
static GRAPH: Graph<4> = Graph::new(
    [
        Some(&LAMP),
        Some(&NET),
        Some(&WORKERS[0]),
        Some(&WORKERS[1]),
    ],
    [&[], &[], &[1], &[1]],
)
.with_pools(&POOLS);
static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn control_goes_on_while_a_shrink_awaits_its_ack(spawner: Spawner) {
    let script = async {
        common::settle().await;
        assert!(LAMP.is_running() && NET.is_running() && WORKERS[0].is_running());
        // Load grows the pool by its second member.
        WORKERS[0].mark_busy();
        common::settle().await;
        assert!(WORKERS[1].is_running(), "the pool grew");

        // The second member will not ack its stop; the load goes, and after
        // the policy's delay the pool asks it to stop.
        common::fault::ignore_stop(&WORKERS[1]);
        WORKERS[0].mark_idle();
        common::settle().await;
        common::advance(Duration::from_millis(150));
        common::settle().await;
        assert!(
            WORKERS[1].is_running() && WORKERS[1].shutdown_requested(),
            "the shrink asked the member, whose ack is pending"
        );

        // Its ack window is open: a control command is applied meanwhile,
        // not after the window.
        request_control(&LAMP, ControlOp::Deactivate).await;
        common::settle().await;
        assert!(
            LAMP.is_disabled() && !LAMP.is_running(),
            "the command was applied while the shrink's ack is pending"
        );
        assert!(NET.is_running() && WORKERS[0].is_running());

        // The window closes: the miss is `run()`'s value.
        common::advance(Duration::from_millis(1_100));
        core::future::pending::<()>().await
    };
    match select(SUP.run(spawner), script).await {
        Either::First(e) => {
            assert!(matches!(e.kind, FaultKind::AckMissed), "{e}");
            assert_eq!(e.node.name, "WORKERS[1]", "the member that missed its ack");
        }
        Either::Second(()) => unreachable!("the script never ends"),
    }
    common::pass();
}

#[test]
fn a_shrink_awaiting_its_ack_holds_up_no_control_command() {
    common::run(&[&LAMP, &NET, &WORKERS[0], &WORKERS[1]], |s| {
        s.spawn(control_goes_on_while_a_shrink_awaits_its_ack(s).unwrap())
    });
}
