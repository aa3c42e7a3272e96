//! The recorded lifecycle log: what the kit's workers (and your tasks, through
//! [`record`]) did, in order, with the mock time. Cleared by each
//! [`run`](crate::run).

use std::sync::Mutex;

use embassy_supervisor::TaskNode;
use embassy_time::Instant;

/// One lifecycle event of one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The spawn fn handed the task to the spawner.
    Spawned,
    /// The spawn fn refused: an injected fault, or the task's pool was full.
    Refused,
    /// The task body began.
    Started,
    /// The task acked a stop (a `Pause` task then parks).
    Acked,
    /// A parked `Pause` task was resumed in place.
    Resumed,
    /// The task saw a stop and, as injected, will never ack it.
    IgnoredStop,
    /// [`fault::provide`](crate::fault::provide) withheld a resource.
    Withheld,
    /// An injected `Fault::Crash` dropped the kit's [`worker`](crate::worker)
    /// (feature `fault-inject`).
    Crashed,
}

/// A log line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Mock time of the event.
    pub at: Instant,
    /// The node's name (for [`Event::Withheld`]: the resource's label).
    pub node: &'static str,
    /// What happened.
    pub event: Event,
}

static LOG: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn lock() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    LOG.lock().unwrap_or_else(|p| p.into_inner())
}

/// Append an event of `node` (call it from your own task bodies).
pub fn record(node: &TaskNode, event: Event) {
    record_named(node.name, event);
}

pub(crate) fn record_named(node: &'static str, event: Event) {
    lock().push(Entry {
        at: Instant::now(),
        node,
        event,
    });
}

/// Every entry so far.
pub fn entries() -> Vec<Entry> {
    lock().clone()
}

/// Every `(node, event)` so far, in order.
pub fn events() -> Vec<(&'static str, Event)> {
    lock().iter().map(|e| (e.node, e.event)).collect()
}

/// The nodes that produced `event`, in order.
pub fn order(event: Event) -> Vec<&'static str> {
    lock()
        .iter()
        .filter(|e| e.event == event)
        .map(|e| e.node)
        .collect()
}

/// How many times `node` produced `event`.
pub fn count(node: &TaskNode, event: Event) -> usize {
    lock()
        .iter()
        .filter(|e| e.event == event && e.node == node.name)
        .count()
}

/// Forget everything so far (e.g. between the steps of one test).
pub fn clear() {
    lock().clear();
}
