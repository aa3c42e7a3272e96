//! Bring-up edge cases: a refused spawn leaves the node's status as it was,
//! and two operations starting one gated node share one outcome.
mod common;

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join3;
use embassy_supervisor::{Gate, Graph, Mode, NodeSpec, ResourceSlot, Supervisor, TaskNode};

static LINGER: AtomicBool = AtomicBool::new(true);

/// Acks a stop, then lingers (its TaskPool slot stays taken) until released.
#[embassy_executor::task]
async fn lingering(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    while LINGER.load(Ordering::Acquire) {
        embassy_futures::yield_now().await;
    }
}

fn spawn_l(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(lingering(&L)?);
    Ok(())
}

static L: TaskNode = TaskNode::new(
    &NodeSpec::new("L", Mode::Terminate)
        .with_spawn(spawn_l)
        .at(0),
);
static LG: Graph<1> = Graph::new([Some(&L)], [&[]]);
static LSUP: Supervisor<1> = Supervisor::new(&LG);

#[embassy_executor::task]
async fn refused_spawn(spawner: Spawner) {
    LSUP.start(spawner).await.unwrap();
    LSUP.stop_node(&L).await.unwrap();
    assert!(L.shutdown_requested() && !L.has_exited());
    // The old instance still holds the only TaskPool slot: embassy refuses.
    assert!(LSUP.start_node(&L, spawner).await.is_err());
    assert!(!L.is_running(), "nothing started");
    assert!(
        L.shutdown_requested(),
        "a refused spawn keeps the stop on record"
    );
    assert!(
        !L.has_exited(),
        "and does not turn it into an autonomous exit"
    );
    assert!(core::ptr::eq(LSUP.failed_node().unwrap(), &L));
    LINGER.store(false, Ordering::Release);
    common::settle().await;
    LSUP.start_node(&L, spawner).await.unwrap();
    assert!(L.is_running() && !L.shutdown_requested());
    LSUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn a_refused_spawn_keeps_the_node_status() {
    common::run(&[&L], |s| s.spawn(refused_spawn(s).unwrap()));
}

static RES: ResourceSlot<u32> = ResourceSlot::new();

#[embassy_executor::task]
async fn gated(node: &'static TaskNode, value: embassy_supervisor::Lent<u32>) {
    assert_eq!(*value, 7);
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
}

fn spawn_g(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let value = RES.lend().ok_or(SpawnError::Busy)?;
    s.spawn(gated(&G, value)?);
    Ok(())
}

static G: TaskNode = TaskNode::new(
    &NodeSpec::new("G", Mode::Terminate)
        .with_spawn(spawn_g)
        .with_resources(&[&RES as &dyn Gate])
        .with_slot_timeout(1_000)
        .at(0),
);
static GG: Graph<1> = Graph::new([Some(&G)], [&[]]);
static GSUP: Supervisor<1> = Supervisor::new(&GG);

#[embassy_executor::task]
async fn shared_outcome(spawner: Spawner) {
    // Two operations start G while its resource is missing; it arrives later.
    let (a, b, ()) = join3(
        GSUP.start_node(&G, spawner),
        GSUP.start_node(&G, spawner),
        async {
            common::settle().await;
            assert!(!G.is_running());
            RES.provide(7);
        },
    )
    .await;
    assert!(
        a.is_ok() && b.is_ok(),
        "both see the one bring-up succeed: {a:?} {b:?}"
    );
    assert!(GSUP.failed_node().is_none(), "no failure was recorded");
    assert!(G.is_running());
    GSUP.teardown().await.unwrap();
    // Leave RES empty for the other tests of this binary (they run in any
    // order): the stopped task hands the lent value back when it ends.
    common::settle().await;
    assert_eq!(RES.take(), Some(7));
    common::pass();
}

#[test]
fn concurrent_starts_of_a_gated_node_share_one_outcome() {
    common::run(&[&G], |s| s.spawn(shared_outcome(s).unwrap()));
}

#[embassy_executor::task]
async fn dropped_mid_wait(spawner: Spawner) {
    // A start of G waiting for its resource is dropped (it loses a select).
    let first =
        embassy_futures::select::select(GSUP.start_node(&G, spawner), common::settle()).await;
    assert!(
        matches!(first, embassy_futures::select::Either::Second(())),
        "the resource is missing: the start must still be waiting"
    );
    assert!(!G.is_running());
    // Nothing was left behind: the next start spawns as soon as it can.
    RES.provide(7);
    GSUP.start_node(&G, spawner).await.unwrap();
    assert!(G.is_running());
    GSUP.teardown().await.unwrap();
    // Leave RES empty for the other tests of this binary: the stopped task
    // hands the value back when it ends.
    common::settle().await;
    assert_eq!(RES.take(), Some(7));
    common::pass();
}

#[test]
fn a_bring_up_dropped_mid_wait_leaves_nothing_behind() {
    common::run(&[&G], |s| s.spawn(dropped_mid_wait(s).unwrap()));
}
