//! [`Flow`]: one signal of a graph's dataflow (feature `dataflow`). A leaf:
//! the graph holds a table of them, and `dataflow` builds on both.

/// Set on a flow whose writer is outside the graph (a read marked `extern`).
const WRITTEN_OUTSIDE: u8 = 1;
/// Set on a flow whose reader is outside the graph (a write marked `extern`).
const READ_OUTSIDE: u8 = 2;

/// One signal of a graph's dataflow: the static, its name, and the graph
/// slots on each side. In flash; on a 32-bit target 36 bytes, plus one byte
/// per reading or writing slot.
pub struct Flow {
    /// The signal's path as the graph names it (`crate::signals::SAMPLE`).
    pub name: &'static str,
    signal: &'static dyn Sync,
    /// The slots that write the signal.
    pub writers: &'static [u8],
    /// The slots that read the signal.
    pub readers: &'static [u8],
    outside: u8,
}

impl Flow {
    /// The flow of `signal` (named `name`) between `writers` and `readers`
    /// (graph slots). `signal` must not be zero-sized: a zero-sized static
    /// has no address of its own, so queries could not tell it from another
    /// (const evaluation fails).
    pub const fn new<T: Sync>(
        name: &'static str,
        signal: &'static T,
        writers: &'static [u8],
        readers: &'static [u8],
    ) -> Self {
        assert!(
            core::mem::size_of::<T>() != 0,
            "a dataflow signal must not be zero-sized (it has no address of its own): \
             name the static the data goes through"
        );
        Self {
            name,
            signal,
            writers,
            readers,
            outside: 0,
        }
    }

    /// Something outside the graph writes the signal too (an interrupt
    /// handler, a driver callback): its readers do not need a writer node.
    pub const fn written_outside(mut self) -> Self {
        self.outside |= WRITTEN_OUTSIDE;
        self
    }

    /// Something outside the graph reads the signal (a logger, a host link):
    /// its writers do not need a reader node.
    pub const fn read_outside(mut self) -> Self {
        self.outside |= READ_OUTSIDE;
        self
    }

    /// Whether code outside the graph writes the signal.
    pub const fn is_written_outside(&self) -> bool {
        self.outside & WRITTEN_OUTSIDE != 0
    }

    /// Whether code outside the graph reads the signal.
    pub const fn is_read_outside(&self) -> bool {
        self.outside & READ_OUTSIDE != 0
    }

    /// The signal's name without its module path (`SAMPLE`), as pictures
    /// label it.
    pub fn short_name(&self) -> &'static str {
        self.name.rsplit("::").next().unwrap_or(self.name)
    }

    /// Whether this is the flow of `signal` (the same address).
    pub fn is<T: ?Sized>(&self, signal: &T) -> bool {
        core::ptr::addr_eq(self.signal as *const dyn Sync, signal as *const T)
    }

    /// Whether slot `slot` writes the signal.
    pub fn is_written_by(&self, slot: usize) -> bool {
        self.writers.iter().any(|&w| usize::from(w) == slot)
    }

    /// Whether slot `slot` reads the signal.
    pub fn is_read_by(&self, slot: usize) -> bool {
        self.readers.iter().any(|&r| usize::from(r) == slot)
    }
}

// The README and bench/notes.md quote this size.
#[cfg(target_pointer_width = "32")]
const _: () = assert!(core::mem::size_of::<Flow>() == 36);
