//! The two-core critical section under contention (mps2-an521).
//!
//! Both cores increment one shared, non-atomic counter `HAMMER` times, each
//! increment a read and a later write inside `critical_section::with` (half
//! of them nested in a second one), while core 0's timer interrupt takes the
//! same lock every millisecond. Exits 0 only if no increment was lost.
//!
//! Under `-icount` (the runner) QEMU gives the cores turns that end at
//! instruction counts, which land inside sections: with the lock disabled
//! (interrupt masking alone, as `critical-section-single-core` does) this run
//! loses 55554 of the 200000 increments, the same on every run. Without
//! `-icount` (`-accel tcg,thread=multi`) each core runs on its own host
//! thread; the loss then depends on how the host schedules them.
#![no_std]
#![no_main]

use core::cell::Cell;

use cortex_m_rt::entry;
use critical_section::Mutex;
use embassy_executor::Spawner;
use embassy_supervisor_firmware as fw;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex as Cs;
use embassy_sync::signal::Signal;
use fw::check::{check, finish};

const HAMMER: u32 = 100_000;
static COUNTER: Mutex<Cell<u32>> = Mutex::new(Cell::new(0));
static CORE1_DONE: Signal<Cs, usize> = Signal::new();

fn increment() {
    critical_section::with(|cs| {
        let counter = COUNTER.borrow(cs);
        let v = counter.get();
        // Widen the window between the read and the write.
        cortex_m::asm::delay(8);
        counter.set(v + 1);
    })
}

fn hammer() {
    for i in 0..HAMMER {
        if i % 2 == 0 {
            increment();
        } else {
            critical_section::with(|_| increment());
        }
    }
}

#[embassy_executor::task]
async fn on_core1() {
    hammer();
    CORE1_DONE.signal(fw::exec::core_id());
}

fn core1_init(spawner: Spawner) {
    spawner.spawn(on_core1().unwrap());
}

#[embassy_executor::task]
async fn main_task() {
    fw::an521::cores::start_core1(core1_init);
    hammer();
    let other = CORE1_DONE.wait().await;
    let total = critical_section::with(|cs| COUNTER.borrow(cs).get());
    fw::println!("{} of {} increments", total, 2 * HAMMER);
    check(
        "critical section: both cores increment one counter at once, none lost",
        other == 1 && total == 2 * HAMMER,
    );
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task().unwrap()))
}
