//! Resident task shells on a real Cortex-M core (issue 13, item 6).
//!
//! - A chain of four `task:` nodes (the last borrows a `lend` resource) and
//!   `LATE` go through repeated teardown / respawn cycles; every cycle brings
//!   every node up again and puts the resource back.
//! - The cross-tier race: `LATE` runs on the thread executor (its shell is
//!   routed there through `executor LOW`), and a task on the interrupt tier
//!   `deactivate`s it and at once `activate`s it again. The ack wakes the
//!   interrupt tier, which preempts the thread executor before the acking
//!   poll returns, so a shell spawned anew would find its task slot still
//!   taken (`SpawnError::Busy`); a resident shell is woken in place.
//! - Cost rows (`ROW|...`, instructions under `-icount`, as `bench.rs`):
//!   `teardown` and `respawn_terminate` of the five nodes, per node, and
//!   one `deactivate` + `activate` of a leaf.
#![no_std]
#![no_main]

use core::future::Future;

use cortex_m_rt::entry;
use embassy_executor::{SendSpawner, Spawner};
use embassy_supervisor::{Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex as Cs;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, Timer};
use fw::check::{check, finish};

embassy_supervisor::supervisor_graph! {
    executor LOW;
    node A0 = Terminate, deps: [], task: work;
    node A1 = Terminate, deps: [A0], task: work;
    node A2 = Terminate, deps: [A1], task: work;
    node A3 = Terminate, deps: [A2], task: lend_work, resources: [UART: u32];
    node LATE = Terminate, deps: [], executor: LOW, task: work;
}

static SUP: Supervisor<5> = Supervisor::new(&GRAPH);

/// The canonical worker: serve until stopped, ack, return.
async fn work(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
}

/// The same, holding a borrowed resource (put back by the shell).
async fn lend_work(node: &'static TaskNode, uart: &mut u32) {
    *uart += 1;
    work(node).await;
}

// ---- measurement -------------------------------------------------------------

include!("../harness/measure.rs");

// ---- the cross-tier race -------------------------------------------------------

/// The interrupt tier's verdict: did the re-activation come up?
static RACE_DONE: Signal<Cs, bool> = Signal::new();

#[embassy_executor::task]
async fn high_restart() {
    // Safety: polled by an embassy executor (the interrupt tier), which is
    // what `for_current_executor` requires.
    let spawner = unsafe { Spawner::for_current_executor() }.await;
    let mut ok = true;
    for _ in 0..8 {
        ok &= SUP.deactivate(&LATE).await.is_ok();
        // Right after the ack: the thread executor has not yet returned
        // from the poll that acked.
        ok &= SUP.activate(&LATE, spawner).await.is_ok();
        ok &= LATE.is_running();
    }
    RACE_DONE.signal(ok);
}

async fn cross_tier(spawner: Spawner, high: SendSpawner) {
    let _ = SUP.respawn_terminate(spawner).await;
    Timer::after_millis(2).await;
    check("resident: LATE is up on the thread tier", LATE.is_running());
    high.spawn(high_restart().unwrap());
    let ok = RACE_DONE.wait().await;
    check(
        "resident: a re-activation from the interrupt tier right after the ack comes up",
        ok,
    );
    check("resident: LATE's shell stayed resident", LATE.is_resident());
}

// ---- the run -------------------------------------------------------------------

const ALL: [&TaskNode; 5] = [&A0, &A1, &A2, &A3, &LATE];

fn chain_up() -> bool {
    ALL.iter().all(|n| n.is_running())
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    let (base, ()) = probe(|| async {}).await;
    // Safety: the only write, before any reader.
    unsafe { OVERHEAD = base };
    UART.provide(0);
    // `LATE`'s tier: the thread executor, through a published spawner.
    LOW.set(spawner.make_send());

    let started = SUP.start(spawner).await.is_ok();
    Timer::after_millis(2).await;
    check("resident: the chain comes up", started && chain_up());

    let mut cycles_ok = true;
    for _ in 0..16 {
        cycles_ok &= SUP.teardown().await.is_ok();
        Timer::after_millis(1).await;
        cycles_ok &= UART.is_filled();
        cycles_ok &= SUP.respawn_terminate(spawner).await.is_ok();
        Timer::after_millis(1).await;
        cycles_ok &= chain_up();
    }
    check("resident: 16 teardown/respawn cycles", cycles_ok);
    check(
        "resident: the shells stayed resident",
        ALL.iter().all(|n| n.is_resident()),
    );

    let c = cost(|| SUP.teardown(), |r| r.is_ok()).await;
    row("CHAIN task:", 5, "teardown", 5, c);
    Timer::after_millis(2).await;
    let c = cost(|| SUP.respawn_terminate(spawner), |r| r.is_ok()).await;
    row("CHAIN task:", 5, "respawn_terminate", 5, c);
    let c = cost(
        || async {
            let down = SUP.deactivate(&A3).await.is_ok();
            let up = SUP.activate(&A3, spawner).await.is_ok();
            down && up && A3.is_running()
        },
        |ok| *ok,
    )
    .await;
    row("CHAIN task:", 5, "deactivate + activate(leaf)", 1, c);
    check(
        "resident: the cost rows were measured",
        !FAILED.load(portable_atomic::Ordering::Acquire),
    );
    let _ = SUP.teardown().await;

    match fw::exec::HIGH.start(fw::board::SPARE_IRQ) {
        Some(high) => cross_tier(spawner, high).await,
        None => {
            check("resident: the interrupt tier starts", false);
        }
    }
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
