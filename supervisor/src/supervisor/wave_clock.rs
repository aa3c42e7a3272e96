//! A wave's deadlines in 32 bits per slot: units of `1 << SHIFT` ticks
//! from the wave's base, the base moved up when the clock gets far from it.
//! Half the bytes of a tick count per slot: a wave's state is part of every
//! verb's future, which its caller holds (RAM) and moves.
//!
//! Guarantees:
//!
//! - a deadline is never early: it has passed (a reading `t` with
//!   `t >= due(d)`, [`due`]) only once the clock has read at least its
//!   arming tick plus its window; a fine one (below) at a unit of one tick
//!   (`SHIFT == 0`) passes exactly then, as a 64-bit tick deadline would.
//!   The tick to wake at for the earliest ([`WaveClock::tick_at`]) is no
//!   later than it;
//! - every deadline keeps fitting in 32 bits however long the wave runs:
//!   once the clock is [`REBASE`] units past the base, the base moves up
//!   (by whole coarse units) and every pending deadline with it, exactly,
//!   so a reading stays below `REBASE` units;
//! - the rule for windows: one that ends below 2^31 units is kept fine, in
//!   units, exact to the unit; that is every window of up to 2^30 units,
//!   so every slot timeout (at most `u16::MAX` ms: `SHIFT` is chosen so).
//!   An ack timeout may be up to `u32::MAX` ms, 65 537 times longer: one
//!   that ends later is kept coarse, in units of `1 << COARSE` units
//!   flagged by the top bit, its end rounded up to one. No clamp and no
//!   re-arm: the coarse deadline is the real one, rounded up, so never
//!   early and late by less than a coarse unit (`COARSE` is the least that
//!   fits `u32::MAX` ms in 2^30 coarse units: a coarse unit is at most a
//!   2^-29 part of that and one unit, about 8 ms whatever the tick rate).
//!   Windows are taken in `u32` milliseconds, so none is longer.

use crate::clock::Tick;

/// The least shift that fits the longest slot timeout (`u16::MAX` ms) in
/// 2^30 units, so exact ticks (0) up to a 16 MHz tick.
pub(super) const SHIFT: u32 = {
    let longest = u16::MAX as u64 * embassy_time_driver::TICK_HZ / 1000 + 1;
    let mut shift = 0;
    while longest >> shift >= 1 << 30 {
        shift += 1;
    }
    shift
};

/// Units past the base at which a reading moves the base up: a fine
/// deadline (a reading plus a fine window, at most 2^30 + 1 units) then
/// stays below 2^31, clear of [`COARSE_FLAG`].
pub(super) const REBASE: u64 = 1 << 29;

/// The longest window kept, in units, rounded up: `u32::MAX` ms, the
/// longest ack timeout (`embassy_time` rounds a millisecond count up to
/// ticks, as here).
const LONGEST: u64 = {
    let ticks = (u32::MAX as u128 * embassy_time_driver::TICK_HZ as u128).div_ceil(1000);
    (ticks as u64 >> SHIFT) + 2
};

/// The least coarse shift that fits any deadline (a reading below
/// `REBASE` plus the longest window) in 2^30 coarse units.
const COARSE: u32 = {
    let mut shift = 0;
    while (REBASE + LONGEST) >> shift >= 1 << 30 {
        shift += 1;
    }
    shift
};

// The base moves by whole coarse units, and at least one.
const _: () = assert!(1 << COARSE <= REBASE);

/// Set on a deadline kept in coarse units.
const COARSE_FLAG: u32 = 1 << 31;

/// The base of a wave's deadlines.
pub(super) struct WaveClock {
    /// The tick of unit 0.
    base: Tick,
}

impl WaveClock {
    pub(super) const fn new(base: u64) -> Self {
        Self {
            base: Tick::new(base),
        }
    }

    /// Tick `t` in units from the base ([`read`](Self::read)), each
    /// deadline of `deadlines` that `pending(slot, deadline)` selects moved
    /// with the base.
    pub(super) fn units_at(
        &mut self,
        t: u64,
        deadlines: &mut [u32],
        mut pending: impl FnMut(usize, u32) -> bool,
    ) -> u32 {
        let (u, moved) = self.read(t);
        for (i, d) in deadlines.iter_mut().enumerate() {
            if pending(i, *d) {
                *d = moved.apply(*d);
            }
        }
        u
    }

    /// Tick `t` in units from the base, and how far the base moved for it:
    /// far past the base (`REBASE`), the base moves up first, by whole
    /// coarse units (so a coarse deadline keeps its exact tick) to within
    /// one of `t`. The caller moves each pending deadline by it
    /// ([`Moved::apply`]) before it reads one: a wave that reads its
    /// deadlines in one pass anyway (the stop wave) does it there.
    // Inline: the common case is one subtraction and a compare, and the
    // move's arithmetic is a few instructions (out of line, with the loop
    // over the deadlines: +48 B of flash on FP).
    #[inline]
    pub(super) fn read(&mut self, t: u64) -> (u32, Moved) {
        let u = t.saturating_sub(self.base.get()) >> SHIFT;
        if u < REBASE {
            return (u as u32, Moved { fine: 0, coarse: 0 });
        }
        let moved = u >> COARSE << COARSE;
        self.base = Tick::new(self.base.get() + (moved << SHIFT));
        let fine = u32::try_from(moved).unwrap_or(u32::MAX);
        let coarse = u32::try_from(moved >> COARSE).unwrap_or(u32::MAX);
        ((u - moved) as u32, Moved { fine, coarse })
    }

    /// The tick of unit `u` (as [`due`] gives), to wake at.
    pub(super) fn tick_at(&self, u: u32) -> u64 {
        self.base.get() + (u64::from(u) << SHIFT)
    }
}

/// How far a reading moved the base, in each kind's units.
#[derive(Clone, Copy)]
pub(super) struct Moved {
    fine: u32,
    coarse: u32,
}

impl Moved {
    /// Deadline `d` from the new base: the same tick (one that passed
    /// stays passed, at 0).
    pub(super) fn apply(self, d: u32) -> u32 {
        if d & COARSE_FLAG == 0 {
            d.saturating_sub(self.fine)
        } else {
            (d & !COARSE_FLAG).saturating_sub(self.coarse) | COARSE_FLAG
        }
    }
}

/// The unit at which deadline `d` passes, a coarse one scaled back, or
/// `u32::MAX` if that is later (such a deadline is at least 2^32 - 2^29
/// units past any reading, which stays below `REBASE`). It has passed at a
/// reading `t` once `t >= due(d)`: exact for every deadline, as is the
/// order of those that passed, and the earliest `due` is never later than
/// the earliest deadline (a wave that wakes at a clamped one finds nothing
/// passed, and sleeps again).
// All in 32 bits: the wave reads it for each node in flight at each sleep.
pub(super) fn due(d: u32) -> u32 {
    if d & COARSE_FLAG == 0 {
        return d;
    }
    let c = d & !COARSE_FLAG;
    if c >> (32 - COARSE) == 0 {
        c << COARSE
    } else {
        u32::MAX
    }
}

/// A window of `ticks` in units, rounded up, plus one unit when a unit is
/// more than a tick (a reading is rounded down): never early.
fn window(ticks: u64) -> u64 {
    ticks.div_ceil(1 << SHIFT) + u64::from(SHIFT != 0)
}

/// A slot timeout (at most `u16::MAX` ms) in units: at most 2^30 + 1, so it
/// fits beside any reading below `REBASE` as a fine deadline.
pub(super) fn units(timeout: embassy_time::Duration) -> u32 {
    window(timeout.as_ticks()) as u32
}

/// The ticks of a millisecond over the ticks of a unit, in lowest terms:
/// a millisecond count converts to units with one multiplication and, at
/// most, one division (none at a 1 MHz or a 20 MHz tick).
const MS_NUM: u64 = embassy_time_driver::TICK_HZ / gcd(embassy_time_driver::TICK_HZ, 1000 << SHIFT);
const MS_DEN: u64 = (1000 << SHIFT) / gcd(embassy_time_driver::TICK_HZ, 1000 << SHIFT);

const fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The deadline `ms` milliseconds (an ack window) after reading `t`: fine
/// if it ends below 2^31 units, else coarse (its end rounded up to a
/// coarse unit). The window in units is [`window`]'s of the same span
/// (`Duration::from_millis` rounds up to ticks, `window` to units: one
/// rounding up of the exact quotient), so never early.
pub(super) fn deadline_ms(t: u32, ms: u32) -> u32 {
    let w = (u64::from(ms) * MS_NUM).div_ceil(MS_DEN) + u64::from(SHIFT != 0);
    // At most `LONGEST`: `ms` is at most `u32::MAX`.
    let end = u64::from(t) + w;
    match u32::try_from(end) {
        Ok(fine) if fine & COARSE_FLAG == 0 => fine,
        // Below 2^30 coarse units (`COARSE`): clear of the flag.
        _ => (end.div_ceil(1 << COARSE) as u32) | COARSE_FLAG,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use embassy_time::Duration;

    /// Deadline `d` has passed at reading `t`.
    fn passed(t: u32, d: u32) -> bool {
        t >= due(d)
    }

    /// The exact tick of deadline `d` (a coarse one scaled back in 64 bits),
    /// and the tick a wave would wake at for it: no later.
    fn tick_of(c: &WaveClock, d: u32) -> u64 {
        let u = if d & COARSE_FLAG == 0 {
            u64::from(d)
        } else {
            u64::from(d & !COARSE_FLAG) << COARSE
        };
        let exact = c.base.get() + (u << SHIFT);
        assert!(c.tick_at(due(d)) <= exact, "woken late");
        exact
    }

    /// Every deadline of `ds` selected.
    fn all(_: usize, _: u32) -> bool {
        true
    }

    #[test]
    fn a_deadline_keeps_its_tick_when_the_base_moves() {
        let base = 1_000;
        let mut c = WaveClock::new(base);
        let unit = |u: u64| base + (u << SHIFT);
        let mut ds = [0u32; 3];
        assert_eq!(c.units_at(unit(5), &mut ds, all), 5);
        // One deadline ahead, one passed, and one not selected.
        ds = [(REBASE + 50) as u32, (REBASE - 1) as u32, 7];
        let then = tick_of(&c, ds[0]);
        // Far past the base: it moves up to within a coarse unit of `t`,
        // the pending deadlines with it.
        let at = unit(REBASE + 10);
        let t = c.units_at(at, &mut ds, |i, _| i != 2);
        assert!(u64::from(t) < 1 << COARSE);
        assert_eq!(c.base.get() + (u64::from(t) << SHIFT), at);
        assert_eq!(tick_of(&c, ds[0]), then);
        assert!(!passed(t, ds[0]), "still ahead");
        assert!(passed(t, ds[1]), "a passed deadline stays passed");
        assert_eq!(ds[2], 7, "one not selected is not moved");
    }

    #[test]
    fn a_timeout_in_units_is_never_early() {
        let ms = Duration::from_millis(u64::from(u16::MAX));
        let u = units(ms);
        assert!(u64::from(u) << SHIFT >= ms.as_ticks());
        assert!(u <= (1 << 30) + 1, "fits beside any t below REBASE");
        if SHIFT == 0 {
            assert_eq!(u64::from(u), ms.as_ticks(), "exact ticks");
        }
        // A window as long is a fine deadline from any reading, the same
        // in milliseconds as from a duration.
        let d = deadline_ms((REBASE - 1) as u32, u16::MAX.into());
        assert_eq!(d & COARSE_FLAG, 0);
        assert_eq!(u64::from(d), REBASE - 1 + u64::from(u));
        for ms in [0, 1, 3, 999, 2_000, 65_535] {
            let from = units(Duration::from_millis(u64::from(ms)));
            assert_eq!(deadline_ms(5, ms), 5 + from, "{ms} ms");
        }
    }

    /// Armed at tick `armed` (read as `t`), `ms` long: the deadline
    /// neither passes nor wakes before `armed` plus `ms` in ticks.
    fn never_early(c: &WaveClock, armed: u64, t: u32, ms: u32) -> u32 {
        let d = deadline_ms(t, ms);
        let end = armed + Duration::from_millis(u64::from(ms)).as_ticks();
        assert!(tick_of(c, d) >= end, "woken early");
        // The last unit before the tick of `end` does not pass it.
        let before = (end - 1 - c.base.get()) >> SHIFT;
        assert!(before >= 1 << 32 || !passed(before as u32, d));
        d
    }

    #[test]
    fn a_long_ack_timeout_is_never_early_and_keeps_fitting() {
        let longest = Duration::from_millis(u64::from(u32::MAX));
        let mut c = WaveClock::new(0);
        let armed = 12_345;
        let t = c.units_at(armed, &mut [], all);
        let d = never_early(&c, armed, t, u32::MAX);
        assert_ne!(d & COARSE_FLAG, 0, "kept coarse");
        let end = armed + longest.as_ticks();
        // Late by less than a coarse unit (and a fine one for the reading).
        assert!(tick_of(&c, d) - end <= (1 << (COARSE + SHIFT)) + (2 << SHIFT));
        // The clock runs the whole window, the base moving many times.
        let then = tick_of(&c, d);
        let mut ds = [d, u32::MAX];
        let step = (REBASE << SHIFT) + 7;
        let mut at = armed;
        while at + step < end {
            at += step;
            let t = c.units_at(at, &mut ds, |i, _| i == 0);
            assert!(u64::from(t) < REBASE);
            assert!(!passed(t, ds[0]), "early at {at}");
            assert_eq!(tick_of(&c, ds[0]), then, "keeps its tick");
        }
        assert_eq!(ds[1], u32::MAX, "an unselected slot stays as it was");
        let t = c.units_at(then, &mut ds, |i, _| i == 0);
        assert!(passed(t, ds[0]), "passes at its tick");
    }

    #[test]
    fn a_window_just_past_the_fine_range_is_coarse_and_never_early() {
        let mut c = WaveClock::new(0);
        // Read just below the rebase, then windows around the fine limit.
        let armed = (REBASE - 1) << SHIFT;
        let t = c.units_at(armed, &mut [], all);
        for ms in [60_000, 200_000, 1_000_000, 10_000_000] {
            never_early(&c, armed, t, ms);
        }
        // The default ack timeout, exact at one tick a unit.
        let d = never_early(&c, armed, t, 2_000);
        if SHIFT == 0 {
            assert_eq!(
                tick_of(&c, d),
                armed + crate::SHUTDOWN_ACK_TIMEOUT.as_ticks()
            );
        }
    }
}
