//! What a restart costs (feature `bench-restart`), under
//! `qemu -icount shift=0,sleep=off` (one virtual ns per instruction; see
//! `bench.rs`), with `Supervisor::run` driving the graph the whole time, and
//! what a restart policy costs in bytes.
//!
//! Graph: ROOT <- MID <- {LEAF, PLEAF}. LEAF has no restart configuration;
//! PLEAF has `restart: on_failure`, a 10 ms backoff and a budget of 255 in
//! 1 ms (so repeated measurements never run out of it). Rows:
//!
//! - `restart(leaf)`, with and without a policy: stop the running leaf, await
//!   its ack, spawn it again, its first poll; the difference is the budget
//!   bookkeeping and the policy node's extra driver pass.
//! - `restart(MID)`: rest-for-one over MID and its two leaves (3 nodes).
//! - `exit -> restart scheduled`: PLEAF's worker returns a failure; its
//!   shell's `mark_failed`, the driver's wake-up and its pass over the policy
//!   nodes, until the executor idles in the backoff.
//! - `restart(PLEAF) after its exit`: the restart the driver makes when the
//!   backoff ends (the same verb on a down node), here called directly.
#![no_std]
#![no_main]

use core::future::Future;

use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{
    Graph, Mode, NodeSpec, RestartLog, RestartPolicy, RestartSpec, RestartState, Supervisor,
    TaskNode,
};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, Timer};

static FAIL: Signal<CriticalSectionRawMutex, ()> = Signal::new();

#[embassy_executor::task(pool_size = 4)]
async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

/// PLEAF's worker: returns a failure when `FAIL` is signalled.
#[embassy_executor::task]
async fn failing(node: &'static TaskNode) {
    match node.run_cancellable_acked(FAIL.wait()).await {
        Ok(()) => node.mark_failed(),
        Err(_) => node.mark_exited(),
    }
}

fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(worker(node)?);
    Ok(())
}

fn spawn_failing(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    FAIL.reset();
    s.spawn(failing(node)?);
    Ok(())
}

static PLEAF_STATE: RestartState = RestartState::new();
static PLEAF_LOG: RestartLog<255> = [const { portable_atomic::AtomicU32::new(0) }; 255];
static PLEAF_RESTART: RestartSpec = RestartSpec::new(RestartPolicy::OnFailure, &PLEAF_STATE)
    .with_backoff(10, 10)
    .with_budget(1, &PLEAF_LOG);

static ROOT: TaskNode = TaskNode::new(
    &NodeSpec::new("ROOT", Mode::Terminate)
        .with_spawn(spawn_worker)
        .at(0),
);
static MID: TaskNode = TaskNode::new(
    &NodeSpec::new("MID", Mode::Terminate)
        .with_spawn(spawn_worker)
        .at(1),
);
static LEAF: TaskNode = TaskNode::new(
    &NodeSpec::new("LEAF", Mode::Terminate)
        .with_spawn(spawn_worker)
        .at(2),
);
static PLEAF: TaskNode = TaskNode::new(
    &NodeSpec::new("PLEAF", Mode::Terminate)
        .with_spawn(spawn_failing)
        .with_restart(&PLEAF_RESTART)
        .at(3),
);
static GRAPH: Graph<4> = Graph::new(
    [Some(&ROOT), Some(&MID), Some(&LEAF), Some(&PLEAF)],
    [&[], &[0], &[1], &[1]],
)
.with_restarts(&[3]);
static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

include!("../harness/measure.rs");

#[embassy_executor::task]
async fn run(spawner: Spawner) {
    let e = SUP.run(spawner).await;
    fw::println!("run() returned: {}", e);
    FAILED.store(true, portable_atomic::Ordering::Release);
}

/// One figure, median of five.
async fn five<F: Future>(mut f: impl FnMut() -> F, ok: impl Fn(&F::Output) -> bool) -> Option<u64> {
    let mut v = [0u64; 5];
    for slot in &mut v {
        *slot = cost(&mut f, &ok).await?;
    }
    v.sort_unstable();
    Some(v[2])
}

#[embassy_executor::task]
async fn bench(spawner: Spawner) {
    let (base, ()) = probe(|| async {}).await;
    // Safety: the only write, before any reader.
    unsafe { OVERHEAD = base };
    fw::println!("INFO|board|{}", fw::board::NAME);
    fw::println!(
        "INFO|size_of::<TaskNode>() (RAM, every node)|{}",
        core::mem::size_of::<TaskNode>()
    );
    fw::println!(
        "INFO|size_of::<NodeSpec>() (flash, every node)|{}",
        core::mem::size_of::<NodeSpec>()
    );
    fw::println!(
        "INFO|size_of::<RestartSpec>() (flash, per policy node)|{}",
        core::mem::size_of::<RestartSpec>()
    );
    fw::println!(
        "INFO|size_of::<RestartState>() (RAM, per policy node)|{}",
        core::mem::size_of::<RestartState>()
    );
    fw::println!(
        "INFO|RestartLog bytes per budget restart (RAM)|{}",
        core::mem::size_of::<RestartLog<1>>()
    );

    spawner.spawn(run(spawner).unwrap());
    Timer::after_millis(2).await;
    let ok = |r: &Result<(), _>| r.is_ok();
    let c = five(|| SUP.restart(&LEAF, spawner), ok).await;
    row("RESTART", 4, "restart(leaf), no policy", 1, c);
    let c = five(|| SUP.restart(&PLEAF, spawner), ok).await;
    row("RESTART", 4, "restart(leaf), policy + budget", 1, c);
    let c = five(|| SUP.restart(&MID, spawner), ok).await;
    row("RESTART", 4, "restart(MID): MID + 2 leaves", 3, c);
    let mut v = [0u64; 5];
    let mut w = [0u64; 5];
    for (a, b) in v.iter_mut().zip(w.iter_mut()) {
        // The exit and the driver's scheduling pass.
        let down = |(): &()| !PLEAF.is_running() && PLEAF.has_failed();
        *a = cost(|| async { FAIL.signal(()) }, down).await.unwrap_or(0);
        // The restart itself, made here before the 10 ms backoff ends (the
        // driver then finds PLEAF up and drops its schedule).
        *b = cost(|| SUP.restart(&PLEAF, spawner), ok).await.unwrap_or(0);
        Timer::after_millis(12).await;
    }
    v.sort_unstable();
    w.sort_unstable();
    let got = |x: u64| (x > 0).then_some(x);
    row("RESTART", 4, "exit -> restart scheduled", 1, got(v[2]));
    row("RESTART", 4, "restart(PLEAF) after its exit", 1, got(w[2]));
    fw::exit(if FAILED.load(portable_atomic::Ordering::Acquire) {
        1
    } else {
        0
    })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(bench(s).unwrap()))
}
