//! Controller throughput and memory on the host (not a timed test):
//!
//! ```text
//! cargo run --release -p embassy-supervisor --features controller --example controller_bench
//! ```
//!
//! Reports jobs/s for 10,000 instant jobs through one slot (Queue) and over
//! 64 slots, DropIfRunning rejections/s on a busy slot, and `size_of`
//! figures. Wall time is `std::time::Instant`; the embassy clock is the mock
//! driver and never moves.

#[cfg(not(feature = "controller"))]
fn main() {
    eprintln!("build with --features controller");
}

#[cfg(feature = "controller")]
fn main() {
    bench::main()
}

#[cfg(feature = "controller")]
mod bench {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant as WallInstant;

    use embassy_executor::{Executor, SpawnError, Spawner};
    use embassy_futures::select::{Either, select};
    use embassy_supervisor::controller::{Controller, ControllerSpec, JobTarget, TaskOutcome};
    use embassy_supervisor::{Graph, Mode, NodeSpec, Supervisor, TaskNode};
    use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
    use embassy_sync::signal::Signal;

    const JOBS: usize = 10_000;
    const REJECTIONS: usize = 100_000;
    const K: usize = 64;
    /// Node 64 holds its slot busy for the DropIfRunning phase.
    const HOLD: usize = K;

    static DONE_COUNT: AtomicUsize = AtomicUsize::new(0);
    static TARGET_COUNT: AtomicUsize = AtomicUsize::new(usize::MAX);
    static ALL_DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();
    static RELEASE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

    #[embassy_executor::task(pool_size = 65)]
    async fn worker(i: usize) {
        let node = NODES[i];
        if i == HOLD {
            let _ = select(RELEASE.wait(), node.wait_shutdown()).await;
        } else if DONE_COUNT.fetch_add(1, Ordering::Relaxed) + 1
            == TARGET_COUNT.load(Ordering::Relaxed)
        {
            ALL_DONE.signal(());
        }
        node.mark_exited();
    }

    macro_rules! nodes {
        ($($i:literal),* $(,)?) => {
            static NODES: [&TaskNode; K + 1] = [$({
                fn spawn(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                    s.spawn(worker($i)?);
                    Ok(())
                }
                static N: TaskNode = TaskNode::new(&NodeSpec::new("job", Mode::OnDemand).with_spawn(spawn).at($i));
                &N
            }),*];
            static TARGETS: [JobTarget<()>; K + 1] = [$(JobTarget::node(NODES[$i])),*];
            static GRAPH: Graph<{ K + 1 }> = Graph::new([$(Some(NODES[$i])),*], [&[]; K + 1]);
        };
    }
    nodes!(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
        48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64
    );

    type OneSlot = Controller<(), 1, JOBS, 64, 4>;
    type ManySlots = Controller<(), K, 256, 64, 4>;
    type Busy = Controller<(), 1, 1, 64, 4>;
    static ONE: OneSlot = Controller::new();
    static MANY: ManySlots = Controller::new();
    static BUSY: Busy = Controller::new();
    static SUP_ONE: Supervisor<{ K + 1 }> = Supervisor::new(&GRAPH).with_controller(&ONE);
    static SUP_MANY: Supervisor<{ K + 1 }> = Supervisor::new(&GRAPH).with_controller(&MANY);
    static SUP_BUSY: Supervisor<{ K + 1 }> = Supervisor::new(&GRAPH).with_controller(&BUSY);

    async fn drive<F: core::future::Future<Output = f64>>(
        sup: &'static Supervisor<{ K + 1 }>,
        spawner: Spawner,
        phase: F,
    ) -> f64 {
        match select(sup.run(spawner), phase).await {
            Either::First(e) => panic!("driver stopped: {e}"),
            Either::Second(rate) => rate,
        }
    }

    async fn jobs<const S: usize, const D: usize>(
        ctrl: &'static Controller<(), S, D, 64, 4>,
        slots: usize,
    ) -> f64 {
        DONE_COUNT.store(0, Ordering::SeqCst);
        TARGET_COUNT.store(JOBS, Ordering::SeqCst);
        ALL_DONE.reset();
        let t0 = WallInstant::now();
        for j in 0..JOBS {
            // Every node is named "job": key the slots by index.
            let spec = ControllerSpec::queue(&TARGETS[j % slots], ()).with_slot((j % slots) as u32);
            if ctrl.submit(spec).await.is_err() {
                panic!("controller closed");
            }
        }
        ALL_DONE.wait().await;
        JOBS as f64 / t0.elapsed().as_secs_f64()
    }

    async fn rejections() -> f64 {
        BUSY.submit(ControllerSpec::queue(&TARGETS[HOLD], ()))
            .await
            .unwrap_or_else(|_| panic!("controller closed"));
        while !NODES[HOLD].is_running() {
            embassy_futures::yield_now().await;
        }
        let t0 = WallInstant::now();
        for _ in 0..REJECTIONS - 1 {
            let spec = ControllerSpec::drop_if_running(&TARGETS[HOLD], ());
            BUSY.submit(spec)
                .await
                .unwrap_or_else(|_| panic!("controller closed"));
        }
        // The intake is FIFO: the last verdict comes after all the others.
        let last = BUSY
            .submit_and_watch(ControllerSpec::drop_if_running(&TARGETS[HOLD], ()))
            .await;
        let rate = REJECTIONS as f64 / t0.elapsed().as_secs_f64();
        assert!(matches!(last, TaskOutcome::Rejected { .. }), "{last:?}");
        RELEASE.signal(());
        rate
    }

    #[embassy_executor::task]
    async fn run_all(spawner: Spawner) {
        let one = drive(&SUP_ONE, spawner, jobs(&ONE, 1)).await;
        let many = drive(&SUP_MANY, spawner, jobs(&MANY, K)).await;
        let rej = drive(&SUP_BUSY, spawner, rejections()).await;
        println!("jobs through one slot (Queue):  {one:>12.0} jobs/s  ({JOBS} instant jobs)");
        println!("jobs over {K} slots (Queue):     {many:>12.0} jobs/s  ({JOBS} instant jobs)");
        println!("DropIfRunning on a busy slot:   {rej:>12.0} rejections/s  ({REJECTIONS})");
        println!(
            "RAM per queued job (P = ()):    {:>5} B",
            OneSlot::QUEUED_JOB_BYTES
        );
        println!(
            "RAM per queued job (P = u32):   {:>5} B",
            Controller::<u32, 1, 1>::QUEUED_JOB_BYTES
        );
        println!(
            "RAM per slot, DEPTH = 4 (P=()): {:>5} B",
            Controller::<(), 1, 4>::SLOT_BYTES
        );
        println!(
            "RAM per slot, DEPTH = 0 (P=()): {:>5} B",
            Controller::<(), 1, 0>::SLOT_BYTES
        );
        println!(
            "RAM per intake entry (P = ()):  {:>5} B",
            OneSlot::INTAKE_ENTRY_BYTES
        );
        println!(
            "Controller<(), 8 slots, depth 4, intake 8, 8 watches>: {} B",
            core::mem::size_of::<Controller<(), 8, 4, 8, 8>>()
        );
        std::process::exit(0);
    }

    pub fn main() {
        let ex: &'static mut Executor = Box::leak(Box::new(Executor::new()));
        ex.run(|s| s.spawn(run_all(s).unwrap()));
    }
}
