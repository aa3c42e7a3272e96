//! The device on a Raspberry Pi Pico 2 W: bring up Wi-Fi and hand
//! everything to the same application as the QEMU build.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use embassy_executor::Spawner;
use supervisor_device::{app, board, println};

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    let (driver, sensor) = match board::bring_up(spawner).await {
        Ok(d) => d,
        Err(e) => {
            println!("network interface failed: {:?}", e);
            board::exit(1);
        }
    };
    app::start(spawner, driver, sensor);
}

#[entry]
fn main() -> ! {
    board::init();
    board::run(|s| s.spawn(main_task(s).unwrap()))
}
