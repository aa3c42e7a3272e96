//! The on-target suite: one representative graph built from the spec's
//! recipes, driven through every lifecycle verb on a real Cortex-M core.
//! Each check prints PASS/FAIL with its name; the exit status is 0 only if
//! every check passed.
//!
//! Slots: 0 BUS -> 1 SENSOR (Pause) -> 2 APP; 3 COORD (detached coordinator);
//! 4 EXTRA (disabled, dep BUS); 5 FAST (interrupt tier, dep BUS); 6 ONESHOT
//! (exit value, `ready` dep BUS); 7 WEDGED (OnDemand, misses its ack);
//! 8..12 POOL (elastic, dep BUS).
#![no_std]
#![no_main]

use portable_atomic::{AtomicBool, AtomicU32, Ordering};

use cortex_m::peripheral::SCB;
use cortex_m::peripheral::scb::VectActive;
use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::select;
use embassy_supervisor::{
    Aborted, ControlOp, DeferredShrink, ElasticPool, Gate, Graph, Lent, Mode, ResourceSlot,
    ShutdownTimeout, SpawnerSlot, Supervisor, TaskNode, request_control, try_request_control,
    wait_control,
};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex as Cs;
use embassy_sync::channel::Channel;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, Timer};
use fw::check::{check, finish};

// ---- resources --------------------------------------------------------------

/// Default kind (lend + restore): BUS borrows it, every exit gives it back.
static UART: ResourceSlot<u32> = ResourceSlot::new();
/// Kept by the Pause node across teardown and resume.
static CALIB: ResourceSlot<u32> = ResourceSlot::new();
/// `consume`: APP keeps it; a respawn needs a fresh one.
static KEY: ResourceSlot<u32> = ResourceSlot::new();
/// `shared`: copied into APP and ONESHOT, the slot stays filled.
static SHARED: ResourceSlot<u32> = ResourceSlot::new();
/// `exit:` slot of ONESHOT.
static ONESHOT_EXIT: ResourceSlot<Result<u32, Aborted>> = ResourceSlot::new();
/// The interrupt tier's spawner.
static HIGH_SLOT: SpawnerSlot = SpawnerSlot::new();

// ---- observations the checks read ----------------------------------------------

static SPAWNS: [AtomicU32; 8] = [const { AtomicU32::new(0) }; 8];
/// Stop order: slots in the order their instances acked a stop.
static STOP_LOG: Channel<Cs, u8, 16> = Channel::new();
static FAST_IN_IRQ: AtomicBool = AtomicBool::new(false);
static SENSOR_RESUMES: AtomicU32 = AtomicU32::new(0);
static SENSOR_KEPT: AtomicBool = AtomicBool::new(true);
static APP_KEY: AtomicU32 = AtomicU32::new(0);
static APP_SHARED: AtomicU32 = AtomicU32::new(0);
static ONESHOT_GO: Signal<Cs, u32> = Signal::new();
static UNWEDGE: Signal<Cs, ()> = Signal::new();
static COORD_GO: Signal<Cs, ()> = Signal::new();
static COORD_DONE: Signal<Cs, ()> = Signal::new();
static JOBS: Channel<Cs, u32, 8> = Channel::new();
static JOBS_DONE: AtomicU32 = AtomicU32::new(0);
static POOL_STOP: Signal<Cs, ()> = Signal::new();

fn spawned(slot: usize) {
    SPAWNS[slot].fetch_add(1, Ordering::AcqRel);
}

fn log_stop(slot: u8) {
    let _ = STOP_LOG.try_send(slot);
}

// ---- workers ---------------------------------------------------------------

#[embassy_executor::task]
async fn bus_task(node: &'static TaskNode, uart: Lent<u32>) {
    spawned(0);
    node.set_ready();
    let _uart = uart; // held until the instance ends, then restored
    if node
        .run_cancellable_acked(core::future::pending::<()>())
        .await
        .is_err()
    {
        log_stop(0);
    }
    node.mark_exited();
}

#[embassy_executor::task]
async fn sensor_task(node: &'static TaskNode, calib: Lent<u32>) {
    spawned(1);
    let first = *calib;
    loop {
        node.set_ready();
        node.wait_shutdown().await;
        log_stop(1);
        node.ack_dropped();
        node.wait_resume().await;
        SENSOR_RESUMES.fetch_add(1, Ordering::AcqRel);
        if *calib != first || CALIB.is_filled() {
            SENSOR_KEPT.store(false, Ordering::Release);
        }
    }
}

#[embassy_executor::task]
async fn app_task(node: &'static TaskNode, key: u32, shared: u32) {
    spawned(2);
    APP_KEY.store(key, Ordering::Release);
    APP_SHARED.store(shared, Ordering::Release);
    if node
        .run_cancellable_acked(core::future::pending::<()>())
        .await
        .is_err()
    {
        log_stop(2);
    }
    node.mark_exited();
}

#[embassy_executor::task]
async fn coord_task(node: &'static TaskNode, spawner: Spawner) {
    spawned(3);
    node.set_detached(true);
    coordinate(spawner).await;
    COORD_DONE.signal(());
    node.mark_exited();
}

#[embassy_executor::task]
async fn plain_task(node: &'static TaskNode, slot: u8) {
    spawned(slot as usize);
    if node
        .run_cancellable_acked(core::future::pending::<()>())
        .await
        .is_err()
    {
        log_stop(slot);
    }
    node.mark_exited();
}

#[embassy_executor::task]
async fn fast_task(node: &'static TaskNode) {
    spawned(5);
    FAST_IN_IRQ.store(
        SCB::vect_active() != VectActive::ThreadMode,
        Ordering::Release,
    );
    if node
        .run_cancellable_acked(core::future::pending::<()>())
        .await
        .is_err()
    {
        log_stop(5);
    }
    node.mark_exited();
}

#[embassy_executor::task]
async fn oneshot_task(node: &'static TaskNode, shared: u32) {
    spawned(6);
    let out = node.run_cancellable_acked(ONESHOT_GO.wait()).await;
    ONESHOT_EXIT.provide(out.map(|v| v + shared));
    node.mark_exited();
}

#[embassy_executor::task]
async fn wedged_task(node: &'static TaskNode) {
    spawned(7);
    node.wait_shutdown().await;
    // Wedged: no ack until the suite lets go, long after the 2 s deadline.
    UNWEDGE.wait().await;
    node.ack_dropped();
    node.mark_exited();
}

#[embassy_executor::task(pool_size = 4)]
async fn pool_worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(async {
            loop {
                let ms = JOBS.receive().await;
                node.mark_busy();
                Timer::after_millis(ms as u64).await;
                JOBS_DONE.fetch_add(1, Ordering::AcqRel);
                node.mark_idle();
            }
        })
        .await;
    node.mark_exited();
}

// ---- spawn glue (what supervisor_graph! will generate) ------------------------

fn spawn_bus(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let uart = UART.lend().ok_or(SpawnError::Busy)?;
    s.spawn(bus_task(&BUS, uart)?);
    Ok(())
}
fn spawn_sensor(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let calib = CALIB.lend().ok_or(SpawnError::Busy)?;
    s.spawn(sensor_task(&SENSOR, calib)?);
    Ok(())
}
fn spawn_app(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let shared = SHARED.get().ok_or(SpawnError::Busy)?;
    let key = KEY.lend().ok_or(SpawnError::Busy)?;
    // The token is built while `key` is still a Lent: a full pool drops it
    // and the value goes back to its slot.
    let token = app_task(&APP, *key, shared)?;
    let _consumed = key.into_inner();
    s.spawn(token);
    Ok(())
}
fn spawn_coord(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(coord_task(&COORD, s)?);
    Ok(())
}
fn spawn_extra(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(plain_task(&EXTRA, 4)?);
    Ok(())
}
fn spawn_fast(_: &'static TaskNode, _s: Spawner) -> Result<(), SpawnError> {
    let high = HIGH_SLOT.get().ok_or(SpawnError::Busy)?;
    high.spawn(fast_task(&FAST)?);
    Ok(())
}
fn spawn_oneshot(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let shared = SHARED.get().ok_or(SpawnError::Busy)?;
    s.spawn(oneshot_task(&ONESHOT, shared)?);
    Ok(())
}
fn spawn_wedged(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(wedged_task(&WEDGED)?);
    Ok(())
}
fn spawn_pool<const I: usize>(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(pool_worker(&POOL[I])?);
    Ok(())
}

// ---- the graph ---------------------------------------------------------------

static BUS: TaskNode = TaskNode::new("BUS", Mode::Terminate)
    .with_spawn(spawn_bus)
    .with_resources(&[&UART as &dyn Gate])
    .at(0);
static SENSOR: TaskNode = TaskNode::new("SENSOR", Mode::Pause)
    .with_spawn(spawn_sensor)
    .with_resources(&[&CALIB as &dyn Gate])
    .at(1);
static APP: TaskNode = TaskNode::new("APP", Mode::Terminate)
    .with_spawn(spawn_app)
    .with_resources(&[&SHARED as &dyn Gate, &KEY as &dyn Gate])
    .with_slot_timeout(10)
    .at(2);
static COORD: TaskNode = TaskNode::new("COORD", Mode::Terminate)
    .with_spawn(spawn_coord)
    .at(3);
static EXTRA: TaskNode = TaskNode::new("EXTRA", Mode::Terminate)
    .with_spawn(spawn_extra)
    .disabled()
    .at(4);
static FAST: TaskNode = TaskNode::new("FAST", Mode::Terminate)
    .with_spawn(spawn_fast)
    .with_resources(&[&HIGH_SLOT as &dyn Gate])
    .at(5);
static ONESHOT: TaskNode = TaskNode::new("ONESHOT", Mode::Terminate)
    .with_spawn(spawn_oneshot)
    .with_resources(&[&SHARED as &dyn Gate])
    .at(6);
static WEDGED: TaskNode = TaskNode::new("WEDGED", Mode::OnDemand)
    .with_spawn(spawn_wedged)
    .at(7);
static POOL: [TaskNode; 4] = [
    TaskNode::new("POOL0", Mode::OnDemand)
        .with_spawn(spawn_pool::<0>)
        .in_pool(0)
        .at(8),
    TaskNode::new("POOL1", Mode::OnDemand)
        .with_spawn(spawn_pool::<1>)
        .in_pool(0)
        .at(9),
    TaskNode::new("POOL2", Mode::OnDemand)
        .with_spawn(spawn_pool::<2>)
        .in_pool(0)
        .at(10),
    TaskNode::new("POOL3", Mode::OnDemand)
        .with_spawn(spawn_pool::<3>)
        .in_pool(0)
        .at(11),
];
static WORKERS: ElasticPool<DeferredShrink> = ElasticPool::new(
    &POOL,
    8,
    1,
    4,
    DeferredShrink::new(Duration::from_millis(20)),
);

const N: usize = 12;
static GRAPH: Graph<N> = Graph::new(
    [
        Some(&BUS),
        Some(&SENSOR),
        Some(&APP),
        Some(&COORD),
        Some(&EXTRA),
        Some(&FAST),
        Some(&ONESHOT),
        Some(&WEDGED),
        Some(&POOL[0]),
        Some(&POOL[1]),
        Some(&POOL[2]),
        Some(&POOL[3]),
    ],
    [
        &[],
        &[0],
        &[1],
        &[],
        &[0],
        &[0],
        &[0],
        &[],
        &[0],
        &[0],
        &[0],
        &[0],
    ],
)
.with_ready_deps([&[], &[], &[], &[], &[], &[], &[0], &[], &[], &[], &[], &[]])
.with_pools(&[&WORKERS]);
static SUP: Supervisor<N> = Supervisor::new(&GRAPH);

// ---- helpers -----------------------------------------------------------------

/// Let every ready task run (woken tasks, IRQ tier) before checking.
async fn settle() {
    Timer::after_millis(2).await;
}

fn spawns(slot: usize) -> u32 {
    SPAWNS[slot].load(Ordering::Acquire)
}

fn drain_stop_log() -> ([u8; 16], usize) {
    let mut log = [0u8; 16];
    let mut n = 0;
    while let Ok(s) = STOP_LOG.try_receive() {
        if n < log.len() {
            log[n] = s;
            n += 1;
        }
    }
    (log, n)
}

fn position(log: &[u8], slot: u8) -> Option<usize> {
    log.iter().position(|&s| s == slot)
}

fn pool_running() -> usize {
    POOL.iter().filter(|m| m.is_running()).count()
}

// ---- phase 1: driven by the detached coordinator ------------------------------

async fn coordinate(spawner: Spawner) {
    // The main task checks bring-up first; tearing down under it would race.
    COORD_GO.wait().await;
    check(
        "coordinator: detached itself",
        COORD.is_detached() && COORD.is_running(),
    );

    // teardown: dependents first; Pause parks; lent resources come home.
    let _ = drain_stop_log();
    let r = SUP.teardown().await;
    settle().await;
    check("teardown: Ok", r.is_ok());
    let (log, n) = drain_stop_log();
    let log = &log[..n];
    let (app, sensor, bus) = (position(log, 2), position(log, 1), position(log, 0));
    check(
        "teardown: reverse dependency order (APP < SENSOR < BUS)",
        matches!((app, sensor, bus), (Some(a), Some(s), Some(b)) if a < s && s < b),
    );
    check(
        "teardown: FAST (interrupt tier) stopped before BUS",
        matches!((position(log, 5), bus), (Some(f), Some(b)) if f < b),
    );
    check(
        "teardown: Terminate nodes down and exited",
        [&BUS, &APP, &FAST, &ONESHOT]
            .iter()
            .all(|n| !n.is_running() && n.has_exited()),
    );
    check(
        "teardown: Pause node parked, not exited",
        !SENSOR.is_running() && !SENSOR.has_exited() && SENSOR.shutdown_requested(),
    );
    check(
        "teardown: detached coordinator untouched",
        COORD.is_running() && !COORD.shutdown_requested(),
    );
    check(
        "resource lend: UART restored on exit",
        UART.get() == Some(0xA5),
    );
    check(
        "resource keep: CALIB still held by the parked Pause node",
        !CALIB.is_filled(),
    );
    check("resource consume: KEY slot stays empty", !KEY.is_filled());
    check(
        "resource shared: SHARED slot stays filled",
        SHARED.get() == Some(7),
    );
    check(
        "exit value: torn-down ONESHOT reports Err(Aborted)",
        ONESHOT_EXIT.take() == Some(Err(Aborted)),
    );

    // respawn_terminate without a fresh KEY: fail-closed at APP, named.
    let r = SUP.respawn_terminate(spawner).await;
    check(
        "respawn_terminate: missing consume resource is Err(Busy)",
        matches!(r, Err(SpawnError::Busy)),
    );
    check(
        "respawn_terminate: failed_node names APP",
        SUP.failed_node().is_some_and(|n| core::ptr::eq(n, &APP)),
    );
    check(
        "respawn_terminate: BUS (before APP) is up",
        BUS.is_running(),
    );
    check(
        "respawn_terminate: Pause node left parked",
        !SENSOR.is_running(),
    );

    KEY.provide(43);
    let r = SUP.respawn_terminate(spawner).await;
    settle().await;
    check("respawn_terminate: Ok after KEY re-provided", r.is_ok());
    check(
        "respawn_terminate: Terminate nodes respawned once",
        spawns(0) == 2 && spawns(2) == 2 && spawns(5) == 2 && spawns(6) == 2,
    );
    check(
        "respawn_terminate: APP got the fresh KEY",
        APP_KEY.load(Ordering::Acquire) == 43,
    );
    check(
        "respawn_terminate: FAST back on the interrupt tier",
        FAST.is_running(),
    );
    check(
        "respawn_terminate: Pause still parked",
        !SENSOR.is_running(),
    );

    SUP.resume_pausable();
    settle().await;
    check(
        "resume_pausable: SENSOR resumed in place (not respawned)",
        SENSOR.is_running() && spawns(1) == 1 && SENSOR_RESUMES.load(Ordering::Acquire) == 1,
    );
    check(
        "resume_pausable: SENSOR kept its CALIB across the cycle",
        SENSOR_KEPT.load(Ordering::Acquire) && !CALIB.is_filled(),
    );
    SUP.resume_pausable();
    settle().await;
    check(
        "resume_pausable: no-op on a running Pause node",
        SENSOR_RESUMES.load(Ordering::Acquire) == 1,
    );

    ONESHOT_GO.signal(100);
    settle().await;
    check(
        "exit value: completed ONESHOT reports Ok and has_exited",
        ONESHOT.has_exited() && !ONESHOT.is_running() && ONESHOT_EXIT.take() == Some(Ok(107)),
    );
}

// ---- phase 2: main task ---------------------------------------------------------

#[embassy_executor::task]
async fn pool_driver(spawner: Spawner) {
    let _ = select(SUP.run_pools(spawner), POOL_STOP.wait()).await;
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    UART.provide(0xA5);
    CALIB.provide(0xCA1B);
    KEY.provide(42);
    SHARED.provide(7);
    if let Some(high) = fw::exec::HIGH.start(fw::board::SPARE_IRQ) {
        HIGH_SLOT.set(high);
    }

    let r = SUP.start(spawner).await;
    settle().await;
    check("start: Ok", r.is_ok());
    check(
        "start: chain BUS -> SENSOR -> APP up",
        BUS.is_running() && SENSOR.is_running() && APP.is_running(),
    );
    check(
        "start: disabled EXTRA stays down",
        !EXTRA.is_running() && EXTRA.is_disabled(),
    );
    check(
        "start: OnDemand nodes stay down",
        !WEDGED.is_running() && pool_running() == 0,
    );
    check(
        "executor tier: FAST runs in interrupt context",
        FAST.is_running() && FAST_IN_IRQ.load(Ordering::Acquire),
    );
    check(
        "ready dep: ONESHOT up after BUS set_ready",
        ONESHOT.is_running() && BUS.is_ready(),
    );
    check(
        "resource kinds at spawn: consume KEY, shared SHARED",
        APP_KEY.load(Ordering::Acquire) == 42
            && APP_SHARED.load(Ordering::Acquire) == 7
            && !KEY.is_filled()
            && SHARED.is_filled(),
    );
    let before = [spawns(0), spawns(1), spawns(2)];
    let r = SUP.start(spawner).await;
    check(
        "start: idempotent (second start spawns nothing)",
        r.is_ok() && before == [spawns(0), spawns(1), spawns(2)],
    );

    // Phase 1 runs in the detached coordinator.
    COORD_GO.signal(());
    COORD_DONE.wait().await;

    // Control through the mailbox.
    request_control(&EXTRA, ControlOp::Activate).await;
    let cmd = wait_control().await;
    let r = SUP.apply_control(cmd, spawner).await;
    settle().await;
    check(
        "control Activate: disabled EXTRA started",
        r.is_ok() && EXTRA.is_running() && !EXTRA.is_disabled() && spawns(4) == 1,
    );
    let queued = (0..4)
        .filter(|_| try_request_control(&EXTRA, ControlOp::Deactivate).is_ok())
        .count();
    let full = try_request_control(&EXTRA, ControlOp::Deactivate);
    check(
        "control mailbox: depth 4, then ControlQueueFull",
        queued == 4 && full.is_err(),
    );
    let mut ok = true;
    for _ in 0..queued {
        let cmd = wait_control().await;
        ok &= SUP.apply_control(cmd, spawner).await.is_ok();
    }
    check(
        "control Deactivate: EXTRA down and latched",
        ok && !EXTRA.is_running() && EXTRA.is_disabled(),
    );
    let r = SUP.respawn_terminate(spawner).await;
    check(
        "respawn_terminate: a manual stop sticks",
        r.is_ok() && !EXTRA.is_running() && spawns(4) == 1,
    );

    // Elastic pool under real load.
    spawner.spawn(pool_driver(spawner).unwrap());
    settle().await;
    check("pool: grows to min 1", pool_running() == 1);
    for _ in 0..4 {
        JOBS.send(30).await;
    }
    let mut peak = 0;
    let until = Instant::now() + Duration::from_millis(25);
    while Instant::now() < until {
        peak = peak.max(pool_running());
        Timer::after_millis(1).await;
    }
    check("pool: saturated load grows it to max 4", peak == 4);
    Timer::after_millis(100).await;
    check(
        "pool: jobs done, idle surplus shrunk back to min after cooldown",
        JOBS_DONE.load(Ordering::Acquire) == 4 && pool_running() == 1,
    );
    POOL_STOP.signal(());
    settle().await;

    // Deactivate cascade from the root, activate from a leaf.
    let _ = drain_stop_log();
    let r = SUP.deactivate(&BUS).await;
    settle().await;
    let (log, n) = drain_stop_log();
    check(
        "deactivate(BUS): dependents stopped first, BUS last",
        n >= 3 && position(&log[..n], 0) == Some(n - 1),
    );
    check(
        "deactivate(BUS): every dependent down and disabled",
        r.is_ok()
            && [&BUS, &APP, &FAST, &ONESHOT, &EXTRA]
                .iter()
                .all(|n| !n.is_running() && n.is_disabled())
            && !SENSOR.is_running()
            && SENSOR.is_disabled()
            && POOL.iter().all(|m| !m.is_running() && m.is_disabled()),
    );
    check(
        "deactivate(BUS): detached coordinator not pulled in",
        !COORD.is_disabled(),
    );
    KEY.provide(44);
    SUP.activate(&APP, spawner).await;
    settle().await;
    check(
        "activate(APP): APP and its dependencies up, SENSOR resumed in place",
        APP.is_running() && SENSOR.is_running() && BUS.is_running() && spawns(1) == 1,
    );
    check(
        "activate(APP): unrelated dependents stay disabled",
        !FAST.is_running() && FAST.is_disabled() && EXTRA.is_disabled(),
    );

    // A wedged node: the missed ack is a value naming it, not a panic or hang.
    let r = SUP.start_node(&WEDGED, spawner).await;
    settle().await;
    check("start_node(WEDGED): up", r.is_ok() && WEDGED.is_running());
    let t0 = Instant::now();
    let r = SUP.stop_node(&WEDGED).await;
    let waited = t0.elapsed();
    check(
        "stop_node(WEDGED): ShutdownTimeout naming WEDGED",
        r == Err(ShutdownTimeout { node: &WEDGED }),
    );
    check(
        "stop_node(WEDGED): after the 2 s ack deadline",
        waited >= Duration::from_secs(2) && waited < Duration::from_millis(2500),
    );
    check(
        "stop_node(WEDGED): still counted running",
        WEDGED.is_running(),
    );
    UNWEDGE.signal(());
    settle().await;
    check(
        "WEDGED: late ack lands",
        !WEDGED.is_running() && WEDGED.has_exited(),
    );

    let r = SUP.teardown().await;
    check(
        "final teardown: Ok",
        r.is_ok() && !BUS.is_running() && !APP.is_running(),
    );
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
