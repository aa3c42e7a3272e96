//! Feature `restart`: automatic restarts. A node's [`RestartSpec`] (static,
//! in flash) says when the driver brings it back (`restart:`), how long it
//! waits first (`backoff:`) and how many restarts a window allows
//! (`restart_budget:`); its [`RestartState`] (a few bytes of RAM) exists only
//! for nodes that declare one of them. Nodes without a policy pay nothing.
//!
//! The decisions are made by [`Supervisor::run`](crate::Supervisor::run)
//! (its restart pass lives with the supervisor); [`ExitStatus`] says what
//! counts as a failure, and the `budget` module keeps the intensity limit.

use crate::sync::{AtomicU8, AtomicU16, AtomicU32, Ordering, PublicAtomicU32};

pub(crate) mod budget;
mod exit;

pub use budget::RestartLog;
pub use exit::ExitStatus;

/// When the driver restarts a node whose instance ended on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RestartPolicy {
    /// Never: an exit keeps the node down (the behaviour without a policy).
    /// Manual restarts still count against a `restart_budget:`.
    Never,
    /// After a failure: an `exit:` value whose [`ExitStatus`] says so, or a
    /// stall (no beat within `beat_timeout:`, feature `liveness`).
    OnFailure,
    /// After every exit the node made on its own (a stop asked for by the
    /// supervisor or a verb is not an exit).
    Always,
}

/// The backoff the driver uses when a `backoff:` clause is absent, in
/// milliseconds: 100 ms, doubling up to 5 s.
pub const DEFAULT_BACKOFF_MS: (u32, u32) = (100, 5_000);

/// A node's restart configuration: a `static` the macro emits (it holds
/// only references and numbers, so it stays in flash) and the node's spec
/// refers to ([`NodeSpec::with_restart`](crate::NodeSpec::with_restart)).
///
/// The backoff before the k-th consecutive restart is `min(MIN << k, MAX)`
/// milliseconds. *Stable period:* a node that stayed up for at least `MAX`
/// since its last automatic restart starts again at `MIN`.
pub struct RestartSpec {
    pub(crate) policy: RestartPolicy,
    pub(crate) backoff_min_ms: u32,
    pub(crate) backoff_max_ms: u32,
    /// `(R, T)`: at most `R` restarts within any `T` milliseconds.
    pub(crate) budget: Option<(u16, u32)>,
    pub(crate) state: &'static RestartState,
    pub(crate) log: &'static [PublicAtomicU32],
}

impl RestartSpec {
    /// A node restarted per `policy`, with the default backoff and no budget.
    /// `state` is the node's own mutable half (one per node, or per pool
    /// member).
    pub const fn new(policy: RestartPolicy, state: &'static RestartState) -> Self {
        Self {
            policy,
            backoff_min_ms: DEFAULT_BACKOFF_MS.0,
            backoff_max_ms: DEFAULT_BACKOFF_MS.1,
            budget: None,
            state,
            log: &[],
        }
    }

    /// Backoff from `min_ms` doubling to `max_ms` (`min_ms` ≥ 1, `min_ms` ≤
    /// `max_ms`; the macro checks both, and this fn keeps a hand-built spec
    /// sane by raising `min_ms` to 1 and `max_ms` to `min_ms`).
    pub const fn with_backoff(mut self, min_ms: u32, max_ms: u32) -> Self {
        let min = if min_ms == 0 { 1 } else { min_ms };
        self.backoff_min_ms = min;
        self.backoff_max_ms = if max_ms < min { min } else { max_ms };
        self
    }

    /// At most `log.len()` restarts within any `window_ms` milliseconds: the
    /// next one is refused before anything stops. `log` is the node's ring of
    /// restart stamps, one word per allowed restart (an empty log, or a zero
    /// window, sets no budget).
    pub const fn with_budget(mut self, window_ms: u32, log: &'static [PublicAtomicU32]) -> Self {
        if !log.is_empty() && window_ms > 0 {
            self.budget = Some((log.len() as u16, window_ms));
            self.log = log;
        }
        self
    }

    /// The policy.
    pub const fn policy(&self) -> RestartPolicy {
        self.policy
    }

    /// `(R, T)` of the `restart_budget: R in T` clause, if any.
    pub const fn budget(&self) -> Option<(u16, u32)> {
        self.budget
    }

    /// Restarts of the node so far (manual and automatic, saturating).
    pub fn restarts(&self) -> u16 {
        self.state.restarts()
    }

    /// The wait before the restart after `attempt` earlier consecutive
    /// ones, in milliseconds.
    pub fn backoff_ms(&self, attempt: u8) -> u32 {
        let shifted = u64::from(self.backoff_min_ms) << attempt.min(32);
        shifted.min(u64::from(self.backoff_max_ms)) as u32
    }
}

/// Where a node's automatic restart stands.
pub(crate) mod phase {
    /// Nothing scheduled.
    pub const IDLE: u8 = 0;
    /// The node is down after an exit (or a failed restart): bring it back
    /// at `due` unless it is up again by then.
    pub const AFTER_EXIT: u8 = 1;
    /// The node runs but stalled: cycle it at `due` unless it beat again.
    #[cfg_attr(not(feature = "liveness"), allow(dead_code))]
    pub const AFTER_STALL: u8 = 2;
    /// The node's restart brought it back but not the dependent in
    /// `RestartState::left`, held down since: cycle the node again at `due`
    /// unless that dependent is back (or no longer held) by then.
    pub const AFTER_PARTIAL: u8 = 3;
}

/// The mutable half of a node's restart configuration: 16 bytes of RAM
/// (plus its budget log), only for nodes with a `restart:` or
/// `restart_budget:` clause. Written only by the supervisor that owns the
/// node (the driver and the `restart` verb).
pub struct RestartState {
    pub(crate) phase: AtomicU8,
    /// Consecutive restarts since the node last stayed up for its stable
    /// period: the backoff exponent.
    pub(crate) attempt: AtomicU8,
    /// Restarts so far (saturating), for the trace table.
    pub(crate) count: AtomicU16,
    /// [`phase::AFTER_PARTIAL`]: the slot of the dependent that did not
    /// come back.
    pub(crate) left: AtomicU8,
    /// When the scheduled restart is due (32-bit ticks, wrapping).
    pub(crate) due: AtomicU32,
    /// When the driver last brought the node back (32-bit ticks).
    pub(crate) up_at: AtomicU32,
    /// The budget ring: next slot to write, entries filled.
    pub(crate) log: budget::Cursor,
}

impl RestartState {
    /// A node's state before its first restart.
    pub const fn new() -> Self {
        Self {
            phase: AtomicU8::new(phase::IDLE),
            attempt: AtomicU8::new(0),
            count: AtomicU16::new(0),
            left: AtomicU8::new(0),
            due: AtomicU32::new(0),
            up_at: AtomicU32::new(0),
            log: budget::Cursor::new(),
        }
    }

    /// Restarts of this node so far (manual and automatic, saturating at
    /// `u16::MAX`).
    pub fn restarts(&self) -> u16 {
        self.count.load(Ordering::Relaxed)
    }

    pub(crate) fn counted(&self) {
        let n = self.count.load(Ordering::Relaxed);
        self.count.store(n.saturating_add(1), Ordering::Relaxed);
    }
}

impl Default for RestartState {
    fn default() -> Self {
        Self::new()
    }
}

/// Bumped when a node with a policy starts or ends an instance: the driver
/// looks at its policy nodes only when this moved (or a deadline it set
/// came), never on other events.
static EPOCH: AtomicU32 = AtomicU32::new(0);

pub(crate) fn poke() {
    EPOCH.fetch_add(1, Ordering::AcqRel);
}

pub(crate) fn epoch() -> u32 {
    EPOCH.load(Ordering::Acquire)
}

/// `ms` milliseconds in 32-bit ticks, capped at half their range so a
/// wrapping comparison stays right.
pub(crate) fn ms_to_ticks32(ms: u32) -> u32 {
    let t = embassy_time::Duration::from_millis(u64::from(ms)).as_ticks();
    t.min(u64::from(u32::MAX / 2)) as u32
}

/// `now` is at or past `due` (32-bit ticks, wrapping).
pub(crate) fn reached(now: u32, due: u32) -> bool {
    (now.wrapping_sub(due) as i32) >= 0
}
