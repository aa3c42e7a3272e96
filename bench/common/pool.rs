// The pool run every supervised side shares (`include!`d by each side's
// `src/bin/pool.rs` after its glue), built with one root and a 4-member pool
// (min 1, zero cooldown), the sequence of firmware/src/bin/bench_pool.rs:
// one grow is `mark_busy()` on the only running member -> driver wake ->
// policy -> spawn -> first poll of the next member; one shrink is
// `mark_idle()` -> driver wake -> policy -> stop -> ack -> exit. Three of
// each, alternating.

include!(concat!(env!("OUT_DIR"), "/workload.rs"));
include!("../../firmware/src/harness/measure.rs");

#[embassy_executor::task]
async fn bench(spawner: Spawner) {
    let (base, ()) = probe(async {}).await;
    // Safety: the only write, before any reader.
    unsafe { OVERHEAD = base };
    fw::println!("INFO|side|{}", SIDE);
    let members = &BENCH_NODES[N - K..];
    let up = v_start(spawner).await;
    spawner.spawn(pools(spawner).unwrap());
    Timer::after_millis(2).await;
    if !(up && members[0].is_running() && !members[1].is_running()) {
        FAILED.store(true, portable_atomic::Ordering::Release);
    }
    for _ in 0..3 {
        if members[1].is_running() {
            // The previous shrink never happened: no grow to measure.
            fw::println!("ROW|POOL|{}|grow (mark_busy -> spawn)|1|UP|UP", N);
            continue;
        }
        let c = cost(|()| members[1].is_running(), async { members[0].mark_busy() }).await;
        row("POOL", N, "grow (mark_busy -> spawn)", 1, c);
        let (c, ()) = probe(async { members[0].mark_idle() }).await;
        if members[1].is_running() {
            // The side shrinks later than the executor's first idle moment
            // (a policy that defers through a timer pass): the probe does
            // not cover that, so no figure.
            fw::println!("ROW|POOL|{}|shrink (mark_idle -> stop)|1|LATE|LATE", N);
        } else {
            // Safety: written once before any `cost` call, single-threaded after.
            row("POOL", N, "shrink (mark_idle -> stop)", 1, Some(c.saturating_sub(unsafe { OVERHEAD })));
        }
        // Untimed: let a deferred shrink finish before the next grow.
        for _ in 0..100 {
            if !members[1].is_running() {
                break;
            }
            Timer::after_millis(1).await;
        }
    }
    fw::exit(if FAILED.load(portable_atomic::Ordering::Acquire) { 1 } else { 0 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(bench(s).unwrap()))
}
