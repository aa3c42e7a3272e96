//! `enabled_if:` (feature `enabled-if`): `start()` asks each down node's
//! predicate and latches `disabled` on a no; `start_node` and `activate`
//! start it anyway; a human's `deactivate` is not lifted by `start_node`, and
//! a yes never clears a latch.
#![cfg(all(feature = "macros", feature = "enabled-if"))]
mod common;

use core::sync::atomic::{AtomicBool, Ordering};

use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode};

async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

static RADIO_ON: AtomicBool = AtomicBool::new(false);

fn radio_on() -> bool {
    RADIO_ON.load(Ordering::SeqCst)
}

fn always() -> bool {
    true
}

embassy_supervisor::supervisor_graph! {
    node RADIO = Terminate, task: serve, enabled_if: radio_on;
    node SENSOR = Terminate, task: serve, enabled_if: crate::always;
    // The gate is off: the clause (and its undefined fn) is not compiled in.
    node GATED = Terminate, task: serve, #[cfg(any())] enabled_if: not_defined_anywhere;
    node PLAIN = Terminate, task: serve;
}

static SUP: Supervisor<4> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    // A no at start(): latched, down; the others start.
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    assert!(RADIO.is_disabled() && !RADIO.is_running());
    assert!(SENSOR.is_running() && GATED.is_running() && PLAIN.is_running());

    // start_node lifts the predicate's latch.
    SUP.start_node(&RADIO, spawner).await.unwrap();
    assert!(RADIO.is_running() && !RADIO.is_disabled());

    // A human's latch: start() with the predicate now saying yes keeps it,
    // and start_node refuses it, as for any deactivated node.
    SUP.deactivate(&RADIO).await.unwrap();
    RADIO_ON.store(true, Ordering::SeqCst);
    SUP.start(spawner).await.unwrap();
    assert!(RADIO.is_disabled() && !RADIO.is_running());
    assert_eq!(
        SUP.start_node(&RADIO, spawner).await.unwrap_err().kind,
        embassy_supervisor::FaultKind::Refused(embassy_supervisor::Refusal::Disabled)
    );

    // activate clears any latch; a later no at start() leaves a running node be.
    SUP.activate(&RADIO, spawner).await.unwrap();
    assert!(RADIO.is_running() && !RADIO.is_disabled());
    RADIO_ON.store(false, Ordering::SeqCst);
    SUP.start(spawner).await.unwrap();
    assert!(RADIO.is_running() && !RADIO.is_disabled());

    // Down again with the predicate saying no: latched again by start().
    SUP.teardown().await.unwrap();
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    assert!(RADIO.is_disabled() && !RADIO.is_running() && SENSOR.is_running());
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn start_latches_a_no_and_the_verbs_override_it() {
    common::run(&[&RADIO, &SENSOR, &GATED, &PLAIN], |s| {
        s.spawn(driver(s).unwrap())
    });
}
