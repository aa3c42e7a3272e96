#![no_std]
#![no_main]
use embassy_supervisor_firmware as _;
#[cortex_m_rt::entry]
fn main() -> ! {
    embassy_supervisor_firmware::exit(0)
}
