//! Resident `task:` shells and the one retry of a `Busy` spawn (issue 13,
//! item 6).
//!
//! - A `task:` node whose shell runs on another executor (another thread
//!   here; another core or a lower tier on a device) is re-activated right
//!   after its stop ack, while that executor is still inside the poll that
//!   acked. A shell spawned anew would find its task slot still taken
//!   (`SpawnError::Busy`); the resident shell is woken in place.
//! - A `spawn:` fn that returns `Busy` is called again after one executor
//!   pass; a second `Busy` is the error the verb returns.
#![cfg(feature = "macros")]
mod common;

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration as StdDuration, Instant as StdInstant};

use embassy_executor::{Executor, SpawnError, SpawnToken, Spawner};
use embassy_supervisor::{Supervisor, TaskNode};

/// Activations of `LATE`'s worker.
static STARTS: AtomicU32 = AtomicU32::new(0);
/// While set, `LATE`'s worker holds its executor thread after acking.
static LINGER: AtomicBool = AtomicBool::new(false);

/// Serve until stopped, ack, then (while `LINGER`) keep the executor busy
/// inside the same poll, as a lower tier preempted right after its ack is.
async fn late(node: &'static TaskNode) {
    STARTS.fetch_add(1, Ordering::SeqCst);
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    if LINGER.load(Ordering::SeqCst) {
        std::thread::sleep(StdDuration::from_millis(50));
    }
}

/// `spawn:` attempts, and how many of them to refuse.
static ATTEMPTS: AtomicU32 = AtomicU32::new(0);
static REFUSE: AtomicU32 = AtomicU32::new(0);
/// Polls of the ticker task: tells whether an executor pass came between
/// two attempts.
static TICKS: AtomicU32 = AtomicU32::new(0);
static TICKS_AT: [AtomicU32; 2] = [const { AtomicU32::new(0) }; 2];

#[embassy_executor::task]
async fn flaky_task(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

/// A `spawn:` fn that refuses its first `REFUSE` attempts with `Busy`.
fn flaky(node: &'static TaskNode) -> Result<SpawnToken<impl Sized>, SpawnError> {
    let n = ATTEMPTS.fetch_add(1, Ordering::SeqCst);
    if let Some(at) = TICKS_AT.get(n as usize) {
        at.store(TICKS.load(Ordering::SeqCst), Ordering::SeqCst);
    }
    if n < REFUSE.load(Ordering::SeqCst) {
        return Err(SpawnError::Busy);
    }
    flaky_task(node)
}

embassy_supervisor::supervisor_graph! {
    executor SIDE;
    node LATE = Terminate, executor: SIDE, task: late;
    node FLAKY = OnDemand, spawn: flaky;
}

static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

/// Start a second executor on its own thread and publish it as `SIDE`.
fn side_executor() {
    std::thread::spawn(|| {
        let ex: &'static mut Executor = Box::leak(Box::new(Executor::new()));
        ex.run(|s| SIDE.set(s.make_send()));
    });
}

/// Wait (wall clock, bounded) for the other thread to reach `cond`.
async fn other_thread(what: &str, cond: impl Fn() -> bool) {
    let deadline = StdInstant::now() + StdDuration::from_secs(5);
    while !cond() {
        assert!(StdInstant::now() < deadline, "other executor: {what}");
        std::thread::sleep(StdDuration::from_millis(1));
        embassy_futures::yield_now().await;
    }
}

static TICKING: AtomicBool = AtomicBool::new(false);

#[embassy_executor::task]
async fn ticker() {
    while TICKING.load(Ordering::SeqCst) {
        TICKS.fetch_add(1, Ordering::SeqCst);
        embassy_futures::yield_now().await;
    }
}

#[embassy_executor::task]
async fn cross_executor_driver(spawner: Spawner) {
    side_executor();
    other_thread("SIDE published", || SIDE.get().is_some()).await;
    SUP.start(spawner).await.unwrap();
    other_thread("first activation", || STARTS.load(Ordering::SeqCst) == 1).await;
    assert!(LATE.is_resident());
    LINGER.store(true, Ordering::SeqCst);
    for round in 2..=4 {
        SUP.deactivate(&LATE).await.unwrap();
        // The ack came from inside a poll that is still running on SIDE.
        let r = SUP.activate(&LATE, spawner).await;
        assert!(r.is_ok(), "round {round}: spawn refused: {r:?}");
        let failed = SUP.failed_node().map(|n| n.name);
        assert_ne!(failed, Some("LATE"), "round {round}: spawn refused");
        assert!(LATE.is_running(), "round {round}");
        other_thread("re-activation ran", || {
            STARTS.load(Ordering::SeqCst) == round
        })
        .await;
    }
    LINGER.store(false, Ordering::SeqCst);
    SUP.teardown().await.unwrap();
    other_thread("last activation ended", || LATE.has_exited()).await;
    common::pass();
}

#[test]
fn a_reactivation_right_after_the_ack_finds_the_shell_resident() {
    common::run(&[&LATE], |s| s.spawn(cross_executor_driver(s).unwrap()));
}

#[embassy_executor::task]
async fn retry_driver(spawner: Spawner) {
    TICKING.store(true, Ordering::SeqCst);
    spawner.spawn(ticker().unwrap());
    // One refusal: the retry after one executor pass brings it up.
    REFUSE.store(1, Ordering::SeqCst);
    assert!(SUP.start_node(&FLAKY, spawner).await.is_ok());
    assert!(FLAKY.is_running());
    assert_eq!(ATTEMPTS.load(Ordering::SeqCst), 2);
    assert!(
        TICKS_AT[1].load(Ordering::SeqCst) > TICKS_AT[0].load(Ordering::SeqCst),
        "the executor ran other tasks between the two attempts"
    );
    SUP.stop_node(&FLAKY).await.unwrap();
    common::settle().await;

    // Two refusals: the second `Busy` is the verb's error, and no third
    // attempt is made.
    ATTEMPTS.store(0, Ordering::SeqCst);
    REFUSE.store(2, Ordering::SeqCst);
    let r = SUP.start_node(&FLAKY, spawner).await;
    assert!(
        matches!(
            r,
            Err(embassy_supervisor::NodeFault {
                kind: embassy_supervisor::FaultKind::SpawnBusy,
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(ATTEMPTS.load(Ordering::SeqCst), 2);
    assert!(!FLAKY.is_running());
    assert!(core::ptr::eq(SUP.failed_node().unwrap(), &FLAKY));

    // The next bring-up starts a fresh pair of attempts.
    ATTEMPTS.store(0, Ordering::SeqCst);
    REFUSE.store(1, Ordering::SeqCst);
    assert!(SUP.start_node(&FLAKY, spawner).await.is_ok());
    assert_eq!(ATTEMPTS.load(Ordering::SeqCst), 2);
    SUP.stop_node(&FLAKY).await.unwrap();
    TICKING.store(false, Ordering::SeqCst);
    common::pass();
}

#[test]
fn a_busy_spawn_is_retried_once_after_one_executor_pass() {
    common::run(&[&FLAKY], |s| s.spawn(retry_driver(s).unwrap()));
}
