//! Cost of the trace recorders (feature `trace`), under QEMU `-icount`
//! (an `Instant` difference is an instruction count).
//!
//! Two CHAIN graphs, of 8 and 64 nodes, run at once, every node in its own
//! task storage and bound to its node, so the attribution table holds 72
//! tasks. For each graph, the recorders' work per poll (`exec_begin` +
//! `exec_end`) is timed for a node's task (a hit) and for an unknown task (a
//! miss), `REPS` times in a row: the cost must not depend on the graph's
//! size (pitfall 13 was a scan of the graph per poll). The hooks are defined
//! here by hand, forwarding to the recorders, as an application with its
//! own tracer would.
//!
//! Output: `ROW|TRACE|N|operation|instructions per call` for bench.sh.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode, trace};
use embassy_supervisor_firmware as fw;
use embassy_time::Instant;

#[unsafe(no_mangle)]
fn _embassy_trace_poll_start(executor_id: u32) {
    trace::on_poll_start(executor_id)
}
#[unsafe(no_mangle)]
fn _embassy_trace_task_new(executor_id: u32, task_id: u32) {
    trace::on_task_new(executor_id, task_id)
}
#[unsafe(no_mangle)]
fn _embassy_trace_task_end(executor_id: u32, task_id: u32) {
    trace::on_task_end(executor_id, task_id)
}
#[unsafe(no_mangle)]
fn _embassy_trace_task_exec_begin(executor_id: u32, task_id: u32) {
    trace::on_task_exec_begin(executor_id, task_id)
}
#[unsafe(no_mangle)]
fn _embassy_trace_task_exec_end(executor_id: u32, task_id: u32) {
    trace::on_task_exec_end(executor_id, task_id)
}
#[unsafe(no_mangle)]
fn _embassy_trace_task_ready_begin(executor_id: u32, task_id: u32) {
    trace::on_task_ready_begin(executor_id, task_id)
}
#[unsafe(no_mangle)]
fn _embassy_trace_executor_idle(executor_id: u32) {
    trace::on_executor_idle(executor_id)
}

const REPS: u64 = 200;
/// An executor id no real executor has: the timed calls use their own slot.
const BENCH_EXECUTOR: u32 = 0xBE00_0000;
/// An id no task has (task ids are addresses of task storage in RAM).
const UNKNOWN_TASK: u32 = 0x0000_0F00;

#[embassy_executor::task(pool_size = 72)]
async fn worker(node: &'static TaskNode) {
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
    node.mark_exited();
}

fn spawn_bound(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let token = worker(node)?;
    node.bind(&token);
    s.spawn(token);
    Ok(())
}

/// A CHAIN(N) graph of bound workers, as statics.
macro_rules! chain {
    ($n:expr, $specs:ident, $nodes:ident, $idx:ident, $graph:ident, $sup:ident) => {
        static $specs: [NodeSpec; $n] = {
            let mut s = [const { NodeSpec::new("C", Mode::Terminate) }; $n];
            let mut i = 0;
            while i < $n {
                s[i] = NodeSpec::new("C", Mode::Terminate)
                    .with_spawn(spawn_bound)
                    .at(i as u8);
                i += 1;
            }
            s
        };
        static $nodes: [TaskNode; $n] = {
            let mut n = [const { TaskNode::new(&$specs[0]) }; $n];
            let mut i = 0;
            while i < $n {
                core::mem::forget(core::mem::replace(&mut n[i], TaskNode::new(&$specs[i])));
                i += 1;
            }
            n
        };
        static $idx: [u8; $n] = {
            let mut a = [0u8; $n];
            let mut i = 0;
            while i < $n {
                a[i] = i as u8;
                i += 1;
            }
            a
        };
        static $graph: Graph<$n> = {
            let mut slots = [None; $n];
            let mut deps: [&'static [u8]; $n] = [&[]; $n];
            let mut i = 0;
            while i < $n {
                slots[i] = Some(&$nodes[i]);
                if i > 0 {
                    deps[i] = core::slice::from_ref(&$idx[i - 1]);
                }
                i += 1;
            }
            Graph::new(slots, deps)
        };
        static $sup: Supervisor<$n> = Supervisor::new(&$graph);
    };
}

chain!(8, S8, N8, I8, G8, SUP8);
chain!(64, S64, N64, I64, G64, SUP64);

fn instr(ticks: u64) -> u64 {
    ticks * 1_000_000_000 / embassy_time::TICK_HZ
}

/// Instructions per call of `f`, over `REPS` calls, less an empty loop's.
fn per_call(f: impl Fn()) -> u64 {
    let t0 = Instant::now().as_ticks();
    for _ in 0..REPS {
        f();
    }
    let t1 = Instant::now().as_ticks();
    for _ in 0..REPS {
        core::hint::black_box(());
    }
    let t2 = Instant::now().as_ticks();
    instr((t1 - t0).saturating_sub(t2 - t1)) / REPS
}

fn measure(n: usize, nodes: &'static [TaskNode]) -> bool {
    let node = &nodes[n / 2];
    let Some(id) = node.task_id() else {
        return false;
    };
    let attributed = trace::node_of(id).is_some_and(|m| core::ptr::eq(m, node));
    let polls = node.trace_stats().polls;
    let hit = per_call(|| {
        trace::on_task_exec_begin(BENCH_EXECUTOR, core::hint::black_box(id));
        trace::on_task_exec_end(BENCH_EXECUTOR, core::hint::black_box(id));
    });
    let counted = node.trace_stats().polls.wrapping_sub(polls) as u64 >= REPS;
    let miss = per_call(|| {
        trace::on_task_exec_begin(BENCH_EXECUTOR, core::hint::black_box(UNKNOWN_TASK));
        trace::on_task_exec_end(BENCH_EXECUTOR, core::hint::black_box(UNKNOWN_TASK));
    });
    let ready = per_call(|| {
        trace::on_task_ready_begin(BENCH_EXECUTOR, core::hint::black_box(id));
    });
    let clock = per_call(|| {
        core::hint::black_box(embassy_time_driver::now());
    });
    let lookup = per_call(|| {
        core::hint::black_box(trace::node_of(core::hint::black_box(id)));
    });
    fw::println!(
        "ROW|TRACE|{}|exec_begin + exec_end, a node's task|{}",
        n,
        hit
    );
    fw::println!(
        "ROW|TRACE|{}|exec_begin + exec_end, an unknown task|{}",
        n,
        miss
    );
    fw::println!(
        "ROW|TRACE|{}|one clock read (the board's time driver)|{}",
        n,
        clock
    );
    fw::println!("ROW|TRACE|{}|task_ready_begin|{}", n, ready);
    fw::println!(
        "ROW|TRACE|{}|node_of (the attribution lookup)|{}",
        n,
        lookup
    );
    attributed && counted
}

#[embassy_executor::task]
async fn bench(spawner: Spawner) {
    let mut ok = SUP8.start(spawner).await.is_ok();
    ok &= SUP64.start(spawner).await.is_ok();
    embassy_time::Timer::after_millis(1).await;
    ok &= measure(8, &N8);
    ok &= measure(64, &N64);
    ok &= trace::untracked() == 0;
    fw::println!("INFO|board|{}", fw::board::NAME);
    fw::println!(
        "INFO|size_of::<TaskNode>() with trace|{}",
        core::mem::size_of::<TaskNode>()
    );
    fw::exit(if ok { 0 } else { 1 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(bench(s).unwrap()))
}
