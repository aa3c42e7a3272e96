//! A provider's slots are emptied when its instance ends
//! (`NodeSpec::with_provides`), so a consumer's next spawn waits for the
//! fresh value instead of restarting on the stale one. A `Pause` provider
//! keeps them while parked.
mod common;

use std::sync::Mutex;

use embassy_executor::{SpawnError, Spawner};
use embassy_supervisor::{
    Gate, Graph, Mode, NodeSpec, Provided, ResourceSlot, Supervisor, TaskNode,
};
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::signal::Signal;

/// The handle the provider publishes (a generation number here).
static HANDLE: ResourceSlot<u32> = ResourceSlot::new();
/// The generation the provider's next instance publishes, when signalled.
static PUBLISH: Signal<CriticalSectionRawMutex, u32> = Signal::new();
/// The handle each consumer spawn received.
static SEEN: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Makes the provider's body return on its own.
static QUIT: Signal<CriticalSectionRawMutex, ()> = Signal::new();

/// Publishes a handle when told to (a driver that takes a while to come up),
/// then serves until stopped or told to quit.
#[embassy_executor::task]
async fn provider(node: &'static TaskNode) {
    let generation = PUBLISH.wait().await;
    HANDLE.provide(generation);
    let _ = node.run_cancellable_acked(QUIT.wait()).await;
    node.mark_exited();
}

fn spawn_provider(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(provider(node)?);
    Ok(())
}

/// Reads the shared handle at spawn (the `shared` kind copies it out).
fn spawn_consumer(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    let handle = HANDLE.get().ok_or(SpawnError::Busy)?;
    SEEN.lock().unwrap().push(handle);
    common::spawn_worker(node, s)
}

static PROV: TaskNode = TaskNode::new(
    &NodeSpec::new("PROV", Mode::Terminate)
        .with_spawn(spawn_provider)
        .with_provides(&[&HANDLE as &dyn Provided])
        .at(0),
);
static CONS: TaskNode = TaskNode::new(
    &NodeSpec::new("CONS", Mode::Terminate)
        .with_spawn(spawn_consumer)
        .with_resources(&[&HANDLE as &dyn Gate])
        .with_slot_timeout(5000)
        .at(1),
);
static GRAPH: Graph<2> = Graph::new([Some(&PROV), Some(&CONS)], [&[], &[0]]);
static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

#[test]
fn a_consumer_restarts_on_the_fresh_handle_not_the_stale_one() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        let start = SUP.start(s);
        let publish = async {
            common::settle().await;
            assert!(!CONS.is_running(), "CONS waits for the first handle");
            PUBLISH.signal(1);
        };
        let (r, ()) = embassy_futures::join::join(start, publish).await;
        r.unwrap();
        assert!(CONS.is_running());

        SUP.teardown().await.unwrap();
        assert!(
            !HANDLE.is_filled(),
            "PROV's instance ended: its handle is gone"
        );

        // The next instance publishes a while after it is up: CONS waits.
        let start = SUP.start(s);
        let publish = async {
            common::settle().await;
            assert!(PROV.is_running() && !CONS.is_running(), "no stale restart");
            PUBLISH.signal(2);
        };
        let (r, ()) = embassy_futures::join::join(start, publish).await;
        r.unwrap();
        assert_eq!(*SEEN.lock().unwrap(), [1, 2], "CONS got each fresh handle");

        // A body that returns on its own withdraws as well.
        SUP.stop_node(&CONS).await.unwrap();
        assert!(HANDLE.is_filled());
        QUIT.signal(());
        common::settle().await;
        assert!(!PROV.is_running() && PROV.has_exited());
        assert!(!HANDLE.is_filled());
        SUP.teardown().await.unwrap();
        common::pass();
    }
    common::run(&[&PROV, &CONS], |s| s.spawn(drive(s).unwrap()));
}

// ---- a Pause provider keeps its handle while parked -------------------------

static KEPT: ResourceSlot<u32> = ResourceSlot::new();

#[embassy_executor::task]
async fn pause_provider(node: &'static TaskNode) {
    KEPT.provide(7);
    loop {
        node.wait_shutdown().await;
        node.ack_dropped();
        node.wait_resume().await;
    }
}

fn spawn_pause_provider(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(pause_provider(node)?);
    Ok(())
}

static PAUSER: TaskNode = TaskNode::new(
    &NodeSpec::new("PAUSER", Mode::Pause)
        .with_spawn(spawn_pause_provider)
        .with_provides(&[&KEPT as &dyn Provided])
        .at(0),
);
static P_GRAPH: Graph<1> = Graph::new([Some(&PAUSER)], [&[]]);
static P_SUP: Supervisor<1> = Supervisor::new(&P_GRAPH);

#[test]
fn a_parked_pause_provider_keeps_what_it_provided() {
    #[embassy_executor::task]
    async fn drive(s: Spawner) {
        P_SUP.start(s).await.unwrap();
        common::settle().await;
        assert_eq!(KEPT.get(), Some(7));
        P_SUP.teardown().await.unwrap();
        assert_eq!(
            KEPT.get(),
            Some(7),
            "parked, not ended: it resumes in place"
        );
        P_SUP.start(s).await.unwrap();
        common::settle().await;
        assert!(PAUSER.is_running());
        assert_eq!(KEPT.get(), Some(7));
        common::pass();
    }
    common::run(&[&PAUSER], |s| s.spawn(drive(s).unwrap()));
}
