//! [`ChangeWait`]: a driver's wait for the next change (or a deadline),
//! woken through a waker slot of its own rather than the observers' list.
//!
//! A driver (`run()`, `run_pools`) waits after every pass, and every
//! lifecycle or load change ends the wait. Through the list, each wait
//! links and unlinks an entry under the list's lock and each change drains
//! the list into a wake batch. Here the first driver to wait takes the one
//! slot: a wait stores its waker under a critical section, a change wakes
//! it under one. A second driver waiting at the same time (two graphs'
//! `run()` in one binary) finds the slot taken and waits with the
//! observers, so any number of drivers can wait and none is missed.
//!
//! No lost wake: the slot is taken by setting its own bit ([`DRIVER`]) in
//! [`OBSERVERS`], and its holder pairs with [`changed`](super::changed) as
//! every observer does: it stores its waker, fences, then checks the
//! epoch; a change bumps the epoch, fences, then reads the count and wakes
//! the slot. A change that woke the slot before the waker was stored took
//! its critical section first, so its fence precedes the holder's, whose
//! check then sees the change.

use core::pin::Pin;
use core::task::{Context, Poll};

use super::{OBSERVERS, Observer, epoch};
use crate::clock::Tick;
use crate::sync::{Ordering, fence, fresh_static};
use crate::waker_cell::WakerCell;

/// The slot holder's share of [`OBSERVERS`] (the observers themselves
/// count in the low bits, far below it).
pub(super) const DRIVER: usize = 1 << (usize::BITS - 1);

fresh_static! {
    /// The waker of the wait that holds the slot.
    static SLOT: WakerCell = WakerCell::new();
}

/// Wake the slot's holder (a change saw [`DRIVER`] set).
pub(super) fn wake_driver() {
    SLOT.wake();
}

/// The slot's holder ended: empty the slot, then free it (its bit).
#[inline(never)]
fn give_back() {
    SLOT.clear();
    OBSERVERS.fetch_and(!DRIVER, Ordering::Release);
}

/// No deadline.
const FOREVER: u64 = u64::MAX;

pin_project_lite::pin_project! {
    /// Resolves once anything changed after `epoch`, or once the deadline
    /// (if any) passed.
    pub(crate) struct ChangeWait {
        epoch: u32,
        deadline: Tick,
        // This wait holds the slot (and is counted in `OBSERVERS`).
        holder: bool,
        // Where it waits if another wait holds the slot.
        #[pin]
        observer: Observer,
    }

    impl PinnedDrop for ChangeWait {
        fn drop(this: Pin<&mut Self>) {
            if *this.project().holder {
                give_back();
            }
        }
    }
}

impl ChangeWait {
    /// Wait for a change after `epoch` ([`epoch`]), or until `deadline`
    /// (a tick; none: without a bound).
    pub(crate) fn new(epoch: u32, deadline: Option<u64>) -> Self {
        Self {
            epoch,
            deadline: Tick::new(deadline.unwrap_or(FOREVER)),
            holder: false,
            observer: Observer::new(),
        }
    }
}

impl Future for ChangeWait {
    type Output = ();

    // Out of line: a driver's loop awaits it in more than one place.
    #[inline(never)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        let since = *this.epoch;
        if epoch() != since {
            return Poll::Ready(());
        }
        let deadline = this.deadline.get();
        if deadline != FOREVER {
            if crate::clock::now() >= deadline {
                return Poll::Ready(());
            }
            embassy_time_driver::schedule_wake(deadline, cx.waker());
        }
        if !*this.holder {
            // Take the slot: its bit in the count, set by the first driver
            // to wait (an RMW, so two drivers never both take it).
            if OBSERVERS.fetch_or(DRIVER, Ordering::Acquire) & DRIVER != 0 {
                // Another driver holds it: with the observers.
                return if this.observer.sleep(cx, || epoch() != since) {
                    Poll::Ready(())
                } else {
                    Poll::Pending
                };
            }
            *this.holder = true;
        }
        // The waker the next change wakes (it replaces the same task's, in
        // practice).
        SLOT.set(cx.waker());
        // Pairs with the fence in `changed`: the check below sees any change
        // that read the count without this wait's bit, or found the slot
        // before this waker was in it (the critical sections order them).
        fence(Ordering::SeqCst);
        if epoch() != since {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Build this execution's slot now (loom only: see `notify::build_statics`).
#[cfg(loom)]
pub(super) fn build_statics() {
    let _ = &*SLOT;
}
