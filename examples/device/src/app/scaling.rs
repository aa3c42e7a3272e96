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
//! client it answers `503` because no worker listened ([`http::SHED`]). This
//! policy grows on saturation only when such a refusal happened since the
//! pool last had an idle worker; below the floor it grows as
//! [`DeferredShrink`] does, and it shrinks exactly as [`DeferredShrink`]
//! does. The shedder calls [`request_scale`](embassy_supervisor::request_scale)
//! after each refusal, so the pool driver asks this policy again at once.

use embassy_supervisor::{Decision, DeferredShrink, PoolAction, PoolLoad, ScalingPolicy};
use embassy_time::{Duration, Instant};
use portable_atomic::Ordering;

use super::http;

/// [`DeferredShrink`], with growth on saturation gated on a refused client.
pub struct GrowOnShed {
    inner: DeferredShrink,
    /// [`http::SHED`] when the pool last had an idle worker or last grew on
    /// saturation: a refusal is "since" if the counter moved past this.
    shed_mark: u32,
}

impl GrowOnShed {
    /// Shrink after `cooldown` of idle surplus, as [`DeferredShrink`].
    pub const fn new(cooldown: Duration) -> Self {
        Self {
            inner: DeferredShrink::new(cooldown),
            shed_mark: 0,
        }
    }
}

impl ScalingPolicy for GrowOnShed {
    fn decide(&mut self, l: PoolLoad, now: Instant) -> Decision {
        let shed = http::SHED.load(Ordering::Relaxed);
        if l.idle > 0 {
            self.shed_mark = shed;
        }
        let saturated = l.running >= l.min && l.idle == 0 && l.busy > 0;
        if saturated && l.running < l.max {
            if shed == self.shed_mark {
                // Every worker is busy, but nobody was turned away: a moment
                // of overlap, not a shortage.
                return Decision {
                    action: PoolAction::Hold,
                    recheck_at: None,
                };
            }
            // One member per refusal seen: the next grow needs another.
            self.shed_mark = shed;
        }
        self.inner.decide(l, now)
    }
}
