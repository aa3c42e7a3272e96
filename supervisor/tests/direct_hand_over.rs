//! A resident shell whose glue would only hand an activation over
//! (`NodeSpec::with_direct_hand_over`, what `supervisor_graph!` marks a
//! `task:` node with no resources, state or executor): the supervisor hands
//! later activations to the parked shell itself, so the spawn fn runs only
//! for the first. A shell marked `with_resident_shell` alone still has every
//! activation go through its glue (which hands over itself).
mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};

/// Calls of each node's spawn fn.
static GLUE_CALLS: [AtomicU32; 2] = [const { AtomicU32::new(0) }; 2];
/// Activations each shell ran.
static RUNS: [AtomicU32; 2] = [const { AtomicU32::new(0) }; 2];

/// A hand-written resident shell, as the macro generates one.
#[embassy_executor::task(pool_size = 2)]
async fn shell(node: &'static TaskNode, k: usize) {
    let mut turn = node.pin_shell().await;
    loop {
        RUNS[k].fetch_add(1, Ordering::SeqCst);
        let _ = node
            .run_cancellable_acked(core::future::pending::<()>())
            .await;
        node.end_activation(turn);
        turn = node.wait_activation(turn).await;
    }
}

/// The glue of a node: hands over to a parked shell, or spawns it.
fn glue(node: &'static TaskNode, k: usize, s: Spawner) -> Result<(), SpawnError> {
    GLUE_CALLS[k].fetch_add(1, Ordering::SeqCst);
    if node.wake_resident() {
        return Ok(());
    }
    s.spawn(shell(node, k)?);
    Ok(())
}

fn spawn_direct(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    glue(node, 0, s)
}
fn spawn_glued(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    glue(node, 1, s)
}

static DIRECT: TaskNode = TaskNode::new(
    &NodeSpec::new("DIRECT", Mode::Terminate)
        .with_spawn(spawn_direct)
        .with_direct_hand_over()
        .at(0),
);
static GLUED: TaskNode = TaskNode::new(
    &NodeSpec::new("GLUED", Mode::Terminate)
        .with_spawn(spawn_glued)
        .with_resident_shell()
        .at(1),
);
static G: Graph<2> = Graph::new([Some(&DIRECT), Some(&GLUED)], [&[], &[0]]);
static SUP: Supervisor<2> = Supervisor::new(&G);

fn calls(k: usize) -> u32 {
    GLUE_CALLS[k].load(Ordering::SeqCst)
}

#[embassy_executor::task]
async fn drive(s: Spawner) {
    SUP.start(s).await.unwrap();
    common::settle().await;
    assert!(DIRECT.is_running() && GLUED.is_running());
    assert!(DIRECT.is_resident() && GLUED.is_resident());
    assert_eq!((calls(0), calls(1)), (1, 1), "the first activation spawns");
    for round in 1..=3u32 {
        SUP.teardown().await.unwrap();
        assert!(!DIRECT.is_running() && !GLUED.is_running());
        SUP.respawn_terminate(s).await.unwrap();
        common::settle().await;
        assert!(DIRECT.is_running() && GLUED.is_running(), "round {round}");
        assert_eq!(calls(0), 1, "round {round}: handed over without the glue");
        assert_eq!(calls(1), 1 + round, "round {round}: through the glue");
        for runs in &RUNS {
            assert_eq!(runs.load(Ordering::SeqCst), 1 + round, "round {round}");
        }
    }
    // The cascades hand over the same way.
    SUP.deactivate(&DIRECT).await.unwrap();
    SUP.activate(&GLUED, s).await.unwrap();
    common::settle().await;
    assert!(DIRECT.is_running() && GLUED.is_running());
    assert_eq!((calls(0), calls(1)), (1, 5));
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn the_supervisor_hands_over_to_a_parked_shell_without_its_glue() {
    common::run(&[&DIRECT, &GLUED], |s| s.spawn(drive(s).unwrap()));
}
