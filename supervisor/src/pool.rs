//! Elastic pools: a set of single-instance member nodes scaled between `min`
//! and `max` running instances by a swappable [`ScalingPolicy`].
//!
//! The driver ([`Supervisor::run_pools`](crate::Supervisor::run_pools)) never
//! polls: it re-evaluates when a worker's load really changes
//! (`mark_busy`/`mark_idle`), when any node's lifecycle changes (so a grow
//! deferred on a down dependency is retried when it comes back), and at the
//! deadline the policy asks for.

use core::cell::RefCell;
use core::ops::Range;

use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_time::{Duration, Instant};

use crate::TaskNode;

/// A snapshot of one pool's load, handed to its policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PoolLoad {
    /// Members with a running instance.
    pub running: u8,
    /// Running members that are not busy.
    pub idle: u8,
    /// Members that reported `mark_busy()`, running or not (a busy mark on a
    /// down member is demand waiting for an instance).
    pub busy: u8,
    /// The declared floor.
    pub min: u8,
    /// The declared ceiling.
    pub max: u8,
}

/// What a policy wants done, one member at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
// Non-zero discriminants: a `Decision::HOLD` is then not all zero bytes,
// which the compiler would write with a `memclr` call it links in (flash).
#[repr(u8)]
pub enum PoolAction {
    /// Nothing now.
    Hold = 1,
    /// Start one more member.
    Grow,
    /// Stop one idle member.
    Shrink,
}

/// A policy's answer: an action, and when to ask again if nothing else
/// happens first (a cooldown expiring).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Decision {
    /// The action to take now.
    pub action: PoolAction,
    /// Re-evaluate at this instant even without a load change.
    pub recheck_at: Option<Instant>,
}

impl Decision {
    const HOLD: Self = Self {
        action: PoolAction::Hold,
        recheck_at: None,
    };
}

/// A scaling decision function: synchronous, allocation-free.
pub trait ScalingPolicy: Send {
    /// Decide from the pool's load at `now`. The driver applies `Grow` and
    /// `Shrink` one member at a time and asks again.
    fn decide(&mut self, load: PoolLoad, now: Instant) -> Decision;
}

/// Grow at once when saturated, shrink only after an idle surplus persisted
/// for `cooldown`.
///
/// - Below `min`: grow.
/// - Saturated (no idle running member, some demand, below `max`): grow.
///   An empty `min: 0` pool without demand is *not* saturated: it stays at zero.
/// - Surplus: more idle members than the dead-band allows (one idle spare is
///   kept while any member is busy; none when nothing is busy) and above
///   `min`. A surplus held for `cooldown` shrinks one member; a surplus that
///   disappears resets the timer, so a single spare never flaps.
#[derive(Clone, Copy, Debug)]
pub struct DeferredShrink {
    cooldown: Duration,
    surplus_since: Option<Instant>,
}

impl DeferredShrink {
    /// A policy that waits `cooldown` of idle surplus before shrinking.
    pub const fn new(cooldown: Duration) -> Self {
        Self {
            cooldown,
            surplus_since: None,
        }
    }
}

impl ScalingPolicy for DeferredShrink {
    fn decide(&mut self, l: PoolLoad, now: Instant) -> Decision {
        let grow = Decision {
            action: PoolAction::Grow,
            recheck_at: None,
        };
        if l.running < l.min {
            self.surplus_since = None;
            return grow;
        }
        if l.idle == 0 && l.busy > 0 && l.running < l.max {
            self.surplus_since = None;
            return grow;
        }
        let spare = if l.busy > 0 { 1 } else { 0 };
        if l.running <= l.min || l.idle <= spare {
            self.surplus_since = None;
            return Decision::HOLD;
        }
        let since = *self.surplus_since.get_or_insert(now);
        // A cooldown too long to represent never expires: hold forever.
        let Some(due) = since.checked_add(self.cooldown) else {
            return Decision::HOLD;
        };
        if now >= due {
            self.surplus_since = None;
            Decision {
                action: PoolAction::Shrink,
                recheck_at: None,
            }
        } else {
            Decision {
                action: PoolAction::Hold,
                recheck_at: Some(due),
            }
        }
    }
}

/// The graph's view of a pool (object-safe, so one graph holds pools with
/// different policies).
pub trait Pool: Sync {
    /// The members' graph slots.
    fn slots(&self) -> Range<usize>;
    /// The member nodes, floor first.
    fn nodes(&self) -> &'static [TaskNode];
    /// `(min, max)` running instances.
    fn bounds(&self) -> (u8, u8);
    /// Ask the policy.
    fn decide(&self, load: PoolLoad, now: Instant) -> Decision;
}

/// An elastic pool over a static member array (`NAME: [TaskNode; K]`), whose
/// members occupy graph slots `first .. first + K`.
pub struct ElasticPool<P: ScalingPolicy> {
    members: &'static [TaskNode],
    first: u8,
    min: u8,
    max: u8,
    policy: Mutex<CriticalSectionRawMutex, RefCell<P>>,
}

impl<P: ScalingPolicy> ElasticPool<P> {
    /// A pool of `members` at graph slots `first..`, kept between `min` and
    /// `max` running instances (`min <= max <= members.len()`; the macro
    /// checks this at compile time, a hand-built pool is clamped).
    pub const fn new(members: &'static [TaskNode], first: u8, min: u8, max: u8, policy: P) -> Self {
        let k = if members.len() > 255 {
            255
        } else {
            members.len() as u8
        };
        let max = if max > k { k } else { max };
        let min = if min > max { max } else { min };
        Self {
            members,
            first,
            min,
            max,
            policy: Mutex::new(RefCell::new(policy)),
        }
    }

    /// The index of `node` in this pool (`None`: not a member). O(1).
    pub fn member_index(&self, node: &TaskNode) -> Option<usize> {
        let base = self.members.as_ptr() as usize;
        let offset = (node as *const TaskNode as usize).wrapping_sub(base);
        let i = offset / core::mem::size_of::<TaskNode>();
        // `%` rather than `is_multiple_of` (Rust 1.87): the code stays within 1.85.
        #[allow(clippy::manual_is_multiple_of)]
        let aligned = offset % core::mem::size_of::<TaskNode>() == 0;
        (aligned && i < self.members.len()).then_some(i)
    }

    /// The member nodes, floor first.
    pub const fn member_nodes(&self) -> &'static [TaskNode] {
        self.members
    }
}

impl<P: ScalingPolicy> Pool for ElasticPool<P> {
    fn slots(&self) -> Range<usize> {
        let first = self.first as usize;
        first..first + self.members.len()
    }

    fn nodes(&self) -> &'static [TaskNode] {
        self.members
    }

    fn bounds(&self) -> (u8, u8) {
        (self.min, self.max)
    }

    fn decide(&self, load: PoolLoad, now: Instant) -> Decision {
        self.policy.lock(|p| p.borrow_mut().decide(load, now))
    }
}

/// Ask the pool driver to re-evaluate. `mark_busy`/`mark_idle` call it on a
/// real transition; call it yourself after changing what a custom policy reads.
pub fn request_scale() {
    crate::notify::changed();
}
