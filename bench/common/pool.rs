// The pool run every supervised side shares (`include!`d by each side's
// `src/bin/pool.rs` after its glue), built with one root and a 4-member pool
// (min 1, zero cooldown), the sequence of firmware/src/bin/bench_pool.rs:
// one grow is `mark_busy()` on the one running member -> driver wake ->
// policy -> spawn -> first poll of another member; one shrink is
// `mark_idle()` -> driver wake -> policy -> stop -> ack -> exit of one
// member (which one is the side's choice: the checks count running members).
// Three of each, alternating.

include!(concat!(env!("OUT_DIR"), "/workload.rs"));
include!("../../firmware/src/harness/measure.rs");

#[embassy_executor::task]
async fn bench(spawner: Spawner) {
    let (base, ()) = probe(|| async {}).await;
    // Safety: the only write, before any reader.
    unsafe { OVERHEAD = base };
    fw::println!("INFO|side|{}", SIDE);
    let members = &BENCH_NODES[N - K..];
    let running = || members.iter().filter(|m| m.is_running()).count();
    let up = v_start(spawner).await;
    spawner.spawn(pools(spawner).unwrap());
    Timer::after_millis(2).await;
    if !(up && running() == 1) {
        FAILED.store(true, portable_atomic::Ordering::Release);
    }
    for _ in 0..3 {
        if running() != 1 {
            // The previous shrink never happened: no grow to measure.
            fw::println!("ROW|POOL|{}|grow (mark_busy -> spawn)|1|UP|UP", N);
            continue;
        }
        // The one running member: it turns busy, so the policy grows another.
        let Some(r) = members.iter().find(|m| m.is_running()) else { break };
        let c = cost(|| async { r.mark_busy() }, |()| running() == 2).await;
        row("POOL", N, "grow (mark_busy -> spawn)", 1, c);
        let (c, ()) = probe(|| async { r.mark_idle() }).await;
        if running() != 1 {
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
            if running() == 1 {
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
