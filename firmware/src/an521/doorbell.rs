//! Cross-core wake-ups through the SSE-200's MHU0 (message handling unit):
//! core `n` has its own interrupt line (IRQ 6 on its own NVIC), raised while
//! any bit of MHU0's CPU`n`INTR register is set. A core rings the other one's
//! bell after publishing work for it; the bell only ends the other core's
//! WFI (and, for [`PEND_SPARE`], pends its interrupt tier): the work itself
//! travels through shared memory, published before the ring.

use cortex_m::peripheral::NVIC;

use super::Reg;
use super::cores;
use crate::exec::Irq;

/// MHU0's interrupt on each core's NVIC.
pub const IRQ: u16 = 6;
const MHU0: usize = 0x5000_3000;

/// The ringing core has made a task on the other core's thread executor ready.
pub const WAKE: u32 = 1 << 0;
/// ... or one on the other core's interrupt tier: pend its spare IRQ there
/// (an NVIC is private to its core).
pub const PEND_SPARE: u32 = 1 << 1;

/// CPU`core`INTR_STAT, _SET, _CLR.
fn regs(core: usize) -> (Reg, Reg, Reg) {
    let base = MHU0 + 0x10 * core;
    (Reg(base), Reg(base + 0x4), Reg(base + 0x8))
}

/// Ring `core`'s bell with `bits`.
pub fn ring(core: usize, bits: u32) {
    // The work this announces (a run-queue entry, a flag) must be visible to
    // the other core before its interrupt can fire.
    cortex_m::asm::dsb();
    regs(core).1.write(bits);
}

/// Take this core's bell interrupts; call once on each core before it sleeps.
pub fn enable() {
    // Safety: the handler only clears the bell and pends the spare IRQ.
    unsafe { NVIC::unmask(Irq(IRQ)) };
}

/// The bell's handler, on either core.
pub(crate) fn on_interrupt() {
    let (stat, _, clear) = regs(cores::id());
    let bits = stat.read();
    clear.write(bits);
    if bits & PEND_SPARE != 0 {
        NVIC::pend(Irq(crate::board::SPARE_IRQ));
    }
}
