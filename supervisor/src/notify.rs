//! One crate-wide change notifier for *observers*: code that waits for a node to
//! ack, exit or become ready, for a resource slot to be filled, or for an
//! executor slot to be published.
//!
//! Why one notifier and not a signal per node: observers are few (a supervisor
//! verb, a pool driver, an app-level `wait_take`), changes are rare (lifecycle
//! edges, not polls), and a per-node waker would cost 8 bytes of RAM per node
//! per wait kind. Every change wakes every registered observer; each re-checks
//! its own condition. Up to [`OBSERVERS`] observers stay registered; beyond
//! that a registration wakes everyone first (spurious re-polls, never a lost
//! wake).

use core::cell::RefCell;
use core::future::poll_fn;
use core::task::Poll;

use embassy_sync::blocking_mutex::Mutex;
use embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex;
use embassy_sync::waitqueue::MultiWakerRegistration;
use portable_atomic::{AtomicU32, Ordering};

/// How many observers can wait at once. Beyond this, registrations keep
/// waking each other (correct, but the waiters spin): fan many app-level
/// waiters out through an app-owned `embassy_sync::watch::Watch` instead.
pub const OBSERVERS: usize = 8;

static WAITERS: Mutex<CriticalSectionRawMutex, RefCell<MultiWakerRegistration<OBSERVERS>>> =
    Mutex::new(RefCell::new(MultiWakerRegistration::new()));

/// Bumped by every change, so a driver that evaluates and then waits can
/// tell whether something changed in between (no lost wake-ups).
static EPOCH: AtomicU32 = AtomicU32::new(0);

/// Wake every observer: something they may be waiting for changed.
// Out of line: one copy of the critical section and the waker walk for the
// many lifecycle edges that call it (flash).
#[inline(never)]
pub(crate) fn changed() {
    EPOCH.fetch_add(1, Ordering::AcqRel);
    WAITERS.lock(|w| w.borrow_mut().wake());
}

/// Keep `waker` registered until the next change, without waking anything now.
pub(crate) fn register(waker: &core::task::Waker) {
    WAITERS.lock(|w| w.borrow_mut().register(waker));
}

/// The change counter (wraps; compare for inequality only).
pub(crate) fn epoch() -> u32 {
    EPOCH.load(Ordering::Acquire)
}

/// Resolve once `ready()` returns `Some`. The condition is checked before and
/// after registering, so a change between the check and the registration is
/// never missed.
pub(crate) async fn wait_for<T>(mut ready: impl FnMut() -> Option<T>) -> T {
    poll_fn(|cx| {
        if let Some(v) = ready() {
            return Poll::Ready(v);
        }
        WAITERS.lock(|w| w.borrow_mut().register(cx.waker()));
        match ready() {
            Some(v) => Poll::Ready(v),
            None => Poll::Pending,
        }
    })
    .await
}
