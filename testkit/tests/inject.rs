//! Feature `fault-inject`: the kit's `worker` acts out faults injected into
//! its node, as a generated shell does, and `fault::clear` (or the next
//! `run`) lifts them.
#![cfg(feature = "fault-inject")]

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::{Graph, Mode, NodeSpec, SHUTDOWN_ACK_TIMEOUT, Supervisor, TaskNode};
use embassy_supervisor_testkit::{self as kit, Event, fault, fault::Fault};
use embassy_time::Duration;

static NET: TaskNode = TaskNode::new(
    &NodeSpec::new("NET", Mode::Terminate)
        .with_spawn(kit::spawn_worker)
        .with_fault_shell()
        .at(0),
);
static APP: TaskNode = TaskNode::new(
    &NodeSpec::new("APP", Mode::Terminate)
        .with_spawn(kit::spawn_worker)
        .with_fault_shell()
        .at(1),
);
/// Not marked: its task is the kit's worker, but the spec does not say so.
static PLAIN: TaskNode = TaskNode::new(
    &NodeSpec::new("PLAIN", Mode::Terminate)
        .with_spawn(kit::spawn_worker)
        .at(2),
);
static G: Graph<3> = Graph::new([Some(&NET), Some(&APP), Some(&PLAIN)], [&[], &[0], &[]]);
static SUP: Supervisor<3> = Supervisor::new(&G);

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    kit::settle().await;

    // An unmarked node refuses the injection, naming itself.
    let err = fault::inject(&PLAIN, Fault::Crash).unwrap_err();
    assert_eq!(err.node.name, "PLAIN");
    assert!(PLAIN.is_running() && PLAIN.fault().is_none());

    // A crash drops the worker: logged, and the node reads as exited.
    fault::inject(&APP, Fault::Crash).unwrap();
    kit::settle().await;
    assert_eq!(kit::log::order(Event::Crashed), ["APP"]);
    assert!(APP.has_exited() && !APP.shutdown_requested());
    SUP.start_node(&APP, spawner).await.unwrap();

    // A wedged worker never sees its stop: the teardown names it.
    fault::inject(&APP, Fault::Wedge).unwrap();
    let (r, ()) = join(
        SUP.teardown(),
        kit::advance_after_idle(SHUTDOWN_ACK_TIMEOUT + Duration::from_millis(1)),
    )
    .await;
    assert_eq!(r.unwrap_err().node.name, "APP");
    assert_eq!(kit::log::count(&APP, Event::Acked), 0);

    // `clear` lifts it: the stop is acked late, and the teardown completes.
    fault::clear();
    assert_eq!(APP.fault(), None);
    kit::wait_until(|| !APP.is_running(), Duration::from_millis(10))
        .await
        .unwrap();
    SUP.teardown().await.unwrap();
    assert_eq!(kit::log::count(&APP, Event::Acked), 1);
    assert_eq!(kit::log::count(&NET, Event::Acked), 1);

    // A fault set directly on a node lasts until the next `run`.
    NET.inject(Fault::Stall).unwrap();
    kit::pass();
}

#[embassy_executor::task]
async fn clean(_spawner: Spawner) {
    assert_eq!(NET.fault(), None);
    kit::pass();
}

// One test: the second run checks what the first left behind.
#[test]
fn the_worker_acts_out_injected_faults_and_each_run_starts_clean() {
    kit::run(&kit::nodes_of(&G), |s| s.spawn(driver(s).unwrap()));
    assert_eq!(NET.fault(), Some(Fault::Stall));
    kit::run(&kit::nodes_of(&G), |s| s.spawn(clean(s).unwrap()));
}
