//! Features `dataflow` + `liveness` + `readiness`, on real executors: a
//! write through the node is its beat (a producer that stops producing goes
//! stale with no `beat()` call anywhere) and, on a `ready_on_write` node,
//! its readiness (`deps: [X ready]` waits for X's first write).
#![cfg(all(
    feature = "macros",
    feature = "dataflow",
    feature = "liveness",
    feature = "readiness"
))]
mod common;

use core::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::{Supervisor, TaskNode};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex as Cs;
use embassy_sync::channel::Channel;
use embassy_sync::signal::Signal;
use embassy_time::Duration;

/// What the test asks the sensor to produce next (the sensor's "hardware").
static TRIGGER: Signal<Cs, u32> = Signal::new();
static SAMPLE: Signal<Cs, u32> = Signal::new();
/// What the reporter last saw.
static SHOWN: AtomicU32 = AtomicU32::new(0);

/// Produces one sample per trigger; never calls `beat()` or `set_ready()`.
async fn sensor(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(async {
            loop {
                let v = TRIGGER.wait().await;
                node.publish(&SAMPLE, v);
            }
        })
        .await;
}

async fn report(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(async {
            loop {
                let v = node.reader(&SAMPLE).wait().await;
                SHOWN.store(v, Ordering::Relaxed);
            }
        })
        .await;
}

mod observed {
    use super::*;

    embassy_supervisor::supervisor_graph! {
        name: OBSERVED;
        node SENSOR = Terminate, task: sensor, beat_timeout: 500, writes: [SAMPLE];
        node REPORT = Terminate, task: report, deps: [SENSOR], reads: [SAMPLE];
    }

    static SUP: Supervisor<2> = Supervisor::new(&OBSERVED);

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        // A fresh spawn counts as a beat; then only writes do.
        common::advance(Duration::from_millis(400));
        TRIGGER.signal(7);
        common::settle().await;
        assert_eq!(
            SHOWN.load(Ordering::Relaxed),
            7,
            "the reporter saw the sample"
        );
        assert_eq!(SENSOR.ticks_since_beat(), 0, "the write was the beat");
        common::advance(Duration::from_millis(400));
        assert!(OBSERVED.all_fresh(), "wrote 400 ms ago, within 500");

        // The producer stops producing: stale, with no beat() anywhere.
        let stale = join(OBSERVED.wait_health(), async {
            common::advance_after_idle(Duration::from_millis(101)).await;
        })
        .await
        .0;
        assert_eq!(stale.name, "SENSOR");
        assert!(!OBSERVED.all_fresh());

        // Producing again ends the episode.
        TRIGGER.signal(8);
        common::settle().await;
        assert!(OBSERVED.all_fresh());
        assert_eq!(SHOWN.load(Ordering::Relaxed), 8);
        SUP.teardown().await.unwrap();
        common::pass();
    }

    pub static NODES: [&TaskNode; 2] = [&SENSOR, &REPORT];
}

#[test]
fn a_producer_that_stops_writing_goes_stale() {
    common::run(&observed::NODES, |s| s.spawn(observed::driver(s).unwrap()));
}

mod produced {
    use super::*;

    embassy_supervisor::supervisor_graph! {
        name: PRODUCED;
        node SENSOR = Terminate, task: sensor, writes: [SAMPLE], ready_on_write;
        // Brought up only once SENSOR has produced.
        node REPORT = Terminate, task: report, deps: [SENSOR ready], reads: [SAMPLE],
            slot_timeout: 10_000;
    }

    static SUP: Supervisor<2> = Supervisor::new(&PRODUCED);

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert!(SENSOR.ready_on_write() && !REPORT.ready_on_write());
        for round in 1..=2u32 {
            let (started, ()) = join(SUP.start(spawner), async {
                common::settle().await;
                assert!(SENSOR.is_running() && !SENSOR.is_ready());
                assert!(
                    !REPORT.is_running(),
                    "REPORT waits for SENSOR's first write"
                );
                TRIGGER.signal(round);
            })
            .await;
            started.unwrap();
            assert!(SENSOR.is_ready() && REPORT.is_running());
            // Each activation must produce again: the teardown's next start
            // begins unready.
            SUP.teardown().await.unwrap();
            assert!(!SENSOR.is_running());
        }
        common::pass();
    }

    pub static NODES: [&TaskNode; 2] = [&SENSOR, &REPORT];
}

#[test]
fn ready_on_write_means_has_produced() {
    common::run(&produced::NODES, |s| s.spawn(produced::driver(s).unwrap()));
}

/// A write through `writer` (here an awaited `Channel::send`, which may wait
/// for room) counts as the beat too.
static JOBS: Channel<Cs, u32, 1> = Channel::new();

async fn feeder(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(async {
            loop {
                let v = TRIGGER.wait().await;
                node.writer(&JOBS).send(v).await;
            }
        })
        .await;
}

async fn drain(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(async {
            loop {
                let v = node.reader(&JOBS).receive().await;
                SHOWN.store(v, Ordering::Relaxed);
            }
        })
        .await;
}

mod queued {
    use super::*;

    embassy_supervisor::supervisor_graph! {
        name: QUEUED;
        node FEEDER = Terminate, task: feeder, beat_timeout: 300, writes: [JOBS],
            ready_on_write;
        node DRAIN = Terminate, task: drain, deps: [FEEDER ready], reads: [JOBS],
            slot_timeout: 10_000;
    }

    static SUP: Supervisor<2> = Supervisor::new(&QUEUED);

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        let (started, ()) = join(SUP.start(spawner), async {
            common::settle().await;
            common::advance(Duration::from_millis(250));
            TRIGGER.signal(41);
        })
        .await;
        started.unwrap();
        assert!(FEEDER.is_ready() && DRAIN.is_running());
        assert_eq!(FEEDER.ticks_since_beat(), 0, "the send was the beat");
        common::settle().await;
        assert_eq!(SHOWN.load(Ordering::Relaxed), 41);
        common::advance(Duration::from_millis(301));
        assert_eq!(
            QUEUED.stale_nodes().map(|n| n.name).collect::<Vec<_>>(),
            ["FEEDER"]
        );
        SUP.teardown().await.unwrap();
        common::pass();
    }

    pub static NODES: [&TaskNode; 2] = [&FEEDER, &DRAIN];
}

#[test]
fn a_send_through_writer_is_a_beat() {
    common::run(&queued::NODES, |s| s.spawn(queued::driver(s).unwrap()));
}
