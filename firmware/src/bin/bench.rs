//! Cost benchmark. Run under `qemu -icount shift=0,sleep=off`: virtual time is
//! one nanosecond per guest instruction, so an `Instant` difference is an
//! instruction count, identical on every run and host.
//!
//! Each figure is the instructions from the call until the executor next runs
//! out of work (so it includes the workers' own part: first polls, acks, and
//! the executor's scheduling), minus the same probe around an empty body.
//! Workloads: CHAIN(N) (node i depends on node i-1) and WIDE(N) (one root,
//! N-1 dependents), every worker the canonical `run_cancellable_acked` loop
//! ([`work`]). Node `i` runs its own generated task `w{i}` (pool_size 1; see
//! build.rs): one task per node type, as applications are written, so no
//! spawn pays embassy's linear task-pool search, which would otherwise make
//! every spawn O(N) and hide the supervisor's own growth. Pool grow and
//! shrink are measured by `bench_pool.rs`.
//!
//! Embassy-only baselines, for the supervisor's share (total - baseline):
//! - direct spawn + first poll: for each worker in slot order, the same spawn
//!   fn `spawn_w{i}` the node holds (token, spawn), called directly, and the
//!   task's first poll; no supervisor code runs inside the probe. Before the
//!   probe, every worker is `adopt`ed (marked running, so the supervisor can
//!   stop it afterwards, and in the state a supervised spawn leaves it in
//!   before its first poll) with the token of a no-op task: `adopt` takes a
//!   token only as evidence that a task is being created and reads nothing
//!   from it. Adopting inside the probe, as before, put about 40
//!   instructions per node of supervisor code (a flag RMW and a change
//!   notification) into the baseline.
//! - direct stop, dependents first: N generated tasks `d{i}` (pool_size 1
//!   each), already spawned and parked on their own stop `Signal`; the probe
//!   signals them in reverse slot order (dependents before dependencies, the
//!   order teardown uses) and awaits each task's own done `Signal`, raised as
//!   its last act, before signalling the next. Each one costs a signal, a
//!   wake, a poll to completion, the task's release, and the probe's wake.
//!   embassy-sync's `Signal` is the cheapest mechanism tried: an
//!   `AtomicBool` + `AtomicWaker` pair per event cost about 40 instructions
//!   more per node on the M33.
//!
//! Output lines are `|`-separated table rows for bench.sh.
#![no_std]
#![no_main]

use core::future::Future;

use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{
    ControlOp, Graph, Mode, NodeSpec, SpawnFn, Supervisor, TaskNode, request_control, wait_control,
};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, Timer};

include!(concat!(env!("OUT_DIR"), "/bench_nodes.rs"));

/// The canonical worker body, shared by every generated task `w{i}`.
async fn work(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

type Sig = Signal<CriticalSectionRawMutex, ()>;
/// Direct-stop baseline: stop request and exit report of task `d{i}`.
static STOP: [Sig; MAX_N] = [const { Signal::new() }; MAX_N];
static DONE: [Sig; MAX_N] = [const { Signal::new() }; MAX_N];

/// Body of the direct-stop baseline task `d{i}`: park until stopped, then
/// report the exit as the last act.
async fn direct(i: usize) {
    STOP[i].wait().await;
    DONE[i].signal(());
}

// ---- workloads ---------------------------------------------------------------

static IDX: [u8; 256] = {
    let mut a = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        a[i] = i as u8;
        i += 1;
    }
    a
};

const fn first<const N: usize>() -> [Option<&'static TaskNode>; N] {
    let mut n = [None; N];
    let mut i = 0;
    while i < N {
        n[i] = Some(&W[i]);
        i += 1;
    }
    n
}

const fn chain<const N: usize>() -> [&'static [u8]; N] {
    let mut d: [&'static [u8]; N] = [&[]; N];
    let mut i = 1;
    while i < N {
        d[i] = core::slice::from_ref(&IDX[i - 1]);
        i += 1;
    }
    d
}

const fn wide<const N: usize>() -> [&'static [u8]; N] {
    let mut d: [&'static [u8]; N] = [&[]; N];
    let mut i = 1;
    while i < N {
        d[i] = core::slice::from_ref(&IDX[0]);
        i += 1;
    }
    d
}

macro_rules! workload {
    ($graph:ident, $sup:ident, $n:literal, $shape:ident) => {
        static $graph: Graph<$n> = Graph::new(first::<$n>(), $shape::<$n>());
        static $sup: Supervisor<$n> = Supervisor::new(&$graph);
    };
}

workload!(CHAIN8, SUP_C8, 8, chain);
workload!(WIDE8, SUP_W8, 8, wide);
workload!(CHAIN64, SUP_C64, 64, chain);
workload!(WIDE64, SUP_W64, 64, wide);
#[cfg(not(feature = "microbit"))]
workload!(CHAIN250, SUP_C250, 250, chain);
#[cfg(not(feature = "microbit"))]
workload!(WIDE250, SUP_W250, 250, wide);

// ---- measurement -------------------------------------------------------------

include!("../harness/measure.rs");

/// The embassy-only part of a start: token, spawn, first poll, for the same
/// per-node tasks.
fn spawn_direct(n: usize, spawner: Spawner) -> bool {
    W.iter()
        .zip(SPAWN_W.iter())
        .take(n)
        .all(|(w, spawn): (&'static TaskNode, &SpawnFn)| spawn(w, spawner).is_ok())
}

#[embassy_executor::task]
async fn marker() {}

/// Mark the first `n` workers running ahead of [`spawn_direct`], so the
/// supervisor can stop them; see the module doc for the borrowed token.
fn adopt_direct(n: usize, spawner: Spawner) -> bool {
    match marker() {
        Ok(token) => {
            W.iter().take(n).for_each(|w| w.adopt(&token));
            spawner.spawn(token);
            true
        }
        Err(_) => false,
    }
}

/// The embassy-only part of a teardown: stop the `n` parked `d{i}` tasks,
/// dependents first, each exit awaited before the next stop.
async fn stop_direct(n: usize) -> bool {
    for i in (0..n).rev() {
        STOP[i].signal(());
        DONE[i].wait().await;
    }
    true
}

async fn run_workload<const N: usize>(name: &str, sup: &'static Supervisor<N>, spawner: Spawner) {
    let wide = name == "WIDE";
    if !wide {
        let adopted = adopt_direct(N, spawner);
        // Lets the marker task run and leave before the probe starts.
        Timer::after_millis(2).await;
        let c = cost(|| async { spawn_direct(N, spawner) }, |ok| adopted && *ok).await;
        row("embassy only", N, "direct spawn + first poll", N, c);
        if sup.teardown().await.is_err() {
            FAILED.store(true, portable_atomic::Ordering::Release);
        }
        // Park the baseline tasks outside the probe; only the stop is timed.
        let spawned = SPAWN_D.iter().take(N).all(|spawn| spawn(spawner).is_ok());
        Timer::after_millis(2).await;
        let c = cost(|| stop_direct(N), |ok| spawned && *ok).await;
        row("embassy only", N, "direct stop, dependents first", N, c);
    }
    let c = cost(|| sup.start(spawner), |r| r.is_ok()).await;
    row(name, N, "start", N, c);
    let c = cost(|| sup.teardown(), |r| r.is_ok()).await;
    row(name, N, "teardown", N, c);
    let c = cost(|| sup.respawn_terminate(spawner), |r| r.is_ok()).await;
    row(name, N, "respawn_terminate", N, c);
    let c = cost(|| sup.deactivate(&W[0]), |r| r.is_ok()).await;
    row(name, N, "deactivate(root)", N, c);
    // From the last node: the whole chain; on a wide graph the root and
    // one leaf, and the root's return releases the other held leaves too.
    let c = cost(
        || sup.activate(&W[N - 1], spawner),
        |r| r.is_ok() && W[N - 1].is_running(),
    )
    .await;
    row(name, N, "activate(last)", N, c);
    // One control command each way on the leaf, through the mailbox.
    let c = cost(
        || async move {
            request_control(&W[N - 1], ControlOp::Deactivate).await;
            let cmd = wait_control().await;
            sup.apply_control(cmd, spawner).await
        },
        |r| r.is_ok(),
    )
    .await;
    row(name, N, "control Deactivate(leaf)", 1, c);
    let c = cost(
        || async move {
            request_control(&W[N - 1], ControlOp::Activate).await;
            let cmd = wait_control().await;
            sup.apply_control(cmd, spawner).await
        },
        |r| r.is_ok(),
    )
    .await;
    row(name, N, "control Activate(leaf)", 1, c);
    if wide {
        // A cascade costs what it stops, not the graph: only the root and
        // one leaf run; the rest of the leaves are down (per graph node).
        let _ = sup.teardown().await;
        let up = sup.start_node(&W[0], spawner).await.is_ok()
            && sup.start_node(&W[1], spawner).await.is_ok();
        Timer::after_millis(2).await;
        let c = cost(|| sup.deactivate(&W[0]), |r| up && r.is_ok()).await;
        row(name, N, "deactivate(root), 2 running", N, c);
    }
    // Back to all-enabled and all-down for the next workload.
    for node in W.iter().take(N) {
        // A failure shows in the check below (a node left down).
        let _ = sup.activate(node, spawner).await;
    }
    let _ = sup.teardown().await;
    Timer::after_millis(2).await;
    if W.iter().take(N).any(|w| w.is_running() || w.is_disabled()) {
        fw::println!("cleanup of {}({}) failed", name, N);
        FAILED.store(true, portable_atomic::Ordering::Release);
    }
}

#[embassy_executor::task]
async fn bench(spawner: Spawner) {
    let (base, ()) = probe(|| async {}).await;
    // Safety: the only write, before any reader.
    unsafe { OVERHEAD = base };
    fw::println!("INFO|board|{}", fw::board::NAME);
    fw::println!("INFO|probe overhead (instr)|{}", base);
    fw::println!(
        "INFO|size_of::<TaskNode>()|{}",
        core::mem::size_of::<TaskNode>()
    );

    run_workload("CHAIN", &SUP_C8, spawner).await;
    run_workload("WIDE", &SUP_W8, spawner).await;
    run_workload("CHAIN", &SUP_C64, spawner).await;
    run_workload("WIDE", &SUP_W64, spawner).await;
    #[cfg(not(feature = "microbit"))]
    {
        run_workload("CHAIN", &SUP_C250, spawner).await;
        run_workload("WIDE", &SUP_W250, spawner).await;
    }

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
