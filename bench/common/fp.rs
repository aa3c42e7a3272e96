// The footprint run every supervised side shares (`include!`d by each side's
// `src/bin/fp.rs` after its glue; built without panic messages or printing):
// start -> teardown -> respawn_terminate over the generated graph, with the
// side's pool driver running when the graph has a pool. It checks its own
// behaviour and exits non-zero if a step did not do what it says, so a size
// is only reported for a build that works. Same steps as `floor/src/bin/fp.rs`.

include!("fp_base.rs");

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    let mut ok = v_start(spawner).await;
    if K > 0 {
        spawner.spawn(pools(spawner).unwrap());
    }
    Timer::after_millis(1).await;
    // The pool's floor member is grown by its driver.
    ok &= core_up() && (K == 0 || BENCH_NODES[N - K].is_running());
    ok &= v_teardown().await;
    ok &= BENCH_NODES.iter().all(|n| !n.is_running());
    ok &= v_respawn(spawner).await;
    Timer::after_millis(1).await;
    ok &= core_up();
    fw::exit(if ok { 0 } else { 1 })
}
