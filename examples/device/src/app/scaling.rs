//! The HTTP pool's scaling policy: grow when a client was turned away.
//!
//! A worker is busy from the connection it accepts until it listens again,
//! which includes waiting for the client's close after the answer. A
//! sequential client (the dashboard: three GETs a second, one after another)
//! sends its next request while the worker that served the last one still
//! waits for that close, so the next request reaches another worker and, for
//! a moment, no worker is idle. [`DeferredShrink`] reads that moment as a
//! saturated pool and grows; three seconds later it shrinks: churn, with no
//! client ever refused.
//!
//! The device knows better than the load snapshot: the shedder counts every
//! client it answers `503` because no worker listened ([`http::SHED`]), and
//! a refusal is exactly a shortage. This policy grows by one member for each
//! policy call that finds the count moved since the last call (a burst of
//! refusals grows one member per driver pass; more refusals grow more), and
//! never on a saturated snapshot alone. Below the floor it grows, and it
//! shrinks, as [`DeferredShrink`] does. The shedder calls
//! [`request_scale`](embassy_supervisor::request_scale) after each refusal,
//! so the pool driver asks this policy again at once.
//!
//! Why not "a refusal since the pool last had an idle worker": under clients
//! looping on cheap requests a worker is idle again within a millisecond, so
//! the driver, woken by the refusal, often found one idle, forgot the
//! refusal, and the pool stayed at its floor while most clients were turned
//! away (CI: a normal client answered 3 times in 59).

use embassy_supervisor::{Decision, DeferredShrink, PoolAction, PoolLoad, ScalingPolicy};
use embassy_time::{Duration, Instant};
use portable_atomic::Ordering;

use super::http;

/// [`DeferredShrink`], growing on a refused client instead of on a
/// saturated snapshot.
pub struct GrowOnShed {
    inner: DeferredShrink,
    cooldown: Duration,
    /// [`http::SHED`] at the last call: a refusal is one that moved it since.
    shed_seen: u32,
}

impl GrowOnShed {
    /// Shrink after `cooldown` of idle surplus, as [`DeferredShrink`].
    pub const fn new(cooldown: Duration) -> Self {
        Self {
            inner: DeferredShrink::new(cooldown),
            cooldown,
            shed_seen: 0,
        }
    }

    /// `action` now, with the shrink's surplus timer restarted (as
    /// [`DeferredShrink`] restarts it whenever it grows or sees no surplus).
    fn restart_timer(&mut self, action: PoolAction) -> Decision {
        self.inner = DeferredShrink::new(self.cooldown);
        Decision {
            action,
            recheck_at: None,
        }
    }
}

impl ScalingPolicy for GrowOnShed {
    fn decide(&mut self, l: PoolLoad, now: Instant) -> Decision {
        let shed = http::SHED.load(Ordering::Relaxed);
        let refused = shed != self.shed_seen;
        self.shed_seen = shed;
        if l.running < l.min {
            return self.inner.decide(l, now);
        }
        if refused && l.running < l.max {
            return self.restart_timer(PoolAction::Grow);
        }
        if l.idle == 0 && l.busy > 0 {
            // Every worker is busy, but nobody was turned away: a moment of
            // overlap, not a shortage.
            return self.restart_timer(PoolAction::Hold);
        }
        self.inner.decide(l, now)
    }
}
