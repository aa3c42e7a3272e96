//! The lifecycle promises around the table: the "Ordering guarantees"
//! paragraph, missed acks as `ShutdownTimeout` values (`teardown` aborting,
//! `teardown_continue` sweeping on), gate waits ending in `SpawnError::Busy`
//! with nothing taken, and `failed_node()`. Only the timeout tests move the
//! mock clock, and only once the operation under test is waiting.
mod common;
#[path = "kits/lifecycle.rs"]
mod kit;

use core::sync::atomic::Ordering;

use common::{advance_after_idle, settle};
use embassy_executor::SpawnError;
use embassy_futures::join::join;
use embassy_supervisor::{DEFAULT_SLOT_TIMEOUT, NodeSpec, SHUTDOWN_ACK_TIMEOUT, TaskNode};
use embassy_time::Duration;
use kit::Ev::{Ack, Spawn, Wedged};
use kit::*;

/// Just past the ack deadline.
fn past_ack() -> Duration {
    SHUTDOWN_ACK_TIMEOUT + Duration::from_millis(1)
}

/// Just past one gate's wait.
fn past_gate() -> Duration {
    DEFAULT_SLOT_TIMEOUT + Duration::from_millis(1)
}

#[test]
fn defaults_are_the_spec_figures() {
    assert_eq!(SHUTDOWN_ACK_TIMEOUT, Duration::from_secs(2));
    assert_eq!(DEFAULT_SLOT_TIMEOUT, Duration::from_millis(100));
}

#[test]
fn task_node_size_on_this_host() {
    let size = core::mem::size_of::<TaskNode>();
    println!(
        "size_of::<TaskNode>() = {size} bytes on {}",
        std::env::consts::ARCH
    );
    // Pointer-width scaling of the 36-byte 32-bit budget pinned in node.rs
    // (three fat/thin pointers and a waker double in size).
    assert!(size <= 72, "TaskNode is {size} bytes");
}

// ---- ordering guarantees -------------------------------------------------

kit_test!(
    ordering__stop_node_returns_after_the_ack_and_the_exit,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        // Checked right after the await, with no yield in between: the state
        // must already be final, not merely on its way.
        SUP.stop_node(&T).await.unwrap();
        assert!(!T.is_running() && T.has_exited());
        SUP.stop_node(&P).await.unwrap();
        assert!(!P.is_running() && P.shutdown_requested() && !P.has_exited());
    }
);

kit_test!(ordering__deactivate_returns_after_every_ack_and_exit, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.deactivate(&T).await.unwrap();
    for n in [&T, &TOP] {
        assert!(!n.is_running() && n.has_exited(), "{}", n.name);
    }
});

kit_test!(ordering__teardown_returns_after_every_ack_and_exit, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.start_node(&O, s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    for n in [&BASE, &T, &TOP, &O] {
        assert!(!n.is_running() && n.has_exited(), "{}", n.name);
    }
    assert!(!P.is_running());
});

kit_test!(ordering__status_is_visible_from_another_thread, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.stop_node(&T).await.unwrap();
    // The guarantees are cross-thread: a plain OS thread reads the same.
    let seen = std::thread::spawn(|| (g::T.is_running(), g::T.has_exited()))
        .join()
        .unwrap();
    assert_eq!(seen, (false, true));
});

// ---- missed acks -----------------------------------------------------------

kit_test!(
    missed_ack__stop_node_returns_shutdown_timeout_naming_the_node,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        K[T_I].wedge.store(true, Ordering::SeqCst);
        let (res, ()) = join(SUP.stop_node(&T), advance_after_idle(past_ack())).await;
        let e = res.unwrap_err();
        assert!(core::ptr::eq(e.node, &T));
        assert_eq!(e.node.name, "T");
        assert_eq!(format!("{e}"), "node `T` missed its shutdown ack");
        assert!(format!("{e:?}").contains("\"T\""));
        assert_eq!(REC.order(Wedged), [T_I]);
        assert!(
            T.is_running(),
            "still up from the supervisor's point of view"
        );
    }
);

kit_test!(missed_ack__teardown_aborts_at_the_first_timeout, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    K[TOP_I].wedge.store(true, Ordering::SeqCst);
    let (res, ()) = join(SUP.teardown(), advance_after_idle(past_ack())).await;
    assert_eq!(res.unwrap_err().node.name, "TOP");
    // TOP may still use T, P and BASE: none of them was asked to stop.
    for n in [&BASE, &T, &P] {
        assert!(n.is_running() && !n.shutdown_requested(), "{}", n.name);
    }
    assert!(REC.order(Ack).is_empty());
});

kit_test!(
    teardown_continue__visits_every_node_past_a_wedge_and_reports_the_first,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        K[TOP_I].wedge.store(true, Ordering::SeqCst);
        K[T_I].wedge.store(true, Ordering::SeqCst);
        // Two wedged nodes, two deadlines: advance past each in turn.
        let (res, ()) = join(SUP.teardown_continue(), async {
            advance_after_idle(past_ack()).await;
            advance_after_idle(past_ack()).await;
        })
        .await;
        assert_eq!(res.unwrap_err().node.name, "TOP", "the first timeout");
        assert_eq!(REC.order(Wedged), [TOP_I, T_I]);
        assert_eq!(REC.order(Ack), [P_I, BASE_I]);
        assert!(!BASE.is_running() && !P.is_running());
        assert!(X.is_running(), "detached: still skipped");
    }
);

kit_test!(teardown_continue__is_teardown_when_nothing_wedges, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.teardown_continue().await.unwrap();
    assert_eq!(REC.order(Ack), [TOP_I, P_I, T_I, BASE_I]);
});

// ---- gates and failed_node ---------------------------------------------------

kit_test!(
    gate_wait__busy_after_the_slot_timeout_with_nothing_taken,
    |s| {
        RES.provide(1);
        // RES2 stays empty: T's second gate never fills.
        let (res, ()) = join(SUP.start(s), advance_after_idle(past_gate())).await;
        assert!(matches!(res, Err(SpawnError::Busy)));
        assert_eq!(RES.get(), Some(1), "the filled gate was not taken");
        assert!(!RES2.is_filled());
        assert!(!T.is_running() && !T.has_exited() && !T.shutdown_requested());
        assert_eq!(REC.count(Spawn, T_I), 0);
        assert!(core::ptr::eq(SUP.failed_node().unwrap(), &T));
    }
);

kit_test!(
    gate_wait__a_gate_filled_during_the_wait_lets_the_spawn_through,
    |s| {
        // No clock movement: the wait resolves by the slot's notification.
        let (res, ()) = join(SUP.start(s), async {
            settle().await;
            provide();
        })
        .await;
        res.unwrap();
        assert!(T.is_running());
        assert!(SUP.failed_node().is_none());
    }
);

kit_test!(failed_node__none_until_a_spawn_fails_then_names_it, |s| {
    assert!(SUP.failed_node().is_none());
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    assert!(SUP.failed_node().is_none(), "no failure yet");
    SUP.teardown().await.unwrap();
    RES2.take();
    let (res, ()) = join(SUP.start(s), advance_after_idle(past_gate())).await;
    assert!(res.is_err());
    let failed = SUP.failed_node().unwrap();
    assert_eq!(failed.name, "T");
    // The bring-up wave: T and what needs it (TOP) stay down; BASE, and P
    // (which does not need T), came up.
    assert!(BASE.is_running() && P.is_running());
    for n in [&T, &TOP] {
        assert!(!n.is_running(), "{}", n.name);
    }
});

// ---- the disabled latch across a gate wait ---------------------------------

kit_test!(
    disabled_latch__a_deactivate_during_the_gate_wait_wins,
    |s| {
        // T waits for its gates; meanwhile a control Deactivate latches it (T is
        // not running yet, so there is nothing to stop); then the gates fill.
        let (res, ()) = join(SUP.start_node(&T, s), async {
            settle().await;
            SUP.deactivate(&T).await.unwrap();
            provide();
        })
        .await;
        assert!(T.is_disabled());
        assert!(
            !T.is_running(),
            "spawned after a deactivate: the latch was ignored"
        );
        assert!(matches!(res, Err(SpawnError::Busy)));
        assert_eq!(REC.count(Spawn, T_I), 0);
        assert_eq!((RES.get(), RES2.get()), (Some(1), Some(2)), "nothing taken");
    }
);

kit_test!(
    missed_ack__deactivate_aborts_before_stopping_the_dependency,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        K[TOP_I].wedge.store(true, Ordering::SeqCst);
        let (res, ()) = join(SUP.deactivate(&T), advance_after_idle(past_ack())).await;
        assert_eq!(res.unwrap_err().node.name, "TOP");
        assert!(
            T.is_running() && !T.shutdown_requested(),
            "TOP may still use T"
        );
        assert!(
            T.is_disabled() && TOP.is_held(),
            "the latch and the hold are set up front"
        );
    }
);

/// A node with its own pre-spawn wait (`slot_timeout: 500`).
mod slow_gate {
    use super::*;
    use embassy_executor::Spawner;
    use embassy_supervisor::{Gate, Graph, Mode, ResourceSlot, Supervisor};

    pub static SLOT: ResourceSlot<u8> = ResourceSlot::new();
    pub static S: TaskNode = TaskNode::new(
        &NodeSpec::new("S", Mode::Terminate)
            .with_spawn(spawn_s)
            .with_resources(&[&SLOT as &dyn Gate])
            .with_slot_timeout(500)
            .at(0),
    );
    pub static GRAPH: Graph<1> = Graph::new([Some(&S)], [&[]]);
    pub static SUP: Supervisor<1> = Supervisor::new(&GRAPH);

    #[embassy_executor::task]
    async fn worker() {
        let _ = S.run_cancellable_acked(core::future::pending::<()>()).await;
        S.mark_exited();
    }

    fn spawn_s(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
        s.spawn(worker()?);
        Ok(())
    }

    #[embassy_executor::task]
    pub async fn driver(s: Spawner) {
        assert_eq!(S.slot_timeout(), Duration::from_millis(500));
        // Well past the 100 ms default, still waiting.
        let early = embassy_futures::select::select(SUP.start_node(&S, s), async {
            advance_after_idle(Duration::from_millis(499)).await;
            settle().await;
        })
        .await;
        assert!(
            matches!(early, embassy_futures::select::Either::Second(())),
            "gave up before its own slot_timeout"
        );
        let (res, ()) = join(
            SUP.start_node(&S, s),
            advance_after_idle(Duration::from_millis(501)),
        )
        .await;
        assert!(matches!(res, Err(SpawnError::Busy)));
        assert!(!S.is_running());
        common::pass();
    }
}

#[test]
#[allow(non_snake_case)]
fn gate_wait__a_node_slot_timeout_replaces_the_default() {
    common::run(&[&slow_gate::S], |s| s.spawn(slow_gate::driver(s).unwrap()));
}
