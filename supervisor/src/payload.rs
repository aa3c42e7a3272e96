//! The plain values events carry for the feature modules (control
//! operations, controller keys, policies, rejections, slot statuses).
//! Defined here, in a leaf that imports nothing from the crate, so `event`
//! sits below every feature module: a feature publishes these values, and
//! re-exports them at its own paths (`ControlOp`, `controller::Key`, ..).

/// A control operation. Start/stop/pause/resume fold onto these per mode.
#[cfg(feature = "control")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ControlOp {
    /// Clear `disabled` and bring the node up with its dependencies.
    Activate,
    /// Latch `disabled` and stop the node with its dependents.
    Deactivate,
    /// Cycle the node and its running dependents, rest-for-one
    /// ([`Supervisor::restart`](crate::Supervisor::restart)).
    Restart,
}

/// A slot key: a name, or a small id (no string compare on firmware).
#[cfg(feature = "controller")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Key {
    /// A named lane (the default: the target's name).
    Name(&'static str),
    /// A numbered lane.
    Id(u32),
}

#[cfg(feature = "controller")]
impl From<&'static str> for Key {
    fn from(name: &'static str) -> Self {
        Key::Name(name)
    }
}

#[cfg(feature = "controller")]
impl From<u32> for Key {
    fn from(id: u32) -> Self {
        Key::Id(id)
    }
}

/// What a submission does when its slot is busy (an idle slot admits every
/// policy at once).
#[cfg(feature = "controller")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum AdmissionPolicy {
    /// Wait behind older queued jobs (FIFO); a full queue rejects `QueueFull`.
    Queue,
    /// Become the next job: supersede the queued head and ask the running
    /// owner to stop; start once its node is down.
    Replace,
    /// Reject with `SlotBusy`; nothing is started.
    DropIfRunning,
}

/// Why a submission was rejected.
#[cfg(feature = "controller")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RejectKind {
    /// `DropIfRunning` on a busy slot.
    SlotBusy,
    /// The slot's queue was full.
    QueueFull,
    /// A later `Replace` took this job's place as the next one.
    SupersededByReplace,
    /// Every slot holds another key with work in it.
    NoFreeSlot,
    /// The target node was already up (started through another slot or by
    /// another verb) when this job's turn came.
    AlreadyRunning,
    /// The target is deactivated, held by a deactivated dependency, or
    /// detached when its turn came.
    TargetDisabled,
    /// A teardown resolved the job before it started.
    ShuttingDown,
}

/// Public status of a slot.
#[cfg(feature = "controller")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SlotStatusKind {
    /// Nothing running, nothing queued.
    Idle,
    /// A job owns the slot and is being started (or waits for a free pool
    /// member).
    Admitting,
    /// The owner's node is up.
    Running,
    /// The owner was asked to stop (Replace); the next job waits for it to
    /// be down.
    Terminating,
}
