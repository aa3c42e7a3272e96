//! Cost run of the embassy-only floor: the spawn and the stop of the same
//! tasks without a supervisor (see ../glue.rs), measured like the sides'
//! verbs (../../../common/cost.rs).
#![no_std]
#![no_main]
include!("../glue.rs");
include!("../../../../firmware/src/harness/measure.rs");

#[embassy_executor::task]
async fn bench(spawner: Spawner) {
    let (base, ()) = probe(|| async {}).await;
    // Safety: the only write, before any reader.
    unsafe { OVERHEAD = base };
    fw::println!("INFO|side|floor");
    fw::println!("INFO|board|{}", fw::board::NAME);
    fw::println!("INFO|probe overhead (instr)|{}", base);
    let n = N as u32;
    let c = cost(|| async { spawn_all(spawner) }, |ok| *ok && up() == n).await;
    row(SHAPE, N, "spawn + first poll", N, c);
    let c = cost(stop_all, |ok| *ok && up() == 0).await;
    row(SHAPE, N, "stop, dependents first", N, c);
    fw::exit(if FAILED.load(portable_atomic::Ordering::Acquire) { 1 } else { 0 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(bench(s).unwrap()))
}
