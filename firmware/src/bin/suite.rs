//! The on-target suite: one representative graph built from the spec's
//! recipes, driven through every lifecycle verb on a real Cortex-M core.
//! Each check prints PASS/FAIL with its name; the exit status is 0 only if
//! every check passed.
//!
//! The graph is declared with `supervisor_graph!`. Slots: 0 BUS -> 1 SENSOR
//! (Pause) -> 2 APP; 3 COORD (detached coordinator); 4 EXTRA (disabled, dep
//! BUS); 5 FAST (`executor HIGH`: the interrupt tier, dep BUS); 6 ONESHOT
//! (`exit:` value, `ready` dep BUS); 7 WEDGED (OnDemand, misses its ack);
//! 8..11 POOL (elastic, dep BUS); 12 HOG (feature `suite-trace` only: one
//! poll that hogs the thread executor, for stall detection).
//!
//! A second graph, `JOB_GRAPH`, holds the controller's targets and runs
//! under its own `Supervisor::run` after the first graph's checks.
#![no_std]
#![no_main]

use portable_atomic::{AtomicBool, AtomicU32, Ordering};

use cortex_m::peripheral::SCB;
use cortex_m::peripheral::scb::VectActive;
use cortex_m_rt::entry;
use embassy_executor::Spawner;
use embassy_futures::join::{join, join3, join4};
use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::{
    Controller, ControllerSpec, JobTarget, RejectKind, SlotStatusKind, TaskOutcome,
};
use embassy_supervisor::{
    Aborted, ControlOp, DeferredShrink, FaultKind, NodeFault, Supervisor, TaskNode,
    request_control, try_request_control, wait_control,
};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex as Cs;
use embassy_sync::channel::Channel;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, Timer};
use fw::check::{check, finish};

// ---- the graph ---------------------------------------------------------------

// Declared with the DSL, as an application would: the macro emits the node
// statics, the resource and exit slots, the `HIGH` spawner slot, the task
// shells and `GRAPH`. Slots follow declaration order (see the header).
embassy_supervisor::supervisor_graph! {
    executor HIGH;
    // lend (default kind): BUS borrows UART, every exit gives it back.
    node BUS = Terminate, deps: [], task: bus_worker, resources: [UART: u32];
    // lend, kept by the Pause node across teardown and resume.
    node SENSOR = Pause, deps: [BUS], task: sensor_worker, resources: [CALIB: u32];
    // shared: copied, the slot stays filled; consume: APP keeps KEY, so a
    // respawn needs a fresh one (the 10 ms slot timeout bounds that wait).
    node APP = Terminate, deps: [SENSOR], task: app_worker,
        resources: [SHARED: shared u32, KEY: consume u32], slot_timeout: 10;
    // Parked (no `task:`): main spawns it with the Spawner its verbs need.
    node COORD = Terminate, deps: [];
    node EXTRA = Terminate, deps: [BUS], task: plain_worker(4), disabled;
    node FAST = Terminate, deps: [BUS], executor: HIGH, task: fast_worker;
    node ONESHOT = Terminate, deps: [BUS ready], task: oneshot_worker,
        resources: [SHARED: shared u32], exit: Result<u32, Aborted>;
    node WEDGED = OnDemand, deps: [], task: wedged_worker;
    pool POOL = [OnDemand, OnDemand, OnDemand, OnDemand], deps: [BUS], task: pool_worker,
        policy: DeferredShrink::new(Duration::from_millis(20)), min: 1, max: 4;
    // Trace build only: one poll that hogs the thread executor.
    #[cfg(feature = "suite-trace")]
    node HOG = OnDemand, deps: [], task: tracing::hog_worker;
}

const N: usize = 13;
static SUP: Supervisor<N> = Supervisor::new(&GRAPH);

// ---- observations the checks read ----------------------------------------------

static SPAWNS: [AtomicU32; 8] = [const { AtomicU32::new(0) }; 8];
/// Stop order: slots in the order their instances saw a stop request.
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

// ---- workers (the shells lend/restore resources and mark the exit) ------------

/// Serve until stopped; log the stop. The shell's `mark_exited` is the ack,
/// so a lent resource is back in its slot before the supervisor moves on.
async fn serve_until_stopped(node: &'static TaskNode, slot: u8) {
    if node
        .run_cancellable(core::future::pending::<()>())
        .await
        .is_err()
    {
        log_stop(slot);
    }
}

async fn bus_worker(node: &'static TaskNode, _uart: &mut u32) {
    spawned(0);
    node.set_ready();
    serve_until_stopped(node, 0).await;
}

async fn sensor_worker(node: &'static TaskNode, calib: &mut u32) {
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

async fn app_worker(node: &'static TaskNode, shared: u32, key: u32) {
    spawned(2);
    APP_KEY.store(key, Ordering::Release);
    APP_SHARED.store(shared, Ordering::Release);
    serve_until_stopped(node, 2).await;
}

#[embassy_executor::task]
async fn coord_task(node: &'static TaskNode, spawner: Spawner) {
    spawned(3);
    node.set_detached(true);
    coordinate(spawner).await;
    COORD_DONE.signal(());
    node.mark_exited();
}

async fn plain_worker(node: &'static TaskNode, slot: u8) {
    spawned(slot as usize);
    serve_until_stopped(node, slot).await;
}

async fn fast_worker(node: &'static TaskNode) {
    spawned(5);
    FAST_IN_IRQ.store(
        SCB::vect_active() != VectActive::ThreadMode,
        Ordering::Release,
    );
    serve_until_stopped(node, 5).await;
}

async fn oneshot_worker(node: &'static TaskNode, shared: u32) -> Result<u32, Aborted> {
    spawned(6);
    let out = node.run_cancellable(ONESHOT_GO.wait()).await;
    out.map(|v| v + shared)
}

async fn wedged_worker(node: &'static TaskNode) {
    spawned(7);
    node.wait_shutdown().await;
    // Wedged: no ack until the suite lets go, long after the 2 s deadline
    // (the shell's `mark_exited` is the late ack).
    UNWEDGE.wait().await;
}

async fn pool_worker(node: &'static TaskNode) {
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

// ---- the controller's graph ---------------------------------------------------

embassy_supervisor::supervisor_graph! {
    name: JOB_GRAPH;
    // The controller fills JOB_IN (its inbox) right before each spawn.
    node JOB = OnDemand, deps: [], task: job_worker, resources: [JOB_IN: consume u32];
    // Also needs a PERMIT: without one its bring-up times out (a `Failed` job).
    node GATED = OnDemand, deps: [], task: gated_worker,
        resources: [GATED_IN: consume u32, PERMIT: consume u32], slot_timeout: 10;
}

/// `u32` payloads, 2 slots, 2 queued per slot, 4 in the intake, 8 watched.
static CTRL: Controller<u32, 2, 2, 4, 8> = Controller::new();
static JSUP: Supervisor<2> = Supervisor::new(&JOB_GRAPH).with_controller(&CTRL);
static T_JOB: JobTarget<u32> = JobTarget::node_with_inbox(&JOB, &JOB_IN);
static T_GATED: JobTarget<u32> = JobTarget::node_with_inbox(&GATED, &GATED_IN);

/// Payloads in the order workers received them.
static JOB_LOG: Channel<Cs, u32, 16> = Channel::new();
/// Lets the running job finish (Completed).
static JOB_GO: Signal<Cs, ()> = Signal::new();
static JSUP_STOP: Signal<Cs, ()> = Signal::new();
static JSUP_RETURNED: AtomicBool = AtomicBool::new(false);

async fn job_worker(node: &'static TaskNode, job: u32) {
    let _ = JOB_LOG.try_send(job);
    // A stop (Replace, teardown) ends the job early: the watcher sees Canceled.
    let _ = node.run_cancellable(JOB_GO.wait()).await;
}

async fn gated_worker(node: &'static TaskNode, job: u32, _permit: u32) {
    job_worker(node, job).await
}

#[embassy_executor::task]
async fn job_supervisor(spawner: Spawner) {
    if let Either::First(_) = select(JSUP.run(spawner), JSUP_STOP.wait()).await {
        JSUP_RETURNED.store(true, Ordering::Release);
    }
}

fn job_log() -> ([u32; 16], usize) {
    let mut log = [0u32; 16];
    let mut n = 0;
    while let Ok(j) = JOB_LOG.try_receive() {
        if n < log.len() {
            log[n] = j;
            n += 1;
        }
    }
    (log, n)
}

fn job_log_is(want: &[u32]) -> bool {
    let (log, n) = job_log();
    &log[..n] == want
}

fn slot_status(key: &'static str) -> Option<SlotStatusKind> {
    CTRL.snapshot().get(key).map(|v| v.status)
}

fn slot_queued(key: &'static str) -> usize {
    CTRL.snapshot().get(key).map_or(0, |v| v.queued)
}

const REJECTED_BUSY: TaskOutcome = TaskOutcome::Rejected {
    kind: RejectKind::SlotBusy,
};

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
        "respawn_terminate: missing consume resource names APP's slot 1 (KEY)",
        r == Err(NodeFault::new(&APP, FaultKind::ResourceEmpty { gate: 1 })),
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

// ---- phase 3: the controller -----------------------------------------------------

async fn controller_phase(spawner: Spawner) {
    spawner.spawn(job_supervisor(spawner).unwrap());
    settle().await;
    check(
        "controller: OnDemand targets stay down under run()",
        !JOB.is_running() && !GATED.is_running() && slot_status("JOB").is_none(),
    );

    // Queue: FIFO, one job at a time, each payload reaches its worker.
    let mut during = false;
    let (a, b, c, ()) = join4(
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 1)),
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 2)),
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 3)),
        async {
            settle().await;
            during = JOB.is_running()
                && slot_status("JOB") == Some(SlotStatusKind::Running)
                && slot_queued("JOB") == 2;
            for _ in 0..3 {
                JOB_GO.signal(());
                settle().await;
            }
        },
    )
    .await;
    check(
        "controller Queue: first job runs, the other two wait in the slot",
        during,
    );
    check(
        "controller Queue: payloads delivered in FIFO order",
        job_log_is(&[1, 2, 3]),
    );
    check(
        "controller Queue: every watcher sees Completed",
        [a, b, c].iter().all(|o| *o == TaskOutcome::Completed),
    );
    check(
        "controller: slot Idle and target down after the queue drains",
        slot_status("JOB") == Some(SlotStatusKind::Idle)
            && !JOB.is_running()
            && !JOB_IN.is_filled(),
    );

    // DropIfRunning: rejected at once on a busy slot, nothing started.
    let (first, (dropped, still_one)) = join(
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 10)),
        async {
            settle().await;
            let r = CTRL
                .submit_and_watch(ControllerSpec::drop_if_running(&T_JOB, 11))
                .await;
            settle().await;
            let still_one = JOB.is_running() && slot_queued("JOB") == 0;
            JOB_GO.signal(());
            settle().await;
            (r, still_one)
        },
    )
    .await;
    check(
        "controller DropIfRunning: Rejected { SlotBusy } on a busy slot",
        dropped == REJECTED_BUSY && still_one,
    );
    check(
        "controller DropIfRunning: the rejected payload never ran",
        first == TaskOutcome::Completed && job_log_is(&[10]),
    );

    // Queue depth 2: a third waiting job is rejected QueueFull.
    let (x, y, z, (full, ())) = join4(
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 20)),
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 21)),
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 22)),
        async {
            settle().await;
            let r = CTRL
                .submit_and_watch(ControllerSpec::queue(&T_JOB, 23))
                .await;
            for _ in 0..3 {
                JOB_GO.signal(());
                settle().await;
            }
            (r, ())
        },
    )
    .await;
    check(
        "controller Queue: a full queue rejects QueueFull",
        full == TaskOutcome::Rejected {
            kind: RejectKind::QueueFull,
        } && [x, y, z].iter().all(|o| *o == TaskOutcome::Completed)
            && job_log_is(&[20, 21, 22]),
    );

    // Replace: the queued head is superseded, the running owner is stopped,
    // the newest job starts once the owner is down.
    let (running, queued, (newest, replaced_ok)) = join3(
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 30)),
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 31)),
        async {
            settle().await;
            let (r, ok) = join(
                CTRL.submit_and_watch(ControllerSpec::replace(&T_JOB, 32)),
                async {
                    settle().await;
                    let ok = JOB.is_running()
                        && slot_status("JOB") == Some(SlotStatusKind::Running)
                        && slot_queued("JOB") == 0;
                    JOB_GO.signal(());
                    settle().await;
                    ok
                },
            )
            .await;
            (r, ok)
        },
    )
    .await;
    check(
        "controller Replace: running owner Canceled",
        running == TaskOutcome::Canceled,
    );
    check(
        "controller Replace: queued head Rejected { SupersededByReplace }",
        queued
            == TaskOutcome::Rejected {
                kind: RejectKind::SupersededByReplace,
            },
    );
    check(
        "controller Replace: newest job started after the owner went down, Completed",
        replaced_ok && newest == TaskOutcome::Completed && job_log_is(&[30, 32]),
    );

    // A target that cannot come up (its PERMIT is missing): Failed, and the
    // payload does not stay in the inbox for a later spawn.
    let failed = CTRL
        .submit_and_watch(ControllerSpec::queue(&T_GATED, 40))
        .await;
    check(
        "controller: a spawn that fails resolves Failed, inbox emptied",
        failed == TaskOutcome::Failed
            && !GATED.is_running()
            && !GATED_IN.is_filled()
            && job_log_is(&[]),
    );
    PERMIT.provide(1);
    let (ok, ()) = join(
        CTRL.submit_and_watch(ControllerSpec::queue(&T_GATED, 41)),
        async {
            settle().await;
            JOB_GO.signal(());
            settle().await;
        },
    )
    .await;
    check(
        "controller: with its permit the same target runs the job, Completed",
        ok == TaskOutcome::Completed && job_log_is(&[41]) && !PERMIT.is_filled(),
    );

    // Teardown resolves everything: the running job Canceled, the queued
    // one Rejected { ShuttingDown }; the controller reopens afterwards.
    let (cancelled, shut, torn) = join3(
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 50)),
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 51)),
        async {
            settle().await;
            JSUP.teardown().await
        },
    )
    .await;
    check(
        "controller teardown: running job Canceled, queued Rejected { ShuttingDown }",
        torn.is_ok()
            && cancelled == TaskOutcome::Canceled
            && shut
                == TaskOutcome::Rejected {
                    kind: RejectKind::ShuttingDown,
                }
            && job_log_is(&[50])
            && !JOB.is_running(),
    );
    // A torn-down graph is halted: a new job waits in its slot until the
    // graph is started again, then runs.
    let (again, (held, restarted)) = join(
        CTRL.submit_and_watch(ControllerSpec::queue(&T_JOB, 60)),
        async {
            settle().await;
            let held = !JOB.is_running()
                && slot_status("JOB") == Some(SlotStatusKind::Admitting)
                && job_log_is(&[]);
            let restarted = JSUP.start(spawner).await.is_ok();
            settle().await;
            JOB_GO.signal(());
            settle().await;
            (held, restarted)
        },
    )
    .await;
    check(
        "controller: after teardown a job waits in its slot (Admitting), nothing spawned",
        held,
    );
    check(
        "controller: start() resumes admission, the waiting job runs, Completed",
        restarted && again == TaskOutcome::Completed && job_log_is(&[60]),
    );
    check(
        "controller: Supervisor::run still driving (no error)",
        !JSUP_RETURNED.load(Ordering::Acquire),
    );
    JSUP_STOP.signal(());
    settle().await;
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
    // The graph's `executor HIGH;` slot, filled by the board's interrupt
    // executor: FAST's bring-up waits for it.
    if let Some(high) = fw::exec::HIGH.start(fw::board::SPARE_IRQ) {
        HIGH.set(high);
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
    // On the two-core an521, core 1 now joins in and keeps taking the
    // shared critical section and clock for the rest of the run.
    #[cfg(feature = "an521")]
    core1_load::start();
    let before = [spawns(0), spawns(1), spawns(2)];
    let r = SUP.start(spawner).await;
    check(
        "start: idempotent (second start spawns nothing)",
        r.is_ok() && before == [spawns(0), spawns(1), spawns(2)],
    );

    // Phase 1 runs in the detached coordinator, spawned by hand as the
    // spec's power-coordinator recipe does (`adopt` registers the instance).
    let coord = coord_task(&COORD, spawner).unwrap();
    COORD.adopt(&coord);
    spawner.spawn(coord);
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
        "deactivate(BUS): BUS latched, every dependent down and held",
        r.is_ok()
            && !BUS.is_running()
            && BUS.is_disabled()
            && [&APP, &FAST, &ONESHOT, &EXTRA, &SENSOR]
                .iter()
                .all(|n| !n.is_running() && n.is_held())
            && POOL.iter().all(|m| !m.is_running() && m.is_held()),
    );
    check(
        "deactivate(BUS): detached coordinator not pulled in",
        !COORD.is_disabled(),
    );
    KEY.provide(44);
    let r = SUP.activate(&APP, spawner).await;
    settle().await;
    check(
        "activate(APP): Ok, APP and its dependencies up, SENSOR resumed in place",
        r.is_ok() && APP.is_running() && SENSOR.is_running() && BUS.is_running() && spawns(1) == 1,
    );
    check(
        "activate(APP): BUS is back, so its held dependents are released",
        FAST.is_running() && !FAST.is_held() && POOL.iter().all(|m| !m.is_held()),
    );
    check(
        "activate(APP): EXTRA keeps its own latch",
        !EXTRA.is_running() && EXTRA.is_disabled() && !EXTRA.is_held(),
    );

    // A wedged node: the missed ack is a value naming it, not a panic or hang.
    let r = SUP.start_node(&WEDGED, spawner).await;
    settle().await;
    check("start_node(WEDGED): up", r.is_ok() && WEDGED.is_running());
    let t0 = Instant::now();
    let r = SUP.stop_node(&WEDGED).await;
    let waited = t0.elapsed();
    check(
        "stop_node(WEDGED): an AckMissed fault naming WEDGED",
        r == Err(NodeFault::new(&WEDGED, FaultKind::AckMissed)),
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

    #[cfg(feature = "suite-trace")]
    tracing::phase(spawner).await;

    let r = SUP.teardown().await;
    check(
        "final teardown: Ok",
        r.is_ok() && !BUS.is_running() && !APP.is_running(),
    );

    controller_phase(spawner).await;
    #[cfg(feature = "an521")]
    check(
        "an521: core 1 kept working alongside every check",
        core1_load::beats() >= 100,
    );
    finish()
}

/// Feature `an521`: core 1 runs its own executor with one task that, every
/// half millisecond, holds the critical section (the one both cores share)
/// for 20 µs, reading the shared clock: the checks above run with the other
/// core contending for everything they share.
#[cfg(feature = "an521")]
mod core1_load {
    use super::*;

    static BEATS: AtomicU32 = AtomicU32::new(0);

    #[embassy_executor::task]
    async fn heartbeat() {
        loop {
            Timer::after_micros(500).await;
            critical_section::with(|_| {
                let t = Instant::now();
                while t.elapsed() < Duration::from_micros(20) {}
            });
            BEATS.add(1, Ordering::AcqRel);
        }
    }

    pub fn start() {
        fw::an521::cores::start_core1(|s| s.spawn(heartbeat().unwrap()));
    }

    pub fn beats() -> u32 {
        BEATS.load(Ordering::Acquire)
    }
}

/// Feature `suite-trace`: the trace recorders on a real core, fed by the
/// `_embassy_trace_*` hooks the unnamed graph defines (`trace-hooks`).
#[cfg(feature = "suite-trace")]
mod tracing {
    use super::*;
    use embassy_supervisor::trace;

    /// HOG's spin, in ticks, measured inside its one long poll.
    static SPIN_TICKS: AtomicU32 = AtomicU32::new(0);
    static HOG_DONE: Signal<Cs, ()> = Signal::new();
    /// What the interrupt-tier watchdog saw: a stalled poll of HOG's, and
    /// how many of its own polls ran while it watched.
    static STALL_WAS_HOG: AtomicBool = AtomicBool::new(false);
    static WATCHES: AtomicU32 = AtomicU32::new(0);
    /// HOG's task read its own name from its embassy `Metadata`.
    static NAMED_HOG: AtomicBool = AtomicBool::new(false);

    const SPIN: Duration = Duration::from_millis(2);
    const STALL: Duration = Duration::from_micros(500);

    pub async fn hog_worker(node: &'static TaskNode) {
        let name = embassy_executor::Metadata::for_current_task().await.name();
        NAMED_HOG.store(name == Some("HOG"), Ordering::Release);
        let t0 = Instant::now();
        while t0.elapsed() < SPIN {}
        SPIN_TICKS.store(t0.elapsed().as_ticks() as u32, Ordering::Release);
        HOG_DONE.signal(());
        serve_until_stopped(node, 12).await;
    }

    /// On the interrupt tier: every 100 µs, look for a poll on any executor
    /// that has run longer than `STALL`, until HOG is done.
    #[embassy_executor::task]
    async fn watchdog() {
        let threshold = STALL.as_ticks() as u32;
        while !HOG_DONE.signaled() && WATCHES.load(Ordering::Acquire) < 1000 {
            Timer::after_micros(100).await;
            WATCHES.add(1, Ordering::AcqRel);
            // Long enough to span ticks at every board's tick rate (1 MHz on
            // the an385), so the nested time it leaves is measurable.
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(20) {}
            if let Some(stalled) =
                (0..trace::MAX_EXECUTORS).find_map(|i| trace::stalled_task(i, threshold))
                && stalled.node.is_some_and(|n| core::ptr::eq(n, &HOG))
            {
                STALL_WAS_HOG.store(true, Ordering::Release);
            }
        }
    }

    fn named(n: &'static TaskNode) -> bool {
        n.task_id()
            .and_then(trace::node_of)
            .is_some_and(|m| core::ptr::eq(m, n))
    }

    pub async fn phase(spawner: Spawner) {
        check(
            "trace: running nodes' polls are attributed to them",
            [&BUS, &SENSOR, &APP, &COORD, &POOL[0]]
                .iter()
                .all(|n| n.trace_stats().polls >= 1),
        );
        // COORD ran and ended: its task storage is free, and its id names
        // nobody now. The pool's members stopped, but their `task:` shells
        // stay resident, so their ids still name them. FAST runs again: the
        // activation that brought BUS back released its hold.
        check(
            "trace: a running node's task id names it; an ended one's names nobody",
            [&BUS, &SENSOR, &APP, &FAST, &POOL[0]]
                .iter()
                .all(|n| named(n))
                && [&COORD]
                    .iter()
                    .all(|n| n.task_id().is_some_and(|id| trace::node_of(id).is_none())),
        );
        check(
            "trace: the interrupt tier ran FAST on its own executor",
            FAST.trace_stats().polls >= 1 && trace::executor_stats(1).is_some_and(|e| e.polls >= 1),
        );
        let thread = trace::executor_stats(0);
        check(
            "trace: the thread executor slept (WFI) and its time adds up",
            thread.is_some_and(|e| {
                e.idle_ticks > 0
                    && e.supervised_ticks <= e.in_poll_ticks
                    && e.idle_ticks + e.in_poll_ticks <= e.elapsed_ticks
            }),
        );

        // Stall detection: HOG spins in one poll on the thread executor
        // while a watchdog on the interrupt tier samples the in-flight polls.
        let Some(high) = HIGH.get() else {
            check("trace: the interrupt tier is up", false);
            return;
        };
        high.spawn(watchdog().unwrap());
        Timer::after_micros(50).await;
        let r = SUP.start_node(&HOG, spawner).await;
        HOG_DONE.wait().await;
        HOG_DONE.signal(());
        settle().await;
        let hog = HOG.trace_stats();
        let spin = SPIN_TICKS.load(Ordering::Acquire);
        check(
            "trace: the interrupt tier names HOG as stalling the thread executor",
            r.is_ok() && STALL_WAS_HOG.load(Ordering::Acquire),
        );
        check(
            "trace: HOG's longest poll is its spin",
            hog.max_poll_ticks >= STALL.as_ticks() as u32 && named(&HOG),
        );
        // trace-nested: the watchdog's polls inside the spin (at least the
        // one that saw it) are credited back, so HOG's longest poll is
        // shorter than the spin it measured inside that poll. Without
        // `trace-nested` it is longer: the poll contains the spin.
        check(
            if cfg!(feature = "suite-trace-nested") {
                "trace-nested: nested interrupt-tier polls credited back to HOG's poll"
            } else {
                "trace: without trace-nested, HOG's poll includes the nested polls"
            },
            (hog.max_poll_ticks < spin) == cfg!(feature = "suite-trace-nested"),
        );
        check(
            "metadata-names: HOG's task carries the node's name",
            NAMED_HOG.load(Ordering::Acquire),
        );
        check(
            "trace: nothing untracked",
            trace::untracked() == 0 && trace::untracked_executors() == 0,
        );
    }
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
