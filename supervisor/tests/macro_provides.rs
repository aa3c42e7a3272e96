//! `provides: [SLOT, ..]` (issue 13, item 5): a provider node's stop clears
//! the `shared` slots it filled, so a consumer's next spawn waits for the
//! fresh value instead of restarting on the stale one.
#![cfg(feature = "macros")]
mod common;

use core::sync::atomic::{AtomicU32, Ordering};

use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode};

/// The handle MODEM publishes on each activation.
static NEXT: AtomicU32 = AtomicU32::new(7);
/// The handle APP received last.
static SEEN: AtomicU32 = AtomicU32::new(0);

async fn modem(node: &'static TaskNode) {
    HANDLE.provide(NEXT.fetch_add(1, Ordering::SeqCst));
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
}

async fn app(node: &'static TaskNode, handle: u32) {
    SEEN.store(handle, Ordering::SeqCst);
    let _ = node
        .run_cancellable_acked(core::future::pending::<()>())
        .await;
}

embassy_supervisor::supervisor_graph! {
    // Declared before the consumer that declares the shared slot.
    node MODEM = Terminate, deps: [], task: modem, provides: [HANDLE];
    node APP = Terminate, deps: [MODEM], task: app, resources: [HANDLE: shared u32];
}

static SUP: Supervisor<2> = Supervisor::new(&GRAPH);

#[embassy_executor::task]
async fn driver(spawner: Spawner) {
    SUP.start(spawner).await.unwrap();
    common::settle().await;
    assert!(MODEM.is_running() && APP.is_running());
    assert_eq!(SEEN.load(Ordering::SeqCst), 7);
    SUP.teardown().await.unwrap();
    // MODEM's stop withdrew its handle.
    assert!(!HANDLE.is_filled());
    SUP.respawn_terminate(spawner).await.unwrap();
    common::settle().await;
    // APP waited for the fresh handle, not the one of the stopped MODEM.
    assert_eq!(SEEN.load(Ordering::SeqCst), 8);
    SUP.teardown().await.unwrap();
    common::pass();
}

#[test]
fn a_provider_stop_clears_its_slot_and_the_consumer_gets_the_fresh_value() {
    common::run(&[&MODEM, &APP], |s| s.spawn(driver(s).unwrap()));
}
