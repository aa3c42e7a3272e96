//! The controller against taskvisor 0.9 and 0.7 (tokio current_thread), on
//! the host:
//!
//! ```text
//! bench-host <ours|taskvisor|taskvisor07> <one|many|reject> <unwatched|turn|window> <jobs>
//! ```
//!
//! Scenarios: `one` = instant jobs through one slot (Queue); `many` = instant
//! jobs over 64 slots (Queue); `reject` = DropIfRunning submissions to a slot
//! whose owner stays busy (every one is rejected). Modes: `unwatched` =
//! fire-and-forget submissions, then wait until the last job ran (for
//! `reject`: one watched submission at the end, after the others in FIFO
//! order); `turn` = each submission watched and its outcome awaited before the
//! next; `window` = every submission watched, 64 watchers in flight at once
//! (each watches its share in turn). Ours watches at most 254 submissions at
//! once (`WATCH` is a const parameter, one byte per cell), so "all 10,000
//! watched at once" is not something ours can run; the window is the nearest
//! both can.
//!
//! `run.sh` runs each case at two job counts under callgrind and reports the
//! instructions per job of the difference, so setup and teardown cancel.

use std::process::exit;

const WINDOW: usize = 64;
const SLOTS: usize = 64;

#[derive(Clone, Copy, PartialEq)]
enum Scenario {
    One,
    Many,
    Reject,
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Unwatched,
    Turn,
    Window,
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let usage = || -> ! {
        eprintln!(
            "usage: bench-host <ours|taskvisor|taskvisor07> <one|many|reject> <unwatched|turn|window> <jobs>"
        );
        exit(2)
    };
    if a.len() != 5 {
        usage()
    }
    let sc = match a[2].as_str() {
        "one" => Scenario::One,
        "many" => Scenario::Many,
        "reject" => Scenario::Reject,
        _ => usage(),
    };
    let mode = match a[3].as_str() {
        "unwatched" => Mode::Unwatched,
        "turn" => Mode::Turn,
        "window" => Mode::Window,
        _ => usage(),
    };
    let jobs: usize = a[4].parse().unwrap_or_else(|_| usage());
    if jobs % WINDOW != 0 || jobs > ours::MAX_JOBS {
        eprintln!("jobs: a multiple of {WINDOW}, at most {}", ours::MAX_JOBS);
        exit(2)
    }
    match a[1].as_str() {
        "ours" => ours::run(sc, mode, jobs),
        "taskvisor" => tv09::run(sc, mode, jobs),
        "taskvisor07" => tv::run(sc, mode, jobs),
        _ => usage(),
    }
}

/// This repository's controller on embassy's std executor.
mod ours {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use embassy_executor::{Executor, SpawnError, Spawner};
    use embassy_futures::select::{Either, select};
    use embassy_supervisor::controller::{Controller, ControllerSpec, JobTarget, TaskOutcome};
    use embassy_supervisor::{Graph, Mode as NodeMode, NodeSpec, Supervisor, TaskNode};
    use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
    use embassy_sync::signal::Signal;

    use super::{Mode, SLOTS, Scenario, WINDOW};

    pub const MAX_JOBS: usize = 4096;
    /// Node `SLOTS` holds its slot busy for the rejection scenario.
    const HOLD: usize = SLOTS;

    static DONE: AtomicUsize = AtomicUsize::new(0);
    static TARGET: AtomicUsize = AtomicUsize::new(usize::MAX);
    static ALL_DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();
    static RELEASE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

    #[embassy_executor::task(pool_size = 65)]
    async fn worker(i: usize) {
        let node = NODES[i];
        if i == HOLD {
            let _ = select(RELEASE.wait(), node.wait_shutdown()).await;
        } else if DONE.fetch_add(1, Ordering::Relaxed) + 1 == TARGET.load(Ordering::Relaxed) {
            ALL_DONE.signal(());
        }
        node.mark_exited();
    }

    macro_rules! nodes {
        ($($i:literal),* $(,)?) => {
            static NODES: [&TaskNode; SLOTS + 1] = [$({
                fn spawn(_: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
                    s.spawn(worker($i)?);
                    Ok(())
                }
                static N: TaskNode = TaskNode::new(
                    &NodeSpec::new("job", NodeMode::OnDemand).with_spawn(spawn).at($i),
                );
                &N
            }),*];
            static TARGETS: [JobTarget<()>; SLOTS + 1] = [$(JobTarget::node(NODES[$i])),*];
            static GRAPH: Graph<{ SLOTS + 1 }> = Graph::new([$(Some(NODES[$i])),*], [&[]; SLOTS + 1]);
        };
    }
    nodes!(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
        48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64
    );

    // <payload, slots, queued jobs per slot, intake, watch cells>
    type Ctrl = Controller<(), { SLOTS + 1 }, MAX_JOBS, 64, WINDOW>;
    static CTRL: Ctrl = Controller::new();
    static SUP: Supervisor<{ SLOTS + 1 }> = Supervisor::new(&GRAPH).with_controller(&CTRL);

    fn spec(sc: Scenario, j: usize) -> ControllerSpec<()> {
        match sc {
            Scenario::One => ControllerSpec::queue(&TARGETS[0], ()).with_slot(0u32),
            Scenario::Many => {
                ControllerSpec::queue(&TARGETS[j % SLOTS], ()).with_slot((j % SLOTS) as u32)
            }
            Scenario::Reject => {
                ControllerSpec::drop_if_running(&TARGETS[HOLD], ()).with_slot(HOLD as u32)
            }
        }
    }

    fn expected(sc: Scenario, o: &TaskOutcome) -> bool {
        match sc {
            Scenario::Reject => matches!(o, TaskOutcome::Rejected { .. }),
            _ => matches!(o, TaskOutcome::Completed),
        }
    }

    /// Watched submissions in turn: job `first`, then every `step`-th.
    async fn watcher(sc: Scenario, first: usize, step: usize, jobs: usize) -> bool {
        let mut ok = true;
        for j in (first..jobs).step_by(step) {
            ok &= expected(sc, &CTRL.submit_and_watch(spec(sc, j)).await);
        }
        ok
    }

    static WINDOW_LEFT: AtomicUsize = AtomicUsize::new(0);
    static WINDOW_OK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);
    static WINDOW_DONE: Signal<CriticalSectionRawMutex, ()> = Signal::new();

    #[embassy_executor::task(pool_size = WINDOW)]
    async fn window_task(sc: Scenario, first: usize, jobs: usize) {
        if !watcher(sc, first, WINDOW, jobs).await {
            WINDOW_OK.store(false, Ordering::SeqCst);
        }
        if WINDOW_LEFT.fetch_sub(1, Ordering::SeqCst) == 1 {
            WINDOW_DONE.signal(());
        }
    }

    async fn phase(sc: Scenario, mode: Mode, jobs: usize, spawner: Spawner) -> bool {
        if sc == Scenario::Reject {
            let held = CTRL.submit(ControllerSpec::queue(&TARGETS[HOLD], ()).with_slot(HOLD as u32));
            if held.await.is_err() {
                return false;
            }
            while !NODES[HOLD].is_running() {
                embassy_futures::yield_now().await;
            }
        } else {
            TARGET.store(jobs, Ordering::SeqCst);
        }
        let ok = match mode {
            Mode::Unwatched => {
                let mut ok = true;
                for j in 0..jobs {
                    ok &= CTRL.submit(spec(sc, j)).await.is_ok();
                }
                if sc == Scenario::Reject {
                    // The intake is FIFO: this verdict comes after all the others.
                    ok &= expected(sc, &CTRL.submit_and_watch(spec(sc, jobs)).await);
                } else {
                    ALL_DONE.wait().await;
                }
                ok
            }
            Mode::Turn => watcher(sc, 0, 1, jobs).await,
            Mode::Window => {
                // One task per watcher, as taskvisor's side spawns one per
                // watcher (a join of 64 futures in one task would poll all
                // 64 at every wake).
                WINDOW_LEFT.store(WINDOW, Ordering::SeqCst);
                for k in 0..WINDOW {
                    match window_task(sc, k, jobs) {
                        Ok(token) => spawner.spawn(token),
                        Err(_) => return false,
                    }
                }
                WINDOW_DONE.wait().await;
                WINDOW_OK.load(Ordering::SeqCst)
            }
        };
        ok && (sc == Scenario::Reject || DONE.load(Ordering::SeqCst) == jobs)
    }

    #[embassy_executor::task]
    async fn main_task(spawner: Spawner, sc: Scenario, mode: Mode, jobs: usize) {
        let ok = match select(SUP.run(spawner), phase(sc, mode, jobs, spawner)).await {
            Either::First(e) => {
                eprintln!("driver stopped: {e}");
                false
            }
            Either::Second(ok) => ok,
        };
        RELEASE.signal(());
        std::process::exit(if ok { 0 } else { 1 });
    }

    pub fn run(sc: Scenario, mode: Mode, jobs: usize) {
        let ex: &'static mut Executor = Box::leak(Box::new(Executor::new()));
        ex.run(move |s| s.spawn(main_task(s, sc, mode, jobs).unwrap()));
    }
}

/// taskvisor 0.7 on tokio's current_thread runtime, the same scenarios.
mod tv {
    use taskvisor07 as taskvisor;
    use std::num::NonZeroUsize;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use taskvisor::{
        ControllerConfig, ControllerSpec, Supervisor, SupervisorConfig, SupervisorHandle, TaskContext,
        TaskError, TaskFn, TaskOutcome, TaskRef, TaskSpec,
    };
    use tokio::sync::Notify;

    use super::{Mode, SLOTS, Scenario, WINDOW};

    struct Shared {
        done: AtomicUsize,
        target: AtomicUsize,
        all_done: Notify,
        release: Notify,
    }

    /// An instant job: count, and wake the phase at the last one.
    fn job(name: String, sh: Arc<Shared>) -> TaskRef {
        TaskFn::arc(name, move |_ctx: TaskContext| {
            let sh = Arc::clone(&sh);
            async move {
                if sh.done.fetch_add(1, Ordering::Relaxed) + 1 == sh.target.load(Ordering::Relaxed) {
                    sh.all_done.notify_one();
                }
                Ok::<(), TaskError>(())
            }
        })
    }

    /// The slot holder: busy until released or cancelled.
    fn hold(sh: Arc<Shared>) -> TaskRef {
        TaskFn::arc("hold", move |ctx: TaskContext| {
            let sh = Arc::clone(&sh);
            async move {
                tokio::select! {
                    _ = sh.release.notified() => {}
                    _ = ctx.cancelled() => {}
                }
                Ok::<(), TaskError>(())
            }
        })
    }

    struct Bench {
        handle: SupervisorHandle,
        sc: Scenario,
        /// One task per slot (a slot is named after its task by default).
        tasks: Vec<TaskRef>,
        held: TaskRef,
    }

    impl Bench {
        fn spec(&self, j: usize) -> ControllerSpec {
            match self.sc {
                Scenario::One => ControllerSpec::queue(TaskSpec::once(Arc::clone(&self.tasks[0]))),
                Scenario::Many => {
                    ControllerSpec::queue(TaskSpec::once(Arc::clone(&self.tasks[j % SLOTS])))
                }
                Scenario::Reject => {
                    ControllerSpec::drop_if_running(TaskSpec::once(Arc::clone(&self.held)))
                }
            }
        }

        fn expected(&self, o: &TaskOutcome) -> bool {
            match self.sc {
                Scenario::Reject => matches!(o, TaskOutcome::Rejected { .. }),
                _ => matches!(o, TaskOutcome::Completed),
            }
        }

        async fn watched(&self, j: usize) -> bool {
            match self.handle.submit_and_watch(self.spec(j)).await {
                Ok((_, waiter)) => waiter.wait().await.is_ok_and(|o| self.expected(&o)),
                Err(_) => false,
            }
        }

        /// Watched submissions in turn: job `first`, then every `step`-th.
        async fn watcher(self: Arc<Self>, first: usize, step: usize, jobs: usize) -> bool {
            let mut ok = true;
            for j in (first..jobs).step_by(step) {
                ok &= self.watched(j).await;
            }
            ok
        }
    }

    async fn phase(sc: Scenario, mode: Mode, jobs: usize) -> bool {
        let sh = Arc::new(Shared {
            done: AtomicUsize::new(0),
            target: AtomicUsize::new(jobs),
            all_done: Notify::new(),
            release: Notify::new(),
        });
        let cfg = ControllerConfig::new(NonZeroUsize::new(64).unwrap(), super::ours::MAX_JOBS);
        let sup = Supervisor::builder(SupervisorConfig::default()).with_controller(cfg).build();
        let handle = sup.serve();
        let b = Arc::new(Bench {
            handle: handle.clone(),
            sc,
            tasks: (0..SLOTS).map(|s| job(format!("s{s}"), Arc::clone(&sh))).collect(),
            held: hold(Arc::clone(&sh)),
        });
        if sc == Scenario::Reject {
            let Ok((_, _waiter)) =
                handle.submit_and_watch(ControllerSpec::queue(TaskSpec::once(Arc::clone(&b.held)))).await
            else {
                return false;
            };
            // Wait until the holder owns its slot: a rejection proves it.
            while !b.watched(0).await {
                tokio::task::yield_now().await;
            }
        }
        let ok = match mode {
            Mode::Unwatched => {
                let mut ok = true;
                for j in 0..jobs {
                    ok &= handle.submit(b.spec(j)).await.is_ok();
                }
                if sc == Scenario::Reject {
                    ok &= b.watched(jobs).await;
                } else if sh.done.load(Ordering::SeqCst) < jobs {
                    sh.all_done.notified().await;
                }
                ok
            }
            Mode::Turn => Arc::clone(&b).watcher(0, 1, jobs).await,
            Mode::Window => {
                let mut set = tokio::task::JoinSet::new();
                for k in 0..WINDOW {
                    set.spawn(Arc::clone(&b).watcher(k, WINDOW, jobs));
                }
                let mut ok = true;
                while let Some(r) = set.join_next().await {
                    ok &= r.unwrap_or(false);
                }
                ok
            }
        };
        sh.release.notify_one();
        let _ = handle.shutdown().await;
        ok && (sc == Scenario::Reject || sh.done.load(Ordering::SeqCst) == jobs)
    }

    pub fn run(sc: Scenario, mode: Mode, jobs: usize) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let ok = rt.block_on(phase(sc, mode, jobs));
        std::process::exit(if ok { 0 } else { 1 });
    }
}

/// taskvisor 0.9 on tokio's current_thread runtime, the same scenarios and
/// checks as [`tv`]. 0.9 submits through operation builders
/// (`submit(spec).watch().execute()`), names a task in its `TaskSpec`, and
/// bounds what 0.7 did not (0.8's resource limits: registered tasks, owned
/// lifetimes, tracked slots and total pending submissions, each a
/// `ResourceLimit` rejection past its bound). Those bounds are lifted here,
/// as 0.7 had none, so both releases run the same work: their defaults
/// (1024 each) are below the 3072 jobs a run queues.
mod tv09 {
    use std::num::NonZeroUsize;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use taskvisor::{
        ControllerConfig, ControllerSpec, Supervisor, SupervisorConfig, SupervisorHandle, TaskContext,
        TaskError, TaskFn, TaskOutcome, TaskRef, TaskSpec,
    };
    use tokio::sync::Notify;

    use super::{Mode, SLOTS, Scenario, WINDOW};

    struct Shared {
        done: AtomicUsize,
        target: AtomicUsize,
        all_done: Notify,
        release: Notify,
    }

    /// An instant job: count, and wake the phase at the last one.
    fn job(sh: Arc<Shared>) -> TaskRef {
        TaskFn::arc(move |_ctx: TaskContext| {
            let sh = Arc::clone(&sh);
            async move {
                if sh.done.fetch_add(1, Ordering::Relaxed) + 1 == sh.target.load(Ordering::Relaxed) {
                    sh.all_done.notify_one();
                }
                Ok::<(), TaskError>(())
            }
        })
    }

    /// The slot holder: busy until released or cancelled.
    fn hold(sh: Arc<Shared>) -> TaskRef {
        TaskFn::arc(move |ctx: TaskContext| {
            let sh = Arc::clone(&sh);
            async move {
                tokio::select! {
                    _ = sh.release.notified() => {}
                    _ = ctx.cancelled() => {}
                }
                Ok::<(), TaskError>(())
            }
        })
    }

    struct Bench {
        handle: SupervisorHandle,
        sc: Scenario,
        /// One task per slot (a slot is named after its task spec by default).
        tasks: Vec<TaskRef>,
        held: TaskRef,
    }

    impl Bench {
        fn spec(&self, j: usize) -> ControllerSpec {
            match self.sc {
                Scenario::One => ControllerSpec::queue(TaskSpec::once("s0", Arc::clone(&self.tasks[0]))),
                Scenario::Many => {
                    let s = j % SLOTS;
                    ControllerSpec::queue(TaskSpec::once(format!("s{s}"), Arc::clone(&self.tasks[s])))
                }
                Scenario::Reject => {
                    ControllerSpec::drop_if_running(TaskSpec::once("hold", Arc::clone(&self.held)))
                }
            }
        }

        fn expected(&self, o: &TaskOutcome) -> bool {
            match self.sc {
                Scenario::Reject => matches!(o, TaskOutcome::Rejected { .. }),
                _ => matches!(o, TaskOutcome::Completed),
            }
        }

        async fn watched(&self, j: usize) -> bool {
            match self.handle.submit(self.spec(j)).watch().execute().await {
                Ok(waiter) => waiter.wait().await.is_ok_and(|o| self.expected(&o)),
                Err(_) => false,
            }
        }

        /// Watched submissions in turn: job `first`, then every `step`-th.
        async fn watcher(self: Arc<Self>, first: usize, step: usize, jobs: usize) -> bool {
            let mut ok = true;
            for j in (first..jobs).step_by(step) {
                ok &= self.watched(j).await;
            }
            ok
        }
    }

    async fn phase(sc: Scenario, mode: Mode, jobs: usize) -> bool {
        let sh = Arc::new(Shared {
            done: AtomicUsize::new(0),
            target: AtomicUsize::new(jobs),
            all_done: Notify::new(),
            release: Notify::new(),
        });
        let config = SupervisorConfig::default()
            .with_max_registered_tasks(None)
            .with_ownership_capacity(None);
        let cfg = ControllerConfig::new(NonZeroUsize::new(64).unwrap(), super::ours::MAX_JOBS)
            .with_max_controller_slots(None)
            .with_max_total_pending(None);
        let sup = Supervisor::builder(config).with_controller(cfg).build();
        let Ok(handle) = sup.serve() else {
            return false;
        };
        let b = Arc::new(Bench {
            handle: handle.clone(),
            sc,
            tasks: (0..SLOTS).map(|_| job(Arc::clone(&sh))).collect(),
            held: hold(Arc::clone(&sh)),
        });
        if sc == Scenario::Reject {
            let holder = ControllerSpec::queue(TaskSpec::once("hold", Arc::clone(&b.held)));
            let Ok(_waiter) = handle.submit(holder).watch().execute().await else {
                return false;
            };
            // Wait until the holder owns its slot: a rejection proves it.
            while !b.watched(0).await {
                tokio::task::yield_now().await;
            }
        }
        let ok = match mode {
            Mode::Unwatched => {
                let mut ok = true;
                for j in 0..jobs {
                    ok &= handle.submit(b.spec(j)).execute().await.is_ok();
                }
                if sc == Scenario::Reject {
                    ok &= b.watched(jobs).await;
                } else if sh.done.load(Ordering::SeqCst) < jobs {
                    sh.all_done.notified().await;
                }
                ok
            }
            Mode::Turn => Arc::clone(&b).watcher(0, 1, jobs).await,
            Mode::Window => {
                let mut set = tokio::task::JoinSet::new();
                for k in 0..WINDOW {
                    set.spawn(Arc::clone(&b).watcher(k, WINDOW, jobs));
                }
                let mut ok = true;
                while let Some(r) = set.join_next().await {
                    ok &= r.unwrap_or(false);
                }
                ok
            }
        };
        sh.release.notify_one();
        let _ = handle.shutdown().await;
        ok && (sc == Scenario::Reject || sh.done.load(Ordering::SeqCst) == jobs)
    }

    pub fn run(sc: Scenario, mode: Mode, jobs: usize) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let ok = rt.block_on(phase(sc, mode, jobs));
        std::process::exit(if ok { 0 } else { 1 });
    }
}
