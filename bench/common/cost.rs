// The cost run every supervised side shares (`include!`d by each side's
// `src/bin/cost.rs` after its glue). The glue defines, for the side's
// `static SUP` over the generated `GRAPH`: `SIDE` (the column name),
// `v_start`, `v_teardown`, `v_respawn`, `v_deactivate`, `v_activate`,
// `v_start_node` (each `-> bool`: did the verb report success) and `work`
// (the worker body).
//
// Each figure is the guest instructions from the call until the executor is
// idle again, less the empty probe (firmware/src/harness/measure.rs, under
// `qemu -icount shift=0,sleep=off`).

include!(concat!(env!("OUT_DIR"), "/workload.rs"));
include!("../../firmware/src/harness/measure.rs");

#[embassy_executor::task]
async fn bench(spawner: Spawner) {
    let (base, ()) = probe(|| async {}).await;
    // Safety: the only write, before any reader.
    unsafe { OVERHEAD = base };
    fw::println!("INFO|side|{}", SIDE);
    fw::println!("INFO|board|{}", fw::board::NAME);
    fw::println!("INFO|probe overhead (instr)|{}", base);
    fw::println!("INFO|size_of::<TaskNode>()|{}", core::mem::size_of::<TaskNode>());
    let last = BENCH_NODES[N - 1];
    let all_up = || BENCH_NODES.iter().all(|n| n.is_running());
    let all_down = || BENCH_NODES.iter().all(|n| !n.is_running());

    let c = cost(|| v_start(spawner), |ok| *ok && all_up()).await;
    row(SHAPE, N, "start", N, c);
    let c = cost(v_teardown, |ok| *ok && all_down()).await;
    row(SHAPE, N, "teardown", N, c);
    let c = cost(|| v_respawn(spawner), |ok| *ok && all_up()).await;
    row(SHAPE, N, "respawn_terminate", N, c);
    let c = cost(|| v_deactivate(BENCH_NODES[0], spawner), |ok| *ok && all_down()).await;
    row(SHAPE, N, "deactivate(root)", N, c);
    // From the last node: the whole chain, or the root and one leaf.
    let touched = if SHAPE == "WIDE" { 2.min(N) } else { N };
    let c = cost(|| v_activate(last, spawner), |ok| *ok && last.is_running()).await;
    row(SHAPE, N, "activate(last)", touched, c);
    if SHAPE == "WIDE" && N > 1 {
        // A cascade should cost what it touches, not the graph: only the
        // root and one leaf run, the other leaves are down (the figure per
        // node is per *graph* node).
        let up = v_teardown().await
            && v_start_node(BENCH_NODES[0], spawner).await
            && v_start_node(BENCH_NODES[1], spawner).await;
        Timer::after_millis(2).await;
        let two = || BENCH_NODES.iter().filter(|n| n.is_running()).count() == 2;
        let up = up && two();
        // One leaf: it has no dependents, so nothing else is touched.
        let leaf = BENCH_NODES[1];
        let c = cost(|| v_deactivate(leaf, spawner), |ok| up && *ok && !leaf.is_running()).await;
        row(SHAPE, N, "deactivate(leaf), 2 running", N, c);
        let up = up && v_activate(leaf, spawner).await && two();
        let c = cost(|| v_deactivate(BENCH_NODES[0], spawner), |ok| up && *ok && all_down()).await;
        row(SHAPE, N, "deactivate(root), 2 running", N, c);
    }

    fw::exit(if FAILED.load(portable_atomic::Ordering::Acquire) { 1 } else { 0 })
}

#[entry]
fn main() -> ! {
    fw::init();
    fw::exec::run(|s| s.spawn(bench(s).unwrap()))
}
