//! The specification's Rust examples that use its error types, compiled as
//! printed there (`shared/spec/embassy-supervisor-0.4.1-README.md`: the
//! Quickstart, the `resources:` section, the one-graph variant of the
//! sub-graph recipe, the multi-core section) and driven on a real executor.
//!
//! Each module holds one example. The lines between `// ---- spec ----` and
//! `// ---- end ----` are the specification's text unchanged (its
//! indentation aside: the specification prints them flush left); what is
//! around them (the hardware types, the functions a fragment sits in, the
//! worker bodies it elides) is a stand-in, so the fragment compiles where the
//! specification leaves it open.
#![cfg(feature = "macros")]

mod common;

use embassy_executor::SpawnError;
use embassy_supervisor::{FaultKind, NodeFault, RunError, ShutdownTimeout};
use embassy_time::Duration;

/// Quickstart: `run()`'s value matched on its two arms.
mod quickstart {
    // The elided worker bodies leave their `node` unused.
    #![allow(unused_variables)]

    // ---- spec ----
    use embassy_executor::Spawner;
    use embassy_supervisor::{RunError, Supervisor, supervisor_graph};
    // Declare the graph once: `supervisor_graph!` generates the node `static`s and a
    // single `GRAPH` bundling the node slots, dep table, compile-time order, and pools.
    // Each `task:` names a plain async worker fn (the macro stamps its
    // `#[embassy_executor::task]` shell); `app` depends on `net`.
    supervisor_graph! {
    node NET = Terminate, deps: [], task: net_task;
    node APP = Terminate, deps: [NET], task: app_task;
    }
    // Plain async fns taking the node first — no embassy attribute needed.
    async fn net_task(node: &'static embassy_supervisor::TaskNode) { /* ... */
    }
    async fn app_task(node: &'static embassy_supervisor::TaskNode) { /* ... */
    }
    #[embassy_executor::task]
    async fn supervisor_task(spawner: Spawner) {
        // Infallible: the order is precomputed, so a dependency cycle is a compile error.
        let sup = Supervisor::new(&GRAPH);
        // Bring-up in dependency order, then drive pools + runtime control forever;
        // returns only on error, which the app escalates (typically a panic into a
        // hardware-watchdog reset).
        match sup.run(spawner).await {
            RunError::Spawn(_) => panic!("bring-up failed"),
            RunError::Shutdown(e) => panic!("{} missed its shutdown ack", e.node.name),
        }
    }
    // ---- end ----

    /// Runs the Quickstart's supervisor task: both workers come up (their
    /// elided bodies return at once, so each is recorded as exited) and
    /// `run()` drives on without an error.
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        spawner.spawn(supervisor_task(spawner).unwrap());
        super::common::wait_until(
            || NET.has_exited() && APP.has_exited(),
            embassy_time::Duration::from_millis(10),
        )
        .await
        .expect("the Quickstart brings both nodes up");
        super::common::pass();
    }

    pub static NODES: [&embassy_supervisor::TaskNode; 2] = [&NET, &APP];
}

#[test]
fn quickstart_compiles_as_printed_and_runs() {
    common::run(&quickstart::NODES, |s| {
        s.spawn(quickstart::driver(s).unwrap())
    });
}

/// `resources:`: `sup.start(spawner).await?` in a function returning
/// `Result<(), SpawnError>`.
mod resources {
    #![allow(unused_variables)]

    use core::marker::PhantomData;

    use embassy_executor::{SpawnError, Spawner};
    use embassy_supervisor::{Supervisor, TaskNode, supervisor_graph};

    /// Stand-ins for a HAL's pin, output and level.
    pub struct Pin25;
    pub enum Level {
        Low,
    }
    pub struct Output<'d>(PhantomData<&'d ()>);
    impl Output<'_> {
        pub fn new(_pin: Pin25, _level: Level) -> Self {
            Output(PhantomData)
        }
    }
    /// The HAL's peripherals after the split.
    #[allow(non_snake_case)]
    pub struct Peripherals {
        pub PIN_25: Pin25,
    }

    // ---- spec ----
    async fn blink(node: &'static TaskNode, led: &mut Output<'static>) { /* ... */
    }
    supervisor_graph! {
    node BLINK = Terminate, deps: [], task: blink,
    resources: [LED: Output<'static>];
    }
    // ---- end ----

    /// The specification's `main` lines, in a function of the error type
    /// they were written against.
    pub async fn bring_up(
        p: Peripherals,
        sup: &Supervisor<1>,
        spawner: Spawner,
    ) -> Result<(), SpawnError> {
        // ---- spec ----
        // main, after the Peripherals split:
        LED.provide(Output::new(p.PIN_25, Level::Low)); // consumes p.PIN_25 — no steal, no 2nd owner
        sup.start(spawner).await?;
        // ---- end ----
        Ok(())
    }

    pub static SUP: Supervisor<1> = Supervisor::new(&GRAPH);

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        let p = Peripherals { PIN_25: Pin25 };
        assert!(bring_up(p, &SUP, spawner).await.is_ok());
        super::common::settle().await;
        // The worker returned, its lent LED is back in the slot.
        assert!(BLINK.has_exited() && LED.is_filled());

        // With the slot empty, the bring-up fails closed: through `?` the
        // verb's `ResourceEmpty` fault arrives as the spec's `Busy`.
        let _ = LED.take();
        let started = async {
            SUP.start(spawner).await?;
            Ok::<(), SpawnError>(())
        };
        let (r, ()) =
            embassy_futures::join::join(started, super::common::advance_after_idle(super::MISS))
                .await;
        assert!(matches!(r, Err(SpawnError::Busy)));
        assert!(!BLINK.is_running());
        super::common::pass();
    }

    pub static NODES: [&TaskNode; 1] = [&BLINK];
}

#[test]
fn resources_start_question_mark_into_spawn_error() {
    common::run(&resources::NODES, |s| {
        s.spawn(resources::driver(s).unwrap())
    });
}

/// The one-graph variant of the sub-graph recipe: `sup.deactivate(&WIFI).await?`
/// in a function returning `Result<(), ShutdownTimeout>`.
mod one_graph {
    // The spec's fragment drops `activate`'s result (it returned `()` then).
    #![allow(unused_must_use)]

    use core::sync::atomic::{AtomicU32, Ordering};

    use embassy_executor::Spawner;
    use embassy_supervisor::{ShutdownTimeout, Supervisor, TaskNode, supervisor_graph};

    /// A stand-in radio driver, built per state entry.
    pub struct WifiController<'d>(core::marker::PhantomData<&'d ()>);
    pub struct Ctx {
        pub entries: u32,
    }
    pub enum State {
        Menu,
        Upload,
    }
    static BUILT: AtomicU32 = AtomicU32::new(0);
    fn build_wifi(ctx: &mut Ctx) -> WifiController<'static> {
        ctx.entries += 1;
        BUILT.fetch_add(1, Ordering::SeqCst);
        WifiController(core::marker::PhantomData)
    }
    /// The state's screen: it returns when the whole subtree is up.
    async fn upload_screen(_ctx: &mut Ctx) -> State {
        super::common::wait_until(
            || WIFI.is_running() && NET.is_running() && UPLOAD.is_running(),
            embassy_time::Duration::from_millis(10),
        )
        .await
        .expect("activate brought the subtree up");
        State::Menu
    }

    async fn wifi_ctrl(node: &'static TaskNode, _hw: WifiController<'static>) {
        super::common::serve(node).await
    }
    async fn net_runner(node: &'static TaskNode) {
        super::common::serve(node).await
    }
    async fn upload_worker(node: &'static TaskNode) {
        super::common::serve(node).await
    }

    // The subtree as the text says: `Terminate` + `disabled` in the main graph.
    supervisor_graph! {
        node WIFI = Terminate, deps: [], task: wifi_ctrl, disabled,
            resources: [WIFI_HW: consume WifiController<'static>];
        node NET = Terminate, deps: [WIFI], task: net_runner, disabled;
        node UPLOAD = Terminate, deps: [NET], task: upload_worker, disabled;
    }

    pub static SUP: Supervisor<3> = Supervisor::new(&GRAPH);

    /// One pass of the application's state machine, in a function of the
    /// error type the fragment was written against.
    pub async fn step(
        state: State,
        mut ctx: Ctx,
        spawner: Spawner,
    ) -> Result<(State, Ctx), ShutdownTimeout> {
        let sup = &SUP;
        let state = match state {
            State::Menu => State::Upload,
            // ---- spec ----
            State::Upload => {
                WIFI_HW.provide(build_wifi(&mut ctx));
                sup.activate(&UPLOAD, spawner).await; // WIFI -> NET -> UPLOAD
                let next = upload_screen(&mut ctx).await;
                sup.deactivate(&WIFI).await?; // UPLOAD -> NET -> WIFI
                next
            } // ---- end ----
        };
        Ok((state, ctx))
    }

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        assert!(
            !WIFI.is_running(),
            "declared disabled: down until activated"
        );
        let (state, ctx) = step(State::Menu, Ctx { entries: 0 }, spawner)
            .await
            .unwrap();
        let (state, ctx) = step(state, ctx, spawner).await.unwrap();
        assert!(matches!(state, State::Menu) && ctx.entries == 1);
        assert!(!WIFI.is_running() && !NET.is_running() && !UPLOAD.is_running());

        // A second entry whose UPLOAD never acks: through `?` the verb's
        // `AckMissed` fault arrives as the spec's `ShutdownTimeout`, naming it.
        super::common::fault::ignore_stop(&UPLOAD);
        let (r, ()) = embassy_futures::join::join(step(State::Upload, ctx, spawner), async {
            super::common::wait_until(|| UPLOAD.shutdown_requested(), super::MISS)
                .await
                .unwrap();
            super::common::advance_after_idle(super::MISS).await
        })
        .await;
        assert_eq!(r.err(), Some(ShutdownTimeout { node: &UPLOAD }));
        assert_eq!(BUILT.load(Ordering::SeqCst), 2);
        super::common::pass();
    }

    pub static NODES: [&TaskNode; 3] = [&WIFI, &NET, &UPLOAD];
}

#[test]
fn one_graph_deactivate_question_mark_into_shutdown_timeout() {
    common::run(&one_graph::NODES, |s| {
        s.spawn(one_graph::driver(s).unwrap())
    });
}

/// Multi-executor tiers and multi-core: `sup.start(spawner).await?` into
/// `Result<(), SpawnError>` with a `disabled` node on a second executor.
mod multi_core {
    use embassy_executor::{SpawnError, Spawner};
    use embassy_supervisor::{Supervisor, TaskNode, supervisor_graph};

    async fn bench_worker(node: &'static TaskNode) {
        super::common::serve(node).await
    }

    // ---- spec ----
    supervisor_graph! {
    executor CORE1;
    node BENCH = Terminate, deps: [], executor: CORE1, task: bench_worker, disabled;
    }
    // ---- end ----

    pub static SUP: Supervisor<1> = Supervisor::new(&GRAPH);

    /// The specification's bring-up line. (Its `});` closes a
    /// `spawn_core1(..)` call it elides, in which core 1 publishes its
    /// spawner; here [`driver`] publishes this executor's.)
    pub async fn bring_up(sup: &Supervisor<1>, spawner: Spawner) -> Result<(), SpawnError> {
        // ---- spec ----
        // bring-up rendezvouses with that asynchronous publish as part of `start` itself
        // (bounded wait per `executor:` node, then `SpawnError::Busy`):
        sup.start(spawner).await?;
        // ---- end ----
        Ok(())
    }

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        // BENCH is declared `disabled`: `start` leaves it down and does not
        // wait for CORE1.
        assert!(bring_up(&SUP, spawner).await.is_ok());
        assert!(!BENCH.is_running());
        CORE1.set(spawner.make_send());
        SUP.activate(&BENCH, spawner).await.unwrap();
        assert!(BENCH.is_running());
        SUP.teardown().await.unwrap();
        super::common::pass();
    }

    pub static NODES: [&TaskNode; 1] = [&BENCH];
}

#[test]
fn multi_core_start_question_mark_into_spawn_error() {
    common::run(&multi_core::NODES, |s| {
        s.spawn(multi_core::driver(s).unwrap())
    });
}

/// Longer than any slot or ack timeout in this file (1 s and 2 s, the defaults).
const MISS: Duration = Duration::from_secs(3);

/// `run()`'s value sorts the fault into the two arms and still reads as the
/// `NodeFault` it carries.
#[test]
fn run_error_arms_carry_the_fault() {
    use embassy_supervisor::{Mode, NodeSpec, TaskNode};
    static NODE: TaskNode = TaskNode::new(&NodeSpec::new("radio", Mode::Terminate));
    let missed = NodeFault::new(&NODE, FaultKind::AckMissed);
    let busy = NodeFault::new(&NODE, FaultKind::SpawnBusy);
    assert_eq!(RunError::from(missed), RunError::Shutdown(missed));
    assert_eq!(RunError::from(busy), RunError::Spawn(busy));
    for f in [missed, busy] {
        let e = RunError::from(f);
        assert_eq!(e, f);
        assert_eq!(NodeFault::from(e), f);
        assert_eq!((e.node.name, e.kind), ("radio", f.kind));
        assert_eq!(e.to_string(), f.to_string());
    }
    // The specification's error types from a fault: `SpawnError` has only
    // `Busy`; `ShutdownTimeout` keeps the node.
    assert!(matches!(SpawnError::from(missed), SpawnError::Busy));
    assert_eq!(
        ShutdownTimeout::from(missed),
        ShutdownTimeout { node: &NODE }
    );
}
