// The cost benchmarks' measurement: `probe` an operation from its call until
// the executor is idle, less the empty probe (`OVERHEAD`, set first thing),
// and print a `ROW|...` line for bench.sh. Included by `bin/bench.rs` and
// `bin/bench_pool.rs`, which import `Future`, `Instant`, `Duration`, `Timer`
// and `fw`.

fn instr(ticks: u64) -> u64 {
    ticks * 1_000_000_000 / embassy_time::TICK_HZ
}

/// Instructions from the start of the operation `make` returns until the
/// executor is idle again.
///
/// The operation's future is made here, in the probe's own state: passed in
/// made, it would be held three times over (the caller's temporary, the
/// argument, the awaited local), which on the 16 KiB micro:bit left the
/// stack no room (a HardFault).
async fn probe<F: Future>(make: impl FnOnce() -> F) -> (u64, F::Output) {
    fw::exec::arm_idle_probe();
    let t0 = Instant::now().as_ticks();
    let out = make().await;
    // Sleeping lets the executor drain every task the operation woke; the
    // probe records the moment it found nothing left to do.
    Timer::after(Duration::from_millis(2)).await;
    let idle = fw::exec::idle_at().unwrap_or(t0);
    (instr(idle.saturating_sub(t0)), out)
}

static mut OVERHEAD: u64 = 0;

/// [`probe`] less the empty probe, if `ok` accepts the operation's output.
async fn cost<F: Future>(
    make: impl FnOnce() -> F,
    ok: impl FnOnce(&F::Output) -> bool,
) -> Option<u64> {
    let (c, out) = probe(make).await;
    // Safety: written once before any `cost` call, single-threaded after.
    let base = unsafe { OVERHEAD };
    ok(&out).then(|| c.saturating_sub(base))
}

fn row(workload: &str, n: usize, op: &str, nodes: usize, total: Option<u64>) {
    match total {
        Some(t) => fw::println!(
            "ROW|{}|{}|{}|{}|{}|{}",
            workload,
            n,
            op,
            nodes,
            t,
            t / nodes as u64
        ),
        None => {
            fw::println!("ROW|{}|{}|{}|{}|FAILED|FAILED", workload, n, op, nodes);
            FAILED.store(true, portable_atomic::Ordering::Release);
        }
    }
}

static FAILED: portable_atomic::AtomicBool = portable_atomic::AtomicBool::new(false);
