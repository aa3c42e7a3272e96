//! A dependent never starts without its dependency, also when that
//! dependency is down because it is declared `disabled` or latched off by its
//! `enabled_if:` predicate: `start()` gives the dependents the collateral
//! hold a `deactivate` gives, and `activate` of the dependency releases it
//! and brings them up.
#![cfg(feature = "macros")]
mod common;

use embassy_executor::Spawner;
use embassy_supervisor::{FaultKind, Refusal, Supervisor, TaskNode, supervisor_graph};

async fn serve(node: &'static TaskNode) {
    common::serve(node).await
}

#[cfg(feature = "enabled-if")]
fn radio_allowed() -> bool {
    false
}

supervisor_graph! {
    node DEP = Terminate, task: serve, disabled;
    node APP = Terminate, deps: [DEP], task: serve;
    node LEAF = Terminate, deps: [APP], task: serve;
    node FREE = Terminate, task: serve;
    // Declared disabled itself, under a disabled dependency: its own latch
    // stays when the dependency comes back.
    node OWN = Terminate, deps: [DEP], task: serve, disabled;
}

static SUP: Supervisor<5> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn declared(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    assert!(FREE.is_running(), "an unrelated node comes up");
    assert!(!DEP.is_running() && DEP.is_disabled());
    for n in [&APP, &LEAF] {
        assert!(
            !n.is_running(),
            "`{}` started without its dependency",
            n.name
        );
        assert!(n.is_held(), "`{}` takes the collateral hold", n.name);
    }
    // The hold is honoured like a deactivate's: `start_node` refuses it,
    // and a second `start` leaves it.
    assert_eq!(
        SUP.start_node(&APP, spawner).await.unwrap_err().kind,
        FaultKind::Refused(Refusal::Held)
    );
    SUP.start(spawner).await.unwrap();
    assert!(!APP.is_running() && !LEAF.is_running());

    // Activating the dependency releases the hold and brings the dependents
    // up; a dependent's own latch stays.
    SUP.activate(&DEP, spawner).await.unwrap();
    common::settle().await;
    assert!(DEP.is_running() && APP.is_running() && LEAF.is_running());
    assert!(!APP.is_held() && !LEAF.is_held());
    assert!(!OWN.is_running() && OWN.is_disabled());
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn start_holds_the_dependents_of_a_declared_disabled_node() {
    common::run(&[&DEP, &APP, &LEAF, &FREE, &OWN], |s| {
        s.spawn(declared(s).unwrap())
    });
}

#[cfg(feature = "enabled-if")]
mod gated {
    use super::*;

    supervisor_graph! {
        node RADIO = Terminate, task: serve, enabled_if: crate::radio_allowed;
        node UPLINK = Terminate, deps: [RADIO], task: serve;
    }

    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert!(RADIO.is_disabled() && !RADIO.is_running());
        assert!(!UPLINK.is_running(), "UPLINK started without RADIO");
        assert!(UPLINK.is_held());
        SUP.activate(&RADIO, spawner).await.unwrap();
        common::settle().await;
        assert!(RADIO.is_running() && UPLINK.is_running() && !UPLINK.is_held());
        SUP.teardown().await.unwrap();
        common::pass();
    }

    pub static NODES: [&TaskNode; 2] = [&RADIO, &UPLINK];
}

#[cfg(feature = "enabled-if")]
#[test]
fn start_holds_the_dependents_of_a_node_its_predicate_latched() {
    common::run(&gated::NODES, |s| s.spawn(gated::driver(s).unwrap()));
}
