//! Automatic restarts driven by `run()` (feature `restart`): each policy
//! against each way an instance ends, the backoff doubling and starting
//! over, the budget's window edges and the escalation, rest-for-one order,
//! and what wins over a scheduled restart.
#![cfg(all(feature = "macros", feature = "restart", feature = "events"))]
mod common;

use core::sync::atomic::{AtomicU32, Ordering};

use common::Event::{Acked, Started};
use embassy_executor::Spawner;
use embassy_futures::select::{Either, select};
use embassy_supervisor::event::{EventKind, EventSubscriber, WaitResult};
use embassy_supervisor::{FaultKind, NodeFault, Supervisor, TaskNode};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::Duration;

/// How the next instances of a node end: `errs` return `Err`, then `oks`
/// return `Ok`, then instances serve until stopped or killed (`Err`).
struct Plan {
    errs: AtomicU32,
    oks: AtomicU32,
    kill: Signal<CriticalSectionRawMutex, ()>,
}

impl Plan {
    const fn new(errs: u32, oks: u32) -> Self {
        Self {
            errs: AtomicU32::new(errs),
            oks: AtomicU32::new(oks),
            kill: Signal::new(),
        }
    }
}

fn take(c: &AtomicU32) -> bool {
    c.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

static PLANS: [(&str, Plan); 17] = [
    ("DT", Plan::new(0, 0)),
    ("ONF_ERR", Plan::new(1, 0)),
    ("ONF_OK", Plan::new(0, 1)),
    ("ALW_OK", Plan::new(0, 1)),
    ("ALW_ERR", Plan::new(1, 0)),
    ("NEV_ERR", Plan::new(1, 0)),
    ("BK", Plan::new(5, 0)),
    ("ROOT", Plan::new(0, 0)),
    ("ESC", Plan::new(0, 99)),
    ("A", Plan::new(0, 0)),
    ("B", Plan::new(0, 0)),
    ("C", Plan::new(0, 0)),
    ("D", Plan::new(0, 0)),
    ("DW", Plan::new(0, 99)),
    ("HT", Plan::new(0, 99)),
    ("BUD", Plan::new(0, 0)),
    ("UNIT", Plan::new(0, 1)),
];

fn plan(node: &TaskNode) -> &'static Plan {
    &PLANS.iter().find(|(n, _)| *n == node.name).unwrap().1
}

/// A worker whose instances end as its node's [`Plan`] says.
async fn planned(node: &'static TaskNode) -> Result<(), ()> {
    common::log::record(node, Started);
    let p = plan(node);
    if take(&p.errs) {
        return Err(());
    }
    if take(&p.oks) {
        return Ok(());
    }
    match select(node.wait_shutdown(), p.kill.wait()).await {
        Either::First(()) => {
            common::log::record(node, Acked);
            node.ack_dropped();
            Ok(())
        }
        Either::Second(()) => Err(()),
    }
}

/// The same without an `exit:` value: every return is a normal exit.
async fn planned_unit(node: &'static TaskNode) {
    let _ = planned(node).await;
}

static RUN_RESULT: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

macro_rules! runner {
    ($task:ident, $sup:expr) => {
        #[embassy_executor::task]
        async fn $task(spawner: Spawner) {
            let e = $sup.run(spawner).await;
            *RUN_RESULT.lock().unwrap() = Some(match e.fault() {
                NodeFault {
                    node,
                    kind:
                        FaultKind::Escalated {
                            restarts,
                            window_ms,
                        },
                } => format!("escalated {} {restarts} {window_ms}", node.name),
                other => format!("{other}"),
            });
        }
    };
}

fn started(n: &TaskNode) -> usize {
    common::log::count(n, Started)
}

/// Every `RestartScheduled` delay published so far for `node`.
fn delays(sub: &mut EventSubscriber, node: &str) -> Vec<u32> {
    let mut out = Vec::new();
    while let Some(r) = sub.try_next_message() {
        let WaitResult::Message(e) = r else {
            panic!("the test read events too late: {r:?}");
        };
        if let EventKind::RestartScheduled { node: n, delay_ms } = e.kind {
            if n == node {
                out.push(delay_ms);
            }
        }
    }
    out
}

// ---- each policy against each way an instance ends ----------------------

embassy_supervisor::supervisor_graph! {
    name: POLICIES;
    node ONF_ERR = Terminate, task: planned, exit: Result<(), ()>, restart: on_failure,
        backoff: 10..80;
    node ONF_OK = Terminate, task: planned, exit: Result<(), ()>, restart: on_failure,
        backoff: 10..80;
    node ALW_OK = Terminate, task: planned, exit: Result<(), ()>, restart: always,
        backoff: 10..80;
    node ALW_ERR = Terminate, task: planned, exit: Result<(), ()>, restart: always,
        backoff: 10..80;
    node UNIT = Terminate, task: planned_unit, restart: always, backoff: 10..80;
    node NEV_ERR = Terminate, task: planned, exit: Result<(), ()>, restart: never;
}
static SUP_P: Supervisor<6> = Supervisor::new(&POLICIES);
runner!(run_p, SUP_P);

#[embassy_executor::task]
async fn policies(spawner: Spawner) {
    spawner.spawn(run_p(spawner).unwrap());
    common::advance_after_idle(Duration::from_millis(5)).await;
    common::settle().await;
    // Everything started once; the failures and exits are scheduled.
    for n in [&ONF_ERR, &ONF_OK, &ALW_OK, &ALW_ERR, &UNIT, &NEV_ERR] {
        assert_eq!(started(n), 1, "{}", n.name);
    }
    assert!(ONF_ERR.has_failed() && !ONF_OK.has_failed());
    common::advance_after_idle(Duration::from_millis(10)).await;
    common::settle().await;
    // on_failure: a failure comes back, a normal exit stays down.
    assert_eq!(started(&ONF_ERR), 2);
    assert!(ONF_ERR.is_running());
    assert_eq!(started(&ONF_OK), 1);
    assert!(ONF_OK.has_exited() && !ONF_OK.is_running());
    // always: both come back, with or without an `exit:` value.
    assert_eq!(started(&ALW_OK), 2);
    assert_eq!(started(&ALW_ERR), 2);
    assert_eq!(started(&UNIT), 2);
    // never: stays down.
    assert_eq!(started(&NEV_ERR), 1);
    assert!(NEV_ERR.has_exited() && !NEV_ERR.is_running());
    assert_eq!(
        ONF_ERR.restart_spec().unwrap().restarts(),
        1,
        "the restart is counted"
    );
    common::pass();
}

#[test]
fn each_policy_against_each_exit() {
    common::run(&common::nodes_of(&POLICIES), |s| {
        s.spawn(policies(s).unwrap())
    });
}

// ---- backoff: doubling to its ceiling, starting over after a stable run --

embassy_supervisor::supervisor_graph! {
    name: BACKOFF;
    node BK = Terminate, task: planned, exit: Result<(), ()>, restart: on_failure,
        backoff: 10..40;
}
static SUP_B: Supervisor<1> = Supervisor::new(&BACKOFF);
runner!(run_b, SUP_B);

#[embassy_executor::task]
async fn backoff(spawner: Spawner) {
    let mut sub = embassy_supervisor::event::subscribe().unwrap();
    spawner.spawn(run_b(spawner).unwrap());
    // Five failures in a row: 10, 20, 40 (the ceiling), 40, 40. The events
    // are read as they come (the channel holds 16).
    let mut seen = Vec::new();
    common::wait_until(
        || {
            seen.extend(delays(&mut sub, "BK"));
            started(&BK) == 6
        },
        Duration::from_millis(200),
    )
    .await
    .unwrap();
    assert_eq!(seen, [10, 20, 40, 40, 40]);
    // Up for the stable period (the ceiling, 40 ms): the next failure
    // starts over at the floor.
    common::advance_after_idle(Duration::from_millis(40)).await;
    plan(&BK).kill.signal(());
    common::wait_until(|| started(&BK) == 7, Duration::from_millis(20))
        .await
        .unwrap();
    assert_eq!(delays(&mut sub, "BK"), [10]);
    // Killed again at once: not stable, so it doubles.
    plan(&BK).kill.signal(());
    common::wait_until(|| started(&BK) == 8, Duration::from_millis(30))
        .await
        .unwrap();
    assert_eq!(delays(&mut sub, "BK"), [20]);
    common::pass();
}

#[test]
fn backoff_doubles_and_starts_over_after_a_stable_run() {
    common::run(&common::nodes_of(&BACKOFF), |s| {
        s.spawn(backoff(s).unwrap())
    });
}

// ---- the budget: its window's edges, and the escalation -----------------

embassy_supervisor::supervisor_graph! {
    name: BUDGET;
    restart_budget 2 in 1000;
    node ROOT = Terminate, task: planned, exit: Result<(), ()>;
    node ESC = Terminate, task: planned, exit: Result<(), ()>, deps: [ROOT],
        restart: always, backoff: 5..5;
    node BUD = Terminate, task: planned, exit: Result<(), ()>, restart_budget: 2 in 100;
}
static SUP_G: Supervisor<3> = Supervisor::new(&BUDGET);
runner!(run_g, SUP_G);

#[embassy_executor::task]
async fn budget_window(spawner: Spawner) {
    SUP_G.start(spawner).await.unwrap();
    // Manual restarts: R = 2 pass, the third inside 100 ms is refused
    // before anything stops.
    SUP_G.restart(&BUD, spawner).await.unwrap(); // t = 0
    common::advance(Duration::from_millis(50));
    SUP_G.restart(&BUD, spawner).await.unwrap(); // t = 50
    common::advance(Duration::from_millis(10));
    // The second restart's instance records its start when first polled.
    common::settle().await;
    let before = started(&BUD);
    match SUP_G.restart(&BUD, spawner).await {
        Err(
            fault @ NodeFault {
                kind: FaultKind::BudgetSpent { .. },
                ..
            },
        ) => {
            assert_eq!(fault.node.name, "BUD");
            let spent = FaultKind::BudgetSpent {
                restarts: 2,
                window_ms: 100,
            };
            assert_eq!(fault.kind, spent);
            assert_eq!(
                fault.to_string(),
                "node `BUD` not restarted: 2 restarts within 100 ms spent its budget"
            );
        }
        other => panic!("expected BudgetSpent, got {other:?}"),
    }
    assert!(BUD.is_running());
    assert_eq!(started(&BUD), before, "nothing stopped or started");
    // t = 100: the restart at 0 left the window and stops counting.
    common::advance(Duration::from_millis(40));
    SUP_G.restart(&BUD, spawner).await.unwrap();
    // t = 120: the ones at 50 and 100 are inside.
    common::advance(Duration::from_millis(20));
    assert!(SUP_G.restart(&BUD, spawner).await.is_err());
    common::advance(Duration::from_millis(31)); // t = 151
    SUP_G.restart(&BUD, spawner).await.unwrap();
    assert_eq!(BUD.restart_spec().unwrap().restarts(), 4);
    SUP_G.teardown().await.unwrap();
    common::pass();
}

#[test]
fn budget_window_edges() {
    common::run(&common::nodes_of(&BUDGET), |s| {
        s.spawn(budget_window(s).unwrap())
    });
}

#[embassy_executor::task]
async fn escalation(spawner: Spawner) {
    // ESC (graph default 2 in 1000) ends every instance: restarted at 5
    // and 10 ms, the third is refused and the graph torn down.
    spawner.spawn(run_g(spawner).unwrap());
    common::wait_until(
        || RUN_RESULT.lock().unwrap().is_some(),
        Duration::from_millis(100),
    )
    .await
    .unwrap();
    assert_eq!(
        RUN_RESULT.lock().unwrap().take().unwrap(),
        "escalated ESC 2 1000"
    );
    assert_eq!(started(&ESC), 3);
    assert!(!ROOT.is_running() && !BUD.is_running() && !ESC.is_running());
    assert!(SUP_G.is_halted());
    common::pass();
}

#[test]
fn a_spent_budget_escalates() {
    common::run(&common::nodes_of(&BUDGET), |s| {
        s.spawn(escalation(s).unwrap())
    });
}

// ---- rest-for-one, and what wins over a scheduled restart ---------------

embassy_supervisor::supervisor_graph! {
    name: CHAIN;
    node A = Terminate, task: planned, exit: Result<(), ()>, restart: on_failure,
        backoff: 10..10;
    node B = Terminate, task: planned, exit: Result<(), ()>, deps: [A];
    node C = Terminate, task: planned, exit: Result<(), ()>, deps: [B];
    node D = Terminate, task: planned, exit: Result<(), ()>;
    node DW = Terminate, task: planned, exit: Result<(), ()>, restart: always,
        backoff: 50..50;
    node HT = Terminate, task: planned, exit: Result<(), ()>, restart: always,
        backoff: 50..50;
    node DT = Terminate, task: planned, exit: Result<(), ()>, restart: always,
        backoff: 10..10;
}
static SUP_C: Supervisor<7> = Supervisor::new(&CHAIN);
runner!(run_c, SUP_C);

#[embassy_executor::task]
async fn chain(spawner: Spawner) {
    // DW and HT end at once (restarts scheduled in 50 ms).
    plan(&DW).oks.store(1, Ordering::SeqCst);
    plan(&HT).oks.store(1, Ordering::SeqCst);
    spawner.spawn(run_c(spawner).unwrap());
    common::wait_until(|| D.is_running(), Duration::from_millis(5))
        .await
        .unwrap();
    common::log::clear();
    let mut sub = embassy_supervisor::event::subscribe().unwrap();
    // A fails: its dependents stop (dependents first), then all three come
    // back in dependency order; D is not touched.
    plan(&A).kill.signal(());
    let mut spawned = Vec::new();
    common::wait_until(
        || {
            while let Some(WaitResult::Message(e)) = sub.try_next_message() {
                if let EventKind::NodeSpawned { node } = e.kind {
                    spawned.push(node);
                }
            }
            started(&C) == 1
        },
        Duration::from_millis(30),
    )
    .await
    .unwrap();
    assert_eq!(common::log::order(Acked), ["C", "B"]);
    assert_eq!(spawned, ["A", "B", "C"]);
    assert_eq!(started(&D), 0);
    drop(sub);
    // Detached: the supervisor does not touch it, its exit included.
    DT.set_detached(true);
    plan(&DT).kill.signal(());
    common::advance_after_idle(Duration::from_millis(30)).await;
    common::settle().await;
    assert_eq!(started(&DT), 0, "a detached node is not restarted");
    assert!(DT.has_exited() && !DT.is_running());
    DT.set_detached(false);
    // A deactivate during DW's backoff wins: it stays down.
    SUP_C.deactivate(&DW).await.unwrap();
    common::advance_after_idle(Duration::from_millis(60)).await;
    common::settle().await;
    assert_eq!(started(&DW), 0);
    assert!(!DW.is_running());
    // HT came back at 50 ms; it ends again, and a teardown during its
    // backoff wins too.
    assert_eq!(started(&HT), 1);
    plan(&HT).oks.store(0, Ordering::SeqCst);
    plan(&HT).kill.signal(());
    common::settle().await;
    SUP_C.teardown().await.unwrap();
    common::advance_after_idle(Duration::from_millis(120)).await;
    common::settle().await;
    assert_eq!(started(&HT), 1);
    assert!(!HT.is_running() && !A.is_running());
    common::pass();
}

#[test]
fn rest_for_one_and_what_wins_over_a_restart() {
    common::run(&common::nodes_of(&CHAIN), |s| s.spawn(chain(s).unwrap()));
}
