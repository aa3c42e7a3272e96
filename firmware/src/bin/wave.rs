//! The stop and bring-up waves on target (issue 13, item 1):
//!
//! 1. teardown of ROOT <- {LEFT, RIGHT}: LEFT and RIGHT are both asked to
//!    stop before either acks (they wind down together), ROOT only after
//!    both acked;
//! 2. RIGHT never acks: teardown returns RIGHT's timeout and ROOT (its
//!    dependency) is never asked to stop; LEFT is down;
//! 3. bring-up: GATED's slot never fills, FREE (after it in the order,
//!    unrelated) still comes up, AFTER (needs GATED) stays down, and
//!    `failed_node` names GATED;
//! 4. `activate` as a wave: after `deactivate(GATED)`, `activate(GATED)`
//!    fails at GATED's gate and AFTER (its released dependent) stays down
//!    with it, held again for the next `activate`; after `deactivate(BASE)`, `activate(BASE)` brings SLOW2 up
//!    while SLOW1 (before it in the order, unrelated) still waits for its
//!    gate.
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

static G1: ResourceSlot<()> = ResourceSlot::new();
static G2: ResourceSlot<()> = ResourceSlot::new();
static GATES_1: [&dyn Gate; 1] = [&G1];
static GATES_2: [&dyn Gate; 1] = [&G2];

const fn slow(name: &'static str, at: u8, gates: &'static [&'static dyn Gate]) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(spawn_worker)
        .with_resources(gates)
        .with_slot_timeout(100)
        .with_ack_timeout(100)
        .at(at)
}

static BASE: TaskNode = TaskNode::new(&spec("BASE", 0));
static SLOW1: TaskNode = TaskNode::new(&slow("SLOW1", 1, &GATES_1));
static SLOW2: TaskNode = TaskNode::new(&slow("SLOW2", 2, &GATES_2));
static ACTS: Graph<3> = Graph::new([Some(&BASE), Some(&SLOW1), Some(&SLOW2)], [&[], &[0], &[0]]);
static SUP_ACTS: Supervisor<3> = Supervisor::new(&ACTS);
/// SLOW2 was up while SLOW1 still waited for its gate.
static OVERLAPPED: AtomicBool = AtomicBool::new(false);

/// Fill G2 at 10 ms and G1 at 20 ms, noting whether SLOW2 came up before
/// SLOW1's gate opened.
#[embassy_executor::task]
async fn filler() {
    Timer::after_millis(10).await;
    G2.provide(());
    Timer::after_millis(10).await;
    OVERLAPPED.store(SLOW2.is_running() && !SLOW1.is_running(), Ordering::Release);
    G1.provide(());
}

/// Part 4: `activate` brings its nodes up as a wave.
async fn activate_as_wave(spawner: Spawner) {
    check(
        "wave: teardown of the gated graph",
        SUP_STARTS.teardown().await.is_ok(),
    );
    check(
        "wave: deactivate(GATED)",
        SUP_STARTS.deactivate(&GATED).await.is_ok(),
    );
    let r = SUP_STARTS.activate(&GATED, spawner).await;
    check(
        "wave: activate keeps a failed node's dependents down, held for the next activate",
        r.is_err_and(|e| core::ptr::eq(e.node, &GATED))
            && !AFTER.is_running()
            && AFTER.is_held()
            && !GATED.is_disabled(),
    );

    G1.provide(());
    G2.provide(());
    check(
        "wave: start the overlap graph",
        SUP_ACTS.start(spawner).await.is_ok(),
    );
    check(
        "wave: deactivate(BASE)",
        SUP_ACTS.deactivate(&BASE).await.is_ok(),
    );
    G1.clear();
    G2.clear();
    spawner.spawn(filler().unwrap());
    let r = SUP_ACTS.activate(&BASE, spawner).await;
    check(
        "wave: activate overlaps independent slow gates",
        r.is_ok() && OVERLAPPED.load(Ordering::Acquire) && SLOW1.is_running(),
    );
    check(
        "wave: cleanup of the overlap graph",
        SUP_ACTS.teardown().await.is_ok(),
    );
}

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
            && SUP_STARTS
                .failed_node()
                .is_some_and(|n| core::ptr::eq(n, &GATED))
            && FREE.is_running()
            && !AFTER.is_running(),
    );
    activate_as_wave(spawner).await;
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
