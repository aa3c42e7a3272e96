//! Pictures of a graph (`write_mermaid`, `write_dot`, `write_layers`): the
//! `ready` marker is drawn, and `Detail::WithState` shows each node's state
//! as the supervisor leaves it. (The declared pictures are pinned by the doc
//! tests in `src/render.rs`.)
#![cfg(all(feature = "readiness", feature = "pool"))]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{Detail, Graph, Mode, NodeSpec, Supervisor, TaskNode};

static NET: TaskNode = TaskNode::new(
    &NodeSpec::new("NET", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static HTTP: TaskNode = TaskNode::new(
    &NodeSpec::new("HTTP \"v2\"", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(1),
);
static LOG: TaskNode = TaskNode::new(
    &NodeSpec::new("LOG", Mode::OnDemand)
        .with_spawn(common::spawn_worker)
        .disabled()
        .at(2),
);
static G: Graph<3> = Graph::new([Some(&NET), Some(&HTTP), Some(&LOG)], [&[], &[0], &[0, 1]])
    .with_ready_deps([&[], &[0], &[]]);
static SUP: Supervisor<3> = Supervisor::new(&G);

#[test]
fn ready_edges_and_escaped_names() {
    let mut mermaid = String::new();
    G.write_mermaid(&mut mermaid, Detail::Declared).unwrap();
    assert_eq!(
        mermaid,
        r##"flowchart TD
    n0["NET<br/>Terminate"]
    n1["HTTP #quot;v2#quot;<br/>Terminate"]
    n2["LOG<br/>OnDemand<br/>disabled"]:::off
    n0 -. ready .-> n1
    n0 --> n2
    n1 --> n2
    classDef off stroke-dasharray: 4 4,color:#888
"##
    );

    let mut dot = String::new();
    G.write_dot(&mut dot, Detail::Declared).unwrap();
    assert_eq!(
        dot,
        r#"digraph supervisor {
    compound=true;
    node [shape=box, style=rounded];
    n0 [label="NET\nTerminate"];
    n1 [label="HTTP \"v2\"\nTerminate"];
    n2 [label="LOG\nOnDemand\ndisabled", style="rounded,dashed", fontcolor=gray50];
    n0 -> n1 [style=dashed, label="ready"];
    n0 -> n2;
    n1 -> n2;
}
"#
    );

    let mut layers = String::new();
    G.write_layers(&mut layers, Detail::Declared).unwrap();
    assert_eq!(
        layers,
        "\
layer 0  NET        Terminate
layer 1  HTTP \"v2\"  Terminate  after NET (ready)
layer 2  LOG        OnDemand   after NET, HTTP \"v2\"  disabled
"
    );
}

#[embassy_executor::task]
async fn states(spawner: Spawner) {
    let mut before = String::new();
    G.write_layers(&mut before, Detail::WithState).unwrap();
    assert_eq!(
        before,
        "\
layer 0  NET        Terminate  down
layer 1  HTTP \"v2\"  Terminate  after NET (ready)  down
layer 2  LOG        OnDemand   after NET, HTTP \"v2\"  disabled
"
    );

    let (started, ()) = embassy_futures::join::join(SUP.start(spawner), async {
        common::settle().await;
        NET.set_ready();
    })
    .await;
    started.unwrap();
    let mut up = String::new();
    G.write_mermaid(&mut up, Detail::WithState).unwrap();
    assert!(
        up.contains(r#"n0["NET<br/>Terminate<br/>running"]"#),
        "{up}"
    );
    assert!(
        up.contains(r#"n2["LOG<br/>OnDemand<br/>disabled"]:::off"#),
        "{up}"
    );

    SUP.teardown().await.unwrap();
    let mut down = String::new();
    G.write_dot(&mut down, Detail::WithState).unwrap();
    assert!(
        down.contains(r#"n0 [label="NET\nTerminate\nexited"];"#),
        "{down}"
    );
    common::pass();
}

#[test]
fn with_state_reads_the_nodes_now() {
    common::run(&[&NET, &HTTP, &LOG], |s| s.spawn(states(s).unwrap()));
}
