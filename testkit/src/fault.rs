//! Test-side fault injection: make a node ignore its stop, refuse its spawn,
//! or withhold a resource so its gate never opens.
//!
//! The mechanism is a table of faults keyed by node (or resource) address,
//! set by the test and read at three points: [`serve`](crate::serve) and
//! [`worker`](crate::worker) before acking a stop, [`spawn_worker`](crate::spawn_worker)
//! before spawning, and [`provide`] before filling a slot. Your own task and
//! spawn fns opt in by calling [`before_ack`] and [`spawn_allowed`] at those
//! points. Nothing in the runtime changes: what the supervisor sees is
//! exactly what a real wedged task, refused spawn or missing peripheral
//! looks like. Each [`run`](crate::run) starts with no faults.

use std::sync::Mutex;

use embassy_executor::SpawnError;
use embassy_supervisor::{ResourceSlot, TaskNode};

use crate::log::{Event, record, record_named};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    IgnoreStop,
    RefuseSpawn,
    Withhold,
}

static FAULTS: Mutex<Vec<(usize, Kind)>> = Mutex::new(Vec::new());

fn table() -> std::sync::MutexGuard<'static, Vec<(usize, Kind)>> {
    FAULTS.lock().unwrap_or_else(|p| p.into_inner())
}

fn addr<T>(x: &T) -> usize {
    x as *const T as usize
}

fn set(at: usize, kind: Kind) {
    let mut t = table();
    if !t.contains(&(at, kind)) {
        t.push((at, kind));
    }
}

fn has(at: usize, kind: Kind) -> bool {
    table().contains(&(at, kind))
}

/// From now on `node` never acks a stop: its next stop comes back from the
/// supervisor as a `ShutdownTimeout` naming it.
pub fn ignore_stop(node: &'static TaskNode) {
    set(addr(node), Kind::IgnoreStop);
}

/// From now on every spawn of `node` fails with `SpawnError::Busy` (a
/// refused bring-up logs two refusals: the supervisor retries a `Busy` spawn
/// once, after one executor pass).
pub fn refuse_spawn(node: &'static TaskNode) {
    set(addr(node), Kind::RefuseSpawn);
}

/// From now on [`provide`] into `slot` does nothing: a node gated on it
/// fails its spawn with `SpawnError::Busy` at its slot timeout.
pub fn withhold<T: Send>(slot: &'static ResourceSlot<T>) {
    set(addr(slot), Kind::Withhold);
}

/// Lift every fault.
pub fn clear() {
    table().clear();
}

/// Call in a spawn fn before spawning: `Err(Busy)` (and a
/// [`Event::Refused`] log entry) if `node` was set to [`refuse_spawn`].
pub fn spawn_allowed(node: &'static TaskNode) -> Result<(), SpawnError> {
    if has(addr(node), Kind::RefuseSpawn) {
        record(node, Event::Refused);
        return Err(SpawnError::Busy);
    }
    Ok(())
}

/// Await in a task after it saw a stop and before it acks: never returns
/// (and logs [`Event::IgnoredStop`]) if `node` was set to [`ignore_stop`].
pub async fn before_ack(node: &'static TaskNode) {
    if has(addr(node), Kind::IgnoreStop) {
        record(node, Event::IgnoredStop);
        core::future::pending::<()>().await;
    }
}

/// `slot.provide(value)`, unless the slot was set to [`withhold`] (then the
/// value is dropped and [`Event::Withheld`] logged under `label`).
pub fn provide<T: Send>(slot: &'static ResourceSlot<T>, label: &'static str, value: T) {
    if has(addr(slot), Kind::Withhold) {
        record_named(label, Event::Withheld);
        return;
    }
    slot.provide(value);
}
