//! The one host-test harness. Each test runs a driver task on a fresh
//! `embassy_executor::Executor` thread over the embassy-time mock clock.
//!
//! - Fails fast: a test that does not call [`pass`] within [`WALL_LIMIT`]
//!   fails, naming every node of the graph that still awaits an ack (stop
//!   requested, still running) or is still running: the node that hung.
//! - A panic inside the driver (a failed `assert!`) fails the test with its
//!   message.
//! - The mock clock moves only when a test calls [`advance`]: happy paths
//!   resolve by signal, timeouts are observed on purpose.
//! - Tests in one binary run one at a time (they share the mock clock).
#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration as StdDuration, Instant as StdInstant};

use embassy_executor::{Executor, SpawnError, Spawner};
use embassy_supervisor::TaskNode;
use embassy_time::{Duration, MockDriver};

/// Wall-clock budget of one test before it is declared hung.
pub const WALL_LIMIT: StdDuration = StdDuration::from_secs(10);

static SERIAL: Mutex<()> = Mutex::new(());
static PASSED: AtomicBool = AtomicBool::new(false);

fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Run one test. `spawn_driver` spawns the test's driver task (which calls
/// [`pass`] when every assertion held); `watched` are the nodes to report if
/// the test hangs.
pub fn run(watched: &[&'static TaskNode], spawn_driver: fn(Spawner)) {
    let _guard = serial();
    PASSED.store(false, Ordering::SeqCst);
    let exec = std::thread::spawn(move || {
        let ex: &'static mut Executor = Box::leak(Box::new(Executor::new()));
        ex.run(spawn_driver);
    });
    let deadline = StdInstant::now() + WALL_LIMIT;
    loop {
        if PASSED.load(Ordering::SeqCst) {
            return;
        }
        if exec.is_finished() {
            match exec.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => panic!("executor thread ended without pass()"),
            }
        }
        if StdInstant::now() > deadline {
            panic!("test hung; {}", describe(watched));
        }
        std::thread::sleep(StdDuration::from_millis(1));
    }
}

/// Mark the running test as passed. Call it last in the driver task.
pub fn pass() {
    PASSED.store(true, Ordering::SeqCst);
}

/// Advance the mock clock (wakes every timer that expires).
pub fn advance(d: Duration) {
    MockDriver::get().advance(d);
}

/// Let other tasks on the executor run until they block, then advance the
/// mock clock. Join this with an operation that must time out.
pub async fn advance_after_idle(d: Duration) {
    settle().await;
    advance(d);
}

/// Yield enough times for every ready task on this executor to run to its
/// next await point.
pub async fn settle() {
    for _ in 0..64 {
        embassy_futures::yield_now().await;
    }
}

/// One line per watched node that is not quiescent.
pub fn describe(nodes: &[&'static TaskNode]) -> String {
    let mut out = String::new();
    for n in nodes {
        if n.is_running() && n.shutdown_requested() {
            out += &format!("\n  `{}` was asked to stop and never acked", n.name);
        } else if n.is_running() {
            out += &format!("\n  `{}` is running", n.name);
        }
    }
    if out.is_empty() {
        "every watched node is down".into()
    } else {
        out
    }
}

/// The canonical worker: serves until asked to stop, acks, records its exit.
#[embassy_executor::task(pool_size = 32)]
pub async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

/// The spawn fn of every node that runs [`worker`] (a spawn fn receives its node).
pub fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let token = worker(node)?;
    node.bind(&token); // trace attribution; nothing without `trace`
    s.spawn(token);
    Ok(())
}
