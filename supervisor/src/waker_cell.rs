//! [`WakerCell`]: one waker under the application's critical section, woken
//! in place. The node's waker slot (`node/waiter.rs`) and the drivers' slot
//! (`notify/change_wait.rs`) are each one.

use core::cell::Cell;
use core::task::Waker;

use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;

use crate::sync::{Mutex, const_unless_loom};

/// A waker slot. Wakes leave the waker in place; only its holder empties it.
pub(crate) struct WakerCell(Mutex<CriticalSectionRawMutex, Cell<Option<Waker>>>);

impl WakerCell {
    const_unless_loom! {
        pub(crate) const fn new() -> Self {
            Self(Mutex::new(Cell::new(None)))
        }
    }

    /// Wake the waker held, if any; it stays. Inside the critical section,
    /// so a holder emptying the cell on another core is either woken
    /// before it empties it or not at all.
    // Out of line (flash): one copy of the critical section.
    #[inline(never)]
    pub(crate) fn wake(&self) {
        self.0.lock(|cell| {
            let w = cell.take();
            if let Some(w) = &w {
                w.wake_by_ref();
            }
            cell.set(w);
        });
    }

    /// Hold `w` from now on; the waker it replaces is dropped out of the
    /// critical section (a waker's drop may run any code).
    pub(crate) fn set(&self, w: &Waker) {
        drop(self.0.lock(|cell| cell.replace(Some(w.clone()))));
    }

    /// Empty the cell (the waker is dropped out of the critical section).
    pub(crate) fn clear(&self) {
        drop(self.0.lock(Cell::take));
    }

    /// Run `f` on the cell inside the critical section (a holder's own
    /// rule for taking it, `TaskWaker::hold`).
    pub(crate) fn with<R>(&self, f: impl FnOnce(&Cell<Option<Waker>>) -> R) -> R {
        self.0.lock(f)
    }
}
