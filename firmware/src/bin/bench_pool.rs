//! Pool scaling cost against graph size (pitfall 14: no pool lookup may scan
//! the graph). Run under `qemu -icount shift=0,sleep=off` like `bench.rs`.
//!
//! The same 4-member elastic pool (min 1, `DeferredShrink` with a zero
//! cooldown) is measured twice in one binary: alone in a 4-slot graph, and as
//! the last 4 slots of a graph whose other slots hold nodes that never run
//! (250 slots; 64 on the micro:bit's 16 KiB of RAM). One grow is `mark_busy()`
//! → driver wake → policy → spawn → first poll; one shrink is `mark_idle()` →
//! driver wake → policy → stop → ack → exit. Equal figures mean membership,
//! member choice and the load count touch only the pool's own slots; the run
//! fails (exit 1) if the big graph's mean exceeds the small one's by more
//! than `flat_margin()`, so `firmware/ci.sh` runs it as pitfall 14's test.
//!
//! Output lines are `|`-separated table rows for bench.sh.
#![no_std]
#![no_main]

use core::future::Future;

use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
use embassy_futures::select::{Either, select};
use embassy_supervisor::{
    DeferredShrink, ElasticPool, Graph, Mode, NodeSpec, Supervisor, TaskNode,
};
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::{Duration, Instant, Timer};

include!("../harness/measure.rs");

/// Pool members.
const K: usize = 4;
/// Slots of the big graph.
#[cfg(not(feature = "microbit"))]
const BIG: usize = 250;
#[cfg(feature = "microbit")]
const BIG: usize = 64;

#[embassy_executor::task(pool_size = K)]
async fn member(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

fn spawn_member(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(member(node)?);
    Ok(())
}

/// A graph of `$slots` slots whose last `K` are the pool; the others are
/// nodes that are never started.
macro_rules! pool_graph {
    ($specs:ident, $nodes:ident, $pool:ident, $graph:ident, $sup:ident, $slots:expr) => {
        static $specs: [NodeSpec; $slots] = {
            let mut s = [const { NodeSpec::new("f", Mode::Terminate) }; $slots];
            let mut i = 0;
            while i < $slots {
                s[i] = if i < $slots - K {
                    NodeSpec::new("f", Mode::Terminate)
                } else {
                    NodeSpec::new("p", Mode::OnDemand)
                        .with_spawn(spawn_member)
                        .in_pool(0)
                }
                .at(i as u8);
                i += 1;
            }
            s
        };
        static $nodes: [TaskNode; $slots] = {
            let mut n = [const { TaskNode::new(&$specs[0]) }; $slots];
            let mut i = 0;
            while i < $slots {
                // `forget`: const evaluation cannot run the placeholder's drop.
                core::mem::forget(core::mem::replace(&mut n[i], TaskNode::new(&$specs[i])));
                i += 1;
            }
            n
        };
        static $pool: ElasticPool<DeferredShrink> = ElasticPool::new(
            $nodes.split_at($slots - K).1,
            ($slots - K) as u8,
            1,
            K as u8,
            DeferredShrink::new(Duration::from_ticks(0)),
        );
        static $graph: Graph<$slots> = {
            let mut slots = [None; $slots];
            let mut i = 0;
            while i < $slots {
                slots[i] = Some(&$nodes[i]);
                i += 1;
            }
            Graph::new(slots, [&[]; $slots]).with_pools(&[&$pool])
        };
        static $sup: Supervisor<$slots> = Supervisor::new(&$graph);
    };
}

pool_graph!(SMALL_SPECS, SMALL, SMALL_POOL, SMALL_GRAPH, SMALL_SUP, K);
pool_graph!(BIG_SPECS, BIG_NODES, BIG_POOL, BIG_GRAPH, BIG_SUP, BIG);

/// Ends the small graph's driver before the big graph is measured: both
/// would wake on every change.
static SMALL_DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

#[embassy_executor::task]
async fn small_driver(spawner: Spawner) {
    if let Either::First(e) = select(SMALL_SUP.run_pools(spawner), SMALL_DONE.wait()).await {
        fw::println!("pool driver stopped: {}", e);
        FAILED.store(true, portable_atomic::Ordering::Release);
    }
}

#[embassy_executor::task]
async fn big_driver(spawner: Spawner) {
    let e = BIG_SUP.run_pools(spawner).await;
    fw::println!("pool driver stopped: {}", e);
    FAILED.store(true, portable_atomic::Ordering::Release);
}

/// Rounds of one grow and one shrink per graph.
const ROUNDS: u64 = 3;
/// How much more a grow or shrink in the big graph may cost, on average,
/// than in the small one: the larger of 250 instructions and two ticks. The
/// tick granularity (50 instructions on the an505, 62.5 on the micro:bit,
/// 1000 on the an385) and code placement move a figure by up to two ticks; a
/// lookup that scans the 250-slot graph adds over 10 000.
fn flat_margin() -> u64 {
    250.max(2 * instr(1))
}

/// With the pool's driver running: the pool settles at min (one member up),
/// then `ROUNDS` rounds of one grow and one shrink. Returns the mean grow and
/// shrink cost (`u64::MAX` for a round that failed).
async fn measure(members: &'static [TaskNode], slots: usize) -> (u64, u64) {
    Timer::after_millis(2).await;
    if !(members[0].is_running() && !members[1].is_running()) {
        fw::println!("pool in the {}-slot graph did not settle at min", slots);
        FAILED.store(true, portable_atomic::Ordering::Release);
    }
    let (mut grow, mut shrink) = (0u64, 0u64);
    for _ in 0..ROUNDS {
        let c = cost(
            || async { members[0].mark_busy() },
            |()| members[1].is_running(),
        )
        .await;
        row("POOL", slots, "grow (mark_busy -> spawn)", 1, c);
        grow = grow.saturating_add(c.unwrap_or(u64::MAX));
        let c = cost(
            || async { members[0].mark_idle() },
            |()| !members[1].is_running(),
        )
        .await;
        row("POOL", slots, "shrink (mark_idle -> stop)", 1, c);
        shrink = shrink.saturating_add(c.unwrap_or(u64::MAX));
    }
    (grow / ROUNDS, shrink / ROUNDS)
}

/// Fail the run unless the big graph's mean is within [`flat_margin`] of
/// the small one's.
fn check_flat(op: &str, small: u64, big: u64) {
    if big > small.saturating_add(flat_margin()) {
        fw::println!(
            "FAIL: pool {} costs {} instructions in the {}-slot graph, {} in the {}-slot one: a lookup scans the graph",
            op,
            big,
            BIG,
            small,
            K
        );
        FAILED.store(true, portable_atomic::Ordering::Release);
    }
}

#[embassy_executor::task]
async fn bench(spawner: Spawner) {
    let (base, ()) = probe(|| async {}).await;
    // Safety: the only write, before any reader.
    unsafe { OVERHEAD = base };
    spawner.spawn(small_driver(spawner).unwrap());
    let (small_grow, small_shrink) = measure(&SMALL, K).await;
    SMALL_DONE.signal(());
    // The small pool keeps one member up: the big one uses at most 2 of the
    // member task's 4 storages.
    spawner.spawn(big_driver(spawner).unwrap());
    let (big_grow, big_shrink) = measure(BIG_NODES.split_at(BIG - K).1, BIG).await;
    check_flat("grow", small_grow, big_grow);
    check_flat("shrink", small_shrink, big_shrink);
    fw::exit(if FAILED.load(portable_atomic::Ordering::Acquire) {
        1
    } else {
        0
    })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(bench(s).unwrap()))
}
