//! The bring-up wave (issue 13, item 1) on a real executor and the mock
//! clock: independent slow gates overlap, a blocked node holds up only its
//! dependents, each node's `slot_timeout` runs from when it begins to wait,
//! and a failure keeps down only the failed node and what depends on it.
mod common;

use common::Event::Spawned;
use embassy_executor::Spawner;
use embassy_futures::select::{Either, select};
use embassy_supervisor::{Gate, Graph, Mode, NodeSpec, ResourceSlot, Supervisor, TaskNode};
use embassy_time::{Duration, Instant};

static GA: ResourceSlot<()> = ResourceSlot::new();
static GB: ResourceSlot<()> = ResourceSlot::new();
static GD: ResourceSlot<()> = ResourceSlot::new();

static GATES_A: [&dyn Gate; 1] = [&GA];
static GATES_B: [&dyn Gate; 1] = [&GB];
static GATES_D: [&dyn Gate; 1] = [&GD];

const fn gated(name: &'static str, at: u8, gates: &'static [&'static dyn Gate]) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .with_resources(gates)
        .with_slot_timeout(1000)
        .at(at)
}

// A and B gated and independent; C free; D gated, needs A; E needs D.
static A: TaskNode = TaskNode::new(&gated("A", 0, &GATES_A));
static B: TaskNode = TaskNode::new(&gated("B", 1, &GATES_B));
static C: TaskNode = TaskNode::new(
    &NodeSpec::new("C", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(2),
);
static D: TaskNode = TaskNode::new(&gated("D", 3, &GATES_D));
static E: TaskNode = TaskNode::new(
    &NodeSpec::new("E", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(4),
);
static G: Graph<5> = Graph::new(
    [Some(&A), Some(&B), Some(&C), Some(&D), Some(&E)],
    [&[], &[], &[], &[0], &[3]],
);
static SUP: Supervisor<5> = Supervisor::new(&G);
const ALL: [&TaskNode; 5] = [&A, &B, &C, &D, &E];

/// Step the mock clock 1 ms at a time, filling each gate at its mock ms.
async fn clock(fills: &[(u64, &'static ResourceSlot<()>)]) -> ! {
    let start = Instant::now();
    loop {
        let t = (Instant::now() - start).as_millis();
        for (at, gate) in fills {
            if *at == t {
                gate.provide(());
            }
        }
        common::settle().await;
        common::advance(Duration::from_millis(1));
    }
}

/// `start` against the clock: its result, and when (mock ms) each node
/// was spawned.
async fn start(
    s: Spawner,
    fills: &[(u64, &'static ResourceSlot<()>)],
) -> (
    Result<(), embassy_supervisor::NodeFault>,
    u64,
    Vec<(&'static str, u64)>,
) {
    for g in [&GA, &GB, &GD] {
        g.clear();
    }
    common::log::clear();
    let begin = Instant::now();
    let Either::First(r) = select(SUP.start(s), clock(fills)).await;
    let took = (Instant::now() - begin).as_millis();
    let spawned = common::log::entries()
        .into_iter()
        .filter(|e| e.event == Spawned)
        .map(|e| (e.node, (e.at - begin).as_millis()))
        .collect();
    (r, took, spawned)
}

#[test]
fn independent_gates_overlap_and_each_budget_runs_from_its_own_wait() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        // B's gate opens at 300 ms, A's at 900, D's at 1500. D waits for A
        // first (no budget), then for its gate: 600 ms of its 1000 ms.
        let (r, took, spawned) = start(s, &[(300, &GB), (900, &GA), (1500, &GD)]).await;
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(
            spawned,
            [("C", 0), ("B", 300), ("A", 900), ("D", 1500), ("E", 1500)],
            "C waits for nobody, B not for A, D and E for A"
        );
        assert_eq!(took, 1500);
        assert!(SUP.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn a_failure_keeps_down_only_the_failed_node_and_its_dependents() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        // A's gate never opens: A fails at its 1000 ms budget; D and E
        // (which need A) stay down, B and C come up.
        let (r, took, spawned) = start(s, &[(0, &GD), (300, &GB)]).await;
        assert!(r.is_err());
        assert_eq!(SUP.failed_node().map(|n| n.name), Some("A"));
        assert_eq!(spawned, [("C", 0), ("B", 300)]);
        assert_eq!(took, 1000);
        assert!(B.is_running() && C.is_running());
        assert!(!A.is_running() && !D.is_running() && !E.is_running());

        // Two failures: the first one is named. B's gate stays closed too,
        // and A's opens too late: both fail at 1000 ms, A first in order.
        assert!(SUP.teardown().await.is_ok());
        let (r, _, spawned) = start(s, &[(1200, &GA)]).await;
        assert!(r.is_err());
        assert_eq!(SUP.failed_node().map(|n| n.name), Some("A"));
        assert_eq!(spawned, [("C", 0)]);
        assert!(SUP.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn a_teardown_during_the_wave_ends_it() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for g in [&GA, &GB, &GD] {
            g.clear();
        }
        let up = select(SUP.start(s), async {
            common::settle().await;
            assert!(C.is_running() && !A.is_running());
            assert!(SUP.teardown().await.is_ok());
            // Gates open after the teardown returned: nothing comes up.
            GA.provide(());
            GB.provide(());
            GD.provide(());
            common::settle().await;
            core::future::pending::<()>().await
        })
        .await;
        let Either::First(r) = up else { unreachable!() };
        assert!(r.is_err());
        common::settle().await;
        assert!(ALL.iter().all(|n| !n.is_running()));
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}
