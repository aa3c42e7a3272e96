//! The pool and controller events: `PoolGrew`/`PoolShrank` from the pool
//! driver, `ControllerSubmitted`, `ControllerSlotTransition` and
//! `ControllerRejected` from the controller, each naming its node or slot.
#![cfg(all(feature = "events", feature = "pool", feature = "controller"))]
mod common;

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::{
    AdmissionPolicy, Controller, ControllerSpec, JobTarget, Key, RejectKind, SlotStatusKind,
    TaskOutcome,
};
use embassy_supervisor::event::{self, EventKind, EventSubscriber, WaitResult};
use embassy_supervisor::{
    DeferredShrink, ElasticPool, Graph, Mode, NodeSpec, Pool, Supervisor, TaskNode,
};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::Duration;

static W: [TaskNode; 2] = [
    TaskNode::new(
        &NodeSpec::new("W[0]", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .at(0)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W[1]", Mode::OnDemand)
            .with_spawn(common::spawn_worker)
            .at(1)
            .in_pool(0),
    ),
];
static JOB: TaskNode = TaskNode::new(
    &NodeSpec::new("JOB", Mode::OnDemand)
        .with_spawn(spawn_job)
        .at(2),
);

/// Lets the one controller job finish on its own (a completion, not a stop).
static JOB_DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

#[embassy_executor::task]
async fn job(node: &'static TaskNode) {
    let _ = node.run_cancellable(JOB_DONE.wait()).await;
    node.mark_exited();
}

fn spawn_job(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(job(node)?);
    Ok(())
}
static W_POOL: ElasticPool<DeferredShrink> =
    ElasticPool::new(&W, 0, 1, 2, DeferredShrink::new(Duration::from_secs(1)));
static POOLS: [&dyn Pool; 1] = [&W_POOL];
static GRAPH: Graph<3> =
    Graph::new([Some(&W[0]), Some(&W[1]), Some(&JOB)], [&[], &[], &[]]).with_pools(&POOLS);
static CTRL: Controller<(), 2, 2, 4, 4> = Controller::new();
static SUP: Supervisor<3> = Supervisor::new(&GRAPH).with_controller(&CTRL);
static TARGET: JobTarget<()> = JobTarget::node(&JOB);

/// The pool and controller events seen so far (lifecycle events filtered out).
fn drain(sub: &mut EventSubscriber) -> Vec<EventKind> {
    let mut out = Vec::new();
    while let Some(r) = sub.try_next_message() {
        match r {
            WaitResult::Message(e) => match e.kind {
                EventKind::NodeSpawned { .. }
                | EventKind::NodeDown { .. }
                | EventKind::NodeExited { .. } => {}
                kind => out.push(kind),
            },
            WaitResult::Lagged(n) => panic!("lagged by {n}: the test reads too slowly"),
        }
    }
    out
}

fn transition(from: SlotStatusKind, to: SlotStatusKind) -> EventKind {
    EventKind::ControllerSlotTransition {
        slot: Key::Name("JOB"),
        from,
        to,
    }
}

#[embassy_executor::task]
async fn script(spawner: Spawner) {
    let mut sub = event::subscribe().unwrap();
    let body = async {
        common::settle().await;
        // Pool: saturation grows, an idle surplus shrinks after the cooldown.
        W[0].mark_busy();
        common::settle().await;
        assert_eq!(drain(&mut sub), [EventKind::PoolGrew { node: "W[1]" }]);
        W[0].mark_idle();
        common::settle().await;
        common::advance(Duration::from_millis(1_100));
        common::settle().await;
        assert_eq!(drain(&mut sub), [EventKind::PoolShrank { node: "W[1]" }]);

        // Controller: a submission, its slot's transitions, a rejection.
        let watched = CTRL.submit_and_watch(ControllerSpec::queue(&TARGET, ()));
        let mut watched = core::pin::pin!(watched);
        assert!(embassy_futures::poll_once(watched.as_mut()).is_pending());
        common::settle().await;
        assert!(JOB.is_running());
        assert!(
            CTRL.try_submit(ControllerSpec::drop_if_running(&TARGET, ()))
                .is_ok(),
            "accepted into the intake; the driver rejects it"
        );
        common::settle().await;
        JOB_DONE.signal(());
        assert_eq!(watched.await, TaskOutcome::Completed);
        assert_eq!(
            drain(&mut sub),
            [
                EventKind::ControllerSubmitted {
                    slot: Key::Name("JOB"),
                    target: "JOB",
                    policy: AdmissionPolicy::Queue
                },
                transition(SlotStatusKind::Idle, SlotStatusKind::Admitting),
                transition(SlotStatusKind::Admitting, SlotStatusKind::Running),
                EventKind::ControllerSubmitted {
                    slot: Key::Name("JOB"),
                    target: "JOB",
                    policy: AdmissionPolicy::DropIfRunning
                },
                EventKind::ControllerRejected {
                    slot: Key::Name("JOB"),
                    target: "JOB",
                    kind: RejectKind::SlotBusy
                },
                transition(SlotStatusKind::Running, SlotStatusKind::Idle),
            ]
        );
    };
    match select(SUP.run(spawner), body).await {
        Either::First(e) => panic!("run ended: {e}"),
        Either::Second(()) => {}
    }
    common::pass();
}

#[test]
fn pool_and_controller_events_name_their_node_or_slot() {
    common::run(&[&W[0], &W[1], &JOB], |s| s.spawn(script(s).unwrap()));
}
