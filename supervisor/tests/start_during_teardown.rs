//! A `start` called while a teardown is still in flight is refused for the
//! nodes it finds down (`Refused(Halted)`), and the graph stays halted once
//! the teardown ends: the pool driver grows nothing behind it.
mod common;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::{FaultKind, Graph, Mode, NodeSpec, Refusal, Supervisor, TaskNode};
use embassy_time::Duration;

const fn worker(name: &'static str, at: u8) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(at)
}
// QUICK stops at once; SLOW never acks, so the teardown stays in flight
// for its ack window.
static QUICK: TaskNode = TaskNode::new(&worker("QUICK", 0));
static SLOW: TaskNode = TaskNode::new(&worker("SLOW", 1));
static G: Graph<2> = Graph::new([Some(&QUICK), Some(&SLOW)], [&[], &[]]);
static SUP: Supervisor<2> = Supervisor::new(&G);

#[embassy_executor::task]
async fn drive(s: Spawner) {
    SUP.start(s).await.unwrap();
    common::fault::ignore_stop(&SLOW);
    let script = async {
        common::settle().await;
        assert!(
            !QUICK.is_running() && SLOW.is_running(),
            "teardown in flight"
        );
        let started = SUP.start(s).await;
        let halted = FaultKind::Refused(Refusal::Halted);
        assert!(
            matches!(started, Err(f) if f.kind == halted && f.node.name == "QUICK"),
            "{started:?}"
        );
        common::advance(Duration::from_secs(3));
    };
    let (torn, ()) = join(SUP.teardown(), script).await;
    assert_eq!(torn.unwrap_err().kind, FaultKind::AckMissed);
    assert!(!QUICK.is_running());
    assert!(SUP.is_halted(), "the refused start left the graph halted");
    common::pass();
}

#[test]
fn a_start_refused_by_a_teardown_in_flight_leaves_the_graph_halted() {
    common::run(&[&QUICK, &SLOW], |s| s.spawn(drive(s).unwrap()));
}
