//! Task-side protocol details beyond the table: several tasks waiting on one
//! node's stop request.
mod common;
#[path = "kits/lifecycle.rs"]
mod kit;

use core::future::{Future, poll_fn};
use core::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use common::settle;
use embassy_supervisor::TaskNode;

static POLLS: [AtomicU32; 2] = [AtomicU32::new(0), AtomicU32::new(0)];
static WOKE: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];

/// A helper task (not the node's worker) that also waits for the stop.
#[embassy_executor::task(pool_size = 2)]
async fn watcher(node: &'static TaskNode, i: usize) {
    let mut wait = pin!(node.wait_shutdown());
    poll_fn(|cx| {
        POLLS[i].fetch_add(1, Ordering::SeqCst);
        wait.as_mut().poll(cx)
    })
    .await;
    WOKE[i].store(true, Ordering::SeqCst);
}

kit_test!(
    several_waiters_on_one_node_sleep_until_the_stop_then_all_wake,
    |s| {
        provide();
        SUP.start(s).await.unwrap();
        s.spawn(watcher(&P, 0).unwrap());
        s.spawn(watcher(&P, 1).unwrap());
        settle().await;
        let first = POLLS.each_ref().map(|p| p.load(Ordering::SeqCst));
        settle().await;
        settle().await;
        let later = POLLS.each_ref().map(|p| p.load(Ordering::SeqCst));
        // Three tasks (P's worker and two watchers) wait on P: none may keep
        // waking another while nothing happens.
        assert_eq!(first, later, "waiters keep polling each other: a busy loop");
        assert!(later.iter().all(|&n| n <= 3), "polls: {later:?}");
        SUP.stop_node(&P).await.unwrap();
        settle().await;
        assert!(
            WOKE.iter().all(|w| w.load(Ordering::SeqCst)),
            "a waiter missed the stop"
        );
        assert!(!P.is_running());
    }
);
