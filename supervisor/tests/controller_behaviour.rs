//! The controller's behaviours and invariants (docs/controller.md), one test
//! each, on the shared kit graph driven by `Supervisor::run`.
#![cfg(all(feature = "controller", feature = "pool"))]

mod common;
#[path = "kits/controller.rs"]
mod kit;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::controller::{
    ControllerError, ControllerSpec, Key, RejectKind, SlotStatusKind, TaskOutcome,
};
use embassy_time::Duration;
use kit::*;

const REJ_BUSY: TaskOutcome = TaskOutcome::Rejected {
    kind: RejectKind::SlotBusy,
};

fn status(key: &'static str) -> Option<SlotStatusKind> {
    CTRL.snapshot().get(key).map(|v| v.status)
}

fn queued(key: &'static str) -> usize {
    CTRL.snapshot().get(key).map_or(0, |v| v.queued)
}

/// Tear everything down and check the kit is clean for the next test.
async fn cleanup() {
    for i in 0..N {
        finish(i);
    }
    SUP.teardown().await.unwrap();
    common::settle().await;
    assert_eq!(VIOLATIONS.load(std::sync::atomic::Ordering::SeqCst), 0);
    for n in watched() {
        assert!(!n.is_running(), "{} still running", n.name);
    }
    let snap = CTRL.snapshot();
    for v in snap.slots.iter().flatten() {
        assert_eq!(v.status, SlotStatusKind::Idle, "{:?}", v.key);
        assert_eq!(v.queued, 0);
    }
}

macro_rules! controller_test {
    ($name:ident, $body:ident) => {
        #[test]
        fn $name() {
            #[embassy_executor::task]
            async fn drive(spawner: Spawner) {
                reset();
                with_run(spawner, async {
                    $body(spawner).await;
                    cleanup().await;
                })
                .await;
                common::pass();
            }
            common::run(&watched(), |s| s.spawn(drive(s).unwrap()));
        }
    };
}

// ---- behaviours ---------------------------------------------------------

async fn idle_admit_body(_spawner: Spawner) {
    let (outcome, ()) = join(
        CTRL.submit_and_watch(ControllerSpec::queue(&TA, 1)),
        async {
            common::settle().await;
            assert!(A.is_running());
            assert_eq!(log(), [("A", 1)]);
            assert_eq!(status("A"), Some(SlotStatusKind::Running));
            assert!(
                CTRL.snapshot()
                    .get("A")
                    .unwrap()
                    .owner
                    .is_some_and(|o| o.name == "A")
            );
            finish(A_I);
        },
    )
    .await;
    assert_eq!(outcome, TaskOutcome::Completed);
    common::settle().await;
    assert_eq!(status("A"), Some(SlotStatusKind::Idle));
}
controller_test!(idle_admit_runs_at_once, idle_admit_body);

/// Invariants 2 and 3: queued jobs touch no node, and run in FIFO order.
async fn fifo_body(_spawner: Spawner) {
    for job in 1..=3 {
        CTRL.submit(ControllerSpec::queue(&TA, job)).await.unwrap();
    }
    common::settle().await;
    assert_eq!(log(), [("A", 1)]);
    assert_eq!(queued("A"), 2);
    // The queued payloads are still in the controller, not in the inbox.
    assert!(!INBOX[A_I].is_filled());
    for (done, next_queued) in [(1, 1), (2, 0)] {
        finish(A_I);
        common::settle().await;
        assert_eq!(log().len(), done + 1);
        assert_eq!(queued("A"), next_queued);
    }
    assert_eq!(log(), [("A", 1), ("A", 2), ("A", 3)]);
}
controller_test!(queue_drains_fifo_and_queued_jobs_touch_no_node, fifo_body);

/// Invariants 4 and 5: Replace stops the owner, latest wins, and nothing
/// starts until the owner's node is down.
async fn replace_body(_spawner: Spawner) {
    STUBBORN[A_I].store(true, std::sync::atomic::Ordering::SeqCst);
    let first = CTRL.submit_and_watch(ControllerSpec::queue(&TA, 1));
    // Each Replace arrives once the previous submission was applied (in one
    // batch, a Replace would supersede a job that has not reached a node yet).
    let second = async {
        common::settle().await;
        CTRL.submit_and_watch(ControllerSpec::replace(&TA, 2)).await
    };
    let third = async {
        common::settle().await;
        common::settle().await;
        CTRL.submit_and_watch(ControllerSpec::replace(&TA, 3)).await
    };
    let script = async {
        for _ in 0..3 {
            common::settle().await;
        }
        assert_eq!(status("A"), Some(SlotStatusKind::Terminating));
        assert!(A.shutdown_requested() && A.is_running());
        assert_eq!(queued("A"), 1);
        assert_eq!(log(), [("A", 1)], "nothing starts while the owner is up");
        finish(A_I);
        common::settle().await;
        assert_eq!(log(), [("A", 1), ("A", 3)]);
        STUBBORN[A_I].store(false, std::sync::atomic::Ordering::SeqCst);
        finish(A_I);
    };
    let (((o1, o2), o3), ()) = join(join(join(first, second), third), script).await;
    assert_eq!(o1, TaskOutcome::Canceled);
    assert_eq!(
        o2,
        TaskOutcome::Rejected {
            kind: RejectKind::SupersededByReplace
        }
    );
    assert_eq!(o3, TaskOutcome::Completed);
}
controller_test!(replace_supersedes_head_and_stops_owner, replace_body);

async fn drop_if_running_body(_spawner: Spawner) {
    CTRL.submit(ControllerSpec::queue(&TA, 1)).await.unwrap();
    common::settle().await;
    let o = CTRL
        .submit_and_watch(ControllerSpec::drop_if_running(&TA, 2))
        .await;
    assert_eq!(o, REJ_BUSY);
    assert_eq!(log(), [("A", 1)]);
    assert_eq!(queued("A"), 0);
    assert!(!A.shutdown_requested());
}
controller_test!(
    drop_if_running_rejects_and_starts_nothing,
    drop_if_running_body
);

async fn parallel_body(_spawner: Spawner) {
    CTRL.submit(ControllerSpec::queue(&TA, 1)).await.unwrap();
    CTRL.submit(ControllerSpec::queue(&TB, 2)).await.unwrap();
    common::settle().await;
    assert!(A.is_running() && B.is_running());
    assert_eq!(status("A"), Some(SlotStatusKind::Running));
    assert_eq!(status("B"), Some(SlotStatusKind::Running));
}
controller_test!(distinct_slots_run_in_parallel, parallel_body);

async fn same_target_body(_spawner: Spawner) {
    CTRL.submit(ControllerSpec::queue(&TA, 1)).await.unwrap();
    common::settle().await;
    let o = CTRL
        .submit_and_watch(ControllerSpec::queue(&TA, 2).with_slot("other"))
        .await;
    assert_eq!(
        o,
        TaskOutcome::Rejected {
            kind: RejectKind::AlreadyRunning
        }
    );
    assert_eq!(log(), [("A", 1)]);
}
controller_test!(
    same_target_through_two_slots_rejects_second,
    same_target_body
);

/// Invariant 1 across targets: a slot grouping A and B runs one at a time.
async fn grouped_body(_spawner: Spawner) {
    CTRL.submit(ControllerSpec::queue(&TA, 1).with_slot("lane"))
        .await
        .unwrap();
    CTRL.submit(ControllerSpec::queue(&TB, 2).with_slot("lane"))
        .await
        .unwrap();
    common::settle().await;
    assert!(A.is_running() && !B.is_running());
    assert_eq!(queued("lane"), 1);
    finish(A_I);
    common::settle().await;
    assert!(!A.is_running() && B.is_running());
    assert_eq!(log(), [("A", 1), ("B", 2)]);
}
controller_test!(one_job_per_slot_across_targets, grouped_body);

async fn replace_idle_body(_spawner: Spawner) {
    let (o, ()) = join(
        CTRL.submit_and_watch(ControllerSpec::replace(&TA, 7)),
        async {
            common::settle().await;
            assert_eq!(log(), [("A", 7)]);
            assert!(!A.shutdown_requested());
            finish(A_I);
        },
    )
    .await;
    assert_eq!(o, TaskOutcome::Completed);
}
controller_test!(replace_into_idle_slot_is_plain_admit, replace_idle_body);

async fn reusable_body(_spawner: Spawner) {
    INSTANT.store(true, std::sync::atomic::Ordering::SeqCst);
    for job in 1..=3 {
        let o = CTRL.submit_and_watch(ControllerSpec::queue(&TA, job)).await;
        assert_eq!(o, TaskOutcome::Completed);
        common::settle().await;
        assert_eq!(status("A"), Some(SlotStatusKind::Idle));
    }
    assert_eq!(log(), [("A", 1), ("A", 2), ("A", 3)]);
}
controller_test!(slot_is_reusable_after_completion, reusable_body);

#[cfg(feature = "events")]
async fn queue_full_body(_spawner: Spawner) {
    use embassy_supervisor::event::{self, EventKind, WaitResult};
    CTRL.submit(ControllerSpec::queue(&TA, 1)).await.unwrap();
    CTRL.submit(ControllerSpec::queue(&TA, 2)).await.unwrap();
    CTRL.submit(ControllerSpec::queue(&TA, 3)).await.unwrap();
    common::settle().await;
    assert_eq!(queued("A"), 2);
    let mut sub = event::subscribe().unwrap();
    let o = CTRL.submit_and_watch(ControllerSpec::queue(&TA, 4)).await;
    assert_eq!(
        o,
        TaskOutcome::Rejected {
            kind: RejectKind::QueueFull
        }
    );
    let mut saw = false;
    while let Some(WaitResult::Message(ev)) = sub.try_next_message() {
        if let EventKind::ControllerRejected { slot, target, kind } = ev.kind {
            assert_eq!(
                (slot, target, kind),
                (Key::Name("A"), "A", RejectKind::QueueFull)
            );
            saw = true;
        }
    }
    assert!(saw, "a QueueFull rejection publishes ControllerRejected");
}
#[cfg(feature = "events")]
controller_test!(
    full_slot_queue_rejects_queue_full_with_event,
    queue_full_body
);

/// `try_submit` reports a full intake and hands the submission back; the
/// awaiting `submit` waits for room instead. No driver runs here.
#[test]
fn try_submit_on_full_intake() {
    #[embassy_executor::task]
    async fn drive(spawner: Spawner) {
        reset();
        for job in 1..=4 {
            CTRL.try_submit(ControllerSpec::queue(&TC, job).with_slot(Key::Id(9)))
                .unwrap();
        }
        let err = CTRL
            .try_submit(ControllerSpec::queue(&TC, 5).with_slot(Key::Id(9)))
            .unwrap_err();
        assert_eq!(err.error, ControllerError::Full);
        assert_eq!(err.spec.slot_name(), Key::Id(9));
        assert_eq!(CTRL.snapshot().intake, 4);
        with_run(spawner, async {
            // `submit` waits until the driver drains the intake.
            CTRL.submit(err.spec).await.unwrap();
            common::settle().await;
            assert_eq!(CTRL.snapshot().intake, 0);
            assert_eq!(log(), [("C", 1)]);
            assert_eq!(CTRL.snapshot().get(9).unwrap().queued, 2);
            cleanup().await;
        })
        .await;
        common::pass();
    }
    common::run(&watched(), |s| s.spawn(drive(s).unwrap()));
}

/// The snapshot in every status, with time in status from the clock.
async fn snapshot_body(_spawner: Spawner) {
    // Admitting: a pool job waits while both allowed members are busy.
    for (job, key) in [(1, 1u32), (2, 2), (3, 3)] {
        CTRL.submit(ControllerSpec::queue(&TW, job).with_slot(key))
            .await
            .unwrap();
    }
    common::settle().await;
    let snap = CTRL.snapshot();
    assert_eq!(snap.get(1).unwrap().status, SlotStatusKind::Running);
    assert_eq!(snap.get(2).unwrap().status, SlotStatusKind::Running);
    let waiting = snap.get(3).unwrap();
    assert_eq!(waiting.status, SlotStatusKind::Admitting);
    assert!(waiting.owner.is_none());
    common::advance(Duration::from_millis(250));
    assert!(CTRL.snapshot().get(3).unwrap().in_status >= Duration::from_millis(250));
    // Terminating: a stubborn owner asked to stop by Replace.
    STUBBORN[A_I].store(true, std::sync::atomic::Ordering::SeqCst);
    CTRL.submit(ControllerSpec::queue(&TA, 10)).await.unwrap();
    common::settle().await;
    CTRL.submit(ControllerSpec::replace(&TA, 11)).await.unwrap();
    common::settle().await;
    let a = CTRL.snapshot().get("A").unwrap();
    assert_eq!(a.status, SlotStatusKind::Terminating);
    assert_eq!(a.queued, 1);
    assert!(a.owner.is_some_and(|o| o.name == "A"));
    STUBBORN[A_I].store(false, std::sync::atomic::Ordering::SeqCst);
    finish(A_I);
    common::settle().await;
    assert_eq!(status("A"), Some(SlotStatusKind::Running));
    finish(A_I);
    common::settle().await;
    let idle = CTRL.snapshot().get("A").unwrap();
    assert_eq!(
        (idle.status, idle.queued, idle.owner.is_none()),
        (SlotStatusKind::Idle, 0, true)
    );
    assert_eq!(idle.in_status, Duration::from_ticks(0));
}
controller_test!(snapshot_shows_every_status, snapshot_body);

async fn pool_body(_spawner: Spawner) {
    for (job, key) in [(1, 1u32), (2, 2), (3, 3)] {
        CTRL.submit(ControllerSpec::queue(&TW, job).with_slot(key))
            .await
            .unwrap();
    }
    common::settle().await;
    // Lowest free members first, never more than `max` (2) at once.
    let mut started = log();
    started.sort();
    assert_eq!(started, [("W0", 1), ("W1", 2)]);
    assert!(!W[2].is_running());
    finish(W_FIRST + 1);
    common::settle().await;
    // The waiting job lands on the member that went down.
    assert_eq!(log().last(), Some(&("W1", 3)));
    assert_eq!(W.iter().filter(|w| w.is_running()).count(), 2);
}
controller_test!(pool_jobs_land_on_idle_members_within_max, pool_body);

async fn spawn_failure_body(_spawner: Spawner) {
    FAIL_ONCE[A_I].store(true, std::sync::atomic::Ordering::SeqCst);
    let failed = CTRL.submit_and_watch(ControllerSpec::queue(&TA, 1));
    let next = CTRL.submit_and_watch(ControllerSpec::queue(&TA, 2));
    let script = async {
        common::settle().await;
        assert_eq!(log(), [("A", 2)], "the queue advanced past the failure");
        finish(A_I);
    };
    let ((o1, o2), ()) = join(join(failed, next), script).await;
    assert_eq!((o1, o2), (TaskOutcome::Failed, TaskOutcome::Completed));
    // The failed job's payload was taken back, not left for a later spawn.
    assert!(!INBOX[A_I].is_filled());
}
controller_test!(
    spawn_failure_resolves_failed_and_advances,
    spawn_failure_body
);

/// Invariant 6 at teardown: running → Canceled, queued → Rejected.
async fn teardown_body(spawner: Spawner) {
    let running = CTRL.submit_and_watch(ControllerSpec::queue(&TA, 1));
    let queued_a = CTRL.submit_and_watch(ControllerSpec::queue(&TA, 2));
    let other = CTRL.submit_and_watch(ControllerSpec::queue(&TB, 3));
    let script = async {
        common::settle().await;
        assert_eq!(queued("A"), 1);
        SUP.teardown().await.unwrap();
    };
    let (((o1, o2), o3), ()) = join(join(join(running, queued_a), other), script).await;
    assert_eq!(o1, TaskOutcome::Canceled);
    assert_eq!(
        o2,
        TaskOutcome::Rejected {
            kind: RejectKind::ShuttingDown
        }
    );
    assert_eq!(o3, TaskOutcome::Canceled);
    // Reopened: submissions are accepted again, but a torn-down graph
    // starts nothing (as pools do not regrow) until it is started again.
    CTRL.submit(ControllerSpec::queue(&TA, 4)).await.unwrap();
    common::settle().await;
    assert_ne!(
        log().last(),
        Some(&("A", 4)),
        "no admission while torn down"
    );
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    assert_eq!(
        log().last(),
        Some(&("A", 4)),
        "the waiting job starts with the graph"
    );
}
controller_test!(teardown_resolves_everything, teardown_body);

async fn deactivate_body(spawner: Spawner) {
    let running = CTRL.submit_and_watch(ControllerSpec::queue(&TA, 1));
    let queued_a = CTRL.submit_and_watch(ControllerSpec::queue(&TA, 2));
    let script = async {
        common::settle().await;
        SUP.deactivate(&A).await.unwrap();
    };
    let ((o1, o2), ()) = join(join(running, queued_a), script).await;
    assert_eq!(o1, TaskOutcome::Canceled);
    assert_eq!(
        o2,
        TaskOutcome::Rejected {
            kind: RejectKind::TargetDisabled
        }
    );
    SUP.activate(&A, spawner).await.unwrap();
}
controller_test!(deactivation_resolves_running_and_queued, deactivate_body);

/// A watcher dropped early frees its cell: more watched submissions than
/// cells still all resolve.
async fn abandoned_watch_body(_spawner: Spawner) {
    INSTANT.store(true, std::sync::atomic::Ordering::SeqCst);
    for job in 0..40 {
        let watch = CTRL.submit_and_watch(ControllerSpec::queue(&TA, job));
        // Polled once (cell claimed, submission in), then dropped.
        let _ = embassy_futures::poll_once(watch);
        common::settle().await;
    }
    for job in 100..140 {
        let o = CTRL.submit_and_watch(ControllerSpec::queue(&TA, job)).await;
        assert_eq!(o, TaskOutcome::Completed);
    }
}
controller_test!(dropped_watchers_free_their_cells, abandoned_watch_body);
