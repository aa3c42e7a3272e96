//! embassy-time driver. On the single-core boards, SysTick reloads every
//! millisecond: its interrupt counts milliseconds and expires timers, and
//! `now()` adds the SysTick current value to the millisecond count. On the
//! two-core an521 both cores must read one clock (a SysTick is private to
//! its core): `now()` reads a free-running SSE-200 timer extended to 64 bits
//! and TIMER0's millisecond interrupt expires timers (`an521::timer`).
//! Either way the clock resolves one embassy tick (one core cycle where tick
//! rate = core clock): with QEMU's `-icount shift=0` that makes `Instant`
//! differences instruction counts.

use core::cell::{Cell, RefCell};
use core::task::Waker;

use critical_section::{CriticalSection, Mutex};
use embassy_time_driver::{Driver, TICK_HZ};
use embassy_time_queue_utils::Queue;

use crate::board::CORE_HZ;

const COUNTS_PER_MS: u32 = CORE_HZ / 1000;
#[cfg(not(feature = "an521"))]
const TICKS_PER_MS: u64 = TICK_HZ / 1000;
// Both divide exactly on every board (20/20, 16/16, 25/1 MHz).
const _: () = assert!((CORE_HZ as u64).is_multiple_of(TICK_HZ) && TICK_HZ.is_multiple_of(1000));
const COUNTS_PER_TICK: u32 = (CORE_HZ as u64 / TICK_HZ) as u32;

struct SysTickDriver {
    ms: Mutex<Cell<u64>>,
    alarm: Mutex<Cell<u64>>,
    queue: Mutex<RefCell<Queue>>,
}

embassy_time_driver::time_driver_impl!(static DRIVER: SysTickDriver = SysTickDriver {
    ms: Mutex::new(Cell::new(0)),
    alarm: Mutex::new(Cell::new(u64::MAX)),
    queue: Mutex::new(RefCell::new(Queue::new())),
});

impl SysTickDriver {
    #[cfg(feature = "an521")]
    fn now_cs(&self, cs: CriticalSection) -> u64 {
        counter::counts(cs) / COUNTS_PER_TICK as u64
    }

    #[cfg(not(feature = "an521"))]
    fn now_cs(&self, cs: CriticalSection) -> u64 {
        let mut ms = self.ms.borrow(cs).get();
        let mut cvr = counter::current();
        // A wrap that the masked interrupt has not counted yet: re-read the
        // counter, which is now certainly past the wrap.
        if counter::wrap_pending() {
            cvr = counter::current();
            ms += 1;
        }
        let elapsed = (COUNTS_PER_MS - 1).saturating_sub(cvr) / COUNTS_PER_TICK;
        ms * TICKS_PER_MS + elapsed as u64
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

pub(crate) fn init() {
    counter::start(COUNTS_PER_MS - 1);
}

/// One millisecond passed: count it and wake the expired timers.
fn on_wrap() {
    critical_section::with(|cs| {
        counter::ack();
        let ms = DRIVER.ms.borrow(cs);
        ms.set(ms.get() + 1);
        DRIVER.fire_expired(cs);
    })
}

/// TIMER0's interrupt (core 0 only).
#[cfg(feature = "an521")]
pub(crate) fn on_timer_interrupt() {
    on_wrap()
}

#[cfg(feature = "an521")]
use crate::an521::timer as counter;

#[cfg(not(feature = "an521"))]
mod counter {
    use cortex_m::peripheral::syst::SystClkSource;
    use cortex_m::peripheral::{SCB, SYST};
    use cortex_m_rt::exception;

    pub(super) fn start(reload: u32) {
        // Safety: the one place that configures SysTick, before anything
        // reads time.
        let mut syst = unsafe { cortex_m::Peripherals::steal() }.SYST;
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(reload);
        syst.clear_current();
        syst.enable_interrupt();
        syst.enable_counter();
    }

    pub(super) fn current() -> u32 {
        SYST::get_current()
    }

    pub(super) fn wrap_pending() -> bool {
        SCB::is_pendst_pending()
    }

    /// Taking the exception already cleared the pending wrap.
    pub(super) fn ack() {}

    #[exception]
    fn SysTick() {
        super::on_wrap()
    }
}
