//! The kit's own promises: the log records the lifecycle in order, each
//! injected fault comes back from the supervisor as the typed outcome a real
//! one would, and `wait_until` reports a condition that never holds.

use embassy_executor::Spawner;
use embassy_futures::join::join;
use embassy_supervisor::{
    FaultKind, Gate, Graph, Mode, NodeFault, NodeSpec, ResourceSlot, SHUTDOWN_ACK_TIMEOUT,
    Supervisor, TaskNode,
};
use embassy_supervisor_testkit::{self as kit, Event, TimedOut, fault};
use embassy_time::Duration;

/// Statics outlive a test, so each test stamps its own graph: RADIO gates
/// NET; APP depends on NET and the Pause node SENSOR.
macro_rules! graph {
    () => {
        static RADIO: ResourceSlot<u32> = ResourceSlot::new();
        static NET: TaskNode = TaskNode::new(
            &NodeSpec::new("NET", Mode::Terminate)
                .with_spawn(kit::spawn_worker)
                .with_resources(&[&RADIO as &dyn Gate])
                .with_slot_timeout(50)
                .at(0),
        );
        static SENSOR: TaskNode = TaskNode::new(
            &NodeSpec::new("SENSOR", Mode::Pause)
                .with_spawn(kit::spawn_worker)
                .at(1),
        );
        static APP: TaskNode = TaskNode::new(
            &NodeSpec::new("APP", Mode::Terminate)
                .with_spawn(kit::spawn_worker)
                .at(2),
        );
        static G: Graph<3> =
            Graph::new([Some(&NET), Some(&SENSOR), Some(&APP)], [&[], &[], &[0, 1]]);
        static SUP: Supervisor<3> = Supervisor::new(&G);
    };
}

mod lifecycle_in_order {
    use super::*;
    graph!();

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        fault::provide(&RADIO, "RADIO", 7);
        SUP.start(spawner).await.unwrap();
        assert_eq!(kit::log::order(Event::Spawned), ["NET", "SENSOR", "APP"]);
        SUP.teardown().await.unwrap();
        assert_eq!(kit::log::order(Event::Acked), ["APP", "SENSOR", "NET"]);
        kit::log::clear();
        fault::provide(&RADIO, "RADIO", 7);
        SUP.start(spawner).await.unwrap();
        kit::settle().await;
        // SENSOR was parked, not respawned: it resumed in place.
        assert_eq!(kit::log::order(Event::Spawned), ["NET", "APP"]);
        assert_eq!(kit::log::order(Event::Resumed), ["SENSOR"]);
        assert_eq!(kit::log::count(&SENSOR, Event::Started), 0);
        kit::pass();
    }

    pub fn run() {
        kit::run(&kit::nodes_of(&G), |s| s.spawn(driver(s).unwrap()));
    }
}

#[test]
fn the_log_records_the_lifecycle_in_order() {
    lifecycle_in_order::run();
}

mod faults {
    use super::*;
    graph!();

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        // A refused spawn is the spawn's error; nothing that depends on it starts.
        fault::provide(&RADIO, "RADIO", 7);
        fault::refuse_spawn(&SENSOR);
        assert_eq!(
            SUP.start(spawner).await,
            Err(NodeFault::new(&SENSOR, FaultKind::SpawnBusy))
        );
        // Refused twice: the spawn and the supervisor's one retry of a `Busy`.
        assert_eq!(kit::log::order(Event::Refused), ["SENSOR", "SENSOR"]);
        assert!(!APP.is_running());
        fault::clear();
        SUP.start(spawner).await.unwrap();

        // An ignored stop is an `AckMissed` fault naming the node.
        fault::ignore_stop(&APP);
        let (r, ()) = join(
            SUP.teardown(),
            kit::advance_after_idle(SHUTDOWN_ACK_TIMEOUT),
        )
        .await;
        assert_eq!(r, Err(NodeFault::new(&APP, FaultKind::AckMissed)));
        assert_eq!(kit::log::order(Event::IgnoredStop), ["APP"]);
        kit::pass();
    }

    pub fn run() {
        kit::run(&kit::nodes_of(&G), |s| s.spawn(driver(s).unwrap()));
    }
}

#[test]
fn faults_come_back_as_typed_outcomes() {
    faults::run();
}

mod withheld {
    use super::*;
    graph!();

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        // A withheld resource keeps the gate shut: the slot is named at the
        // slot timeout.
        fault::withhold(&RADIO);
        fault::provide(&RADIO, "RADIO", 7);
        assert_eq!(kit::log::order(Event::Withheld), ["RADIO"]);
        let (r, ()) = join(
            SUP.start(spawner),
            kit::advance_after_idle(Duration::from_millis(51)),
        )
        .await;
        assert_eq!(
            r,
            Err(NodeFault::new(&NET, FaultKind::ResourceEmpty { gate: 0 }))
        );
        assert!(!NET.is_running());

        // wait_until reports a condition that never holds, with the time waited.
        let r = kit::wait_until(|| NET.is_running(), Duration::from_millis(20)).await;
        assert_eq!(
            r,
            Err(TimedOut {
                waited: Duration::from_millis(20)
            })
        );
        kit::pass();
    }

    pub fn run() {
        kit::run(&kit::nodes_of(&G), |s| s.spawn(driver(s).unwrap()));
    }
}

#[test]
fn withheld_resource_and_wait_until_timeout() {
    withheld::run();
}
