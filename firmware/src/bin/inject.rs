//! Fault injection on a real core (feature `fault-inject`): each fault is
//! injected into a running node of a `supervisor_graph!` and the supervisor's
//! outcome checked, as a field engineer would rehearse it:
//!
//! - `Stall`: the node stops beating (the liveness monitor reports it stale)
//!   and its stop comes back as the missed-ack error; `clear_fault` lets it
//!   ack late.
//! - `Wedge`: the node runs on (it keeps beating) but its stop comes back as
//!   the missed-ack error; `clear_fault` lets it ack late.
//! - `Crash`, injected from the interrupt tier: the node reads as exited
//!   without a stop, its `exit:` slot empty.
//! - `Hog`: one poll holds the thread executor for the ticks asked; with the
//!   trace recorders on (`trace-hooks`) it is the node's longest poll.
//!
//! Exit 0 if every check passed.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::Spawner;
use embassy_supervisor::{Fault, Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
use embassy_time::{Duration, Instant, Timer};
use fw::check::{check, finish};
use portable_atomic::{AtomicBool, Ordering};

/// Beats every millisecond until stopped, then acks.
async fn ticker(node: &'static TaskNode) {
    let work = async {
        loop {
            Timer::after_millis(1).await;
            node.beat();
        }
    };
    let _ = node.run_cancellable(work).await;
    node.ack_dropped();
}

/// Waits to be stopped; a finish would record 1 in its exit slot.
async fn job(node: &'static TaskNode) -> u8 {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
    1
}

// Unnamed: under `trace-hooks` it defines the executor's trace hooks. Short
// ack windows keep the missed-ack checks quick.
embassy_supervisor::supervisor_graph! {
    node PUMP = Terminate, task: ticker, beat_timeout: 20, ack_timeout: 50;
    node VALVE = Terminate, task: ticker, ack_timeout: 50;
    node JOB = Terminate, task: job, exit: u8;
    node BUSY = Terminate, task: ticker;
}
static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

/// The missed-ack error of a stop names `node`.
fn missed_ack(r: Result<(), embassy_supervisor::ShutdownTimeout>, node: &TaskNode) -> bool {
    r.is_err_and(|e| core::ptr::eq(e.node, node))
}

async fn stall() {
    let injected = PUMP.inject(Fault::Stall).is_ok();
    Timer::after_millis(40).await;
    check(
        "inject: a stalled node goes stale",
        injected && PUMP.is_running() && GRAPH.stale_nodes().any(|n| core::ptr::eq(n, &PUMP)),
    );
    check(
        "inject: a stalled node's stop is the missed-ack error",
        missed_ack(SUP.stop_node(&PUMP).await, &PUMP),
    );
    PUMP.clear_fault();
    Timer::after_millis(5).await;
    check(
        "inject: cleared, the stalled node acks late",
        !PUMP.is_running() && PUMP.has_exited(),
    );
}

async fn wedge() {
    let injected = VALVE.inject(Fault::Wedge).is_ok();
    Timer::after_millis(10).await;
    check(
        "inject: a wedged node runs on until stopped",
        injected && VALVE.is_running() && !VALVE.is_stale(Duration::from_millis(5)),
    );
    check(
        "inject: a wedged node's stop is the missed-ack error",
        missed_ack(SUP.stop_node(&VALVE).await, &VALVE),
    );
    VALVE.clear_fault();
    Timer::after_millis(5).await;
    check("inject: cleared, the wedged node acks late", !VALVE.is_running());
}

/// Set by the interrupt tier once its injection was taken.
static CRASH_INJECTED: AtomicBool = AtomicBool::new(false);

/// On the interrupt tier: crash JOB from interrupt context.
#[embassy_executor::task]
async fn crash_from_irq() {
    CRASH_INJECTED.store(JOB.inject(Fault::Crash).is_ok(), Ordering::Release);
}

async fn crash() {
    let Some(high) = fw::exec::HIGH.start(fw::board::SPARE_IRQ) else {
        check("inject: the interrupt tier is up", false);
        return;
    };
    high.spawn(crash_from_irq().unwrap());
    Timer::after_millis(2).await;
    check(
        "inject: a crash injected from an interrupt reads as an exit, no exit value",
        CRASH_INJECTED.load(Ordering::Acquire)
            && !JOB.is_running()
            && JOB.has_exited()
            && !JOB.shutdown_requested()
            && !JOB_EXIT.is_filled()
            && JOB.fault().is_none(),
    );
}

async fn hog() {
    let hog = Duration::from_millis(5);
    let t0 = Instant::now();
    let injected = BUSY.inject(Fault::Hog(hog.as_ticks() as u32)).is_ok();
    // BUSY's task runs (and spins) before this one is polled again.
    Timer::after_micros(100).await;
    check(
        "inject: a hog holds the executor for its ticks, once",
        injected && t0.elapsed() >= hog && BUSY.fault().is_none() && BUSY.is_running(),
    );
    check(
        "inject: with trace on, the hog is the node's longest poll",
        BUSY.trace_stats().max_poll_ticks >= hog.as_ticks() as u32,
    );
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    check("inject: bring-up", SUP.start(spawner).await.is_ok());
    Timer::after_millis(5).await;
    stall().await;
    wedge().await;
    crash().await;
    hog().await;
    check("inject: teardown", SUP.teardown().await.is_ok());
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
