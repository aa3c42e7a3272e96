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
//!
//! With feature `fault-inject` the kit also drives the runtime's own
//! injection: `inject` sets a `Fault` on a node, acted out by its
//! generated task shell or the kit's [`worker`](crate::worker) (a stall, a
//! wedged stop, a crash, a hogged poll), and lifted with the rest by
//! [`clear`] and at the start of every [`run`](crate::run). Use
//! `inject(node, Fault::Wedge)` where a task is not the kit's worker;
//! [`ignore_stop`] stays the kit worker's own form, which also logs
//! [`Event::IgnoredStop`].

use std::sync::Mutex;

use embassy_executor::SpawnError;
use embassy_supervisor::{ResourceSlot, TaskNode};

use crate::log::{Event, record, record_named};

#[cfg(feature = "fault-inject")]
pub use embassy_supervisor::{Fault, NoFaultShell};

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
/// supervisor as a `NodeFault` of kind `AckMissed` naming it.
pub fn ignore_stop(node: &'static TaskNode) {
    set(addr(node), Kind::IgnoreStop);
}

/// From now on every spawn of `node` fails with `SpawnError::Busy` (the
/// supervisor reports a `SpawnBusy` fault naming it; a refused bring-up logs
/// two refusals: the supervisor retries a `Busy` spawn once, after one
/// executor pass).
pub fn refuse_spawn(node: &'static TaskNode) {
    set(addr(node), Kind::RefuseSpawn);
}

/// From now on [`provide`] into `slot` does nothing: a node gated on it
/// fails its bring-up at its slot timeout (a `ResourceEmpty` fault naming
/// the node and the slot's position).
pub fn withhold<T: Send>(slot: &'static ResourceSlot<T>) {
    set(addr(slot), Kind::Withhold);
}

/// Nodes given a [`Fault`] through [`inject`], for [`clear`] to lift.
#[cfg(feature = "fault-inject")]
static INJECTED: Mutex<Vec<&'static TaskNode>> = Mutex::new(Vec::new());

/// From now on `node`'s task acts out `fault` (`TaskNode::inject`), until
/// [`clear`] (or `node.clear_fault()`). A hand-built node spawned by
/// [`spawn_worker`](crate::spawn_worker) needs
/// `NodeSpec::with_fault_shell()`: `Err(NoFaultShell)` otherwise.
#[cfg(feature = "fault-inject")]
pub fn inject(node: &'static TaskNode, fault: Fault) -> Result<(), NoFaultShell> {
    node.inject(fault)?;
    let mut nodes = INJECTED.lock().unwrap_or_else(|p| p.into_inner());
    if !nodes.iter().any(|n| core::ptr::eq(*n, node)) {
        nodes.push(node);
    }
    Ok(())
}

/// Lift every fault (with feature `fault-inject`, also those set through
/// `inject`).
pub fn clear() {
    table().clear();
    #[cfg(feature = "fault-inject")]
    for node in INJECTED.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
        node.clear_fault();
    }
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
