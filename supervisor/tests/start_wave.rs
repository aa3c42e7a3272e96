//! The bring-up wave (issue 13, item 1) on a real executor and the mock
//! clock: independent slow gates overlap, a blocked node holds up only its
//! dependents, each node's `slot_timeout` runs from when it begins to wait,
//! and a failure keeps down only the failed node and what depends on it.
mod common;

use core::sync::atomic::Ordering::SeqCst;
use core::sync::atomic::{AtomicBool, AtomicU32};

use common::Event::Spawned;
use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::{Gate, Graph, Mode, NodeSpec, ResourceSlot, Supervisor, TaskNode};
use embassy_time::{Duration, Instant};

static GA: ResourceSlot<()> = ResourceSlot::new();
static GB: ResourceSlot<()> = ResourceSlot::new();
static GD: ResourceSlot<()> = ResourceSlot::new();

static GATES_A: [&dyn Gate; 1] = [&GA];
static GATES_B: [&dyn Gate; 1] = [&GB];
static GATES_D: [&dyn Gate; 1] = [&GD];

const fn gated(name: &'static str, at: u8, gates: &'static [&'static dyn Gate]) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .with_resources(gates)
        .with_slot_timeout(1000)
        .at(at)
}

// A and B gated and independent; C free; D gated, needs A; E needs D.
static A: TaskNode = TaskNode::new(&gated("A", 0, &GATES_A));
static B: TaskNode = TaskNode::new(&gated("B", 1, &GATES_B));
static C: TaskNode = TaskNode::new(
    &NodeSpec::new("C", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(2),
);
static D: TaskNode = TaskNode::new(&gated("D", 3, &GATES_D));
static E: TaskNode = TaskNode::new(
    &NodeSpec::new("E", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(4),
);
static G: Graph<5> = Graph::new(
    [Some(&A), Some(&B), Some(&C), Some(&D), Some(&E)],
    [&[], &[], &[], &[0], &[3]],
);
static SUP: Supervisor<5> = Supervisor::new(&G);
const ALL: [&TaskNode; 5] = [&A, &B, &C, &D, &E];

/// `start` against the clock: its result, and when (mock ms) each node
/// was spawned.
async fn start(
    s: Spawner,
    fills: &[common::schedule::Fill],
) -> (
    Result<(), embassy_supervisor::NodeFault>,
    u64,
    Vec<(&'static str, u64)>,
) {
    for g in [&GA, &GB, &GD] {
        g.clear();
    }
    let t = common::schedule::timed(SUP.start(s), fills).await;
    (t.result, t.took_ms, t.spawned)
}

#[test]
fn independent_gates_overlap_and_each_budget_runs_from_its_own_wait() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        // B's gate opens at 300 ms, A's at 900, D's at 1500. D waits for A
        // first (no budget), then for its gate: 600 ms of its 1000 ms.
        let (r, took, spawned) = start(s, &[(300, &GB), (900, &GA), (1500, &GD)]).await;
        assert!(r.is_ok(), "{r:?}");
        assert_eq!(
            spawned,
            [("C", 0), ("B", 300), ("A", 900), ("D", 1500), ("E", 1500)],
            "C waits for nobody, B not for A, D and E for A"
        );
        assert_eq!(took, 1500);
        assert!(SUP.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn a_failure_keeps_down_only_the_failed_node_and_its_dependents() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        // A's gate never opens: A fails at its 1000 ms budget; D and E
        // (which need A) stay down, B and C come up.
        let (r, took, spawned) = start(s, &[(0, &GD), (300, &GB)]).await;
        assert!(r.is_err());
        assert_eq!(SUP.failed_node().map(|n| n.name), Some("A"));
        assert_eq!(spawned, [("C", 0), ("B", 300)]);
        assert_eq!(took, 1000);
        assert!(B.is_running() && C.is_running());
        assert!(!A.is_running() && !D.is_running() && !E.is_running());

        // Two failures: the first one is named. B's gate stays closed too,
        // and A's opens too late: both fail at 1000 ms, A first in order.
        assert!(SUP.teardown().await.is_ok());
        let (r, _, spawned) = start(s, &[(1200, &GA)]).await;
        assert!(r.is_err());
        assert_eq!(SUP.failed_node().map(|n| n.name), Some("A"));
        assert_eq!(spawned, [("C", 0)]);
        assert!(SUP.teardown().await.is_ok());
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn a_teardown_during_the_wave_ends_it() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for g in [&GA, &GB, &GD] {
            g.clear();
        }
        let up = select(SUP.start(s), async {
            common::settle().await;
            assert!(C.is_running() && !A.is_running());
            assert!(SUP.teardown().await.is_ok());
            // Gates open after the teardown returned: nothing comes up.
            GA.provide(());
            GB.provide(());
            GD.provide(());
            common::settle().await;
            core::future::pending::<()>().await
        })
        .await;
        let Either::First(r) = up else { unreachable!() };
        assert!(r.is_err());
        common::settle().await;
        assert!(ALL.iter().all(|n| !n.is_running()));
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

// ---- a first `Busy` inside the wave ---------------------------------------
//
// `F1` and `F2` refuse their first spawn with `Busy`; `W` waits for its
// gate. `F1` first meets `Busy` in `start`'s fast path (which then hands the
// order to the wave), `F2` inside the wave. Each is tried again after the
// executor ran, not when something else changes or at its slot timeout.

static GW: ResourceSlot<()> = ResourceSlot::new();
static GATES_W: [&dyn Gate; 1] = [&GW];

/// Spawn attempts per flaky node, refusals still to give, and the count of
/// ticker polls at each attempt (an executor pass between two attempts
/// moves it).
static ATTEMPTS: [AtomicU32; 2] = [const { AtomicU32::new(0) }; 2];
static REFUSE: [AtomicU32; 2] = [const { AtomicU32::new(0) }; 2];
static TICKS: AtomicU32 = AtomicU32::new(0);
static TICKS_AT: [[AtomicU32; 2]; 2] = [const { [const { AtomicU32::new(0) }; 2] }; 2];

fn flaky(k: usize, node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let n = ATTEMPTS[k].fetch_add(1, SeqCst);
    if let Some(at) = TICKS_AT[k].get(n as usize) {
        at.store(TICKS.load(SeqCst), SeqCst);
    }
    if REFUSE[k].load(SeqCst) > 0 {
        REFUSE[k].fetch_sub(1, SeqCst);
        return Err(SpawnError::Busy);
    }
    common::spawn_worker(node, s)
}

fn flaky1(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    flaky(0, node, s)
}

fn flaky2(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    flaky(1, node, s)
}

static F1: TaskNode = TaskNode::new(
    &NodeSpec::new("F1", Mode::Terminate)
        .with_spawn(flaky1)
        .with_slot_timeout(1000)
        .at(0),
);
static W: TaskNode = TaskNode::new(&gated("W", 1, &GATES_W));
static F2: TaskNode = TaskNode::new(
    &NodeSpec::new("F2", Mode::Terminate)
        .with_spawn(flaky2)
        .with_slot_timeout(1000)
        .at(2),
);
static RG: Graph<3> = Graph::new([Some(&F1), Some(&W), Some(&F2)], [&[], &[], &[]]);
static RSUP: Supervisor<3> = Supervisor::new(&RG);
const RALL: [&TaskNode; 3] = [&F1, &W, &F2];

static TICKING: AtomicBool = AtomicBool::new(false);

/// Polled once per executor pass until [`stop_ticker`]. (A test that
/// panics strands its instance: one per test.)
#[embassy_executor::task(pool_size = 4)]
async fn ticker() {
    while TICKING.load(SeqCst) {
        TICKS.fetch_add(1, SeqCst);
        embassy_futures::yield_now().await;
    }
}

fn start_ticker(s: Spawner) {
    TICKING.store(true, SeqCst);
    s.spawn(ticker().unwrap());
}

/// End the ticker, so the next test (on another executor) can spawn it.
async fn stop_ticker() {
    TICKING.store(false, SeqCst);
    common::settle().await;
}

/// Both flaky nodes refuse their next spawn once; `W`'s gate is closed.
fn refuse_once() {
    GW.clear();
    common::log::clear();
    for k in 0..2 {
        ATTEMPTS[k].store(0, SeqCst);
        REFUSE[k].store(1, SeqCst);
    }
}

/// Each flaky node was tried twice, with an executor pass in between.
fn retried_after_a_pass() {
    for k in 0..2 {
        assert_eq!(ATTEMPTS[k].load(SeqCst), 2, "flaky node {k}");
        let [first, second] = &TICKS_AT[k];
        assert!(
            second.load(SeqCst) > first.load(SeqCst),
            "flaky node {k}: no executor pass between its two attempts"
        );
    }
}

#[test]
fn a_busy_spawn_in_the_wave_is_retried_after_one_executor_pass() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        start_ticker(s);
        refuse_once();
        let begin = Instant::now();
        let up = select(RSUP.start(s), async {
            // W's gate opens at 300 ms: the flaky nodes must not wait for it.
            common::wait_until(
                || F1.is_running() && F2.is_running(),
                Duration::from_millis(300),
            )
            .await
            .expect("the flaky nodes waited for W's gate");
            GW.provide(());
            core::future::pending::<()>().await
        })
        .await;
        let Either::First(r) = up else { unreachable!() };
        assert!(r.is_ok(), "{r:?}");
        retried_after_a_pass();
        let spawned: Vec<_> = common::log::entries()
            .into_iter()
            .filter(|e| e.event == Spawned)
            .map(|e| (e.node, (e.at - begin).as_millis()))
            .collect();
        assert_eq!(spawned, [("F1", 0), ("F2", 0), ("W", 0)]);
        assert!(RSUP.teardown().await.is_ok());
        stop_ticker().await;
        common::pass();
    }
    common::run(&RALL, |s| s.spawn(drive(s).unwrap()));
}

/// After an abandoned bring-up, a fresh `start` gets its own retry: a
/// bring-up that gave up after a first `Busy` left no pending retry behind.
async fn fresh_start_retries(s: Spawner) {
    refuse_once();
    GW.provide(());
    let r = RSUP.start(s).await;
    assert!(
        r.is_ok(),
        "a stale retry mark made the first Busy final: {r:?}"
    );
    retried_after_a_pass();
    assert!(RSUP.teardown().await.is_ok());
}

#[test]
fn a_wave_abandoned_after_a_first_busy_leaves_no_retry_pending() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        start_ticker(s);

        // A teardown begins while both flaky nodes await their retry: the
        // wave ends with an error, nothing comes up.
        refuse_once();
        let up = select(RSUP.start(s), async {
            assert!(RSUP.teardown().await.is_ok());
            core::future::pending::<()>().await
        })
        .await;
        let Either::First(r) = up else { unreachable!() };
        assert!(r.is_err());
        assert!(RALL.iter().all(|n| !n.is_running()));
        fresh_start_retries(s).await;

        // The caller drops the bring-up while both await their retry.
        refuse_once();
        let dropped = select(RSUP.start(s), async {}).await;
        assert!(matches!(dropped, Either::Second(())));
        fresh_start_retries(s).await;

        // `F2` is latched `disabled` while it awaits its retry: the wave
        // reports the refusal, and `activate` later gets its own retry.
        refuse_once();
        GW.provide(());
        let up = select(RSUP.start(s), async {
            assert!(RSUP.deactivate(&F2).await.is_ok());
            core::future::pending::<()>().await
        })
        .await;
        let Either::First(r) = up else { unreachable!() };
        assert_eq!(r.map_err(|e| e.node.name), Err("F2"));
        assert!(F1.is_running() && !F2.is_running());
        ATTEMPTS[1].store(0, SeqCst);
        REFUSE[1].store(1, SeqCst);
        let r = RSUP.activate(&F2, s).await;
        assert!(
            r.is_ok(),
            "a stale retry mark made the first Busy final: {r:?}"
        );
        assert_eq!(ATTEMPTS[1].load(SeqCst), 2);

        // `restart` brings a node back through the same wave: its first
        // `Busy` is retried after an executor pass.
        for k in 0..2 {
            ATTEMPTS[k].store(0, SeqCst);
            REFUSE[k].store(1, SeqCst);
        }
        assert!(RSUP.restart(&F1, s).await.is_ok());
        assert!(RSUP.restart(&F2, s).await.is_ok());
        retried_after_a_pass();
        assert!(F1.is_running() && F2.is_running());
        assert!(RSUP.teardown().await.is_ok());
        stop_ticker().await;
        common::pass();
    }
    common::run(&RALL, |s| s.spawn(drive(s).unwrap()));
}
