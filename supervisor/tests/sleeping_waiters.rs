//! No waiter spins, however many there are (issue 12, part 1). For each kind
//! of wait the crate offers, N tasks wait at once, for N up to and past the
//! old waker-list sizes (4 for the controller, 8 for the observers). While
//! nothing changes they are polled 0 times over many executor passes; each
//! still completes when its own condition changes.
//!
//! Polls are counted by a wrapper future around each wait; executor passes
//! are driven by a task that yields (one pass per yield). No wall clock.
#![cfg(all(feature = "controller", feature = "pool"))]
mod common;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::{Controller, ControllerSpec, JobTarget, TaskOutcome};
use embassy_supervisor::{
    CONTROL_QUEUE_DEPTH, ControlOp, Graph, Mode, NodeSpec, ResourceSlot, Supervisor, TaskNode,
    request_control, try_request_control, wait_control,
};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;

/// The waiter counts tried: up to and past the old list sizes (4 and 8).
const COUNTS: [usize; 6] = [1, 4, 5, 8, 9, 16];
const MAX: usize = 16;
/// Executor passes that must cost the sleeping waiters no poll.
const IDLE_PASSES: usize = 640;

static POLLS: [AtomicUsize; MAX] = [const { AtomicUsize::new(0) }; MAX];
static DONE: [AtomicBool; MAX] = [const { AtomicBool::new(false) }; MAX];

/// Counts the polls of the wait it wraps; marks waiter `i` done on completion.
struct Counted {
    i: usize,
    wait: Pin<Box<dyn Future<Output = ()>>>,
}

impl Future for Counted {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        POLLS[self.i].fetch_add(1, Ordering::SeqCst);
        let done = self.wait.as_mut().poll(cx);
        if done.is_ready() {
            DONE[self.i].store(true, Ordering::SeqCst);
        }
        done
    }
}

#[embassy_executor::task(pool_size = 16)]
async fn waiter(i: usize, what: fn(usize) -> Pin<Box<dyn Future<Output = ()>>>) {
    Counted { i, wait: what(i) }.await
}

fn reset_counts() {
    for (polls, done) in POLLS.iter().zip(&DONE) {
        polls.store(0, Ordering::SeqCst);
        done.store(false, Ordering::SeqCst);
    }
}

fn polls(n: usize) -> usize {
    (0..n).map(|i| POLLS[i].load(Ordering::SeqCst)).sum()
}

fn done(i: usize) -> bool {
    DONE[i].load(Ordering::SeqCst)
}

/// Spawn `n` waiters, let them block, then check they sleep through
/// [`IDLE_PASSES`] passes in which nothing changes.
async fn spawn_and_check_asleep(
    s: Spawner,
    n: usize,
    what: fn(usize) -> Pin<Box<dyn Future<Output = ()>>>,
) {
    reset_counts();
    for i in 0..n {
        s.spawn(waiter(i, what).unwrap());
    }
    common::settle().await;
    for (i, polls) in POLLS.iter().enumerate().take(n) {
        assert!(
            !done(i),
            "waiter {i} of {n} finished with nothing to wait for"
        );
        polls.store(0, Ordering::SeqCst);
    }
    for _ in 0..IDLE_PASSES {
        embassy_futures::yield_now().await;
    }
    assert_eq!(
        polls(n),
        0,
        "{n} waiters were polled over {IDLE_PASSES} passes while nothing changed"
    );
}

/// The worker of a controller target: runs until `go` or a stop.
#[embassy_executor::task(pool_size = 4)]
async fn job(node: &'static TaskNode, go: &'static Signal<CriticalSectionRawMutex, ()>) {
    let _ = select(go.wait(), node.wait_shutdown()).await;
    if node.shutdown_requested() {
        node.ack_dropped();
    }
    node.mark_exited();
}

/// A one-node graph (`J`, `OnDemand`) with a controller of the given sizes.
macro_rules! ctrl_graph {
    ($m:ident, $depth:literal, $intake:literal, $watch:literal) => {
        mod $m {
            use super::*;
            pub static GO: Signal<CriticalSectionRawMutex, ()> = Signal::new();
            fn spawn_j(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                s.spawn(job(node, &GO)?);
                Ok(())
            }
            pub static J: TaskNode =
                TaskNode::new(&NodeSpec::new("J", Mode::OnDemand).with_spawn(spawn_j).at(0));
            static GRAPH: Graph<1> = Graph::new([Some(&J)], [&[]]);
            pub static CTRL: Controller<(), 1, $depth, $intake, $watch> = Controller::new();
            pub static SUP: Supervisor<1> = Supervisor::new(&GRAPH).with_controller(&CTRL);
            pub static TJ: JobTarget<()> = JobTarget::node(&J);
        }
    };
}

// ---- observers: resource slots ---------------------------------------------

static SLOTS: [ResourceSlot<usize>; MAX] = [const { ResourceSlot::new() }; MAX];

fn take_slot(i: usize) -> Pin<Box<dyn Future<Output = ()>>> {
    Box::pin(async move {
        assert_eq!(SLOTS[i].wait_take().await, i);
    })
}

#[test]
fn many_wait_take_sleep_until_their_slot_fills() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for n in COUNTS {
            spawn_and_check_asleep(s, n, take_slot).await;
            for (k, slot) in SLOTS.iter().enumerate().take(n) {
                slot.provide(k);
                common::settle().await;
                assert!(done(k), "n = {n}: waiter {k} missed its slot");
                assert!(
                    (k + 1..n).all(|j| !done(j)),
                    "n = {n}: a waiter finished on another's slot"
                );
            }
        }
        common::pass();
    }
    common::run(&[], |s| s.spawn(drive(s).unwrap()));
}

// ---- observers: several tasks waiting on one node's stop -------------------

fn spawn_x(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    common::spawn_worker(node, s)
}
static X: TaskNode = TaskNode::new(
    &NodeSpec::new("X", Mode::Terminate)
        .with_spawn(spawn_x)
        .at(0),
);
static X_GRAPH: Graph<1> = Graph::new([Some(&X)], [&[]]);
static X_SUP: Supervisor<1> = Supervisor::new(&X_GRAPH);

fn shutdown_of_x(_: usize) -> Pin<Box<dyn Future<Output = ()>>> {
    Box::pin(X.wait_shutdown())
}

#[test]
fn many_wait_shutdown_on_one_node_sleep_until_it_stops() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for n in COUNTS {
            X_SUP.start(s).await.unwrap();
            // The node's own worker holds the node's waker; these n wait
            // beside it.
            spawn_and_check_asleep(s, n, shutdown_of_x).await;
            X_SUP.stop_node(&X).await.unwrap();
            common::settle().await;
            assert!((0..n).all(done), "n = {n}: a waiter missed the stop");
        }
        common::pass();
    }
    common::run(&[&X], |s| s.spawn(drive(s).unwrap()));
}

// ---- controller: watched submissions waiting for their outcome -------------

ctrl_graph!(watched, 16, 16, 16);

fn watch_one(_: usize) -> Pin<Box<dyn Future<Output = ()>>> {
    Box::pin(async {
        let outcome = watched::CTRL
            .submit_and_watch(ControllerSpec::queue(&watched::TJ, ()))
            .await;
        assert_eq!(outcome, TaskOutcome::Completed);
    })
}

#[test]
fn many_watchers_sleep_until_their_job_resolves() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        use watched::*;
        let script = async {
            for n in COUNTS {
                // One job runs, the other n - 1 queue: all n are watched.
                spawn_and_check_asleep(s, n, watch_one).await;
                assert!(J.is_running());
                for k in 1..=n {
                    // One job finishes: exactly its watcher resolves.
                    GO.signal(());
                    common::settle().await;
                    let finished = (0..n).filter(|&j| done(j)).count();
                    assert_eq!(finished, k, "n = {n}: one outcome per finished job");
                }
            }
        };
        match select(SUP.run(s), script).await {
            Either::First(e) => panic!("run returned {e}"),
            Either::Second(()) => {}
        }
        common::pass();
    }
    common::run(&[&watched::J], |s| s.spawn(drive(s).unwrap()));
}

// ---- controller: submitters waiting for a watch cell -----------------------

ctrl_graph!(one_cell, 16, 16, 1);

fn watch_in_one_cell(_: usize) -> Pin<Box<dyn Future<Output = ()>>> {
    Box::pin(async {
        let outcome = one_cell::CTRL
            .submit_and_watch(ControllerSpec::queue(&one_cell::TJ, ()))
            .await;
        assert_eq!(outcome, TaskOutcome::Completed);
    })
}

#[test]
fn many_submitters_sleep_until_a_watch_cell_frees() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        use one_cell::*;
        let script = async {
            for n in COUNTS {
                // The first holds the only cell (its job runs); n - 1 wait.
                spawn_and_check_asleep(s, n, watch_in_one_cell).await;
                for k in 1..=n {
                    GO.signal(());
                    common::settle().await;
                    let finished = (0..n).filter(|&j| done(j)).count();
                    assert_eq!(finished, k, "n = {n}: one job per cell release");
                }
            }
        };
        match select(SUP.run(s), script).await {
            Either::First(e) => panic!("run returned {e}"),
            Either::Second(()) => {}
        }
        common::pass();
    }
    common::run(&[&one_cell::J], |s| s.spawn(drive(s).unwrap()));
}

// ---- controller: submitters waiting for intake room ------------------------

ctrl_graph!(small_intake, 16, 1, 1);

fn submit_one(_: usize) -> Pin<Box<dyn Future<Output = ()>>> {
    Box::pin(async {
        small_intake::CTRL
            .submit(ControllerSpec::drop_if_running(&small_intake::TJ, ()))
            .await
            .unwrap();
    })
}

#[test]
fn many_submitters_sleep_until_the_intake_has_room() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        use small_intake::*;
        for n in COUNTS {
            // No driver yet: the intake stays full.
            CTRL.try_submit(ControllerSpec::drop_if_running(&TJ, ()))
                .unwrap();
            spawn_and_check_asleep(s, n, submit_one).await;
            // The driver drains the intake one submission at a time; every
            // waiting submitter gets in.
            let script = async {
                common::settle().await;
                assert!((0..n).all(done), "n = {n}: a submitter never got in");
                GO.signal(());
                common::settle().await;
            };
            match select(SUP.run(s), script).await {
                Either::First(e) => panic!("run returned {e}"),
                Either::Second(()) => {}
            }
            assert!(!J.is_running());
        }
        common::pass();
    }
    common::run(&[&small_intake::J], |s| s.spawn(drive(s).unwrap()));
}

// ---- control mailbox: senders waiting for room -------------------------------

fn send_control(_: usize) -> Pin<Box<dyn Future<Output = ()>>> {
    Box::pin(request_control(&X, ControlOp::Activate))
}

#[test]
fn many_request_control_sleep_until_the_mailbox_has_room() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for n in COUNTS {
            for _ in 0..CONTROL_QUEUE_DEPTH {
                try_request_control(&X, ControlOp::Activate).unwrap();
            }
            spawn_and_check_asleep(s, n, send_control).await;
            // Each command taken out lets exactly one waiting sender in.
            for k in 1..=n {
                let _ = wait_control().await;
                common::settle().await;
                let sent = (0..n).filter(|&j| done(j)).count();
                assert_eq!(sent, k, "n = {n}: one sender per freed place");
            }
            for _ in 0..CONTROL_QUEUE_DEPTH {
                let _ = wait_control().await;
            }
            assert!(try_request_control(&X, ControlOp::Activate).is_ok());
            let _ = wait_control().await;
        }
        common::pass();
    }
    common::run(&[], |s| s.spawn(drive(s).unwrap()));
}
