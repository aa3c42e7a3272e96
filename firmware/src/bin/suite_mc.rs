//! The multi-core suite (mps2-an521, two Cortex-M33): core 1 runs its own
//! embassy executor and publishes its spawner into the graph's `CORE1`
//! slot; core 0's supervisor places nodes and a whole elastic pool there.
//! Each check prints PASS/FAIL; the exit status is 0 only if all passed.
//!
//! Graph: 0 BASE (core 0) -> 1 REMOTE (core 1) -> 2 TOP (core 0), so the
//! ordering guarantees cross the cores both ways; 3 TOGGLE (core 0), the
//! target of the control commands core 1 sends; 4..7 CRUNCH (an elastic pool
//! on core 1, dep BASE); with `suite-trace`, 8 SPIN0 (core 0) and 9 SPIN1
//! (core 1) spin to load both cores at once.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_futures::select::select;
use embassy_supervisor::{
    ControlOp, DeferredShrink, FaultKind, Supervisor, TaskNode, request_control,
};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex as Cs;
use embassy_sync::channel::Channel;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, Timer};
use fw::an521::cores;
use fw::check::{check, finish};
use fw::exec::core_id;
use portable_atomic::{AtomicBool, AtomicU32, Ordering};

embassy_supervisor::supervisor_graph! {
    // Filled by core 1 as it boots (see `core1_init`).
    executor CORE1;
    node BASE = Terminate, deps: [], task: base_worker;
    // The core-1 node bounds its wait for core 1 at 20 ms.
    node REMOTE = Terminate, deps: [BASE], executor: CORE1, task: remote_worker,
        slot_timeout: 20;
    node TOP = Terminate, deps: [REMOTE], task: top_worker;
    node TOGGLE = Terminate, deps: [], task: toggle_worker;
    pool CRUNCH = [OnDemand, OnDemand, OnDemand, OnDemand], deps: [BASE],
        executor: CORE1, task: crunch_worker,
        policy: DeferredShrink::new(Duration::from_millis(20)), min: 1, max: 4;
    #[cfg(feature = "suite-trace")]
    node SPIN0 = OnDemand, deps: [], task: tracing::spin0_worker;
    #[cfg(feature = "suite-trace")]
    node SPIN1 = OnDemand, deps: [], executor: CORE1, task: tracing::spin1_worker;
}

const N: usize = 10;
static SUP: Supervisor<N> = Supervisor::new(&GRAPH);

/// Core 1's whole application: publish its spawner for the graph.
fn core1_init(spawner: Spawner) {
    CORE1.set(spawner.make_send());
}

// ---- observations -------------------------------------------------------------

static SPAWNS: [AtomicU32; 4] = [const { AtomicU32::new(0) }; 4];
/// Instances of slot 1 and 2 that found their dependency (BASE, REMOTE)
/// already up when they first ran: spawned in dependency order, across cores.
static FOUND_DEP_UP: [AtomicU32; 3] = [const { AtomicU32::new(0) }; 3];
/// Slots in the order their instances saw a stop request.
static STOP_LOG: Channel<Cs, u8, 16> = Channel::new();
/// The core REMOTE's instance last ran on (99: never ran).
static REMOTE_CORE: AtomicU32 = AtomicU32::new(99);
static TOGGLE_STOPS: AtomicU32 = AtomicU32::new(0);
static JOBS: Channel<Cs, u32, 8> = Channel::new();
static JOBS_DONE: AtomicU32 = AtomicU32::new(0);
static CRUNCH_ON_CORE1: AtomicU32 = AtomicU32::new(0);
static CRUNCH_ELSEWHERE: AtomicBool = AtomicBool::new(false);
static RUN_STOP: Signal<Cs, ()> = Signal::new();
static FEEDER_DONE: Signal<Cs, u32> = Signal::new();

fn started(slot: usize, dependency: Option<&'static TaskNode>) {
    SPAWNS[slot].fetch_add(1, Ordering::AcqRel);
    if dependency.is_some_and(|d| d.is_running()) {
        FOUND_DEP_UP[slot].fetch_add(1, Ordering::AcqRel);
    }
}

/// Every instance of REMOTE found BASE up, every one of TOP found REMOTE up.
fn dependencies_first() -> bool {
    (1..3).all(|s| FOUND_DEP_UP[s].load(Ordering::Acquire) == spawns(s))
}

fn spawns(slot: usize) -> u32 {
    SPAWNS[slot].load(Ordering::Acquire)
}

fn drain(log: &Channel<Cs, u8, 16>) -> ([u8; 16], usize) {
    let mut out = [0u8; 16];
    let mut n = 0;
    while let Ok(s) = log.try_receive() {
        if n < out.len() {
            out[n] = s;
            n += 1;
        }
    }
    (out, n)
}

fn position(log: &[u8], slot: u8) -> Option<usize> {
    log.iter().position(|&s| s == slot)
}

fn before(log: &[u8], a: u8, b: u8) -> bool {
    matches!((position(log, a), position(log, b)), (Some(x), Some(y)) if x < y)
}

/// Serve until stopped; log the stop (the shell's exit mark is the ack).
async fn serve_until_stopped(node: &'static TaskNode, slot: u8) -> bool {
    let stopped = node
        .run_cancellable(core::future::pending::<()>())
        .await
        .is_err();
    if stopped {
        let _ = STOP_LOG.try_send(slot);
    }
    stopped
}

// ---- workers ------------------------------------------------------------------

async fn base_worker(node: &'static TaskNode) {
    started(0, None);
    serve_until_stopped(node, 0).await;
}

async fn remote_worker(node: &'static TaskNode) {
    REMOTE_CORE.store(core_id() as u32, Ordering::Release);
    started(1, Some(&BASE));
    serve_until_stopped(node, 1).await;
}

async fn top_worker(node: &'static TaskNode) {
    started(2, Some(&REMOTE));
    serve_until_stopped(node, 2).await;
}

async fn toggle_worker(node: &'static TaskNode) {
    SPAWNS[3].fetch_add(1, Ordering::AcqRel);
    if node
        .run_cancellable(core::future::pending::<()>())
        .await
        .is_err()
    {
        TOGGLE_STOPS.fetch_add(1, Ordering::AcqRel);
    }
}

async fn crunch_worker(node: &'static TaskNode) {
    if core_id() == 1 {
        CRUNCH_ON_CORE1.fetch_add(1, Ordering::AcqRel);
    } else {
        CRUNCH_ELSEWHERE.store(true, Ordering::Release);
    }
    let _ = node
        .run_cancellable(async {
            loop {
                let ms = JOBS.receive().await;
                node.mark_busy();
                Timer::after_millis(ms as u64).await;
                JOBS_DONE.fetch_add(1, Ordering::AcqRel);
                node.mark_idle();
            }
        })
        .await;
}

/// Control commands sent from core 1: each pair stops and restarts TOGGLE.
const PAIRS: u32 = 16;

#[embassy_executor::task]
async fn feeder() {
    for _ in 0..PAIRS {
        request_control(&TOGGLE, ControlOp::Deactivate).await;
        request_control(&TOGGLE, ControlOp::Activate).await;
    }
    FEEDER_DONE.signal(core_id() as u32);
}

#[embassy_executor::task]
async fn run_driver(spawner: Spawner) {
    let _ = select(SUP.run(spawner), RUN_STOP.wait()).await;
}

fn crunch_running() -> usize {
    CRUNCH.iter().filter(|m| m.is_running()).count()
}

async fn settle() {
    Timer::after_millis(2).await;
}

/// Wait up to `ms` milliseconds for `cond`.
async fn within(ms: u64, cond: impl Fn() -> bool) -> bool {
    let until = Instant::now() + Duration::from_millis(ms);
    while !cond() {
        if Instant::now() >= until {
            return false;
        }
        Timer::after_millis(1).await;
    }
    true
}

// ---- the checks -----------------------------------------------------------------

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    check("boot: core 0 runs main", core_id() == 0);
    check(
        "boot: core 1 held in CPUWAIT at reset",
        cores::core1_waiting(),
    );

    // Core 1 never publishes (it is still held at reset): REMOTE's bring-up
    // gives up at its slot timeout, and nothing of it is half-started.
    let t0 = Instant::now();
    let r = SUP.start(spawner).await;
    let waited = t0.elapsed();
    fw::println!(
        "  start() without core 1 returned after {} us",
        waited.as_micros()
    );
    check(
        "start without core 1: ExecutorUnpublished at REMOTE's 20 ms slot timeout",
        r.is_err_and(|f| f.kind == FaultKind::ExecutorUnpublished { gate: 0 })
            && SUP.failed_node().is_some_and(|n| core::ptr::eq(n, &REMOTE))
            && waited >= Duration::from_millis(20)
            && waited < Duration::from_millis(25)
            && CORE1.get().is_none()
            && cores::core1_waiting(),
    );
    check(
        "start without core 1: REMOTE not running, never spawned; TOP not started",
        !REMOTE.is_running() && spawns(1) == 0 && !TOP.is_running() && spawns(2) == 0,
    );
    check(
        "start without core 1: BASE (before REMOTE) is up on core 0",
        BASE.is_running() && spawns(0) == 1,
    );

    // start() first, core 1 released 5 ms later: the bring-up waits for the
    // slot, then routes REMOTE to core 1.
    let t0 = Instant::now();
    let (r, released) = join(SUP.start(spawner), async {
        Timer::after_millis(5).await;
        cores::start_core1(core1_init)
    })
    .await;
    let waited = t0.elapsed();
    settle().await;
    check(
        "start before core 1 published: waits for the slot, then Ok",
        r.is_ok() && released && CORE1.get().is_some() && waited >= Duration::from_millis(5),
    );
    check(
        "start before core 1 published: REMOTE routed to core 1, TOP up after it",
        REMOTE.is_running()
            && REMOTE_CORE.load(Ordering::Acquire) == 1
            && spawns(1) == 1
            && TOP.is_running()
            && spawns(2) == 1,
    );
    check("start: BASE not restarted", spawns(0) == 1);
    check(
        "start: REMOTE (core 1) found BASE up, TOP (core 0) found REMOTE up",
        dependencies_first(),
    );

    let Some(core1) = CORE1.get() else {
        check("core 1's spawner published", false);
        finish()
    };

    // A pool on core 1, scaled by core 0's run() under load sent from core 0.
    spawner.spawn(run_driver(spawner).unwrap());
    let grew_to_min = within(20, || crunch_running() == 1).await;
    check(
        "pool on core 1: run() on core 0 grows it to min 1",
        grew_to_min,
    );
    for _ in 0..4 {
        JOBS.send(30).await;
    }
    let mut peak = 0;
    let until = Instant::now() + Duration::from_millis(25);
    while Instant::now() < until {
        peak = peak.max(crunch_running());
        Timer::after_millis(1).await;
    }
    check(
        "pool on core 1: saturated load grows it to max 4",
        peak == 4,
    );
    Timer::after_millis(100).await;
    if !check(
        "pool on core 1: jobs done, idle surplus shrunk back to min after cooldown",
        JOBS_DONE.load(Ordering::Acquire) == 4 && crunch_running() == 1,
    ) {
        fw::println!(
            "  {} jobs done, {} members running",
            JOBS_DONE.load(Ordering::Acquire),
            crunch_running()
        );
    }
    check(
        "pool on core 1: every member ran on core 1",
        CRUNCH_ON_CORE1.load(Ordering::Acquire) >= 4 && !CRUNCH_ELSEWHERE.load(Ordering::Acquire),
    );

    // The control mailbox fed from core 1 (it waits while the mailbox is
    // full), applied on core 0 by run(): every command takes effect.
    core1.spawn(feeder().unwrap());
    let fed_from = FEEDER_DONE.wait().await;
    let applied = within(100, || {
        spawns(3) == 1 + PAIRS && TOGGLE_STOPS.load(Ordering::Acquire) == PAIRS
    })
    .await;
    if !check(
        "control mailbox fed from core 1: every command applied on core 0, none lost",
        fed_from == 1 && applied && TOGGLE.is_running() && !TOGGLE.is_disabled(),
    ) {
        fw::println!(
            "  fed from core {}, TOGGLE spawned {} and stopped {} times (want {} and {})",
            fed_from,
            spawns(3),
            TOGGLE_STOPS.load(Ordering::Acquire),
            1 + PAIRS,
            PAIRS
        );
    }
    RUN_STOP.signal(());
    settle().await;

    // Teardown and respawn across the cores keep the dependency order.
    let _ = drain(&STOP_LOG);
    let r = SUP.teardown().await;
    settle().await;
    let (down, n) = drain(&STOP_LOG);
    let down = &down[..n];
    check(
        "teardown: TOP (core 0) < REMOTE (core 1) < BASE (core 0)",
        r.is_ok() && before(down, 2, 1) && before(down, 1, 0),
    );
    check(
        "teardown: everything down, the pool on core 1 included",
        [&BASE, &REMOTE, &TOP, &TOGGLE]
            .iter()
            .all(|n| !n.is_running() && n.has_exited())
            && crunch_running() == 0,
    );
    let r = SUP.respawn_terminate(spawner).await;
    settle().await;
    check(
        "respawn_terminate: dependencies first across the cores, REMOTE back on core 1",
        r.is_ok()
            && dependencies_first()
            && spawns(0) == 2
            && spawns(2) == 2
            && REMOTE.is_running()
            && spawns(1) == 2
            && REMOTE_CORE.load(Ordering::Acquire) == 1,
    );

    #[cfg(feature = "suite-trace")]
    tracing::phase(spawner).await;

    let r = SUP.teardown().await;
    check("final teardown: Ok", r.is_ok() && !REMOTE.is_running());
    finish()
}

/// Feature `suite-trace`: both cores poll at once; per-node CPU accounting
/// stays per core. With `trace-nested` this also shows why
/// `trace::set_core_id_fn` is needed on two cores.
#[cfg(feature = "suite-trace")]
mod tracing {
    use super::*;
    use embassy_supervisor::trace;

    const SPIN: Duration = Duration::from_millis(3);
    static GO0: Signal<Cs, ()> = Signal::new();
    static DONE0: Signal<Cs, u32> = Signal::new();
    static SPIN1_ON: AtomicBool = AtomicBool::new(false);
    /// The trace index of each core's executor, as SPIN0 and SPIN1 found it
    /// (99: unknown).
    static CORE0_EXECUTOR: AtomicU32 = AtomicU32::new(99);
    static CORE1_EXECUTOR: AtomicU32 = AtomicU32::new(99);
    /// Core 1's figures, sampled by SPIN1 on request: from inside one of
    /// core 1's polls, every earlier poll there is fully accounted and no
    /// other is in flight, so the sample is consistent even while core 0
    /// runs. (Core 0 samples its own figures the same way, from its task.)
    static WANT_SAMPLE1: AtomicBool = AtomicBool::new(false);
    static SAMPLE1: Signal<Cs, (u32, u32, u32)> = Signal::new();

    fn on_core0() -> [&'static TaskNode; 4] {
        [&BASE, &TOP, &TOGGLE, &SPIN0]
    }

    fn on_core1() -> [&'static TaskNode; 6] {
        [
            &REMOTE, &SPIN1, &CRUNCH[0], &CRUNCH[1], &CRUNCH[2], &CRUNCH[3],
        ]
    }

    /// Core 0: on each GO, one poll that spins for `SPIN`; reports the spin
    /// it measured inside that poll.
    pub async fn spin0_worker(node: &'static TaskNode) {
        if let Some(i) = own_executor(node) {
            CORE0_EXECUTOR.store(i as u32, Ordering::Release);
        }
        let _ = node
            .run_cancellable(async {
                loop {
                    GO0.wait().await;
                    let t0 = Instant::now();
                    while t0.elapsed() < SPIN {}
                    DONE0.signal(t0.elapsed().as_ticks() as u32);
                }
            })
            .await;
    }

    /// Core 1: while switched on, polls of 100 µs each, back to back.
    pub async fn spin1_worker(node: &'static TaskNode) {
        if let Some(i) = own_executor(node) {
            CORE1_EXECUTOR.store(i as u32, Ordering::Release);
        }
        let _ = node
            .run_cancellable(async {
                loop {
                    if WANT_SAMPLE1.swap(false, Ordering::AcqRel) {
                        let core1 = CORE1_EXECUTOR.load(Ordering::Acquire) as usize;
                        SAMPLE1.signal(sample(core1, &on_core1()));
                    }
                    if SPIN1_ON.load(Ordering::Acquire) {
                        let t = Instant::now();
                        while t.elapsed() < Duration::from_micros(100) {}
                    }
                    // Yield either way; idle, wait a millisecond between looks.
                    if SPIN1_ON.load(Ordering::Acquire) {
                        embassy_futures::yield_now().await;
                    } else {
                        Timer::after_millis(1).await;
                    }
                }
            })
            .await;
    }

    /// One core's figures over a round: its nodes' ticks summed, and its
    /// executor's supervised and in-poll ticks.
    struct Core {
        nodes: u32,
        supervised: u32,
        in_poll: u32,
    }

    fn sample(executor: usize, nodes: &[&'static TaskNode]) -> (u32, u32, u32) {
        let sum = nodes
            .iter()
            .fold(0u32, |s, n| s.wrapping_add(n.trace_stats().exec_ticks));
        let e = trace::executor_stats(executor);
        let (sup, in_poll) = e.map_or((0, 0), |e| (e.supervised_ticks, e.in_poll_ticks));
        (sum, sup, in_poll)
    }

    fn delta(a: (u32, u32, u32), b: (u32, u32, u32)) -> Core {
        Core {
            nodes: b.0.wrapping_sub(a.0),
            supervised: b.1.wrapping_sub(a.1),
            in_poll: b.2.wrapping_sub(a.2),
        }
    }

    /// One round: core 0 spins `SPIN` in one poll while core 1 polls SPIN1
    /// back to back. Returns the spin SPIN0 measured inside its poll, the
    /// ticks the recorders gave SPIN0, and each core's figures, all over
    /// the round.
    async fn round(core0: usize) -> (u32, u32, Core, Core) {
        let sample1 = || async {
            WANT_SAMPLE1.store(true, Ordering::Release);
            SAMPLE1.wait().await
        };
        SPIN1_ON.store(true, Ordering::Release);
        Timer::after_millis(2).await;
        let a1 = sample1().await;
        let (a0, s0) = (sample(core0, &on_core0()), SPIN0.trace_stats());
        GO0.signal(());
        let spin = DONE0.wait().await;
        let (b0, s1) = (sample(core0, &on_core0()), SPIN0.trace_stats());
        let b1 = sample1().await;
        SPIN1_ON.store(false, Ordering::Release);
        Timer::after_millis(3).await;
        (
            spin,
            s1.exec_ticks.wrapping_sub(s0.exec_ticks),
            delta(a0, b0),
            delta(a1, b1),
        )
    }

    /// The trace index of the executor polling the calling node's task.
    fn own_executor(node: &'static TaskNode) -> Option<usize> {
        let me = node.task_id();
        (0..trace::MAX_EXECUTORS)
            .find(|&i| trace::current_task(i).is_some_and(|f| Some(f.task_id) == me))
    }

    pub async fn phase(spawner: Spawner) {
        let ok = SUP.start_node(&SPIN0, spawner).await.is_ok()
            && SUP.start_node(&SPIN1, spawner).await.is_ok();
        settle().await;
        let core0 = CORE0_EXECUTOR.load(Ordering::Acquire) as usize;
        let core1 = CORE1_EXECUTOR.load(Ordering::Acquire) as usize;
        check(
            "trace: SPIN0 and SPIN1 polled on two executors (each core's own)",
            ok && core0 < trace::MAX_EXECUTORS && core1 < trace::MAX_EXECUTORS && core0 != core1,
        );

        #[cfg(feature = "suite-trace-nested")]
        {
            // Without a core id, every poll counts as core 0's: core 1's polls
            // that end inside SPIN0's spin are credited back from it, as if
            // they had preempted it.
            let (spin, spin0, ..) = round(core0).await;
            fw::println!("  SPIN0 spun {} ticks, recorded {}", spin, spin0);
            check(
                "trace-nested without set_core_id_fn: core 1's polls wrongly credited back from core 0's poll",
                spin0 < spin,
            );
            check(
                "trace-nested: set_core_id_fn registers the core id",
                trace::set_core_id_fn(core_id).is_ok(),
            );
        }

        let (spin, spin0, c0, c1) = round(core0).await;
        fw::println!(
            "  SPIN0 spun {} ticks, recorded {}; core 1: nodes {}, in-poll {}",
            spin,
            spin0,
            c1.nodes,
            c1.in_poll
        );
        check(
            "trace, both cores polling: core 0's spinning poll keeps its whole spin",
            spin0 >= spin,
        );
        check(
            "trace, both cores polling: core 1's nodes add up to its executor's in-poll time \
             (no other task ran there)",
            c1.nodes > 0 && c1.nodes == c1.supervised && c1.supervised == c1.in_poll,
        );
        check(
            "trace, both cores polling: core 0's nodes add up to its supervised time, \
             the rest of its in-poll time is its unsupervised tasks",
            c0.nodes >= spin0 && c0.nodes == c0.supervised && c0.supervised <= c0.in_poll,
        );
        check(
            "trace: nothing untracked",
            trace::untracked() == 0 && trace::untracked_executors() == 0,
        );
        let _ = SUP.stop_node(&SPIN1).await;
        let _ = SUP.stop_node(&SPIN0).await;
    }
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
