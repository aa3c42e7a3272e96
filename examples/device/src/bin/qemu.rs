//! The device on QEMU mps2-an505: bring up the LAN9118 and hand everything
//! to the shared application.
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
    println!("device: {} up, token set at build time", board::NAME);
    app::start(spawner, driver, sensor);
}

#[entry]
fn main() -> ! {
    board::init();
    board::run(|s| s.spawn(main_task(s).unwrap()))
}
