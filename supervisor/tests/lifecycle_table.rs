//! The spec's "Lifecycle reference" table, one test per cell, named
//! `<operation>__<column>__<what the cell promises>`. Columns: Terminate
//! (`T`, `BASE`, `TOP`), Pause (`P`), OnDemand (`O`), disabled (`D`, `DP`),
//! detached (`X`, which detaches itself on its first run). The graph is the
//! kit's (see `kits/lifecycle.rs`); every test gets a fresh one. No test here
//! moves the mock clock: every path resolves by signal.
mod common;
#[path = "kits/lifecycle.rs"]
mod kit;

use common::settle;
use embassy_supervisor::{
    FaultKind, Graph, Mode, NodeFault, NodeSpec, Refusal, Supervisor, TaskNode,
};
use kit::Ev::{Ack, Refused, Resumed, Spawn};
use kit::*;

/// Names of the running nodes, in slot order.
fn running(nodes: &[&'static TaskNode; N]) -> Vec<&'static str> {
    nodes
        .iter()
        .filter(|n| n.is_running())
        .map(|n| n.name)
        .collect()
}

/// A `Pause` instance that acked a stop and waits in `wait_resume()`.
fn parked(n: &TaskNode, k: &Knobs) -> bool {
    n.mode() == Mode::Pause && !n.is_running() && n.shutdown_requested() && k.live() == 1
}

// ---- start -------------------------------------------------------------

kit_test!(
    start__terminate__spawned_in_dep_order_and_running_ones_skipped,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        assert_eq!(REC.order(Spawn), [BASE_I, T_I, P_I, TOP_I, X_I]);
        assert_eq!(running(&NODES), ["BASE", "T", "P", "TOP", "X"]);
        SUP.start(s).await.unwrap();
        settle().await;
        assert_eq!(REC.order(Spawn), [BASE_I, T_I, P_I, TOP_I, X_I]);
        assert!(REC.order(Refused).is_empty());
        for i in [BASE_I, T_I, P_I, TOP_I, X_I] {
            assert_eq!(K[i].live(), 1, "{}", NODES[i].name);
        }
    }
);

kit_test!(
    start__pause__cold_spawn_then_parked_instance_resumed_in_place,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        assert_eq!(REC.count(Spawn, P_I), 1);
        SUP.teardown().await.unwrap();
        assert!(parked(&P, &K[P_I]));
        // BASE's spawn checks that P (down until now) is not resumed first
        // (X, detached, stayed up).
        REC.was_down(!(1 << X_I));
        SUP.start(s).await.unwrap();
        assert!(P.is_running() && !P.shutdown_requested());
        settle().await;
        assert_eq!(REC.take_violations(), Vec::<String>::new());
        assert_eq!(
            REC.count(Spawn, P_I),
            1,
            "a parked instance is not respawned"
        );
        assert_eq!(REC.count(Resumed, P_I), 1);
        assert_eq!(K[P_I].live(), 1);
    }
);

/// The parked-node half of the Pause cell: a node without a spawn fn is only
/// marked running by `start`; the instance the application spawns (and
/// `adopt`s) parks on teardown and the next `start` resumes it in place.
mod app_spawned {
    use super::*;

    pub static AP: TaskNode = TaskNode::new(&NodeSpec::new("AP", Mode::Pause).at(0));
    pub static GRAPH: Graph<1> = Graph::new([Some(&AP)], [&[]]);
    pub static SUP: Supervisor<1> = Supervisor::new(&GRAPH);
    pub static RESUMES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

    #[embassy_executor::task]
    pub async fn pump(node: &'static TaskNode) {
        loop {
            node.wait_shutdown().await;
            node.ack_dropped();
            node.wait_resume().await;
            RESUMES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[embassy_executor::task]
    pub async fn driver(s: embassy_executor::Spawner) {
        SUP.start(s).await.unwrap();
        assert!(AP.is_running(), "start marks a parked node running");
        // The application owns the spawn: it builds the task and adopts it.
        let token = pump(&AP).unwrap();
        AP.adopt(&token);
        s.spawn(token);
        settle().await;
        SUP.teardown().await.unwrap();
        assert!(!AP.is_running() && AP.shutdown_requested());
        SUP.start(s).await.unwrap();
        settle().await;
        assert!(AP.is_running() && !AP.shutdown_requested());
        assert_eq!(RESUMES.load(std::sync::atomic::Ordering::SeqCst), 1);
        common::pass();
    }
}

#[test]
#[allow(non_snake_case)]
fn start__pause__app_spawned_node_only_marked_running_then_resumed() {
    common::run(&[&app_spawned::AP], |s| {
        s.spawn(app_spawned::driver(s).unwrap())
    });
}

kit_test!(start__ondemand__skipped, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    assert!(!O.is_running() && !O.is_disabled());
    assert_eq!(REC.count(Spawn, O_I), 0);
});

kit_test!(start__disabled__skipped, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.start(s).await.unwrap();
    settle().await;
    for (n, i) in [(&D, D_I), (&DP, DP_I)] {
        assert!(!n.is_running() && n.is_disabled(), "{}", n.name);
        assert_eq!(REC.count(Spawn, i), 0, "{}", n.name);
    }
});

kit_test!(
    start__detached__first_start_spawns_then_reentry_skips,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        assert!(X.is_detached() && X.is_running());
        SUP.teardown().await.unwrap();
        assert!(
            X.is_running() && !X.shutdown_requested(),
            "teardown skipped it"
        );
        SUP.start(s).await.unwrap();
        settle().await;
        assert_eq!(REC.count(Spawn, X_I), 1);
        assert_eq!(REC.count(Refused, X_I), 0);
        assert_eq!(K[X_I].live(), 1);
    }
);

// ---- teardown ----------------------------------------------------------

kit_test!(
    teardown__terminate__shutdown_and_ack_in_reverse_dep_order_then_exits,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        SUP.teardown().await.unwrap();
        assert_eq!(REC.order(Ack), [TOP_I, P_I, T_I, BASE_I]);
        for (n, i) in [(&BASE, BASE_I), (&T, T_I), (&TOP, TOP_I)] {
            assert!(!n.is_running() && n.has_exited(), "{}", n.name);
            assert_eq!(K[i].live(), 0, "{}", n.name);
        }
        assert_eq!(RES.get(), Some(1), "T's resources went back on exit");
        assert_eq!(RES2.get(), Some(2));
    }
);

kit_test!(teardown__pause__acks_then_parks_on_wait_resume, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    assert!(parked(&P, &K[P_I]));
    assert!(!P.has_exited());
    assert_eq!(REC.count(Ack, P_I), 1);
});

kit_test!(teardown__ondemand__stopped_if_running_else_skipped, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.start_node(&O, s).await.unwrap();
    settle().await;
    assert!(O.is_running());
    SUP.teardown().await.unwrap();
    assert!(!O.is_running() && O.has_exited());
    assert_eq!(REC.count(Ack, O_I), 1);
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    assert_eq!(REC.count(Ack, O_I), 1, "a down OnDemand node is skipped");
});

kit_test!(teardown__disabled__already_down_nothing_to_do, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    for n in [&D, &DP] {
        assert!(!n.is_running() && n.is_disabled(), "{}", n.name);
        assert!(!n.shutdown_requested(), "{} was not touched", n.name);
    }
    assert_eq!(REC.count(Ack, D_I) + REC.count(Ack, DP_I), 0);
});

kit_test!(teardown__detached__skipped, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    assert!(X.is_running() && !X.shutdown_requested());
    assert_eq!(K[X_I].live(), 1);
    assert_eq!(REC.count(Ack, X_I), 0);
});

// ---- deactivate --------------------------------------------------------

kit_test!(
    deactivate__terminate__disabled_and_stopped_dependents_first,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        SUP.deactivate(&T).await.unwrap();
        assert_eq!(REC.order(Ack), [TOP_I, T_I]);
        assert!(T.is_disabled() && !T.is_held() && !T.is_running());
        assert!(
            TOP.is_held() && !TOP.is_disabled() && !TOP.is_running(),
            "a dependent gets the collateral hold, not the latch"
        );
        for n in [&BASE, &P] {
            assert!(
                !n.is_disabled() && !n.is_held() && n.is_running(),
                "{} is not a dependent",
                n.name
            );
        }
    }
);

kit_test!(deactivate__pause__disabled_parks_and_stays_parked, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.deactivate(&P).await.unwrap();
    assert!(P.is_disabled() && parked(&P, &K[P_I]));
    assert!(TOP.is_held() && !TOP.is_running(), "dependent cascaded");
    SUP.resume_pausable();
    SUP.resume_node(&P);
    SUP.start(s).await.unwrap();
    SUP.respawn_terminate(s).await.unwrap();
    settle().await;
    assert!(parked(&P, &K[P_I]));
    assert_eq!(REC.count(Resumed, P_I), 0);
});

kit_test!(deactivate__ondemand__disabled_and_stopped, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.start_node(&O, s).await.unwrap();
    settle().await;
    SUP.deactivate(&O).await.unwrap();
    assert!(O.is_disabled() && !O.is_running() && O.has_exited());
    assert!(
        matches!(
            SUP.start_node(&O, s).await,
            Err(NodeFault {
                kind: FaultKind::Refused(Refusal::Disabled),
                ..
            })
        ),
        "a disabled node is refused until activated"
    );
    assert_eq!(REC.count(Spawn, O_I), 1);
});

kit_test!(deactivate__disabled__re_disabled_idempotent, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.deactivate(&D).await.unwrap();
    SUP.deactivate(&D).await.unwrap();
    assert!(D.is_disabled() && !D.is_running() && !D.shutdown_requested());
    assert_eq!(REC.count(Ack, D_I) + REC.count(Spawn, D_I), 0);
    assert!(
        !BASE.is_disabled() && BASE.is_running(),
        "no upward cascade"
    );
});

kit_test!(deactivate__detached__skipped_even_when_targeted, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.deactivate(&X).await.unwrap();
    assert!(X.is_running() && !X.is_disabled() && !X.shutdown_requested());
    // X depends on BASE, but a detached node is never pulled into a cascade.
    SUP.deactivate(&BASE).await.unwrap();
    assert!(X.is_running() && !X.is_disabled() && !X.shutdown_requested());
    assert_eq!(running(&NODES), ["X"]);
});

// ---- activate ----------------------------------------------------------

kit_test!(
    activate__terminate__enabled_and_started_after_its_transitive_deps,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        SUP.deactivate(&BASE).await.unwrap();
        assert_eq!(running(&NODES), ["X"]);
        REC.clear();
        // Every spawn checks that the deps this step brings up are already up.
        REC.expect(1 << BASE_I | 1 << T_I | 1 << P_I | 1 << TOP_I, 0);
        REC.was_down(!(1 << X_I));
        SUP.activate(&TOP, s).await.unwrap();
        settle().await;
        assert_eq!(REC.order(Spawn), [BASE_I, T_I, TOP_I]);
        assert_eq!(
            REC.order(Resumed),
            [P_I],
            "P was parked: resumed, not spawned"
        );
        assert_eq!(REC.take_violations(), Vec::<String>::new());
        assert_eq!(running(&NODES), ["BASE", "T", "P", "TOP", "X"]);
        for n in [&BASE, &T, &P, &TOP] {
            assert!(!n.is_disabled(), "{}", n.name);
        }
        // BASE is enabled again, so the holds it put on its other
        // dependents are released; their own latches stay.
        assert!(
            !O.is_disabled() && !O.is_held() && !O.is_running(),
            "O is released and, being OnDemand, only enabled"
        );
        assert!(
            DP.is_disabled() && !DP.is_held() && !DP.is_running(),
            "DP keeps its own latch"
        );
    }
);

kit_test!(activate__after_deactivate__the_dependents_come_back, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    let before = running(&NODES);
    SUP.deactivate(&BASE).await.unwrap();
    assert_eq!(running(&NODES), ["X"]);
    SUP.activate(&BASE, s).await.unwrap();
    settle().await;
    assert_eq!(running(&NODES), before, "activate undoes deactivate");
    for n in NODES {
        assert!(!n.is_held(), "{} still held", n.name);
    }
    assert!(!BASE.is_disabled() && !O.is_disabled());
    assert!(
        D.is_disabled() && DP.is_disabled(),
        "declared latches are their own"
    );
});

kit_test!(activate__pause__enabled_and_resumed_in_place, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.deactivate(&P).await.unwrap();
    SUP.activate(&P, s).await.unwrap();
    assert!(P.is_running() && !P.is_disabled() && !P.shutdown_requested());
    settle().await;
    assert_eq!(REC.count(Spawn, P_I), 1);
    assert_eq!(REC.count(Resumed, P_I), 1);
    assert_eq!(K[P_I].live(), 1);
    assert!(
        TOP.is_running() && !TOP.is_held() && !TOP.is_disabled(),
        "activate undoes the deactivate: the held dependent comes back"
    );
    assert_eq!(REC.count(Spawn, TOP_I), 2);
    assert!(
        DP.is_disabled() && !DP.is_held() && !DP.is_running(),
        "a dependent with its own latch is released from the hold only"
    );
});

kit_test!(activate__ondemand__enabled_only, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.deactivate(&O).await.unwrap();
    assert!(O.is_disabled());
    SUP.activate(&O, s).await.unwrap();
    settle().await;
    assert!(!O.is_disabled() && !O.is_running());
    assert_eq!(REC.count(Spawn, O_I), 0);
});

kit_test!(activate__disabled__clears_the_latch_and_starts, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.activate(&D, s).await.unwrap();
    SUP.activate(&DP, s).await.unwrap();
    settle().await;
    for (n, i) in [(&D, D_I), (&DP, DP_I)] {
        assert!(n.is_running() && !n.is_disabled(), "{}", n.name);
        assert_eq!(REC.count(Spawn, i), 1, "{}", n.name);
    }
});

kit_test!(
    activate__detached__not_reenabled_not_restarted_deps_not_expanded,
    |s| {
        // A detached node that finished its run is not restarted, and its deps
        // are not brought up on its behalf.
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        K[X_I].exit.signal(());
        settle().await;
        assert!(X.is_detached() && !X.is_running() && X.has_exited());
        SUP.deactivate(&BASE).await.unwrap();
        SUP.activate(&X, s).await.unwrap();
        settle().await;
        assert_eq!(REC.count(Spawn, X_I), 1);
        assert!(!X.is_running());
        assert!(
            BASE.is_disabled() && !BASE.is_running(),
            "deps not expanded"
        );
        // A disabled node that detaches later is not re-enabled either.
        SUP.deactivate(&O).await.unwrap();
        O.set_detached(true);
        SUP.activate(&O, s).await.unwrap();
        assert!(O.is_disabled() && !O.is_running());
    }
);

// ---- stop_node ---------------------------------------------------------

kit_test!(stop_node__terminate__shutdown_and_ack, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.stop_node(&T).await.unwrap();
    assert!(!T.is_running() && T.has_exited() && !T.is_disabled());
    assert_eq!(REC.order(Ack), [T_I]);
    assert_eq!(K[T_I].live(), 0);
    assert!(TOP.is_running(), "single-node verb: no cascade");
});

kit_test!(
    stop_node__pause__acks_and_parks_the_single_node_pause,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        SUP.stop_node(&P).await.unwrap();
        assert!(parked(&P, &K[P_I]) && !P.is_disabled());
        assert_eq!(REC.order(Ack), [P_I]);
    }
);

kit_test!(stop_node__ondemand__shutdown_and_ack, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.start_node(&O, s).await.unwrap();
    settle().await;
    SUP.stop_node(&O).await.unwrap();
    assert!(!O.is_running() && O.has_exited());
    assert_eq!(REC.order(Ack), [O_I]);
    assert_eq!(K[O_I].live(), 0);
});

kit_test!(stop_node__disabled__not_running_no_op, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.stop_node(&D).await.unwrap();
    SUP.stop_node(&DP).await.unwrap();
    for n in [&D, &DP] {
        assert!(!n.is_running() && !n.shutdown_requested(), "{}", n.name);
    }
    assert!(REC.order(Ack).is_empty());
});

kit_test!(stop_node__detached__no_op, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.stop_node(&X).await.unwrap();
    settle().await;
    assert!(X.is_running() && !X.shutdown_requested());
    assert_eq!(K[X_I].live(), 1);
    assert!(REC.order(Ack).is_empty());
});

// ---- resume_node -------------------------------------------------------

kit_test!(resume_node__terminate__no_op_wrong_mode, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.stop_node(&T).await.unwrap();
    SUP.resume_node(&T);
    SUP.resume_node(&BASE);
    settle().await;
    assert!(!T.is_running() && T.has_exited());
    assert!(BASE.is_running());
    assert_eq!(REC.count(Spawn, T_I), 1);
});

kit_test!(resume_node__pause__reset_and_resumed_in_place, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.stop_node(&P).await.unwrap();
    SUP.resume_node(&P);
    assert!(
        P.is_running() && !P.shutdown_requested(),
        "reset at the resume"
    );
    settle().await;
    assert_eq!(REC.count(Resumed, P_I), 1);
    assert_eq!(REC.count(Spawn, P_I), 1, "same instance");
    assert_eq!(K[P_I].live(), 1);
    // The resumed instance honours the next pause.
    SUP.stop_node(&P).await.unwrap();
    assert!(parked(&P, &K[P_I]));
});

kit_test!(resume_node__ondemand__no_op_wrong_mode, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.start_node(&O, s).await.unwrap();
    settle().await;
    SUP.stop_node(&O).await.unwrap();
    SUP.resume_node(&O);
    settle().await;
    assert!(!O.is_running());
    assert_eq!(REC.count(Spawn, O_I), 1);
});

kit_test!(resume_node__disabled__skipped_a_manual_pause_sticks, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.deactivate(&P).await.unwrap();
    SUP.resume_node(&P);
    settle().await;
    assert!(parked(&P, &K[P_I]));
    assert_eq!(REC.count(Resumed, P_I), 0);
});

kit_test!(resume_node__detached__no_op, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.stop_node(&P).await.unwrap();
    P.set_detached(true);
    SUP.resume_node(&P);
    SUP.resume_node(&X);
    settle().await;
    assert!(parked(&P, &K[P_I]));
    assert_eq!(REC.count(Resumed, P_I), 0);
    assert!(X.is_running());
});

// ---- respawn_terminate -------------------------------------------------

kit_test!(
    respawn_terminate__terminate__reset_and_respawned_in_dep_order,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        SUP.teardown().await.unwrap();
        REC.clear();
        REC.expect(1 << BASE_I | 1 << T_I | 1 << TOP_I, 0);
        SUP.respawn_terminate(s).await.unwrap();
        settle().await;
        assert_eq!(REC.order(Spawn), [BASE_I, T_I, TOP_I]);
        assert_eq!(REC.take_violations(), Vec::<String>::new());
        for (n, i) in [(&BASE, BASE_I), (&T, T_I), (&TOP, TOP_I)] {
            assert!(n.is_running() && !n.shutdown_requested() && !n.has_exited());
            assert_eq!(K[i].live(), 1, "{}", n.name);
        }
    }
);

kit_test!(respawn_terminate__pause__untouched, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    SUP.respawn_terminate(s).await.unwrap();
    settle().await;
    assert!(parked(&P, &K[P_I]));
    assert_eq!(REC.count(Spawn, P_I), 1);
    assert_eq!(REC.count(Resumed, P_I), 0);
});

kit_test!(respawn_terminate__ondemand__left_down, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.start_node(&O, s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    SUP.respawn_terminate(s).await.unwrap();
    settle().await;
    assert!(!O.is_running());
    assert_eq!(REC.count(Spawn, O_I), 1);
});

kit_test!(
    respawn_terminate__disabled__skipped_a_manual_stop_sticks,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        SUP.deactivate(&T).await.unwrap();
        SUP.teardown().await.unwrap();
        REC.clear();
        SUP.respawn_terminate(s).await.unwrap();
        settle().await;
        assert_eq!(REC.order(Spawn), [BASE_I]);
        assert!(!T.is_running() && !TOP.is_running() && !D.is_running());
    }
);

kit_test!(
    respawn_terminate__detached__skipped_it_never_went_down,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        settle().await;
        SUP.teardown().await.unwrap();
        SUP.respawn_terminate(s).await.unwrap();
        settle().await;
        assert_eq!(REC.count(Spawn, X_I), 1);
        assert_eq!(REC.count(Refused, X_I), 0, "no double spawn");
        assert!(X.is_running() && K[X_I].live() == 1);
    }
);

// ---- resume_pausable ---------------------------------------------------

kit_test!(resume_pausable__terminate__untouched, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    SUP.resume_pausable();
    settle().await;
    for n in [&BASE, &T, &TOP] {
        assert!(!n.is_running() && n.has_exited(), "{}", n.name);
    }
    assert_eq!(REC.order(Spawn), [BASE_I, T_I, P_I, TOP_I, X_I]);
});

kit_test!(resume_pausable__pause__reset_and_resumed_in_place, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    SUP.resume_pausable();
    assert!(P.is_running() && !P.shutdown_requested());
    settle().await;
    assert_eq!(REC.count(Resumed, P_I), 1);
    assert_eq!(REC.count(Spawn, P_I), 1);
    assert_eq!(K[P_I].live(), 1);
});

kit_test!(resume_pausable__ondemand__untouched, |s| {
    provide();
    SUP.start(s).await.unwrap();
    SUP.start_node(&O, s).await.unwrap();
    settle().await;
    SUP.teardown().await.unwrap();
    SUP.resume_pausable();
    settle().await;
    assert!(!O.is_running());
    assert_eq!(REC.count(Spawn, O_I), 1);
});

kit_test!(
    resume_pausable__disabled__skipped_a_manual_pause_sticks,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        SUP.activate(&DP, s).await.unwrap();
        settle().await;
        SUP.deactivate(&DP).await.unwrap();
        SUP.teardown().await.unwrap();
        SUP.resume_pausable();
        settle().await;
        assert!(P.is_running(), "the enabled Pause node resumed");
        assert!(parked(&DP, &K[DP_I]) && DP.is_disabled());
        assert_eq!(REC.count(Resumed, DP_I), 0);
    }
);

kit_test!(resume_pausable__detached__left_parked, |s| {
    provide();
    SUP.start(s).await.unwrap();
    settle().await;
    SUP.stop_node(&P).await.unwrap();
    P.set_detached(true);
    SUP.resume_pausable();
    settle().await;
    assert!(parked(&P, &K[P_I]));
    assert_eq!(REC.count(Resumed, P_I), 0);
});
