//! The event stream: lifecycle and control events in order, with node names
//! and timestamps; a lagging subscriber learns how many it missed; publishing
//! never blocks the supervisor.
#![cfg(all(feature = "events", feature = "control"))]

mod common;

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::event::{self, EVENT_CAPACITY, EventKind, EventSubscriber, WaitResult};
use embassy_supervisor::{ControlOp, Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_time::{Duration, Instant};

#[embassy_executor::task]
async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

/// Never acks a stop: produces a shutdown timeout.
#[embassy_executor::task]
async fn wedged(node: &'static TaskNode) {
    node.wait_shutdown().await;
    core::future::pending::<()>().await
}

fn spawn_a(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(worker(&A)?);
    Ok(())
}
fn spawn_fail(_: &'static TaskNode, _: Spawner) -> Result<(), SpawnError> {
    Err(SpawnError::Busy)
}
fn spawn_w(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(wedged(&W)?);
    Ok(())
}

static A: TaskNode = TaskNode::new(
    &NodeSpec::new("A", Mode::Terminate)
        .with_spawn(spawn_a)
        .at(0),
);
static F: TaskNode = TaskNode::new(
    &NodeSpec::new("F", Mode::OnDemand)
        .with_spawn(spawn_fail)
        .at(1),
);
static W: TaskNode = TaskNode::new(&NodeSpec::new("W", Mode::OnDemand).with_spawn(spawn_w).at(2));
static GRAPH: Graph<3> = Graph::new([Some(&A), Some(&F), Some(&W)], [&[], &[], &[]]);
static SUP: Supervisor<3> = Supervisor::new(&GRAPH);

fn drain(sub: &mut EventSubscriber) -> Vec<WaitResult<EventKind>> {
    let mut out = Vec::new();
    while let Some(r) = sub.try_next_message() {
        out.push(match r {
            WaitResult::Message(e) => WaitResult::Message(e.kind),
            WaitResult::Lagged(n) => WaitResult::Lagged(n),
        });
    }
    out
}

fn msg(kind: EventKind) -> WaitResult<EventKind> {
    WaitResult::Message(kind)
}

#[embassy_executor::task]
async fn lifecycle_script(spawner: Spawner) {
    let mut sub = event::subscribe().unwrap();
    common::advance(Duration::from_millis(5));
    let t0 = Instant::now();
    SUP.start(spawner).await.unwrap();
    SUP.stop_node(&A).await.unwrap();
    assert!(SUP.start_node(&F, spawner).await.is_err());
    let got = drain(&mut sub);
    assert_eq!(
        got,
        [
            msg(EventKind::NodeSpawned { node: "A" }),
            msg(EventKind::NodeDown { node: "A" }),
            msg(EventKind::NodeExited { node: "A" }),
            msg(EventKind::SpawnFailed { node: "F" }),
        ]
    );
    // Shutdown timeout: the clock moves only for this.
    SUP.start_node(&W, spawner).await.unwrap();
    let (stop, ()) = embassy_futures::join::join(
        SUP.stop_node(&W),
        common::advance_after_idle(embassy_supervisor::SHUTDOWN_ACK_TIMEOUT),
    )
    .await;
    assert!(stop.is_err());
    let mut stamps = Vec::new();
    while let Some(WaitResult::Message(e)) = sub.try_next_message() {
        stamps.push(e);
    }
    let kinds: Vec<_> = stamps.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            EventKind::NodeSpawned { node: "W" },
            EventKind::ShutdownTimeout { node: "W" }
        ]
    );
    assert_eq!(stamps[0].at, t0, "stamped with the embassy clock");
    assert_eq!(stamps[1].at, t0 + embassy_supervisor::SHUTDOWN_ACK_TIMEOUT);
    // Control applied, through the one driver.
    embassy_supervisor::request_control(&A, ControlOp::Deactivate).await;
    let script = async {
        common::settle().await;
        let got = drain(&mut sub);
        // `run` first brings A back up (start), then applies the command.
        assert_eq!(
            got,
            [
                msg(EventKind::NodeSpawned { node: "A" }),
                msg(EventKind::ControlApplied {
                    node: "A",
                    op: ControlOp::Deactivate
                }),
                msg(EventKind::NodeDown { node: "A" }),
                msg(EventKind::NodeExited { node: "A" }),
            ]
        );
    };
    let _ = embassy_futures::select::select(SUP.run(spawner), script).await;
    common::pass();
}

#[test]
fn lifecycle_events_in_order_with_names_and_time() {
    common::run(&[&A, &F, &W], |s| s.spawn(lifecycle_script(s).unwrap()));
}

#[embassy_executor::task]
async fn lag_script(_spawner: Spawner) {
    let mut slow = event::subscribe().unwrap();
    // Publishing never waits, even with a subscriber that reads nothing.
    let flood = EVENT_CAPACITY + 5;
    for _ in 0..flood {
        A.ack_dropped();
    }
    assert_eq!(slow.try_next_message(), Some(WaitResult::Lagged(5)));
    let mut rest = 0;
    while let Some(WaitResult::Message(e)) = slow.try_next_message() {
        assert_eq!(e.kind, EventKind::NodeDown { node: "A" });
        rest += 1;
    }
    assert_eq!(rest, EVENT_CAPACITY);
    common::pass();
}

#[test]
fn lagging_subscriber_learns_how_many_it_missed() {
    common::run(&[&A], |s| s.spawn(lag_script(s).unwrap()));
}
