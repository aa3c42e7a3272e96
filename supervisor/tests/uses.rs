//! A supervisor typed with what its graph uses (`Supervisor<N, GRAPH_USES>`,
//! `uses` bits; issue 16): the macro finds the bits, and a supervisor
//! without the gate or `Pause` code still brings up, retries a `Busy`
//! spawn, keeps a failure's dependents down and resumes parked instances
//! exactly as `Supervisor<N>` does.
#![cfg(feature = "macros")]
mod common;

use core::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::{SpawnError, SpawnToken, Spawner};
use embassy_supervisor::{FaultKind, Graph, Mode, NodeSpec, Supervisor, TaskNode, uses};

/// Neither gates nor `Pause`: bits 0. `FLAKY` refuses its first `REFUSE`
/// spawns with `Busy`.
mod plain {
    use super::*;

    pub static ATTEMPTS: AtomicU32 = AtomicU32::new(0);
    pub static REFUSE: AtomicU32 = AtomicU32::new(0);

    fn flaky(node: &'static TaskNode) -> Result<SpawnToken<impl Sized>, SpawnError> {
        if ATTEMPTS.fetch_add(1, Ordering::SeqCst) < REFUSE.load(Ordering::SeqCst) {
            return Err(SpawnError::Busy);
        }
        common::worker(node)
    }

    embassy_supervisor::supervisor_graph! {
        node ROOT = Terminate, task: common::serve;
        node FLAKY = Terminate, deps: [ROOT], spawn: flaky;
        node AFTER = Terminate, deps: [FLAKY], task: common::serve;
        node BESIDE = Terminate, deps: [ROOT], task: common::serve;
    }
    pub static SUP: Supervisor<4, GRAPH_USES> = Supervisor::with_uses(&GRAPH);
    pub const ALL: [&TaskNode; 4] = [&ROOT, &FLAKY, &AFTER, &BESIDE];

    fn refuse(n: u32) {
        ATTEMPTS.store(0, Ordering::SeqCst);
        REFUSE.store(n, Ordering::SeqCst);
    }

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert_eq!(GRAPH_USES, 0);
        assert_eq!(GRAPH.uses(), 0);

        // One `Busy`: retried once, and the whole graph comes up.
        refuse(1);
        SUP.start(spawner).await.unwrap();
        assert!(ALL.iter().all(|n| n.is_running()));
        assert_eq!(ATTEMPTS.load(Ordering::SeqCst), 2);
        SUP.teardown().await.unwrap();
        assert!(ALL.iter().all(|n| !n.is_running()));

        // Two: the second is the verb's error, naming the node; its
        // dependent stays down, everything else comes up.
        refuse(2);
        let e = SUP.start(spawner).await.unwrap_err();
        assert!(core::ptr::eq(e.node, &FLAKY), "{e:?}");
        assert_eq!(e.kind, FaultKind::SpawnBusy);
        assert!(core::ptr::eq(SUP.failed_node().unwrap(), &FLAKY));
        assert_eq!(ATTEMPTS.load(Ordering::SeqCst), 2);
        assert!(ROOT.is_running() && BESIDE.is_running());
        assert!(!FLAKY.is_running() && !AFTER.is_running());

        // The next bring-up gets its own retry.
        refuse(1);
        SUP.respawn_terminate(spawner).await.unwrap();
        assert!(ALL.iter().all(|n| n.is_running()));

        // The cascades too.
        SUP.deactivate(&FLAKY).await.unwrap();
        assert!(!FLAKY.is_running() && !AFTER.is_running() && BESIDE.is_running());
        refuse(1);
        SUP.activate(&AFTER, spawner).await.unwrap();
        assert!(ALL.iter().all(|n| n.is_running()));
        SUP.teardown().await.unwrap();
        common::pass();
    }
}

#[test]
fn a_supervisor_without_gate_code_brings_up_and_retries_busy() {
    common::run(&plain::ALL, |s| s.spawn(plain::driver(s).unwrap()));
}

/// `Pause` nodes, no gates: bits `PAUSE`. A teardown parks each instance,
/// and `start` resumes it in place: `STATS` has a generated shell, `BUS` is
/// spawned by the application (the supervisor could not respawn it).
mod paused {
    use super::*;

    pub static RUNS: AtomicU32 = AtomicU32::new(0);

    async fn stats(node: &'static TaskNode) {
        RUNS.fetch_add(1, Ordering::SeqCst);
        loop {
            node.wait_shutdown().await;
            node.ack_dropped();
            node.wait_resume().await;
        }
    }

    #[embassy_executor::task]
    async fn bus_task(node: &'static TaskNode) {
        stats(node).await;
    }

    embassy_supervisor::supervisor_graph! {
        name: PAUSED;
        node STATS = Pause, task: stats;
        node BUS = Pause;
        node USER = Terminate, deps: [STATS, BUS], task: common::serve;
    }
    pub static SUP: Supervisor<3, PAUSED_USES> = Supervisor::with_uses(&PAUSED);
    pub const ALL: [&TaskNode; 3] = [&STATS, &BUS, &USER];

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert_eq!(PAUSED_USES, uses::PAUSE);
        spawner.spawn(bus_task(&BUS).unwrap());
        SUP.start(spawner).await.unwrap();
        assert!(ALL.iter().all(|n| n.is_running()));
        SUP.teardown().await.unwrap();
        assert!(STATS.shutdown_requested() && BUS.shutdown_requested());
        assert!(ALL.iter().all(|n| !n.is_running()));
        SUP.start(spawner).await.unwrap();
        assert!(ALL.iter().all(|n| n.is_running()));
        assert_eq!(
            RUNS.load(Ordering::SeqCst),
            2,
            "resumed in place, not respawned"
        );
        SUP.teardown().await.unwrap();
        common::pass();
    }
}

#[test]
fn a_supervisor_with_pause_code_resumes_in_place() {
    common::run(&paused::ALL, |s| s.spawn(paused::driver(s).unwrap()));
}

/// A resource, no `Pause`: bits `GATES`. The bring-up waits for the slot.
mod gated {
    use super::*;

    async fn user(node: &'static TaskNode, _tool: &mut u8) {
        common::serve(node).await;
    }

    embassy_supervisor::supervisor_graph! {
        name: GATED;
        node USER = Terminate, task: user, resources: [TOOL: u8];
    }
    pub static SUP: Supervisor<1, GATED_USES> = Supervisor::with_uses(&GATED);

    /// Fills the slot a few executor passes after the bring-up began
    /// waiting for it.
    #[embassy_executor::task]
    async fn fill_later() {
        for _ in 0..4 {
            embassy_futures::yield_now().await;
        }
        assert!(!USER.is_running(), "came up before its slot was filled");
        TOOL.provide(1);
    }

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert_eq!(GATED_USES, uses::GATES);
        spawner.spawn(fill_later().unwrap());
        SUP.start(spawner).await.unwrap();
        assert!(USER.is_running());
        SUP.teardown().await.unwrap();
        common::pass();
    }
}

#[test]
fn a_supervisor_with_gate_code_waits_for_the_slot() {
    common::run(&[&gated::USER], |s| s.spawn(gated::driver(s).unwrap()));
}

#[test]
fn a_hand_built_graph_declares_every_bit() {
    static A: TaskNode = TaskNode::new(&NodeSpec::new("A", Mode::Terminate));
    static G: Graph<1> = Graph::new([Some(&A)], [&[]]);
    assert_eq!(G.uses(), uses::ALL);
    assert_eq!(uses::ALL, uses::GATES | uses::PAUSE);
    // `Supervisor::new` covers it (and any graph).
    static SUP: Supervisor<1> = Supervisor::new(&G);
    assert!(!SUP.is_halted());
}

/// Every way a graph declares a gate or a `Pause` node sets its bit: a
/// graph's `default executor` routes its shells through an executor slot,
/// a `ready` dep waits for `set_ready()`, a pool member may be `Pause`.
/// Only their bits are read: the graphs never run.
#[allow(dead_code)]
mod declared {
    use super::*;

    async fn work(node: &'static TaskNode) {
        common::serve(node).await;
    }

    pub mod routed {
        use super::*;
        embassy_supervisor::supervisor_graph! {
            name: ROUTED;
            default executor SIDE;
            node A = Terminate, task: work;
        }
    }

    #[cfg(feature = "readiness")]
    pub mod ready {
        use super::*;
        embassy_supervisor::supervisor_graph! {
            name: READY;
            node NET = Terminate, task: work;
            node HTTP = Terminate, deps: [NET ready], task: work;
        }
    }

    #[cfg(feature = "pool")]
    pub mod paused_member {
        use super::*;
        embassy_supervisor::supervisor_graph! {
            name: MEMBERS;
            pool P = [Terminate, Pause], task: work,
                policy: embassy_supervisor::DeferredShrink::new(embassy_time::Duration::from_secs(1)),
                min: 1, max: 2;
        }
    }
}

#[test]
fn each_declaration_of_a_gate_or_pause_sets_its_bit() {
    assert_eq!(declared::routed::ROUTED_USES, uses::GATES);
    #[cfg(feature = "readiness")]
    assert_eq!(declared::ready::READY_USES, uses::GATES);
    #[cfg(feature = "pool")]
    assert_eq!(declared::paused_member::MEMBERS_USES, uses::PAUSE);
    assert_eq!(plain::GRAPH_USES, 0);
}

/// The width is its own const, read off the dependencies: a graph whose
/// order is total is a chain, one with two nodes without an order between
/// them is wider.
#[test]
fn each_graph_has_one_width() {
    // ROOT -> FLAKY -> AFTER beside ROOT -> BESIDE.
    assert_eq!(plain::GRAPH_WIDTH, uses::WAVE);
    // STATS and BUS under USER.
    assert_eq!(paused::PAUSED_WIDTH, uses::WAVE);
    // One node.
    assert_eq!(gated::GATED_WIDTH, uses::CHAIN);
    assert_eq!(declared::routed::ROUTED_WIDTH, uses::CHAIN);
    #[cfg(feature = "readiness")]
    assert_eq!(declared::ready::READY_WIDTH, uses::CHAIN);
    #[cfg(feature = "pool")]
    assert_eq!(declared::paused_member::MEMBERS_WIDTH, uses::WAVE);
}
