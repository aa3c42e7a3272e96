//! Feature `fault-inject`: faults injected from outside a node's task are
//! acted out by its generated shell, and the supervisor sees each as the
//! real failure: a stall goes stale and misses its ack, a wedge misses its
//! ack, a crash reads as an exit, a hog holds the executor for its ticks.
//! `clear_fault` recovers the stalled and the wedged.
#![cfg(all(feature = "macros", feature = "fault-inject"))]
mod common;

use core::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use core::task::Poll;

use embassy_executor::Spawner;
use embassy_supervisor::{Fault, SHUTDOWN_ACK_TIMEOUT, Supervisor, TaskNode};
use embassy_time::{Duration, Instant, MockDriver, Timer};

/// Progress made by [`ticker`]: one step per 10 ms of mock time.
static STEPS: AtomicU32 = AtomicU32::new(0);

/// A worker that makes visible progress (and beats) until it is stopped.
async fn ticker(node: &'static TaskNode) {
    let work = async {
        loop {
            Timer::after_millis(10).await;
            STEPS.fetch_add(1, Ordering::SeqCst);
            #[cfg(feature = "liveness")]
            node.beat();
        }
    };
    let _ = node.run_cancellable(work).await;
    node.ack_dropped();
}

fn steps() -> u32 {
    STEPS.load(Ordering::SeqCst)
}

/// Stop `node`, joined with the mock clock running past its ack window:
/// `Some(name)` of the node the stop's missed-ack error names, `None` if it
/// was acked.
async fn stop_past_ack_window(
    sup: &'static Supervisor<1>,
    node: &'static TaskNode,
) -> Option<&'static str> {
    let window = SHUTDOWN_ACK_TIMEOUT + Duration::from_millis(1);
    embassy_futures::join::join(sup.stop_node(node), common::advance_after_idle(window))
        .await
        .0
        .err()
        .map(|e| e.node.name)
}

mod stall {
    use super::*;
    #[cfg(feature = "liveness")]
    embassy_supervisor::supervisor_graph! {
        node PUMP = Terminate, task: ticker, beat_timeout: 50;
    }
    #[cfg(not(feature = "liveness"))]
    embassy_supervisor::supervisor_graph! {
        node PUMP = Terminate, task: ticker;
    }
    pub static SUP: Supervisor<1> = Supervisor::new(&GRAPH);

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        common::wait_until(|| steps() >= 3, Duration::from_millis(100))
            .await
            .unwrap();

        PUMP.inject(Fault::Stall).unwrap();
        assert_eq!(PUMP.fault(), Some(Fault::Stall));
        let before = steps();
        common::advance(Duration::from_millis(100));
        common::settle().await;
        assert_eq!(steps(), before, "a stalled worker made progress");
        assert!(PUMP.is_running());
        #[cfg(feature = "liveness")]
        {
            let stale = embassy_futures::join::join(GRAPH.wait_health(), common::settle()).await;
            assert_eq!(stale.0.name, "PUMP", "the liveness monitor sees the stall");
        }

        // A stalled worker never sees its stop.
        assert_eq!(stop_past_ack_window(&SUP, &PUMP).await, Some("PUMP"));
        assert!(PUMP.is_running());
        assert_eq!(steps(), before);

        // Cleared, it is polled again: it sees the stop and acks late.
        PUMP.clear_fault();
        assert_eq!(PUMP.fault(), None);
        common::wait_until(|| !PUMP.is_running(), Duration::from_millis(10))
            .await
            .unwrap();
        assert!(PUMP.has_exited());

        // And a fresh activation runs normally.
        SUP.start_node(&PUMP, spawner).await.unwrap();
        let before = steps();
        common::wait_until(|| steps() > before, Duration::from_millis(20))
            .await
            .unwrap();
        SUP.teardown().await.unwrap();
        common::pass();
    }
}

#[test]
fn stall_withholds_polls_until_cleared() {
    common::run(&[&stall::PUMP], |s| s.spawn(stall::driver(s).unwrap()));
}

mod wedge {
    use super::*;
    embassy_supervisor::supervisor_graph! {
        node VALVE = Terminate, task: ticker;
    }
    pub static SUP: Supervisor<1> = Supervisor::new(&GRAPH);

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        VALVE.inject(Fault::Wedge).unwrap();

        // Until a stop comes, a wedged worker runs on.
        let before = steps();
        common::wait_until(|| steps() >= before + 3, Duration::from_millis(100))
            .await
            .unwrap();

        // The stop is hidden and its ack never comes.
        assert_eq!(stop_past_ack_window(&SUP, &VALVE).await, Some("VALVE"));
        assert!(VALVE.is_running() && VALVE.shutdown_requested());
        let frozen = steps();
        common::advance(Duration::from_millis(100));
        common::settle().await;
        assert_eq!(steps(), frozen, "the worker ran after its stop was hidden");

        // Cleared: the worker sees the pending stop and acks it.
        VALVE.clear_fault();
        common::wait_until(|| !VALVE.is_running(), Duration::from_millis(10))
            .await
            .unwrap();

        // With the wedge cleared, the next activation acks its stop.
        SUP.start_node(&VALVE, spawner).await.unwrap();
        SUP.stop_node(&VALVE).await.unwrap();
        common::pass();
    }
}

#[test]
fn wedge_hides_the_stop_until_cleared() {
    common::run(&[&wedge::VALVE], |s| s.spawn(wedge::driver(s).unwrap()));
}

mod crash {
    use super::*;
    use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
    use embassy_sync::signal::Signal;

    /// Signalled by the test: the worker then finishes with 7.
    pub static FINISH: Signal<CriticalSectionRawMutex, ()> = Signal::new();

    embassy_supervisor::supervisor_graph! {
        name: CRASH;
        node JOB = Terminate, task: job, resources: [TOOL: u8], exit: u8;
    }
    async fn job(node: &'static TaskNode, tool: &mut u8) -> u8 {
        *tool += 1;
        let _ = node;
        FINISH.wait().await;
        7
    }
    pub static SUP: Supervisor<1> = Supervisor::new(&CRASH);

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        TOOL.provide(0);
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert!(JOB.is_running() && !TOOL.is_filled());

        JOB.inject(Fault::Crash).unwrap();
        common::settle().await;
        // Down without a stop: an exit, the failure the supervisor sees.
        assert!(!JOB.is_running() && JOB.has_exited());
        assert!(!JOB.shutdown_requested());
        // The crash drops the worker with what it held: the lent tool is
        // back; no exit value was recorded.
        assert_eq!(TOOL.get(), Some(1));
        assert!(!JOB_EXIT.is_filled());
        assert_eq!(JOB.fault(), None, "a crash is one-shot");

        // The next activation is not crashed: it finishes and records 7.
        SUP.start_node(&JOB, spawner).await.unwrap();
        FINISH.signal(());
        common::wait_until(|| JOB.has_exited(), Duration::from_millis(10))
            .await
            .unwrap();
        assert_eq!(JOB_EXIT.take(), Some(7));
        assert_eq!(TOOL.get(), Some(2));
        common::pass();
    }
}

#[test]
fn crash_drops_the_worker_and_reads_as_an_exit() {
    common::run(&[&crash::JOB], |s| s.spawn(crash::driver(s).unwrap()));
}

mod hog {
    use super::*;
    /// While set, a helper thread moves the mock clock on (the executor
    /// thread is busy in the hog and cannot).
    static CLOCK_RUNS: AtomicBool = AtomicBool::new(false);
    /// When the worker was last polled (mock ticks).
    pub static LAST_POLL: AtomicU64 = AtomicU64::new(0);
    pub static POLLS: AtomicU32 = AtomicU32::new(0);

    embassy_supervisor::supervisor_graph! {
        name: HOG;
        node BUSY = Terminate, task: watcher;
    }
    /// Records the time of each poll; never finishes on its own.
    async fn watcher(_node: &'static TaskNode) {
        core::future::poll_fn(|_| {
            LAST_POLL.store(Instant::now().as_ticks(), Ordering::SeqCst);
            POLLS.fetch_add(1, Ordering::SeqCst);
            Poll::<()>::Pending
        })
        .await
    }
    pub static SUP: Supervisor<1> = Supervisor::new(&HOG);

    fn clock_thread() {
        std::thread::spawn(|| {
            while CLOCK_RUNS.load(Ordering::SeqCst) {
                MockDriver::get().advance(Duration::from_millis(10));
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        });
    }

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert_eq!(POLLS.load(Ordering::SeqCst), 1);

        let ticks = Duration::from_secs(1).as_ticks() as u32;
        let injected = Instant::now().as_ticks();
        CLOCK_RUNS.store(true, Ordering::SeqCst);
        clock_thread();
        BUSY.inject(Fault::Hog(ticks)).unwrap();
        // The injection wakes the task; its next poll spins, then polls the
        // worker, in one poll: this task cannot run meanwhile.
        common::settle().await;
        CLOCK_RUNS.store(false, Ordering::SeqCst);
        assert_eq!(POLLS.load(Ordering::SeqCst), 2);
        let polled = LAST_POLL.load(Ordering::SeqCst);
        assert!(
            polled - injected >= u64::from(ticks),
            "the worker was polled {} ticks after the injection, not after the hog's {ticks}",
            polled - injected
        );
        assert_eq!(BUSY.fault(), None, "a hog is one-shot");

        // Once: the next poll does not spin (the clock is still now; a
        // second hog would never end and the test would hang).
        let now = Instant::now().as_ticks();
        BUSY.clear_fault(); // wakes the task
        common::settle().await;
        assert_eq!(POLLS.load(Ordering::SeqCst), 3);
        assert_eq!(LAST_POLL.load(Ordering::SeqCst), now);

        // The worker ignores stops: a crash is how this one ends.
        BUSY.inject(Fault::Crash).unwrap();
        common::settle().await;
        assert!(BUSY.has_exited());
        common::pass();
    }
}

#[test]
fn hog_spins_its_ticks_inside_one_poll_once() {
    common::run(&[&hog::BUSY], |s| s.spawn(hog::driver(s).unwrap()));
}

mod no_shell {
    use super::*;
    use embassy_supervisor::{Mode, NodeSpec};

    embassy_supervisor::supervisor_graph! {
        name: SHELLS;
        node SHELLED = Terminate, task: ticker;
        // Parked: the application spawns its task; no shell acts faults out.
        node PARKED = Terminate;
    }
    pub static BARE: TaskNode = TaskNode::new(&NodeSpec::new("BARE", Mode::Terminate));
    pub static MARKED: TaskNode =
        TaskNode::new(&NodeSpec::new("MARKED", Mode::Terminate).with_fault_shell());
}

#[test]
fn only_a_node_whose_task_acts_faults_out_takes_one() {
    use no_shell::*;
    for node in [&PARKED, &BARE] {
        let err = node.inject(Fault::Crash).unwrap_err();
        assert!(core::ptr::eq(err.node, node));
        assert_eq!(node.fault(), None, "nothing injected");
    }
    assert_eq!(
        BARE.inject(Fault::Stall).unwrap_err().to_string(),
        "node `BARE` has no task shell that acts out injected faults"
    );
    for node in [&SHELLED, &MARKED] {
        node.inject(Fault::Wedge).unwrap();
        assert_eq!(node.fault(), Some(Fault::Wedge));
        node.clear_fault();
        assert_eq!(node.fault(), None);
    }
}

/// Random interleavings of injections, clears, stops and starts against a
/// model of what each must do: a stop misses its ack exactly while a stall
/// or wedge holds; a crash takes the node down at its next poll; a hog is
/// consumed at its next poll; a clear lets a pending stop through.
mod model {
    use super::*;
    embassy_supervisor::supervisor_graph! {
        name: MODEL;
        node M = Terminate, task: ticker;
    }
    pub static SUP: Supervisor<1> = Supervisor::new(&MODEL);

    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    /// The model's view: is an instance up, which fault holds, and is a
    /// stop pending (requested, not acked)?
    #[derive(Debug)]
    struct Model {
        up: bool,
        fault: Option<Fault>,
        stop_pending: bool,
    }

    impl Model {
        /// A fresh activation's first poll acts out a one-shot fault.
        fn first_poll(&mut self) {
            match self.fault {
                Some(Fault::Crash) => {
                    self.up = false;
                    self.fault = None;
                }
                Some(Fault::Hog(_)) => self.fault = None,
                _ => {}
            }
        }
        /// Once nothing holds the worker, a pending stop is acked.
        fn release(&mut self) {
            if self.up
                && self.stop_pending
                && !matches!(self.fault, Some(Fault::Stall | Fault::Wedge))
            {
                self.up = false;
                self.stop_pending = false;
            }
        }
    }

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        for seed in 1..=8u64 {
            let mut r = Rng(seed);
            SUP.start(spawner).await.unwrap();
            common::settle().await;
            let mut m = Model {
                up: true,
                fault: None,
                stop_pending: false,
            };
            for step in 0..60 {
                let op = r.below(7);
                match op {
                    0..=3 => {
                        let f =
                            [Fault::Stall, Fault::Wedge, Fault::Crash, Fault::Hog(0)][op as usize];
                        M.inject(f).unwrap();
                        m.fault = Some(f);
                        if m.up {
                            m.first_poll();
                            if f == Fault::Crash {
                                m.stop_pending = false;
                            }
                            m.release();
                        }
                    }
                    4 => {
                        M.clear_fault();
                        m.fault = None;
                        m.release();
                    }
                    5 if m.up => {
                        let missed = stop_past_ack_window(&SUP, &M).await;
                        let held = matches!(m.fault, Some(Fault::Stall | Fault::Wedge));
                        assert_eq!(
                            missed.is_some(),
                            held,
                            "seed {seed} step {step}: stop with {m:?}"
                        );
                        if held {
                            m.stop_pending = true;
                        } else {
                            m.up = false;
                        }
                    }
                    6 if !m.up => {
                        SUP.start_node(&M, spawner).await.unwrap();
                        m.up = true;
                        m.stop_pending = false;
                        m.first_poll();
                    }
                    _ => {}
                }
                common::settle().await;
                assert_eq!(
                    M.is_running(),
                    m.up,
                    "seed {seed} step {step} op {op}: {m:?}"
                );
                assert_eq!(M.fault(), m.fault, "seed {seed} step {step} op {op}: {m:?}");
                assert_eq!(
                    M.shutdown_requested() && M.is_running(),
                    m.stop_pending,
                    "seed {seed} step {step}"
                );
            }
            M.clear_fault();
            common::settle().await;
            SUP.teardown().await.unwrap();
        }
        common::pass();
    }
}

#[test]
fn random_interleavings_follow_the_model() {
    common::run(&[&model::M], |s| s.spawn(model::driver(s).unwrap()));
}
