//! The event stream (feature `events`): a bounded broadcast of lifecycle and
//! controller events, for logs, dashboards and tests.
//!
//! Publishing never waits and never fails: when the buffer is full the oldest
//! event is overwritten, and a subscriber that fell behind receives
//! `WaitResult::Lagged(n)` with the number it missed before the next event.
//! Events are observability only; nothing in the supervisor depends on one
//! being read.
//!
//! ```
//! use embassy_supervisor::event;
//! let mut sub = event::subscribe().unwrap();
//! assert!(sub.try_next_message().is_none());
//! ```

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::pubsub::{PubSubChannel, Subscriber};
use embassy_time::Instant;

pub use embassy_sync::pubsub::{Error as SubscribeError, WaitResult};

/// Events buffered before the oldest is overwritten.
pub const EVENT_CAPACITY: usize = 16;
/// Subscribers that can listen at once.
pub const EVENT_SUBSCRIBERS: usize = 4;

/// A subscriber to [`EVENTS`].
pub type EventSubscriber =
    Subscriber<'static, CriticalSectionRawMutex, Event, EVENT_CAPACITY, EVENT_SUBSCRIBERS, 0>;

/// The one event channel of the binary. Publishing goes through the
/// channel's immediate publisher, so it needs no publisher slot.
pub static EVENTS: PubSubChannel<
    CriticalSectionRawMutex,
    Event,
    EVENT_CAPACITY,
    EVENT_SUBSCRIBERS,
    0,
> = PubSubChannel::new();

/// One event: what happened, and when (embassy-time clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Event {
    /// When it was published.
    pub at: Instant,
    /// What happened.
    pub kind: EventKind,
}

/// What happened. Nodes are named by their declared name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EventKind {
    /// A node was spawned (or resumed in place).
    NodeSpawned {
        /// The node.
        node: &'static str,
    },
    /// A node's spawn failed (gate timeout, full task pool).
    SpawnFailed {
        /// The node.
        node: &'static str,
    },
    /// A node acked a stop (`ack_dropped`).
    NodeDown {
        /// The node.
        node: &'static str,
    },
    /// A node's body returned (`mark_exited`).
    NodeExited {
        /// The node.
        node: &'static str,
    },
    /// A stop was not acked in time.
    ShutdownTimeout {
        /// The node.
        node: &'static str,
    },
    /// A pool started a member.
    PoolGrew {
        /// The member started.
        node: &'static str,
    },
    /// A pool stopped a member.
    PoolShrank {
        /// The member stopped.
        node: &'static str,
    },
    /// `restart` brought the node and its running dependents back.
    Restarted {
        /// The node restarted.
        node: &'static str,
    },
    /// `restart` was refused, or a `deactivate` or `teardown` that began
    /// meanwhile kept part of it down.
    RestartRefused {
        /// The node held down.
        node: &'static str,
    },
    /// The driver will restart the node in `delay_ms` (its backoff), after
    /// an exit its `restart:` policy covers, a stall, or a failed restart.
    #[cfg(feature = "restart")]
    RestartScheduled {
        /// The node.
        node: &'static str,
        /// The backoff before the restart, in milliseconds.
        delay_ms: u32,
    },
    /// An automatic restart found the node's `restart_budget:` spent: the
    /// graph is torn down and `run()` returns a [`FaultKind::Escalated`](crate::FaultKind::Escalated) fault.
    #[cfg(feature = "restart")]
    RestartEscalated {
        /// The node.
        node: &'static str,
        /// Restarts counted in its window.
        restarts: u16,
    },
    /// `wait_health` (or, for a `restart: on_failure` node, the driver)
    /// found a policed node stale (once per stale episode).
    #[cfg(feature = "liveness")]
    NodeStale {
        /// The node.
        node: &'static str,
    },
    /// The driver applied a control command.
    #[cfg(feature = "control")]
    ControlApplied {
        /// The command's target.
        node: &'static str,
        /// The operation.
        op: crate::payload::ControlOp,
    },
    /// The controller accepted a submission into its intake.
    #[cfg(feature = "controller")]
    ControllerSubmitted {
        /// The slot key.
        slot: crate::payload::Key,
        /// The job's target.
        target: &'static str,
        /// The policy it carries.
        policy: crate::payload::AdmissionPolicy,
    },
    /// The controller rejected a submission.
    #[cfg(feature = "controller")]
    ControllerRejected {
        /// The slot key.
        slot: crate::payload::Key,
        /// The job's target.
        target: &'static str,
        /// Why.
        kind: crate::payload::RejectKind,
    },
    /// A controller slot changed status.
    #[cfg(feature = "controller")]
    ControllerSlotTransition {
        /// The slot key.
        slot: crate::payload::Key,
        /// The status it left.
        from: crate::payload::SlotStatusKind,
        /// The status it entered.
        to: crate::payload::SlotStatusKind,
    },
}

/// A new subscriber, or `Err(MaximumSubscribersReached)` when
/// [`EVENT_SUBSCRIBERS`] are already listening. It sees events published
/// after this call.
pub fn subscribe() -> Result<EventSubscriber, SubscribeError> {
    EVENTS.subscriber()
}

/// Publish `kind`, stamped now. Never waits, never fails.
pub(crate) fn publish(kind: EventKind) {
    EVENTS.immediate_publisher().publish_immediate(Event {
        at: Instant::from_ticks(crate::clock::now()),
        kind,
    });
}
