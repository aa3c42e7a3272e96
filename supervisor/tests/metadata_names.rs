//! Feature `metadata-names`: the spawn glue stamps each node's name into its
//! task's embassy `Metadata`, for external tracers (SystemView, `rtos-trace`),
//! without the trace recorders and without any hook symbol.
#![cfg(all(feature = "macros", feature = "metadata-names"))]
mod common;

use embassy_executor::{Metadata, Spawner};
use embassy_supervisor::{Supervisor, TaskNode};
use std::sync::Mutex;

static SEEN: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

async fn named(node: &'static TaskNode) {
    let name = Metadata::for_current_task().await.name();
    SEEN.lock().unwrap().push(name.unwrap_or("<none>"));
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

embassy_supervisor::supervisor_graph! {
    name: NAMED_GRAPH;
    node RADIO = Terminate, deps: [], task: named;
    node UPLINK = Terminate, deps: [RADIO], task: named;
}
static SUP: Supervisor<2> = Supervisor::new(&NAMED_GRAPH);

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    // First polls run in the executor's (LIFO) order, not bring-up order.
    let mut seen = SEEN.lock().unwrap().clone();
    seen.sort();
    assert_eq!(seen, ["RADIO", "UPLINK"]);
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn each_task_carries_its_node_name() {
    common::run(&[&RADIO, &UPLINK], |s| s.spawn(driver(s).unwrap()));
}
