//! `activate` whose bring-up fails (a gate stays closed): the dependents it
//! released and that stayed down take their collateral hold back, so the
//! next `activate` of the same node brings the whole subtree back, and
//! `start` skips them meanwhile.
mod common;

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{
    FaultKind, Gate, Graph, Mode, NodeSpec, ResourceSlot, Supervisor, TaskNode,
};

// ROOT (gate ROOT_GATE) <- MID <- TOP; ROOT <- SIDE.
static ROOT_GATE: ResourceSlot<()> = ResourceSlot::new();
static ROOT_GATES: [&dyn Gate; 1] = [&ROOT_GATE];
static ROOT: TaskNode = TaskNode::new(
    &NodeSpec::new("ROOT", Mode::Terminate)
        .with_spawn(spawn)
        .with_resources(&ROOT_GATES)
        .with_slot_timeout(20)
        .at(0),
);
static MID: TaskNode = TaskNode::new(
    &NodeSpec::new("MID", Mode::Terminate)
        .with_spawn(spawn)
        .at(1),
);
static TOP: TaskNode = TaskNode::new(
    &NodeSpec::new("TOP", Mode::Terminate)
        .with_spawn(spawn)
        .at(2),
);
static SIDE: TaskNode = TaskNode::new(
    &NodeSpec::new("SIDE", Mode::Terminate)
        .with_spawn(spawn)
        .at(3),
);
static NODES: [&TaskNode; 4] = [&ROOT, &MID, &TOP, &SIDE];
static GRAPH: Graph<4> = Graph::new(
    [Some(&ROOT), Some(&MID), Some(&TOP), Some(&SIDE)],
    [&[], &[0], &[1], &[0]],
);
static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

#[embassy_executor::task(pool_size = 8)]
async fn worker(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
    node.mark_exited();
}

fn spawn(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    if core::ptr::eq(node, &ROOT) && ROOT_GATE.take().is_none() {
        return Err(SpawnError::Busy);
    }
    s.spawn(worker(node)?);
    Ok(())
}

fn up() -> [bool; 4] {
    NODES.map(|n| n.is_running())
}

fn held() -> [bool; 4] {
    NODES.map(|n| n.is_held())
}

#[embassy_executor::task]
async fn drive(s: Spawner) {
    ROOT_GATE.provide(());
    SUP.start(s).await.unwrap();
    common::settle().await;
    assert_eq!(up(), [true; 4]);

    SUP.deactivate(&ROOT).await.unwrap();
    assert!(ROOT.is_disabled());
    assert_eq!(held(), [false, true, true, true]);

    // The gate is empty: ROOT times out; its released dependents stay down
    // and are held again (not left down with nothing to bring them back).
    let (fault, ()) = embassy_futures::join::join(SUP.activate(&ROOT, s), async {
        common::advance_in_steps(
            embassy_time::Duration::from_millis(30),
            embassy_time::Duration::from_millis(1),
        )
        .await;
    })
    .await;
    let fault = fault.unwrap_err();
    assert!(core::ptr::eq(fault.node, &ROOT), "{fault}");
    assert!(
        matches!(fault.kind, FaultKind::ResourceEmpty { .. }),
        "{fault}"
    );
    assert_eq!(up(), [false; 4]);
    assert!(!ROOT.is_disabled() && !ROOT.is_held());
    assert_eq!(held(), [false, true, true, true]);

    // `start` brings ROOT up (no latch) but skips the held dependents.
    ROOT_GATE.provide(());
    SUP.start(s).await.unwrap();
    common::settle().await;
    assert_eq!(up(), [true, false, false, false]);

    // `activate(ROOT)` again releases them and brings them all up.
    SUP.activate(&ROOT, s).await.unwrap();
    common::settle().await;
    assert_eq!(up(), [true; 4]);
    assert_eq!(held(), [false; 4]);

    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn a_failed_activate_holds_the_dependents_it_left_down_until_the_next_activate() {
    common::run(&NODES, |s| s.spawn(drive(s).unwrap()));
}
