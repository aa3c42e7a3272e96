//! The smallest end-to-end check of the harness and the core: start, teardown,
//! restart a one-node hand-built graph.
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};

static A: TaskNode = TaskNode::new(
    &NodeSpec::new("A", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
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
