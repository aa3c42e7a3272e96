//! The emulated board: QEMU `mps2-an505` (Cortex-M33) with its LAN9118.
//!
//! Everything the shared application needs from a board: a clock, the
//! executors, the network driver, the "sensor" peripheral, console output
//! and a fatal-error exit. The MMIO `unsafe` of the example lives in this
//! directory only.

mod exec;
pub mod lan9118;
mod time;

use cortex_m::peripheral::NVIC;
use cortex_m_rt::{ExceptionFrame, exception};
use embassy_executor::{SendSpawner, Spawner};

pub use lan9118::Lan9118 as NetDriver;

/// Shown on the dashboard.
pub const NAME: &str = "QEMU mps2-an505 (Cortex-M33, LAN9118)";
/// SysTick runs on the core clock QEMU models for this board.
const CORE_HZ: u32 = 20_000_000;
/// The IRQ the interrupt-priority tier borrows: no device raises it here.
const SPARE_IRQ: u16 = 60;
/// The LAN9118: register window (secure alias) and interrupt line.
const ETH_BASE: usize = 0x4200_0000;
const ETH_IRQ: u16 = 48;
/// FPGA IO block: its free-running 100 Hz counter is the "sensor".
const FPGAIO_CLK100HZ: usize = 0x4030_2014;

static HIGH: exec::IrqExecutor = exec::IrqExecutor::new();

/// Print a line on QEMU's stdout (semihosting).
#[macro_export]
macro_rules! println {
    ($($t:tt)*) => { semihosting::println!($($t)*) };
}

/// Bring up the clock; call first in `main`.
pub fn init() {
    // Safety: the one place that takes the core peripherals, before any
    // other code runs.
    let p = unsafe { cortex_m::Peripherals::steal() };
    time::init(p.SYST);
}

/// Run the thread executor forever.
pub fn run(init: impl FnOnce(Spawner)) -> ! {
    exec::run(init)
}

/// Start the interrupt-priority executor tier (once).
pub fn start_high_tier() -> Option<SendSpawner> {
    HIGH.start(SPARE_IRQ)
}

/// Why the network interface could not come up.
pub type NetError = lan9118::InitError;

/// Bring up the board's peripherals for the application: the Ethernet
/// controller (its interrupt unmasked) and the sensor.
pub async fn bring_up(_spawner: Spawner) -> Result<(NetDriver, Sensor), NetError> {
    // Safety: ETH_BASE is the LAN9118's window on this board and this is the
    // only driver instance (called once from `main`).
    let chip = unsafe { lan9118::Lan9118::new(ETH_BASE) }?;
    // Safety: the handler (below) only touches the chip's interrupt
    // registers and a waker.
    unsafe { NVIC::unmask(exec::Irq(ETH_IRQ)) };
    Ok((chip, Sensor { _private: () }))
}

/// Seed for the network stack's randomness (TCP sequence numbers, DHCP
/// transaction ids): this board has no RNG, so the boot time and the MAC do.
pub fn seed(mac: [u8; 6]) -> u64 {
    let t = embassy_time::Instant::now().as_ticks();
    let m = u64::from_le_bytes([mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], 0, 0]);
    (t ^ (m << 13)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The "sensor": a peripheral the SENSOR node keeps across pause/resume.
pub struct Sensor {
    _private: (),
}

impl Sensor {
    /// One reading: the FPGA's 100 Hz counter.
    pub fn read(&mut self) -> u32 {
        // Safety: a read-only register of the FPGA IO block, always mapped
        // on this board; `&mut self` makes the one `Sensor` its only reader.
        unsafe { core::ptr::read_volatile(FPGAIO_CLK100HZ as *const u32) }
    }
}

/// Reboot the board (SYSRESETREQ): QEMU resets the machine and boots the
/// same firmware again.
pub fn reboot() -> ! {
    cortex_m::peripheral::SCB::sys_reset()
}

/// End the run: QEMU exits with `code` (semihosting).
pub fn exit(code: i32) -> ! {
    semihosting::process::exit(code)
}

#[exception]
unsafe fn HardFault(ef: &ExceptionFrame) -> ! {
    semihosting::eprintln!("HardFault at pc={:#010x}", ef.pc());
    exit(102)
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    match irqn {
        n if n == SPARE_IRQ as i16 => HIGH.on_interrupt(),
        n if n == ETH_IRQ as i16 => lan9118::on_interrupt(ETH_BASE),
        n if n >= 0 => {
            // An interrupt nobody asked for: mask it so it cannot storm, and
            // say so once.
            semihosting::eprintln!("unexpected IRQ {}: masked", n);
            NVIC::mask(exec::Irq(n as u16));
        }
        n => {
            semihosting::eprintln!("unexpected exception {}", n);
            exit(102)
        }
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    semihosting::eprintln!("{}", info);
    exit(101)
}
