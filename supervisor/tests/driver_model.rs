//! Randomized interleavings of the drivers with the verbs (issue 12, part 2):
//! `Supervisor::run` drives a pool and a controller the whole time, while
//! random steps start and tear down the graph, activate and deactivate nodes,
//! fill and empty gates, submit jobs, report load and move the clock. Verbs
//! run as tasks of their own, so a verb waiting on an empty gate stays in
//! flight across the next steps, beside the drivers' own gate waits.
//!
//! Complements `model.rs` (the lifecycle table, one verb at a time) and
//! `controller_model.rs` (the slot machine). Checked after every step:
//!
//! - nothing comes up behind a teardown: a spawn or resume of node `i` after
//!   a teardown returned `Ok` needs a `start`, `respawn_terminate`,
//!   `activate` (or `start_node(i)`) invoked after that teardown began;
//! - once no verb is in flight: a disabled or held node is not running, and a node
//!   not woken since the last successful teardown is down.
//!
//! With feature `restart`, `BASE` (`always`) and `G` (`on_failure`) carry a
//! restart policy, and a random step makes either exit on its own (failed
//! or not): `run()` restarts them rest-for-one while the verbs race it, and
//! the same checks hold (a scheduled restart never beats a teardown, a
//! `deactivate` or a latch).
//!
//! Seeded xorshift; `MODEL_SEED=<u64>` replays a run.
#![cfg(all(feature = "controller", feature = "pool"))]
mod common;

use common::model::Rng;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::controller::{Controller, ControllerSpec, JobTarget};
use embassy_supervisor::{
    DeferredShrink, ElasticPool, Gate, Graph, Mode, NodeSpec, Pool, ResourceSlot, Supervisor,
    TaskNode,
};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::Duration;

const SEQUENCES: usize = 120;
const STEPS: usize = 40;
const DEFAULT_SEED: u64 = 0x0dd_ba11_5eed_f00d;

const N: usize = 6;
/// The slot of the `Pause` node (its resumes are logged by its worker).
const P_I: usize = 2;
const ALL_MASK: u32 = (1 << N) - 1;

// ---- the graph --------------------------------------------------------------
//
//   0 BASE (Terminate)
//   1 G    (Terminate, deps BASE, gate G_GATE)
//   2 P    (Pause, deps BASE)
//   3 M0, 4 M1 (pool, min 1 max 2, deps BASE, gate M_GATE)
//   5 J    (OnDemand controller target, gate J_GATE)

static G_GATE: ResourceSlot<()> = ResourceSlot::new();
static M_GATE: ResourceSlot<()> = ResourceSlot::new();
static J_GATE: ResourceSlot<()> = ResourceSlot::new();
const GATES: [&ResourceSlot<()>; 3] = [&G_GATE, &M_GATE, &J_GATE];

fn slot_of(node: &'static TaskNode) -> usize {
    NODES.iter().position(|n| core::ptr::eq(*n, node)).unwrap()
}

fn spawn_node(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    log(Ev::Up(slot_of(node)));
    common::spawn_worker(node, s)
}

#[embassy_executor::task]
async fn pauser(node: &'static TaskNode) {
    loop {
        node.wait_shutdown().await;
        node.ack_dropped();
        node.wait_resume().await;
        log(Ev::Up(P_I));
    }
}

fn spawn_pauser(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    log(Ev::Up(P_I));
    s.spawn(pauser(node)?);
    Ok(())
}

/// Per exiting node (`BASE`, `G`): make its instance return on its own
/// (`true`: as a failure).
static EXIT: [Signal<CriticalSectionRawMutex, bool>; 2] = [Signal::new(), Signal::new()];

/// A worker that serves until stopped or told to exit on its own.
#[embassy_executor::task(pool_size = 8)]
async fn exiter(node: &'static TaskNode, i: usize) {
    match select(node.wait_shutdown(), EXIT[i].wait()).await {
        Either::First(()) => {
            node.ack_dropped();
            node.mark_exited();
        }
        Either::Second(true) => node.mark_failed(),
        Either::Second(false) => node.mark_exited(),
    }
}

fn spawn_exiter(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let i = slot_of(node);
    log(Ev::Up(i));
    EXIT[i].reset();
    s.spawn(exiter(node, i)?);
    Ok(())
}

#[cfg(feature = "restart")]
mod restarts {
    use embassy_supervisor::{RestartPolicy, RestartSpec, RestartState};

    static BASE_STATE: RestartState = RestartState::new();
    pub static BASE: RestartSpec =
        RestartSpec::new(RestartPolicy::Always, &BASE_STATE).with_backoff(10, 40);
    static G_STATE: RestartState = RestartState::new();
    pub static G: RestartSpec =
        RestartSpec::new(RestartPolicy::OnFailure, &G_STATE).with_backoff(10, 40);
}

const fn base_spec() -> NodeSpec {
    let spec = NodeSpec::new("BASE", Mode::Terminate)
        .with_spawn(spawn_exiter)
        .at(0);
    #[cfg(feature = "restart")]
    let spec = spec.with_restart(&restarts::BASE);
    spec
}

static G_GATES: [&dyn Gate; 1] = [&G_GATE];

const fn g_spec() -> NodeSpec {
    let spec = NodeSpec::new("G", Mode::Terminate)
        .with_spawn(spawn_exiter)
        .with_resources(&G_GATES)
        .with_slot_timeout(500)
        .at(1);
    #[cfg(feature = "restart")]
    let spec = spec.with_restart(&restarts::G);
    spec
}

static BASE: TaskNode = TaskNode::new(&base_spec());
static G: TaskNode = TaskNode::new(&g_spec());
static P: TaskNode = TaskNode::new(
    &NodeSpec::new("P", Mode::Pause)
        .with_spawn(spawn_pauser)
        .at(2),
);
static M: [TaskNode; 2] = [
    TaskNode::new(
        &NodeSpec::new("M0", Mode::OnDemand)
            .with_spawn(spawn_node)
            .with_resources(&[&M_GATE as &dyn Gate])
            .with_slot_timeout(500)
            .at(3)
            .in_pool(0),
    ),
    TaskNode::new(
        &NodeSpec::new("M1", Mode::OnDemand)
            .with_spawn(spawn_node)
            .with_resources(&[&M_GATE as &dyn Gate])
            .with_slot_timeout(500)
            .at(4)
            .in_pool(0),
    ),
];
static J: TaskNode = TaskNode::new(
    &NodeSpec::new("J", Mode::OnDemand)
        .with_spawn(spawn_node)
        .with_resources(&[&J_GATE as &dyn Gate])
        .with_slot_timeout(500)
        .at(5),
);
static M_POOL: ElasticPool<DeferredShrink> =
    ElasticPool::new(&M, 3, 1, 2, DeferredShrink::new(Duration::from_millis(300)));
static POOLS: [&dyn Pool; 1] = [&M_POOL];
static GRAPH: Graph<N> = graph();

const fn graph() -> Graph<N> {
    let g = Graph::new(
        [
            Some(&BASE),
            Some(&G),
            Some(&P),
            Some(&M[0]),
            Some(&M[1]),
            Some(&J),
        ],
        [&[], &[0], &[0], &[0], &[0], &[]],
    )
    .with_pools(&POOLS);
    #[cfg(feature = "restart")]
    let g = g.with_restarts(&[0, 1]);
    g
}
static CTRL: Controller<(), 2, 2, 4, 4> = Controller::new();
static SUP: Supervisor<N> = Supervisor::new(&GRAPH).with_controller(&CTRL);
static TJ: JobTarget<()> = JobTarget::node(&J);
static NODES: [&TaskNode; N] = [&BASE, &G, &P, &M[0], &M[1], &J];

// ---- the event log ------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ev {
    /// Node `i` was spawned or resumed.
    Up(usize),
    /// A verb that may bring these nodes up was invoked (a mask).
    Wake(u32),
    /// A teardown began (its id).
    TeardownBegin(usize),
    /// That teardown returned `Ok`.
    TeardownOk(usize),
}

static LOG: Mutex<Vec<Ev>> = Mutex::new(Vec::new());

fn log(e: Ev) {
    LOG.lock().unwrap().push(e);
}

/// Every `Up` that came behind a successful teardown without a wake of its
/// node invoked after that teardown began.
fn violations(events: &[Ev]) -> Vec<String> {
    let mut out = Vec::new();
    // Per node: index of the last wake covering it.
    let mut woken = [None::<usize>; N];
    // Index of the `TeardownBegin` of the last teardown that returned `Ok`.
    let mut halted_at = None::<usize>;
    for (at, e) in events.iter().enumerate() {
        match *e {
            Ev::Wake(mask) => {
                for (i, w) in woken.iter_mut().enumerate() {
                    if mask & (1 << i) != 0 {
                        *w = Some(at);
                    }
                }
            }
            Ev::TeardownBegin(_) => {}
            Ev::TeardownOk(id) => {
                halted_at = events
                    .iter()
                    .position(|b| *b == Ev::TeardownBegin(id))
                    .max(halted_at);
            }
            Ev::Up(i) => {
                if let Some(h) = halted_at
                    && woken[i].is_none_or(|w| w < h)
                {
                    out.push(format!(
                        "`{}` came up (event {at}) after a teardown returned Ok, \
                         with no wake since it began (event {h})",
                        NODES[i].name
                    ));
                }
            }
        }
    }
    out
}

/// The `TeardownBegin` index of the latest-begun teardown that returned `Ok`.
fn halted_at(events: &[Ev]) -> Option<usize> {
    events
        .iter()
        .filter_map(|e| match e {
            Ev::TeardownOk(id) => events.iter().position(|b| *b == Ev::TeardownBegin(*id)),
            _ => None,
        })
        .max()
}

/// Nodes that may be up once everything settled: woken after the latest
/// successful teardown began.
fn may_be_up(events: &[Ev]) -> u32 {
    let Some(h) = halted_at(events) else {
        return ALL_MASK;
    };
    events[h..].iter().fold(0, |m, e| match e {
        Ev::Wake(mask) => m | mask,
        _ => m,
    })
}

// ---- verbs as tasks -------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Verb {
    Start,
    RespawnTerminate,
    StartNode(usize),
    Activate(usize),
    Deactivate(usize),
    Teardown,
}

static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static TEARDOWNS: AtomicUsize = AtomicUsize::new(0);

#[embassy_executor::task(pool_size = 32)]
async fn verb(v: Verb, s: Spawner) {
    // Logged as the verb begins (in the same poll as its first step), not
    // when it is queued: a start queued before a teardown but run after it
    // began is a start after that teardown.
    match v {
        Verb::Start | Verb::RespawnTerminate | Verb::Activate(_) => log(Ev::Wake(ALL_MASK)),
        Verb::StartNode(i) => log(Ev::Wake(1 << i)),
        Verb::Deactivate(_) | Verb::Teardown => {}
    }
    match v {
        Verb::Start => {
            let _ = SUP.start(s).await;
        }
        Verb::RespawnTerminate => {
            let _ = SUP.respawn_terminate(s).await;
        }
        Verb::StartNode(i) => {
            let _ = SUP.start_node(NODES[i], s).await;
        }
        Verb::Activate(i) => {
            let _ = SUP.activate(NODES[i], s).await;
        }
        Verb::Deactivate(i) => {
            let _ = SUP.deactivate(NODES[i]).await;
        }
        Verb::Teardown => {
            let id = TEARDOWNS.fetch_add(1, Ordering::SeqCst);
            log(Ev::TeardownBegin(id));
            if SUP.teardown().await.is_ok() {
                log(Ev::TeardownOk(id));
            }
        }
    }
    IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
}

/// Invoke `v` in a task of its own.
fn invoke(v: Verb, s: Spawner) {
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    s.spawn(verb(v, s).unwrap());
}

// ---- the driver ---------------------------------------------------------------

static RUN_ALIVE: AtomicBool = AtomicBool::new(false);

#[embassy_executor::task]
async fn runner(s: Spawner) {
    // `run` begins with a `start`; it returns only on an error (a start
    // whose gate timed out).
    log(Ev::Wake(ALL_MASK));
    let _ = SUP.run(s).await;
    RUN_ALIVE.store(false, Ordering::SeqCst);
}

fn ensure_run(s: Spawner) {
    if !RUN_ALIVE.swap(true, Ordering::SeqCst) {
        s.spawn(runner(s).unwrap());
    }
}

#[derive(Debug)]
enum Step {
    Verb(Verb),
    Fill(usize),
    Empty(usize),
    Submit,
    Busy(usize),
    Idle(usize),
    Advance(u64),
    /// `BASE` (0) or `G` (1) returns on its own (`true`: failed).
    Exit(usize, bool),
}

fn pick(rng: &mut Rng) -> Step {
    let i = rng.below(N);
    match rng.below(16) {
        0 => Step::Verb(Verb::Start),
        1 => Step::Verb(Verb::RespawnTerminate),
        2 => Step::Verb(Verb::StartNode(i)),
        3 => Step::Verb(Verb::Activate(i)),
        4 => Step::Verb(Verb::Deactivate(i)),
        5 | 6 => Step::Verb(Verb::Teardown),
        7 => Step::Fill(rng.below(GATES.len())),
        8 => Step::Empty(rng.below(GATES.len())),
        9 => Step::Submit,
        10 => Step::Busy(rng.below(2)),
        11 => Step::Idle(rng.below(2)),
        12..=14 => Step::Exit(rng.below(2), rng.below(2) == 0),
        _ => Step::Advance([50, 200, 600][rng.below(3)]),
    }
}

fn apply(step: &Step, s: Spawner) {
    match *step {
        Step::Verb(v) => invoke(v, s),
        Step::Fill(g) => GATES[g].provide(()),
        Step::Empty(g) => {
            let _ = GATES[g].take();
        }
        Step::Submit => {
            let _ = CTRL.try_submit(ControllerSpec::queue(&TJ, ()));
        }
        Step::Busy(m) => M[m].mark_busy(),
        Step::Idle(m) => M[m].mark_idle(),
        Step::Advance(ms) => common::advance(Duration::from_millis(ms)),
        Step::Exit(i, failed) => EXIT[i].signal(failed),
    }
}

/// Quiescent checks: only once no verb is in flight.
fn settled_problems(events: &[Ev]) -> Vec<String> {
    let mut out = Vec::new();
    if IN_FLIGHT.load(Ordering::SeqCst) != 0 {
        return out;
    }
    let allowed = may_be_up(events);
    for (i, n) in NODES.iter().enumerate() {
        if n.is_running() && (n.is_disabled() || n.is_held()) {
            out.push(format!("`{}` runs while disabled or held", n.name));
        }
        if n.is_running() && allowed & (1 << i) == 0 {
            out.push(format!(
                "`{}` runs, not woken since the last successful teardown",
                n.name
            ));
        }
    }
    out
}

/// Finish every verb in flight, then bring the graph back to its start:
/// everything enabled and down, gates empty, the log cleared.
async fn reset(s: Spawner) {
    for g in GATES {
        g.provide(());
    }
    while IN_FLIGHT.load(Ordering::SeqCst) != 0 {
        common::settle().await;
        common::advance(Duration::from_millis(600));
    }
    for n in NODES {
        SUP.activate(n, s).await.unwrap();
    }
    common::settle().await;
    SUP.teardown().await.unwrap();
    common::settle().await;
    for g in GATES {
        let _ = g.take();
    }
    for m in &M {
        m.mark_idle();
    }
    // The log restarts where the graph is: torn down, nothing in flight.
    let id = TEARDOWNS.fetch_add(1, Ordering::SeqCst);
    let mut log = LOG.lock().unwrap();
    log.clear();
    log.extend([Ev::TeardownBegin(id), Ev::TeardownOk(id)]);
}

fn seed() -> u64 {
    common::model::replay_seed().unwrap_or(DEFAULT_SEED)
}

#[embassy_executor::task]
async fn driver(s: Spawner) {
    let seed = seed();
    let mut rng = Rng(seed);
    let mut steps = 0usize;
    for seq in 0..SEQUENCES {
        let mut history = Vec::new();
        for step in 0..STEPS {
            ensure_run(s);
            let st = pick(&mut rng);
            apply(&st, s);
            history.push(st);
            // Sometimes one pass only: the next step lands mid-flight.
            if rng.below(3) == 0 {
                embassy_futures::yield_now().await;
            } else {
                common::settle().await;
            }
            let events = LOG.lock().unwrap().clone();
            let mut problems = violations(&events);
            problems.extend(settled_problems(&events));
            assert!(
                problems.is_empty(),
                "seed {seed}, sequence {seq}, step {step}:\n{problems:#?}\n\
                 steps: {history:?}\nevents: {events:?}"
            );
            steps += 1;
        }
        reset(s).await;
    }
    println!(
        "driver model: {SEQUENCES} sequences x {STEPS} steps = {steps} steps checked (seed {seed})"
    );
    #[cfg(feature = "restart")]
    {
        let r = restarts::BASE.restarts() + restarts::G.restarts();
        println!("driver model: {r} restarts raced the verbs");
        assert!(r > 0, "no restart happened: the model does not cover them");
    }
    common::pass();
}

#[test]
fn drivers_and_verbs_interleaved_never_bring_a_node_up_behind_a_teardown() {
    common::run(&NODES, |s| s.spawn(driver(s).unwrap()));
}
