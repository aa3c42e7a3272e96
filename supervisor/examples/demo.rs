//! Host demo: a five-node graph brought up in dependency order, torn down in
//! reverse, woken again (`resume_pausable` + `respawn_terminate`), then
//! cycled once more with `start()`, printing every transition with its time.
//!
//! ```text
//! POWER ─┬─ BUS ── SENSOR (Pause) ─┬─ APP
//!        └─ NET ───────────────────┘
//! ```
//!
//! Run: `cargo run -p embassy-supervisor --example demo`
//!
//! With `--features log`, the supervisor's own log lines (one per driven
//! transition, at `debug`) are printed on stderr by `log_to_stderr`.
//!
//! With `--features trace`, it also prints what the trace recorders saw: each
//! node's polls, and where the executor's time went.
//!
//! The embassy-time mock clock is driven from a helper thread at wall-clock
//! pace, so the timestamps (and the demo's sleeps) are real milliseconds.

use std::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::{Executor, SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_time::{Duration, Instant, MockDriver, Timer};

// ---- the graph -------------------------------------------------------------

static POWER: TaskNode = TaskNode::new(
    &NodeSpec::new("POWER", Mode::Terminate)
        .with_spawn(spawn_power)
        .at(0),
);
static BUS: TaskNode = TaskNode::new(
    &NodeSpec::new("BUS", Mode::Terminate)
        .with_spawn(spawn_bus)
        .at(1),
);
static SENSOR: TaskNode = TaskNode::new(
    &NodeSpec::new("SENSOR", Mode::Pause)
        .with_spawn(spawn_sensor)
        .at(2),
);
static NET: TaskNode = TaskNode::new(
    &NodeSpec::new("NET", Mode::Terminate)
        .with_spawn(spawn_net)
        .at(3),
);
static APP: TaskNode = TaskNode::new(
    &NodeSpec::new("APP", Mode::Terminate)
        .with_spawn(spawn_app)
        .at(4),
);

static GRAPH: Graph<5> = Graph::new(
    [
        Some(&POWER),
        Some(&BUS),
        Some(&SENSOR),
        Some(&NET),
        Some(&APP),
    ],
    [&[], &[0], &[1], &[0], &[2, 3]],
);
static SUP: Supervisor<5> = Supervisor::new(&GRAPH);

// ---- printing ---------------------------------------------------------------

fn say(who: &str, what: &str) {
    let t = Instant::now().as_micros();
    println!("[{:>5}.{:03} ms] {who:<10} {what}", t / 1000, t % 1000);
}

// ---- tasks --------------------------------------------------------------------

/// A `Terminate` service: serve until asked to stop, then ack and exit.
#[embassy_executor::task(pool_size = 4)]
async fn service(node: &'static TaskNode) {
    // The service's "work" is just waiting; a stop cancels it.
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    say(node.name, "acked stop, exited");
    node.mark_exited();
}

/// How many times SENSOR's one and only instance has been started.
static SENSOR_INSTANCES: AtomicU32 = AtomicU32::new(0);

/// The `Pause` node: samples every 40 ms; on a stop it acks and parks,
/// keeping its calibration (the state a respawn would lose).
#[embassy_executor::task]
async fn sensor(node: &'static TaskNode) {
    let instance = SENSOR_INSTANCES.fetch_add(1, Ordering::SeqCst) + 1;
    let mut samples = 0u32;
    loop {
        while node
            .run_cancellable(Timer::after(Duration::from_millis(40)))
            .await
            .is_ok()
        {
            samples += 1;
        }
        say(
            node.name,
            &format!("acked pause after {samples} samples, parked (instance #{instance})"),
        );
        node.ack_dropped();
        node.wait_resume().await;
        say(
            node.name,
            &format!("resumed in place: instance #{instance}, {samples} samples kept"),
        );
    }
}

fn spawn_service(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let token = service(node)?;
    node.bind(&token); // trace attribution; nothing without `trace`
    say(node.name, "spawned");
    s.spawn(token);
    Ok(())
}

fn spawn_power(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_service(&POWER, s)
}
fn spawn_bus(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_service(&BUS, s)
}
fn spawn_net(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_service(&NET, s)
}
fn spawn_app(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    spawn_service(&APP, s)
}
fn spawn_sensor(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let token = sensor(&SENSOR)?;
    SENSOR.bind(&token);
    say(SENSOR.name, "spawned");
    s.spawn(token);
    Ok(())
}

// ---- the supervisor's side ------------------------------------------------------

fn status() -> String {
    GRAPH
        .nodes
        .iter()
        .flatten()
        .map(|n| format!("{}={}", n.name, if n.is_running() { "up" } else { "down" }))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Let the system run for `ms`, then print who is up.
async fn run_for(ms: u64) {
    Timer::after(Duration::from_millis(ms)).await;
    say("supervisor", &status());
}

async fn demo(s: Spawner) -> Result<(), String> {
    say("supervisor", "start(): bring-up in dependency order");
    SUP.start(s).await.map_err(|e| format!("start: {e}"))?;
    run_for(130).await;

    say(
        "supervisor",
        "teardown(): dependents first, each ack awaited",
    );
    SUP.teardown().await.map_err(|e| e.to_string())?;
    say("supervisor", &status());

    say("supervisor", "(sleeping 200 ms)");
    Timer::after(Duration::from_millis(200)).await;

    // The wake pair, thaw first: SENSOR resumes in place before APP, which
    // depends on it, is respawned.
    say(
        "supervisor",
        "wake: resume_pausable() + respawn_terminate()",
    );
    SUP.resume_pausable();
    SUP.respawn_terminate(s)
        .await
        .map_err(|e| format!("respawn_terminate: {e}"))?;
    run_for(90).await;

    say("supervisor", "teardown(), then start(): the one-call wake");
    SUP.teardown().await.map_err(|e| e.to_string())?;
    SUP.start(s).await.map_err(|e| format!("start: {e}"))?;
    run_for(50).await;

    say("supervisor", "final teardown");
    SUP.teardown().await.map_err(|e| e.to_string())?;
    say("supervisor", &status());
    #[cfg(feature = "trace")]
    trace_report();
    let instances = SENSOR_INSTANCES.load(Ordering::SeqCst);
    if instances != 1 {
        return Err(format!(
            "SENSOR was spawned {instances} times, expected once"
        ));
    }
    Ok(())
}

// ---- trace (feature `trace`) -----------------------------------------------------

/// The executor's trace hooks, forwarded to the recorders. (A graph declared
/// with `supervisor_graph!` gets these from feature `trace-hooks`.)
#[cfg(feature = "trace")]
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

/// What the recorders saw: polls per node (across every instance) and the
/// executor's time split. Ticks are the mock clock's microseconds; a host
/// poll takes less than one, so the time is nearly all idle.
#[cfg(feature = "trace")]
fn trace_report() {
    for n in GRAPH.nodes.iter().flatten() {
        let t = n.trace_stats();
        say(
            n.name,
            &format!("trace: {} polls, longest {} µs", t.polls, t.max_poll_ticks),
        );
    }
    if let Some(e) = embassy_supervisor::trace::executor_stats(0) {
        say(
            "executor",
            &format!(
                "trace: {} passes, {} polls, {} µs in polls ({} µs in nodes), idle {} of {} µs",
                e.passes,
                e.polls,
                e.in_poll_ticks,
                e.supervised_ticks,
                e.idle_ticks,
                e.elapsed_ticks
            ),
        );
    }
}

#[embassy_executor::task]
async fn driver(s: Spawner) {
    // A demo that stalls is a failure too: give it a generous deadline.
    let outcome = match select(demo(s), Timer::after(Duration::from_secs(10))).await {
        Either::First(r) => r,
        Either::Second(()) => Err("demo stalled".into()),
    };
    match outcome {
        Ok(()) => {
            say("supervisor", "done");
            std::process::exit(0);
        }
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
    // Drive the mock clock at wall-clock pace.
    std::thread::spawn(|| {
        let start = std::time::Instant::now();
        let mut sent = 0u64;
        loop {
            std::thread::sleep(std::time::Duration::from_millis(1));
            let now = start.elapsed().as_micros() as u64;
            MockDriver::get().advance(Duration::from_micros(now - sent));
            sent = now;
        }
    });
    let executor: &'static mut Executor = Box::leak(Box::new(Executor::new()));
    executor.run(|s| s.spawn(driver(s).unwrap()));
}
