//! `#[cfg]` on items, deps and resource entries, and the `ready` dep marker
//! (feature `readiness`), through the macro.
#![cfg(feature = "macros")]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode};

async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

mod cfgs {
    use super::*;
    embassy_supervisor::supervisor_graph! {
        node A = Terminate, deps: [], task: serve;
        #[cfg(any())]
        node GONE = Terminate, deps: [], task: serve;
        // The dep on a cfg'd-out node vanishes with it.
        node B = Terminate, deps: [A, GONE, #[cfg(any())] C], task: worker,
            resources: [#[cfg(any())] MISSING: u8, PRESENT: u8];
        node C = Terminate, deps: [], task: serve;
    }
    async fn worker(node: &'static TaskNode, #[cfg(any())] _m: &mut u8, p: &mut u8) {
        *p += 1;
        serve(node).await
    }
    static SUP: Supervisor<4> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert!(GRAPH.nodes[1].is_none());
        assert_eq!(GRAPH.deps[2], &[0]);
        PRESENT.provide(1);
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert!(B.is_running());
        SUP.teardown().await.unwrap();
        assert_eq!(PRESENT.take(), Some(2));
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&A, &B];
}

#[test]
fn cfg_on_items_deps_and_resources() {
    common::run(&cfgs::NODES, |s| s.spawn(cfgs::driver(s).unwrap()));
}

#[cfg(feature = "readiness")]
mod ready {
    use super::*;
    embassy_supervisor::supervisor_graph! {
        node NET = Terminate, deps: [], task: net_worker;
        node HTTP = Terminate, deps: [NET ready], task: serve, slot_timeout: 10000;
    }
    async fn net_worker(node: &'static TaskNode) {
        // Not serving yet: the dependent must wait for this.
        common::settle().await;
        node.set_ready();
        serve(node).await
    }
    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert_eq!(GRAPH.ready_deps[1], &[0]);
        SUP.start(spawner).await.unwrap();
        assert!(NET.is_ready() && HTTP.is_running());
        SUP.teardown().await.unwrap();
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&NET, &HTTP];
}

#[cfg(feature = "readiness")]
#[test]
fn ready_marker_holds_the_dependent() {
    common::run(&ready::NODES, |s| s.spawn(ready::driver(s).unwrap()));
}
