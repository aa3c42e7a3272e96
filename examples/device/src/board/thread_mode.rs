//! `ThreadMode<T>`: lets a `!Send`/`!Sync` value (embassy-net's `Stack` and
//! `Runner`, which share a `RefCell`) live in a `static` or a supervisor
//! `ResourceSlot`, by handing it out only to code running in Cortex-M
//! thread mode.
//!
//! Soundness: these boards run one core, and every task that touches the
//! network runs on the thread-mode executor, which polls one task at a time.
//! Interrupt handlers (the interrupt executor tier included) can preempt
//! thread mode, so access from handler mode is refused (`None`): the value
//! is never touched from two contexts at once.

use cortex_m::peripheral::SCB;
use cortex_m::peripheral::scb::VectActive;

pub struct ThreadMode<T>(T);

// Safety: see the module docs: every access goes through `get`/`get_mut`,
// which refuse handler mode, so only the single thread-mode context ever
// reaches `T`.
unsafe impl<T> Sync for ThreadMode<T> {}
// Safety: moving the wrapper between tasks of the thread executor keeps it
// in that one context; handler-mode code cannot reach the inner value.
unsafe impl<T> Send for ThreadMode<T> {}

fn in_thread_mode() -> bool {
    SCB::vect_active() == VectActive::ThreadMode
}

impl<T> ThreadMode<T> {
    pub const fn new(value: T) -> Self {
        Self(value)
    }

    /// The value, from thread mode only.
    pub fn get(&self) -> Option<&T> {
        in_thread_mode().then_some(&self.0)
    }

    /// The value, from thread mode only.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        in_thread_mode().then_some(&mut self.0)
    }
}
