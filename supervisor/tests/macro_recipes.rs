//! The spec's "Recipes by use case" snippets (and the DSL section's
//! examples), made complete and run on the host harness. One module per
//! recipe: each holds its own graph.
#![cfg(all(feature = "macros", feature = "control"))]
mod common;

use core::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::Spawner;
use embassy_supervisor::{Aborted, Supervisor, TaskNode};

/// A worker body that serves until stopped, then returns (the shell acks).
async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

mod chain {
    use super::*;
    embassy_supervisor::supervisor_graph! {
        node SENSOR = Terminate, deps: [], task: sensor_worker;
        node REPORTER = Terminate, deps: [SENSOR], task: reporter_worker;
    }
    async fn sensor_worker(node: &'static TaskNode) {
        serve(node).await
    }
    async fn reporter_worker(node: &'static TaskNode) {
        assert!(SENSOR.is_running(), "REPORTER spawned before SENSOR");
        serve(node).await
    }
    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert_eq!(GRAPH.order, [0, 1]);
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert!(REPORTER.is_running());
        SUP.teardown().await.unwrap();
        assert!(SENSOR.has_exited() && REPORTER.has_exited());
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&SENSOR, &REPORTER];
}

#[test]
fn simple_dependency_chain() {
    common::run(&chain::NODES, |s| s.spawn(chain::driver(s).unwrap()));
}

mod generic {
    use super::*;
    pub trait Sensor {
        const ID: u32;
    }
    pub struct Bme280;
    pub struct Sht;
    impl Sensor for Bme280 {
        const ID: u32 = 1;
    }
    impl Sensor for Sht {
        const ID: u32 = 10;
    }
    pub static SUM: AtomicU32 = AtomicU32::new(0);
    async fn poll_sensor<D: Sensor>(node: &'static TaskNode, _dev: D) {
        SUM.fetch_add(D::ID, Ordering::SeqCst);
        serve(node).await
    }
    fn bme() -> Bme280 {
        Bme280
    }
    fn sht() -> Sht {
        Sht
    }
    embassy_supervisor::supervisor_graph! {
        node BUS = Terminate, deps: [], task: serve;
        node BME = Terminate, deps: [BUS], task: poll_sensor::<Bme280>(bme());
        node SHT = Terminate, deps: [BUS], task: poll_sensor(sht());
    }
    static SUP: Supervisor<3> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert_eq!(SUM.load(Ordering::SeqCst), 11);
        SUP.teardown().await.unwrap();
        common::pass();
    }
    pub static NODES: [&TaskNode; 3] = [&BUS, &BME, &SHT];
}

#[test]
fn generic_worker_over_driver_types() {
    common::run(&generic::NODES, |s| s.spawn(generic::driver(s).unwrap()));
}

mod resources {
    use super::*;
    #[derive(Debug, PartialEq)]
    pub struct Led(pub u32);
    pub struct Driver(pub u32);
    async fn blink(node: &'static TaskNode, led: &mut Led, drv: Driver, stack: u16) {
        led.0 += 1;
        assert_eq!(drv.0, 7);
        assert_eq!(stack, 99);
        serve(node).await
    }
    embassy_supervisor::supervisor_graph! {
        node BLINK = Terminate, deps: [], task: blink,
            resources: [LED: Led, DRV: consume Driver, STACK: shared u16];
        node OTHER = Terminate, deps: [BLINK], task: other, resources: [STACK: shared u16];
    }
    async fn other(node: &'static TaskNode, stack: u16) {
        assert_eq!(stack, 99);
        serve(node).await
    }
    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        LED.provide(Led(0));
        DRV.provide(Driver(7));
        STACK.provide(99);
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        // lent and consumed values are out of their slots; shared stays.
        assert!(!LED.is_filled() && !DRV.is_filled() && STACK.is_filled());
        SUP.teardown().await.unwrap();
        // lend: restored (the same instance, mutated); consume: dropped.
        assert_eq!(LED.take(), Some(Led(1)));
        LED.provide(Led(1));
        assert!(!DRV.is_filled());
        // A consume slot left empty fails the respawn closed, and the lent
        // value is back in its slot, not lost.
        let started = SUP.start_node(&BLINK, spawner);
        let (r, ()) = embassy_futures::join::join(
            started,
            common::advance_after_idle(embassy_time::Duration::from_secs(1)),
        )
        .await;
        assert!(r.is_err());
        assert!(LED.is_filled() && !BLINK.is_running());
        DRV.provide(Driver(7));
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        SUP.teardown().await.unwrap();
        assert_eq!(LED.take(), Some(Led(2)));
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&BLINK, &OTHER];
}

#[test]
fn resources_handed_over_and_restored() {
    common::run(&resources::NODES, |s| {
        s.spawn(resources::driver(s).unwrap())
    });
}

mod exit {
    use super::*;
    #[derive(Debug, PartialEq)]
    pub struct Outcome(pub u8);
    async fn once(_node: &'static TaskNode) -> Outcome {
        Outcome(42)
    }
    async fn serve_worker(node: &'static TaskNode) -> Result<Outcome, Aborted> {
        node.run_cancellable_acked(core::future::pending::<Outcome>())
            .await
    }
    embassy_supervisor::supervisor_graph! {
        node ONCE = Terminate, deps: [], task: once, exit: Outcome;
        node SERVE = Terminate, deps: [], task: serve_worker, exit: Result<Outcome, Aborted>;
    }
    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        assert_eq!(ONCE_EXIT.wait_take().await, Outcome(42));
        assert!(ONCE.has_exited() && !ONCE.is_running());
        SUP.teardown().await.unwrap();
        assert_eq!(SERVE_EXIT.take(), Some(Err(Aborted)));
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&ONCE, &SERVE];
}

#[test]
fn exit_values_delivered() {
    common::run(&exit::NODES, |s| s.spawn(exit::driver(s).unwrap()));
}

mod cancel {
    use super::*;
    pub static DROPPED: AtomicU32 = AtomicU32::new(0);
    pub struct Uart(pub u32);
    struct Guard;
    impl Drop for Guard {
        fn drop(&mut self) {
            DROPPED.fetch_add(1, Ordering::SeqCst);
        }
    }
    // No node, no handshake: loops forever.
    async fn telemetry(uart: &mut Uart) -> ! {
        let _g = Guard;
        uart.0 += 1;
        core::future::pending().await
    }
    async fn finite(x: u8) -> u8 {
        x * 2
    }
    embassy_supervisor::supervisor_graph! {
        node TELEM = Terminate, deps: [], task: telemetry, cancel,
            resources: [UART: Uart];
        node DONE = Terminate, deps: [], task: finite(21), cancel, exit: u8;
        node STOPPED = Terminate, deps: [], task: never_done, cancel, exit: u8;
    }
    async fn never_done() -> u8 {
        core::future::pending().await
    }
    static SUP: Supervisor<3> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        UART.provide(Uart(0));
        SUP.start(spawner).await.unwrap();
        assert_eq!(DONE_EXIT.wait_take().await, 42);
        common::settle().await;
        assert!(TELEM.is_running() && !UART.is_filled());
        SUP.teardown().await.unwrap();
        // dropped in place: its locals ran their Drop, its resource is back.
        assert_eq!(DROPPED.load(Ordering::SeqCst), 1);
        assert!(TELEM.has_exited());
        assert_eq!(UART.take().map(|u| u.0), Some(1));
        // aborted: no exit value, shutdown was requested.
        assert!(STOPPED_EXIT.take().is_none() && STOPPED.shutdown_requested());
        common::pass();
    }
    pub static NODES: [&TaskNode; 3] = [&TELEM, &DONE, &STOPPED];
}

#[test]
fn cancel_workers_dropped_in_place() {
    common::run(&cancel::NODES, |s| s.spawn(cancel::driver(s).unwrap()));
}

mod parked {
    use super::*;
    embassy_supervisor::supervisor_graph! {
        node SENSOR = Pause, deps: [];
        node READER = Terminate, deps: [SENSOR], task: serve;
    }
    #[embassy_executor::task]
    async fn sensor_task(node: &'static TaskNode, i2c: u32) {
        let bus = i2c;
        loop {
            node.wait_shutdown().await;
            node.ack_dropped();
            node.wait_resume().await;
            assert_eq!(bus, 5);
        }
    }
    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        assert!(!SENSOR.has_spawn());
        spawner.spawn(sensor_task(&SENSOR, 5).unwrap());
        SUP.start(spawner).await.unwrap();
        assert!(SENSOR.is_running() && READER.is_running());
        SUP.teardown().await.unwrap();
        assert!(!SENSOR.is_running() && SENSOR.shutdown_requested());
        SUP.resume_pausable();
        SUP.respawn_terminate(spawner).await.unwrap();
        assert!(SENSOR.is_running() && READER.is_running());
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&SENSOR, &READER];
}

#[test]
fn pause_node_parked_app_spawned() {
    common::run(&parked::NODES, |s| s.spawn(parked::driver(s).unwrap()));
}

mod disabled {
    use super::*;
    embassy_supervisor::supervisor_graph! {
        node NET = Terminate, deps: [], task: serve;
        node UPDATER = Terminate, deps: [NET], task: serve, disabled;
    }
    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        assert!(NET.is_running() && !UPDATER.is_running() && UPDATER.is_disabled());
        SUP.activate(&UPDATER, spawner).await.unwrap();
        assert!(UPDATER.is_running());
        SUP.teardown().await.unwrap();
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&NET, &UPDATER];
}

#[test]
fn control_started_node() {
    common::run(&disabled::NODES, |s| s.spawn(disabled::driver(s).unwrap()));
}

mod detached {
    use super::*;
    pub static LOOPS: AtomicU32 = AtomicU32::new(0);
    embassy_supervisor::supervisor_graph! {
        node LOG_DRAIN = Terminate, deps: [], task: log_drain_worker;
    }
    async fn log_drain_worker(node: &'static embassy_supervisor::TaskNode) {
        node.set_detached(true);
        loop {
            LOOPS.fetch_add(1, Ordering::SeqCst);
            embassy_futures::yield_now().await;
        }
    }
    static SUP: Supervisor<1> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        SUP.teardown().await.unwrap();
        let before = LOOPS.load(Ordering::SeqCst);
        common::settle().await;
        assert!(LOG_DRAIN.is_detached() && LOOPS.load(Ordering::SeqCst) > before);
        common::pass();
    }
    pub static NODES: [&TaskNode; 0] = [];
}

#[test]
fn detached_self_managed_daemon() {
    common::run(&detached::NODES, |s| s.spawn(detached::driver(s).unwrap()));
}

mod tier {
    use super::*;
    embassy_supervisor::supervisor_graph! {
        executor HIGH;
        node SAMPLER = Terminate, deps: [], executor: HIGH, task: serve;
        node LOGGER = Terminate, deps: [SAMPLER], task: serve;
        node REPORT = Terminate, deps: [], executor: HIGH, spawn: report_task(7);
    }
    #[embassy_executor::task]
    async fn report_task(node: &'static TaskNode, epoch: u32) {
        assert_eq!(epoch, 7);
        serve(node).await;
        node.mark_exited();
    }
    static SUP: Supervisor<3> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        // Empty slot: bring-up fails closed after the bounded wait.
        let (r, ()) = embassy_futures::join::join(
            SUP.start(spawner),
            common::advance_after_idle(embassy_time::Duration::from_secs(1)),
        )
        .await;
        assert!(r.is_err() && !SAMPLER.is_running());
        HIGH.set(spawner.make_send());
        SUP.start(spawner).await.unwrap();
        assert!(SAMPLER.is_running() && LOGGER.is_running() && REPORT.is_running());
        SUP.teardown().await.unwrap();
        common::pass();
    }
    pub static NODES: [&TaskNode; 3] = [&SAMPLER, &LOGGER, &REPORT];
}

#[test]
fn interrupt_priority_executor_tier() {
    common::run(&tier::NODES, |s| s.spawn(tier::driver(s).unwrap()));
}

mod closure {
    use super::*;
    use embassy_executor::{SpawnError, Spawner};
    #[embassy_executor::task]
    async fn sensor_task(node: &'static TaskNode, odr: Odr) {
        assert!(matches!(odr, Odr::Hz30));
        serve(node).await;
        node.mark_exited();
    }
    pub enum Odr {
        Hz30,
        Hz8,
    }
    pub fn fast_variant() -> bool {
        true
    }
    // The spec's text verbatim: the body ends in `s.spawn(token)`, a `()`.
    embassy_supervisor::supervisor_graph! {
        node SENSOR = Terminate, deps: [BUS],
            spawn: |s: Spawner| {
                let token = sensor_task(&SENSOR, if fast_variant() { Odr::Hz30 } else { Odr::Hz8 })?;
                SENSOR.adopt(&token); // closures bypass the macro's trace glue — adopt by hand
                s.spawn(token)
            };
        node BUS = Terminate, deps: [], task: serve;
        // An explicit return type is kept as written.
        node TYPED = Terminate, deps: [SENSOR],
            spawn: |s: Spawner| -> Result<(), SpawnError> {
                let token = typed_task(&TYPED)?;
                TYPED.adopt(&token);
                s.spawn(token);
                Ok(())
            };
        // A body whose value is a `Result`: an early refusal is a typed error.
        node REFUSED = OnDemand, deps: [],
            spawn: |s: Spawner| {
                if REFUSE.load(Ordering::SeqCst) {
                    return Err(SpawnError::Busy);
                }
                let token = typed_task(&REFUSED)?;
                REFUSED.adopt(&token);
                s.spawn(token);
                Ok(())
            };
    }
    pub static REFUSE: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(true);
    #[embassy_executor::task(pool_size = 2)]
    async fn typed_task(node: &'static TaskNode) {
        serve(node).await;
        node.mark_exited();
    }
    static SUP: Supervisor<4> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        assert!(BUS.is_running() && SENSOR.is_running() && TYPED.is_running());
        assert!(!REFUSED.is_running());
        let refused = SUP.start_node(&REFUSED, spawner).await;
        let fault = refused.unwrap_err();
        assert_eq!(
            fault,
            embassy_supervisor::NodeFault::new(&REFUSED, embassy_supervisor::FaultKind::SpawnBusy)
        );
        assert_eq!(
            fault.to_string(),
            "node `REFUSED` not spawned: its task pool is busy (SpawnError::Busy)"
        );
        assert!(!REFUSED.is_running());
        REFUSE.store(false, Ordering::SeqCst);
        SUP.start_node(&REFUSED, spawner).await.unwrap();
        assert!(REFUSED.is_running());
        SUP.teardown().await.unwrap();
        assert!(SENSOR.has_exited() && TYPED.has_exited() && REFUSED.has_exited());
        common::pass();
    }
    pub static NODES: [&TaskNode; 4] = [&SENSOR, &BUS, &TYPED, &REFUSED];
}

#[test]
fn closure_spawn_form() {
    common::run(&closure::NODES, |s| s.spawn(closure::driver(s).unwrap()));
}

mod provider {
    use super::*;
    pub struct Runner(pub u8);
    pub static BUILDS: AtomicU32 = AtomicU32::new(0);
    // The provider builds and provide()s, holds nothing afterwards.
    async fn radio_hw(node: &'static TaskNode) {
        common::settle().await; // the build takes a while
        let n = BUILDS.fetch_add(1, Ordering::SeqCst) as u8;
        RUNNER.provide(Runner(n));
        STACK.provide(100 + n as u16);
        node.wait_shutdown().await;
        node.ack_dropped();
    }
    async fn link_worker(node: &'static TaskNode, runner: Runner) {
        assert_eq!(runner.0 as u32 + 1, BUILDS.load(Ordering::SeqCst));
        serve(node).await
    }
    async fn ctrl_worker(node: &'static TaskNode, stack: u16) {
        assert!(stack >= 100);
        serve(node).await
    }
    embassy_supervisor::supervisor_graph! {
        node RADIO_HW = Terminate, deps: [], task: radio_hw;
        node LINK = Terminate, deps: [RADIO_HW], task: link_worker, slot_timeout: 5000,
            resources: [RUNNER: consume Runner];
        node CTRL = Terminate, deps: [RADIO_HW, LINK], task: ctrl_worker, slot_timeout: 5000,
            resources: [STACK: shared u16];
    }
    static SUP: Supervisor<3> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        // start() rendezvouses with the provider's asynchronous provide().
        SUP.start(spawner).await.unwrap();
        assert!(LINK.is_running() && CTRL.is_running());
        SUP.teardown().await.unwrap();
        // consume: dropped at teardown; shared: stays filled.
        assert!(!RUNNER.is_filled() && STACK.is_filled());
        // The wake path: the provider re-runs first and rebuilds.
        SUP.respawn_terminate(spawner).await.unwrap();
        assert_eq!(BUILDS.load(Ordering::SeqCst), 2);
        assert!(LINK.is_running() && CTRL.is_running());
        SUP.teardown().await.unwrap();
        common::pass();
    }
    pub static NODES: [&TaskNode; 3] = [&RADIO_HW, &LINK, &CTRL];
}

#[test]
fn provider_node_rendezvous() {
    common::run(&provider::NODES, |s| s.spawn(provider::driver(s).unwrap()));
}

mod composite {
    use super::*;
    pub static CYCLES: AtomicU32 = AtomicU32::new(0);
    embassy_supervisor::supervisor_graph! {
        executor HIGH;
        node SENSOR = Terminate, deps: [], executor: HIGH, task: serve;
        node NET = Terminate, deps: [], task: serve;
        node UPLOADER = Terminate, deps: [NET, SENSOR], task: serve;
        node STATS = Pause, deps: [], task: stats_worker;
        node POWER = Terminate, deps: [];
    }
    pub static SUP: Supervisor<5> = Supervisor::new(&GRAPH);
    async fn stats_worker(node: &'static TaskNode) {
        loop {
            node.wait_shutdown().await;
            node.ack_dropped();
            node.wait_resume().await;
        }
    }
    #[embassy_executor::task]
    async fn power_task(node: &'static TaskNode, spawner: Spawner) {
        node.set_detached(true);
        SUP.teardown().await.unwrap();
        assert!(!NET.is_running() && !STATS.is_running() && STATS.shutdown_requested());
        SUP.resume_pausable();
        SUP.respawn_terminate(spawner).await.unwrap();
        CYCLES.fetch_add(1, Ordering::SeqCst);
    }
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        HIGH.set(spawner.make_send());
        SUP.start(spawner).await.unwrap();
        spawner.spawn(power_task(&POWER, spawner).unwrap());
        while CYCLES.load(Ordering::SeqCst) == 0 {
            embassy_futures::yield_now().await;
        }
        assert!(SENSOR.is_running() && UPLOADER.is_running() && STATS.is_running());
        assert!(POWER.is_detached());
        SUP.teardown().await.unwrap();
        common::pass();
    }
    pub static NODES: [&TaskNode; 4] = [&SENSOR, &NET, &UPLOADER, &STATS];
}

#[test]
fn composite_tier_parked_diagnostics_power_coordinator() {
    common::run(&composite::NODES, |s| {
        s.spawn(composite::driver(s).unwrap())
    });
}
