//! Regressions the restart model (`restart_model.rs`) found: a bring-up
//! racing a stop wave put a dependent back on a node the wave stopped next.
//! Each test stages one interleaving by hand: `SLOW` acks only when told,
//! which keeps a wave waiting before it reaches `BASE`.
//!
//! Every stop ack records the dependents still running at that moment; none
//! may be.
mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_supervisor::{
    FaultKind, Gate, Graph, Mode, NodeSpec, Refusal, ResourceSlot, Supervisor, TaskNode,
};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;

// BASE <- P (Pause), BASE <- SLOW <- U, BASE <- G (gate GATE) <- S.
const DEPS: [&[u8]; 6] = [&[], &[0], &[0], &[0], &[3], &[2]];
static GATE: ResourceSlot<()> = ResourceSlot::new();
static G_GATES: [&dyn Gate; 1] = [&GATE];
static BASE: TaskNode = TaskNode::new(
    &NodeSpec::new("BASE", Mode::Terminate)
        .with_spawn(spawn_worker)
        .at(0),
);
static P: TaskNode = TaskNode::new(
    &NodeSpec::new("P", Mode::Pause)
        .with_spawn(spawn_worker)
        .at(1),
);
static SLOW: TaskNode = TaskNode::new(
    &NodeSpec::new("SLOW", Mode::Terminate)
        .with_spawn(spawn_worker)
        .with_ack_timeout(10_000)
        .at(2),
);
static G: TaskNode = TaskNode::new(
    &NodeSpec::new("G", Mode::Terminate)
        .with_spawn(spawn_worker)
        .with_resources(&G_GATES)
        .with_slot_timeout(50)
        .at(3),
);
static S: TaskNode = TaskNode::new(
    &NodeSpec::new("S", Mode::Terminate)
        .with_spawn(spawn_worker)
        .at(4),
);
static U: TaskNode = TaskNode::new(
    &NodeSpec::new("U", Mode::Terminate)
        .with_spawn(spawn_worker)
        .at(5),
);
static NODES: [&TaskNode; 6] = [&BASE, &P, &SLOW, &G, &S, &U];
static GRAPH: Graph<6> = Graph::new(
    [
        Some(&BASE),
        Some(&P),
        Some(&SLOW),
        Some(&G),
        Some(&S),
        Some(&U),
    ],
    DEPS,
);
static SUP: Supervisor<6> = Supervisor::new(&GRAPH);

/// Lets `SLOW` ack its stop.
static ACK_SLOW: Signal<CriticalSectionRawMutex, ()> = Signal::new();
/// Per stop ack: the node, and its dependents running at that moment.
static ACKS: Mutex<Vec<(&str, Vec<&str>)>> = Mutex::new(Vec::new());
/// Set for a test's final teardown.
static LAST: AtomicBool = AtomicBool::new(false);
/// Every spawn (not resume), by name.
static SPAWNS: Mutex<Vec<&str>> = Mutex::new(Vec::new());

fn slot(node: &TaskNode) -> usize {
    NODES.iter().position(|n| core::ptr::eq(*n, node)).unwrap()
}

fn ack(node: &'static TaskNode) {
    let i = slot(node) as u8;
    let up = (0..NODES.len())
        .filter(|&j| DEPS[j].contains(&i) && NODES[j].is_running())
        .map(|j| NODES[j].name)
        .collect();
    ACKS.lock().unwrap().push((node.name, up));
    node.ack_dropped();
}

#[embassy_executor::task(pool_size = 16)]
async fn worker(node: &'static TaskNode) {
    loop {
        node.wait_shutdown().await;
        if core::ptr::eq(node, &SLOW) {
            ACK_SLOW.wait().await;
        }
        ack(node);
        // A test's last teardown ends the parked `Pause` instance too: the
        // next test spawns its own on its own executor.
        if node.mode() != Mode::Pause || LAST.load(Ordering::SeqCst) {
            break;
        }
        node.wait_resume().await;
    }
    node.mark_exited();
}

fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    SPAWNS.lock().unwrap().push(node.name);
    s.spawn(worker(node)?);
    Ok(())
}

/// No stop acked while a dependent of the node ran.
fn assert_ordered_stops() {
    for (node, up) in ACKS.lock().unwrap().iter() {
        assert!(up.is_empty(), "`{node}` acked its stop while {up:?} ran");
    }
}

fn all_up() -> bool {
    NODES.iter().all(|n| n.is_running())
}

async fn fresh_start(s: Spawner) {
    GATE.provide(());
    SUP.start(s).await.unwrap();
    common::settle().await;
    assert!(all_up());
    ACKS.lock().unwrap().clear();
    SPAWNS.lock().unwrap().clear();
}

async fn finish(s: Spawner) {
    ACK_SLOW.signal(());
    LAST.store(true, Ordering::SeqCst);
    SUP.teardown().await.unwrap();
    common::settle().await;
    LAST.store(false, Ordering::SeqCst);
    ACK_SLOW.reset();
    assert_ordered_stops();
    let _ = s;
    common::pass();
}

#[embassy_executor::task]
async fn activate_during_a_restarts_stop_wave(s: Spawner) {
    fresh_start(s).await;
    let (restarted, ()) = join(SUP.restart(&BASE, s), async {
        common::settle().await;
        // The wave stopped P, G and S and waits for SLOW before BASE.
        assert!(!P.is_running() && !S.is_running() && SLOW.is_running());
        // `activate(P)` lifts the restart's holds and resumes P on BASE,
        // which still runs; U stays down: SLOW, its dependency, is stopping.
        let fault = SUP.activate(&P, s).await.unwrap_err();
        assert!(core::ptr::eq(fault.node, &U));
        assert_eq!(fault.kind, FaultKind::DepStopping { dep: &SLOW });
        assert!(P.is_running() && !U.is_running());
        ACK_SLOW.signal(());
    })
    .await;
    restarted.unwrap();
    common::settle().await;
    // The wave stopped P again before BASE, and the restart brought
    // everything back.
    assert_ordered_stops();
    assert!(all_up());
    finish(s).await;
}

#[test]
fn a_dependent_activated_during_a_restart_is_stopped_again_before_its_dependency() {
    common::run(&NODES, |s| {
        s.spawn(activate_during_a_restarts_stop_wave(s).unwrap())
    });
}

#[embassy_executor::task]
async fn start_during_a_restarts_stop_wave(s: Spawner) {
    fresh_start(s).await;
    let (restarted, ()) = join(SUP.restart(&BASE, s), async {
        common::settle().await;
        // The restart holds the dependents it stopped: `start` skips them.
        assert!(P.is_held() && G.is_held() && S.is_held());
        SUP.start(s).await.unwrap();
        assert!(!P.is_running() && !G.is_running() && !S.is_running());
        ACK_SLOW.signal(());
    })
    .await;
    restarted.unwrap();
    common::settle().await;
    assert_ordered_stops();
    assert!(all_up());
    assert!(NODES.iter().all(|n| !n.is_held()));
    finish(s).await;
}

#[test]
fn a_restart_holds_the_dependents_it_stopped_until_their_turn() {
    common::run(&NODES, |s| {
        s.spawn(start_during_a_restarts_stop_wave(s).unwrap())
    });
}

#[embassy_executor::task]
async fn start_during_a_teardown(s: Spawner) {
    fresh_start(s).await;
    let (torn, ()) = join(SUP.teardown(), async {
        common::settle().await;
        assert!(!P.is_running() && SLOW.is_running() && BASE.is_running());
        // A start while the teardown is in flight brings nothing up.
        let fault = SUP.start(s).await.unwrap_err();
        assert_eq!(fault.kind, FaultKind::Refused(Refusal::Halted));
        assert!(!P.is_running() && !G.is_running() && !S.is_running());
        ACK_SLOW.signal(());
    })
    .await;
    torn.unwrap();
    common::settle().await;
    assert_ordered_stops();
    assert!(NODES.iter().all(|n| !n.is_running()));
    // Once it ended, a start brings the graph up.
    ACK_SLOW.reset();
    SUP.start(s).await.unwrap();
    assert!(all_up());
    finish(s).await;
}

#[test]
fn a_start_during_a_teardown_brings_nothing_up() {
    common::run(&NODES, |s| s.spawn(start_during_a_teardown(s).unwrap()));
}

#[embassy_executor::task]
async fn start_node_on_a_stopping_dependency(s: Spawner) {
    fresh_start(s).await;
    SUP.stop_node(&U).await.unwrap();
    let (stopped, ()) = join(SUP.stop_node(&SLOW), async {
        common::settle().await;
        assert!(SLOW.is_running() && SLOW.shutdown_requested());
        // SLOW is stopping: U may not come up on it.
        let fault = SUP.start_node(&U, s).await.unwrap_err();
        assert!(core::ptr::eq(fault.node, &U));
        assert_eq!(fault.kind, FaultKind::DepStopping { dep: &SLOW });
        assert!(fault.is_refusal());
        assert_eq!(
            fault.to_string(),
            "node `U` not spawned: its dependency `SLOW` is stopping"
        );
        ACK_SLOW.signal(());
    })
    .await;
    stopped.unwrap();
    assert!(!U.is_running() && !SPAWNS.lock().unwrap().contains(&"U"));
    ACK_SLOW.reset();
    finish(s).await;
}

#[test]
fn no_node_comes_up_on_a_stopping_dependency() {
    common::run(&NODES, |s| {
        s.spawn(start_node_on_a_stopping_dependency(s).unwrap())
    });
}
