//! `NodeFault`: each kind comes from a real scenario on a real executor and
//! reads as it should (`Display`, `Debug`); `activate` starts everything it
//! can and returns the first fault; `run()` reports a failed bring-up and a
//! control `Activate` that could not start a node. (The gate kinds are also
//! pinned where their gates are: `ResourceEmpty` in lifecycle_errors,
//! `ExecutorUnpublished` in macro_default_executor, `DepNotReady` in
//! readiness, `Refused(Halted)` in teardown_gates.)
mod common;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::{
    FaultKind, Graph, Mode, NodeFault, NodeSpec, Refusal, SHUTDOWN_ACK_TIMEOUT, ShutdownTimeout,
    Supervisor, TaskNode,
};
use embassy_time::Duration;

const fn spec(name: &'static str, at: u8) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(at)
}

// BASE <- A, BASE <- B; STRANGER is in no graph.
static BASE: TaskNode = TaskNode::new(&spec("BASE", 0));
static A: TaskNode = TaskNode::new(&spec("A", 1));
static B: TaskNode = TaskNode::new(&spec("B", 2));
static STRANGER: TaskNode = TaskNode::new(&spec("STRANGER", 0));
static G: Graph<3> = Graph::new([Some(&BASE), Some(&A), Some(&B)], [&[], &[0], &[0]]);
static SUP: Supervisor<3> = Supervisor::new(&G);
const ALL: &[&TaskNode] = &[&BASE, &A, &B];

#[embassy_executor::task]
async fn activate_reports(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::settle().await;

    // Held by a deactivated dependency: refused by name, nothing spawned.
    SUP.deactivate(&BASE).await.unwrap();
    let held = SUP.start_node(&A, spawner).await.unwrap_err();
    assert_eq!(held, NodeFault::new(&A, FaultKind::Refused(Refusal::Held)));
    assert!(held.is_refusal());
    assert_eq!(
        held.to_string(),
        "node `A` refused: held by a deactivated dependency (activate that first)"
    );
    assert!(!A.is_running());

    // A's spawn fails; activate still starts BASE and B, then says so.
    common::fault::refuse_spawn(&A);
    let first = SUP.activate(&BASE, spawner).await.unwrap_err();
    assert_eq!(first, NodeFault::new(&A, FaultKind::SpawnBusy));
    assert!(!first.is_refusal());
    assert_eq!(
        format!("{first:?}"),
        r#"NodeFault { node: "A", kind: SpawnBusy }"#
    );
    assert!(BASE.is_running() && B.is_running() && !A.is_running());
    assert!(core::ptr::eq(SUP.failed_node().unwrap(), &A));
    common::fault::clear();
    SUP.activate(&A, spawner).await.unwrap();
    assert!(A.is_running());

    // A node of no graph is refused, not silently ignored.
    for fault in [
        SUP.activate(&STRANGER, spawner).await.unwrap_err(),
        SUP.deactivate(&STRANGER).await.unwrap_err(),
    ] {
        assert_eq!(
            fault,
            NodeFault::new(&STRANGER, FaultKind::Refused(Refusal::NotInGraph))
        );
        assert_eq!(
            fault.to_string(),
            "node `STRANGER` refused: not in this supervisor's graph"
        );
    }

    // A missed ack, from the verb and converted from the old type alike.
    common::fault::ignore_stop(&B);
    let (stopped, ()) = join(
        SUP.stop_node(&B),
        common::advance_after_idle(SHUTDOWN_ACK_TIMEOUT + Duration::from_millis(1)),
    )
    .await;
    let missed = stopped.unwrap_err();
    assert_eq!(missed, NodeFault::new(&B, FaultKind::AckMissed));
    assert_eq!(missed, NodeFault::from(ShutdownTimeout { node: &B }));
    assert_eq!(missed.to_string(), "node `B` missed its shutdown ack");
    assert_eq!(
        format!("{missed:?}"),
        r#"NodeFault { node: "B", kind: AckMissed }"#
    );
    common::fault::clear();
    B.set_detached(true);
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn activate_starts_what_it_can_and_returns_the_first_fault() {
    common::run(ALL, |s| s.spawn(activate_reports(s).unwrap()));
}

/// The restart budget's kinds are built by the restart policy; their text
/// and equality are the type's own.
#[test]
fn budget_kinds_read_as_counts() {
    let spent = NodeFault::new(
        &A,
        FaultKind::BudgetSpent {
            restarts: 3,
            window_ms: 10_000,
        },
    );
    assert!(spent.is_refusal());
    assert_eq!(
        spent.to_string(),
        "node `A` not restarted: 3 restarts within 10000 ms spent its budget"
    );
    let escalated = NodeFault::new(
        &A,
        FaultKind::Escalated {
            restarts: 3,
            window_ms: 10_000,
        },
    );
    assert!(!escalated.is_refusal());
    assert_ne!(spent, escalated);
    assert_eq!(
        escalated.to_string(),
        "node `A` escalated: 3 restarts within 10000 ms; graph torn down"
    );
    assert_eq!(
        format!("{escalated:?}"),
        r#"NodeFault { node: "A", kind: Escalated { restarts: 3, window_ms: 10000 } }"#
    );
    let dep = FaultKind::DepNotReady { dep: &BASE };
    assert_eq!(format!("{dep:?}"), r#"DepNotReady { dep: "BASE" }"#);
    assert_ne!(dep, FaultKind::DepNotReady { dep: &B });
}

#[cfg(feature = "control")]
mod through_run {
    use super::*;
    use embassy_futures::select::{Either, select};
    use embassy_supervisor::{ControlOp, request_control};

    // Statics outlive a test: this one has its own graph, the same shape.
    static BASE: TaskNode = TaskNode::new(&spec("BASE", 0));
    static A: TaskNode = TaskNode::new(&spec("A", 1));
    static B: TaskNode = TaskNode::new(&spec("B", 2));
    static G: Graph<3> = Graph::new([Some(&BASE), Some(&A), Some(&B)], [&[], &[0], &[0]]);
    static SUP: Supervisor<3> = Supervisor::new(&G);
    const ALL: &[&TaskNode] = &[&BASE, &A, &B];

    #[embassy_executor::task]
    async fn run_reports(spawner: Spawner) {
        // A failed bring-up is run()'s value at once.
        common::fault::refuse_spawn(&B);
        let fault = SUP.run(spawner).await;
        assert_eq!(fault, NodeFault::new(&B, FaultKind::SpawnBusy));
        common::fault::clear();

        // A control Activate that cannot start a node ends run() with it
        // (it used to be dropped: the mailbox has no reply path).
        let script = async {
            common::settle().await;
            assert!(BASE.is_running() && A.is_running() && B.is_running());
            SUP.deactivate(&BASE).await.unwrap();
            common::fault::refuse_spawn(&A);
            request_control(&BASE, ControlOp::Activate).await;
            core::future::pending::<()>().await
        };
        match select(SUP.run(spawner), script).await {
            Either::First(fault) => assert_eq!(fault, NodeFault::new(&A, FaultKind::SpawnBusy)),
            Either::Second(()) => unreachable!(),
        }
        assert!(BASE.is_running() && B.is_running() && !A.is_running());
        common::fault::clear();
        SUP.teardown().await.unwrap();
        common::pass();
    }

    #[test]
    fn run_reports_a_failed_bring_up_and_a_failed_activation() {
        common::run(ALL, |s| s.spawn(run_reports(s).unwrap()));
    }
}
