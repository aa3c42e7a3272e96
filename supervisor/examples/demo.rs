//! The showcase: one graph declared with `supervisor_graph!`, drawn from the
//! graph itself, then a day in its life narrated one line per event: boot,
//! a sensor feeding the app its readings (its dataflow declared, derived from
//! the two tasks' bodies and checked at compile time), paused and resumed in place, a worker pool growing under load and
//! shrinking after its cooldown, a control command cascading, a controller
//! job queue, a sleep/wake cycle, and a wedged worker coming back as a
//! `NodeFault` that names it.
//!
//! Run: `cargo run -p embassy-supervisor --example demo --features control,pool,controller,dataflow`
//! (add `,trace` for a CPU table per node at the end; add `,fault-inject` and
//! the wedged worker is injected with `Fault::Wedge` instead of its own bug).
//!
//! Each line: the elapsed time, how long the operation took (wall clock, on
//! this machine), and what happened. The clock is embassy-time's mock clock,
//! driven at wall-clock pace by a helper thread, so every wait is real and
//! every one is named on its line (a cooldown, a job's run, the 2 s ack
//! timeout).
//!
//! With `--features log`, the supervisor's own log lines (one per driven
//! transition, at `debug`) are printed on stderr by `log_to_stderr`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Instant as WallInstant;

use embassy_executor::{Executor, Spawner};
use embassy_futures::join::join4;
use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::{Controller, ControllerSpec, JobTarget, TaskOutcome};
use embassy_supervisor::{
    ControlOp, DeferredShrink, Detail, Supervisor, TaskNode, derive_dataflow, request_control,
    supervisor_graph,
};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, MockDriver, Timer};

// ---- the graph -------------------------------------------------------------

supervisor_graph! {
    node POWER = Terminate, deps: [], task: service;
    node BUS = Terminate, deps: [POWER], task: service;
    node NET = Terminate, deps: [POWER], task: service;
    // Paused, not stopped: it keeps its calibration across a pause. It
    // feeds APP its readings; `derived` checks both lists against the
    // tasks' bodies (`#[derive_dataflow]` below).
    node SENSOR = Pause, deps: [BUS], task: sensor, writes: [READING], derived;
    node APP = Terminate, deps: [NET, SENSOR], task: report, reads: [READING], derived;
    // Request handlers: one always up, up to three under load.
    pool WORKER = [Terminate, OnDemand, OnDemand], deps: [APP], task: worker,
        policy: DeferredShrink = DeferredShrink::new(COOLDOWN), min: 1, max: 3;
    // Firmware updates: started only by the controller, one job at a time.
    node UPDATER = OnDemand, deps: [NET], task: updater;
}

/// Idle surplus the pool tolerates before it shrinks by one member.
const COOLDOWN: Duration = Duration::from_millis(400);
/// One request's work, one update job's work, one sensor sample.
const REQUEST: Duration = Duration::from_millis(60);
const UPDATE: Duration = Duration::from_millis(120);
const SAMPLE: Duration = Duration::from_millis(20);

static UPDATES: Controller<u8, 2, 4, 4, 4> = Controller::new();
static UPDATE_LANE: JobTarget<u8> = JobTarget::node(&UPDATER);
/// Nine slots: six nodes and three pool members.
static SUP: Supervisor<9> = Supervisor::new(&GRAPH).with_controller(&UPDATES);

// ---- the tasks ---------------------------------------------------------------

/// Who acked a stop, in order: the cascades' lines read it.
static ACKS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());

fn acked(node: &'static TaskNode) {
    ACKS.lock().unwrap().push(node.name);
    node.ack_dropped();
}

fn take_acks() -> String {
    std::mem::take(&mut *ACKS.lock().unwrap()).join(", ")
}

/// A `Terminate` service: serves until asked to stop, then acks.
async fn service(node: &'static TaskNode) {
    if node
        .run_cancellable(core::future::pending::<()>())
        .await
        .is_err()
    {
        acked(node);
    }
}

/// Stand-in CPU work (filtering a sample, parsing a request, verifying an
/// image), so the trace table at the end has something to measure.
fn crunch(rounds: u32) -> u32 {
    let mut x = 0x2545_f491u32;
    for i in 0..rounds {
        x = x.rotate_left(5) ^ i.wrapping_mul(0x9e37_79b9);
    }
    std::hint::black_box(x)
}

static SENSOR_INSTANCES: AtomicU32 = AtomicU32::new(0);
static SAMPLES: AtomicU32 = AtomicU32::new(0);
/// The sensor's latest reading, for APP (the graph's one data edge).
static READING: Signal<CriticalSectionRawMutex, u32> = Signal::new();
static REPORTS: AtomicU32 = AtomicU32::new(0);

/// The `Pause` node: samples every 20 ms and publishes each reading through
/// its node; on a stop it acks and parks, and the same instance (with its
/// samples) carries on when resumed.
#[derive_dataflow]
async fn sensor(node: &'static TaskNode) {
    SENSOR_INSTANCES.fetch_add(1, Ordering::SeqCst);
    loop {
        while node.run_cancellable(Timer::after(SAMPLE)).await.is_ok() {
            let n = SAMPLES.fetch_add(1, Ordering::SeqCst) + 1;
            node.publish(&READING, crunch(1_000) ^ n);
        }
        acked(node);
        node.wait_resume().await;
    }
}

/// APP: reports each reading the sensor publishes, until asked to stop.
#[derive_dataflow]
async fn report(node: &'static TaskNode) {
    let reports = async {
        loop {
            node.reader(&READING).wait().await;
            REPORTS.fetch_add(1, Ordering::SeqCst);
        }
    };
    if node.run_cancellable(reports).await.is_err() {
        acked(node);
    }
}

/// Requests waiting for a worker, and a doorbell per pool member.
static BACKLOG: AtomicU32 = AtomicU32::new(0);
static SERVED: AtomicU32 = AtomicU32::new(0);
/// When the load arrived, while it lasts: a member spawned then is growth.
static LOAD_SINCE: Mutex<Option<WallInstant>> = Mutex::new(None);
static DOORBELL: [Signal<CriticalSectionRawMutex, ()>; 3] = [const { Signal::new() }; 3];
/// The bug of the last scene: WORKER[0] stops acking stops.
static WEDGED: AtomicBool = AtomicBool::new(false);

fn take_request() -> bool {
    BACKLOG
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

/// A pool member: takes requests while there are any (busy), then waits for
/// the doorbell (idle). Busy members with none idle make the pool grow.
async fn worker(node: &'static TaskNode) {
    let me = WORKER_POOL.member_index(node).unwrap_or(0);
    if let Some(t) = *LOAD_SINCE.lock().unwrap() {
        let n = pool_size();
        line(
            Some(t.elapsed()),
            &format!(
                "pool grew to {n}: {} spawned, every running member was busy",
                node.name
            ),
        );
    }
    let serve = async {
        loop {
            while take_request() {
                node.mark_busy();
                crunch(20_000);
                Timer::after(REQUEST).await;
                SERVED.fetch_add(1, Ordering::SeqCst);
            }
            node.mark_idle();
            DOORBELL[me].wait().await;
        }
    };
    if node.run_cancellable(serve).await.is_err() {
        if WEDGED.load(Ordering::SeqCst) && me == 0 {
            core::future::pending::<()>().await // the bug: never acks
        }
        acked(node);
    }
}

static UPDATE_RUNS: AtomicU32 = AtomicU32::new(0);

/// A controller job: one update run; returning completes the job.
async fn updater(node: &'static TaskNode) {
    UPDATE_RUNS.fetch_add(1, Ordering::SeqCst);
    crunch(50_000);
    if node.run_cancellable(Timer::after(UPDATE)).await.is_err() {
        acked(node);
    }
}

// ---- narration -----------------------------------------------------------------

fn took(d: std::time::Duration) -> String {
    let us = d.as_micros();
    match us {
        0..1_000 => format!("{us} µs"),
        1_000..1_000_000 => format!("{:.1} ms", us as f64 / 1e3),
        _ => format!("{:.3} s", us as f64 / 1e6),
    }
}

/// One line: elapsed clock time, how long the operation took, what happened.
fn line(took_: Option<std::time::Duration>, what: &str) {
    let t = Instant::now().as_micros();
    let cost = took_.map(took).unwrap_or_default();
    println!(
        "{:>4}.{:03} s  {cost:>9}  {what}",
        t / 1_000_000,
        t / 1000 % 1000
    );
}

/// Nodes that are up, in dependency order.
fn up() -> String {
    let mut names = Vec::new();
    for &i in &GRAPH.order {
        if let Some(n) = GRAPH.node(i as usize).filter(|n| n.is_running()) {
            names.push(n.name);
        }
    }
    names.join(", ")
}

fn pool_size() -> usize {
    WORKER.iter().filter(|n| n.is_running()).count()
}

/// Watch the graph the way a status page would, sampling every millisecond
/// until `done` holds; `Err` if it does not within `limit`.
async fn until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) -> Result<(), String> {
    let deadline = Instant::now() + limit;
    while !done() {
        if Instant::now() > deadline {
            return Err(format!("{what}: not within {} ms", limit.as_millis()));
        }
        Timer::after(Duration::from_millis(1)).await;
    }
    Ok(())
}

// ---- the scenario ----------------------------------------------------------------

async fn scenario(s: Spawner) -> Result<(), String> {
    // Boot. `run` (started below) would do this too; done here so the line
    // can time it.
    let t = WallInstant::now();
    SUP.start(s).await.map_err(|e| format!("start: {e}"))?;
    line(
        Some(t.elapsed()),
        &format!("boot: start() walked the dependency order: {}", up()),
    );
    let readers: Vec<_> = GRAPH.readers_of(&READING).map(|n| n.name).collect();
    let affected: Vec<_> = GRAPH.affected_by(&SENSOR).map(|n| n.name).collect();
    line(
        None,
        &format!(
            "dataflow: SENSOR writes READING for {}; if SENSOR cycles, affected: {}",
            readers.join(", "),
            affected.join(", ")
        ),
    );
    // From now on the driver applies control commands, scales the pool and
    // runs the controller, in the background.
    s.spawn(driver(s).map_err(|e| format!("driver: {e}"))?);

    // A sensor paused and resumed in place.
    Timer::after(Duration::from_millis(100)).await;
    let t = WallInstant::now();
    SUP.stop_node(&SENSOR).await.map_err(|e| e.to_string())?;
    let kept = SAMPLES.load(Ordering::SeqCst);
    let reported = REPORTS.load(Ordering::SeqCst);
    line(
        Some(t.elapsed()),
        &format!(
            "stop_node(SENSOR): paused after 100 ms and {kept} samples ({reported} reported by APP); APP keeps running"
        ),
    );
    Timer::after(Duration::from_millis(50)).await;
    let t = WallInstant::now();
    SUP.resume_node(&SENSOR);
    until("SENSOR resumes", Duration::from_millis(50), || {
        SENSOR.is_running()
    })
    .await?;
    line(
        Some(t.elapsed()),
        &format!(
            "resume_node(SENSOR) 50 ms later: instance #{} resumed in place, its {kept} samples kept",
            SENSOR_INSTANCES.load(Ordering::SeqCst)
        ),
    );

    // Load: the pool grows while every member is busy, then shrinks one
    // member per cooldown of idle surplus.
    let requests = 12;
    BACKLOG.store(requests, Ordering::SeqCst);
    line(
        None,
        &format!("load: {requests} requests of 60 ms arrive for the WORKER pool"),
    );
    let t = WallInstant::now();
    *LOAD_SINCE.lock().unwrap() = Some(t);
    DOORBELL.iter().for_each(|d| d.signal(()));
    until("backlog", Duration::from_secs(2), || {
        SERVED.load(Ordering::SeqCst) >= requests
    })
    .await?;
    *LOAD_SINCE.lock().unwrap() = None;
    let mut size = pool_size();
    line(
        Some(t.elapsed()),
        &format!("backlog served: {requests} requests by {size} workers; all idle now"),
    );
    while size > 1 {
        let t = WallInstant::now();
        until("pool shrink", Duration::from_secs(2), || pool_size() < size).await?;
        let now = pool_size();
        line(
            Some(t.elapsed()),
            &format!("pool shrank {size} -> {now}: idle surplus outlasted the 400 ms cooldown"),
        );
        size = now;
    }

    // A control command cascades along the dependencies.
    take_acks();
    let t = WallInstant::now();
    request_control(&NET, ControlOp::Deactivate).await;
    until("Deactivate NET", Duration::from_millis(100), || {
        !NET.is_running() && !APP.is_running()
    })
    .await?;
    line(
        Some(t.elapsed()),
        &format!(
            "control Deactivate NET: dependents first, acks from {}",
            take_acks()
        ),
    );
    let t = WallInstant::now();
    request_control(&WORKER[0], ControlOp::Activate).await;
    until("Activate WORKER", Duration::from_millis(100), || {
        WORKER[0].is_running()
    })
    .await?;
    line(
        Some(t.elapsed()),
        &format!(
            "control Activate WORKER[0]: its dependencies first; up: {}",
            up()
        ),
    );
    request_control(&UPDATER, ControlOp::Activate).await;

    // The controller: a job queue on UPDATER's lane, one job at a time.
    line(
        None,
        "controller: firmware jobs 1, 2, 3 queued on lane UPDATER (120 ms each)",
    );
    let t = WallInstant::now();
    let job = |n: u8| async move {
        let outcome = UPDATES
            .submit_and_watch(ControllerSpec::queue(&UPDATE_LANE, n))
            .await;
        line(Some(t.elapsed()), &format!("  job {n}: {outcome:?}"));
        outcome
    };
    let late = async {
        // Submitted while the lane is busy, with "skip if running".
        Timer::after(Duration::from_millis(10)).await;
        let outcome = UPDATES
            .submit_and_watch(ControllerSpec::drop_if_running(&UPDATE_LANE, 9))
            .await;
        line(
            Some(t.elapsed()),
            &format!("  job 9 (drop-if-running): {outcome:?}"),
        );
    };
    let (a, b, c, ()) = join4(job(1), job(2), job(3), late).await;
    if [a, b, c] != [TaskOutcome::Completed; 3] {
        return Err(format!("update jobs: {a:?} {b:?} {c:?}"));
    }

    // Sleep and wake: everything down dependents first, SENSOR parks; one
    // start() brings the graph back and resumes SENSOR in place.
    let t = WallInstant::now();
    SUP.teardown().await.map_err(|e| e.to_string())?;
    line(
        Some(t.elapsed()),
        &format!("sleep: teardown() acks from {}", take_acks()),
    );
    Timer::after(Duration::from_millis(300)).await;
    let t = WallInstant::now();
    SUP.start(s).await.map_err(|e| format!("wake: {e}"))?;
    until("wake", Duration::from_millis(50), || SENSOR.is_running()).await?;
    line(
        Some(t.elapsed()),
        &format!(
            "wake after 300 ms asleep: start(); SENSOR is still instance #{}; up: {}",
            SENSOR_INSTANCES.load(Ordering::SeqCst),
            up()
        ),
    );

    // A wedged worker: the teardown reports it by name instead of hanging.
    // With `fault-inject` the fault is injected from outside (the worker's
    // code is unchanged); without it the worker's own bug flag does it.
    #[cfg(feature = "fault-inject")]
    {
        WORKER[0]
            .inject(embassy_supervisor::Fault::Wedge)
            .map_err(|e| e.to_string())?;
        line(
            None,
            "fault injected: WORKER[0].inject(Fault::Wedge) hides its next stop",
        );
    }
    #[cfg(not(feature = "fault-inject"))]
    {
        WEDGED.store(true, Ordering::SeqCst);
        line(None, "bug: WORKER[0] will ignore its next stop");
    }
    let t = WallInstant::now();
    let timeout = match SUP.teardown().await {
        Err(e) => e,
        Ok(()) => return Err("the wedged worker went unnoticed".into()),
    };
    line(
        Some(t.elapsed()),
        &format!("teardown(): {timeout} (after the 2 s ack timeout)"),
    );
    // Give up on it (a watchdog reset would be next on a device) and stop
    // the rest: a detached node is skipped by every supervisor operation.
    take_acks();
    let t = WallInstant::now();
    timeout.node.set_detached(true);
    SUP.teardown().await.map_err(|e| e.to_string())?;
    line(
        Some(t.elapsed()),
        &format!(
            "{} detached; teardown() stops the rest: acks from {}",
            timeout.node.name,
            take_acks()
        ),
    );
    if timeout.node.name != "WORKER[0]" || SENSOR_INSTANCES.load(Ordering::SeqCst) != 1 {
        return Err("unexpected ending".into());
    }

    println!("\nThe graph at the end (write_layers with Detail::WithState):\n");
    let mut picture = String::new();
    GRAPH
        .write_layers(&mut picture, Detail::WithState)
        .map_err(|e| e.to_string())?;
    print!("{picture}");
    #[cfg(feature = "trace")]
    cpu_table();
    Ok(())
}

#[embassy_executor::task]
async fn driver(s: Spawner) {
    // Returns only on error: a stop that missed its ack (not expected here:
    // the wedge is met by the scenario's own teardown).
    let e = SUP.run(s).await;
    line(None, &format!("driver stopped: {e:?}"));
}

// ---- trace (feature `trace`) -----------------------------------------------------

/// The executor's trace hooks, forwarded to the recorders (feature
/// `trace-hooks` makes `supervisor_graph!` emit these instead).
#[cfg(all(feature = "trace", not(feature = "trace-hooks")))]
mod hooks {
    use embassy_supervisor::trace;

    #[unsafe(no_mangle)]
    fn _embassy_trace_poll_start(executor_id: u32) {
        trace::on_poll_start(executor_id)
    }
    #[unsafe(no_mangle)]
    fn _embassy_trace_task_new(executor_id: u32, task_id: u32) {
        trace::on_task_new(executor_id, task_id)
    }
    #[unsafe(no_mangle)]
    fn _embassy_trace_task_end(executor_id: u32, task_id: u32) {
        trace::on_task_end(executor_id, task_id)
    }
    #[unsafe(no_mangle)]
    fn _embassy_trace_task_exec_begin(executor_id: u32, task_id: u32) {
        trace::on_task_exec_begin(executor_id, task_id)
    }
    #[unsafe(no_mangle)]
    fn _embassy_trace_task_exec_end(executor_id: u32, task_id: u32) {
        trace::on_task_exec_end(executor_id, task_id)
    }
    #[unsafe(no_mangle)]
    fn _embassy_trace_task_ready_begin(executor_id: u32, task_id: u32) {
        trace::on_task_ready_begin(executor_id, task_id)
    }
    #[unsafe(no_mangle)]
    fn _embassy_trace_executor_idle(executor_id: u32) {
        trace::on_executor_idle(executor_id)
    }
}

/// CPU per node, as the trace recorders saw it (every instance summed). The
/// ticks are the mock clock's microseconds, which the helper thread moves in
/// steps of 0.1 to 0.2 ms: a poll reads as whole steps, and one a timer
/// woke starts right after a step, so a short one (SENSOR's) reads 0.
#[cfg(feature = "trace")]
fn cpu_table() {
    println!(
        "\nCPU per node (feature `trace`; host clock in ~0.15 ms steps: coarse, short polls read 0):\n"
    );
    println!(
        "{:<10} {:>6} {:>12} {:>13}",
        "node", "polls", "in polls", "longest poll"
    );
    for n in GRAPH.nodes.iter().flatten() {
        let t = n.trace_stats();
        println!(
            "{:<10} {:>6} {:>9} µs {:>10} µs",
            n.name, t.polls, t.exec_ticks, t.max_poll_ticks
        );
    }
    if let Some(e) = embassy_supervisor::trace::executor_stats(0) {
        println!(
            "executor: {} polls, {} µs in polls ({} µs in nodes), idle {} of {} µs",
            e.polls, e.in_poll_ticks, e.supervised_ticks, e.idle_ticks, e.elapsed_ticks
        );
    }
}

// ---- main ----------------------------------------------------------------------------

#[embassy_executor::task]
async fn main_task(s: Spawner) {
    // A demo that stalls is a failure too.
    let outcome = match select(scenario(s), Timer::after(Duration::from_secs(20))).await {
        Either::First(r) => r,
        Either::Second(()) => Err("demo stalled".into()),
    };
    match outcome {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("demo failed: {e}");
            std::process::exit(1);
        }
    }
}

fn main() {
    // With `--features log`, the supervisor's own log lines go to stderr too.
    #[cfg(feature = "log")]
    embassy_supervisor::log_to_stderr(log::LevelFilter::Debug).expect("the only logger");
    println!("embassy-supervisor demo: the graph, drawn from GRAPH (write_layers):\n");
    let mut picture = String::new();
    GRAPH
        .write_layers(&mut picture, Detail::Declared)
        .expect("a String accepts every write");
    println!("{picture}");
    println!("{:>10}  {:>9}  what happened", "elapsed", "took");

    // Drive the mock clock at wall-clock pace.
    std::thread::spawn(|| {
        let start = WallInstant::now();
        let mut sent = 0u64;
        loop {
            std::thread::sleep(std::time::Duration::from_micros(100));
            let now = start.elapsed().as_micros() as u64;
            MockDriver::get().advance(Duration::from_micros(now - sent));
            sent = now;
        }
    });
    let executor: &'static mut Executor = Box::leak(Box::new(Executor::new()));
    executor.run(|s| s.spawn(main_task(s).unwrap()));
}
