//! The breadcrumb across a reset. A simulated watchdog stashes
//! `breadcrumb::word()` in a no-init RAM section every millisecond and, when
//! the verb it guards does not finish in time, resets the core
//! (SYSRESETREQ: a warm reboot that keeps RAM, as a real watchdog does; the
//! startup code re-initialises `.data` and `.bss` but not `.uninit`). The
//! next boot decodes the stash and checks it names the node and phase that
//! hung:
//!
//! 1. cold boot: bring-up parks on SENSOR's gate, which never fills → reset;
//! 2. checks SENSOR / Spawning; teardown waits for WEDGED's ack, which never
//!    comes → reset;
//! 3. checks WEDGED / Stopping; exit 0 if every check passed.
#![no_std]
#![no_main]

use cortex_m::peripheral::SCB;
use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::breadcrumb::{self, Breadcrumb};
use embassy_supervisor::{Gate, Graph, Mode, NodeSpec, Phase, ResourceSlot, Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
use embassy_time::Timer;
use fw::check::{check, finish};
use portable_atomic::{AtomicU32, Ordering};

// ---- the no-init stash -------------------------------------------------------

/// What survives the reset: the boot stage and the last stashed word.
struct Stash {
    stage: AtomicU32,
    word: AtomicU32,
}

/// Marks a stage this firmware wrote (top half), so the zeroed or random
/// RAM of a cold boot reads as stage 0.
const STAGE_TAG: u32 = 0x57A6_0000;

// Safety: `.uninit` is cortex-m-rt's NOLOAD output section: neither the
// loader nor the reset handler writes it, so it keeps its contents across a
// warm reset and is arbitrary after a cold one. Every bit pattern is a valid
// pair of `AtomicU32`, and both words are validated before use (the stage by
// its tag, the breadcrumb by `Breadcrumb::decode`), so arbitrary contents
// are sound and harmless.
#[unsafe(link_section = ".uninit.breadcrumb")]
static STASH: Stash = Stash {
    stage: AtomicU32::new(0),
    word: AtomicU32::new(0),
};

fn stage() -> u32 {
    let s = STASH.stage.load(Ordering::Acquire);
    if s & 0xFFFF_0000 == STAGE_TAG {
        s & 0xFFFF
    } else {
        0
    }
}

// ---- the graph ---------------------------------------------------------------

#[embassy_executor::task(pool_size = 2)]
async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

/// Sees its stop and never acks it: a teardown hangs on it.
#[embassy_executor::task]
async fn wedged(node: &'static TaskNode) {
    node.wait_shutdown().await;
    core::future::pending::<()>().await
}

fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(worker(node)?);
    Ok(())
}

fn spawn_wedged(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(wedged(node)?);
    Ok(())
}

/// SENSOR's gate; the first boot never fills it.
static CALIB: ResourceSlot<u32> = ResourceSlot::new();

static BUS: TaskNode = TaskNode::new(
    &NodeSpec::new("BUS", Mode::Terminate)
        .with_spawn(spawn_worker)
        .at(0),
);
// A gate wait far longer than the watchdog's patience.
static SENSOR: TaskNode = TaskNode::new(
    &NodeSpec::new("SENSOR", Mode::Terminate)
        .with_spawn(spawn_worker)
        .with_resources(&[&CALIB as &dyn Gate])
        .with_slot_timeout(60_000)
        .at(1),
);
static WEDGED: TaskNode = TaskNode::new(
    &NodeSpec::new("WEDGED", Mode::Terminate)
        .with_spawn(spawn_wedged)
        .at(2),
);
static GRAPH: Graph<3> = Graph::new(
    [Some(&BUS), Some(&SENSOR), Some(&WEDGED)],
    [&[], &[0], &[0]],
);
static SUP: Supervisor<3> = Supervisor::new(&GRAPH);

// ---- the simulated watchdog -------------------------------------------------------

/// Milliseconds the guarded verb may take before the "watchdog" resets.
const PATIENCE_MS: u32 = 20;

/// Feed-and-stash loop: stash the word every millisecond, as a watchdog
/// feeder would; reset into `next` stage when patience runs out.
#[embassy_executor::task]
async fn watchdog(next: u32) {
    for _ in 0..PATIENCE_MS {
        STASH.word.store(breadcrumb::word(), Ordering::Release);
        Timer::after_millis(1).await;
    }
    STASH.word.store(breadcrumb::word(), Ordering::Release);
    STASH.stage.store(STAGE_TAG | next, Ordering::Release);
    fw::println!("watchdog: resetting into stage {}", next);
    SCB::sys_reset()
}

/// The stashed word names `node` in `phase`.
fn stashed_is(what: &str, node: &TaskNode, phase: Phase) -> bool {
    let crumb = Breadcrumb::decode(STASH.word.load(Ordering::Acquire));
    let ok = crumb.is_some_and(|c| {
        c.phase == phase && c.node(&GRAPH).is_some_and(|n| core::ptr::eq(n, node))
    });
    if let Some(c) = crumb {
        fw::println!("stashed breadcrumb: slot {} {}", c.slot, c.phase.as_str());
    }
    check(what, ok)
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    // A reboot re-initialised the runtime: nothing recorded in this run yet.
    check(
        "breadcrumb: a fresh run starts with no word",
        breadcrumb::word() == 0,
    );
    match stage() {
        0 => {
            fw::println!("stage 0 (cold boot): bring-up parks on SENSOR's gate");
            spawner.spawn(watchdog(1).unwrap());
            let _ = SUP.start(spawner).await;
            check("breadcrumb: bring-up stayed parked until the reset", false);
        }
        1 => {
            // The tally does not survive a reset: a failure here ends the
            // run now instead of resetting into the next stage.
            let ok = stashed_is(
                "breadcrumb: after the reset, the stash names SENSOR, Spawning",
                &SENSOR,
                Phase::Spawning,
            );
            CALIB.provide(1);
            if ok
                && check(
                    "breadcrumb: bring-up with the gate filled",
                    SUP.start(spawner).await.is_ok(),
                )
            {
                fw::println!("stage 1: teardown waits for WEDGED's ack");
                spawner.spawn(watchdog(2).unwrap());
                let _ = SUP.teardown().await;
                check("breadcrumb: teardown stayed parked until the reset", false);
            }
        }
        _ => {
            stashed_is(
                "breadcrumb: after the reset, the stash names WEDGED, Stopping",
                &WEDGED,
                Phase::Stopping,
            );
            // Leave the stash reading as a cold boot for the next run.
            STASH.stage.store(0, Ordering::Release);
        }
    }
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
