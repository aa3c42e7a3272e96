//! Cross-core cost on mps2-an521, under `-icount shift=0,sleep=off`: one
//! virtual nanosecond per guest instruction, counted on *both* cores (QEMU
//! runs them round-robin on one clock), so a figure is the instructions the
//! two cores executed together. Same-core (LOCAL, core 0) and cross-core
//! (REMOTE, core 1) nodes run the same worker in the same binary:
//!
//! - spawn: from the call to `start_node` until the instance's first poll
//!   (on its own core) begins;
//! - stop: from the call to `stop_node` until it returns the node's ack.
//!
//! Prints `ROW|MC|<node>|<op>|<run 1>|...|<run 5>` in instructions, less the
//! empty probe; exits 1 if an operation failed. Built with the `suite`
//! features (the graph is declared with the macro).
#![no_std]
#![no_main]

use core::cell::Cell;

use cortex_m_rt::entry;
use critical_section::Mutex;
use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode};
use embassy_supervisor_firmware as fw;
use embassy_time::{Instant, Timer};

embassy_supervisor::supervisor_graph! {
    executor CORE1;
    node LOCAL = OnDemand, deps: [], task: worker(0);
    node REMOTE = OnDemand, deps: [], executor: CORE1, task: worker(1);
}

static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
/// When each node's instance first ran (ticks; 0: not yet).
static FIRST_POLL: [Mutex<Cell<u64>>; 2] = [const { Mutex::new(Cell::new(0)) }; 2];
const RUNS: usize = 5;

async fn worker(node: &'static TaskNode, i: usize) {
    let now = Instant::now().as_ticks();
    critical_section::with(|cs| FIRST_POLL[i].borrow(cs).set(now));
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

fn instr(ticks: u64) -> u64 {
    ticks * 1_000_000_000 / embassy_time::TICK_HZ
}

fn first_poll(i: usize) -> u64 {
    critical_section::with(|cs| FIRST_POLL[i].borrow(cs).replace(0))
}

/// (spawn, stop) instructions of one start/stop cycle of `node`.
async fn cycle(
    node: &'static TaskNode,
    i: usize,
    spawner: Spawner,
    empty: u64,
) -> Option<(u64, u64)> {
    let t0 = Instant::now().as_ticks();
    SUP.start_node(node, spawner).await.ok()?;
    let mut polled = first_poll(i);
    for _ in 0..10 {
        if polled != 0 {
            break;
        }
        Timer::after_millis(1).await;
        polled = first_poll(i);
    }
    if polled == 0 {
        return None;
    }
    let spawn = instr(polled.saturating_sub(t0)).saturating_sub(empty);
    Timer::after_millis(2).await;
    let t0 = Instant::now().as_ticks();
    SUP.stop_node(node).await.ok()?;
    let stop = instr(Instant::now().as_ticks() - t0).saturating_sub(empty);
    Timer::after_millis(2).await;
    Some((spawn, stop))
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    fw::an521::cores::start_core1(|s| CORE1.set(s.make_send()));
    let t0 = Instant::now().as_ticks();
    let empty = instr(Instant::now().as_ticks() - t0);
    fw::println!("probe overhead: {} instructions", empty);
    let mut failed = false;
    for (name, node, i) in [
        ("LOCAL (core 0)", &LOCAL, 0),
        ("REMOTE (core 1)", &REMOTE, 1),
    ] {
        let mut spawn = [0u64; RUNS];
        let mut stop = [0u64; RUNS];
        for r in 0..RUNS {
            match cycle(node, i, spawner, empty).await {
                Some((a, b)) => (spawn[r], stop[r]) = (a, b),
                None => failed = true,
            }
        }
        for (op, v) in [("spawn", spawn), ("stop", stop)] {
            fw::println!(
                "ROW|MC|{}|{}|{}|{}|{}|{}|{}",
                name,
                op,
                v[0],
                v[1],
                v[2],
                v[3],
                v[4]
            );
        }
    }
    fw::exit(if failed { 1 } else { 0 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
