//! Regression tests for `design/pitfalls.md` items 1–7 (lifecycle defects
//! seen in an older published supervisor). Each test drives the exact
//! situation the item describes; a regression shows up as a failed assert
//! or, for the "waits on a task that is gone" kind, as a harness hang report
//! naming the node (the mock clock is frozen unless a test moves it).
mod common;
#[path = "kits/lifecycle.rs"]
mod kit;

use core::sync::atomic::Ordering;

use common::{advance_after_idle, settle};
use embassy_futures::join::join;
use embassy_futures::select::{Either, select};
use embassy_supervisor::{DEFAULT_SLOT_TIMEOUT, FaultKind, NodeFault, SHUTDOWN_ACK_TIMEOUT};
use embassy_time::Duration;
use kit::Ev::{Ack, Refused, Resumed, Spawn};
use kit::*;

kit_test!(
    pitfall_1_missed_ack_is_a_shutdown_timeout_value_after_2s_not_a_panic,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        K[P_I].wedge.store(true, Ordering::SeqCst);
        // Just short of the deadline the stop is still waiting...
        let early = select(SUP.stop_node(&P), async {
            advance_after_idle(SHUTDOWN_ACK_TIMEOUT - Duration::from_millis(1)).await;
            settle().await;
        })
        .await;
        assert!(matches!(early, Either::Second(())), "gave up before 2 s");
        // ...and a fresh wait past the deadline returns the offender as a value.
        let (res, ()) = join(
            SUP.stop_node(&P),
            advance_after_idle(SHUTDOWN_ACK_TIMEOUT + Duration::from_millis(1)),
        )
        .await;
        let e = res.unwrap_err();
        assert!(core::ptr::eq(e.node, &P));
        assert_eq!(format!("{e}"), "node `P` missed its shutdown ack");
    }
);

kit_test!(
    pitfall_2_a_returned_worker_reads_exited_and_teardown_does_not_wait_on_it,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        K[T_I].exit.signal(());
        settle().await;
        // Autonomous completion: exited, down, and no stop was ever requested.
        assert!(T.has_exited() && !T.is_running() && !T.shutdown_requested());
        assert_eq!(K[T_I].live(), 0);
        // Frozen clock: if teardown waited for T's ack, the harness would
        // report T as hung.
        SUP.teardown().await.unwrap();
        assert_eq!(REC.count(Ack, T_I), 0);
        SUP.start(s).await.unwrap();
        assert!(
            T.is_running() && !T.has_exited(),
            "respawnable; reset clears exited"
        );
    }
);

kit_test!(pitfall_3_start_resets_flags_and_never_double_spawns, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.start(s).await.unwrap();
    settle().await;
    assert!(
        REC.order(Refused).is_empty(),
        "a double spawn is refused by the TaskPool"
    );
    assert_eq!(REC.order(Spawn), [BASE_I, T_I, P_I, TOP_I, X_I]);
    SUP.teardown().await.unwrap();
    SUP.start(s).await.unwrap();
    for n in [&BASE, &T, &TOP] {
        assert!(!n.shutdown_requested() && !n.has_exited(), "{}", n.name);
    }
    settle().await;
    // The new instances did not see the old stop request and stay up.
    for (n, i) in [(&BASE, BASE_I), (&T, T_I), (&P, P_I), (&TOP, TOP_I)] {
        assert!(n.is_running(), "{}", n.name);
        assert_eq!(K[i].live(), 1, "{}", n.name);
        assert_eq!(REC.count(Ack, i), 1, "{}: only the teardown's ack", n.name);
    }
});

kit_test!(
    pitfall_4_activate_spawns_a_never_spawned_disabled_pause_node,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        assert_eq!(REC.count(Spawn, DP_I), 0);
        SUP.activate(&DP, s).await.unwrap();
        settle().await;
        assert_eq!(REC.count(Spawn, DP_I), 1);
        assert!(DP.is_running() && K[DP_I].live() == 1);
        // A real instance acks the stop (the frozen clock would hang otherwise).
        SUP.stop_node(&DP).await.unwrap();
        assert!(!DP.is_running() && DP.shutdown_requested());
        assert_eq!(REC.count(Ack, DP_I), 1);
    }
);

kit_test!(
    pitfall_5_resume_pausable_does_not_latch_a_resume_on_a_running_pause_node,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        SUP.resume_pausable();
        SUP.resume_node(&P);
        settle().await;
        SUP.stop_node(&P).await.unwrap();
        settle().await;
        // A latched resume would have let the pause fall straight through.
        assert!(!P.is_running() && P.shutdown_requested());
        assert_eq!(REC.count(Resumed, P_I), 0);
    }
);

kit_test!(
    pitfall_6_live_instances_keep_their_flags_and_failed_bring_up_names_the_node,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        T.mark_busy();
        SUP.start_node(&T, s).await.unwrap();
        SUP.respawn_terminate(s).await.unwrap();
        SUP.start(s).await.unwrap();
        assert!(T.is_busy(), "a live instance was not reset");
        assert_eq!(REC.count(Spawn, T_I), 1);
        // A failing bring-up says where it stopped.
        SUP.teardown().await.unwrap();
        RES2.take();
        REC.clear();
        let (res, ()) = join(
            SUP.respawn_terminate(s),
            advance_after_idle(DEFAULT_SLOT_TIMEOUT + Duration::from_millis(1)),
        )
        .await;
        assert_eq!(
            res.unwrap_err(),
            NodeFault::new(&T, FaultKind::ResourceEmpty { gate: 1 })
        );
        assert_eq!(SUP.failed_node().map(|n| n.name), Some("T"));
        assert_eq!(REC.order(Spawn), [BASE_I], "before T up; T and after not");
        assert!(BASE.is_running() && !T.is_running() && !TOP.is_running());
    }
);

kit_test!(
    pitfall_7_a_failed_spawn_leaves_every_resource_where_it_was,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        assert!(
            !RES.is_filled() && !RES2.is_filled(),
            "lent to the running T"
        );
        // T acks and gives its resources back but keeps its TaskPool slot: the
        // next spawn gets past every gate, lends both values, then the token is
        // refused.
        K[T_I].linger.store(true, Ordering::SeqCst);
        SUP.stop_node(&T).await.unwrap();
        assert_eq!((RES.get(), RES2.get()), (Some(1), Some(2)));
        let res = SUP.start_node(&T, s).await;
        assert_eq!(res.unwrap_err(), NodeFault::new(&T, FaultKind::SpawnBusy));
        // Refused twice: the spawn and its one retry after an executor pass
        // (the old instance still lingers then).
        assert_eq!(REC.count(Refused, T_I), 2);
        assert_eq!((RES.get(), RES2.get()), (Some(1), Some(2)), "both restored");
        assert!(!T.is_running());
        assert_eq!(SUP.failed_node().map(|n| n.name), Some("T"));
        // Once the old instance is gone the same values go to the new one.
        K[T_I].linger.store(false, Ordering::SeqCst);
        K[T_I].release.signal(());
        settle().await;
        SUP.start_node(&T, s).await.unwrap();
        assert!(T.is_running() && !RES.is_filled() && !RES2.is_filled());
    }
);
