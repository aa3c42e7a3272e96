//! Randomized interleavings of restarts (issue 14): `Supervisor::run` drives
//! a graph whose nodes carry restart policies, while random steps make
//! workers exit (failed or not) or stall, send control commands through the
//! mailbox (`Restart`, `Deactivate`, `Activate`), call `restart`,
//! `deactivate`, `activate`, `start` and `teardown` as tasks of their own,
//! open and close a gate, and move the clock. Budgets are small, so
//! automatic restarts escalate now and then; `run()` is started again.
//!
//! Complements `driver_model.rs` (pools and the controller). Checked at the
//! moment it happens:
//!
//! - a spawn: the supervisor is not halted (every verb that may bring a node
//!   up after a teardown lifts the halt first), the node is neither
//!   disabled, held nor detached, and no dependency of it is stopping;
//! - a stop (the worker acks): none of the node's dependents runs (stops go
//!   in reverse dependency order, an escalation's teardown included);
//! - `run()` returns: an escalation names a policy node and its budget, and
//!   (unless a verb lifted the halt meanwhile) everything is down; any other
//!   fault is the gated node's closed gate.
//!
//! After every step: no running node has a dependency that is stopping;
//! no node restarted more often than its
//! `restart_budget: R in T` allows in any `T` ms. Once settled and no verb
//! is in flight: a halted graph has nothing running, a disabled or held node
//! is down.
//!
//! Each sequence has its own seed, printed on failure:
//! `MODEL_SEED=<u64> cargo test ... --test restart_model` replays it alone;
//! `MODEL_BASE=<u64>` runs another set of sequences; `MODEL_TRACE=1`
//! prints every node's state after each step.
#![cfg(all(feature = "control", feature = "restart", feature = "liveness"))]
mod common;

use common::model::Rng;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::{
    ControlOp, FaultKind, Gate, Graph, Mode, NodeFault, NodeSpec, ResourceSlot, RestartLog,
    RestartPolicy, RestartSpec, RestartState, Supervisor, TaskNode, try_request_control,
};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant};
use portable_atomic::AtomicU32;

const SEQUENCES: u64 = 250;
const STEPS: usize = 40;
const DEFAULT_SEED: u64 = 0x0005_eed0_f2e5_7a27;

// ---- the graph --------------------------------------------------------------
//
//   0 BASE (Terminate, restart: always, 2 in 1000 ms)
//   1 G    (Terminate, deps BASE, gate G_GATE, restart: on_failure, 2 in 1000 ms)
//   2 S    (Terminate, deps G, beat_timeout 50, restart: on_failure, 3 in 400 ms)
//   3 T    (Terminate, deps BASE and S, no policy)
//   4 P    (Pause, deps BASE, no policy)
//   5 D    (detached, deps BASE: nothing may ever spawn it)
const N: usize = 6;
const B_I: usize = 0;
const G_I: usize = 1;
const S_I: usize = 2;
const T_I: usize = 3;
const P_I: usize = 4;
const D_I: usize = 5;
const DEPS: [&[u8]; N] = [&[], &[0], &[1], &[0, 2], &[0], &[0]];

static G_GATE: ResourceSlot<()> = ResourceSlot::new();
static G_GATES: [&dyn Gate; 1] = [&G_GATE];

static B_STATE: RestartState = RestartState::new();
static B_LOG: RestartLog<2> = [const { AtomicU32::new(0) }; 2];
static B_RESTART: RestartSpec = RestartSpec::new(RestartPolicy::Always, &B_STATE)
    .with_backoff(10, 40)
    .with_budget(1000, &B_LOG);
static G_STATE: RestartState = RestartState::new();
static G_LOG: RestartLog<2> = [const { AtomicU32::new(0) }; 2];
static G_RESTART: RestartSpec = RestartSpec::new(RestartPolicy::OnFailure, &G_STATE)
    .with_backoff(10, 40)
    .with_budget(1000, &G_LOG);
static S_STATE: RestartState = RestartState::new();
static S_LOG: RestartLog<3> = [const { AtomicU32::new(0) }; 3];
static S_RESTART: RestartSpec = RestartSpec::new(RestartPolicy::OnFailure, &S_STATE)
    .with_backoff(5, 20)
    .with_budget(400, &S_LOG);
/// The policy nodes' specs, by slot.
const POLICIES: [(usize, &RestartSpec); 3] =
    [(B_I, &B_RESTART), (G_I, &G_RESTART), (S_I, &S_RESTART)];

static BASE: TaskNode = TaskNode::new(
    &NodeSpec::new("BASE", Mode::Terminate)
        .with_spawn(spawn_exiter)
        .with_restart(&B_RESTART)
        .at(0),
);
static G: TaskNode = TaskNode::new(
    &NodeSpec::new("G", Mode::Terminate)
        .with_spawn(spawn_exiter)
        .with_resources(&G_GATES)
        .with_slot_timeout(100)
        .with_restart(&G_RESTART)
        .at(1),
);
static S: TaskNode = TaskNode::new(
    &NodeSpec::new("S", Mode::Terminate)
        .with_spawn(spawn_exiter)
        .with_beat_timeout(50)
        .with_restart(&S_RESTART)
        .at(2),
);
static T: TaskNode = TaskNode::new(
    &NodeSpec::new("T", Mode::Terminate)
        .with_spawn(spawn_exiter)
        .at(3),
);
static P: TaskNode = TaskNode::new(
    &NodeSpec::new("P", Mode::Pause)
        .with_spawn(spawn_pauser)
        .at(4),
);
static D: TaskNode = TaskNode::new(
    &NodeSpec::new("D", Mode::Terminate)
        .with_spawn(spawn_exiter)
        .at(5),
);
static GRAPH: Graph<N> = Graph::new(
    [
        Some(&BASE),
        Some(&G),
        Some(&S),
        Some(&T),
        Some(&P),
        Some(&D),
    ],
    DEPS,
)
.with_restarts(&[0, 1, 2]);
static SUP: Supervisor<N> = Supervisor::new(&GRAPH);
static NODES: [&TaskNode; N] = [&BASE, &G, &S, &T, &P, &D];

fn slot_of(node: &TaskNode) -> usize {
    NODES.iter().position(|n| core::ptr::eq(*n, node)).unwrap()
}

// ---- checks made as things happen ---------------------------------------------

static PROBLEMS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn problem(p: String) {
    PROBLEMS.lock().unwrap().push(p);
}

/// A spawn of slot `i` (or the first spawn of the `Pause` node).
fn check_spawn(i: usize) {
    let n = NODES[i];
    if SUP.is_halted() {
        problem(format!(
            "`{}` spawned while the supervisor is halted",
            n.name
        ));
    }
    if n.is_disabled() || n.is_held() || n.is_detached() {
        problem(format!(
            "`{}` spawned while disabled ({}), held ({}) or detached ({})",
            n.name,
            n.is_disabled(),
            n.is_held(),
            n.is_detached()
        ));
    }
    for &d in DEPS[i] {
        if stopping(NODES[d as usize]) {
            problem(format!(
                "`{}` spawned while its dependency `{}` is stopping",
                n.name, NODES[d as usize].name
            ));
        }
    }
}

/// Asked to stop (or pause) and not yet acked.
fn stopping(n: &TaskNode) -> bool {
    n.is_running() && n.shutdown_requested()
}

/// Slot `i` acks a stop: its dependents are down already.
fn check_stop(i: usize) {
    for (j, deps) in DEPS.iter().enumerate() {
        if deps.contains(&(i as u8)) && j != D_I && NODES[j].is_running() {
            problem(format!(
                "`{}` stopped while its dependent `{}` runs",
                NODES[i].name, NODES[j].name
            ));
        }
    }
}

// ---- workers ----------------------------------------------------------------

/// Per node: make its running instance return on its own (`true`: failed).
static EXIT: [Signal<CriticalSectionRawMutex, bool>; N] = [const { Signal::new() }; N];
/// `S` stops beating while set: each instance stalls until a step clears it.
static STALLED: AtomicBool = AtomicBool::new(false);

#[embassy_executor::task(pool_size = 16)]
async fn exiter(node: &'static TaskNode, i: usize) {
    match select(node.wait_shutdown(), EXIT[i].wait()).await {
        Either::First(()) => {
            check_stop(i);
            node.ack_dropped();
            node.mark_exited();
        }
        Either::Second(true) => node.mark_failed(),
        Either::Second(false) => node.mark_exited(),
    }
}

fn spawn_exiter(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let i = slot_of(node);
    if i == D_I {
        problem("the detached node `D` was spawned".into());
    }
    check_spawn(i);
    EXIT[i].reset();
    s.spawn(exiter(node, i)?);
    Ok(())
}

#[embassy_executor::task]
async fn pauser(node: &'static TaskNode) {
    loop {
        node.wait_shutdown().await;
        check_stop(P_I);
        node.ack_dropped();
        node.wait_resume().await;
    }
}

fn spawn_pauser(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    check_spawn(P_I);
    s.spawn(pauser(node)?);
    Ok(())
}

// ---- verbs as tasks -------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Verb {
    Start,
    Activate(usize),
    Deactivate(usize),
    Restart(usize),
    Teardown,
}

static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

#[embassy_executor::task(pool_size = 48)]
async fn verb(v: Verb, s: Spawner) {
    let result = match v {
        Verb::Start => SUP.start(s).await,
        Verb::Activate(i) => SUP.activate(NODES[i], s).await,
        Verb::Deactivate(i) => SUP.deactivate(NODES[i]).await,
        Verb::Restart(i) => SUP.restart(NODES[i], s).await,
        Verb::Teardown => SUP.teardown().await,
    };
    if let Err(e) = result {
        if e.kind == FaultKind::AckMissed {
            problem(format!("{v:?}: {e} (every worker acks)"));
        }
    }
    IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
}

// ---- the driver ---------------------------------------------------------------

static RUN_ALIVE: AtomicBool = AtomicBool::new(false);
static ESCALATIONS: AtomicUsize = AtomicUsize::new(0);

// Two: the one that returned may not have released its slot yet.
#[embassy_executor::task(pool_size = 2)]
async fn runner(s: Spawner) {
    let fault = SUP.run(s).await;
    check_run_fault(fault.fault());
    RUN_ALIVE.store(false, Ordering::SeqCst);
}

/// What `run()` may return here: an escalation, or the gated node's gate.
fn check_run_fault(fault: NodeFault) {
    match fault.kind {
        FaultKind::Escalated {
            restarts,
            window_ms,
        } => {
            ESCALATIONS.fetch_add(1, Ordering::SeqCst);
            let spec = POLICIES
                .iter()
                .find(|(i, _)| core::ptr::eq(NODES[*i], fault.node));
            match spec {
                Some((_, spec)) if spec.budget() == Some((restarts, window_ms)) => {}
                _ => problem(format!("escalation with the wrong node or count: {fault}")),
            }
            // Synchronously after the teardown: down, unless a verb lifted
            // the halt (and may have brought nodes up) meanwhile.
            if SUP.is_halted() {
                for n in NODES {
                    if n.is_running() {
                        problem(format!("`{}` runs after the escalation: {fault}", n.name));
                    }
                }
            }
        }
        FaultKind::ResourceEmpty { gate: 0 } if core::ptr::eq(fault.node, &G) => {}
        // A latch, a teardown, or a verb stopping a dependency, that raced
        // `run()`'s own `start` (after the start, `run()` only logs them).
        _ if fault.is_refusal() => {}
        _ => problem(format!("run() returned an unexpected fault: {fault}")),
    }
}

fn ensure_run(s: Spawner) {
    if !RUN_ALIVE.swap(true, Ordering::SeqCst) {
        s.spawn(runner(s).unwrap());
    }
}

#[derive(Debug)]
enum Step {
    Verb(Verb),
    Control(usize, ControlOp),
    Fill,
    Empty,
    /// Node `i`'s instance returns on its own (`true`: failed).
    Exit(usize, bool),
    /// `S` stops beating, or beats again.
    Stall,
    Advance(u64),
}

fn pick(rng: &mut Rng) -> Step {
    let i = rng.below(N);
    match rng.below(20) {
        0 => Step::Verb(Verb::Start),
        1 | 2 => Step::Verb(Verb::Activate(i)),
        3 => Step::Verb(Verb::Deactivate(i)),
        4 | 5 => Step::Verb(Verb::Restart(i)),
        6..=8 => {
            let op = [
                ControlOp::Restart,
                ControlOp::Deactivate,
                ControlOp::Activate,
            ][rng.below(3)];
            Step::Control(i, op)
        }
        9 => Step::Verb(Verb::Teardown),
        10 => Step::Fill,
        11 => Step::Empty,
        12..=14 => Step::Exit([B_I, G_I, S_I, T_I][rng.below(4)], rng.below(2) == 0),
        15 => Step::Stall,
        _ => Step::Advance([5, 20, 60, 200, 600][rng.below(5)]),
    }
}

fn apply(step: &Step, s: Spawner) {
    match *step {
        // With every verb task in flight (waiting for the gate), the step
        // is dropped.
        Step::Verb(v) => {
            if let Ok(task) = verb(v, s) {
                IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
                s.spawn(task);
            }
        }
        // A full mailbox drops this step's command (the model's choice).
        Step::Control(i, op) => {
            let _ = try_request_control(NODES[i], op);
        }
        Step::Fill => G_GATE.provide(()),
        Step::Empty => {
            let _ = G_GATE.take();
        }
        Step::Exit(i, failed) => EXIT[i].signal(failed),
        Step::Stall => {
            STALLED.fetch_xor(true, Ordering::SeqCst);
        }
        Step::Advance(ms) => common::advance(Duration::from_millis(ms)),
    }
    // `S` beats at every step unless it stalled: the clock moves only in
    // `Advance`, and the beat lands before anyone looks at it again.
    if !STALLED.load(Ordering::SeqCst) {
        S.beat();
    }
}

/// Restart counts seen so far, per policy node, with when they grew.
struct Budgets {
    seen: [u16; 3],
    stamps: [Vec<(u64, u16)>; 3],
}

impl Budgets {
    fn new() -> Self {
        Self {
            seen: POLICIES.map(|(_, spec)| spec.restarts()),
            stamps: [Vec::new(), Vec::new(), Vec::new()],
        }
    }

    /// Record the restarts made since the last call (all made at this
    /// instant: the clock moves only between steps) and check every window.
    fn check(&mut self, out: &mut Vec<String>) {
        let now = Instant::now().as_ticks();
        for (k, (i, spec)) in POLICIES.iter().enumerate() {
            let count = spec.restarts();
            let grew = count.wrapping_sub(self.seen[k]);
            self.seen[k] = count;
            if grew > 0 {
                self.stamps[k].push((now, grew));
            }
            let (max, window_ms) = spec.budget().unwrap();
            let window = Duration::from_millis(window_ms.into()).as_ticks();
            let inside: u32 = self.stamps[k]
                .iter()
                .filter(|(t, _)| now - t < window)
                .map(|(_, n)| u32::from(*n))
                .sum();
            if inside > u32::from(max) {
                out.push(format!(
                    "`{}` restarted {inside} times within {window_ms} ms (budget {max})",
                    NODES[*i].name
                ));
            }
        }
    }
}

/// Each node's state, for `MODEL_TRACE=1` (R running, S stop requested,
/// E exited, D disabled, H held).
fn states() -> String {
    let bit = |on: bool, c: char| if on { c } else { '-' };
    let one = |n: &&TaskNode| {
        let f = [
            bit(n.is_running(), 'R'),
            bit(n.shutdown_requested(), 'S'),
            bit(n.has_exited(), 'E'),
            bit(n.is_disabled(), 'D'),
            bit(n.is_held(), 'H'),
        ];
        format!("{}:{}", n.name, f.iter().collect::<String>())
    };
    NODES.iter().map(one).collect::<Vec<_>>().join(" ")
}

/// Checks that hold at any instant.
fn always_problems(out: &mut Vec<String>) {
    for (i, n) in NODES.iter().enumerate() {
        if i == D_I || !n.is_running() {
            continue;
        }
        for &d in DEPS[i] {
            let dep = NODES[d as usize];
            if stopping(dep) {
                out.push(format!(
                    "`{}` runs while its dependency `{}` is stopping",
                    n.name, dep.name
                ));
            }
        }
    }
}

/// Checks that hold once settled with no verb in flight.
fn settled_problems(out: &mut Vec<String>) {
    if IN_FLIGHT.load(Ordering::SeqCst) != 0 {
        return;
    }
    let halted = SUP.is_halted();
    for n in NODES {
        if n.is_running() && halted {
            out.push(format!("`{}` runs while the graph is torn down", n.name));
        }
        if n.is_running() && (n.is_disabled() || n.is_held()) {
            out.push(format!("`{}` runs while disabled or held", n.name));
        }
    }
}

/// Finish every verb in flight, then bring the graph back to its start:
/// torn down, everything enabled, gate empty, every budget window and
/// backoff run out (so a sequence replays alone as it ran here).
async fn reset(s: Spawner) {
    G_GATE.provide(());
    STALLED.store(false, Ordering::SeqCst);
    while IN_FLIGHT.load(Ordering::SeqCst) != 0 {
        common::settle().await;
        common::advance(Duration::from_millis(200));
        S.beat();
    }
    // Drain the mailbox through `run()` (a restarted one if it returned).
    ensure_run(s);
    common::settle().await;
    // Lift every latch (a restart `run()` makes meanwhile may refuse a
    // node: the teardown below settles it either way).
    for n in NODES {
        let _ = SUP.activate(n, s).await;
    }
    common::settle().await;
    SUP.teardown().await.unwrap();
    common::settle().await;
    let _ = G_GATE.take();
    common::advance(Duration::from_millis(2_000));
    common::settle().await;
    PROBLEMS.lock().unwrap().clear();
}

/// The seed of sequence `k`: one seed per sequence, so each replays alone.
fn sequence_seed(base: u64, k: u64) -> u64 {
    let mut z = base.wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) | 1
}

async fn sequence(seed: u64, s: Spawner) -> usize {
    let mut rng = Rng(seed);
    let mut budgets = Budgets::new();
    let mut history = Vec::new();
    for step in 0..STEPS {
        ensure_run(s);
        let st = pick(&mut rng);
        apply(&st, s);
        history.push(st);
        // Sometimes one pass only: the next step lands mid-flight.
        let settled = rng.below(3) != 0;
        if settled {
            common::settle().await;
        } else {
            embassy_futures::yield_now().await;
        }
        if std::env::var("MODEL_TRACE").is_ok() {
            eprintln!("{step} {:?} {}", history.last().unwrap(), states());
        }
        let mut problems = std::mem::take(&mut *PROBLEMS.lock().unwrap());
        always_problems(&mut problems);
        budgets.check(&mut problems);
        if settled {
            settled_problems(&mut problems);
        }
        assert!(
            problems.is_empty(),
            "MODEL_SEED={seed} (step {step}):\n{problems:#?}\nsteps: {history:?}"
        );
    }
    reset(s).await;
    STEPS
}

#[embassy_executor::task]
async fn driver(s: Spawner) {
    D.set_detached(true);
    let replay = common::model::replay_seed();
    let seeds: Vec<u64> = match replay {
        Some(seed) => vec![seed],
        None => {
            // `MODEL_BASE=<u64>` explores another set of sequences.
            let base = std::env::var("MODEL_BASE")
                .ok()
                .and_then(|v| v.parse().ok());
            let base = base.unwrap_or(DEFAULT_SEED);
            (0..SEQUENCES).map(|k| sequence_seed(base, k)).collect()
        }
    };
    let mut steps = 0;
    for &seed in &seeds {
        steps += sequence(seed, s).await;
    }
    let restarts: u32 = POLICIES
        .iter()
        .map(|(_, spec)| u32::from(spec.restarts()))
        .sum();
    let escalations = ESCALATIONS.load(Ordering::SeqCst);
    println!(
        "restart model: {} sequences, {steps} steps, {restarts} restarts, \
         {escalations} escalations",
        seeds.len()
    );
    if replay.is_none() {
        assert!(restarts > 0, "no restart happened: the model misses them");
        assert!(
            escalations > 0,
            "no escalation happened: the model misses them"
        );
    }
    common::pass();
}

#[test]
fn restarts_racing_control_teardown_and_deactivate_keep_the_invariants() {
    common::run(&NODES, |s| s.spawn(driver(s).unwrap()));
}
