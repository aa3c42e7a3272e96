//! Wall time of the stop verbs on the host, std executor, with workers that
//! take D ms of real time to ack their stop (issue 13's table): 8
//! independent nodes, a root with 7 dependents (teardown and
//! `deactivate(root)`), and a chain of 8.
//!
//! Run: `cargo run --release -p embassy-supervisor --example stop_wave_wall`
//! (milliseconds, the median of 5 runs per row: a benchmark, not a test).
//!
//! A worker's wind-down happens on its own OS thread (a `sleep` of D ms),
//! so the executor stays free and the figure is the supervisor's ordering
//! alone: one node at a time gives 8 x D, a dependency-ordered wave gives D
//! times the longest chain.
use std::time::{Duration, Instant};

use embassy_executor::{Executor, SpawnError, Spawner};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use portable_atomic::{AtomicU64, Ordering};

const N: usize = 8;
const RUNS: usize = 5;

/// The wind-down time of every worker, in ms.
static DELAY_MS: AtomicU64 = AtomicU64::new(50);
/// Per slot (the three graphs share slots by index): the wind-down ended.
static WOUND_DOWN: [Signal<CriticalSectionRawMutex, ()>; 3 * N] = [const { Signal::new() }; 3 * N];

#[embassy_executor::task(pool_size = 24)]
async fn worker(node: &'static TaskNode, slot: usize) {
    node.wait_shutdown().await;
    let ms = DELAY_MS.load(Ordering::Relaxed);
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(ms));
        WOUND_DOWN[slot].signal(());
    });
    WOUND_DOWN[slot].wait().await;
    node.ack_dropped();
    node.mark_exited();
}

fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    // The graph's index of the node, offset by which graph it is in.
    let slot = [&WIDE, &STAR, &CHAIN]
        .iter()
        .enumerate()
        .find_map(|(g, graph)| graph.index_of(node).map(|i| g * N + i))
        .unwrap_or(0);
    s.spawn(worker(node, slot)?);
    Ok(())
}

const fn specs(name: &'static str) -> [NodeSpec; N] {
    let mut specs = [const { NodeSpec::new("", Mode::Terminate) }; N];
    let mut i = 0;
    while i < N {
        specs[i] = NodeSpec::new(name, Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(i as u8);
        i += 1;
    }
    specs
}

static WIDE_SPECS: [NodeSpec; N] = specs("independent");
static STAR_SPECS: [NodeSpec; N] = specs("star");
static CHAIN_SPECS: [NodeSpec; N] = specs("chain");

macro_rules! nodes {
    ($specs:ident) => {{
        let mut nodes = [const { TaskNode::new(&$specs[0]) }; N];
        let mut i = 1;
        while i < N {
            // `forget`: const evaluation cannot run the placeholder's drop.
            core::mem::forget(core::mem::replace(&mut nodes[i], TaskNode::new(&$specs[i])));
            i += 1;
        }
        nodes
    }};
}

static WIDE_NODES: [TaskNode; N] = nodes!(WIDE_SPECS);
static STAR_NODES: [TaskNode; N] = nodes!(STAR_SPECS);
static CHAIN_NODES: [TaskNode; N] = nodes!(CHAIN_SPECS);

const fn slots(nodes: &'static [TaskNode; N]) -> [Option<&'static TaskNode>; N] {
    let mut s = [None; N];
    let mut i = 0;
    while i < N {
        s[i] = Some(&nodes[i]);
        i += 1;
    }
    s
}

static WIDE: Graph<N> = Graph::new(slots(&WIDE_NODES), [&[]; N]);
static STAR: Graph<N> = Graph::new(slots(&STAR_NODES), {
    let mut d: [&'static [u8]; N] = [&[0]; N];
    d[0] = &[];
    d
});
static CHAIN: Graph<N> = Graph::new(
    slots(&CHAIN_NODES),
    [&[], &[0], &[1], &[2], &[3], &[4], &[5], &[6]],
);
static SUP_WIDE: Supervisor<N> = Supervisor::new(&WIDE);
static SUP_STAR: Supervisor<N> = Supervisor::new(&STAR);
static SUP_CHAIN: Supervisor<N> = Supervisor::new(&CHAIN);

/// The median of `RUNS` runs of `op` after a fresh `start`, in ms.
async fn median<F: Future<Output = bool>>(
    sup: &'static Supervisor<N>,
    s: Spawner,
    op: impl Fn() -> F,
) -> f64 {
    let mut took = [0f64; RUNS];
    for t in &mut took {
        sup.start(s).await.expect("start");
        let begin = Instant::now();
        assert!(op().await, "the stop missed an ack");
        *t = begin.elapsed().as_secs_f64() * 1e3;
        // `deactivate` leaves the root latched: clear it for the next run.
        sup.activate(sup.graph().nodes[0].unwrap(), s)
            .await
            .unwrap();
        assert!(sup.teardown().await.is_ok());
    }
    took.sort_by(f64::total_cmp);
    took[RUNS / 2]
}

#[embassy_executor::task]
async fn bench(s: Spawner) {
    println!("| graph, verb | D = 50 ms | D = 100 ms |");
    println!("|---|---|---|");
    let mut rows: [(&str, [f64; 2]); 4] = [
        ("8 independent nodes, teardown", [0.0; 2]),
        ("root + 7 dependents, teardown", [0.0; 2]),
        ("root + 7 dependents, deactivate(root)", [0.0; 2]),
        ("chain of 8, teardown", [0.0; 2]),
    ];
    for (k, d) in [50, 100].into_iter().enumerate() {
        DELAY_MS.store(d, Ordering::Relaxed);
        rows[0].1[k] = median(&SUP_WIDE, s, || async { SUP_WIDE.teardown().await.is_ok() }).await;
        rows[1].1[k] = median(&SUP_STAR, s, || async { SUP_STAR.teardown().await.is_ok() }).await;
        rows[2].1[k] = median(&SUP_STAR, s, || async {
            SUP_STAR.deactivate(&STAR_NODES[0]).await.is_ok()
        })
        .await;
        rows[3].1[k] = median(&SUP_CHAIN, s, || async {
            SUP_CHAIN.teardown().await.is_ok()
        })
        .await;
    }
    for (name, [a, b]) in rows {
        println!("| {name} | {a:.0} ms | {b:.0} ms |");
    }
    std::process::exit(0);
}

fn main() {
    let ex: &'static mut Executor = Box::leak(Box::new(Executor::new()));
    ex.run(|s| s.spawn(bench(s).unwrap()));
}
