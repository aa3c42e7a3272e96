//! The breadcrumb: each node's last driven phase and the packed word naming
//! the binary's last transition, read while a verb is still in flight (a
//! bring-up parked on a gate, a stop waiting for an ack that never comes), as
//! a watchdog reset would find them.
#![cfg(feature = "breadcrumb")]

mod common;

use embassy_executor::{SpawnError, Spawner};
use embassy_futures::join::join;
use embassy_supervisor::breadcrumb::{self, Breadcrumb};
use embassy_supervisor::{Gate, Graph, Mode, NodeSpec, Phase, ResourceSlot, Supervisor, TaskNode};
use embassy_time::Duration;

/// Stops by parking: acks, then waits to be resumed.
#[embassy_executor::task]
async fn pausable(node: &'static TaskNode) {
    loop {
        let _ = node.run_cancellable(core::future::pending::<()>()).await;
        node.ack_dropped();
        node.wait_resume().await;
    }
}

/// Sees its stop and never acks it.
#[embassy_executor::task]
async fn wedged(node: &'static TaskNode) {
    node.wait_shutdown().await;
    core::future::pending::<()>().await
}

fn spawn_pausable(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(pausable(node)?);
    Ok(())
}

fn spawn_wedged(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
    s.spawn(wedged(node)?);
    Ok(())
}

/// SENSOR's gate: empty until the script provides it.
static CALIB: ResourceSlot<u32> = ResourceSlot::new();

static NET: TaskNode = TaskNode::new(
    &NodeSpec::new("NET", Mode::Terminate)
        .with_spawn(common::spawn_worker)
        .at(0),
);
static SENSOR: TaskNode = TaskNode::new(
    &NodeSpec::new("SENSOR", Mode::Pause)
        .with_spawn(spawn_pausable)
        .with_resources(&[&CALIB as &dyn Gate])
        .with_slot_timeout(10)
        .at(1),
);
static WEDGE: TaskNode = TaskNode::new(
    &NodeSpec::new("WEDGE", Mode::OnDemand)
        .with_spawn(spawn_wedged)
        .at(2),
);
/// Unrelated to the others: started while SENSOR waits.
static SIDE: TaskNode = TaskNode::new(
    &NodeSpec::new("SIDE", Mode::OnDemand)
        .with_spawn(common::spawn_worker)
        .at(3),
);
static GRAPH: Graph<4> = Graph::new(
    [Some(&NET), Some(&SENSOR), Some(&WEDGE), Some(&SIDE)],
    [&[], &[0], &[], &[]],
);
static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

/// The word names `node` (by slot) in `phase`, and so does the node itself.
fn at(node: &'static TaskNode, phase: Phase) {
    // Decoded from the raw word, as after a reset from a stashed copy.
    let crumb = Breadcrumb::decode(breadcrumb::word()).expect("a transition was recorded");
    assert_eq!(Breadcrumb::last(), Some(crumb));
    assert_eq!(
        (crumb.node(&GRAPH).map(|n| n.name), crumb.phase),
        (Some(node.name), phase)
    );
    assert_eq!(node.last_phase(), phase, "`{}`'s own crumb", node.name);
}

#[embassy_executor::task]
async fn script(spawner: Spawner) {
    for n in [&NET, &SENSOR, &WEDGE] {
        assert_eq!(n.last_phase(), Phase::Idle, "nothing driven yet");
    }
    // Bring-up parks on SENSOR's empty gate: the word names it, Spawning,
    // while the verb is still in flight; NET was started before it.
    let (started, ()) = join(SUP.start(spawner), async {
        common::settle().await;
        at(&SENSOR, Phase::Spawning);
        assert_eq!(NET.last_phase(), Phase::Started);
        // An unrelated node settling meanwhile (as a wave's would) does not
        // hide the one still waiting.
        SUP.start_node(&SIDE, spawner).await.unwrap();
        assert_eq!(SIDE.last_phase(), Phase::Started);
        at(&SENSOR, Phase::Spawning);
        common::advance(Duration::from_millis(10));
    })
    .await;
    assert!(started.is_err());
    at(&SENSOR, Phase::SpawnFailed);

    CALIB.provide(7);
    SUP.start(spawner).await.unwrap();
    at(&SENSOR, Phase::Started);
    // A pause: Stopping while the ack is awaited, Stopped once it came.
    SUP.stop_node(&SENSOR).await.unwrap();
    at(&SENSOR, Phase::Stopped);
    SUP.resume_node(&SENSOR);
    at(&SENSOR, Phase::Resumed);

    // A stop that never gets its ack: Stopping for the whole wait (what a
    // watchdog firing before SHUTDOWN_ACK_TIMEOUT would find), then
    // StopTimedOut.
    SUP.start_node(&WEDGE, spawner).await.unwrap();
    at(&WEDGE, Phase::Started);
    let (stopped, ()) = join(SUP.stop_node(&WEDGE), async {
        common::settle().await;
        at(&WEDGE, Phase::Stopping);
        common::advance(embassy_supervisor::SHUTDOWN_ACK_TIMEOUT);
    })
    .await;
    assert!(stopped.is_err());
    at(&WEDGE, Phase::StopTimedOut);

    // A Terminate worker acks and then returns: its last phase is Exited.
    SUP.stop_node(&NET).await.unwrap();
    at(&NET, Phase::Exited);
    // The others keep theirs: a post-mortem dump reads every node.
    assert_eq!(SENSOR.last_phase(), Phase::Resumed);
    assert_eq!(WEDGE.last_phase(), Phase::StopTimedOut);
    SUP.stop_node(&SIDE).await.unwrap();
    common::pass();
}

#[test]
fn breadcrumb_names_the_node_and_phase_a_verb_is_stuck_in() {
    common::run(&[&NET, &SENSOR, &WEDGE, &SIDE], |s| {
        s.spawn(script(s).unwrap())
    });
}

#[test]
fn word_round_trips_and_rejects_what_is_not_a_breadcrumb() {
    for slot in [0u8, 1, 200, 255] {
        for code in 0..=u8::MAX {
            let Some(phase) = Phase::from_u8(code) else {
                continue;
            };
            let crumb = Breadcrumb { slot, phase };
            assert_eq!(Breadcrumb::decode(crumb.to_word()), Some(crumb));
        }
    }
    // Never written (a fresh run), and typical garbage of uninitialised RAM.
    for junk in [0, u32::MAX, 0xDEAD_BEEF, 0x0000_0102] {
        assert_eq!(Breadcrumb::decode(junk), None, "{junk:#x}");
    }
    // The tag right, the phase unknown.
    let valid = Breadcrumb {
        slot: 3,
        phase: Phase::Started,
    }
    .to_word();
    assert_eq!(Breadcrumb::decode((valid & !0xFF) | 0xFF), None);
    // Every code decodes to the phase with that code, and only those do.
    let known: Vec<_> = (0..=u8::MAX).filter_map(Phase::from_u8).collect();
    assert_eq!(known.len(), 9);
    for (code, p) in known.iter().enumerate() {
        assert_eq!(*p as usize, code);
    }
}

/// A teardown hung on one node while unrelated nodes stop around it, and
/// bring-ups dropped mid-wait: the word names the oldest wait still in
/// flight, and a wait that is gone stands for nothing.
mod in_flight {
    use super::*;
    use embassy_futures::select::select;
    use embassy_supervisor::{FaultKind, NodeFault};

    static NEVER: ResourceSlot<u32> = ResourceSlot::new();

    /// Sees its stop and never acks it (a task of its own: the first
    /// test's wedged instance keeps `wedged`'s one slot).
    #[embassy_executor::task]
    async fn hangs(node: &'static TaskNode) {
        node.wait_shutdown().await;
        core::future::pending::<()>().await
    }

    fn spawn_hangs(node: &'static TaskNode, s: Spawner) -> Result<(), SpawnError> {
        s.spawn(hangs(node)?);
        Ok(())
    }

    static FREE: TaskNode = TaskNode::new(
        &NodeSpec::new("FREE", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .at(0),
    );
    static BASE: TaskNode = TaskNode::new(
        &NodeSpec::new("BASE", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .at(1),
    );
    /// Depends on BASE, never acks.
    static WEDGE: TaskNode = TaskNode::new(
        &NodeSpec::new("WEDGE", Mode::Terminate)
            .with_spawn(spawn_hangs)
            .with_ack_timeout(1000)
            .at(2),
    );
    static FREE2: TaskNode = TaskNode::new(
        &NodeSpec::new("FREE2", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .at(3),
    );
    /// Its slot is never filled: a bring-up of it waits.
    static GATED: TaskNode = TaskNode::new(
        &NodeSpec::new("GATED", Mode::Terminate)
            .with_spawn(common::spawn_worker)
            .with_resources(&[&NEVER as &dyn Gate])
            .with_slot_timeout(10)
            .at(4),
    );
    static GRAPH: Graph<5> = Graph::new(
        [Some(&FREE), Some(&BASE), Some(&WEDGE), Some(&FREE2), None],
        [&[], &[], &[1], &[], &[]],
    );
    static SUP: Supervisor<5> = Supervisor::new(&GRAPH);
    /// GATED in a graph of its own slot, so `start` waits on it.
    static GATED_GRAPH: Graph<5> = Graph::new(
        [Some(&FREE), None, None, None, Some(&GATED)],
        [&[], &[], &[], &[], &[]],
    );
    static GATED_SUP: Supervisor<5> = Supervisor::new(&GATED_GRAPH);

    /// The word names `node` in `phase`.
    fn word_is(node: &'static TaskNode, phase: Phase) {
        let crumb = Breadcrumb::decode(breadcrumb::word()).expect("a transition was recorded");
        let named = GRAPH
            .node(crumb.slot as usize)
            .or(GATED_GRAPH.node(crumb.slot as usize));
        assert_eq!(
            (named.map(|n| n.name), crumb.phase),
            (Some(node.name), phase)
        );
    }

    #[embassy_executor::task]
    pub async fn script(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        let (torn, ()) = join(SUP.teardown(), async {
            common::settle().await;
            // What a watchdog firing 300 ms into the teardown finds: FREE and
            // FREE2 stopped and exited after WEDGE was asked, WEDGE still
            // waits for its ack.
            common::advance(Duration::from_millis(300));
            common::settle().await;
            assert!(FREE.has_exited() && FREE2.has_exited());
            word_is(&WEDGE, Phase::Stopping);
            common::advance(Duration::from_millis(1000));
        })
        .await;
        assert_eq!(torn, Err(NodeFault::new(&WEDGE, FaultKind::AckMissed)));
        word_is(&WEDGE, Phase::StopTimedOut);

        // A bring-up dropped while it waits for GATED's gate leaves no wait
        // behind: the next transition is the word.
        let _ = select(GATED_SUP.start_node(&GATED, spawner), common::settle()).await;
        assert_eq!(GATED.last_phase(), Phase::Spawning);
        GATED_SUP.start_node(&FREE, spawner).await.unwrap();
        word_is(&FREE, Phase::Started);
        // The same for a bring-up wave dropped with GATED waiting in it.
        SUP.stop_node(&FREE).await.unwrap();
        let _ = select(GATED_SUP.start(spawner), common::settle()).await;
        assert!(FREE.is_running() && GATED.last_phase() == Phase::Spawning);
        GATED_SUP.stop_node(&FREE).await.unwrap();
        word_is(&FREE, Phase::Exited);
        common::pass();
    }

    pub static NODES: [&TaskNode; 5] = [&FREE, &BASE, &WEDGE, &FREE2, &GATED];
}

#[test]
fn the_word_names_the_oldest_wait_in_flight() {
    common::run(&in_flight::NODES, |s| {
        s.spawn(in_flight::script(s).unwrap())
    });
}
