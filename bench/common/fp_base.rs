// What the footprint runs share (`include!`d by `fp.rs` and `fprun.rs`):
// the generated workload, the check that the chain/fan nodes are up, and
// the entry point that spawns the run's `main_task`.

include!(concat!(env!("OUT_DIR"), "/workload.rs"));

/// The chain/fan nodes (every slot but the pool members) are up.
fn core_up() -> bool {
    BENCH_NODES[..N - K].iter().all(|n| n.is_running())
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(main_task(s).unwrap()))
}
