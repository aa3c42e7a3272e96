//! The executor thread, the pass/hang verdict and the mock clock.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::task::{Poll, Waker};
use std::time::{Duration as StdDuration, Instant as StdInstant};

use embassy_executor::{Executor, Spawner};
use embassy_supervisor::{Graph, TaskNode};
use embassy_time::{Duration, Instant, MockDriver};

/// Wall-clock budget of one test before it is declared hung.
pub const WALL_LIMIT: StdDuration = StdDuration::from_secs(10);

static SERIAL: Mutex<()> = Mutex::new(());
static PASSED: AtomicBool = AtomicBool::new(false);

fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Run one test. `spawn_driver` spawns the test's driver task, which calls
/// [`pass`] when every assertion held; `watched` are the nodes to name if the
/// test hangs. Starts with an empty [`log`](crate::log) and no
/// [`fault`](crate::fault)s.
///
/// Panics (failing the test) if the driver panics, or if it has not passed
/// within [`WALL_LIMIT`]: the message names each watched node still running.
pub fn run(watched: &[&'static TaskNode], spawn_driver: fn(Spawner)) {
    let _guard = serial();
    PASSED.store(false, Ordering::SeqCst);
    crate::log::clear();
    crate::fault::clear();
    // A fault injected directly (`node.inject`) must not leak into this test.
    #[cfg(feature = "fault-inject")]
    for node in watched {
        node.clear_fault();
    }
    let mut exec = EXECUTOR.lock().unwrap_or_else(|p| p.into_inner());
    if exec.as_ref().is_none_or(|t| t.is_finished()) {
        // A thread that ended has reported its panic to the test that ran
        // on it; start a fresh one.
        *exec = Some(std::thread::spawn(|| {
            // The executor must outlive every task it runs: leak it.
            let ex: &'static mut Executor = Box::leak(Box::new(Executor::new()));
            ex.run(|s| s.spawn(dispatcher(s).unwrap()));
        }));
    }
    hand_over(spawn_driver);
    let deadline = StdInstant::now() + WALL_LIMIT;
    loop {
        if PASSED.load(Ordering::SeqCst) {
            return;
        }
        if exec.as_ref().is_some_and(|t| t.is_finished()) {
            match exec.take().unwrap().join() {
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

// Every test of a binary runs on one executor thread. Tasks a test leaves
// behind (a parked resident shell, a `run()` loop) stay on that thread, so
// the next test that wakes them runs them in its own executor's order; with
// a thread per test they would run on the old thread, concurrently with the
// new test, and its counts would race.
static EXECUTOR: Mutex<Option<std::thread::JoinHandle<()>>> = Mutex::new(None);

/// The driver handed to the executor thread, and the dispatcher's waker.
struct Mailbox {
    driver: Option<fn(Spawner)>,
    dispatcher: Option<Waker>,
}

static NEXT: Mutex<Mailbox> = Mutex::new(Mailbox {
    driver: None,
    dispatcher: None,
});

fn hand_over(spawn_driver: fn(Spawner)) {
    let mut next = NEXT.lock().unwrap_or_else(|p| p.into_inner());
    next.driver = Some(spawn_driver);
    if let Some(w) = next.dispatcher.take() {
        w.wake();
    }
}

/// Spawns each test's driver on this executor as it is handed over.
#[embassy_executor::task]
async fn dispatcher(spawner: Spawner) {
    loop {
        let spawn_driver = core::future::poll_fn(|cx| {
            let mut next = NEXT.lock().unwrap_or_else(|p| p.into_inner());
            match next.driver.take() {
                Some(f) => Poll::Ready(f),
                None => {
                    next.dispatcher = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await;
        spawn_driver(spawner);
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

/// Move the mock clock forward `d` in steps of `step`, letting every task on
/// this executor run to its next await point before each step and after the
/// last: timers due in between fire in order, as they would on a device.
pub async fn advance_in_steps(d: Duration, step: Duration) {
    let mut left = d;
    while left > Duration::from_ticks(0) {
        let now = if left < step { left } else { step };
        settle().await;
        advance(now);
        left -= now;
    }
    settle().await;
}

/// Yield enough times for every ready task on this executor to run to its
/// next await point.
pub async fn settle() {
    for _ in 0..64 {
        embassy_futures::yield_now().await;
    }
}

/// Run `op` while the mock clock steps 1 ms at a time (every task on this
/// executor runs to its next await point before each step): its output
/// and the mock milliseconds it took.
pub async fn stepped<T>(op: impl Future<Output = T>) -> (T, u64) {
    let start = embassy_time::Instant::now();
    let clock = async {
        loop {
            settle().await;
            advance(Duration::from_millis(1));
        }
    };
    match embassy_futures::select::select(op, clock).await {
        embassy_futures::select::Either::First(out) => {
            (out, (embassy_time::Instant::now() - start).as_millis())
        }
        embassy_futures::select::Either::Second(never) => never,
    }
}

/// [`wait_until`]'s condition did not hold within its timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimedOut {
    /// The mock time waited.
    pub waited: Duration,
}

/// Wait until `condition` holds: settle, check, and step the mock clock 1 ms
/// at a time, up to `timeout` of mock time. Timers due on the way fire in
/// order, so a condition reached through the graph's own timeouts is found
/// at the first millisecond it holds.
pub async fn wait_until(
    mut condition: impl FnMut() -> bool,
    timeout: Duration,
) -> Result<(), TimedOut> {
    let start = Instant::now();
    let step = Duration::from_millis(1);
    loop {
        settle().await;
        if condition() {
            return Ok(());
        }
        let waited = Instant::now() - start;
        if waited >= timeout {
            return Err(TimedOut { waited });
        }
        advance(step.min(timeout - waited));
    }
}

/// Every node of `graph`: what [`run`] should watch.
pub fn nodes_of<const N: usize>(graph: &Graph<N>) -> Vec<&'static TaskNode> {
    (0..N).filter_map(|i| graph.node(i)).collect()
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
