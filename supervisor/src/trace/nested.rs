//! `trace-nested`: preemption-exact poll times. A poll on a higher-priority
//! executor (an `InterruptExecutor`) that interrupts a poll on the same core
//! is credited back to the interrupted poll instead of being counted twice.
//!
//! Each core keeps the total *exclusive* poll time of every poll that ended
//! on it. A poll remembers that total when it begins; what the total grew by
//! until it ends is the time of the polls nested inside it (each counted
//! once, however deep), which its own exclusive time leaves out.

use crate::sync::{AtomicU32, Ordering};
use embassy_sync::once_lock::OnceLock;

/// Cores with their own nesting total; a core id at or past this shares the
/// last one.
pub const MAX_CORES: usize = 2;

static TOTAL: [AtomicU32; MAX_CORES] = [const { AtomicU32::new(0) }; MAX_CORES];
static CORE_ID: OnceLock<fn() -> usize> = OnceLock::new();

/// Register how to read the current core's id (e.g. `SIO.CPUID` on an RP2040
/// or RP2350), once, before the executors run. Without it every poll counts
/// as core 0's, which is exact on a single core. `Err` if one is registered.
pub fn set_core_id_fn(f: fn() -> usize) -> Result<(), fn() -> usize> {
    CORE_ID.init(f)
}

fn core() -> &'static AtomicU32 {
    let id = CORE_ID.try_get().map_or(0, |f| f());
    &TOTAL[id.min(MAX_CORES - 1)]
}

pub(crate) fn total() -> u32 {
    core().load(Ordering::Relaxed)
}

/// The exclusive part of a poll that took `took` ticks and began when its
/// core's total was `at_start`; adds it to the total.
pub(crate) fn exclusive(took: u32, at_start: u32) -> u32 {
    let total = core();
    let now = total.load(Ordering::Relaxed);
    let own = took.saturating_sub(now.wrapping_sub(at_start));
    // Polls on one core nest strictly: nothing else writes this total
    // between the load and the store.
    total.store(now.wrapping_add(own), Ordering::Relaxed);
    own
}
