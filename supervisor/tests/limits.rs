//! Every index range used to its last value (issue 12, part 3): a graph of
//! 256 slots holding 256 pools (pool index 255 is a pool, not "no pool"),
//! and a controller at its largest `WATCH` (256), with its queue depth and
//! intake filled to the last entry and one past it.
#![cfg(all(feature = "controller", feature = "pool"))]
mod common;

use std::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join_array;
use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::{
    Controller, ControllerError, ControllerSpec, JobTarget, TaskOutcome,
};
use embassy_supervisor::{
    DeferredShrink, ElasticPool, Graph, Mode, NodeSpec, Pool, Supervisor, TaskNode,
};
use embassy_time::Duration;

// ---- 256 slots, 256 single-member pools ------------------------------------

const K: usize = 256;

fn spawn_member(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    common::spawn_worker(node, s)
}

static SPECS: [NodeSpec; K] = {
    let mut specs = [const { NodeSpec::new("M", Mode::OnDemand) }; K];
    let mut i = 0;
    while i < K {
        specs[i] = NodeSpec::new("M", Mode::OnDemand)
            .with_spawn(spawn_member)
            .at(i as u8)
            .in_pool(i as u8);
        i += 1;
    }
    specs
};
static UNUSED: NodeSpec = NodeSpec::new("UNUSED", Mode::OnDemand);
static MEMBERS: [TaskNode; K] = {
    let mut nodes = [const { TaskNode::new(&UNUSED) }; K];
    let mut i = 0;
    while i < K {
        core::mem::forget(core::mem::replace(&mut nodes[i], TaskNode::new(&SPECS[i])));
        i += 1;
    }
    nodes
};
const COOLDOWN: Duration = Duration::from_secs(60);
static POOLS: [ElasticPool<DeferredShrink>; K] = {
    let mut pools = [const { ElasticPool::new(&[], 0, 0, 0, DeferredShrink::new(COOLDOWN)) }; K];
    let mut i = 0;
    while i < K {
        // One member each, `min: 0`: a member grows only on demand.
        pools[i] = ElasticPool::new(
            core::slice::from_ref(&MEMBERS[i]),
            i as u8,
            0,
            1,
            DeferredShrink::new(COOLDOWN),
        );
        i += 1;
    }
    pools
};
static POOL_REFS: [&dyn Pool; K] = {
    let mut refs = [&POOLS[0] as &dyn Pool; K];
    let mut i = 0;
    while i < K {
        refs[i] = &POOLS[i];
        i += 1;
    }
    refs
};
static GRAPH: Graph<K> = {
    let mut nodes = [None; K];
    let mut i = 0;
    while i < K {
        nodes[i] = Some(&MEMBERS[i]);
        i += 1;
    }
    Graph::new(nodes, [&[]; K]).with_pools(&POOL_REFS)
};
static SUP: Supervisor<K> = Supervisor::new(&GRAPH);

#[test]
fn the_256th_pool_grows_on_load_like_every_other() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        let script = async {
            common::settle().await;
            assert!(MEMBERS.iter().all(|m| !m.is_running()), "min 0: none runs");
            // The last pool first: nothing else wakes the driver for it.
            MEMBERS[K - 1].mark_busy();
            common::settle().await;
            assert!(MEMBERS[K - 1].is_running(), "pool 255 did not grow");
            MEMBERS[K - 2].mark_busy();
            common::settle().await;
            assert!(MEMBERS[K - 2].is_running(), "pool 254 did not grow");
            assert_eq!(MEMBERS.iter().filter(|m| m.is_running()).count(), 2);
            // A deactivation of the last slot reaches its pool (index 255).
            SUP.deactivate(&MEMBERS[K - 1]).await.unwrap();
            assert!(!MEMBERS[K - 1].is_running() && MEMBERS[K - 1].is_disabled());
            SUP.teardown().await.unwrap();
        };
        match select(SUP.run(s), script).await {
            Either::First(e) => panic!("run returned {e}"),
            Either::Second(()) => {}
        }
        common::pass();
    }
    common::run(&[&MEMBERS[K - 1], &MEMBERS[K - 2]], |s| {
        s.spawn(drive(s).unwrap())
    });
}

// ---- the controller at its largest WATCH, depth and intake -----------------

static INSTANT: AtomicBool = AtomicBool::new(false);

#[embassy_executor::task]
async fn job(node: &'static TaskNode) {
    if !INSTANT.load(Ordering::SeqCst) {
        node.wait_shutdown().await;
        node.ack_dropped();
    }
    node.mark_exited();
}

fn spawn_job(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(job(node)?);
    Ok(())
}

static T: TaskNode = TaskNode::new(
    &NodeSpec::new("T", Mode::OnDemand)
        .with_spawn(spawn_job)
        .at(0),
);
static T_GRAPH: Graph<1> = Graph::new([Some(&T)], [&[]]);
/// The largest watch count (cells are indexed by `u8`), a queue of 255
/// behind the running job, an intake of 256.
static CTRL: Controller<(), 1, 255, 256, 256> = Controller::new();
static T_SUP: Supervisor<1> = Supervisor::new(&T_GRAPH).with_controller(&CTRL);
static TT: JobTarget<()> = JobTarget::node(&T);
/// A controller no driver ever drains.
static UNDRAINED: Controller<(), 1, 0, 256, 1> = Controller::new();

#[test]
fn the_intake_holds_exactly_its_capacity_then_returns_full() {
    #[embassy_executor::task]
    async fn drive(_s: Spawner) {
        // No driver: nothing drains the intake.
        for _ in 0..256 {
            UNDRAINED
                .try_submit(ControllerSpec::drop_if_running(&TT, ()))
                .unwrap();
        }
        assert_eq!(UNDRAINED.snapshot().intake, 256);
        let full = UNDRAINED
            .try_submit(ControllerSpec::drop_if_running(&TT, ()))
            .unwrap_err();
        assert_eq!(full.error, ControllerError::Full);
        common::pass();
    }
    common::run(&[&T], |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn all_256_watch_cells_resolve_and_the_queue_fills_to_its_depth() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        let script = async {
            // 256 watched jobs at once: one runs, 255 fill the queue.
            let watchers: [_; 256] =
                core::array::from_fn(|_| CTRL.submit_and_watch(ControllerSpec::queue(&TT, ())));
            let check = async {
                common::settle().await;
                let view = CTRL.snapshot().get("T").unwrap();
                assert!(T.is_running());
                assert_eq!(view.queued, 255, "the queue holds its full depth");
                // Let every job finish as soon as it starts.
                INSTANT.store(true, Ordering::SeqCst);
                T_SUP.stop_node(&T).await.unwrap();
            };
            let (outcomes, ()) = embassy_futures::join::join(join_array(watchers), check).await;
            assert_eq!(outcomes[0], TaskOutcome::Canceled, "the first was stopped");
            assert!(
                outcomes[1..].iter().all(|o| *o == TaskOutcome::Completed),
                "every queued job ran and resolved its own watcher"
            );
        };
        match select(T_SUP.run(s), script).await {
            Either::First(e) => panic!("run returned {e}"),
            Either::Second(()) => {}
        }
        common::pass();
    }
    common::run(&[&T], |s| s.spawn(drive(s).unwrap()));
}
