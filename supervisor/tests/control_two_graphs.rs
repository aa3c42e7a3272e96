//! Two graphs in one binary, each driven by its own `run()`: the control
//! mailbox is shared, and each driver takes only its own graph's commands.
//! Before, whichever driver woke first took the oldest command and, if it
//! named the other graph's node, dropped it.
#![cfg(feature = "control")]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{ControlOp, Graph, Mode, NodeSpec, Supervisor, TaskNode, request_control};
use embassy_time::Duration;

use common as kit;

static A: TaskNode = TaskNode::new(
    &NodeSpec::new("A", Mode::Terminate)
        .with_spawn(kit::spawn_worker)
        .disabled(),
);
static GRAPH_A: Graph<1> = Graph::new([Some(&A)], [&[]]);
static SUP_A: Supervisor<1> = Supervisor::new(&GRAPH_A);

static B: TaskNode = TaskNode::new(
    &NodeSpec::new("B", Mode::Terminate)
        .with_spawn(kit::spawn_worker)
        .disabled(),
);
static GRAPH_B: Graph<1> = Graph::new([Some(&B)], [&[]]);
static SUP_B: Supervisor<1> = Supervisor::new(&GRAPH_B);

#[embassy_executor::task]
async fn drive_a(spawner: Spawner) {
    let e = SUP_A.run(spawner).await;
    panic!("graph A's driver returned: {e}");
}

#[embassy_executor::task]
async fn drive_b(spawner: Spawner) {
    let e = SUP_B.run(spawner).await;
    panic!("graph B's driver returned: {e}");
}

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    // A's driver is spawned (and so polled) first: with a shared take-any
    // mailbox it would take B's command.
    spawner.spawn(drive_a(spawner).unwrap());
    spawner.spawn(drive_b(spawner).unwrap());
    kit::settle().await;
    assert!(!A.is_running() && !B.is_running(), "both start disabled");

    request_control(&B, ControlOp::Activate).await;
    kit::wait_until(|| B.is_running(), Duration::from_millis(50))
        .await
        .expect("B's own driver applied B's command");
    assert!(!A.is_running(), "A's driver did not act on B's command");

    // Interleaved commands for both graphs: each lands, in its graph's order.
    request_control(&A, ControlOp::Activate).await;
    request_control(&B, ControlOp::Deactivate).await;
    request_control(&A, ControlOp::Deactivate).await;
    request_control(&B, ControlOp::Activate).await;
    kit::wait_until(
        || !A.is_running() && A.is_disabled() && B.is_running(),
        Duration::from_millis(50),
    )
    .await
    .expect("every command reached its own graph's driver");
    kit::pass();
}

#[test]
fn each_run_takes_only_its_own_graphs_commands() {
    kit::run(&[&A, &B], |s| s.spawn(driver(s).unwrap()));
}
