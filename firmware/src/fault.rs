//! Every way the firmware can die ends QEMU with a non-zero status, instead of
//! the default handlers' endless loops (which only `timeout` would end).

use cortex_m_rt::{ExceptionFrame, exception};

use crate::board::SPARE_IRQ;
use crate::exec::HIGH;

/// Status of a panic.
pub const PANIC_EXIT: i32 = 101;
/// Status of a HardFault or an unexpected interrupt.
pub const FAULT_EXIT: i32 = 102;

#[exception]
unsafe fn HardFault(ef: &ExceptionFrame) -> ! {
    semihosting::eprintln!("HardFault at pc={:#010x}", ef.pc());
    crate::exit(FAULT_EXIT)
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    if irqn == SPARE_IRQ as i16 {
        HIGH.on_interrupt();
        return;
    }
    #[cfg(feature = "an521")]
    if crate::an521::on_interrupt(irqn) {
        return;
    }
    semihosting::eprintln!("unexpected exception/IRQ {}", irqn);
    crate::exit(FAULT_EXIT)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    #[cfg(feature = "panic-message")]
    semihosting::eprintln!("{}", info);
    #[cfg(not(feature = "panic-message"))]
    {
        let _ = info;
        semihosting::eprint!("panic\n");
    }
    crate::exit(PANIC_EXIT)
}
