//! Feature `dataflow`: the `reads:` / `writes:` tables a macro graph emits,
//! and the queries over them (no executor needed: the tables are static).
#![cfg(all(feature = "dataflow", feature = "macros", feature = "pool"))]

use core::sync::atomic::AtomicU32;

use embassy_supervisor::{DeferredShrink, TaskNode, supervisor_graph};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex as Cs;
use embassy_sync::channel::Channel;
use embassy_sync::signal::Signal;
use embassy_sync::watch::Watch;
use embassy_time::Duration;

/// Counted by an interrupt handler: written outside the graph.
static EDGES: AtomicU32 = AtomicU32::new(0);
static SAMPLE: Signal<Cs, u32> = Signal::new();
static ESTIMATE: Watch<Cs, u32, 2> = Watch::new();
static SETPOINT: Signal<Cs, u32> = Signal::new();
static JOBS: Channel<Cs, u32, 4> = Channel::new();
/// Read by a host link outside the graph.
static STATUS: AtomicU32 = AtomicU32::new(0);
/// Named by no entry.
static UNRELATED: AtomicU32 = AtomicU32::new(0);

async fn work(node: &'static TaskNode) {
    node.wait_shutdown().await;
    node.ack_dropped();
}

supervisor_graph! {
    node SENSOR = Terminate, task: work, reads: [EDGES extern], writes: [SAMPLE];
    // ESTIMATOR and CONTROL feed each other: a data cycle is allowed.
    node ESTIMATOR = Terminate, task: work, deps: [SENSOR],
        reads: [SAMPLE, SETPOINT], writes: [ESTIMATE];
    node CONTROL = Terminate, task: work, deps: [ESTIMATOR],
        reads: [ESTIMATE], writes: [SETPOINT, JOBS];
    pool WORKER = [Terminate, OnDemand], task: work, reads: [JOBS], writes: [STATUS shared extern],
        policy: DeferredShrink = DeferredShrink::new(Duration::from_secs(1)), min: 1, max: 2;
    node LOG = Terminate, task: work, reads: [SAMPLE], writes: [STATUS shared];
}

fn names(nodes: impl Iterator<Item = &'static TaskNode>) -> Vec<&'static str> {
    nodes.map(|n| n.name).collect()
}

fn signals<'a>(
    flows: impl Iterator<Item = &'a embassy_supervisor::dataflow::Flow>,
) -> Vec<&'a str> {
    flows.map(|f| f.name).collect()
}

#[test]
fn writers_and_readers_of_a_signal() {
    assert_eq!(names(GRAPH.writers_of(&SAMPLE)), ["SENSOR"]);
    assert_eq!(names(GRAPH.readers_of(&SAMPLE)), ["ESTIMATOR", "LOG"]);
    // A pool entry covers every member.
    assert_eq!(names(GRAPH.readers_of(&JOBS)), ["WORKER[0]", "WORKER[1]"]);
    assert_eq!(
        names(GRAPH.writers_of(&STATUS)),
        ["WORKER[0]", "WORKER[1]", "LOG"]
    );
    // The outside sides are recorded, not invented as nodes.
    assert_eq!(names(GRAPH.writers_of(&EDGES)), Vec::<&str>::new());
    let edges = GRAPH.flow(&EDGES).unwrap();
    assert!(edges.is_written_outside() && !edges.is_read_outside());
    assert!(GRAPH.flow(&STATUS).unwrap().is_read_outside());
    // A signal the graph does not name has no flow and no sides.
    assert!(GRAPH.flow(&UNRELATED).is_none());
    assert_eq!(GRAPH.readers_of(&UNRELATED).count(), 0);
}

#[test]
fn signals_of_a_node() {
    assert_eq!(signals(GRAPH.reads_of(&ESTIMATOR)), ["SAMPLE", "SETPOINT"]);
    assert_eq!(signals(GRAPH.writes_of(&ESTIMATOR)), ["ESTIMATE"]);
    assert_eq!(signals(GRAPH.writes_of(&CONTROL)), ["SETPOINT", "JOBS"]);
    assert_eq!(signals(GRAPH.reads_of(&WORKER[1])), ["JOBS"]);
    assert_eq!(signals(GRAPH.reads_of(&SENSOR)), ["EDGES"]);
    // In first-mention order, each signal once.
    assert_eq!(
        signals(GRAPH.flows().iter()),
        ["EDGES", "SAMPLE", "SETPOINT", "ESTIMATE", "JOBS", "STATUS"]
    );
    assert_eq!(GRAPH.flows()[1].short_name(), "SAMPLE");
}

#[test]
fn who_is_affected_if_a_node_cycles() {
    // SENSOR feeds ESTIMATOR and LOG; ESTIMATOR feeds CONTROL, which feeds
    // ESTIMATOR back (listed once) and the workers.
    assert_eq!(
        names(GRAPH.affected_by(&SENSOR)),
        ["ESTIMATOR", "CONTROL", "WORKER[0]", "WORKER[1]", "LOG"]
    );
    // Through the cycle, ESTIMATOR's data comes back to it.
    assert_eq!(
        names(GRAPH.affected_by(&ESTIMATOR)),
        ["ESTIMATOR", "CONTROL", "WORKER[0]", "WORKER[1]"]
    );
    // Readers outside the graph are not nodes: the workers affect none.
    assert_eq!(GRAPH.affected_by(&WORKER[0]).count(), 0);
    assert_eq!(GRAPH.affected_by(&LOG).count(), 0);
}

/// A fragment's entries name its own crate's signals through `$crate`; the
/// rules run over the composed graph, so the fragment's writer and the
/// compose site's reader make one checked flow.
mod sensors {
    pub static READING: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);
    embassy_supervisor::supervisor_fragment! {
        name: SENSOR_FRAG;
        node PROBE = Terminate, task: $crate::work, writes: [$crate::sensors::READING];
    }
}

mod composed {
    use super::*;
    embassy_supervisor::compose_graph! {
        name: COMPOSED,
        fragments: [SENSOR_FRAG],
        graph: {
            node SHOW = Terminate, task: work, deps: [PROBE],
                reads: [crate::sensors::READING];
        }
    }
}

#[test]
fn fragments_compose_one_dataflow() {
    let reading = &sensors::READING;
    assert_eq!(names(composed::COMPOSED.writers_of(reading)), ["PROBE"]);
    assert_eq!(names(composed::COMPOSED.readers_of(reading)), ["SHOW"]);
}
