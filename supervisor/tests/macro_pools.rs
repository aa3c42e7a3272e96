//! Pool recipes, named graphs and composed fragments from the spec, run on
//! the host harness.
#![cfg(all(feature = "macros", feature = "pool"))]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode};

async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

mod pool {
    use super::*;
    use embassy_supervisor::{DeferredShrink, ElasticPool};
    use embassy_time::Duration;
    pub struct Conn(pub u32);
    const FLOOR: usize = 1;
    // Per-member resource, cancel, const-expression bounds.
    async fn handler(conn: &mut Conn) -> ! {
        conn.0 += 1;
        core::future::pending().await
    }
    embassy_supervisor::supervisor_graph! {
        node BROKER = Terminate, deps: [], task: serve;
        pool WORKERS = [Terminate, OnDemand, OnDemand], deps: [BROKER], task: handler,
            resources: [CONN: Conn],
            policy: DeferredShrink::new(Duration::from_secs(5)),
            min: FLOOR, max: FLOOR + 2, cancel;
        node DISPATCHER = Terminate, deps: [WORKERS], task: serve;
    }
    const _: () = assert!(WORKERS_MIN == 1 && WORKERS_MAX == 3 && WORKERS_MEMBERS == 3);
    static _P: &ElasticPool<DeferredShrink> = &WORKERS_POOL;
    static SUP: Supervisor<5> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert_eq!(GRAPH.pools.len(), 1);
        assert_eq!(WORKERS_POOL.member_index(&WORKERS[2]), Some(2));
        // Dispatcher depends on the pool's floor member (slot 1).
        assert_eq!(GRAPH.deps[4], &[1]);
        for (i, c) in CONN.iter().enumerate() {
            c.provide(Conn(i as u32 * 10));
        }
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert!(WORKERS[0].is_running() && !WORKERS[1].is_running());
        // Member 0 took its own element only.
        assert!(!CONN[0].is_filled() && CONN[1].is_filled() && CONN[2].is_filled());
        SUP.start_node(&WORKERS[2], spawner).await.unwrap();
        common::settle().await;
        assert!(!CONN[2].is_filled());
        // A shrink drops the never-acking worker in place and restores its
        // element to its own index.
        SUP.stop_node(&WORKERS[2]).await.unwrap();
        assert_eq!(CONN[2].take().map(|c| c.0), Some(21));
        SUP.teardown().await.unwrap();
        assert_eq!(CONN[0].take().map(|c| c.0), Some(1));
        assert_eq!(CONN[1].take().map(|c| c.0), Some(10));
        common::pass();
    }
    pub static NODES: [&TaskNode; 5] =
        [&BROKER, &WORKERS[0], &WORKERS[1], &WORKERS[2], &DISPATCHER];
}

#[test]
fn elastic_pool_with_per_member_resources() {
    common::run(&pool::NODES, |s| s.spawn(pool::driver(s).unwrap()));
}

mod second_core {
    use super::*;
    embassy_supervisor::supervisor_graph! {
        executor CORE1;
        pool CRUNCHERS = [OnDemand, OnDemand], deps: [], executor: CORE1,
            task: serve,
            policy: embassy_supervisor::DeferredShrink::new(embassy_time::Duration::from_secs(2)),
            min: 0, max: 2;
        node NET = Terminate, deps: [], task: serve;
        pool WORKERS = [Terminate, OnDemand], deps: [NET],
            task: serve,
            policy: embassy_supervisor::DeferredShrink::new(embassy_time::Duration::from_secs(3)),
            min: 1, max: 2;
        node READY_PROBE = Terminate, deps: [WORKERS], task: ready_probe_worker;
    }
    async fn ready_probe_worker(node: &'static TaskNode) {
        node.set_detached(true);
        assert!(WORKERS[0].is_running());
    }
    static SUP: Supervisor<6> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert_eq!(GRAPH.pools.len(), 2);
        CORE1.set(spawner.make_send());
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        // OnDemand members are not started at boot; the floor is.
        assert!(!CRUNCHERS[0].is_running() && WORKERS[0].is_running());
        SUP.start_node(&CRUNCHERS[1], spawner).await.unwrap();
        assert!(CRUNCHERS[1].is_running());
        assert!(READY_PROBE.has_exited());
        SUP.teardown().await.unwrap();
        common::pass();
    }
    pub static NODES: [&TaskNode; 4] = [&CRUNCHERS[0], &CRUNCHERS[1], &NET, &WORKERS[0]];
}

#[test]
fn second_core_pool_and_run_once_probe() {
    common::run(&second_core::NODES, |s| {
        s.spawn(second_core::driver(s).unwrap())
    });
}

mod named {
    use super::*;
    pub struct WifiController(pub u8);
    embassy_supervisor::supervisor_graph! {
        name: UPLOAD_GRAPH;
        node WIFI = Terminate, deps: [], task: wifi_ctrl,
            resources: [WIFI_HW: consume WifiController];
        node NET = Terminate, deps: [WIFI], task: serve;
        node UPLOAD = Terminate, deps: [NET], task: serve;
    }
    embassy_supervisor::supervisor_graph! {
        node MAIN = Terminate, deps: [], task: serve;
    }
    async fn wifi_ctrl(node: &'static TaskNode, hw: WifiController) {
        assert_eq!(hw.0, 3);
        serve(node).await
    }
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        let sub = Supervisor::new(&UPLOAD_GRAPH);
        let main = Supervisor::new(&GRAPH);
        main.start(spawner).await.unwrap();
        for _ in 0..2 {
            WIFI_HW.provide(WifiController(3));
            sub.start(spawner).await.unwrap();
            assert!(UPLOAD.is_running() && NET.is_running());
            sub.teardown().await.unwrap();
            assert!(!WIFI.is_running() && !WIFI_HW.is_filled());
        }
        assert!(MAIN.is_running());
        main.teardown().await.unwrap();
        common::pass();
    }
    pub static NODES: [&TaskNode; 4] = [&WIFI, &NET, &UPLOAD, &MAIN];
}

#[test]
fn named_subordinate_graph_cycles() {
    common::run(&named::NODES, |s| s.spawn(named::driver(s).unwrap()));
}

mod net {
    embassy_supervisor::supervisor_fragment! {
        name: NET_FRAG;
        node NET = Terminate, deps: [], task: $crate::net::net_task,
            resources: [USB_DEV: u32];
    }
    pub async fn net_task(node: &'static embassy_supervisor::TaskNode, dev: &mut u32) {
        *dev += 1;
        super::serve(node).await
    }
}

embassy_supervisor::supervisor_fragment! {
    name: HTTP_FRAG;
    // A forward reference into the compose site's own items.
    node HTTP = Terminate, deps: [NET], task: $crate::serve;
}

mod composed {
    use super::*;
    embassy_supervisor::compose_graph! {
        name: COMPOSED,
        fragments: [NET_FRAG, HTTP_FRAG],
        graph: {
            node APP = Terminate, deps: [NET, HTTP], task: serve;
        }
    }
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        let sup = Supervisor::new(&COMPOSED);
        USB_DEV.provide(0);
        sup.start(spawner).await.unwrap();
        assert!(NET.is_running() && HTTP.is_running() && APP.is_running());
        sup.teardown().await.unwrap();
        assert_eq!(USB_DEV.take(), Some(1));
        common::pass();
    }
    pub static NODES: [&TaskNode; 3] = [&NET, &HTTP, &APP];
}

#[test]
fn composed_fragments_form_one_graph() {
    common::run(&composed::NODES, |s| s.spawn(composed::driver(s).unwrap()));
}

mod spawn_pool {
    use super::*;
    #[embassy_executor::task(pool_size = 2)]
    async fn member(node: &'static TaskNode, tag: u8) {
        assert_eq!(tag, 9);
        serve(node).await;
        node.mark_exited();
    }
    embassy_supervisor::supervisor_graph! {
        pool HANDLERS = [Terminate, OnDemand], deps: [], spawn: member(9),
            policy: embassy_supervisor::DeferredShrink = embassy_supervisor::DeferredShrink::new(
                embassy_time::Duration::from_secs(1)),
            min: 1, max: 2, slot_timeout: 300;
    }
    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        assert!(HANDLERS[0].is_running() && !HANDLERS[1].is_running());
        SUP.start_node(&HANDLERS[1], spawner).await.unwrap();
        assert!(HANDLERS[1].is_running());
        SUP.teardown().await.unwrap();
        assert!(HANDLERS[0].has_exited() && HANDLERS[1].has_exited());
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&HANDLERS[0], &HANDLERS[1]];
}

#[test]
fn spawn_pool_with_typed_policy() {
    common::run(&spawn_pool::NODES, |s| {
        s.spawn(spawn_pool::driver(s).unwrap())
    });
}
