//! A restart whose bring-up fails (a gate stays closed): what stays down,
//! and what brings it back (feature `restart`).
//!
//! - Manual: the fault names the node that did not come back; the
//!   dependents left down keep the collateral hold (the node itself does
//!   not), and `activate(node)` or the next restart of the node that gets
//!   through brings them back.
//! - Automatic: the failure counts as one: retried after the next backoff,
//!   against the budget; once through, the held dependents come back too.
#![cfg(all(feature = "restart", feature = "control"))]
mod common;

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_supervisor::{
    FaultKind, Gate, Graph, Mode, NodeSpec, ResourceSlot, RestartLog, RestartPolicy, RestartSpec,
    RestartState, Supervisor, TaskNode,
};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::Duration;
use portable_atomic::AtomicU32;

// SEED (gate SEED_GATE, restart: on_failure) <- MID (gate MID_GATE) <- TOP.
static SEED_GATE: ResourceSlot<()> = ResourceSlot::new();
static MID_GATE: ResourceSlot<()> = ResourceSlot::new();
static SEED_GATES: [&dyn Gate; 1] = [&SEED_GATE];
static MID_GATES: [&dyn Gate; 1] = [&MID_GATE];
static STATE: RestartState = RestartState::new();
static LOG: RestartLog<32> = [const { AtomicU32::new(0) }; 32];
static POLICY: RestartSpec = RestartSpec::new(RestartPolicy::OnFailure, &STATE)
    .with_backoff(10, 40)
    .with_budget(100_000, &LOG);
static SEED: TaskNode = TaskNode::new(
    &NodeSpec::new("SEED", Mode::Terminate)
        .with_spawn(spawn)
        .with_resources(&SEED_GATES)
        .with_slot_timeout(20)
        .with_restart(&POLICY)
        .at(0),
);
static MID: TaskNode = TaskNode::new(
    &NodeSpec::new("MID", Mode::Terminate)
        .with_spawn(spawn)
        .with_resources(&MID_GATES)
        .with_slot_timeout(20)
        .at(1),
);
static TOP: TaskNode = TaskNode::new(
    &NodeSpec::new("TOP", Mode::Terminate)
        .with_spawn(spawn)
        .at(2),
);
static NODES: [&TaskNode; 3] = [&SEED, &MID, &TOP];
static GRAPH: Graph<3> =
    Graph::new([Some(&SEED), Some(&MID), Some(&TOP)], [&[], &[0], &[1]]).with_restarts(&[0]);
static SUP: Supervisor<3> = Supervisor::new(&GRAPH);

/// Makes SEED's running instance return a failure.
static FAIL: Signal<CriticalSectionRawMutex, ()> = Signal::new();

#[embassy_executor::task(pool_size = 6)]
async fn worker(node: &'static TaskNode) {
    let stop = node.wait_shutdown();
    if core::ptr::eq(node, &SEED) {
        match embassy_futures::select::select(stop, FAIL.wait()).await {
            embassy_futures::select::Either::First(()) => {}
            embassy_futures::select::Either::Second(()) => return node.mark_failed(),
        }
    } else {
        stop.await;
    }
    node.ack_dropped();
    node.mark_exited();
}

fn spawn(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    if core::ptr::eq(node, &SEED) {
        FAIL.reset();
    }
    s.spawn(worker(node)?);
    Ok(())
}

fn up() -> [bool; 3] {
    NODES.map(|n| n.is_running())
}

fn held() -> [bool; 3] {
    NODES.map(|n| n.is_held())
}

async fn start(s: Spawner) {
    SEED_GATE.provide(());
    MID_GATE.provide(());
    SUP.start(s).await.unwrap();
    common::settle().await;
    assert_eq!(up(), [true; 3]);
}

/// Restart `node` while `gate` is empty: the gate wait times out.
async fn restart_with_closed(gate: &ResourceSlot<()>, s: Spawner) -> embassy_supervisor::NodeFault {
    let _ = gate.take();
    let (result, ()) = join(
        SUP.restart(&SEED, s),
        common::advance_after_idle(Duration::from_millis(25)),
    )
    .await;
    result.unwrap_err()
}

#[embassy_executor::task]
async fn manual(s: Spawner) {
    start(s).await;

    // The node's own spawn fails: it is down (not held), its dependents
    // are down and held.
    let fault = restart_with_closed(&SEED_GATE, s).await;
    assert!(core::ptr::eq(fault.node, &SEED));
    assert_eq!(fault.kind, FaultKind::ResourceEmpty { gate: 0 });
    assert_eq!(up(), [false; 3]);
    assert_eq!(held(), [false, true, true]);
    // `start` leaves the held dependents down, as it does after a deactivate.
    SEED_GATE.provide(());
    SUP.start(s).await.unwrap();
    assert_eq!(up(), [true, false, false]);
    // `activate(node)` brings them back.
    SUP.activate(&SEED, s).await.unwrap();
    common::settle().await;
    assert_eq!(up(), [true; 3]);
    assert_eq!(held(), [false; 3]);

    // Again; this time the next restart that gets through brings them back.
    let fault = restart_with_closed(&SEED_GATE, s).await;
    assert!(core::ptr::eq(fault.node, &SEED));
    assert_eq!(held(), [false, true, true]);
    SEED_GATE.provide(());
    SUP.restart(&SEED, s).await.unwrap();
    common::settle().await;
    assert_eq!(up(), [true; 3]);
    assert_eq!(held(), [false; 3]);

    // A dependent's spawn fails: the node is back, the dependent and what
    // needs it are down and held; the next restart brings them back.
    let fault = restart_with_closed(&MID_GATE, s).await;
    assert!(core::ptr::eq(fault.node, &MID));
    assert_eq!(up(), [true, false, false]);
    assert_eq!(held(), [false, true, true]);
    MID_GATE.provide(());
    SUP.restart(&SEED, s).await.unwrap();
    common::settle().await;
    assert_eq!(up(), [true; 3]);
    assert_eq!(held(), [false; 3]);

    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn a_manual_restart_that_fails_leaves_the_dependents_held_until_activate_or_the_next_restart() {
    common::run(&NODES, |s| s.spawn(manual(s).unwrap()));
}

#[embassy_executor::task]
async fn driver(s: Spawner) {
    let fault = SUP.run(s).await;
    panic!("run() returned: {fault}");
}

#[embassy_executor::task]
async fn automatic(s: Spawner) {
    SEED_GATE.provide(());
    MID_GATE.provide(());
    s.spawn(driver(s).unwrap());
    common::settle().await;
    assert_eq!(up(), [true; 3]);
    let before = POLICY.restarts();

    // SEED fails while its gate is empty: the restart fails, counts, and is
    // retried after the next backoff, each try counting against the budget.
    let _ = SEED_GATE.take();
    FAIL.signal(());
    common::settle().await;
    // Backoff 10 ms, then a 20 ms gate wait that fails; next backoff 20 ms.
    common::advance_in_steps(Duration::from_millis(60), Duration::from_millis(1)).await;
    let tries = POLICY.restarts() - before;
    assert!(tries >= 2, "retried after its failure: {tries} tries");
    assert_eq!(up(), [false; 3]);
    assert_eq!(held(), [false, true, true]);
    // Once the gate fills, the next retry brings SEED and its dependents back.
    SEED_GATE.provide(());
    common::wait_until(|| up() == [true; 3], Duration::from_millis(200))
        .await
        .unwrap();
    assert_eq!(held(), [false; 3]);

    // A dependent fails to come back: SEED is up, MID and TOP held; the
    // driver restarts SEED again after the backoff, and once MID's gate is
    // back everything is up.
    let _ = MID_GATE.take();
    let before = POLICY.restarts();
    FAIL.signal(());
    common::advance_in_steps(Duration::from_millis(200), Duration::from_millis(1)).await;
    assert_eq!(up(), [true, false, false]);
    // TOP stays held; MID is too, except while a retry waits for its gate.
    assert!(TOP.is_held());
    let tries = POLICY.restarts() - before;
    assert!(tries >= 2, "SEED restarted again for MID: {tries} tries");
    MID_GATE.provide(());
    common::wait_until(|| up() == [true; 3], Duration::from_millis(200))
        .await
        .unwrap();
    assert_eq!(held(), [false; 3]);
    common::pass();
}

#[test]
fn an_automatic_restart_that_fails_is_retried_and_brings_the_dependents_back() {
    common::run(&NODES, |s| s.spawn(automatic(s).unwrap()));
}
