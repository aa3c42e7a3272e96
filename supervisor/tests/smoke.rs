//! The smallest end-to-end check of the harness and the core: start, teardown,
//! restart a one-node hand-built graph.
mod common;

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{Graph, Mode, Supervisor, TaskNode};

#[embassy_executor::task]
async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

fn spawn_a(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(worker(&A)?);
    Ok(())
}

static A: TaskNode = TaskNode::new("A", Mode::Terminate)
    .with_spawn(spawn_a)
    .at(0);
static GRAPH: Graph<1> = Graph::new([Some(&A)], [&[]]);
static SUP: Supervisor<1> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    assert!(A.is_running());
    SUP.teardown().await.unwrap();
    assert!(!A.is_running() && A.has_exited());
    SUP.start(spawner).await.unwrap();
    assert!(A.is_running() && !A.has_exited());
    common::pass();
}

#[test]
fn start_teardown_start() {
    common::run(&[&A], |s| s.spawn(driver(s).unwrap()));
}
