//! Shared fixture of the controller tests, included with
//! `#[path = "kits/controller.rs"] mod kit;`. Built on `tests/common`.
//!
//! Graph (slot: node), every node `OnDemand` with a `u32` inbox:
//!
//! ```text
//! 0 A   1 B   2 C        node targets
//! 3 W0  4 W1  5 W2       pool WPOOL (max 2, `Held`: only the controller starts members)
//! ```
//!
//! A worker logs `(node, job)` when it starts, then waits for its `GO`
//! signal (or a stop, unless it is `STUBBORN`), and exits. `FAIL_ONCE` makes
//! the node's next bring-up fail after lending its inbox (the way a full task
//! pool fails): its spawn and the supervisor's one retry of a `Busy` spawn. `INSTANT` makes workers finish at once. Every worker checks
//! at start that no other job of its slot is running (invariant 1 and 5,
//! observed from the worker's side) and records a violation in `VIOLATIONS`.
//!
//! Statics outlive a test: call [`reset`] first and leave every node down.
#![cfg(all(feature = "controller", feature = "pool"))]
#![allow(dead_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::{Controller, Held, JobTarget};
use embassy_supervisor::{
    ElasticPool, Graph, Lent, Mode, NodeSpec, ResourceSlot, Supervisor, TaskNode,
};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;

pub const N: usize = 6;
pub const A_I: usize = 0;
pub const B_I: usize = 1;
pub const C_I: usize = 2;
pub const W_FIRST: usize = 3;

/// 4 slots, queue depth 2, intake 4, 32 watch cells.
pub type Ctrl = Controller<u32, 4, 2, 4, 32>;
pub static CTRL: Ctrl = Controller::new();

pub static INBOX: [ResourceSlot<u32>; N] = [const { ResourceSlot::new() }; N];
pub static GO: [Signal<CriticalSectionRawMutex, ()>; N] = [const { Signal::new() }; N];
pub static STUBBORN: [AtomicBool; N] = [const { AtomicBool::new(false) }; N];
pub static FAIL_ONCE: [AtomicBool; N] = [const { AtomicBool::new(false) }; N];
/// Set by a `FAIL_ONCE` failure: the retry fails too.
static FAIL_RETRY: [AtomicBool; N] = [const { AtomicBool::new(false) }; N];
pub static INSTANT: AtomicBool = AtomicBool::new(false);
/// The job each node is running (`NONE` when down).
pub static RUNNING_JOB: [AtomicU32; N] = [const { AtomicU32::new(NONE) }; N];
pub static VIOLATIONS: AtomicUsize = AtomicUsize::new(0);
pub static LOG: Mutex<Vec<(&'static str, u32)>> = Mutex::new(Vec::new());
/// Maps a job id to its slot key id (for the worker-side slot check).
pub static JOB_SLOT: Mutex<Vec<(u32, u32)>> = Mutex::new(Vec::new());

pub const NONE: u32 = u32::MAX;

pub static A: TaskNode =
    TaskNode::new(&NodeSpec::new("A", Mode::OnDemand).with_spawn(spawn_a).at(0));
pub static B: TaskNode =
    TaskNode::new(&NodeSpec::new("B", Mode::OnDemand).with_spawn(spawn_b).at(1));
pub static C: TaskNode =
    TaskNode::new(&NodeSpec::new("C", Mode::OnDemand).with_spawn(spawn_c).at(2));
pub static W: [TaskNode; 3] = [
    TaskNode::new(
        &NodeSpec::new("W0", Mode::OnDemand)
            .with_spawn(spawn_w0)
            .at(3)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W1", Mode::OnDemand)
            .with_spawn(spawn_w1)
            .at(4)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("W2", Mode::OnDemand)
            .with_spawn(spawn_w2)
            .at(5)
            .in_pool(0),
    ),
];
pub static WPOOL: ElasticPool<Held> = ElasticPool::new(&W, 3, 0, 2, Held);
pub static GRAPH: Graph<N> = Graph::new(
    [
        Some(&A),
        Some(&B),
        Some(&C),
        Some(&W[0]),
        Some(&W[1]),
        Some(&W[2]),
    ],
    [&[]; N],
)
.with_pools(&[&WPOOL]);
pub static SUP: Supervisor<N> = Supervisor::new(&GRAPH).with_controller(&CTRL);

pub static TA: JobTarget<u32> = JobTarget::node_with_inbox(&A, &INBOX[A_I]);
pub static TB: JobTarget<u32> = JobTarget::node_with_inbox(&B, &INBOX[B_I]);
pub static TC: JobTarget<u32> = JobTarget::node_with_inbox(&C, &INBOX[C_I]);
pub static TW: JobTarget<u32> = JobTarget::pool("WPOOL", &WPOOL, W_INBOXES);
static W_INBOXES: &[ResourceSlot<u32>] = {
    let (_, w) = INBOX.split_at(W_FIRST);
    w
};

pub fn node(i: usize) -> &'static TaskNode {
    match GRAPH.node(i) {
        Some(n) => n,
        None => unreachable!("every kit slot holds a node"),
    }
}

fn spawn_a(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_job(s, A_I)
}
fn spawn_b(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_job(s, B_I)
}
fn spawn_c(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_job(s, C_I)
}
fn spawn_w0(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_job(s, W_FIRST)
}
fn spawn_w1(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_job(s, W_FIRST + 1)
}
fn spawn_w2(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_job(s, W_FIRST + 2)
}

fn spawn_job(s: Spawner, i: usize) -> Result<(), SpawnError> {
    let job = INBOX[i].lend().ok_or(SpawnError::Busy)?;
    let first = FAIL_ONCE[i].swap(false, Ordering::SeqCst);
    if first {
        FAIL_RETRY[i].store(true, Ordering::SeqCst);
    }
    if first || FAIL_RETRY[i].swap(false, Ordering::SeqCst) {
        // Dropping the `Lent` puts the payload back, as a failed token would.
        drop(job);
        return Err(SpawnError::Busy);
    }
    s.spawn(worker(i, job)?);
    Ok(())
}

#[embassy_executor::task(pool_size = 6)]
async fn worker(i: usize, job: Lent<u32>) {
    let job = job.into_inner();
    let me = node(i);
    let my_slot = slot_of(job);
    for (j, other) in RUNNING_JOB.iter().enumerate() {
        let o = other.load(Ordering::SeqCst);
        if j != i && o != NONE && my_slot.is_some() && slot_of(o) == my_slot {
            VIOLATIONS.fetch_add(1, Ordering::SeqCst);
        }
    }
    RUNNING_JOB[i].store(job, Ordering::SeqCst);
    LOG.lock().unwrap().push((me.name, job));
    if !INSTANT.load(Ordering::SeqCst) {
        if STUBBORN[i].load(Ordering::SeqCst) {
            GO[i].wait().await;
        } else {
            let _ = select(GO[i].wait(), me.wait_shutdown()).await;
        }
    }
    RUNNING_JOB[i].store(NONE, Ordering::SeqCst);
    if me.shutdown_requested() {
        me.ack_dropped();
    }
    me.mark_exited();
}

fn slot_of(job: u32) -> Option<u32> {
    JOB_SLOT
        .lock()
        .unwrap()
        .iter()
        .find(|(j, _)| *j == job)
        .map(|(_, s)| *s)
}

/// Record that `job` is admitted through slot `slot` (for the worker check).
pub fn bind(job: u32, slot: u32) {
    JOB_SLOT.lock().unwrap().push((job, slot));
}

/// Fresh knobs and logs for a test.
pub fn reset() {
    for i in 0..N {
        GO[i].reset();
        STUBBORN[i].store(false, Ordering::SeqCst);
        FAIL_ONCE[i].store(false, Ordering::SeqCst);
        FAIL_RETRY[i].store(false, Ordering::SeqCst);
        RUNNING_JOB[i].store(NONE, Ordering::SeqCst);
        let _ = INBOX[i].take();
    }
    INSTANT.store(false, Ordering::SeqCst);
    VIOLATIONS.store(0, Ordering::SeqCst);
    LOG.lock().unwrap().clear();
    JOB_SLOT.lock().unwrap().clear();
}

pub fn log() -> Vec<(&'static str, u32)> {
    LOG.lock().unwrap().clone()
}

/// Let the worker of node `i` finish its job.
pub fn finish(i: usize) {
    GO[i].signal(());
}

/// Run `script` while `SUP.run` drives the graph and the controller.
pub async fn with_run(spawner: Spawner, script: impl core::future::Future<Output = ()>) {
    match select(SUP.run(spawner), script).await {
        Either::First(e) => panic!("run returned {e}"),
        Either::Second(()) => {}
    }
}

/// Every node of the kit, for the harness's hang report.
pub fn watched() -> [&'static TaskNode; N] {
    [&A, &B, &C, &W[0], &W[1], &W[2]]
}
