//! The time base both cores read (a SysTick is private to its core, so it
//! cannot be the shared clock: core 1 could not read core 0's).
//!
//! - The clock: timer 1 of the SSE-200's dual timer, a 32-bit down-counter
//!   on MAINCLK (the cores' clock) in free-running mode, extended to 64 bits
//!   in software: every read compares with the last one under the critical
//!   section, so a wrap (every 214 s at 20 MHz) is counted by whichever core
//!   reads next. The clock never depends on an interrupt having run, so a
//!   core that holds off its interrupts cannot make it jump back.
//! - The tick: TIMER0 reloads every millisecond; its interrupt (IRQ 3, wired
//!   to both NVICs, enabled on core 0 only) expires the timers.

use core::cell::Cell;

use cortex_m::peripheral::NVIC;
use critical_section::{CriticalSection, Mutex};

use super::Reg;
use crate::exec::Irq;

const TIMER0: usize = 0x5000_0000;
const TICK_CTRL: Reg = Reg(TIMER0);
const TICK_VALUE: Reg = Reg(TIMER0 + 0x04);
const TICK_RELOAD: Reg = Reg(TIMER0 + 0x08);
/// INTSTATUS on read, INTCLEAR (write 1) on write.
const TICK_INT: Reg = Reg(TIMER0 + 0x0C);
const TICK_ENABLE: u32 = 1 << 0;
const TICK_IRQ_ENABLE: u32 = 1 << 3;

const DUALTIMER: usize = 0x5000_2000;
const CLOCK_LOAD: Reg = Reg(DUALTIMER);
const CLOCK_VALUE: Reg = Reg(DUALTIMER + 0x04);
const CLOCK_CTRL: Reg = Reg(DUALTIMER + 0x08);
/// TimerEn, 32-bit, free-running (TimerMode 0), no interrupt, no prescale.
const CLOCK_RUN: u32 = (1 << 7) | (1 << 1);

/// TIMER0's interrupt on each core's NVIC.
pub(crate) const IRQ: u16 = 3;

/// The extended clock: (wraps so far, counts elapsed at the last read).
static EXTENDED: Mutex<Cell<(u32, u32)>> = Mutex::new(Cell::new((0, 0)));

/// Start the clock, and the tick every `reload + 1` counts (core 0 takes
/// its interrupt).
pub(crate) fn start(reload: u32) {
    CLOCK_LOAD.write(u32::MAX);
    CLOCK_CTRL.write(CLOCK_RUN);
    TICK_RELOAD.write(reload);
    TICK_VALUE.write(reload);
    TICK_CTRL.write(TICK_ENABLE | TICK_IRQ_ENABLE);
    // Safety: the handler (`time::on_timer_interrupt`) only takes the
    // critical section; nothing relies on the line being masked.
    unsafe { NVIC::unmask(Irq(IRQ)) };
}

/// Core clock counts since `start`.
pub(crate) fn counts(cs: CriticalSection) -> u64 {
    let ext = EXTENDED.borrow(cs);
    let (mut wraps, last) = ext.get();
    let elapsed = u32::MAX - CLOCK_VALUE.read();
    if elapsed < last {
        wraps += 1;
    }
    ext.set((wraps, elapsed));
    (u64::from(wraps) << 32) | u64::from(elapsed)
}

/// Count the tick: clears its interrupt.
pub(crate) fn ack() {
    TICK_INT.write(1);
}
