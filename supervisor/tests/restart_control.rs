//! `ControlOp::Restart` (feature `control`): applied by `apply_control` and
//! by the `run()` loop, rest-for-one like `Supervisor::restart`.
#![cfg(feature = "control")]
mod common;

use common::Event::{Acked, Spawned};
use embassy_executor::Spawner;
use embassy_supervisor::{
    ControlCommand, ControlOp, FaultKind, Graph, Mode, NodeSpec, Refusal, Supervisor, TaskNode,
    request_control,
};
use embassy_time::Duration;

const fn spec(name: &'static str, at: u8) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(at)
}

// BASE <- MID <- TOP, and OTHER alone.
static BASE: TaskNode = TaskNode::new(&spec("BASE", 0));
static MID: TaskNode = TaskNode::new(&spec("MID", 1));
static TOP: TaskNode = TaskNode::new(&spec("TOP", 2));
static OTHER: TaskNode = TaskNode::new(&spec("OTHER", 3));
static G: Graph<4> = Graph::new(
    [Some(&BASE), Some(&MID), Some(&TOP), Some(&OTHER)],
    [&[], &[0], &[1], &[]],
);
static SUP: Supervisor<4> = Supervisor::new(&G);

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    let e = SUP.run(spawner).await;
    panic!("run() returned: {e}");
}

#[embassy_executor::task]
async fn through_the_mailbox(spawner: Spawner) {
    // Applied directly.
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    common::log::clear();
    let cmd = ControlCommand {
        node: &MID,
        op: ControlOp::Restart,
    };
    SUP.apply_control(cmd, spawner).await.unwrap();
    common::settle().await;
    assert_eq!(common::log::order(Acked), ["TOP", "MID"]);
    assert_eq!(common::log::order(Spawned), ["MID", "TOP"]);

    // A refused restart (a disabled node) is the verb's value, and not an
    // error of the driver (checked through `run()` below).
    SUP.deactivate(&OTHER).await.unwrap();
    common::log::clear();
    let cmd = ControlCommand {
        node: &OTHER,
        op: ControlOp::Restart,
    };
    let refused = SUP.apply_control(cmd, spawner).await.unwrap_err();
    assert_eq!(refused.kind, FaultKind::Refused(Refusal::Disabled));
    assert!(refused.is_refusal());
    assert!(common::log::events().is_empty() && !OTHER.is_running());
    SUP.activate(&OTHER, spawner).await.unwrap();

    // Through `run()`.
    spawner.spawn(driver(spawner).unwrap());
    common::settle().await;
    common::log::clear();
    request_control(&BASE, ControlOp::Restart).await;
    common::wait_until(
        || common::log::order(Spawned).len() == 3,
        Duration::from_millis(50),
    )
    .await
    .unwrap();
    assert_eq!(common::log::order(Acked), ["TOP", "MID", "BASE"]);
    assert_eq!(common::log::order(Spawned), ["BASE", "MID", "TOP"]);
    assert!(OTHER.is_running() && TOP.is_running());

    // A refused restart through `run()` is logged, and the driver goes on
    // (the driver task panics if `run()` returns): the next command applies.
    request_control(&OTHER, ControlOp::Deactivate).await;
    request_control(&OTHER, ControlOp::Restart).await;
    request_control(&OTHER, ControlOp::Activate).await;
    common::wait_until(|| OTHER.is_running(), Duration::from_millis(50))
        .await
        .unwrap();
    common::pass();
}

#[test]
fn control_restart_is_applied_by_apply_control_and_run() {
    common::run(&[&BASE, &MID, &TOP, &OTHER], |s| {
        s.spawn(through_the_mailbox(s).unwrap())
    });
}
