//! Footprint run of the embassy-only floor: the same tasks as a side's
//! `fp` spawned, stopped (dependents first) and spawned again, with the same
//! checks (see ../../../common/fp.rs).
#![no_std]
#![no_main]
include!("../glue.rs");

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    let n = N as u32;
    let mut ok = spawn_all(spawner);
    Timer::after_millis(1).await;
    ok &= up() == n;
    ok &= stop_all().await && up() == 0;
    ok &= spawn_all(spawner);
    Timer::after_millis(1).await;
    ok &= up() == n;
    fw::exit(if ok { 0 } else { 1 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
