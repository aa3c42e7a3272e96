// The footprint of the shape an application ships, every supervised side
// sharing it (`include!`d by each side's `src/bin/fprun.rs` after its glue;
// built without panic messages or printing): the FP graph driven by the
// side's own driver loop with control (`v_drive`: ours and 0.12.0 `run()`,
// 0.3.4 the loop its README gives, `run_pools` beside `wait_control` and
// `apply_control`), and two control commands sent through the side's
// mailbox (`ctl_deactivate` / `ctl_activate`) on the chain's last node.
// It checks its own behaviour and exits non-zero if a step did not do
// what it says, so a size is only reported for a build that works. The
// floor has no driver: BENCHMARKS.md sets this build against the floor's FP.

include!("fp_base.rs");

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    v_drive(spawner).await
}

#[embassy_executor::task]
async fn main_task(spawner: Spawner) {
    spawner.spawn(driver(spawner).unwrap());
    Timer::after_millis(2).await;
    // Started by the driver; the pool's floor member grown by it.
    let mut ok = core_up() && (K == 0 || BENCH_NODES[N - K].is_running());
    // The chain's last node: nothing depends on it, so control takes only
    // it down, then brings it back.
    let last = BENCH_NODES[N - K - 1];
    ctl_deactivate(last).await;
    Timer::after_millis(2).await;
    ok &= !last.is_running() && BENCH_NODES[..N - K - 1].iter().all(|n| n.is_running());
    ctl_activate(last).await;
    Timer::after_millis(2).await;
    ok &= core_up();
    fw::exit(if ok { 0 } else { 1 })
}
