//! A node's own ack window (`NodeSpec::with_ack_timeout`): a stop that
//! legitimately takes 3 s succeeds on a node that allows 5 s, and the same
//! stop is a `ShutdownTimeout` under the default 2 s. The mock clock moves
//! in 1 s steps, so which deadline passes first is never a race.
mod common;

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_time::{Duration, Timer};

/// Takes 3 s (mock clock) to wind down after a stop, then acks.
#[embassy_executor::task(pool_size = 2)]
async fn slow_stop(node: &'static TaskNode) {
    node.wait_shutdown().await;
    Timer::after(Duration::from_secs(3)).await;
    node.ack_dropped();
    node.mark_exited();
}

fn spawn_slow(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(slow_stop(node)?);
    Ok(())
}

static PATIENT: TaskNode = TaskNode::new(
    &NodeSpec::new("PATIENT", Mode::Terminate)
        .with_spawn(spawn_slow)
        .with_ack_timeout(5000)
        .at(0),
);
static DEFAULT: TaskNode = TaskNode::new(
    &NodeSpec::new("DEFAULT", Mode::Terminate)
        .with_spawn(spawn_slow)
        .at(1),
);
static GRAPH: Graph<2> = Graph::new([Some(&PATIENT), Some(&DEFAULT)], [&[], &[]]);
static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

/// Four seconds of mock time, one at a time: past the 2 s default ack
/// window and the 3 s the worker takes, with every task run in between.
fn four_seconds() -> impl core::future::Future<Output = ()> {
    common::advance_in_steps(Duration::from_secs(4), Duration::from_secs(1))
}

#[test]
fn a_node_ack_timeout_replaces_the_default_on_every_stop_path() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        assert_eq!(PATIENT.ack_timeout(), Duration::from_secs(5));
        assert_eq!(
            DEFAULT.ack_timeout(),
            embassy_supervisor::SHUTDOWN_ACK_TIMEOUT
        );
        SUP.start(s).await.unwrap();
        common::settle().await;

        // stop_node: 3 s of cleanup fits in 5 s.
        let (r, ()) = join(SUP.stop_node(&PATIENT), four_seconds()).await;
        assert!(r.is_ok(), "PATIENT's 3 s stop fits its 5 s window");
        assert!(!PATIENT.is_running());

        // The same stop on a default node misses its 2 s window.
        let (r, ()) = join(SUP.stop_node(&DEFAULT), four_seconds()).await;
        assert_eq!(r.unwrap_err().node.name, "DEFAULT");

        // teardown uses the node's window too (DEFAULT acked late: down).
        assert!(!DEFAULT.is_running());
        SUP.start_node(&PATIENT, s).await.unwrap();
        common::settle().await;
        let (r, ()) = join(SUP.teardown(), four_seconds()).await;
        assert!(r.is_ok(), "teardown waits PATIENT's 5 s, not 2 s");
        assert!(!PATIENT.is_running() && !DEFAULT.is_running());
        common::pass();
    }
    common::run(&[&PATIENT, &DEFAULT], |s| s.spawn(drive(s).unwrap()));
}
