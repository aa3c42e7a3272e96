//! One crate-wide change notifier for *observers*: code that waits for a node to
//! ack, exit or become ready, for a resource slot to be filled, or for an
//! executor slot to be published.
//!
//! Why one notifier and not a signal per node: observers are few (a supervisor
//! verb, a pool driver, an app-level `wait_take`), changes are rare (lifecycle
//! edges, not polls), and a per-node waker would cost 8 bytes of RAM per node
//! per wait kind. Every change wakes every registered observer; each re-checks
//! its own condition.
//!
//! Any number of observers can wait: the list is intrusive (each waiter's
//! entry lives in its own future, see [`Observer`]), so there is no capacity
//! to overflow and no waiter is ever woken except by a change.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::sync::{AtomicU32, AtomicUsize, Ordering, fence, fresh_static};
use maitake_sync::WaitQueue;
use maitake_sync::wait_queue::Wait;

// The drivers' wait: its users are `pool`, `controller`, `restart` and
// `liveness` (without them only its bit test in `changed` is linked).
#[cfg_attr(
    not(any(
        feature = "pool",
        feature = "controller",
        feature = "restart",
        feature = "liveness"
    )),
    allow(dead_code, unused_imports)
)]
mod change_wait;
#[allow(unused_imports)]
pub(crate) use change_wait::ChangeWait;

fresh_static! { static WAITERS: WaitQueue = WaitQueue::new(); }

fresh_static! {
    /// Observers that may hold an entry in [`WAITERS`]: counted from an
    /// observer's first join until it is dropped. While it reads zero a change
    /// has nobody to wake and skips the list (its lock, its SeqCst bookkeeping)
    /// entirely: the common case, an ack or an activation with no verb, driver
    /// or app-level wait registered.
    ///
    /// No lost wake (a Dekker pair): an observer counts itself, fences, then
    /// joins and checks its condition; a change updates its state, fences, then
    /// reads the count. If the change reads zero, its fence came first in the
    /// single order of SeqCst fences, so the observer's check (after its own
    /// fence) sees the change.
    static OBSERVERS: AtomicUsize = AtomicUsize::new(0);
}

fresh_static! {
    /// Bumped by every change, so a driver that evaluates and then waits can
    /// tell whether something changed in between (no lost wake-ups).
    static EPOCH: AtomicU32 = AtomicU32::new(0);
}

fresh_static! {
    /// Bumped by every step that marks a node up (a spawn or a resume about to
    /// happen): a stop wave that sees it unchanged knows no dependent came back
    /// behind it, and checks nothing.
    static ACTIVATIONS: AtomicU32 = AtomicU32::new(0);
}

fresh_static! {
    /// Nodes asked to stop (or pause) that have not acked yet (the `RUNNING`
    /// and `SHUTDOWN` flags both set), plus the stop waves in flight that
    /// may mark a node about to be asked (`TaskNode::mark_asked`; wraps; may
    /// read high, never low for long: see [`stop_requested`]). While it
    /// reads zero no dependency can be stopping or marked, and a bring-up
    /// skips the check of its dependencies.
    static STOPPING: AtomicU32 = AtomicU32::new(0);
}

/// A running node was just asked to stop, or a stop wave that marks the
/// nodes it is about to ask began (before its first mark). Counted after
/// the flag is set: a bring-up that reads zero in between read it before
/// its fence, and a wave's ask only comes after the wave's own count and a
/// mark, so that bring-up's check after its fence (`Supervisor::still_clear`)
/// sees the mark, or the wave sees the bring-up (see `TaskNode::mark_asked`).
pub(crate) fn stop_requested() {
    STOPPING.fetch_add(1, Ordering::SeqCst);
}

/// A node asked to stop left that state (it acked, exited, or a new
/// activation replaced it).
pub(crate) fn stop_ended() {
    STOPPING.fetch_sub(1, Ordering::SeqCst);
}

/// Some node may be stopping (asked, not yet acked).
pub(crate) fn any_stopping() -> bool {
    STOPPING.load(Ordering::SeqCst) != 0
}

/// [`any_stopping`] right after a SeqCst fence (a bring-up's, after its
/// atomic step): the fence orders the load, which needs no more.
pub(crate) fn any_stopping_after_fence() -> bool {
    STOPPING.load(Ordering::Relaxed) != 0
}

/// A node was marked up.
pub(crate) fn activated() {
    ACTIVATIONS.fetch_add(1, Ordering::AcqRel);
}

/// The activation counter (wraps; compare for inequality only).
pub(crate) fn activations() -> u32 {
    ACTIVATIONS.load(Ordering::Acquire)
}

/// Wake every observer: something they may be waiting for changed.
// Out of line: one copy of the critical section and the waker walk for the
// many lifecycle edges that call it (flash).
#[inline(never)]
pub(crate) fn changed() {
    EPOCH.fetch_add(1, Ordering::AcqRel);
    // Pairs with the fence in `Observer::sleep_dyn` (see `OBSERVERS`).
    fence(Ordering::SeqCst);
    let waiting = OBSERVERS.load(Ordering::Relaxed);
    if waiting != 0 {
        wake_waiting(waiting);
    }
}

/// Wake what `waiting` (the count read by [`changed`]) says waits: the
/// driver's slot, the list, or both.
#[inline(always)]
fn wake_waiting(waiting: usize) {
    if waiting & change_wait::DRIVER != 0 {
        change_wait::wake_driver();
    }
    if waiting & !change_wait::DRIVER != 0 {
        WAITERS.wake_all();
    }
}

/// The change counter (wraps; compare for inequality only).
pub(crate) fn epoch() -> u32 {
    EPOCH.load(Ordering::Acquire)
}

/// A driver's snapshot `since` (read before its pass), moved past the
/// change a step of the pass made: the caller knows the step made at least
/// one change after `since` was read. If the epoch moved by exactly one
/// since then, that one was the step's (increments are atomic), so the
/// driver's wait need not end for it; if it moved by more, another change
/// may be among them, `since` stays, and the wait ends at once.
// A step that made two changes (a lifecycle sink calling `request_scale`,
// say) only means no skip. Its user is the pool pass (and loom's model 4d).
#[cfg_attr(not(any(feature = "pool", loom)), allow(dead_code))]
pub(crate) fn past_own_change(since: &mut u32) {
    let after = since.wrapping_add(1);
    if epoch() == after {
        *since = after;
    }
}

pin_project_lite::pin_project! {
    /// One observer's place in the wait list: empty until it waits, then an
    /// entry that the next change completes. Embed it (pinned) in a future
    /// that re-checks its condition; it holds no slot anywhere else.
    pub(crate) struct Observer {
        #[pin]
        // Once `Some`, never `None` again: it is counted in `OBSERVERS`
        // from its first join until the drop.
        entry: Option<Wait<'static>>,
    }

    impl PinnedDrop for Observer {
        fn drop(this: Pin<&mut Self>) {
            if this.project().entry.is_some() {
                OBSERVERS.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

impl Observer {
    pub(crate) const fn new() -> Self {
        Self { entry: None }
    }

    /// Make sure the task behind `cx` is woken by the next change, calling
    /// `holds` once the entry is in the list: `true` if it held (the change
    /// it waits for happened, possibly just before the entry joined).
    ///
    /// No lost wake-up: a fresh entry sees every change made after it was
    /// created, and `holds` is checked after creating it.
    pub(crate) fn sleep(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut holds: impl FnMut() -> bool,
    ) -> bool {
        self.sleep_dyn(cx, &mut holds)
    }

    // One out-of-line copy for every kind of wait (flash): the condition
    // is the only part that differs, and a wait is the slow path.
    #[inline(never)]
    fn sleep_dyn(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        holds: &mut dyn FnMut() -> bool,
    ) -> bool {
        let mut entry = self.project().entry;
        // An entry still in the list keeps waiting (polling it refreshes
        // its waker); one completed by a change is spent: join again.
        if entry
            .as_mut()
            .as_pin_mut()
            .is_some_and(|wait| wait.poll(cx).is_pending())
        {
            return holds();
        }
        if entry.is_none() {
            OBSERVERS.fetch_add(1, Ordering::Relaxed);
            // Pairs with the fence in `changed` (see `OBSERVERS`): the
            // check below sees any change that read the count as zero.
            fence(Ordering::SeqCst);
        }
        entry.set(Some(WAITERS.wait()));
        if holds() {
            return true;
        }
        if entry
            .as_mut()
            .as_pin_mut()
            .is_some_and(|wait| wait.poll(cx).is_ready())
        {
            // A change landed between creating the entry and polling it:
            // the caller re-checks (the wake is already queued).
            cx.waker().wake_by_ref();
        }
        false
    }
}

/// Resolve once `ready()` returns `Some`. The condition is checked before and
/// after joining the wait list, so a change in between is never missed.
pub(crate) async fn wait_for<T>(mut ready: impl FnMut() -> Option<T>) -> T {
    WaitFor {
        ready: &mut ready,
        observer: Observer::new(),
    }
    .await
}

pin_project_lite::pin_project! {
    struct WaitFor<'a, F> {
        ready: &'a mut F,
        #[pin]
        observer: Observer,
    }
}

impl<T, F: FnMut() -> Option<T>> Future for WaitFor<'_, F> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let this = self.project();
        if let Some(v) = (this.ready)() {
            return Poll::Ready(v);
        }
        let mut got = None;
        this.observer.sleep(cx, || {
            got = (this.ready)();
            got.is_some()
        });
        match got {
            Some(v) => Poll::Ready(v),
            None => Poll::Pending,
        }
    }
}

/// Build this execution's notifier and counters now (loom only: a model
/// calls it before it spawns its threads). Loom models a lazy static's
/// first use as a release by the thread that builds it and an acquire by
/// every later user: built mid-race, that is an ordering the device does
/// not have, which could hide a missing fence.
#[cfg(loom)]
pub(crate) fn build_statics() {
    let _ = (&*WAITERS, &*OBSERVERS, &*EPOCH, &*ACTIVATIONS, &*STOPPING);
    change_wait::build_statics();
}
