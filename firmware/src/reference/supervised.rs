// Footprint reference, supervised: CHAIN(`CHAIN`) plus a `K`-member elastic
// pool, driven through start -> teardown -> respawn_terminate. Included by
// `ref_supervised*.rs` and `ref_core.rs` after `const CHAIN: usize = ..;` and
// `const K: usize = ..;`. Compare its sizes with the `ref_direct*` build with
// as many tasks (the same tasks spawned directly with embassy); two chain
// lengths give the cost per extra node, and `K = 0` (no pool, so no pool
// driver is linked) the lifecycle core's share of the fixed cost.

use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
#[cfg(feature = "pool")]
use embassy_supervisor::{DeferredShrink, ElasticPool};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
#[cfg(feature = "pool")]
use embassy_time::Duration;
use embassy_time::Timer;

// Without the `pool` feature (the lean-defaults build of `ref_core`) there
// are no pool members.
#[cfg(not(feature = "pool"))]
const _: () = assert!(K == 0, "pool members need the `pool` feature");

/// Nodes in the graph.
const N: usize = CHAIN + K;

#[embassy_executor::task(pool_size = N)]
async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

/// One spawn fn for every node: they run the same task.
fn spawn_worker(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let token = worker(node)?;
    node.bind(&token); // trace attribution; nothing without `trace`
    s.spawn(token);
    Ok(())
}

/// Node `i` of the chain sits in slot `i`; pool member `j` in slot `CHAIN + j`.
/// The spec of a pool member (slots `CHAIN..N`; none without `pool`).
const fn pool_member() -> NodeSpec {
    let spec = NodeSpec::new("P", Mode::OnDemand);
    #[cfg(feature = "pool")]
    let spec = spec.in_pool(0);
    spec
}

static SPECS: [NodeSpec; N] = {
    let mut s = [const { NodeSpec::new("C", Mode::Terminate) }; N];
    let mut i = 0;
    while i < N {
        s[i] = if i < CHAIN {
            NodeSpec::new("C", Mode::Terminate)
        } else {
            pool_member()
        }
        .with_spawn(spawn_worker)
        .at(i as u8);
        i += 1;
    }
    s
};

static NODES: [TaskNode; N] = {
    let mut n = [const { TaskNode::new(&SPECS[0]) }; N];
    let mut i = 0;
    while i < N {
        // `forget`: const evaluation cannot run the placeholder's drop.
        core::mem::forget(core::mem::replace(&mut n[i], TaskNode::new(&SPECS[i])));
        i += 1;
    }
    n
};

static IDX: [u8; N] = {
    let mut a = [0u8; N];
    let mut i = 0;
    while i < N {
        a[i] = i as u8;
        i += 1;
    }
    a
};

#[cfg(feature = "pool")]
static POOL: ElasticPool<DeferredShrink> = ElasticPool::new(
    // The members are the last K nodes.
    NODES.split_at(CHAIN).1,
    CHAIN as u8,
    if K > 0 { 1 } else { 0 },
    K as u8,
    DeferredShrink::new(Duration::from_millis(10)),
);

static GRAPH: Graph<N> = {
    let mut slots = [None; N];
    // Chain node i depends on i - 1; every pool member on the chain's root.
    let mut deps: [&'static [u8]; N] = [&[]; N];
    let mut i = 0;
    while i < N {
        slots[i] = Some(&NODES[i]);
        if i > 0 {
            deps[i] = core::slice::from_ref(&IDX[if i < CHAIN { i - 1 } else { 0 }]);
        }
        i += 1;
    }
    #[cfg(feature = "pool")]
    let pools: &[&'static dyn embassy_supervisor::Pool] = if K > 0 { &[&POOL] } else { &[] };
    #[cfg(feature = "pool")]
    let graph = Graph::new(slots, deps).with_pools(pools);
    #[cfg(not(feature = "pool"))]
    let graph = Graph::new(slots, deps);
    graph
};
static SUP: Supervisor<N> = Supervisor::new(&GRAPH);

#[cfg(feature = "pool")]
#[embassy_executor::task]
async fn pools(spawner: Spawner) {
    // Returns only if a shrink misses its ack; the check below then fails.
    let _ = SUP.run_pools(spawner).await;
}

fn chain_up() -> bool {
    NODES[..CHAIN].iter().all(|n| n.is_running())
}

/// Feature `ref-run` (the lean-defaults measurement): bring the graph up
/// with `Supervisor::run`, whose driver loop links the control and pool
/// drivers an application's `run` carries, until the chain is up.
#[cfg(feature = "ref-run")]
async fn run_until_up(spawner: Spawner) -> bool {
    let up = async {
        while !chain_up() {
            Timer::after_micros(100).await;
        }
    };
    let driven = embassy_futures::select::select(SUP.run(spawner), up).await;
    matches!(driven, embassy_futures::select::Either::Second(()))
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    // The diagnostics measurement (feature-size.sh): used as an application
    // would, so the linker keeps what they record.
    #[cfg(feature = "lifecycle-sink")]
    embassy_supervisor::set_lifecycle_sink(Some(count_transition));
    // Without `ref-run` the code is exactly what the footprint figures measure.
    #[cfg(not(feature = "ref-run"))]
    let mut ok = SUP.start(spawner).await.is_ok();
    #[cfg(feature = "ref-run")]
    let mut ok = run_until_up(spawner).await;
    #[cfg(feature = "pool")]
    if K > 0 {
        spawner.spawn(pools(spawner).unwrap());
    }
    Timer::after_millis(1).await;
    ok &= chain_up() && NODES[CHAIN..].first().is_none_or(|m| m.is_running());
    // The driver stays up: a torn-down graph is halted, so it regrows
    // nothing until respawn_terminate.
    ok &= SUP.teardown().await.is_ok();
    ok &= SUP.respawn_terminate(spawner).await.is_ok();
    Timer::after_millis(1).await;
    ok &= chain_up();
    // The last transition was the last node's respawn.
    #[cfg(feature = "breadcrumb")]
    {
        ok &= embassy_supervisor::breadcrumb::Breadcrumb::last()
            .is_some_and(|c| c.phase == embassy_supervisor::Phase::Started);
    }
    #[cfg(feature = "lifecycle-sink")]
    {
        ok &= TRANSITIONS.load(portable_atomic::Ordering::Relaxed) >= 2 * CHAIN as u32;
    }
    fw::exit(if ok { 0 } else { 1 })
}

/// Transitions the sink saw (feature `lifecycle-sink`).
#[cfg(feature = "lifecycle-sink")]
static TRANSITIONS: portable_atomic::AtomicU32 = portable_atomic::AtomicU32::new(0);

#[cfg(feature = "lifecycle-sink")]
fn count_transition(_: &TaskNode, _: embassy_supervisor::Phase, _: embassy_time::Instant) {
    TRANSITIONS.add(1, portable_atomic::Ordering::Relaxed);
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
