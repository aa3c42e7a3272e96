//! The stop wave (issue 13, item 1) on real executors and the mock clock:
//! every node waits for its running dependents and for nothing else, so
//! under random ack delays no node is asked to stop while a dependent runs,
//! and a teardown takes the longest chain of ack delays, not their sum;
//! each ack deadline runs from that node's own stop request; `teardown`
//! never stops a wedged node's dependencies, `teardown_continue` does.
mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_time::{Duration, Instant, Timer};

/// Per slot: how long (mock ms) the worker takes to ack a stop;
/// `u32::MAX`: it never acks.
static DELAY: [AtomicU32; 8] = [const { AtomicU32::new(0) }; 8];
const NEVER: u32 = u32::MAX;

/// What the workers saw: stops that came while a dependent still ran.
static VIOLATIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// (node, mock ms) of each stop request seen and each ack.
static SIGNALLED: Mutex<Vec<(&'static str, u64)>> = Mutex::new(Vec::new());

/// Serves until asked to stop, checks that no dependent of its node still
/// runs, then takes its node's delay to ack.
#[embassy_executor::task(pool_size = 8)]
async fn slow_worker(node: &'static TaskNode) {
    node.wait_shutdown().await;
    SIGNALLED
        .lock()
        .unwrap()
        .push((node.name, Instant::now().as_millis()));
    let me = G.index_of(node).unwrap();
    for (i, deps) in G.deps.iter().enumerate() {
        let dependent = G.node(i).unwrap();
        if deps.contains(&(me as u8)) && dependent.is_running() {
            VIOLATIONS.lock().unwrap().push(format!(
                "`{}` asked to stop while its dependent `{}` runs",
                node.name, dependent.name
            ));
        }
    }
    // A wedged worker stays wedged until its test releases it.
    while DELAY[me].load(Ordering::SeqCst) == NEVER {
        Timer::after_millis(1).await;
    }
    Timer::after_millis(DELAY[me].load(Ordering::SeqCst).into()).await;
    node.ack_dropped();
    node.mark_exited();
}

fn spawn_slow(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(slow_worker(node)?);
    Ok(())
}

const fn spec(name: &'static str, at: u8) -> NodeSpec {
    NodeSpec::new(name, Mode::Terminate)
        .with_spawn(spawn_slow)
        .at(at)
}

// A <- B, A <- C, {B, C} <- D, E <- F, {D, F} <- G, B <- H: two roots, a
// diamond, a join of two branches and a side branch.
static A: TaskNode = TaskNode::new(&spec("A", 0));
static B: TaskNode = TaskNode::new(&spec("B", 1));
static C: TaskNode = TaskNode::new(&spec("C", 2));
static D: TaskNode = TaskNode::new(&spec("D", 3));
static E: TaskNode = TaskNode::new(&spec("E", 4));
static F: TaskNode = TaskNode::new(&spec("F", 5).with_ack_timeout(1000));
static GN: TaskNode = TaskNode::new(&spec("G", 6));
static H: TaskNode = TaskNode::new(&spec("H", 7));
static G: Graph<8> = Graph::new(
    [
        Some(&A),
        Some(&B),
        Some(&C),
        Some(&D),
        Some(&E),
        Some(&F),
        Some(&GN),
        Some(&H),
    ],
    [&[], &[0], &[0], &[1, 2], &[], &[4], &[3, 5], &[1]],
);
static SUP: Supervisor<8> = Supervisor::new(&G);
const ALL: [&TaskNode; 8] = [&A, &B, &C, &D, &E, &F, &GN, &H];

/// Each test begins with empty records.
fn clear() {
    VIOLATIONS.lock().unwrap().clear();
    SIGNALLED.lock().unwrap().clear();
}

fn set_delays(delays: [u32; 8]) {
    for (d, v) in DELAY.iter().zip(delays) {
        d.store(v, Ordering::SeqCst);
    }
}

/// Run `op` against the stepping clock: its output and the mock ms it took.
async fn timed<T>(op: impl Future<Output = T>) -> (T, u64) {
    common::stepped(op).await
}

/// When each node is down if each waits for all its dependents: the
/// longest chain of ack delays ending at that node, from the dependents
/// down (the slot order is a dependency order here).
fn critical_path(delays: [u32; 8]) -> u64 {
    let mut done = [0u64; 8];
    for i in (0..8).rev() {
        let after = (0..8)
            .filter(|&j| G.deps[j].contains(&(i as u8)))
            .map(|j| done[j])
            .max()
            .unwrap_or(0);
        done[i] = after + u64::from(delays[i]);
    }
    done.into_iter().max().unwrap_or(0)
}

/// A small deterministic generator: each seed is one reproducible case.
fn random_delays(seed: &mut u64) -> [u32; 8] {
    let mut d = [0; 8];
    for v in &mut d {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *v = ((*seed >> 33) % 60) as u32;
    }
    d
}

#[test]
fn under_random_ack_delays_each_node_waits_for_its_dependents_and_nothing_else() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        clear();
        let mut seed = 0x5eed;
        for round in 0..16 {
            let delays = random_delays(&mut seed);
            set_delays(delays);
            SUP.start(s).await.unwrap();
            common::settle().await;
            let (r, took) = timed(SUP.teardown()).await;
            assert!(r.is_ok(), "round {round}: {r:?}");
            assert!(ALL.iter().all(|n| !n.is_running()), "round {round}");
            let v = VIOLATIONS.lock().unwrap();
            assert!(v.is_empty(), "round {round}, delays {delays:?}: {v:?}");
            // Concurrency: the wave takes the longest chain of delays (plus
            // at most one clock step per node on it), where one node at a
            // time would take their sum.
            let path = critical_path(delays);
            assert!(
                took >= path && took <= path + 8,
                "round {round}, delays {delays:?}: took {took} ms, longest chain {path} ms"
            );
        }
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn deactivate_of_a_root_stops_its_dependents_as_one_wave() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        clear();
        set_delays([50; 8]);
        SUP.start(s).await.unwrap();
        common::settle().await;
        // A's dependents: B, C, D, G, H (G through D). Longest chain below
        // A: G -> D -> B -> A (or via C): 4 x 50 ms. E and F are unrelated.
        let (r, took) = timed(SUP.deactivate(&A)).await;
        assert!(r.is_ok());
        assert!((200..=204).contains(&took), "took {took} ms");
        assert!(E.is_running() && F.is_running() && !GN.is_running());
        assert!(VIOLATIONS.lock().unwrap().is_empty());
        SUP.activate(&A, s).await.unwrap();
        let (r, took) = timed(SUP.teardown()).await;
        assert!(r.is_ok());
        assert!((200..=204).contains(&took), "took {took} ms");
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn each_ack_deadline_runs_from_that_nodes_own_stop_request() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        clear();
        // G and D each take 1.5 s: 3 s along the chain, more than one 2 s
        // window, yet each ack is in time for its own window.
        set_delays([0, 0, 0, 1500, 0, 0, 1500, 0]);
        SUP.start(s).await.unwrap();
        common::settle().await;
        let (r, took) = timed(SUP.teardown()).await;
        assert!(r.is_ok(), "{r:?}");
        assert!((3000..=3008).contains(&took), "took {took} ms");

        // F allows 1 s (`with_ack_timeout(1000)`); G takes 1.5 s, F 1.2 s:
        // F is asked when G acks (1.5 s) and misses at 2.5 s, not at 1 s.
        set_delays([0, 0, 0, 0, 0, 1200, 1500, 0]);
        SUP.start(s).await.unwrap();
        common::settle().await;
        let (r, took) = timed(SUP.teardown()).await;
        assert_eq!(r.unwrap_err().node.name, "F");
        assert!((2500..=2504).contains(&took), "took {took} ms");
        // F still acks, late; nothing waits for it.
        common::wait_until(|| !F.is_running(), Duration::from_secs(1))
            .await
            .unwrap();
        // The abort left F's dependencies up. Stop them here: a worker left
        // on this test's executor would ack on its own thread while the
        // next test steps the mock clock (a late ack, under load).
        let (r, _) = timed(SUP.teardown()).await;
        assert!(r.is_ok(), "{r:?}");
        assert!(ALL.iter().all(|n| !n.is_running()));
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn teardown_never_stops_a_wedged_nodes_dependencies_teardown_continue_does() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        clear();
        // D never acks. Its dependencies B, C and (through them) A must stay
        // up; the unrelated branch E <- F and H (B's other dependent) may
        // finish meanwhile.
        set_delays([0, 0, 0, NEVER, 0, 0, 0, 10]);
        SUP.start(s).await.unwrap();
        common::settle().await;
        let (r, took) = timed(SUP.teardown()).await;
        assert_eq!(r.unwrap_err().node.name, "D");
        assert!((2000..=2004).contains(&took), "took {took} ms");
        for n in [&A, &B, &C] {
            assert!(n.is_running() && !n.shutdown_requested(), "{}", n.name);
        }
        assert!(D.is_running() && D.shutdown_requested());
        // F waited only for G, E only for F: the wave asked them at once.
        for n in [&E, &F, &GN, &H] {
            assert!(!n.is_running(), "{}", n.name);
        }
        // Much later, still nothing asked A, B or C to stop.
        common::wait_until(|| false, Duration::from_secs(1))
            .await
            .unwrap_err();
        assert!([&A, &B, &C].iter().all(|n| !n.shutdown_requested()));
        let asked: Vec<_> = SIGNALLED.lock().unwrap().iter().map(|s| s.0).collect();
        assert!(!asked.contains(&"A") && !asked.contains(&"B"), "{asked:?}");

        // teardown_continue: past D's miss, its dependencies are stopped
        // too, and the miss is the result.
        let (r, _) = timed(SUP.teardown_continue()).await;
        assert_eq!(r.unwrap_err().node.name, "D");
        for n in [&A, &B, &C] {
            assert!(!n.is_running(), "{}", n.name);
        }
        assert!(VIOLATIONS.lock().unwrap().iter().all(|v| v.contains("`D`")));
        // Release D: the next test finds every node down.
        DELAY[3].store(0, Ordering::SeqCst);
        common::wait_until(|| !D.is_running(), Duration::from_secs(1))
            .await
            .unwrap();
        common::pass();
    }
    common::run(&ALL, |s| s.spawn(drive(s).unwrap()));
}
