//! A second task waiting on a node makes that node's stops wake the
//! crate-wide observers too (the second wait sleeps among them). Once that
//! wait is gone, the node's next activation clears the mark: later stops
//! wake nobody but the node's own task.
//!
//! Seen from outside: an unrelated observer (a `wait_take` on a slot nobody
//! fills) counts its polls; a stop request wakes it only while a second
//! waiter may be there.
mod common;

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::settle;
use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_supervisor::{Graph, Mode, NodeSpec, ResourceSlot, Supervisor, TaskNode};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;

/// Lets the worker ack the stop it saw: the test looks between the request
/// and the ack, where only the request itself can have woken anyone.
static RELEASE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

/// Waits for its stop, acks when released, returns.
#[embassy_executor::task]
async fn slow_ack(node: &'static TaskNode) {
    node.wait_shutdown().await;
    RELEASE.wait().await;
    node.ack_dropped();
    node.mark_exited();
}

fn spawn_slow(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(slow_ack(node)?);
    Ok(())
}

static NODE: TaskNode = TaskNode::new(
    &NodeSpec::new("NODE", Mode::Terminate)
        .with_spawn(spawn_slow)
        .at(0),
);
static GRAPH: Graph<1> = Graph::new([Some(&NODE)], [&[]]);
static SUP: Supervisor<1> = Supervisor::new(&GRAPH);

/// The second waiter: waits for NODE's stop beside the worker.
static HELPER_WOKE: AtomicBool = AtomicBool::new(false);
#[embassy_executor::task]
async fn helper() {
    NODE.wait_shutdown().await;
    HELPER_WOKE.store(true, Ordering::SeqCst);
}

/// Never filled: `NEVER.wait_take()` is an observer that only a change
/// notification wakes.
static NEVER: ResourceSlot<u32> = ResourceSlot::new();
static POLLS: AtomicUsize = AtomicUsize::new(0);

/// Counts the polls of the future it wraps.
struct Counted<F>(F);
impl<F: Future + Unpin> Future for Counted<F> {
    type Output = F::Output;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        POLLS.fetch_add(1, Ordering::SeqCst);
        Pin::new(&mut self.0).poll(cx)
    }
}

#[embassy_executor::task]
async fn observer() {
    Counted(Box::pin(NEVER.wait_take())).await;
}

/// Observer polls caused by a stop request of NODE (between the request and
/// the ack), then the ack.
async fn polls_at_stop_request() -> usize {
    settle().await;
    let before = POLLS.load(Ordering::SeqCst);
    let (stopped, during) = join(SUP.stop_node(&NODE), async {
        settle().await;
        let during = POLLS.load(Ordering::SeqCst) - before;
        RELEASE.signal(());
        during
    })
    .await;
    stopped.unwrap();
    during
}

#[embassy_executor::task]
async fn script(spawner: Spawner) {
    spawner.spawn(observer().unwrap());
    SUP.start(spawner).await.unwrap();
    settle().await;
    // Only the worker waits: its stop wakes only the worker.
    assert_eq!(polls_at_stop_request().await, 0, "no second waiter yet");

    // A second waiter beside the worker: the stop must reach it, through
    // the observers.
    SUP.start(spawner).await.unwrap();
    settle().await;
    spawner.spawn(helper().unwrap());
    settle().await;
    assert!(
        polls_at_stop_request().await > 0,
        "the stop wakes the observers"
    );
    assert!(
        HELPER_WOKE.load(Ordering::SeqCst),
        "the second waiter saw the stop"
    );

    // The second waiter is gone: after the next activation a stop wakes the
    // worker alone again.
    SUP.start(spawner).await.unwrap();
    settle().await;
    assert_eq!(
        polls_at_stop_request().await,
        0,
        "the second waiter's mark outlived it"
    );
    common::pass();
}

#[test]
fn a_second_waiters_mark_ends_at_the_next_activation() {
    common::run(&[&NODE], |s| s.spawn(script(s).unwrap()));
}
