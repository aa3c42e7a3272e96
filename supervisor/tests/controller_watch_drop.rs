//! A `submit_and_watch` that is given up (its future dropped) takes its
//! waker with it: the watch cell's next watcher must not wake a task that
//! stopped watching and may have ended (that wake queues the ended task's
//! storage, and a spawn into it fails `Busy` until the executor's next
//! pass).
#![cfg(all(feature = "controller", feature = "pool"))]

mod common;
#[path = "kits/controller.rs"]
mod kit;

use core::future::{Future, poll_fn};
use core::pin::pin;
use core::task::Poll;

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_futures::select::select;
use embassy_supervisor::controller::{ControllerSpec, TaskOutcome};
use kit::*;

/// Submits `job` and watches it for one executor pass, then gives up and
/// ends (with no job, it ends at once).
#[embassy_executor::task]
async fn impatient(job: Option<u32>) {
    if let Some(job) = job {
        let watch = CTRL.submit_and_watch(ControllerSpec::queue(&TA, job));
        select(watch, embassy_futures::yield_now()).await;
    }
}

#[test]
fn an_abandoned_watch_leaves_no_waker_for_the_next_watcher_to_wake() {
    #[embassy_executor::task]
    async fn drive(spawner: Spawner) {
        reset();
        with_run(spawner, async {
            spawner.spawn(impatient(Some(1)).unwrap());
            common::settle().await;
            assert!(A.is_running(), "the abandoned job still runs");
            finish(A_I);
            common::settle().await;

            // The next watch takes the freed cell. In the same poll of this
            // task, spawn the impatient task again: a wake of its ended
            // instance would have queued its storage.
            let mut watch = pin!(CTRL.submit_and_watch(ControllerSpec::queue(&TA, 2)));
            poll_fn(|cx| {
                assert!(watch.as_mut().poll(cx).is_pending());
                Poll::Ready(())
            })
            .await;
            let again = impatient(None);
            assert!(
                again.is_ok(),
                "the new watcher woke the ended one: its respawn failed Busy"
            );
            spawner.spawn(again.unwrap());

            let (outcome, ()) = join(watch, async {
                common::settle().await;
                finish(A_I);
            })
            .await;
            assert_eq!(outcome, TaskOutcome::Completed);
            SUP.teardown().await.unwrap();
        })
        .await;
        common::pass();
    }
    common::run(&watched(), |s| s.spawn(drive(s).unwrap()));
}
