//! The real board: Raspberry Pi Pico 2 W (RP2350) with its CYW43439 Wi-Fi,
//! through embassy-rp and cyw43. Build-only in CI; flash with `probe-rs run`.
//!
//! Wi-Fi credentials are fixed at build time (`WIFI_SSID`, `WIFI_PASSWORD`).
//! The CYW43439 firmware blobs are not on crates.io: build.rs embeds them
//! from `CYW43_FIRMWARE_DIR` when set, and otherwise embeds empty blobs,
//! in which case the device halts at boot with `NetError::NoFirmware`
//! (see the example's README).

use cortex_m::peripheral::SCB;
use cyw43::{A4, Aligned, JoinOptions, PowerManagementMode};
use cyw43_pio::{DEFAULT_CLOCK_DIVIDER, PioSpi};
use embassy_executor::{Executor, InterruptExecutor, SendSpawner, Spawner};
use embassy_rp::adc::{self, Adc, Blocking};
use embassy_rp::gpio::{Level, Output};
use embassy_rp::interrupt::{InterruptExt, Priority};
use embassy_rp::peripherals::{DMA_CH0, PIO0};
use embassy_rp::pio::{self, Pio};
use embassy_rp::{bind_interrupts, dma, interrupt};
use static_cell::StaticCell;

/// Shown on the dashboard.
pub const NAME: &str = "Raspberry Pi Pico 2 W (RP2350, CYW43439 Wi-Fi)";

/// The Wi-Fi driver embassy-net runs on.
pub type NetDriver = cyw43::NetDriver<'static>;

/// The boot ROM's image definition: a secure Arm executable.
#[unsafe(link_section = ".start_block")]
#[used]
pub static IMAGE_DEF: embassy_rp::block::ImageDef = embassy_rp::block::ImageDef::secure_exe();

bind_interrupts!(struct Irqs {
    PIO0_IRQ_0 => pio::InterruptHandler<PIO0>;
    DMA_IRQ_0 => dma::InterruptHandler<DMA_CH0>;
});

const SSID: &str = match option_env!("WIFI_SSID") {
    Some(s) => s,
    None => "supervised-device",
};
const PASSWORD: &str = match option_env!("WIFI_PASSWORD") {
    Some(s) => s,
    None => "",
};

static FW: &Aligned<A4, [u8]> = &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/43439A0.bin")));
static CLM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/43439A0_clm.bin"));
static NVRAM: &Aligned<A4, [u8]> = &Aligned(*include_bytes!(concat!(
    env!("OUT_DIR"),
    "/nvram_rp2040.bin"
)));

static EXECUTOR: StaticCell<Executor> = StaticCell::new();
static HIGH: InterruptExecutor = InterruptExecutor::new();

/// No console on this board without a probe: the message is discarded
/// (its arguments are still type-checked).
#[macro_export]
macro_rules! println {
    ($($t:tt)*) => {{ let _ = format_args!($($t)*); }};
}

/// Nothing to do before the executor: `bring_up` initializes the HAL.
pub fn init() {}

/// Run the thread executor forever.
pub fn run(init: impl FnOnce(Spawner)) -> ! {
    EXECUTOR.init(Executor::new()).run(init)
}

/// Start the interrupt-priority executor tier on a software IRQ (once).
pub fn start_high_tier() -> Option<SendSpawner> {
    interrupt::SWI_IRQ_1.set_priority(Priority::P2);
    Some(HIGH.start(interrupt::SWI_IRQ_1))
}

#[interrupt]
unsafe fn SWI_IRQ_1() {
    // Safety: the executor's documented contract: called from its IRQ only.
    unsafe { HIGH.on_interrupt() }
}

/// Why the network interface could not come up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetError {
    /// The build embedded no CYW43439 firmware (CYW43_FIRMWARE_DIR unset).
    NoFirmware,
    /// Joining the Wi-Fi network failed.
    Join,
}

#[embassy_executor::task]
async fn wifi_task(
    runner: cyw43::Runner<'static, cyw43::SpiBus<Output<'static>, PioSpi<'static, PIO0, 0>>>,
) -> ! {
    runner.run().await
}

/// Bring up the HAL, the Wi-Fi chip (joined to `WIFI_SSID`) and the sensor.
pub async fn bring_up(spawner: Spawner) -> Result<(NetDriver, Sensor), NetError> {
    let p = embassy_rp::init(Default::default());
    if FW.is_empty() || CLM.is_empty() {
        return Err(NetError::NoFirmware);
    }
    let pwr = Output::new(p.PIN_23, Level::Low);
    let cs = Output::new(p.PIN_25, Level::High);
    let mut pio = Pio::new(p.PIO0, Irqs);
    let spi = PioSpi::new(
        &mut pio.common,
        pio.sm0,
        DEFAULT_CLOCK_DIVIDER,
        pio.irq0,
        cs,
        p.PIN_24,
        p.PIN_29,
        dma::Channel::new(p.DMA_CH0, Irqs),
    );
    static STATE: StaticCell<cyw43::State> = StaticCell::new();
    let (net, mut control, runner) =
        cyw43::new(STATE.init(cyw43::State::new()), pwr, spi, FW, NVRAM).await;
    spawner.spawn(wifi_task(runner).expect("one Wi-Fi runner"));
    control.init(CLM).await;
    control
        .set_power_management(PowerManagementMode::PowerSave)
        .await;
    let mut joined = false;
    for _ in 0..5 {
        if control
            .join(SSID, JoinOptions::new(PASSWORD.as_bytes()))
            .await
            .is_ok()
        {
            joined = true;
            break;
        }
        embassy_time::Timer::after_secs(1).await;
    }
    if !joined {
        return Err(NetError::Join);
    }
    let adc = Adc::new_blocking(p.ADC, adc::Config::default());
    let temp = adc::Channel::new_temp_sensor(p.ADC_TEMP_SENSOR);
    Ok((net, Sensor { adc, temp }))
}

/// Seed for the network stack's randomness. The RP2350 has a TRNG; a
/// product would read it here. The demo mixes the boot time and the MAC.
pub fn seed(mac: [u8; 6]) -> u64 {
    let t = embassy_time::Instant::now().as_ticks();
    let m = u64::from_le_bytes([mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], 0, 0]);
    (t ^ (m << 13)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The "sensor": the RP2350's on-chip temperature sensor, through the ADC,
/// kept by the SENSOR node across pause/resume.
pub struct Sensor {
    adc: Adc<'static, Blocking>,
    temp: adc::Channel<'static>,
}

impl Sensor {
    /// One reading: the raw 12-bit ADC value (0 if the conversion failed).
    pub fn read(&mut self) -> u32 {
        self.adc.blocking_read(&mut self.temp).map_or(0, u32::from)
    }
}

/// Reboot the board.
pub fn reboot() -> ! {
    SCB::sys_reset()
}

/// A fatal error on a real board: reset (a hardware watchdog would too).
pub fn exit(_code: i32) -> ! {
    SCB::sys_reset()
}

#[panic_handler]
fn panic(_info: &core::panic::PanicInfo) -> ! {
    SCB::sys_reset()
}
