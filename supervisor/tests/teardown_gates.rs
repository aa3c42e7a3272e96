//! Nothing comes up behind a teardown (issue 12, part 2). A bring-up that
//! waits on an empty gate while `teardown()` runs and returns `Ok` must not
//! spawn its node when the gate fills afterwards: not the controller's
//! admission, not the pool driver's grow, not a verb. Only `start`,
//! `respawn_terminate` or `activate` bring the graph back.
#![cfg(all(feature = "controller", feature = "pool"))]
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::{Controller, ControllerSpec, JobTarget, TaskOutcome};
use embassy_supervisor::{
    DeferredShrink, ElasticPool, FaultKind, Gate, Graph, Mode, NodeFault, NodeSpec, Pool, Refusal,
    ResourceSlot, Supervisor, TaskNode,
};
use embassy_time::Duration;

/// Spawns counted per node slot, to prove no spawn happened at all.
static SPAWNS: [AtomicUsize; 3] = [const { AtomicUsize::new(0) }; 3];

fn spawns(i: usize) -> usize {
    SPAWNS[i].load(Ordering::SeqCst)
}

fn spawn_counted(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let i = ALL.iter().position(|n| core::ptr::eq(*n, node)).unwrap();
    SPAWNS[i].fetch_add(1, Ordering::SeqCst);
    common::spawn_worker(node, s)
}

/// The gate of `J` (a controller target) and of `M` (a pool member), each
/// empty until the test fills it; waits are bounded at 5 s, far beyond any
/// step here (the mock clock does not move).
static J_GATE: ResourceSlot<()> = ResourceSlot::new();
static M_GATE: ResourceSlot<()> = ResourceSlot::new();

static J: TaskNode = TaskNode::new(
    &NodeSpec::new("J", Mode::OnDemand)
        .with_spawn(spawn_counted)
        .with_resources(&[&J_GATE as &dyn Gate])
        .with_slot_timeout(5000)
        .at(0),
);
static M: [TaskNode; 1] = [TaskNode::new(
    &NodeSpec::new("M", Mode::OnDemand)
        .with_spawn(spawn_counted)
        .with_resources(&[&M_GATE as &dyn Gate])
        .with_slot_timeout(5000)
        .at(1)
        .in_pool(0),
)];
/// A plain node, so the graph has something running to tear down.
static BASE: TaskNode = TaskNode::new(
    &NodeSpec::new("BASE", Mode::Terminate)
        .with_spawn(spawn_counted)
        .at(2),
);
/// `min: 1`: the driver grows `M` as soon as it runs.
static M_POOL: ElasticPool<DeferredShrink> =
    ElasticPool::new(&M, 1, 1, 1, DeferredShrink::new(Duration::from_secs(60)));
static POOLS: [&dyn Pool; 1] = [&M_POOL];
static GRAPH: Graph<3> =
    Graph::new([Some(&J), Some(&M[0]), Some(&BASE)], [&[], &[], &[]]).with_pools(&POOLS);
static CTRL: Controller<(), 2, 2, 2, 2> = Controller::new();
static SUP: Supervisor<3> = Supervisor::new(&GRAPH).with_controller(&CTRL);
static TJ: JobTarget<()> = JobTarget::node(&J);

const ALL: [&TaskNode; 3] = [&J, &M[0], &BASE];

/// Run `script` while `SUP.run` drives the pools and the controller.
async fn with_run(s: Spawner, script: impl core::future::Future<Output = ()>) {
    match select(SUP.run(s), script).await {
        Either::First(e) => panic!("run returned {e}"),
        Either::Second(()) => {}
    }
}

#[test]
fn a_controller_admission_waiting_on_a_gate_does_not_start_after_teardown() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        let _ = J_GATE.take();
        // The counts outlive a test: another test of this binary may have
        // spawned J before this one.
        let before = spawns(0);
        with_run(s, async {
            // The pool's member grows into a filled gate; the controller's
            // target waits on its empty one.
            M_GATE.provide(());
            common::settle().await;
            let watched = CTRL.submit_and_watch(ControllerSpec::queue(&TJ, ()));
            let script = async {
                common::settle().await;
                assert_eq!(spawns(0), before, "J spawned with its gate empty");
                SUP.teardown().await.unwrap();
                assert!(SUP.is_halted());
                assert!(ALL.iter().all(|n| !n.is_running()));
                // The driver's admission is still waiting on J's gate.
                J_GATE.provide(());
                common::settle().await;
                assert_eq!(spawns(0), before, "J came up after teardown returned Ok");
                assert!(!J.is_running(), "J is running on a torn-down graph");
            };
            let (outcome, ()) = join(watched, script).await;
            assert_eq!(outcome, TaskOutcome::Failed, "the admission backed out");
            // `start` brings the graph back; the job is not resurrected.
            SUP.start(s).await.unwrap();
            common::settle().await;
            assert!(BASE.is_running() && M[0].is_running());
            assert_eq!(spawns(0), before);
            SUP.teardown().await.unwrap();
        })
        .await;
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn a_pool_grow_waiting_on_a_gate_does_not_start_after_teardown() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        let _ = M_GATE.take();
        with_run(s, async {
            common::settle().await;
            assert!(BASE.is_running());
            let grown = spawns(1);
            // The driver's grow of M waits on M's empty gate.
            SUP.teardown().await.unwrap();
            assert!(ALL.iter().all(|n| !n.is_running()));
            M_GATE.provide(());
            common::settle().await;
            assert_eq!(spawns(1), grown, "M came up after teardown returned Ok");
            assert!(!M[0].is_running(), "M is running on a torn-down graph");
            // Only a start brings the pool back up.
            SUP.start(s).await.unwrap();
            common::settle().await;
            assert!(M[0].is_running(), "the pool regrows after start");
            SUP.teardown().await.unwrap();
        })
        .await;
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn a_verb_waiting_on_a_gate_does_not_start_after_teardown() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        let _ = J_GATE.take();
        // `start_node` waits on J's empty gate while a teardown runs.
        let start = SUP.start_node(&J, s);
        let script = async {
            common::settle().await;
            SUP.teardown().await.unwrap();
            J_GATE.provide(());
            common::settle().await;
        };
        let (started, ()) = join(start, script).await;
        let fault = started.unwrap_err();
        assert_eq!(
            fault,
            NodeFault::new(&J, FaultKind::Refused(Refusal::Halted)),
            "the bring-up backed out"
        );
        assert_eq!(
            fault.to_string(),
            "node `J` refused: the graph is torn down (start it first)"
        );
        assert!(!J.is_running(), "J came up after teardown returned Ok");
        // A start_node called after the teardown is a new request: it runs.
        SUP.start_node(&J, s).await.unwrap();
        assert!(J.is_running());
        SUP.teardown().await.unwrap();
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}
