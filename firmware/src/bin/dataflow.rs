//! Declared, derived and observed dataflow on a real Cortex-M core (issue
//! 30). SENSOR publishes READING through its node and never calls `beat()`
//! or `set_ready()`: its writes are its heartbeat (`beat_timeout:`) and its
//! first write its readiness (`ready_on_write`), so REPORT, which depends on
//! `SENSOR ready`, comes up only once SENSOR has produced, and a SENSOR that
//! stops producing goes stale. The lists are checked against both tasks'
//! bodies (`derived`) when this compiles.
//!
//! The `dataflow-size-signal` / `dataflow-size-access` features add one
//! signal (one writer entry) and then one more access to the same tables,
//! with the code unchanged: the footprint difference is what a signal and an
//! access cost in flash. `dataflow-size-direct` writes READING with a plain
//! `signal(v)` instead of `publish` (what the beat and the readiness add;
//! that build fails its own checks, it is for measuring). See bench/notes.md.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode, derive_dataflow};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Timer};
use fw::check::{check, finish};
use portable_atomic::{AtomicU32, Ordering};

/// What the test asks SENSOR to produce next (its "hardware").
static TRIGGER: Signal<CriticalSectionRawMutex, u32> = Signal::new();
static READING: Signal<CriticalSectionRawMutex, u32> = Signal::new();
/// Only named by the size variants' tables.
#[allow(dead_code)]
static LEVEL: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);
static SHOWN: AtomicU32 = AtomicU32::new(0);

#[cfg(not(any(feature = "dataflow-size-signal", feature = "dataflow-size-access")))]
embassy_supervisor::supervisor_graph! {
    node SENSOR = Terminate, task: sensor, beat_timeout: 50, writes: [READING],
        ready_on_write, derived;
    node REPORT = Terminate, task: report, deps: [SENSOR ready], reads: [READING],
        slot_timeout: 1000, derived;
}

#[cfg(all(
    feature = "dataflow-size-signal",
    not(feature = "dataflow-size-access")
))]
embassy_supervisor::supervisor_graph! {
    node SENSOR = Terminate, task: sensor, beat_timeout: 50, writes: [READING, LEVEL extern],
        ready_on_write;
    node REPORT = Terminate, task: report, deps: [SENSOR ready], reads: [READING],
        slot_timeout: 1000, derived;
}

#[cfg(feature = "dataflow-size-access")]
embassy_supervisor::supervisor_graph! {
    node SENSOR = Terminate, task: sensor, beat_timeout: 50, writes: [READING, LEVEL],
        ready_on_write;
    node REPORT = Terminate, task: report, deps: [SENSOR ready], reads: [READING, LEVEL],
        slot_timeout: 1000;
}

static SUP: Supervisor<2, GRAPH_USES> = Supervisor::with_uses(&GRAPH);

/// One reading per trigger, published through the node.
#[derive_dataflow]
async fn sensor(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(async {
            loop {
                let v = TRIGGER.wait().await;
                #[cfg(not(feature = "dataflow-size-direct"))]
                node.publish(&READING, v);
                // The size variant's plain write: what `publish` adds over it.
                #[cfg(feature = "dataflow-size-direct")]
                READING.signal(v);
            }
        })
        .await;
}

#[derive_dataflow]
async fn report(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(async {
            loop {
                let v = node.reader(&READING).wait().await;
                SHOWN.store(v, Ordering::SeqCst);
            }
        })
        .await;
}

#[embassy_executor::task]
async fn produce_later(v: u32) {
    Timer::after(Duration::from_millis(5)).await;
    TRIGGER.signal(v);
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    // Through `black_box`, so the size variants measure the tables, not
    // queries folded into constants for one known table.
    let graph = core::hint::black_box(&GRAPH);
    check(
        "dataflow: the tables name READING's sides",
        graph.writers_of(&READING).map(|n| n.name).eq(["SENSOR"])
            && graph.readers_of(&READING).map(|n| n.name).eq(["REPORT"])
            && graph.affected_by(&SENSOR).map(|n| n.name).eq(["REPORT"]),
    );
    spawner.spawn(produce_later(7).unwrap());
    let r = SUP.start(spawner).await;
    check(
        "dataflow: REPORT came up once SENSOR had produced (ready_on_write)",
        r.is_ok() && SENSOR.is_ready() && REPORT.is_running(),
    );
    TRIGGER.signal(8);
    Timer::after(Duration::from_millis(40)).await;
    check(
        "dataflow: the reading reached REPORT, and the write was SENSOR's beat",
        SHOWN.load(Ordering::SeqCst) == 8 && GRAPH.all_fresh(),
    );
    Timer::after(Duration::from_millis(20)).await;
    check(
        "dataflow: a SENSOR that stops producing goes stale (60 ms > 50 ms)",
        GRAPH.stale_nodes().map(|n| n.name).eq(["SENSOR"]),
    );
    TRIGGER.signal(9);
    Timer::after(Duration::from_millis(1)).await;
    check("dataflow: producing again is fresh", GRAPH.all_fresh());
    check("dataflow: teardown", SUP.teardown().await.is_ok());
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
