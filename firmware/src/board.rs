//! Per-board facts: the SysTick clock QEMU models for the core, and the IRQ
//! the interrupt-executor tier borrows (one no emulated device raises here:
//! the firmware enables no peripheral interrupt).

#[cfg(feature = "an505")]
mod facts {
    pub const NAME: &str = "mps2-an505 (Cortex-M33)";
    pub const CORE_HZ: u32 = 20_000_000;
    pub const SPARE_IRQ: u16 = 60;
}

#[cfg(feature = "an521")]
mod facts {
    pub const NAME: &str = "mps2-an521 (2x Cortex-M33)";
    pub const CORE_HZ: u32 = 20_000_000;
    pub const SPARE_IRQ: u16 = 60;
}

#[cfg(feature = "an385")]
mod facts {
    pub const NAME: &str = "mps2-an385 (Cortex-M3)";
    pub const CORE_HZ: u32 = 25_000_000;
    pub const SPARE_IRQ: u16 = 30;
}

#[cfg(feature = "microbit")]
mod facts {
    pub const NAME: &str = "microbit (Cortex-M0)";
    pub const CORE_HZ: u32 = 16_000_000;
    // SWI5 on the nRF51: a software interrupt by design.
    pub const SPARE_IRQ: u16 = 25;
}

pub use facts::*;
