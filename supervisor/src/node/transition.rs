//! The one place a driven lifecycle transition is recorded. Every site that
//! changes a node's phase calls [`transition`], which fans out to the event
//! stream (`events`), the breadcrumb (`breadcrumb`), the application's sink
//! (`lifecycle-sink`) and the log; each consumer is compiled out with its
//! feature, so with all of them off a call is nothing.

use super::TaskNode;
use crate::log::log_debug;
use crate::phase::Phase;

/// Record that `node` entered `phase`, one that is not a wait (a wait's end,
/// or a step with nothing to wait for).
#[inline]
pub(crate) fn transition(node: &TaskNode, phase: Phase) {
    #[cfg(feature = "breadcrumb")]
    super::crumb::record(node, phase);
    fan_out(node, phase);
}

/// Record that `node` began to wait in `phase` (`Spawning` for its gates,
/// `Stopping` for its ack): the breadcrumb keeps it among the transitions in
/// flight until its next transition, which takes the node's `'static`.
#[inline]
pub(crate) fn transition_wait(node: &'static TaskNode, phase: Phase) {
    #[cfg(feature = "breadcrumb")]
    super::crumb::record_wait(node, phase);
    fan_out(node, phase);
}

/// The consumers other than the breadcrumb.
#[inline]
fn fan_out(node: &TaskNode, phase: Phase) {
    #[cfg(feature = "events")]
    if let Some(kind) = event_kind(node, phase) {
        crate::event::publish(kind);
    }
    #[cfg(feature = "lifecycle-sink")]
    super::sink::deliver(node, phase);
    log_debug!("`{}`: {}", node.name, phase);
}

/// The event a phase publishes. Phases the stream has no event for
/// (`Spawning`, `Stopping`) publish none.
#[cfg(feature = "events")]
fn event_kind(node: &TaskNode, phase: Phase) -> Option<crate::event::EventKind> {
    use crate::event::EventKind;
    let node = node.name;
    Some(match phase {
        Phase::Started | Phase::Resumed => EventKind::NodeSpawned { node },
        Phase::SpawnFailed => EventKind::SpawnFailed { node },
        Phase::Stopped => EventKind::NodeDown { node },
        Phase::Exited => EventKind::NodeExited { node },
        Phase::StopTimedOut => EventKind::ShutdownTimeout { node },
        Phase::Idle | Phase::Spawning | Phase::Stopping => return None,
    })
}
