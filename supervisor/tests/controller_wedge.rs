//! A Replace stop is a stop like any other: an owner that never acks it
//! makes `Supervisor::run` return a `NodeFault` (`AckMissed`) naming the node, after
//! the shutdown-ack timeout, instead of leaving the slot Terminating forever.
#![cfg(feature = "controller")]
mod common;

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::{Controller, ControllerSpec, JobTarget, SlotStatusKind};
use embassy_supervisor::{
    FaultKind, Graph, Mode, NodeSpec, SHUTDOWN_ACK_TIMEOUT, Supervisor, TaskNode,
};
use embassy_time::Duration;

/// Ignores stop requests: the wedge.
#[embassy_executor::task]
async fn stubborn(_node: &'static TaskNode) {
    core::future::pending::<()>().await
}

fn spawn_stubborn(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(stubborn(node)?);
    Ok(())
}

static JOB: TaskNode = TaskNode::new(
    &NodeSpec::new("JOB", Mode::OnDemand)
        .with_spawn(spawn_stubborn)
        .at(0),
);
static GRAPH: Graph<1> = Graph::new([Some(&JOB)], [&[]]);
static CTRL: Controller<(), 1, 2, 2, 2> = Controller::new();
static SUP: Supervisor<1> = Supervisor::new(&GRAPH).with_controller(&CTRL);
static TARGET: JobTarget<()> = JobTarget::node(&JOB);
static PAST_DEADLINE: AtomicBool = AtomicBool::new(false);

#[embassy_executor::task]
async fn script(spawner: Spawner) {
    let body = async {
        CTRL.submit(ControllerSpec::queue(&TARGET, ()))
            .await
            .unwrap();
        common::settle().await;
        assert!(JOB.is_running());
        CTRL.submit(ControllerSpec::replace(&TARGET, ()))
            .await
            .unwrap();
        common::settle().await;
        let view = CTRL.snapshot().get("JOB").unwrap();
        assert_eq!(view.status, SlotStatusKind::Terminating);
        // Just short of the ack timeout: still waiting, no error yet.
        common::advance(SHUTDOWN_ACK_TIMEOUT - Duration::from_millis(1));
        common::settle().await;
        PAST_DEADLINE.store(true, Ordering::SeqCst);
        common::advance(Duration::from_millis(2));
        core::future::pending::<()>().await
    };
    match select(SUP.run(spawner), body).await {
        Either::First(e) if e.kind == FaultKind::AckMissed => {
            assert_eq!(e.node.name, "JOB");
            assert!(
                PAST_DEADLINE.load(Ordering::SeqCst),
                "reported before the ack timeout"
            );
        }
        Either::First(other) => panic!("unexpected: {other}"),
        Either::Second(()) => unreachable!(),
    }
    common::pass();
}

#[test]
fn a_wedged_owner_under_replace_is_a_run_error_naming_it() {
    common::run(&[&JOB], |s| s.spawn(script(s).unwrap()));
}
