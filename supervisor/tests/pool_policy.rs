//! `DeferredShrink` as a pure decision function: no executor, exact instants.
#![cfg(feature = "pool")]
use embassy_supervisor::{DeferredShrink, PoolAction, PoolLoad, ScalingPolicy};
use embassy_time::{Duration, Instant};

fn load(running: u8, busy: u8, min: u8, max: u8) -> PoolLoad {
    PoolLoad {
        running,
        idle: running - busy.min(running),
        busy,
        min,
        max,
    }
}

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

#[test]
fn grows_below_min() {
    let mut p = DeferredShrink::new(Duration::from_secs(4));
    assert_eq!(p.decide(load(0, 0, 1, 4), at(0)).action, PoolAction::Grow);
}

#[test]
fn grows_at_once_when_saturated() {
    let mut p = DeferredShrink::new(Duration::from_secs(4));
    assert_eq!(p.decide(load(2, 2, 1, 4), at(0)).action, PoolAction::Grow);
}

#[test]
fn never_grows_past_max() {
    let mut p = DeferredShrink::new(Duration::from_secs(4));
    assert_eq!(p.decide(load(4, 4, 1, 4), at(0)).action, PoolAction::Hold);
}

#[test]
fn one_idle_spare_under_load_is_the_dead_band() {
    let mut p = DeferredShrink::new(Duration::from_secs(4));
    for t in [0, 5_000, 60_000] {
        let d = p.decide(load(3, 2, 1, 4), at(t));
        assert_eq!(d.action, PoolAction::Hold);
        assert_eq!(
            d.recheck_at, None,
            "a spare is not a surplus: no cooldown runs"
        );
    }
}

#[test]
fn surplus_shrinks_only_after_the_cooldown() {
    let mut p = DeferredShrink::new(Duration::from_secs(4));
    let d = p.decide(load(3, 1, 1, 4), at(1_000));
    assert_eq!(
        d,
        embassy_supervisor::Decision {
            action: PoolAction::Hold,
            recheck_at: Some(at(5_000))
        }
    );
    assert_eq!(
        p.decide(load(3, 1, 1, 4), at(4_999)).action,
        PoolAction::Hold
    );
    assert_eq!(
        p.decide(load(3, 1, 1, 4), at(5_000)).action,
        PoolAction::Shrink
    );
}

#[test]
fn a_surplus_that_disappears_restarts_the_cooldown() {
    let mut p = DeferredShrink::new(Duration::from_secs(4));
    assert_eq!(p.decide(load(3, 1, 1, 4), at(0)).action, PoolAction::Hold);
    // Load comes back: the surplus is gone.
    assert_eq!(
        p.decide(load(3, 2, 1, 4), at(3_000)).action,
        PoolAction::Hold
    );
    // Surplus again: the cooldown counts from here, not from 0.
    assert_eq!(
        p.decide(load(3, 1, 1, 4), at(3_500)).recheck_at,
        Some(at(7_500))
    );
    assert_eq!(
        p.decide(load(3, 1, 1, 4), at(7_499)).action,
        PoolAction::Hold
    );
}

#[test]
fn never_shrinks_below_min() {
    let mut p = DeferredShrink::new(Duration::from_secs(1));
    assert_eq!(p.decide(load(1, 0, 1, 4), at(0)).action, PoolAction::Hold);
    assert_eq!(
        p.decide(load(1, 0, 1, 4), at(100_000)).action,
        PoolAction::Hold
    );
}

/// Pitfall 8: a `min: 0` pool reaches zero when idle and stays there until
/// there is demand; an empty pool is not "saturated".
#[test]
fn pitfall_8_min_zero_pool_reaches_zero_and_stays() {
    let mut p = DeferredShrink::new(Duration::from_secs(2));
    assert_eq!(p.decide(load(1, 0, 0, 2), at(0)).action, PoolAction::Hold);
    assert_eq!(
        p.decide(load(1, 0, 0, 2), at(2_000)).action,
        PoolAction::Shrink
    );
    for t in [2_001, 10_000, 1_000_000] {
        let d = p.decide(load(0, 0, 0, 2), at(t));
        assert_eq!(d.action, PoolAction::Hold, "no demand, no regrow at t={t}");
        assert_eq!(d.recheck_at, None);
    }
    // Demand (a busy mark on a down member) grows it again.
    assert_eq!(
        p.decide(load(0, 1, 0, 2), at(1_000_001)).action,
        PoolAction::Grow
    );
}
