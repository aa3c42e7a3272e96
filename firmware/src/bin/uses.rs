//! A supervisor typed with what its graph uses, on a real Cortex-M core
//! (issue 16). The graph declares no gate and no `Pause` node, so
//! `GRAPH_USES` is 0 and `Supervisor<4, GRAPH_USES>` carries neither the
//! gate waits nor the resume of a parked instance. It must still:
//!
//! - bring the graph up in order, and retry a `Busy` spawn once after an
//!   executor pass (`FLAKY`'s spawn refuses as told);
//! - on a second `Busy`, return the fault naming the node, keep its
//!   dependent down and bring up the rest;
//! - tear down, respawn, and run the cascades.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::{SpawnError, SpawnToken, Spawner};
use embassy_supervisor::{FaultKind, Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
use fw::check::{check, finish};
use portable_atomic::{AtomicU32, Ordering};

/// Spawns of `FLAKY` tried, and how many of them to refuse with `Busy`.
static ATTEMPTS: AtomicU32 = AtomicU32::new(0);
static REFUSE: AtomicU32 = AtomicU32::new(0);

embassy_supervisor::supervisor_graph! {
    node ROOT = Terminate, task: work;
    node FLAKY = Terminate, deps: [ROOT], spawn: flaky;
    node AFTER = Terminate, deps: [FLAKY], task: work;
    node BESIDE = Terminate, deps: [ROOT], task: work;
}

static SUP: Supervisor<4, GRAPH_USES> = Supervisor::with_uses(&GRAPH);
static ALL: [&TaskNode; 4] = [&ROOT, &FLAKY, &AFTER, &BESIDE];

/// The canonical worker: serve until stopped, ack, return.
async fn work(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
}

#[embassy_executor::task]
async fn flaky_task(node: &'static TaskNode) {
    work(node).await;
    node.mark_exited();
}

fn flaky(node: &'static TaskNode) -> Result<SpawnToken<impl Sized>, SpawnError> {
    if ATTEMPTS.fetch_add(1, Ordering::SeqCst) < REFUSE.load(Ordering::SeqCst) {
        return Err(SpawnError::Busy);
    }
    flaky_task(node)
}

fn refuse(n: u32) {
    ATTEMPTS.store(0, Ordering::SeqCst);
    REFUSE.store(n, Ordering::SeqCst);
}

fn all_up() -> bool {
    ALL.iter().all(|n| n.is_running())
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    check("uses: the graph declares nothing", GRAPH_USES == 0);

    refuse(1);
    let r = SUP.start(spawner).await;
    check(
        "uses: one Busy is retried and start is Ok",
        r.is_ok() && all_up(),
    );
    check(
        "uses: FLAKY was tried twice",
        ATTEMPTS.load(Ordering::SeqCst) == 2,
    );
    check(
        "uses: teardown",
        SUP.teardown().await.is_ok() && !ALL.iter().any(|n| n.is_running()),
    );

    refuse(2);
    let r = SUP.start(spawner).await;
    check(
        "uses: a second Busy is the fault, naming FLAKY",
        matches!(r, Err(e) if core::ptr::eq(e.node, &FLAKY) && e.kind == FaultKind::SpawnBusy),
    );
    check(
        "uses: its dependent stays down, the rest comes up",
        ROOT.is_running() && BESIDE.is_running() && !FLAKY.is_running() && !AFTER.is_running(),
    );

    refuse(0);
    let r = SUP.respawn_terminate(spawner).await;
    check(
        "uses: respawn_terminate brings the rest up",
        r.is_ok() && all_up(),
    );

    let r = SUP.deactivate(&FLAKY).await;
    check(
        "uses: deactivate stops the node and its dependent",
        r.is_ok() && !FLAKY.is_running() && !AFTER.is_running() && BESIDE.is_running(),
    );
    refuse(1);
    let r = SUP.activate(&AFTER, spawner).await;
    check(
        "uses: activate retries the Busy and brings both back",
        r.is_ok() && all_up(),
    );
    check("uses: final teardown", SUP.teardown().await.is_ok());
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
