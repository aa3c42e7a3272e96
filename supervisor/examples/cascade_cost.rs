//! Host cost of the control cascades on a 250-node graph: a deactivate from
//! the root of CHAIN(250) (every node stopped, dependents first) and an
//! activate from its last node (every node started, dependencies first),
//! each through `apply_control`, on a real executor with real workers.
//!
//! Run: `cargo run --release -p embassy-supervisor --example cascade_cost`
//! (wall-clock nanoseconds: a benchmark, not a test; instruction counts for
//! Cortex-M33 are in BENCHMARKS.md).
use std::time::Instant;

use embassy_executor::{Executor, SpawnError, Spawner};
use embassy_supervisor::{ControlCommand, ControlOp, Graph, Mode, NodeSpec, Supervisor, TaskNode};

const N: usize = 250;
const ROUNDS: u32 = 200;

#[embassy_executor::task(pool_size = 250)]
async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

/// One spawn fn for every node: it receives the node to spawn.
fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let token = worker(node)?;
    node.bind(&token); // trace attribution; nothing without `trace`
    s.spawn(token);
    Ok(())
}

static SPECS: [NodeSpec; N] = {
    let mut specs = [const { NodeSpec::new("chain", Mode::Terminate) }; N];
    let mut i = 0;
    while i < N {
        specs[i] = NodeSpec::new("chain", Mode::Terminate)
            .with_spawn(spawn_worker)
            .at(i as u8);
        i += 1;
    }
    specs
};

static NODES: [TaskNode; N] = {
    let mut nodes = [const { TaskNode::new(&SPECS[0]) }; N];
    let mut i = 0;
    while i < N {
        // The array starts with placeholders; `forget` skips a drop that
        // const evaluation cannot run.
        core::mem::forget(core::mem::replace(&mut nodes[i], TaskNode::new(&SPECS[i])));
        i += 1;
    }
    nodes
};

static INDICES: [u8; N] = {
    let mut a = [0u8; N];
    let mut i = 0;
    while i < N {
        a[i] = i as u8;
        i += 1;
    }
    a
};

/// CHAIN(N): node i depends on node i - 1.
static GRAPH: Graph<N> = {
    let mut slots = [None; N];
    let mut deps: [&[u8]; N] = [&[]; N];
    let mut i = 0;
    while i < N {
        slots[i] = Some(&NODES[i]);
        if i > 0 {
            deps[i] = INDICES.split_at(i - 1).1.split_at(1).0;
        }
        i += 1;
    }
    Graph::new(slots, deps)
};
static SUP: Supervisor<N> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn bench(spawner: Spawner) {
    SUP.start(spawner).await.expect("bring-up");
    let (root, last) = (&NODES[0], &NODES[N - 1]);
    let (mut down_ns, mut up_ns) = (0u128, 0u128);
    for _ in 0..ROUNDS {
        let t = Instant::now();
        SUP.apply_control(
            ControlCommand {
                node: root,
                op: ControlOp::Deactivate,
            },
            spawner,
        )
        .await
        .expect("deactivate");
        down_ns += t.elapsed().as_nanos();
        // The root is latched `disabled`, its dependents held (issue 13, item 2).
        assert!(
            NODES
                .iter()
                .all(|n| !n.is_running() && (n.is_disabled() || n.is_held()))
        );

        let t = Instant::now();
        SUP.apply_control(
            ControlCommand {
                node: last,
                op: ControlOp::Activate,
            },
            spawner,
        )
        .await
        .expect("activate");
        up_ns += t.elapsed().as_nanos();
        assert!(NODES.iter().all(|n| n.is_running() && !n.is_disabled()));
    }
    let per = |total: u128| total / u128::from(ROUNDS);
    println!("CHAIN({N}), {ROUNDS} rounds, wall clock on this host:");
    println!(
        "  deactivate cascade from the root: {:>9} ns  ({} ns per node)",
        per(down_ns),
        per(down_ns) / N as u128
    );
    println!(
        "  activate cascade from the last:   {:>9} ns  ({} ns per node)",
        per(up_ns),
        per(up_ns) / N as u128
    );
    std::process::exit(0);
}

fn main() {
    let ex: &'static mut Executor = Box::leak(Box::new(Executor::new()));
    ex.run(|s| s.spawn(bench(s).unwrap()));
}
