//! mps2-an521: the Arm SSE-200 subsystem, two Cortex-M33 sharing one memory.
//!
//! Core 0 boots; core 1 waits at reset until core 0 gives it a vector table
//! (INITSVTOR1) and clears its CPUWAIT bit ([`cores`]). Both cores read one
//! time base ([`timer`]), wake each other through the MHU ([`doorbell`]) and
//! share state under a critical section that holds across both ([`cs`]).
//!
//! Every address is the secure alias (QEMU boots both cores secure); the map
//! is the SSE-200 TRM's (Arm 101104) as QEMU models it (`hw/arm/armsse.c`,
//! `hw/misc/iotkit-sysctl.c`, `hw/misc/armsse-mhu.c`).

pub mod cores;
pub mod cs;
pub mod doorbell;
pub(crate) mod timer;

/// Core 0's device interrupts; `false` if `irqn` is none of them.
pub(crate) fn on_interrupt(irqn: i16) -> bool {
    match irqn {
        n if n == timer::IRQ as i16 => crate::time::on_timer_interrupt(),
        n if n == doorbell::IRQ as i16 => doorbell::on_interrupt(),
        _ => return false,
    }
    true
}

/// One 32-bit device register.
#[derive(Clone, Copy)]
pub(crate) struct Reg(pub usize);

impl Reg {
    pub(crate) fn read(self) -> u32 {
        // Safety: every `Reg` names a word-aligned SSE-200 device register
        // that QEMU maps for both cores; reading it has no side effect.
        unsafe { core::ptr::read_volatile(self.0 as *const u32) }
    }

    pub(crate) fn write(self, value: u32) {
        // Safety: as in `read`; the callers own the side effect they ask for.
        unsafe { core::ptr::write_volatile(self.0 as *mut u32, value) }
    }
}
