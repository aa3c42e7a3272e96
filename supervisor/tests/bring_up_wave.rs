//! `activate` and `restart` bring their nodes up as a wave (issue 13, item
//! 1), as `start` does: on a real executor and the mock clock, independent
//! slow gates overlap, a node waits only for its own dependencies, and a
//! failure keeps down only the failed node and what depends on it.
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{
    FaultKind, Gate, Graph, Mode, NodeFault, NodeSpec, ResourceSlot, Supervisor, TaskNode,
};
use embassy_time::Instant;

static GA: ResourceSlot<()> = ResourceSlot::new();
static GB: ResourceSlot<()> = ResourceSlot::new();
static GD: ResourceSlot<()> = ResourceSlot::new();
static GATES_A: [&dyn Gate; 1] = [&GA];
static GATES_B: [&dyn Gate; 1] = [&GB];
static GATES_D: [&dyn Gate; 1] = [&GD];

const fn node(name: &'static str, at: u8, gates: &'static [&'static dyn Gate]) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .with_resources(gates)
        .with_slot_timeout(1000)
        .at(at)
}

// R the root; A and B gated and independent, on R; C free, on R; D gated,
// on A; E free, on D.
static R: TaskNode = TaskNode::new(&node("R", 0, &[]));
static A: TaskNode = TaskNode::new(&node("A", 1, &GATES_A));
static B: TaskNode = TaskNode::new(&node("B", 2, &GATES_B));
static C: TaskNode = TaskNode::new(&node("C", 3, &[]));
static D: TaskNode = TaskNode::new(&node("D", 4, &GATES_D));
static E: TaskNode = TaskNode::new(&node("E", 5, &[]));
static G: Graph<6> = Graph::new(
    [Some(&R), Some(&A), Some(&B), Some(&C), Some(&D), Some(&E)],
    [&[], &[0], &[0], &[0], &[1], &[4]],
);
static SUP: Supervisor<6> = Supervisor::new(&G);
const ALL: [&TaskNode; 6] = [&R, &A, &B, &C, &D, &E];
const GATES: [&ResourceSlot<()>; 3] = [&GA, &GB, &GD];

/// Everything up (gates open), then the gates closed: a bring-up from here
/// waits for each gate again.
async fn all_up(s: Spawner) {
    for g in GATES {
        g.provide(());
    }
    // Lift any latch an earlier test left: activating the leaves lifts
    // their dependencies' too.
    for leaf in [&B, &C, &E] {
        assert!(SUP.activate(leaf, s).await.is_ok());
    }
    assert!(SUP.start(s).await.is_ok());
    assert!(ALL.iter().all(|n| n.is_running()));
    for g in GATES {
        g.clear();
    }
}

/// Run `verb` against the clock: its result, how long it took (mock ms),
/// and when each node was spawned.
async fn timed(
    verb: impl Future<Output = Result<(), NodeFault>>,
    fills: &[common::schedule::Fill],
) -> (Result<(), NodeFault>, u64, Vec<(&'static str, u64)>) {
    let t = common::schedule::timed(verb, fills).await;
    (t.result, t.took_ms, t.spawned)
}

/// B's gate opens at 300 ms, A's at 900, D's at 1500.
const STAGGERED: [(u64, &ResourceSlot<()>); 3] = [(300, &GB), (900, &GA), (1500, &GD)];
/// What a wave spawns under [`STAGGERED`]: C and B wait for nobody but
/// R, D and E for A. One at a time, A's 900 ms would come before B and C.
const OVERLAPPED: [(&str, u64); 6] = [
    ("R", 0),
    ("C", 0),
    ("B", 300),
    ("A", 900),
    ("D", 1500),
    ("E", 1500),
];

/// Every gate opens under [`STAGGERED`]: the verb succeeds in A's 900 ms
/// plus D's 600, with the spawns of [`OVERLAPPED`], and everything is up.
fn all_up_overlapped(r: Result<(), NodeFault>, took: u64, spawned: &[(&str, u64)]) {
    assert!(r.is_ok(), "{r:?}");
    assert_eq!(spawned, OVERLAPPED);
    assert_eq!(took, 1500);
    assert!(ALL.iter().all(|n| n.is_running()));
}

/// A's gate never opens: A fails at its 1000 ms budget, D and E (which
/// need it) stay down, the rest come up.
fn only_a_subtree_down(r: Result<(), NodeFault>, took: u64, spawned: &[(&str, u64)]) {
    assert!(
        matches!(r, Err(NodeFault { node, kind: FaultKind::ResourceEmpty { gate: 0 } }) if node.name == "A"),
        "{r:?}"
    );
    assert_eq!(SUP.failed_node().map(|n| n.name), Some("A"));
    assert_eq!(spawned, [("R", 0), ("C", 0), ("B", 300)]);
    assert_eq!(took, 1000);
    assert!(R.is_running() && B.is_running() && C.is_running());
    assert!(!A.is_running() && !D.is_running() && !E.is_running());
}

#[test]
fn activate_overlaps_independent_slow_gates() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        all_up(s).await;
        assert!(SUP.deactivate(&R).await.is_ok());
        let (r, took, spawned) = timed(SUP.activate(&R, s), &STAGGERED).await;
        all_up_overlapped(r, took, &spawned);
        assert!(SUP.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn activate_keeps_down_only_the_failed_subtree() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        all_up(s).await;
        assert!(SUP.deactivate(&R).await.is_ok());
        let (r, took, spawned) = timed(SUP.activate(&R, s), &[(0, &GD), (300, &GB)]).await;
        only_a_subtree_down(r, took, &spawned);
        // Nothing is latched; the dependents of R that the activate
        // released and left down (A, which failed, and D and E on it) are
        // held again, so `start` skips them and the next `activate(R)`
        // brings them up.
        assert!(ALL.iter().all(|n| !n.is_disabled()));
        assert!(A.is_held() && D.is_held() && E.is_held());
        assert!(!R.is_held() && !B.is_held() && !C.is_held());
        GA.provide(());
        GD.provide(());
        assert!(SUP.start(s).await.is_ok());
        assert!(!A.is_running() && !D.is_running() && !E.is_running());
        assert!(SUP.activate(&R, s).await.is_ok());
        assert!(ALL.iter().all(|n| n.is_running() && !n.is_held()));
        assert!(SUP.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn restart_overlaps_independent_slow_gates() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        all_up(s).await;
        let (r, took, spawned) = timed(SUP.restart(&R, s), &STAGGERED).await;
        all_up_overlapped(r, took, &spawned);
        assert!(SUP.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn restart_keeps_down_only_the_failed_subtree() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        all_up(s).await;
        let (r, took, spawned) = timed(SUP.restart(&R, s), &[(0, &GD), (300, &GB)]).await;
        only_a_subtree_down(r, took, &spawned);
        assert!(SUP.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn a_latch_during_the_wave_refuses_at_once() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        // A waits for its gate during the restart's bring-up; a
        // `deactivate(A)` then refuses it (and D, E) at once, not at the
        // end of A's 1000 ms budget; B and C still come up.
        all_up(s).await;
        let begin = Instant::now();
        let (r, _) = embassy_futures::join::join(SUP.restart(&R, s), async {
            common::settle().await;
            assert!(R.is_running() && C.is_running() && !A.is_running());
            assert!(SUP.deactivate(&A).await.is_ok());
            common::settle().await;
            GB.provide(());
        })
        .await;
        assert_eq!((Instant::now() - begin).as_millis(), 0);
        assert!(
            matches!(r, Err(NodeFault { node, kind: FaultKind::Refused(embassy_supervisor::Refusal::Disabled) }) if node.name == "A"),
            "{r:?}"
        );
        assert!(R.is_running() && B.is_running() && C.is_running());
        assert!(!A.is_running() && !D.is_running() && !E.is_running());
        assert!(SUP.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

// S <- D; S, GT <- T; GT's gate opens late. `activate(T)` enables S, GT
// and T; D (S's dependent, held by a `deactivate(S)`) is released by the
// same call and comes before GT in the order: the wave that takes over at
// GT must still bring D up.
static GT_GATE: ResourceSlot<()> = ResourceSlot::new();
static GATES_GT: [&dyn Gate; 1] = [&GT_GATE];
static S: TaskNode = TaskNode::new(&node("S", 0, &[]));
static DS: TaskNode = TaskNode::new(&node("D", 1, &[]));
static GT: TaskNode = TaskNode::new(&node("GT", 2, &GATES_GT));
static T: TaskNode = TaskNode::new(&node("T", 3, &[]));
static G2: Graph<4> = Graph::new(
    [Some(&S), Some(&DS), Some(&GT), Some(&T)],
    [&[], &[0], &[], &[0, 2]],
);
static SUP2: Supervisor<4> = Supervisor::new(&G2);
const ALL2: [&TaskNode; 4] = [&S, &DS, &GT, &T];

#[test]
fn activate_brings_up_a_released_dependent_ordered_before_the_wait() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        GT_GATE.provide(());
        assert!(SUP2.start(s).await.is_ok());
        assert!(SUP2.deactivate(&S).await.is_ok());
        assert!(SUP2.deactivate(&GT).await.is_ok());
        GT_GATE.clear();
        let (r, _, spawned) = timed(SUP2.activate(&T, s), &[(100, &GT_GATE)]).await;
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(spawned, [("S", 0), ("D", 0), ("GT", 100), ("T", 100)]);
        assert!(ALL2.iter().all(|n| n.is_running()));
        assert!(SUP2.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL2, |s| s.spawn(drive(s).unwrap()));
}
