//! Feature `dataflow`: `#[derive_dataflow]` finds a task fn's accesses
//! through its node, and a graph's `derived` clause checks the node's lists
//! against them at compile time (the compile-fail cases under
//! `tests/ui/dataflow/derived_*` pin each disagreement).
#![cfg(all(feature = "macros", feature = "dataflow"))]
mod common;

use core::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode, supervisor_graph};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex as Cs;
use embassy_sync::signal::Signal;

/// Counted by an interrupt handler (here: the test).
static EDGES: AtomicU32 = AtomicU32::new(0);
static SHOWN: AtomicU32 = AtomicU32::new(0);

mod sensing {
    use super::*;

    pub static SAMPLE: Signal<Cs, u32> = Signal::new();
    pub static WAKE: Signal<Cs, ()> = Signal::new();

    /// Reads EDGES, writes SAMPLE: the table says so, found in the body
    /// (inside the async block it runs).
    #[embassy_supervisor::derive_dataflow]
    pub async fn sensor(node: &'static TaskNode) {
        let _ = node
            .run_cancellable_acked(async {
                loop {
                    WAKE.wait().await;
                    let edges = node.reader(&EDGES).load(Ordering::Relaxed);
                    node.publish(&SAMPLE, edges);
                }
            })
            .await;
    }
}

#[embassy_supervisor::derive_dataflow]
async fn report(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(async {
            loop {
                let v = node.reader(&sensing::SAMPLE).wait().await;
                SHOWN.store(v, Ordering::Relaxed);
            }
        })
        .await;
}

supervisor_graph! {
    node SENSOR = Terminate, task: sensing::sensor, derived,
        reads: [EDGES extern], writes: [sensing::SAMPLE];
    node REPORT = Terminate, task: report, derived, deps: [SENSOR],
        reads: [sensing::SAMPLE];
}

static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

#[test]
fn the_attribute_lists_what_the_body_does() {
    let t = &sensing::__DATAFLOW_OF_sensor;
    assert_eq!(t.task, "sensor");
    let names = |l: &[embassy_supervisor::dataflow::DerivedAccess]| {
        l.iter().map(|a| a.name).collect::<Vec<_>>()
    };
    assert_eq!(names(t.reads), ["EDGES"]);
    assert_eq!(names(t.writes), ["SAMPLE"]);
    // A path keeps its module (without a leading `crate::`): the graph's
    // check matches one spelling against the other's tail.
    assert_eq!(names(__DATAFLOW_OF_report.reads), ["sensing::SAMPLE"]);
    assert!(__DATAFLOW_OF_report.writes.is_empty());
    use embassy_supervisor::dataflow::same_signal;
    assert!(same_signal("SAMPLE", "sensing::SAMPLE"));
    assert!(same_signal("sensing::SAMPLE", "sensing::SAMPLE"));
    assert!(
        !same_signal("a::STATE", "b::STATE"),
        "more than the last segment"
    );
    assert!(!same_signal("AMPLE", "SAMPLE"), "a tail at a `::` only");
    // The graph's tables are the checked lists.
    let writers: Vec<_> = GRAPH.writers_of(&sensing::SAMPLE).map(|n| n.name).collect();
    assert_eq!(writers, ["SENSOR"]);
}

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    EDGES.store(3, Ordering::Relaxed);
    sensing::WAKE.signal(());
    common::settle().await;
    assert_eq!(
        SHOWN.load(Ordering::Relaxed),
        3,
        "the derived task runs as written"
    );
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn a_derived_task_runs_unchanged() {
    common::run(&[&SENSOR, &REPORT], |s| s.spawn(driver(s).unwrap()));
}
