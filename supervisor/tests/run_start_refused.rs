//! `Supervisor::run`: a refusal in its initial `start` (here a `deactivate`
//! latching a node while it waits for its resource) is logged, and the loop
//! goes on driving control commands.
#![cfg(feature = "control")]
mod common;

use std::sync::Mutex;

use embassy_executor::Spawner;
use embassy_supervisor::{
    ControlOp, Gate, Graph, Mode, NodeFault, NodeSpec, ResourceSlot, Supervisor, TaskNode,
    request_control,
};

static SLOT: ResourceSlot<()> = ResourceSlot::new();
static GATES: [&dyn Gate; 1] = [&SLOT];
static FREE: TaskNode = TaskNode::new(
    &NodeSpec::new("FREE", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static GATED: TaskNode = TaskNode::new(
    &NodeSpec::new("GATED", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .with_resources(&GATES)
        .with_slot_timeout(1000)
        .at(1),
);
static G: Graph<2> = Graph::new([Some(&FREE), Some(&GATED)], [&[], &[]]);
static SUP: Supervisor<2> = Supervisor::new(&G);
static RESULT: Mutex<Option<NodeFault>> = Mutex::new(None);

#[embassy_executor::task]
async fn run_sup(spawner: Spawner) {
    let fault = SUP.run(spawner).await;
    *RESULT.lock().unwrap() = Some(fault.fault());
}

#[embassy_executor::task]
async fn drive(spawner: Spawner) {
    spawner.spawn(run_sup(spawner).unwrap());
    common::settle().await;
    assert!(
        FREE.is_running() && !GATED.is_running(),
        "GATED waits for SLOT"
    );
    // Latched while its bring-up waits: that bring-up is refused when the
    // slot fills.
    SUP.deactivate(&GATED).await.unwrap();
    SLOT.provide(());
    common::settle().await;
    assert!(GATED.is_disabled() && !GATED.is_running());
    assert_eq!(
        *RESULT.lock().unwrap(),
        None,
        "run() goes on after the refusal"
    );
    // The loop still serves commands.
    request_control(&GATED, ControlOp::Activate).await;
    common::settle().await;
    assert!(GATED.is_running(), "run() applied the Activate");
    assert_eq!(*RESULT.lock().unwrap(), None);
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn a_refused_initial_start_does_not_end_run() {
    common::run(&[&FREE, &GATED], |s| s.spawn(drive(s).unwrap()));
}
