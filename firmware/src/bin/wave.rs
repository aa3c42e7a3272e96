//! The stop and bring-up waves on target (issue 13, item 1):
//!
//! 1. teardown of ROOT <- {LEFT, RIGHT}: LEFT and RIGHT are both asked to
//!    stop before either acks (they wind down together), ROOT only after
//!    both acked;
//! 2. RIGHT never acks: teardown returns RIGHT's timeout and ROOT (its
//!    dependency) is never asked to stop; LEFT is down;
//! 3. bring-up: GATED's slot never fills, FREE (after it in the order,
//!    unrelated) still comes up, AFTER (needs GATED) stays down, and
//!    `failed_node` names GATED.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{Gate, Graph, Mode, NodeSpec, ResourceSlot, Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
use embassy_time::Timer;
use fw::check::{check, finish};
use portable_atomic::{AtomicBool, AtomicU32, Ordering};

/// Stop requests seen so far, and that count when the first ack came.
static ASKED: AtomicU32 = AtomicU32::new(0);
static ASKED_AT_FIRST_ACK: AtomicU32 = AtomicU32::new(u32::MAX);
/// A stop came while a dependent of the node still ran.
static EARLY: AtomicBool = AtomicBool::new(false);
/// RIGHT holds its ack until this is cleared.
static WEDGE: AtomicBool = AtomicBool::new(false);

/// Sees its stop, checks its dependents are down, takes 5 ms, acks.
#[embassy_executor::task(pool_size = 5)]
async fn worker(node: &'static TaskNode) {
    node.wait_shutdown().await;
    ASKED.add(1, Ordering::AcqRel);
    let root = core::ptr::eq(node, &ROOT);
    if root && (LEFT.is_running() || RIGHT.is_running()) {
        EARLY.store(true, Ordering::Release);
    }
    while core::ptr::eq(node, &RIGHT) && WEDGE.load(Ordering::Acquire) {
        Timer::after_millis(1).await;
    }
    Timer::after_millis(5).await;
    let _ = ASKED_AT_FIRST_ACK.compare_exchange(
        u32::MAX,
        ASKED.load(Ordering::Acquire),
        Ordering::AcqRel,
        Ordering::Acquire,
    );
    node.ack_dropped();
    node.mark_exited();
}

fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(worker(node)?);
    Ok(())
}

const fn spec(name: &'static str, at: u8) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(spawn_worker)
        .with_ack_timeout(100)
        .at(at)
}

static NEVER: ResourceSlot<()> = ResourceSlot::new();
static GATES: [&dyn Gate; 1] = [&NEVER];

static ROOT: TaskNode = TaskNode::new(&spec("ROOT", 0));
static LEFT: TaskNode = TaskNode::new(&spec("LEFT", 1));
static RIGHT: TaskNode = TaskNode::new(&spec("RIGHT", 2));
static STOPS: Graph<3> = Graph::new([Some(&ROOT), Some(&LEFT), Some(&RIGHT)], [&[], &[0], &[0]]);
static SUP: Supervisor<3> = Supervisor::new(&STOPS);

static GATED: TaskNode = TaskNode::new(
    &NodeSpec::new("GATED", Mode::Terminate)
        .with_spawn(spawn_worker)
        .with_resources(&GATES)
        .with_slot_timeout(50)
        .at(0),
);
static FREE: TaskNode = TaskNode::new(&spec("FREE", 1));
static AFTER: TaskNode = TaskNode::new(&spec("AFTER", 2));
static STARTS: Graph<3> = Graph::new([Some(&GATED), Some(&FREE), Some(&AFTER)], [&[], &[], &[0]]);
static SUP_STARTS: Supervisor<3> = Supervisor::new(&STARTS);

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    check("wave: start", SUP.start(spawner).await.is_ok());
    Timer::after_millis(1).await;
    check("wave: teardown", SUP.teardown().await.is_ok());
    check(
        "wave: LEFT and RIGHT both asked before either acked",
        ASKED_AT_FIRST_ACK.load(Ordering::Acquire) == 2,
    );
    check(
        "wave: ROOT asked only after its dependents acked",
        !EARLY.load(Ordering::Acquire) && ASKED.load(Ordering::Acquire) == 3,
    );

    WEDGE.store(true, Ordering::Release);
    check("wave: restart", SUP.start(spawner).await.is_ok());
    Timer::after_millis(1).await;
    let r = SUP.teardown().await;
    check(
        "wave: a wedged RIGHT is the teardown's error",
        r.is_err_and(|e| core::ptr::eq(e.node, &RIGHT)),
    );
    check(
        "wave: ROOT never asked while RIGHT lives",
        ROOT.is_running() && !ROOT.shutdown_requested() && !LEFT.is_running(),
    );
    WEDGE.store(false, Ordering::Release);
    Timer::after_millis(10).await;
    check("wave: cleanup", SUP.teardown().await.is_ok());

    let r = SUP_STARTS.start(spawner).await;
    check(
        "wave: a closed gate fails only its node and dependents",
        r.is_err()
            && SUP_STARTS.failed_node().is_some_and(|n| core::ptr::eq(n, &GATED))
            && FREE.is_running()
            && !AFTER.is_running(),
    );
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
