//! Board support shared by every firmware binary: a SysTick embassy-time
//! driver, a thread executor that sleeps with WFI, an interrupt-executor tier
//! on a spare IRQ, semihosting output and exit, fault and panic handlers that
//! make QEMU exit non-zero, and the PASS/FAIL bookkeeping of the on-target suite.
#![no_std]

#[cfg(feature = "an521")]
pub mod an521;
pub mod board;
pub mod check;
pub mod exec;
pub mod fault;
pub mod time;

pub use semihosting;

/// Print a line on QEMU's stdout through semihosting.
#[macro_export]
macro_rules! println {
    ($($t:tt)*) => { $crate::semihosting::println!($($t)*) };
}

/// End the firmware: QEMU exits with `code`.
pub fn exit(code: i32) -> ! {
    semihosting::process::exit(code)
}

/// Bring up the clock; call first thing in `main`.
pub fn init() {
    time::init();
    #[cfg(feature = "an521")]
    an521::doorbell::enable();
}
