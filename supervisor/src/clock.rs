//! The embassy-time clock, read in one place.

// Out of line: a time driver's `now` (a critical section around a counter
// read, typically) is otherwise inlined at every call site (flash).
#[inline(never)]
pub(crate) fn now() -> u64 {
    embassy_time_driver::now()
}
