//! Every supervisor-side wait keeps its deadline as a 64-bit tick count split
//! into two 32-bit words. These tests put the mock clock just below the
//! 2^32-tick boundary and check that an ack timeout and a gate timeout that
//! cross it still fire exactly at their deadline, not early and not never.
mod common;

use std::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_supervisor::{
    FaultKind, Gate, Graph, Lent, Mode, NodeFault, NodeSpec, ResourceSlot, SHUTDOWN_ACK_TIMEOUT,
    Supervisor, TaskNode,
};
use embassy_time::{Duration, Instant};

/// A worker that sees its stop and never acks it.
#[embassy_executor::task]
async fn wedged(node: &'static TaskNode) {
    node.wait_shutdown().await;
    core::future::pending::<()>().await;
}

fn spawn_wedged(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(wedged(node)?);
    Ok(())
}

static RES: ResourceSlot<u32> = ResourceSlot::new();

#[embassy_executor::task]
async fn holder(node: &'static TaskNode, res: Lent<u32>) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    drop(res);
    node.mark_exited();
}

fn spawn_holder(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let res = RES.lend().ok_or(SpawnError::Busy)?;
    s.spawn(holder(node, res)?);
    Ok(())
}

static STUCK: TaskNode = TaskNode::new(
    &NodeSpec::new("STUCK", Mode::Terminate)
        .with_spawn(spawn_wedged)
        .at(0),
);
/// Gated on `RES`, waiting at most 100 ms for it.
static GATED: TaskNode = TaskNode::new(
    &NodeSpec::new("GATED", Mode::OnDemand)
        .with_spawn(spawn_holder)
        .with_resources(&[&RES as &dyn Gate])
        .with_slot_timeout(100)
        .at(1),
);
static GRAPH: Graph<2> = Graph::new([Some(&STUCK), Some(&GATED)], [&[], &[]]);
static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

/// Ticks until the clock's low 32-bit word wraps.
fn ticks_to_wrap() -> u64 {
    (1u64 << 32) - Instant::now().as_ticks() % (1u64 << 32)
}

/// Park the clock `before` ticks short of the next 32-bit boundary.
fn park_before_wrap(before: Duration) {
    common::advance(Duration::from_ticks(ticks_to_wrap() - before.as_ticks()));
}

#[embassy_executor::task]
async fn ack_driver(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    // The ack deadline (2 s) lands 1.5 s past the boundary.
    park_before_wrap(Duration::from_millis(500));
    let returned = AtomicBool::new(false);
    let stop = async {
        let r = SUP.stop_node(&STUCK).await;
        returned.store(true, Ordering::SeqCst);
        r
    };
    let (result, ()) = join(stop, async {
        common::advance_after_idle(SHUTDOWN_ACK_TIMEOUT - Duration::from_millis(1)).await;
        common::settle().await;
        // 1 ms before the deadline: the wait must still be pending.
        assert!(!returned.load(Ordering::SeqCst), "timed out early");
        common::advance_after_idle(Duration::from_millis(1)).await;
    })
    .await;
    let e = result.expect_err("a missed ack past the 32-bit boundary still times out");
    assert_eq!(e.node.name, "STUCK");
    common::pass();
}

#[test]
fn ack_timeout_crossing_the_32_bit_tick_boundary_fires_at_its_deadline() {
    common::run(&[&STUCK], |s| s.spawn(ack_driver(s).unwrap()));
}

#[embassy_executor::task]
async fn gate_driver(spawner: Spawner) {
    // The gate deadline (100 ms) lands 60 ms past the boundary.
    park_before_wrap(Duration::from_millis(40));
    let returned = AtomicBool::new(false);
    let start = async {
        let r = SUP.start_node(&GATED, spawner).await;
        returned.store(true, Ordering::SeqCst);
        r
    };
    let (result, ()) = join(start, async {
        common::advance_after_idle(Duration::from_millis(99)).await;
        common::settle().await;
        assert!(!returned.load(Ordering::SeqCst), "gave up early");
        common::advance_after_idle(Duration::from_millis(1)).await;
    })
    .await;
    assert_eq!(
        result.unwrap_err(),
        NodeFault::new(&GATED, FaultKind::ResourceEmpty { gate: 0 })
    );
    assert!(!GATED.is_running());

    // Provided in time, across the boundary again: the spawn goes ahead.
    park_before_wrap(Duration::from_millis(10));
    let (result, ()) = join(SUP.start_node(&GATED, spawner), async {
        common::advance_after_idle(Duration::from_millis(50)).await;
        RES.provide(7);
    })
    .await;
    assert!(result.is_ok());
    assert!(GATED.is_running());
    common::pass();
}

#[test]
fn gate_timeout_crossing_the_32_bit_tick_boundary_fires_at_its_deadline() {
    common::run(&[&GATED], |s| s.spawn(gate_driver(s).unwrap()));
}
