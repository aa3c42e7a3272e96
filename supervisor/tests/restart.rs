//! `Supervisor::restart`: rest-for-one order, a refusal per state that wins
//! over a restart, and restarts racing `teardown` and `deactivate`.
mod common;

use common::Event::{Acked, Spawned};
use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::{
    FaultKind, Graph, Mode, NodeFault, NodeSpec, Refusal, Supervisor, TaskNode,
};

const fn spec(name: &'static str, mode: Mode, at: u8) -> NodeSpec {
    NodeSpec::new(name, mode)
        .with_spawn(common::spawn_worker)
        .at(at)
}

// BASE <- MID <- TOP, BASE <- SIDE, MID <- LAZY (on demand: down), OTHER alone.
static BASE: TaskNode = TaskNode::new(&spec("BASE", Mode::Terminate, 0));
static MID: TaskNode = TaskNode::new(&spec("MID", Mode::Terminate, 1));
static TOP: TaskNode = TaskNode::new(&spec("TOP", Mode::Terminate, 2));
static SIDE: TaskNode = TaskNode::new(&spec("SIDE", Mode::Terminate, 3));
static OTHER: TaskNode = TaskNode::new(&spec("OTHER", Mode::Terminate, 4));
static LAZY: TaskNode = TaskNode::new(&spec("LAZY", Mode::OnDemand, 5));
static OFF: TaskNode = TaskNode::new(&spec("OFF", Mode::Terminate, 6).disabled());
static G: Graph<7> = Graph::new(
    [
        Some(&BASE),
        Some(&MID),
        Some(&TOP),
        Some(&SIDE),
        Some(&OTHER),
        Some(&LAZY),
        Some(&OFF),
    ],
    [&[], &[0], &[1], &[0], &[], &[1], &[]],
);
static SUP: Supervisor<7> = Supervisor::new(&G);

static STRANGER: TaskNode = TaskNode::new(&spec("STRANGER", Mode::Terminate, 0));

const ALL: &[&TaskNode] = &[&BASE, &MID, &TOP, &SIDE, &OTHER, &LAZY, &OFF];

fn running() -> Vec<&'static str> {
    ALL.iter()
        .filter(|n| n.is_running())
        .map(|n| n.name)
        .collect()
}

/// Each test starts from a fresh, fully started graph.
async fn fresh(spawner: Spawner) {
    for n in ALL {
        n.set_detached(false);
    }
    // Undo any latch a failed test left behind.
    SUP.activate(&MID, spawner).await.unwrap();
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    common::log::clear();
}

#[embassy_executor::task]
async fn rest_for_one(spawner: Spawner) {
    fresh(spawner).await;
    SUP.restart(&MID, spawner).await.unwrap();
    common::settle().await;
    assert_eq!(
        common::log::order(Acked),
        ["TOP", "MID"],
        "dependents first"
    );
    assert_eq!(
        common::log::order(Spawned),
        ["MID", "TOP"],
        "dependencies first"
    );
    assert_eq!(running(), ["BASE", "MID", "TOP", "SIDE", "OTHER"]);

    common::log::clear();
    SUP.restart(&BASE, spawner).await.unwrap();
    common::settle().await;
    // A stop wave, dependents first (TOP and SIDE are unrelated: asked in
    // the same pass, TOP first as the later in the order); LAZY (down) and
    // OTHER (unrelated) untouched.
    assert_eq!(common::log::order(Acked), ["TOP", "SIDE", "MID", "BASE"]);
    assert_eq!(common::log::order(Spawned), ["BASE", "MID", "TOP", "SIDE"]);
    assert_eq!(running(), ["BASE", "MID", "TOP", "SIDE", "OTHER"]);

    // A node that is down comes back, and its running dependents cycle.
    SUP.stop_node(&MID).await.unwrap();
    common::log::clear();
    SUP.restart(&MID, spawner).await.unwrap();
    common::settle().await;
    assert_eq!(common::log::order(Acked), ["TOP"]);
    assert_eq!(common::log::order(Spawned), ["MID", "TOP"]);
    assert_eq!(running(), ["BASE", "MID", "TOP", "SIDE", "OTHER"]);

    // A failed spawn names the node, and keeps down only it and what
    // depends on it (TOP): SIDE, which does not, comes back.
    common::fault::refuse_spawn(&MID);
    let fault = SUP.restart(&BASE, spawner).await.unwrap_err();
    assert_eq!(fault, NodeFault::new(&MID, FaultKind::SpawnBusy));
    assert_eq!(SUP.failed_node().map(|n| n.name), Some("MID"));
    assert_eq!(running(), ["BASE", "SIDE", "OTHER"]);
    common::fault::clear();
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn restart_stops_dependents_first_and_brings_them_back_in_order() {
    common::run(ALL, |s| s.spawn(rest_for_one(s).unwrap()));
}

fn refusal(r: Result<(), NodeFault>) -> (&'static str, Refusal) {
    match r {
        Err(NodeFault {
            node,
            kind: FaultKind::Refused(why),
        }) => (node.name, why),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[embassy_executor::task]
async fn refusals(spawner: Spawner) {
    fresh(spawner).await;
    use Refusal::*;
    let r = SUP.restart(&STRANGER, spawner).await;
    assert_eq!(refusal(r), ("STRANGER", NotInGraph));
    let r = SUP.restart(&OFF, spawner).await;
    assert_eq!(refusal(r), ("OFF", Disabled));
    OTHER.set_detached(true);
    let r = SUP.restart(&OTHER, spawner).await;
    assert_eq!(refusal(r), ("OTHER", Detached));
    OTHER.set_detached(false);
    SUP.deactivate(&MID).await.unwrap();
    common::log::clear();
    let r = SUP.restart(&MID, spawner).await;
    assert_eq!(refusal(r), ("MID", Disabled));
    let r = SUP.restart(&TOP, spawner).await;
    assert_eq!(refusal(r), ("TOP", Held));
    assert!(common::log::events().is_empty(), "a refusal stops nothing");
    SUP.activate(&MID, spawner).await.unwrap();
    SUP.teardown().await.unwrap();
    common::log::clear();
    let r = SUP.restart(&BASE, spawner).await;
    assert_eq!(refusal(r), ("BASE", Halted));
    assert!(common::log::events().is_empty() && running().is_empty());
    common::pass();
}

#[test]
fn disabled_held_detached_and_halted_win_over_a_restart() {
    common::run(ALL, |s| s.spawn(refusals(s).unwrap()));
}

#[embassy_executor::task]
async fn races(spawner: Spawner) {
    // Restart first, teardown while it stops: nothing comes back.
    fresh(spawner).await;
    let (restarted, torn) = join(SUP.restart(&BASE, spawner), SUP.teardown()).await;
    torn.unwrap();
    assert_eq!(refusal(restarted).1, Refusal::Halted);
    common::settle().await;
    assert!(
        running().is_empty(),
        "up behind a teardown: {:?}",
        running()
    );
    assert!(common::log::order(Spawned).is_empty());

    // Teardown first: the restart is refused before it stops anything.
    fresh(spawner).await;
    let (torn, restarted) = join(SUP.teardown(), SUP.restart(&MID, spawner)).await;
    torn.unwrap();
    assert_eq!(refusal(restarted), ("MID", Refusal::Halted));
    common::settle().await;
    assert!(running().is_empty());

    // A deactivate in flight wins over what it latched; the rest comes back.
    fresh(spawner).await;
    let (restarted, deactivated) = join(SUP.restart(&BASE, spawner), SUP.deactivate(&MID)).await;
    deactivated.unwrap();
    // The first node of the latched set the restart would have brought
    // back is named (which one depends on who stopped what first).
    let (node, why) = refusal(restarted);
    assert!(
        matches!(
            (node, why),
            ("MID", Refusal::Disabled) | ("TOP", Refusal::Held)
        ),
        "{node}: {why:?}"
    );
    common::settle().await;
    assert_eq!(running(), ["BASE", "SIDE", "OTHER"]);
    SUP.activate(&MID, spawner).await.unwrap();
    assert_eq!(running(), ["BASE", "MID", "TOP", "SIDE", "OTHER"]);
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn restart_racing_teardown_and_deactivate() {
    common::run(ALL, |s| s.spawn(races(s).unwrap()));
}
