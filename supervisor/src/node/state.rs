//! What one read of a node's lifecycle word saw: a value with named
//! predicates, so no code outside `node/` decodes a flag bit.
//!
//! A `State` is a snapshot: the word may change right after it was read.
//! Code that must act on what it saw without a gap uses one of the node's
//! named transitions instead (each one atomic step, see the state table in
//! `docs/runtime.md`), most of which return the `State` they replaced.

use super::flag;

/// A snapshot of a node's lifecycle word ([`TaskNode::state`](super::TaskNode::state)).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct State(pub(super) u16);

impl State {
    /// What an empty slot (a `#[cfg]`-removed node) reads as: skipped by
    /// every supervisor operation, as a detached node is.
    pub(crate) const ABSENT: State = State(flag::DETACHED);

    const fn has(self, bits: u16) -> bool {
        self.0 & bits != 0
    }

    /// An instance is up (spawned or resumed, not acked, not exited).
    pub(crate) const fn is_up(self) -> bool {
        self.has(flag::RUNNING)
    }

    /// Asked to stop (or pause) and not acked yet.
    pub(crate) const fn is_stopping(self) -> bool {
        self.0 & (flag::RUNNING | flag::SHUTDOWN) == flag::RUNNING | flag::SHUTDOWN
    }

    /// A resident shell serves the node (it pinned itself at its first
    /// poll): an activation wakes it in place.
    pub(crate) const fn is_resident(self) -> bool {
        self.has(flag::RESIDENT)
    }

    /// Self-managed: every supervisor operation skips it.
    pub(crate) const fn is_detached(self) -> bool {
        self.has(flag::DETACHED)
    }

    /// The `disabled` latch (a human's or the `enabled_if:` predicate's).
    pub(crate) const fn is_disabled(self) -> bool {
        self.has(flag::DISABLED)
    }

    /// The collateral hold of a deactivated dependency.
    pub(crate) const fn is_held(self) -> bool {
        self.has(flag::HELD)
    }

    /// Disabled or held: what only `activate` lifts.
    pub(crate) const fn is_latched(self) -> bool {
        self.has(flag::DISABLED | flag::HELD)
    }

    /// Disabled, held or detached: no bring-up path starts it.
    pub(crate) const fn is_blocked(self) -> bool {
        self.has(flag::BLOCKED)
    }

    /// Up and supervised (not detached): what a stop acts on.
    pub(crate) const fn is_up_supervised(self) -> bool {
        self.0 & (flag::RUNNING | flag::DETACHED) == flag::RUNNING
    }

    /// Supervised, and stopping or about to be asked by a stop wave (its
    /// `ASKED` mark, see `TaskNode::mark_asked`): a dependency no bring-up
    /// may build on.
    pub(crate) const fn is_stopping_supervised(self) -> bool {
        self.0 & (flag::RUNNING | flag::DETACHED) == flag::RUNNING
            && self.has(flag::SHUTDOWN | flag::ASKED)
    }

    /// Up, and neither latched nor detached.
    pub(crate) const fn is_up_unblocked(self) -> bool {
        self.0 & (flag::RUNNING | flag::BLOCKED) == flag::RUNNING
    }

    /// Down and not blocked: a bring-up may start it now.
    pub(crate) const fn may_come_up(self) -> bool {
        self.0 & (flag::RUNNING | flag::BLOCKED) == 0
    }

    /// Down, and held by nothing but the collateral hold.
    pub(crate) const fn is_down_held_only(self) -> bool {
        self.0 & (flag::RUNNING | flag::BLOCKED) == flag::HELD
    }

    /// Down, neither detached nor disabled (held or not): what the
    /// `enabled_if:` predicate may latch.
    #[cfg(feature = "enabled-if")]
    pub(crate) const fn may_be_gated(self) -> bool {
        !self.has(flag::RUNNING | flag::DETACHED | flag::DISABLED)
    }

    /// The last instance's body returned without being asked to stop.
    #[cfg(feature = "restart")]
    pub(crate) const fn exited_unasked(self) -> bool {
        self.0 & (flag::EXITED | flag::SHUTDOWN) == flag::EXITED
    }

    /// The last instance ended as a failure (`mark_failed`).
    #[cfg(feature = "restart")]
    pub(crate) const fn has_failed(self) -> bool {
        self.has(flag::FAILED)
    }

    /// The instance reported load (`mark_busy`).
    #[cfg(feature = "pool")]
    pub(crate) const fn is_busy(self) -> bool {
        self.has(flag::BUSY)
    }
}

impl core::fmt::Debug for State {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "State({:#06x})", self.0)
    }
}
