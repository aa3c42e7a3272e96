//! The time base both cores read: the SSE-200's TIMER0, a CMSDK APB timer
//! clocked by MAINCLK (the cores' clock). It counts down and reloads every
//! millisecond; its interrupt (IRQ 3, wired to both NVICs) is enabled on
//! core 0 only. Each core's SysTick is private to it, so it cannot be the
//! shared clock: core 1 could not read core 0's.

use cortex_m::peripheral::NVIC;

use super::Reg;
use crate::exec::Irq;

const TIMER0: usize = 0x5000_0000;
const CTRL: Reg = Reg(TIMER0);
const VALUE: Reg = Reg(TIMER0 + 0x04);
const RELOAD: Reg = Reg(TIMER0 + 0x08);
/// INTSTATUS on read, INTCLEAR (write 1) on write.
const INTSTATUS: Reg = Reg(TIMER0 + 0x0C);
const CTRL_ENABLE: u32 = 1 << 0;
const CTRL_IRQ_ENABLE: u32 = 1 << 3;

/// TIMER0's interrupt on each core's NVIC.
pub(crate) const IRQ: u16 = 3;

/// Start counting down from `reload` to 0, repeatedly; core 0 takes the
/// wrap interrupt.
pub(crate) fn start(reload: u32) {
    RELOAD.write(reload);
    VALUE.write(reload);
    CTRL.write(CTRL_ENABLE | CTRL_IRQ_ENABLE);
    // Safety: the handler (`time::on_timer_interrupt`) only takes the
    // critical section; nothing relies on the line being masked.
    unsafe { NVIC::unmask(Irq(IRQ)) };
}

/// The down-counter.
pub(crate) fn current() -> u32 {
    VALUE.read()
}

/// A wrap that the interrupt has not counted yet.
pub(crate) fn wrap_pending() -> bool {
    INTSTATUS.read() & 1 != 0
}

/// Count the wrap: clears the interrupt.
pub(crate) fn ack() {
    INTSTATUS.write(1);
}
