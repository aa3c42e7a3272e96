// Footprint reference, unsupervised: the same `CHAIN + 4` tasks as the
// supervised reference, spawned directly with embassy, stopped through one
// signal each, and spawned again. Included by `ref_direct*.rs` after
// `const CHAIN: usize = ..;`. The size difference to the supervised build of
// the same `CHAIN` is the supervisor's.

use cortex_m_rt::entry;
use embassy_executor::Spawner;
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::Timer;
use portable_atomic::{AtomicU32, Ordering};

/// Tasks: the chain and the four pool members.
const N: usize = CHAIN + 4;

static STOP: [Signal<CriticalSectionRawMutex, ()>; N] = [const { Signal::new() }; N];
static RUNNING: AtomicU32 = AtomicU32::new(0);

#[embassy_executor::task(pool_size = N)]
async fn worker(i: usize) {
    RUNNING.add(1, Ordering::AcqRel);
    STOP[i].wait().await;
    RUNNING.sub(1, Ordering::AcqRel);
}

fn spawn_all(spawner: Spawner) -> bool {
    (0..N).all(|i| match worker(i) {
        Ok(t) => {
            spawner.spawn(t);
            true
        }
        Err(_) => false,
    })
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    let mut ok = spawn_all(spawner);
    Timer::after_millis(1).await;
    ok &= RUNNING.load(Ordering::Acquire) == N as u32;
    for s in STOP.iter().rev() {
        s.signal(());
    }
    Timer::after_millis(1).await;
    ok &= RUNNING.load(Ordering::Acquire) == 0;
    ok &= spawn_all(spawner);
    Timer::after_millis(1).await;
    ok &= RUNNING.load(Ordering::Acquire) == N as u32;
    fw::exit(if ok { 0 } else { 1 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
