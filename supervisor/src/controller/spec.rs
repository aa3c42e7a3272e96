//! The controller's public value types: keys, policies, outcomes, targets,
//! submissions and snapshots.

use crate::{ResourceSlot, TaskNode};
use embassy_time::Duration;

pub use crate::payload::{AdmissionPolicy, Key, RejectKind, SlotStatusKind};

/// The final result of a watched submission, delivered exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskOutcome {
    /// The worker's node went down on its own (its body returned).
    Completed,
    /// Never started.
    Rejected {
        /// Why.
        kind: RejectKind,
    },
    /// Started, then stopped on request (Replace, deactivation, teardown).
    Canceled,
    /// The spawn failed (gate timeout, full task pool, no spawn fn, a
    /// `Pause` target), or a teardown began while it waited on a gate.
    Failed,
}

/// Why a submission was not handed to the controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ControllerError {
    /// The intake is full (`try_submit` only; `submit` waits for room).
    Full,
    /// A teardown is in progress.
    Closed,
}

/// A submission that was not accepted, handed back with its payload.
pub struct SubmitError<P: 'static> {
    /// Why.
    pub error: ControllerError,
    /// The submission, untouched.
    pub spec: ControllerSpec<P>,
}

impl<P> core::fmt::Debug for SubmitError<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SubmitError")
            .field("error", &self.error)
            .field("target", &self.spec.target.name)
            .finish()
    }
}

/// What a job runs: one node, or any free member of a pool. Declared as a
/// `static`. The optional inbox is the `ResourceSlot` the controller fills
/// with the job's payload just before the spawn; the node's spawn fn
/// `lend()`s it and the worker keeps it with `into_inner()`.
pub struct JobTarget<P: 'static> {
    pub(super) name: &'static str,
    pub(super) kind: TargetKind<P>,
}

pub(super) enum TargetKind<P: 'static> {
    Node {
        node: &'static TaskNode,
        inbox: Option<&'static ResourceSlot<P>>,
    },
    #[cfg(feature = "pool")]
    Pool {
        pool: &'static dyn crate::pool::Pool,
        inboxes: &'static [ResourceSlot<P>],
    },
}

impl<P: 'static> JobTarget<P> {
    /// A node target without payload delivery (unit jobs).
    pub const fn node(node: &'static TaskNode) -> Self {
        Self {
            name: node.spec().name,
            kind: TargetKind::Node { node, inbox: None },
        }
    }

    /// A node target whose payload is provided into `inbox` before each spawn.
    pub const fn node_with_inbox(node: &'static TaskNode, inbox: &'static ResourceSlot<P>) -> Self {
        Self {
            name: node.spec().name,
            kind: TargetKind::Node {
                node,
                inbox: Some(inbox),
            },
        }
    }

    /// A pool target named `name`: a job lands on a free member, member `i`
    /// receiving its payload in `inboxes[i]` (an empty slice: unit jobs).
    /// At most the pool's `max` members run controller jobs at once.
    #[cfg(feature = "pool")]
    pub const fn pool(
        name: &'static str,
        pool: &'static dyn crate::pool::Pool,
        inboxes: &'static [ResourceSlot<P>],
    ) -> Self {
        Self {
            name,
            kind: TargetKind::Pool { pool, inboxes },
        }
    }

    /// The target's name (the default slot key).
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

/// One submission: a target, its payload, a policy and a slot key.
pub struct ControllerSpec<P: 'static> {
    pub(super) target: &'static JobTarget<P>,
    pub(super) payload: P,
    pub(super) policy: AdmissionPolicy,
    pub(super) slot: Option<Key>,
}

impl<P: 'static> ControllerSpec<P> {
    const fn with_policy(
        target: &'static JobTarget<P>,
        payload: P,
        policy: AdmissionPolicy,
    ) -> Self {
        Self {
            target,
            payload,
            policy,
            slot: None,
        }
    }

    /// Busy slot: wait in FIFO order.
    pub const fn queue(target: &'static JobTarget<P>, payload: P) -> Self {
        Self::with_policy(target, payload, AdmissionPolicy::Queue)
    }

    /// Busy slot: become the next job, stopping the running one.
    pub const fn replace(target: &'static JobTarget<P>, payload: P) -> Self {
        Self::with_policy(target, payload, AdmissionPolicy::Replace)
    }

    /// Busy slot: reject.
    pub const fn drop_if_running(target: &'static JobTarget<P>, payload: P) -> Self {
        Self::with_policy(target, payload, AdmissionPolicy::DropIfRunning)
    }

    /// Admit through slot `key` instead of the target's name (groups several
    /// targets into one lane).
    pub fn with_slot(mut self, key: impl Into<Key>) -> Self {
        self.slot = Some(key.into());
        self
    }

    /// The slot this submission is admitted through.
    pub const fn slot_name(&self) -> Key {
        match self.slot {
            Some(k) => k,
            None => Key::Name(self.target.name),
        }
    }

    /// The submission's policy.
    pub const fn policy(&self) -> AdmissionPolicy {
        self.policy
    }

    /// The submission's target.
    pub const fn target(&self) -> &'static JobTarget<P> {
        self.target
    }
}

/// Point-in-time view of one slot.
#[derive(Clone, Copy, Debug)]
pub struct SlotView {
    /// The slot's key.
    pub key: Key,
    /// Its status.
    pub status: SlotStatusKind,
    /// The node running (or being started for) the current job.
    pub owner: Option<&'static TaskNode>,
    /// Jobs waiting behind the current one.
    pub queued: usize,
    /// Time since the last status change.
    pub in_status: Duration,
}

/// Point-in-time view of a controller.
#[derive(Clone, Copy, Debug)]
pub struct ControllerSnapshot<const SLOTS: usize> {
    /// One entry per slot in use (a slot keeps its key while Idle, until a
    /// new key needs it).
    pub slots: [Option<SlotView>; SLOTS],
    /// Submissions not yet seen by the driver.
    pub intake: usize,
}

impl<const SLOTS: usize> ControllerSnapshot<SLOTS> {
    /// The view of slot `key`, if it is in use.
    pub fn get(&self, key: impl Into<Key>) -> Option<SlotView> {
        let key = key.into();
        self.slots.iter().flatten().find(|v| v.key == key).copied()
    }
}

/// A pool policy that never grows or shrinks: the members of a pool used as a
/// controller target are started by the controller only.
#[cfg(feature = "pool")]
#[derive(Clone, Copy, Debug, Default)]
pub struct Held;

#[cfg(feature = "pool")]
impl crate::pool::ScalingPolicy for Held {
    fn decide(
        &mut self,
        _: crate::pool::PoolLoad,
        _: embassy_time::Instant,
    ) -> crate::pool::Decision {
        crate::pool::Decision {
            action: crate::pool::PoolAction::Hold,
            recheck_at: None,
        }
    }
}
