//! The embassy-time clock, read in one place, and the tick count the
//! waits keep.

// Out of line: a time driver's `now` (a critical section around a counter
// read, typically) is otherwise inlined at every call site (flash).
#[inline(never)]
pub(crate) fn now() -> u64 {
    embassy_time_driver::now()
}

/// A 64-bit tick count stored as two words: 4-byte alignment keeps every
/// future that embeds an `Until` free of 8-byte padding.
#[derive(Clone, Copy)]
pub(crate) struct Tick([u32; 2]);

impl Tick {
    pub(crate) const fn new(t: u64) -> Self {
        Self([t as u32, (t >> 32) as u32])
    }

    pub(crate) fn get(self) -> u64 {
        u64::from(self.0[0]) | (u64::from(self.0[1]) << 32)
    }
}
