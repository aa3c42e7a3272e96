//! Footprint reference, supervised: CHAIN(8) plus a 4-member elastic pool,
//! driven through start -> teardown -> respawn_terminate. Compare its sizes
//! with `ref_direct` (the same 12 tasks spawned directly with embassy).
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{
    DeferredShrink, ElasticPool, Graph, Mode, NodeSpec, Supervisor, TaskNode,
};
use embassy_supervisor_firmware as fw;
use embassy_time::{Duration, Timer};

#[embassy_executor::task(pool_size = 12)]
async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

/// One spawn fn for all twelve nodes: they run the same task.
fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(worker(node)?);
    Ok(())
}

static C: [TaskNode; 8] = [
    TaskNode::new(
        &NodeSpec::new("C0", Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(0),
    ),
    TaskNode::new(
        &NodeSpec::new("C1", Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(1),
    ),
    TaskNode::new(
        &NodeSpec::new("C2", Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(2),
    ),
    TaskNode::new(
        &NodeSpec::new("C3", Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(3),
    ),
    TaskNode::new(
        &NodeSpec::new("C4", Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(4),
    ),
    TaskNode::new(
        &NodeSpec::new("C5", Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(5),
    ),
    TaskNode::new(
        &NodeSpec::new("C6", Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(6),
    ),
    TaskNode::new(
        &NodeSpec::new("C7", Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(7),
    ),
];
static P: [TaskNode; 4] = [
    TaskNode::new(
        &NodeSpec::new("P0", Mode::OnDemand)
            .with_spawn(spawn_worker)
            .in_pool(0)
            .at(8),
    ),
    TaskNode::new(
        &NodeSpec::new("P1", Mode::OnDemand)
            .with_spawn(spawn_worker)
            .in_pool(0)
            .at(9),
    ),
    TaskNode::new(
        &NodeSpec::new("P2", Mode::OnDemand)
            .with_spawn(spawn_worker)
            .in_pool(0)
            .at(10),
    ),
    TaskNode::new(
        &NodeSpec::new("P3", Mode::OnDemand)
            .with_spawn(spawn_worker)
            .in_pool(0)
            .at(11),
    ),
];
static POOL: ElasticPool<DeferredShrink> =
    ElasticPool::new(&P, 8, 1, 4, DeferredShrink::new(Duration::from_millis(10)));
static GRAPH: Graph<12> = Graph::new(
    [
        Some(&C[0]),
        Some(&C[1]),
        Some(&C[2]),
        Some(&C[3]),
        Some(&C[4]),
        Some(&C[5]),
        Some(&C[6]),
        Some(&C[7]),
        Some(&P[0]),
        Some(&P[1]),
        Some(&P[2]),
        Some(&P[3]),
    ],
    [
        &[],
        &[0],
        &[1],
        &[2],
        &[3],
        &[4],
        &[5],
        &[6],
        &[0],
        &[0],
        &[0],
        &[0],
    ],
)
.with_pools(&[&POOL]);
static SUP: Supervisor<12> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn pools(spawner: Spawner) {
    // Returns only if a shrink misses its ack; the check below then fails.
    let _ = SUP.run_pools(spawner).await;
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    let mut ok = SUP.start(spawner).await.is_ok();
    spawner.spawn(pools(spawner).unwrap());
    Timer::after_millis(1).await;
    ok &= C.iter().all(|n| n.is_running()) && P[0].is_running();
    // The driver stays up: a torn-down graph is halted, so it regrows
    // nothing until respawn_terminate.
    ok &= SUP.teardown().await.is_ok();
    ok &= SUP.respawn_terminate(spawner).await.is_ok();
    Timer::after_millis(1).await;
    ok &= C.iter().all(|n| n.is_running());
    fw::exit(if ok { 0 } else { 1 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
