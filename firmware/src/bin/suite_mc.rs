//! The multi-core suite (mps2-an521): core 1 runs its own executor and
//! publishes its spawner; the supervisor on core 0 places nodes there.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::Spawner;
use embassy_supervisor::SpawnerSlot;
use embassy_supervisor_firmware as fw;
use embassy_time::Timer;
use fw::check::{check, finish};
use portable_atomic::{AtomicU32, Ordering};

static CORE1: SpawnerSlot = SpawnerSlot::new();
static RAN_ON: AtomicU32 = AtomicU32::new(99);

#[embassy_executor::task]
async fn where_am_i() {
    Timer::after_millis(1).await;
    RAN_ON.store(fw::exec::core_id() as u32, Ordering::Release);
}

#[embassy_executor::task]
async fn main_task(_spawner: Spawner) {
    check("boot: core 0 runs main", fw::exec::core_id() == 0);
    check("boot: core 1 held in CPUWAIT at reset", fw::an521::cores::core1_waiting());
    fw::an521::cores::start_core1(|s| CORE1.set(s.make_send()));
    for _ in 0..100 {
        if CORE1.get().is_some() {
            break;
        }
        Timer::after_millis(1).await;
    }
    let Some(core1) = CORE1.get() else {
        check("boot: core 1 published its spawner", false);
        finish()
    };
    check(
        "boot: core 1 released (CPUWAIT clear) and published its spawner",
        !fw::an521::cores::core1_waiting(),
    );
    core1.spawn(where_am_i().unwrap());
    Timer::after_millis(5).await;
    check("boot: a task spawned through it ran on core 1", RAN_ON.load(Ordering::Acquire) == 1);
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
