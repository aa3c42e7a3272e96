#![no_std]
#![no_main]
use cortex_m_rt::entry;
use embassy_executor::Spawner;
use embassy_supervisor_firmware as fw;
use embassy_time::{Instant, Timer};
use fw::check::{check, finish};

#[embassy_executor::task]
async fn main_task(_s: Spawner) {
    let t0 = Instant::now();
    Timer::after_millis(5).await;
    let dt = t0.elapsed().as_micros();
    fw::println!("slept {} us", dt);
    check("timer", dt >= 5000 && dt < 20_000);
    finish()
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
