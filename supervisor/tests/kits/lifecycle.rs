//! Shared fixture of the lifecycle tests (`lifecycle_table`, `pitfalls_lifecycle`,
//! `model`), included with `#[path = "kits/lifecycle.rs"] mod kit;`. Built on
//! `tests/common` (which runs the executor); this file only supplies a graph.
//!
//! Statics outlive a test, so every test stamps a fresh graph with
//! [`kit_graph!`] inside its own fn scope. Shape (slot: node):
//!
//! ```text
//! 0 BASE Terminate        3 TOP Terminate  deps [T, P]   (diamond BASE→T,P→TOP)
//! 1 T    Terminate  [0]   4 O   OnDemand   deps [BASE]
//!        gates RES, RES2  5 D   Terminate  deps [BASE], disabled
//! 2 P    Pause      [0]   6 DP  Pause      deps [P], disabled
//!                         7 X   Terminate  deps [BASE], detaches itself
//! ```
//!
//! Workers record what happens in a [`Rec`]: spawns in supervisor order
//! (logged by the spawn fn, so the executor's poll order cannot blur it),
//! refused spawns (each task has a `TaskPool` of 1, so a double spawn is a
//! refusal), acks in ack order, autonomous exits and resumes. Per-node
//! [`Knobs`] make a worker wedge (never ack), linger after its ack (keeping
//! its `TaskPool` slot), exit on its own, or quit when next resumed.
#![allow(dead_code, clippy::new_without_default)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use embassy_supervisor::{Graph, Mode, TaskNode};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;

/// Slots of the kit graph.
pub const N: usize = 8;
pub const BASE_I: usize = 0;
pub const T_I: usize = 1;
pub const P_I: usize = 2;
pub const TOP_I: usize = 3;
pub const O_I: usize = 4;
pub const D_I: usize = 5;
pub const DP_I: usize = 6;
pub const X_I: usize = 7;

/// The kit graph's dependency table (shared with the reference model).
pub const DEPS: [&[u8]; N] = [&[], &[0], &[0], &[1, 2], &[0], &[0], &[2], &[0]];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// The supervisor's spawn fn handed a token to the spawner.
    Spawn,
    /// Token creation failed: the node's `TaskPool` (size 1) is occupied.
    Refused,
    /// The worker acked a stop.
    Ack,
    /// The worker returned on its own.
    Exit,
    /// A parked `Pause` instance came back from `wait_resume()`.
    Resumed,
    /// The worker saw a stop and, as asked, will never ack it.
    Wedged,
}

/// What the workers of one graph did, in order, plus the ordering checks a
/// test arms with [`Rec::expect`].
pub struct Rec {
    events: Mutex<Vec<(Ev, usize)>>,
    violations: Mutex<Vec<String>>,
    /// Nodes the current step must leave up: a spawn whose dependency is in
    /// this set but not yet running broke dependency order.
    expect_up: AtomicU32,
    /// Nodes the current step must leave down: an ack while a dependent in
    /// this set still runs broke reverse-dependency order.
    expect_down: AtomicU32,
    /// Nodes that were down when the current step began: a spawn while one
    /// of its dependents in this set is already up means that dependent
    /// (spawned or resumed) came up first.
    was_down: AtomicU32,
}

impl Rec {
    pub const fn new() -> Self {
        Self {
            events: Mutex::new(Vec::new()),
            violations: Mutex::new(Vec::new()),
            expect_up: AtomicU32::new(0),
            expect_down: AtomicU32::new(0),
            was_down: AtomicU32::new(0),
        }
    }

    fn push(&self, ev: Ev, i: usize) {
        self.events.lock().unwrap().push((ev, i));
    }

    pub fn events(&self) -> Vec<(Ev, usize)> {
        self.events.lock().unwrap().clone()
    }

    pub fn clear(&self) {
        self.events.lock().unwrap().clear();
    }

    /// How many `ev` events node `i` produced.
    pub fn count(&self, ev: Ev, i: usize) -> usize {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|&&e| e == (ev, i))
            .count()
    }

    /// Slots that produced `ev`, in order.
    pub fn order(&self, ev: Ev) -> Vec<usize> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| e.0 == ev)
            .map(|e| e.1)
            .collect()
    }

    /// Arm the ordering checks for the next step (bit i = slot i).
    pub fn expect(&self, up: u32, down: u32) {
        self.expect_up.store(up, Ordering::SeqCst);
        self.expect_down.store(down, Ordering::SeqCst);
    }

    /// Arm the came-up-first check for the next step (bit i = slot i).
    pub fn was_down(&self, down: u32) {
        self.was_down.store(down, Ordering::SeqCst);
    }

    pub fn take_violations(&self) -> Vec<String> {
        std::mem::take(&mut *self.violations.lock().unwrap())
    }

    fn violation(&self, v: String) {
        self.violations.lock().unwrap().push(v);
    }

    /// Called by a spawn fn right before it spawns slot `i`.
    pub fn spawning(&self, g: &Graph<N>, i: usize) {
        let up = self.expect_up.load(Ordering::SeqCst);
        for d in closure(i, true) {
            let dep = g.node(d).unwrap();
            if up & (1 << d) != 0 && !dep.is_running() {
                self.violation(format!(
                    "`{}` spawned before its dependency `{}`",
                    name(g, i),
                    dep.name
                ));
            }
        }
        let was_down = self.was_down.load(Ordering::SeqCst);
        for m in closure(i, false) {
            let dependent = g.node(m).unwrap();
            if was_down & (1 << m) != 0 && dependent.is_running() {
                self.violation(format!(
                    "`{}` came up before its dependency `{}`",
                    dependent.name,
                    name(g, i)
                ));
            }
        }
        self.push(Ev::Spawn, i);
    }

    pub fn refused(&self, i: usize) {
        self.push(Ev::Refused, i);
    }

    fn acking(&self, g: &Graph<N>, i: usize) {
        let down = self.expect_down.load(Ordering::SeqCst);
        for m in closure(i, false) {
            let dependent = g.node(m).unwrap();
            if down & (1 << m) != 0 && dependent.is_running() {
                self.violation(format!(
                    "`{}` acked while its dependent `{}` was still running",
                    name(g, i),
                    dependent.name
                ));
            }
        }
        self.push(Ev::Ack, i);
    }
}

fn name(g: &Graph<N>, i: usize) -> &'static str {
    g.node(i).unwrap().name
}

/// Transitive dependencies (`up`) or dependents (`!up`) of slot `i` in [`DEPS`].
pub fn closure(i: usize, up: bool) -> Vec<usize> {
    let mut set = [false; N];
    let mut stack = vec![i];
    while let Some(n) = stack.pop() {
        for m in 0..N {
            let edge = if up {
                DEPS[n].contains(&(m as u8))
            } else {
                DEPS[m].contains(&(n as u8))
            };
            if edge && !set[m] {
                set[m] = true;
                stack.push(m);
            }
        }
    }
    (0..N).filter(|&m| set[m]).collect()
}

/// Per-node test controls and the live-instance count.
pub struct Knobs {
    /// Instances whose task has been polled and not yet returned.
    pub live: AtomicU32,
    /// Ignore the next stop: never ack.
    pub wedge: AtomicBool,
    /// After acking, keep the task (and its `TaskPool` slot) alive until
    /// `release` is signalled. Held resources are dropped before the ack.
    pub linger: AtomicBool,
    /// `Pause`: return (exit) when next resumed.
    pub quit: AtomicBool,
    /// `Terminate`/`OnDemand`: return on its own.
    pub exit: Signal<CriticalSectionRawMutex, ()>,
    pub release: Signal<CriticalSectionRawMutex, ()>,
}

impl Knobs {
    pub const fn new() -> Self {
        Self {
            live: AtomicU32::new(0),
            wedge: AtomicBool::new(false),
            linger: AtomicBool::new(false),
            quit: AtomicBool::new(false),
            exit: Signal::new(),
            release: Signal::new(),
        }
    }

    pub fn live(&self) -> u32 {
        self.live.load(Ordering::SeqCst)
    }
}

/// Everything a worker needs to find its graph, recorder and knobs.
pub struct Ctx {
    pub graph: &'static Graph<N>,
    pub rec: &'static Rec,
    pub knobs: &'static [Knobs; N],
}

/// The body of every kit task, shaped like a generated `task:` shell: run
/// the worker, drop what it holds, record the exit with `mark_exited`.
pub async fn shell<R>(cx: &'static Ctx, i: usize, held: R) {
    let node = cx.graph.node(i).unwrap();
    let k = &cx.knobs[i];
    k.live.fetch_add(1, Ordering::SeqCst);
    let acked = match node.mode() {
        Mode::Pause => {
            pause_worker(cx, i, node).await;
            false
        }
        _ => terminate_worker(cx, i, node).await,
    };
    drop(held);
    if acked && k.linger.load(Ordering::SeqCst) {
        k.release.wait().await;
    }
    k.live.fetch_sub(1, Ordering::SeqCst);
    node.mark_exited();
}

/// The canonical cancellable loop. Returns true if it acked a stop.
async fn terminate_worker(cx: &'static Ctx, i: usize, node: &'static TaskNode) -> bool {
    let k = &cx.knobs[i];
    match node.run_cancellable(k.exit.wait()).await {
        Ok(()) => {
            cx.rec.push(Ev::Exit, i);
            false
        }
        Err(_aborted) => {
            stall_if_wedged(cx, i).await;
            cx.rec.acking(cx.graph, i);
            node.ack_dropped();
            true
        }
    }
}

/// Ack each pause, park, resume; returns only when told to quit.
async fn pause_worker(cx: &'static Ctx, i: usize, node: &'static TaskNode) {
    loop {
        node.wait_shutdown().await;
        stall_if_wedged(cx, i).await;
        cx.rec.acking(cx.graph, i);
        node.ack_dropped();
        node.wait_resume().await;
        cx.rec.push(Ev::Resumed, i);
        if cx.knobs[i].quit.load(Ordering::SeqCst) {
            return;
        }
    }
}

async fn stall_if_wedged(cx: &'static Ctx, i: usize) {
    if cx.knobs[i].wedge.load(Ordering::SeqCst) {
        cx.rec.push(Ev::Wedged, i);
        core::future::pending::<()>().await;
    }
}

/// Stamp a fresh kit graph as `mod $m` (see the module docs for its shape):
/// nodes `BASE T P TOP O D DP X`, `NODES`, `GRAPH`, `SUP`, `REC`, `K`
/// (knobs), and `RES`/`RES2` (T's gates, empty until the test provides them).
#[macro_export]
macro_rules! kit_graph {
    ($m:ident) => {
        #[allow(dead_code)]
        mod $m {
            use embassy_executor::{SpawnError, Spawner};
            use embassy_supervisor::{
                Gate, Graph, Lent, Mode, NodeSpec, ResourceSlot, Supervisor, TaskNode,
            };

            use $crate::kit::{Ctx, DEPS, Knobs, N, Rec, shell};

            pub static REC: Rec = Rec::new();
            pub static K: [Knobs; N] = [const { Knobs::new() }; N];
            pub static CTX: Ctx = Ctx {
                graph: &GRAPH,
                rec: &REC,
                knobs: &K,
            };
            pub static RES: ResourceSlot<u32> = ResourceSlot::new();
            pub static RES2: ResourceSlot<u32> = ResourceSlot::new();

            pub static BASE: TaskNode = TaskNode::new(
                &NodeSpec::new("BASE", Mode::Terminate)
                    .with_spawn(spawn_base)
                    .at(0),
            );
            pub static T: TaskNode = TaskNode::new(
                &NodeSpec::new("T", Mode::Terminate)
                    .with_spawn(spawn_t)
                    .with_resources(&[&RES as &dyn Gate, &RES2 as &dyn Gate])
                    .at(1),
            );
            pub static P: TaskNode =
                TaskNode::new(&NodeSpec::new("P", Mode::Pause).with_spawn(spawn_p).at(2));
            pub static TOP: TaskNode = TaskNode::new(
                &NodeSpec::new("TOP", Mode::Terminate)
                    .with_spawn(spawn_top)
                    .at(3),
            );
            pub static O: TaskNode =
                TaskNode::new(&NodeSpec::new("O", Mode::OnDemand).with_spawn(spawn_o).at(4));
            pub static D: TaskNode = TaskNode::new(
                &NodeSpec::new("D", Mode::Terminate)
                    .with_spawn(spawn_d)
                    .disabled()
                    .at(5),
            );
            pub static DP: TaskNode = TaskNode::new(
                &NodeSpec::new("DP", Mode::Pause)
                    .with_spawn(spawn_dp)
                    .disabled()
                    .at(6),
            );
            pub static X: TaskNode = TaskNode::new(
                &NodeSpec::new("X", Mode::Terminate)
                    .with_spawn(spawn_x)
                    .at(7),
            );

            pub static NODES: [&TaskNode; N] = [&BASE, &T, &P, &TOP, &O, &D, &DP, &X];
            pub static GRAPH: Graph<N> = Graph::new(
                [
                    Some(&BASE),
                    Some(&T),
                    Some(&P),
                    Some(&TOP),
                    Some(&O),
                    Some(&D),
                    Some(&DP),
                    Some(&X),
                ],
                DEPS,
            );
            pub static SUP: Supervisor<N> = Supervisor::new(&GRAPH);

            /// Fill T's gates (the values are arbitrary).
            pub fn provide() {
                RES.provide(1);
                RES2.provide(2);
            }

            fn go<S>(
                i: usize,
                s: Spawner,
                token: Result<embassy_executor::SpawnToken<S>, SpawnError>,
            ) -> Result<(), SpawnError> {
                match token {
                    Ok(token) => {
                        REC.spawning(&GRAPH, i);
                        s.spawn(token);
                        Ok(())
                    }
                    Err(e) => {
                        REC.refused(i);
                        Err(e)
                    }
                }
            }

            #[embassy_executor::task]
            async fn task_base() {
                shell(&CTX, 0, ()).await
            }
            fn spawn_base(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                go(0, s, task_base())
            }

            #[embassy_executor::task]
            async fn task_t(a: Lent<u32>, b: Lent<u32>) {
                shell(&CTX, 1, (a, b)).await
            }
            fn spawn_t(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                // Lents: a refused token drops them and both values go back.
                let a = RES.lend().ok_or(SpawnError::Busy)?;
                let b = RES2.lend().ok_or(SpawnError::Busy)?;
                go(1, s, task_t(a, b))
            }

            #[embassy_executor::task]
            async fn task_p() {
                shell(&CTX, 2, ()).await
            }
            fn spawn_p(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                go(2, s, task_p())
            }

            #[embassy_executor::task]
            async fn task_top() {
                shell(&CTX, 3, ()).await
            }
            fn spawn_top(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                go(3, s, task_top())
            }

            #[embassy_executor::task]
            async fn task_o() {
                shell(&CTX, 4, ()).await
            }
            fn spawn_o(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                go(4, s, task_o())
            }

            #[embassy_executor::task]
            async fn task_d() {
                shell(&CTX, 5, ()).await
            }
            fn spawn_d(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                go(5, s, task_d())
            }

            #[embassy_executor::task]
            async fn task_dp() {
                shell(&CTX, 6, ()).await
            }
            fn spawn_dp(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                go(6, s, task_dp())
            }

            #[embassy_executor::task]
            async fn task_x() {
                // A self-managed daemon: detach as the first act.
                X.set_detached(true);
                shell(&CTX, 7, ()).await
            }
            fn spawn_x(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                go(7, s, task_x())
            }
        }
    };
}

/// One test = one fresh kit graph `g` (in the test fn's own scope) + one
/// driver task whose body is `$body` with `g::*` in scope; `common::pass()`
/// is called after the body.
#[macro_export]
macro_rules! kit_test {
    ($(#[$attr:meta])* $test:ident, |$s:ident| $body:block) => {
        $(#[$attr])*
        #[test]
        #[allow(non_snake_case)]
        fn $test() {
            $crate::kit_graph!(g);
            #[embassy_executor::task]
            async fn driver($s: embassy_executor::Spawner) {
                #[allow(unused_imports)]
                use g::*;
                $body
                common::pass();
            }
            common::run(&g::NODES, |s| s.spawn(driver(s).unwrap()));
        }
    };
}
