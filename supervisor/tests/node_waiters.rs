//! Tasks that wait on a node they do not run (`wait_shutdown` from a
//! watcher): no such wait is ever lost, whenever it began, and none leaves a
//! waker behind once it is gone.
//!
//! A node holds one waker slot; whoever waits on the node first takes it.
//! Each test makes an outside task that slot's holder at an awkward moment
//! (before the node's first spawn, while an instance runs that then exits,
//! before a resident shell's first spawn, or just before it gives up and
//! ends) and checks the stop that follows. One more: two waits in one
//! task, where the slot's holder ends first.
mod common;

use core::future::poll_fn;
use core::pin::pin;
use core::task::Poll;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use common::settle;
use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_futures::select::select;
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;

/// What one watcher saw when its wait ended.
struct Seen {
    woke: AtomicBool,
    /// `shutdown_requested()` at the wake: the outcome the wait promises.
    stop_requested: AtomicBool,
}

impl Seen {
    const fn new() -> Self {
        Self {
            woke: AtomicBool::new(false),
            stop_requested: AtomicBool::new(false),
        }
    }

    fn woke(&self) -> bool {
        self.woke.load(Ordering::SeqCst)
    }

    /// Woken, and by the stop it waited for.
    fn saw_the_stop(&self) -> bool {
        self.woke() && self.stop_requested.load(Ordering::SeqCst)
    }
}

static SEEN: [Seen; 4] = [const { Seen::new() }; 4];

/// An outside task waiting for `node`'s stop.
#[embassy_executor::task(pool_size = 4)]
async fn watcher(node: &'static TaskNode, seen: &'static Seen) {
    node.wait_shutdown().await;
    seen.stop_requested
        .store(node.shutdown_requested(), Ordering::SeqCst);
    seen.woke.store(true, Ordering::SeqCst);
}

// ---- the nodes ----------------------------------------------------------

/// A node's worker: the kit's (serves until stopped, acks, exits).
fn spawn_kit(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    common::spawn_worker(node, s)
}

/// `EXITS`'s first instance ends on its own once `EXIT` is signalled,
/// without ever waiting on its node; later instances are the kit's worker.
static EXIT: Signal<CriticalSectionRawMutex, ()> = Signal::new();
static EXITS_INSTANCES: AtomicU32 = AtomicU32::new(0);

#[embassy_executor::task]
async fn exits_then_serves(node: &'static TaskNode) {
    if EXITS_INSTANCES.fetch_add(1, Ordering::SeqCst) == 0 {
        EXIT.wait().await;
    } else {
        common::serve(node).await;
    }
    node.mark_exited();
}

fn spawn_exits(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(exits_then_serves(node)?);
    Ok(())
}

/// `LATE`'s worker waits for `GO` before it serves: until then the node
/// runs and its own task does not wait on it.
static GO: Signal<CriticalSectionRawMutex, ()> = Signal::new();

#[embassy_executor::task]
async fn serves_after_go(node: &'static TaskNode) {
    GO.wait().await;
    common::serve(node).await;
    node.mark_exited();
}

fn spawn_late(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(serves_after_go(node)?);
    Ok(())
}

/// `TWO`'s worker waits on its node twice at once: a piece of work raced
/// against the stop, which takes the node's waker slot first, and beside
/// it a plain wait for the stop that begins later (on `LISTEN`). In the
/// pass that starts the plain wait the work ends (on `WORK_DONE`), after
/// the plain wait was polled, and its wait gives the slot back: the plain
/// wait must not have counted on that slot (same task, same waker) to
/// learn of the stop.
static LISTEN: Signal<CriticalSectionRawMutex, ()> = Signal::new();
static WORK_DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();
static TWO_WORK_ENDED: AtomicBool = AtomicBool::new(false);

#[embassy_executor::task]
async fn two_waits(node: &'static TaskNode) {
    let listen = async {
        LISTEN.wait().await;
        node.wait_shutdown().await;
    };
    let work = async {
        let _ = node.run_cancellable(WORK_DONE.wait()).await;
        TWO_WORK_ENDED.store(true, Ordering::SeqCst);
    };
    // `join` polls its futures in order: the plain wait first.
    join(listen, work).await;
    node.ack_dropped();
    node.mark_exited();
}

fn spawn_two(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(two_waits(node)?);
    Ok(())
}

static EARLY: TaskNode = TaskNode::new(
    &NodeSpec::new("EARLY", Mode::OnDemand)
        .with_spawn(spawn_kit)
        .at(0),
);
static EXITS: TaskNode = TaskNode::new(
    &NodeSpec::new("EXITS", Mode::OnDemand)
        .with_spawn(spawn_exits)
        .at(1),
);
static LATE: TaskNode = TaskNode::new(
    &NodeSpec::new("LATE", Mode::OnDemand)
        .with_spawn(spawn_late)
        .at(2),
);
static TWO: TaskNode = TaskNode::new(
    &NodeSpec::new("TWO", Mode::OnDemand)
        .with_spawn(spawn_two)
        .at(3),
);
static GRAPH: Graph<4> = Graph::new(
    [Some(&EARLY), Some(&EXITS), Some(&LATE), Some(&TWO)],
    [&[], &[], &[], &[]],
);
static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

#[test]
fn a_task_waiting_before_the_first_spawn_wakes_at_the_stop() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        s.spawn(watcher(&EARLY, &SEEN[0]).unwrap());
        settle().await;
        assert!(!SEEN[0].woke(), "woke before the node ever ran");

        SUP.start_node(&EARLY, s).await.unwrap();
        settle().await;
        assert!(EARLY.is_running());
        assert!(!SEEN[0].woke(), "woke at the spawn, before any stop");

        SUP.stop_node(&EARLY).await.unwrap();
        settle().await;
        assert!(!EARLY.is_running());
        assert!(
            SEEN[0].saw_the_stop(),
            "the watcher that waited before the first spawn missed the stop"
        );
        common::pass();
    }
    common::run(&[&EARLY], |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn a_wait_begun_during_an_instance_that_exits_survives_the_respawn() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        SUP.start_node(&EXITS, s).await.unwrap();
        settle().await;
        // The instance runs and does not wait on its node: the watcher
        // holds the node's waker slot.
        s.spawn(watcher(&EXITS, &SEEN[1]).unwrap());
        settle().await;
        EXIT.signal(());
        settle().await;
        assert!(EXITS.has_exited() && !EXITS.is_running());
        assert!(!SEEN[1].woke(), "an exit is not a stop");

        SUP.start_node(&EXITS, s).await.unwrap();
        settle().await;
        assert!(EXITS.is_running());
        SUP.stop_node(&EXITS).await.unwrap();
        settle().await;
        assert!(
            SEEN[1].saw_the_stop(),
            "the respawn dropped the watcher's waker: it missed the stop"
        );
        common::pass();
    }
    common::run(&[&EXITS], |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn a_wait_beside_the_slot_holder_in_one_task_sees_the_stop_after_the_holder_ends() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        SUP.start_node(&TWO, s).await.unwrap();
        settle().await;
        // Both in one pass of the worker.
        LISTEN.signal(());
        WORK_DONE.signal(());
        settle().await;
        assert!(TWO_WORK_ENDED.load(Ordering::SeqCst) && TWO.is_running());
        // The plain wait is the one left: the stop must reach it, and the
        // worker acks (a missed wake would end in the ack timeout).
        SUP.stop_node(&TWO).await.unwrap();
        assert!(!TWO.is_running());
        common::pass();
    }
    common::run(&[&TWO], |s| s.spawn(drive(s).unwrap()));
}

/// An outside task that waits on `node` for one executor pass, then gives
/// up and ends.
#[embassy_executor::task]
async fn quitter(node: &'static TaskNode) {
    select(node.wait_shutdown(), embassy_futures::yield_now()).await;
}

#[test]
fn a_task_that_stopped_waiting_is_not_woken_by_the_stop() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        SUP.start_node(&LATE, s).await.unwrap();
        settle().await;
        // The quitter takes the free slot, then ends.
        s.spawn(quitter(&LATE).unwrap());
        settle().await;
        GO.signal(());
        settle().await;

        // Request the stop, and in the same poll of this task spawn the
        // quitter's task again: a wake left for its ended instance would
        // have queued its storage, and the spawn would fail `Busy`.
        let mut stop = pin!(SUP.stop_node(&LATE));
        poll_fn(|cx| {
            assert!(stop.as_mut().poll(cx).is_pending());
            Poll::Ready(())
        })
        .await;
        assert!(LATE.shutdown_requested());
        let again = quitter(&LATE);
        assert!(
            again.is_ok(),
            "the stop woke the ended waiter's task: its respawn failed Busy"
        );
        s.spawn(again.unwrap());
        stop.await.unwrap();
        settle().await;
        assert!(!LATE.is_running());
        common::pass();
    }
    common::run(&[&LATE], |s| s.spawn(drive(s).unwrap()));
}

// ---- a resident shell -----------------------------------------------------

/// A generated `task:` node: its shell stays resident between activations.
#[cfg(feature = "macros")]
mod resident {
    use embassy_supervisor::{Supervisor, supervisor_graph};

    supervisor_graph! {
        node SHELL = OnDemand, task: crate::common::serve;
    }
    pub static SUP: Supervisor<1> = Supervisor::new(&GRAPH);
}
#[cfg(feature = "macros")]
use resident::{SHELL, SUP as SUP_R};

#[cfg(feature = "macros")]
#[test]
fn waits_on_a_resident_shell_see_the_stop_of_each_activation() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        s.spawn(watcher(&SHELL, &SEEN[2]).unwrap());
        settle().await;

        SUP_R.start_node(&SHELL, s).await.unwrap();
        settle().await;
        assert!(SHELL.is_resident() && SHELL.is_running());
        SUP_R.stop_node(&SHELL).await.unwrap();
        settle().await;
        assert!(
            SEEN[2].saw_the_stop(),
            "the watcher that waited before the shell's first spawn missed the stop"
        );

        // The shell parked in place; the next activation wakes it, and a
        // watcher of that activation sees its stop.
        SUP_R.start_node(&SHELL, s).await.unwrap();
        settle().await;
        assert!(SHELL.is_running());
        s.spawn(watcher(&SHELL, &SEEN[3]).unwrap());
        settle().await;
        assert!(!SEEN[3].woke(), "woke before the second stop");
        SUP_R.stop_node(&SHELL).await.unwrap();
        settle().await;
        assert!(
            SEEN[3].saw_the_stop(),
            "the watcher of the second activation missed its stop"
        );
        common::pass();
    }
    common::run(&[&SHELL], |s| s.spawn(drive(s).unwrap()));
}
