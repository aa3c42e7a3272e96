//! The spec's Quickstart, made complete: two `task:` nodes, brought up in
//! dependency order, torn down in reverse, restarted.
#![cfg(feature = "macros")]
mod common;

use std::sync::Mutex;

use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode, supervisor_graph};

supervisor_graph! {
    node NET = Terminate, deps: [], task: net_task;
    node APP = Terminate, deps: [NET], task: app_task;
}

static LOG: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

fn log(e: &'static str) {
    LOG.lock().unwrap().push(e);
}

async fn net_task(node: &'static TaskNode) {
    log("NET up");
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
    log("NET down");
}

async fn app_task(node: &'static TaskNode) {
    // The dependency was spawned first, so it already runs when we do.
    assert!(NET.is_running());
    log("APP up");
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
    log("APP down");
}

static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    assert!(NET.is_running() && APP.is_running());
    assert_eq!(GRAPH.order, [0, 1]);
    SUP.teardown().await.unwrap();
    // The shells recorded the workers' return: down, exited, acked.
    assert!(!NET.is_running() && NET.has_exited());
    assert!(!APP.is_running() && APP.has_exited());
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    SUP.teardown().await.unwrap();
    // A spawn batch polls last-first, so the "up" lines may come in either
    // order (APP asserted NET was already running); teardown is ordered.
    let log = LOG.lock().unwrap();
    assert_eq!(log.len(), 8);
    assert_eq!(&log[2..4], ["APP down", "NET down"]);
    assert_eq!(&log[6..8], ["APP down", "NET down"]);
    common::pass();
}

#[test]
fn quickstart_brings_up_in_order_and_tears_down_in_reverse() {
    common::run(&[&NET, &APP], |s| s.spawn(driver(s).unwrap()));
}
