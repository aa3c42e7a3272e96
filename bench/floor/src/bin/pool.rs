//! Pool floor: what embassy alone costs for one pool grow (spawn one task +
//! its first poll) and one shrink (signal it, await its exit), with the root
//! and the first member already up: the same tasks and probe as the sides'
//! `pool` run (../../../common/pool.rs).
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
    // The root and the pool's first member, untimed.
    let up0 = SPAWN[0](spawner).is_ok() && SPAWN[N - K](spawner).is_ok();
    Timer::after_millis(2).await;
    if !(up0 && up() == 2) {
        FAILED.store(true, portable_atomic::Ordering::Release);
    }
    let m = N - K + 1;
    for _ in 0..3 {
        let c = cost(|| async { SPAWN[m](spawner).is_ok() }, |ok| *ok && up() == 3).await;
        row("POOL", N, "grow (mark_busy -> spawn)", 1, c);
        let c = cost(
            || async {
                STOP[m].signal(());
                DONE[m].wait().await
            },
            |()| up() == 2,
        )
        .await;
        row("POOL", N, "shrink (mark_idle -> stop)", 1, c);
    }
    fw::exit(if FAILED.load(portable_atomic::Ordering::Acquire) { 1 } else { 0 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(bench(s).unwrap()))
}
