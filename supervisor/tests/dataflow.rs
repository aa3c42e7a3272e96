//! Feature `dataflow`: the `reads:` / `writes:` tables a macro graph emits,
//! and the queries over them (no executor needed: the tables are static).
#![cfg(all(feature = "dataflow", feature = "macros", feature = "pool"))]

use core::sync::atomic::AtomicU32;

use embassy_supervisor::dataflow::Flow;
use embassy_supervisor::{
    DeferredShrink, Detail, Graph, Mode, NodeSpec, TaskNode, supervisor_graph,
};
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

fn signals<'a>(flows: impl Iterator<Item = &'a Flow>) -> Vec<&'a str> {
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

#[test]
fn pictures_draw_data_apart_from_deps() {
    let mut out = String::new();
    GRAPH.write_mermaid(&mut out, Detail::Declared).unwrap();
    // Deps are thin arrows, data thick and labelled with the signal; an
    // `extern` side is an `outside` node; the pool is one end.
    assert_eq!(
        out,
        r#"flowchart TD
    n0["SENSOR<br/>Terminate"]
    n1["ESTIMATOR<br/>Terminate"]
    n2["CONTROL<br/>Terminate"]
    subgraph p0["pool WORKER 1..=2"]
        n3["WORKER[0]<br/>Terminate"]
        n4["WORKER[1]<br/>OnDemand"]
    end
    n5["LOG<br/>Terminate"]
    n0 --> n1
    n1 --> n2
    x0w(["outside"]):::outside
    x0w ==>|"EDGES"| n0
    n0 ==>|"SAMPLE"| n1
    n0 ==>|"SAMPLE"| n5
    n2 ==>|"SETPOINT"| n1
    n1 ==>|"ESTIMATE"| n2
    n2 ==>|"JOBS"| p0
    x5r(["outside"]):::outside
    p0 ==>|"STATUS"| x5r
    n5 ==>|"STATUS"| x5r
    classDef outside stroke-dasharray: 2 2,color:#555
    classDef off stroke-dasharray: 4 4,color:#888
"#
    );
    out.clear();
    GRAPH.write_dot(&mut out, Detail::Declared).unwrap();
    // Data arrows do not rank the layout: the ESTIMATOR/CONTROL cycle
    // leaves the dependency picture as it is.
    assert_eq!(
        out,
        r#"digraph supervisor {
    compound=true;
    node [shape=box, style=rounded];
    n0 [label="SENSOR\nTerminate"];
    n1 [label="ESTIMATOR\nTerminate"];
    n2 [label="CONTROL\nTerminate"];
    subgraph cluster_p0 {
        label="pool WORKER 1..=2";
        n3 [label="WORKER[0]\nTerminate"];
        n4 [label="WORKER[1]\nOnDemand"];
    }
    n5 [label="LOG\nTerminate"];
    n0 -> n1;
    n1 -> n2;
    x0w [label="outside", shape=plaintext, fontcolor=gray40];
    x0w -> n0 [style=bold, color=blue, label="EDGES", constraint=false];
    n0 -> n1 [style=bold, color=blue, label="SAMPLE", constraint=false];
    n0 -> n5 [style=bold, color=blue, label="SAMPLE", constraint=false];
    n2 -> n1 [style=bold, color=blue, label="SETPOINT", constraint=false];
    n1 -> n2 [style=bold, color=blue, label="ESTIMATE", constraint=false];
    n2 -> n3 [style=bold, color=blue, label="JOBS", constraint=false, lhead=cluster_p0];
    x5r [label="outside", shape=plaintext, fontcolor=gray40];
    n3 -> x5r [style=bold, color=blue, label="STATUS", constraint=false, ltail=cluster_p0];
    n5 -> x5r [style=bold, color=blue, label="STATUS", constraint=false];
}
"#
    );
}

/// A hand-built graph is not checked by the macro: a one-sided signal is
/// drawn, marked red, so the picture still shows the gap.
static LONELY: AtomicU32 = AtomicU32::new(0);
static HAND_A: TaskNode = TaskNode::new(&NodeSpec::new("A", Mode::Terminate).at(0));
static HAND: Graph<1> = Graph::new([Some(&HAND_A)], [&[]]).with_dataflow(&[Flow::new(
    "crate::LONELY",
    &LONELY,
    &[],
    &[0],
)]);

#[test]
fn pictures_mark_a_one_sided_signal() {
    let mut out = String::new();
    HAND.write_mermaid(&mut out, Detail::Declared).unwrap();
    assert_eq!(
        out,
        r#"flowchart TD
    n0["A<br/>Terminate"]
    u0w(["no writer"]):::oneside
    u0w -.->|"LONELY"| n0
    classDef oneside stroke:#c00,color:#c00
    classDef off stroke-dasharray: 4 4,color:#888
"#
    );
    out.clear();
    HAND.write_dot(&mut out, Detail::Declared).unwrap();
    assert!(out.contains(
        "    u0w [label=\"no writer\", shape=plaintext, fontcolor=red];\n    \
         u0w -> n0 [style=dashed, color=red, label=\"LONELY\", constraint=false];\n"
    ));
    assert_eq!(names(HAND.readers_of(&LONELY)), ["A"]);
}

#[test]
fn the_layer_table_lists_each_rows_signals() {
    let mut out = String::new();
    GRAPH.write_layers(&mut out, Detail::Declared).unwrap();
    assert_eq!(
        out,
        "\
layer 0  SENSOR        Terminate  writes SAMPLE  reads EDGES
         WORKER[0..2]  Terminate  writes STATUS  reads JOBS  pool 1..=2, members 1..2 OnDemand
         LOG           Terminate  writes STATUS  reads SAMPLE
layer 1  ESTIMATOR     Terminate  after SENSOR  writes ESTIMATE  reads SAMPLE, SETPOINT
layer 2  CONTROL       Terminate  after ESTIMATOR  writes SETPOINT, JOBS  reads ESTIMATE
"
    );
}
