//! Footprint reference, unsupervised: the same 12 tasks as `ref_supervised`,
//! spawned directly with embassy, stopped through one signal each, and
//! spawned again. The size difference to `ref_supervised` is the supervisor's.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::Spawner;
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;
use embassy_time::Timer;
use portable_atomic::{AtomicU32, Ordering};

static STOP: [Signal<CriticalSectionRawMutex, ()>; 12] = [const { Signal::new() }; 12];
static RUNNING: AtomicU32 = AtomicU32::new(0);

#[embassy_executor::task(pool_size = 12)]
async fn worker(i: usize) {
    RUNNING.add(1, Ordering::AcqRel);
    STOP[i].wait().await;
    RUNNING.sub(1, Ordering::AcqRel);
}

fn spawn_all(spawner: Spawner) -> bool {
    (0..12).all(|i| match worker(i) {
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
    ok &= RUNNING.load(Ordering::Acquire) == 12;
    for s in STOP.iter().rev() {
        s.signal(());
    }
    Timer::after_millis(1).await;
    ok &= RUNNING.load(Ordering::Acquire) == 0;
    ok &= spawn_all(spawner);
    Timer::after_millis(1).await;
    ok &= RUNNING.load(Ordering::Acquire) == 12;
    fw::exit(if ok { 0 } else { 1 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
