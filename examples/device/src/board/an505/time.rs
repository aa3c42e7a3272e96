//! embassy-time driver over SysTick: an interrupt every millisecond counts
//! time and expires timers; `now()` adds the SysTick count inside the current
//! millisecond, so the clock resolves one microsecond (the 1 MHz tick).
//! QEMU runs in real time here (no `-icount`): virtual time follows the
//! host's clock, which the network's peers need.

use core::cell::{Cell, RefCell};
use core::task::Waker;

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::{SCB, SYST};
use cortex_m_rt::exception;
use critical_section::{CriticalSection, Mutex};
use embassy_time_driver::{Driver, TICK_HZ};
use embassy_time_queue_utils::Queue;

use super::CORE_HZ;

const COUNTS_PER_MS: u32 = CORE_HZ / 1000;
const TICKS_PER_MS: u64 = TICK_HZ / 1000;
const _: () = assert!((CORE_HZ as u64).is_multiple_of(TICK_HZ) && TICK_HZ.is_multiple_of(1000));
const COUNTS_PER_TICK: u32 = (CORE_HZ as u64 / TICK_HZ) as u32;

struct SysTickDriver {
    ms: Mutex<Cell<u64>>,
    /// The last value `now` returned: time never goes back (see `now_cs`).
    last: Mutex<Cell<u64>>,
    alarm: Mutex<Cell<u64>>,
    queue: Mutex<RefCell<Queue>>,
}

embassy_time_driver::time_driver_impl!(static DRIVER: SysTickDriver = SysTickDriver {
    ms: Mutex::new(Cell::new(0)),
    last: Mutex::new(Cell::new(0)),
    alarm: Mutex::new(Cell::new(u64::MAX)),
    queue: Mutex::new(RefCell::new(Queue::new())),
});

impl SysTickDriver {
    fn now_cs(&self, cs: CriticalSection) -> u64 {
        let mut ms = self.ms.borrow(cs).get();
        let mut cvr = SYST::get_current();
        // A wrap the masked interrupt has not counted yet: re-read past it.
        if SCB::is_pendst_pending() {
            cvr = SYST::get_current();
            ms += 1;
        }
        let elapsed = (COUNTS_PER_MS - 1).saturating_sub(cvr) / COUNTS_PER_TICK;
        // In real time (no -icount) QEMU can show the counter already
        // reloaded a moment before it raises the wrap's pending bit, which
        // reads as up to 1 ms in the past: clamp, so time is monotonic.
        let t = (ms * TICKS_PER_MS + elapsed as u64).max(self.last.borrow(cs).get());
        self.last.borrow(cs).set(t);
        t
    }

    fn fire_expired(&self, cs: CriticalSection) {
        let now = self.now_cs(cs);
        if now >= self.alarm.borrow(cs).get() {
            let next = self.queue.borrow_ref_mut(cs).next_expiration(now);
            self.alarm.borrow(cs).set(next);
        }
    }
}

impl Driver for SysTickDriver {
    fn now(&self) -> u64 {
        critical_section::with(|cs| self.now_cs(cs))
    }

    fn schedule_wake(&self, at: u64, waker: &Waker) {
        critical_section::with(|cs| {
            if self.queue.borrow_ref_mut(cs).schedule_wake(at, waker) {
                let now = self.now_cs(cs);
                let next = self.queue.borrow_ref_mut(cs).next_expiration(now);
                self.alarm.borrow(cs).set(next);
            }
        })
    }
}

pub(super) fn init(mut syst: SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(COUNTS_PER_MS - 1);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

#[exception]
fn SysTick() {
    critical_section::with(|cs| {
        let ms = DRIVER.ms.borrow(cs);
        ms.set(ms.get() + 1);
        DRIVER.fire_expired(cs);
    })
}
