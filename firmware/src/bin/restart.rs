//! Automatic restarts on target (feature `restart-suite`): `Supervisor::run`
//! drives the graph the whole time.
//!
//! 1. A restart: LINK returns `Err` once (`restart: on_failure`); `run()`
//!    brings it back after its 5 ms backoff, and its dependent APP with it
//!    (rest-for-one).
//! 2. The watchdog feed: a feeder "feeds" every millisecond while
//!    `GRAPH.all_fresh()`. PUMP stops beating: the feeds pause, `run()`
//!    cycles PUMP (`beat_timeout: 20` + `restart: on_failure`), its new
//!    instance beats, and the feeds resume.
//! 3. An escalation: FLAKY ends every instance (`restart: always`,
//!    `restart_budget: 2 in 1000`): two restarts pass, the third is refused,
//!    the graph is torn down and `run()` returns a `FaultKind::Escalated` fault
//!    naming FLAKY and 2 restarts.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::Spawner;
use embassy_supervisor::{FaultKind, NodeFault, Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Timer, with_timeout};
use fw::check::{check, finish};
use portable_atomic::{AtomicBool, AtomicU32, Ordering};

static LINK_UPS: AtomicU32 = AtomicU32::new(0);
static APP_UPS: AtomicU32 = AtomicU32::new(0);
static PUMP_UPS: AtomicU32 = AtomicU32::new(0);
static FLAKY_UPS: AtomicU32 = AtomicU32::new(0);
static LINK_FAILS: AtomicBool = AtomicBool::new(true);
static PUMP_BEATS: AtomicBool = AtomicBool::new(true);
static FLAKY_ON: AtomicBool = AtomicBool::new(false);
static FEEDS: AtomicU32 = AtomicU32::new(0);

/// Fails its first instance, then serves until stopped.
async fn link(node: &'static TaskNode) -> Result<(), ()> {
    LINK_UPS.add(1, Ordering::AcqRel);
    if LINK_FAILS.swap(false, Ordering::AcqRel) {
        Timer::after_millis(2).await;
        return Err(());
    }
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    Ok(())
}

async fn app(node: &'static TaskNode) {
    APP_UPS.add(1, Ordering::AcqRel);
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
}

/// Beats every 5 ms while `PUMP_BEATS`.
async fn pump(node: &'static TaskNode) {
    PUMP_UPS.add(1, Ordering::AcqRel);
    let _ = node
        .run_cancellable_acked(async {
            loop {
                Timer::after_millis(5).await;
                if PUMP_BEATS.load(Ordering::Acquire) {
                    node.beat();
                }
            }
        })
        .await;
}

/// Serves until `FLAKY_ON`, then ends every instance after 1 ms.
async fn flaky(node: &'static TaskNode) {
    FLAKY_UPS.add(1, Ordering::AcqRel);
    let _ = node
        .run_cancellable_acked(async {
            while !FLAKY_ON.load(Ordering::Acquire) {
                Timer::after_millis(1).await;
            }
        })
        .await;
}

embassy_supervisor::supervisor_graph! {
    node LINK = Terminate, task: link, exit: Result<(), ()>, restart: on_failure,
        backoff: 5..40;
    node APP = Terminate, task: app, deps: [LINK];
    node PUMP = Terminate, task: pump, beat_timeout: 20, restart: on_failure, backoff: 5..5;
    node FLAKY = Terminate, task: flaky, restart: always, backoff: 5..5,
        restart_budget: 2 in 1000;
}
static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

static RESULT: Signal<CriticalSectionRawMutex, NodeFault> = Signal::new();

#[embassy_executor::task]
async fn run(spawner: Spawner) {
    RESULT.signal(SUP.run(spawner).await.fault());
}

/// The watchdog feeder: feeds only while every policed node is fresh.
#[embassy_executor::task]
async fn feeder() {
    loop {
        if GRAPH.all_fresh() {
            FEEDS.add(1, Ordering::AcqRel);
        }
        Timer::after_millis(1).await;
    }
}

fn feeds() -> u32 {
    FEEDS.load(Ordering::Acquire)
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    spawner.spawn(run(spawner).unwrap());
    spawner.spawn(feeder().unwrap());
    // 1. LINK fails at 2 ms and is back at 7 ms, APP with it.
    Timer::after_millis(30).await;
    check(
        "restart: a failed worker is brought back by run()",
        LINK_UPS.load(Ordering::Acquire) == 2 && LINK.is_running(),
    );
    check(
        "restart: its dependent came back with it (rest-for-one)",
        APP_UPS.load(Ordering::Acquire) == 2 && APP.is_running(),
    );
    check(
        "restart: counted once",
        LINK.restart_spec().is_some_and(|r| r.restarts() == 1),
    );
    // 2. The watchdog feed.
    let before = feeds();
    Timer::after_millis(20).await;
    check(
        "watchdog: fed while every node beats",
        feeds() > before + 10,
    );
    PUMP_BEATS.store(false, Ordering::Release);
    let stale = with_timeout(Duration::from_millis(60), async {
        while GRAPH.all_fresh() {
            Timer::after_millis(1).await;
        }
    })
    .await
    .is_ok();
    check("watchdog: a stalled node stops the feed", stale);
    let paused_at = feeds();
    // Still not beating: `run()` cycles it 5 ms after it went stale (a beat
    // before that would have ended the episode and cancelled the restart).
    let cycled = with_timeout(Duration::from_millis(40), async {
        while PUMP_UPS.load(Ordering::Acquire) < 2 {
            Timer::after_millis(1).await;
        }
    })
    .await
    .is_ok();
    PUMP_BEATS.store(true, Ordering::Release);
    check("watchdog: no feed while stale", feeds() <= paused_at + 1);
    check(
        "watchdog: run() cycled the stalled node",
        cycled && PUMP.is_running(),
    );
    Timer::after_millis(20).await;
    check("watchdog: the feed resumed", feeds() > paused_at + 10);
    // 3. The escalation.
    FLAKY_ON.store(true, Ordering::Release);
    let escalated = with_timeout(Duration::from_millis(200), RESULT.wait()).await;
    let named = matches!(
        escalated,
        Ok(NodeFault { node, kind: FaultKind::Escalated { restarts: 2, window_ms: 1000 } })
            if core::ptr::eq(node, &FLAKY)
    );
    check(
        "escalation: run() returned Escalated naming FLAKY and 2",
        named,
    );
    check(
        "escalation: FLAKY started three times",
        FLAKY_UPS.load(Ordering::Acquire) == 3,
    );
    check(
        "escalation: the graph is torn down",
        SUP.is_halted() && !LINK.is_running() && !APP.is_running() && !PUMP.is_running(),
    );
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
