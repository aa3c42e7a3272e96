//! The teardown and `deactivate` of a chain (a graph whose dependency
//! order is total, `uses::CHAIN`): one node at a time, the last first, each
//! with its own ack window; `teardown` never stops a wedged node's
//! dependencies, `teardown_continue` does; detached nodes are skipped;
//! `deactivate` latches the target and holds its dependents (not through a
//! detached node) before any stop, and aborts at a missed ack; `restart`
//! cycles a node and its dependents the same way. Run through a typed
//! supervisor (which links only the chain's stop), one typed with no width
//! bit and `Supervisor<N>` over a hand-built chain (both pick the chain's
//! stop from the graph in const evaluation).
mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_time::{Duration, Instant, Timer};

/// Per node (by name): how long (mock ms) its worker takes to ack a stop;
/// `NEVER`: until the test releases it.
static DELAY: [AtomicU32; 4] = [const { AtomicU32::new(0) }; 4];
const NEVER: u32 = u32::MAX;

/// (node, mock ms) of each stop request the workers saw, in order.
static ASKED: Mutex<Vec<(&'static str, u64)>> = Mutex::new(Vec::new());
/// Stops that came while a dependent still ran.
static VIOLATIONS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn slot(name: &str) -> usize {
    (name.as_bytes()[0] - b'A') as usize
}

/// Serves until asked to stop, checks that its dependent (the next letter)
/// is down, then takes its delay to ack.
async fn slow(node: &'static TaskNode, dependent: Option<&'static TaskNode>) {
    node.wait_shutdown().await;
    ASKED
        .lock()
        .unwrap()
        .push((node.name, Instant::now().as_millis()));
    if let Some(d) = dependent.filter(|d| d.is_running() && !d.is_detached()) {
        VIOLATIONS
            .lock()
            .unwrap()
            .push(format!("`{}` asked while `{}` runs", node.name, d.name));
    }
    let me = slot(node.name);
    while DELAY[me].load(Ordering::SeqCst) == NEVER {
        Timer::after_millis(1).await;
    }
    Timer::after_millis(DELAY[me].load(Ordering::SeqCst).into()).await;
    node.ack_dropped();
    node.mark_exited();
}

fn clear(delays: [u32; 4]) {
    ASKED.lock().unwrap().clear();
    VIOLATIONS.lock().unwrap().clear();
    for (d, v) in DELAY.iter().zip(delays) {
        d.store(v, Ordering::SeqCst);
    }
}

fn asked() -> Vec<&'static str> {
    ASKED.lock().unwrap().iter().map(|a| a.0).collect()
}

/// The typed form: `supervisor_graph!`'s chain A <- B <- C <- D.
#[cfg(feature = "macros")]
mod typed {
    use super::*;
    use embassy_executor::SpawnToken;

    #[embassy_executor::task(pool_size = 4)]
    async fn worker(node: &'static TaskNode) {
        let next = match node.name {
            "A" => Some(&B),
            "B" => Some(&C),
            "C" => Some(&D),
            _ => None,
        };
        slow(node, next).await;
    }

    fn spawn(node: &'static TaskNode) -> Result<SpawnToken<impl Sized>, SpawnError> {
        worker(node)
    }

    embassy_supervisor::supervisor_graph! {
        node A = Terminate, spawn: spawn;
        node B = Terminate, deps: [A], spawn: spawn;
        node C = Terminate, deps: [B], spawn: spawn;
        node D = Terminate, deps: [C], spawn: spawn;
    }
    pub static SUP: Supervisor<4, { GRAPH_USES | GRAPH_WIDTH }> = Supervisor::with_uses(&GRAPH);
    /// Typed with no width bit: it picks the chain's stop from the graph.
    pub static SUP0: Supervisor<4, GRAPH_USES> = Supervisor::with_uses(&GRAPH);
    pub const ALL: [&TaskNode; 4] = [&A, &B, &C, &D];
}

/// The same chain, hand-built, under `Supervisor<N>` (every bit: the
/// stop is picked from the graph).
mod built {
    use super::*;

    #[embassy_executor::task(pool_size = 4)]
    async fn worker(node: &'static TaskNode) {
        let next = ALL.get(slot(node.name) + 1).copied();
        slow(node, next).await;
    }

    fn spawn(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
        s.spawn(worker(node)?);
        Ok(())
    }

    const fn spec(name: &'static str, at: u8) -> NodeSpec {
        NodeSpec::new(name, Mode::Terminate)
            .with_spawn(spawn)
            .at(at)
    }
    pub static A: TaskNode = TaskNode::new(&spec("A", 0));
    pub static B: TaskNode = TaskNode::new(&spec("B", 1));
    pub static C: TaskNode = TaskNode::new(&spec("C", 2));
    pub static D: TaskNode = TaskNode::new(&spec("D", 3));
    static G: Graph<4> = Graph::new(
        [Some(&A), Some(&B), Some(&C), Some(&D)],
        [&[], &[0], &[1], &[2]],
    );
    pub static SUP: Supervisor<4> = Supervisor::new(&G);
    pub const ALL: [&TaskNode; 4] = [&A, &B, &C, &D];
}

#[cfg(feature = "macros")]
#[test]
fn a_chains_width_is_chain_and_not_part_of_its_uses() {
    assert_eq!(typed::GRAPH_WIDTH, embassy_supervisor::uses::CHAIN);
    assert_eq!(typed::GRAPH_USES, 0);
}

#[test]
fn teardown_of_a_chain_stops_dependents_first_each_in_its_own_window() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for (sup, all) in sups() {
            clear([5, 10, 20, 40]);
            sup.start(s).await;
            common::settle().await;
            assert!(all.iter().all(|n| n.is_running()));
            let (r, took) = common::stepped(sup.teardown()).await;
            r.unwrap();
            assert!(all.iter().all(|n| !n.is_running()));
            assert_eq!(asked(), ["D", "C", "B", "A"]);
            // One at a time: the sum of the ack times.
            assert!((75..=80).contains(&took), "took {took} ms");
            assert!(
                VIOLATIONS.lock().unwrap().is_empty(),
                "{:?}",
                VIOLATIONS.lock().unwrap()
            );
        }
        common::pass();
    }
    common::run(&built::ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn teardown_of_a_chain_never_stops_a_wedged_nodes_dependencies_teardown_continue_does() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for (sup, all) in sups() {
            // C never acks (until released): B and A stay up.
            clear([0, 0, NEVER, 0]);
            sup.start(s).await;
            common::settle().await;
            let (r, took) = common::stepped(sup.teardown()).await;
            let e = r.unwrap_err();
            assert_eq!(e.node.name, "C");
            assert!((2000..=2004).contains(&took), "C's own window: {took} ms");
            assert!(!all[3].is_running(), "D was stopped first");
            assert!(
                all[..2]
                    .iter()
                    .all(|n| n.is_running() && !n.shutdown_requested())
            );
            common::wait_until(|| false, Duration::from_millis(500))
                .await
                .unwrap_err();
            assert_eq!(asked(), ["D", "C"], "nothing asked past the wedged node");

            // teardown_continue goes past the miss; the miss is the result.
            let (r, _) = common::stepped(sup.teardown_continue()).await;
            assert_eq!(r.unwrap_err().node.name, "C");
            assert!(!all[0].is_running() && !all[1].is_running());
            assert_eq!(&asked()[2..], ["C", "B", "A"][1..].as_ref());
            DELAY[2].store(0, Ordering::SeqCst);
            common::wait_until(|| !all[2].is_running(), Duration::from_secs(1))
                .await
                .unwrap();
        }
        common::pass();
    }
    common::run(&built::ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn teardown_of_a_chain_skips_a_detached_node() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for (sup, all) in sups() {
            clear([0, 0, 0, 0]);
            sup.start(s).await;
            common::settle().await;
            all[2].set_detached(true);
            common::stepped(sup.teardown()).await.0.unwrap();
            assert!(all[2].is_running(), "the detached node runs on");
            assert_eq!(asked(), ["D", "B", "A"]);
            all[2].set_detached(false);
            common::stepped(sup.teardown()).await.0.unwrap();
            assert!(all.iter().all(|n| !n.is_running()));
        }
        common::pass();
    }
    common::run(&built::ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn deactivate_on_a_chain_latches_then_stops_its_dependents_first() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for (sup, all) in sups() {
            let [a, b, c, d] = all;
            clear([0, 5, 5, 5]);
            sup.start(s).await;
            common::settle().await;
            let (r, took) = common::stepped(sup.deactivate(b)).await;
            r.unwrap();
            assert_eq!(asked(), ["D", "C", "B"], "dependents first");
            assert!((15..=18).contains(&took), "one at a time: {took} ms");
            assert!(a.is_running(), "a dependency is not pulled down");
            assert!(b.is_disabled() && !b.is_running());
            assert!([c, d].iter().all(|n| n.is_held() && !n.is_running()));
            assert!(VIOLATIONS.lock().unwrap().is_empty());
            sup.activate(d, s).await;
            assert!(
                all.iter()
                    .all(|n| n.is_running() && !n.is_held() && !n.is_disabled())
            );

            // A detached C runs on; D depends on B only through C: untouched.
            clear([0, 0, 0, 0]);
            c.set_detached(true);
            common::stepped(sup.deactivate(b)).await.0.unwrap();
            assert_eq!(asked(), ["B"]);
            assert!(c.is_running() && d.is_running() && !d.is_held());
            c.set_detached(false);
            sup.activate(b, s).await;

            // C never acks: the deactivate returns its miss, B is never asked.
            clear([0, 0, NEVER, 0]);
            let (r, took) = common::stepped(sup.deactivate(b)).await;
            assert_eq!(r.unwrap_err().node.name, "C");
            assert!((2000..=2004).contains(&took), "C's own window: {took} ms");
            assert_eq!(asked(), ["D", "C"]);
            assert!(b.is_running() && !b.shutdown_requested() && b.is_disabled());
            DELAY[2].store(0, Ordering::SeqCst);
            common::wait_until(|| !c.is_running(), Duration::from_secs(1))
                .await
                .unwrap();
            common::stepped(sup.teardown()).await.0.unwrap();
            sup.activate(d, s).await;
            common::stepped(sup.teardown()).await.0.unwrap();
        }
        common::pass();
    }
    common::run(&built::ALL, |s| s.spawn(drive(s).unwrap()));
}

#[test]
fn restart_on_a_chain_cycles_the_node_and_its_dependents_one_at_a_time() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        for (sup, all) in sups() {
            let [a, b, c, d] = all;
            clear([0, 5, 5, 5]);
            sup.start(s).await;
            common::settle().await;
            let (r, took) = common::stepped(sup.restart(b, s)).await;
            r.unwrap();
            assert_eq!(asked(), ["D", "C", "B"], "dependents first, A untouched");
            assert!((15..=20).contains(&took), "one at a time: {took} ms");
            assert!(VIOLATIONS.lock().unwrap().is_empty());
            common::settle().await;
            assert!(all.iter().all(|n| n.is_running() && !n.is_held()));

            // C never acks: the restart returns its miss; B is never asked
            // and A runs on.
            clear([0, 0, NEVER, 0]);
            let (r, took) = common::stepped(sup.restart(b, s)).await;
            assert_eq!(r.unwrap_err().node.name, "C");
            assert!((2000..=2004).contains(&took), "C's own window: {took} ms");
            assert_eq!(asked(), ["D", "C"]);
            assert!(a.is_running() && b.is_running() && !b.shutdown_requested());
            assert!(!d.is_running());
            DELAY[2].store(0, Ordering::SeqCst);
            common::wait_until(|| !c.is_running(), Duration::from_secs(1))
                .await
                .unwrap();
            common::stepped(sup.teardown()).await.0.unwrap();
        }
        common::pass();
    }
    common::run(&built::ALL, |s| s.spawn(drive(s).unwrap()));
}

/// Every supervisor of this file with its nodes: each test runs on each.
fn sups() -> Vec<(&'static dyn Stop, [&'static TaskNode; 4])> {
    vec![
        #[cfg(feature = "macros")]
        (&typed::SUP, typed::ALL),
        #[cfg(feature = "macros")]
        (&typed::SUP0, typed::ALL),
        (&built::SUP, built::ALL),
    ]
}

/// The supervisors, as one type for the loops above.
trait Stop: Sync {
    fn start(&'static self, s: Spawner) -> core::pin::Pin<Box<dyn Future<Output = ()>>>;
    fn teardown(
        &'static self,
    ) -> core::pin::Pin<Box<dyn Future<Output = Result<(), embassy_supervisor::NodeFault>>>>;
    fn teardown_continue(
        &'static self,
    ) -> core::pin::Pin<Box<dyn Future<Output = Result<(), embassy_supervisor::NodeFault>>>>;
    fn deactivate(
        &'static self,
        n: &'static TaskNode,
    ) -> core::pin::Pin<Box<dyn Future<Output = Result<(), embassy_supervisor::NodeFault>>>>;
    fn activate(
        &'static self,
        n: &'static TaskNode,
        s: Spawner,
    ) -> core::pin::Pin<Box<dyn Future<Output = ()>>>;
    fn restart(
        &'static self,
        n: &'static TaskNode,
        s: Spawner,
    ) -> core::pin::Pin<Box<dyn Future<Output = Result<(), embassy_supervisor::NodeFault>>>>;
}

impl<const USES: u8> Stop for Supervisor<4, USES> {
    fn start(&'static self, s: Spawner) -> core::pin::Pin<Box<dyn Future<Output = ()>>> {
        Box::pin(async move { Supervisor::start(self, s).await.unwrap() })
    }
    fn teardown(
        &'static self,
    ) -> core::pin::Pin<Box<dyn Future<Output = Result<(), embassy_supervisor::NodeFault>>>> {
        Box::pin(Supervisor::teardown(self))
    }
    fn teardown_continue(
        &'static self,
    ) -> core::pin::Pin<Box<dyn Future<Output = Result<(), embassy_supervisor::NodeFault>>>> {
        Box::pin(Supervisor::teardown_continue(self))
    }
    fn deactivate(
        &'static self,
        n: &'static TaskNode,
    ) -> core::pin::Pin<Box<dyn Future<Output = Result<(), embassy_supervisor::NodeFault>>>> {
        Box::pin(Supervisor::deactivate(self, n))
    }
    fn activate(
        &'static self,
        n: &'static TaskNode,
        s: Spawner,
    ) -> core::pin::Pin<Box<dyn Future<Output = ()>>> {
        Box::pin(async move { Supervisor::activate(self, n, s).await.unwrap() })
    }
    fn restart(
        &'static self,
        n: &'static TaskNode,
        s: Spawner,
    ) -> core::pin::Pin<Box<dyn Future<Output = Result<(), embassy_supervisor::NodeFault>>>> {
        Box::pin(Supervisor::restart(self, n, s))
    }
}
