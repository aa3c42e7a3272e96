//! A stop that outlives its stopper keeps its node stopping for dependents.
//!
//! When a teardown or a `deactivate` ends while a node it asked is still
//! stopping (a missed ack, or its future dropped), that node must stay
//! visible as stopping: a bring-up of one of its dependents is refused with
//! `DepStopping` until the node acks, and comes up after. A bring-up skips
//! its dependency check while the crate-wide stopping count reads zero, so
//! these pin that the count covers such a node for as long as it stops,
//! whichever stopper asked it (a chain's stop or a stop wave; each test
//! fails on a build whose stoppers count their stops only while they run).
//!
//! `X` acks its stop only when `RELEASE` is signalled (ack timeout 50 ms);
//! `Y` (and `Z` in the wide graph) depend on it and ack at once.
mod common;

use std::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_futures::select::select;
use embassy_supervisor::{FaultKind, Graph, Mode, NodeFault, NodeSpec, Supervisor, TaskNode};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::Duration;

/// Lets `X` (or `WX`) ack the stop it holds.
static RELEASE: Signal<CriticalSectionRawMutex, ()> = Signal::new();
/// Set while `X` / `WX` should hold its stops until `RELEASE`.
static HOLD: AtomicBool = AtomicBool::new(false);

#[embassy_executor::task(pool_size = 8)]
async fn worker(node: &'static TaskNode) {
    node.wait_shutdown().await;
    if HOLD.load(Ordering::SeqCst) && node.name.ends_with('X') {
        RELEASE.wait().await;
    }
    node.ack_dropped();
    node.mark_exited();
}

fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(worker(node)?);
    Ok(())
}

const fn spec(name: &'static str, slot: u8) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(spawn_worker)
        .with_ack_timeout(50)
        .at(slot)
}

// A chain: X <- Y.
static X: TaskNode = TaskNode::new(&spec("X", 0));
static Y: TaskNode = TaskNode::new(&spec("Y", 1));
static CHAIN: Graph<2> = Graph::new([Some(&X), Some(&Y)], [&[], &[0]]);
static CHAIN_SUP: Supervisor<2> = Supervisor::new(&CHAIN);

// Wide: WX <- WY, WX <- WZ (a stop wave's graph).
static WX: TaskNode = TaskNode::new(&spec("WX", 0));
static WY: TaskNode = TaskNode::new(&spec("WY", 1));
static WZ: TaskNode = TaskNode::new(&spec("WZ", 2));
static WIDE: Graph<3> = Graph::new([Some(&WX), Some(&WY), Some(&WZ)], [&[], &[0], &[0]]);
static WIDE_SUP: Supervisor<3> = Supervisor::new(&WIDE);

/// `dependent`'s bring-up (`bring_up`) is refused while `stopping` has not
/// acked, and succeeds once it has.
async fn refused_until_acked<F, Fut>(
    stopping: &'static TaskNode,
    dependent: &'static TaskNode,
    bring_up: F,
) where
    F: Fn() -> Fut,
    Fut: core::future::Future<Output = Result<(), NodeFault>>,
{
    assert!(
        stopping.is_running() && stopping.shutdown_requested(),
        "`{}` still stopping",
        stopping.name
    );
    let fault = bring_up().await.unwrap_err();
    assert!(core::ptr::eq(fault.node, dependent), "{fault}");
    assert_eq!(fault.kind, FaultKind::DepStopping { dep: stopping });
    assert!(!dependent.is_running());
    RELEASE.signal(());
    common::settle().await;
    assert!(!stopping.is_running(), "`{}` acked", stopping.name);
    HOLD.store(false, Ordering::SeqCst);
}

async fn up<const N: usize>(sup: &'static Supervisor<N>, s: Spawner) {
    HOLD.store(true, Ordering::SeqCst);
    RELEASE.reset();
    sup.start(s).await.unwrap();
    common::settle().await;
}

/// `stop` ends in a missed ack: the mock clock moves past `X`'s window once
/// every task is idle.
async fn misses(stop: impl core::future::Future<Output = Result<(), NodeFault>>) {
    let (stopped, ()) = join(stop, common::advance_after_idle(Duration::from_millis(100))).await;
    assert_eq!(stopped.unwrap_err().kind, FaultKind::AckMissed);
}

/// Once the node acked, `start` brings the whole graph back up.
async fn all_up_again<const N: usize>(sup: &'static Supervisor<N>, s: Spawner) {
    sup.start(s).await.unwrap();
    assert!(common::nodes_of(sup.graph()).iter().all(|n| n.is_running()));
    common::pass();
}

#[embassy_executor::task]
async fn chain_teardown_missed(s: Spawner) {
    up(&CHAIN_SUP, s).await;
    misses(CHAIN_SUP.teardown()).await;
    refused_until_acked(&X, &Y, || CHAIN_SUP.start_node(&Y, s)).await;
    all_up_again(&CHAIN_SUP, s).await;
}

#[test]
fn a_chain_teardown_that_missed_an_ack_leaves_the_node_stopping() {
    common::run(&[&X, &Y], |s| s.spawn(chain_teardown_missed(s).unwrap()));
}

#[embassy_executor::task]
async fn chain_teardown_dropped(s: Spawner) {
    up(&CHAIN_SUP, s).await;
    // Dropped while it waits for X's ack (Y is down by then).
    select(CHAIN_SUP.teardown(), common::settle()).await;
    assert!(!Y.is_running());
    refused_until_acked(&X, &Y, || CHAIN_SUP.start_node(&Y, s)).await;
    all_up_again(&CHAIN_SUP, s).await;
}

#[test]
fn a_dropped_chain_teardown_leaves_the_node_stopping() {
    common::run(&[&X, &Y], |s| s.spawn(chain_teardown_dropped(s).unwrap()));
}

#[embassy_executor::task]
async fn chain_deactivate_missed(s: Spawner) {
    up(&CHAIN_SUP, s).await;
    misses(CHAIN_SUP.deactivate(&X)).await;
    // `activate` lifts the latch and the hold; X is still up (stopping),
    // so Y's bring-up finds it.
    refused_until_acked(&X, &Y, || CHAIN_SUP.activate(&Y, s)).await;
    CHAIN_SUP.activate(&Y, s).await.unwrap();
    assert!(X.is_running() && Y.is_running());
    common::pass();
}

#[test]
fn a_chain_deactivate_that_missed_an_ack_leaves_the_node_stopping() {
    common::run(&[&X, &Y], |s| s.spawn(chain_deactivate_missed(s).unwrap()));
}

#[embassy_executor::task]
async fn wide_teardown_missed(s: Spawner) {
    up(&WIDE_SUP, s).await;
    misses(WIDE_SUP.teardown()).await;
    refused_until_acked(&WX, &WY, || WIDE_SUP.start_node(&WY, s)).await;
    all_up_again(&WIDE_SUP, s).await;
}

#[test]
fn a_wave_teardown_that_missed_an_ack_leaves_the_node_stopping() {
    common::run(&[&WX, &WY, &WZ], |s| {
        s.spawn(wide_teardown_missed(s).unwrap())
    });
}

#[embassy_executor::task]
async fn wide_deactivate_dropped(s: Spawner) {
    up(&WIDE_SUP, s).await;
    // A raced wave (`deactivate`), dropped while it waits for WX's ack.
    select(WIDE_SUP.deactivate(&WX), common::settle()).await;
    assert!(!WY.is_running() && !WZ.is_running());
    refused_until_acked(&WX, &WY, || WIDE_SUP.activate(&WY, s)).await;
    WIDE_SUP.activate(&WY, s).await.unwrap();
    assert!(WX.is_running() && WY.is_running());
    common::pass();
}

#[test]
fn a_dropped_wave_deactivate_leaves_the_node_stopping() {
    common::run(&[&WX, &WY, &WZ], |s| {
        s.spawn(wide_deactivate_dropped(s).unwrap())
    });
}
