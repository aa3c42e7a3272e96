//! The lifecycle sink: the application's callback sees every driven
//! transition, synchronously (the node's state already reflects it), in
//! order, with the embassy-time stamp, and none is dropped however many come
//! at once (the bounded event stream would overwrite them).
#![cfg(feature = "lifecycle-sink")]

mod common;

use std::sync::Mutex;

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_supervisor::{
    Graph, LifecycleSink, Mode, NodeSpec, Phase, Supervisor, TaskNode, set_lifecycle_sink,
};
use embassy_time::{Duration, Instant};

/// Workers brought up by one `start`: more than the event stream buffers.
const WORKERS: usize = 20;
const N: usize = WORKERS + 2;
const WEDGE: usize = WORKERS;
const FAIL: usize = WORKERS + 1;

/// Sees its stop and never acks it.
#[embassy_executor::task]
async fn wedged(node: &'static TaskNode) {
    node.wait_shutdown().await;
    core::future::pending::<()>().await
}

fn spawn_wedged(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(wedged(node)?);
    Ok(())
}

fn spawn_refused(_: &'static TaskNode, _: Spawner) -> Result<(), SpawnError> {
    Err(SpawnError::Busy)
}

static SPECS: [NodeSpec; N] = {
    let mut s = [const { NodeSpec::new("W", Mode::Terminate) }; N];
    let mut i = 0;
    while i < N {
        s[i] = match i {
            WEDGE => NodeSpec::new("WEDGE", Mode::OnDemand).with_spawn(spawn_wedged),
            FAIL => NodeSpec::new("FAIL", Mode::OnDemand).with_spawn(spawn_refused),
            _ => NodeSpec::new("W", Mode::Terminate).with_spawn(common::spawn_worker),
        }
        .at(i as u8);
        i += 1;
    }
    s
};

static NODES: [TaskNode; N] = {
    let mut n = [const { TaskNode::new(&SPECS[0]) }; N];
    let mut i = 0;
    while i < N {
        // `forget`: const evaluation cannot run the placeholder's drop.
        core::mem::forget(core::mem::replace(&mut n[i], TaskNode::new(&SPECS[i])));
        i += 1;
    }
    n
};

static GRAPH: Graph<N> = {
    let mut slots = [None; N];
    let mut i = 0;
    while i < N {
        slots[i] = Some(&NODES[i]);
        i += 1;
    }
    Graph::new(slots, [&[]; N])
};
static SUP: Supervisor<N> = Supervisor::new(&GRAPH);

/// One call of the sink: slot, phase, stamp, and whether the node read as
/// running inside the call.
type Call = (usize, Phase, Instant, bool);

static CALLS: Mutex<Vec<Call>> = Mutex::new(Vec::new());

fn record(node: &TaskNode, phase: Phase, at: Instant) {
    let slot = GRAPH.index_of(node).expect("a node of this graph");
    CALLS
        .lock()
        .unwrap()
        .push((slot, phase, at, node.is_running()));
}

fn take() -> Vec<Call> {
    std::mem::take(&mut *CALLS.lock().unwrap())
}

#[embassy_executor::task]
async fn script(spawner: Spawner) {
    assert!(set_lifecycle_sink(Some(record)).is_none());
    common::advance(Duration::from_millis(5));
    let t0 = Instant::now();

    // One bring-up of 20 nodes: 20 calls, in dependency (here slot) order,
    // each made after the node reads as running.
    SUP.start(spawner).await.unwrap();
    let want: Vec<Call> = (0..WORKERS)
        .map(|i| (i, Phase::Started, t0, true))
        .collect();
    assert_eq!(take(), want);

    // A stop: requested (still running), acked, body returned.
    SUP.stop_node(&NODES[3]).await.unwrap();
    assert_eq!(
        take(),
        [
            (3, Phase::Stopping, t0, true),
            (3, Phase::Stopped, t0, false),
            (3, Phase::Exited, t0, false),
        ]
    );

    // A refused spawn.
    assert!(SUP.start_node(&NODES[FAIL], spawner).await.is_err());
    assert_eq!(take(), [(FAIL, Phase::SpawnFailed, t0, false)]);

    // A stop that times out, stamped when the wait gave up.
    SUP.start_node(&NODES[WEDGE], spawner).await.unwrap();
    let (stopped, ()) = join(
        SUP.stop_node(&NODES[WEDGE]),
        common::advance_after_idle(embassy_supervisor::SHUTDOWN_ACK_TIMEOUT),
    )
    .await;
    assert!(stopped.is_err());
    assert_eq!(
        take(),
        [
            (WEDGE, Phase::Started, t0, true),
            (WEDGE, Phase::Stopping, t0, true),
            (
                WEDGE,
                Phase::StopTimedOut,
                t0 + embassy_supervisor::SHUTDOWN_ACK_TIMEOUT,
                true
            ),
        ]
    );

    // Removing the sink hands it back; nothing is called afterwards.
    let removed: Option<LifecycleSink> = set_lifecycle_sink(None);
    assert!(removed.is_some());
    SUP.stop_node(&NODES[0]).await.unwrap();
    assert!(!NODES[0].is_running());
    assert_eq!(take(), []);
    common::pass();
}

#[test]
fn sink_sees_every_transition_in_order_synchronously_and_none_dropped() {
    let watched: Vec<&'static TaskNode> = NODES.iter().collect();
    common::run(&watched, |s| s.spawn(script(s).unwrap()));
}
