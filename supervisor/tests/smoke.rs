use std::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{Executor, SpawnError, Spawner};
use embassy_supervisor::{Graph, Mode, Supervisor, TaskNode};

#[embassy_executor::task]
async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

fn spawn_a(s: Spawner) -> Result<(), SpawnError> {
    s.spawn(worker(&A)?);
    Ok(())
}

static A: TaskNode = TaskNode::new("A", Mode::Terminate)
    .with_spawn(spawn_a)
    .at(0);
static GRAPH: Graph<1> = Graph::new([Some(&A)], [&[]]);
static DONE: AtomicBool = AtomicBool::new(false);

#[embassy_executor::task]
async fn drive(spawner: Spawner) {
    let sup = Supervisor::new(&GRAPH);
    sup.start(spawner).await.unwrap();
    assert!(A.is_running());
    sup.teardown().await.unwrap();
    assert!(!A.is_running());
    assert!(A.has_exited());
    sup.start(spawner).await.unwrap();
    assert!(A.is_running());
    DONE.store(true, Ordering::Release);
}

#[test]
fn smoke() {
    std::thread::spawn(|| {
        let ex: &'static mut Executor = Box::leak(Box::new(Executor::new()));
        ex.run(|s| s.spawn(drive(s).unwrap()));
    });
    for _ in 0..200 {
        if DONE.load(Ordering::Acquire) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("hung");
}
