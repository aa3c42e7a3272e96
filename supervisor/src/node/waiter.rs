//! Where a task waits on one node (for a stop, a resume, a handed-over
//! activation, a lifted fault): the node's resident shell task, pinned
//! once; else the node's one waker slot, or its place among the crate-wide
//! observers.
//!
//! A resident shell (`node/resident.rs`) never ends and never leaves its
//! executor, so its task is pinned at its first poll ([`TaskWaker::pin`],
//! write-once) and every wake of the node's own task is then embassy's
//! lock-free `wake_task` on it: its waits register nothing, hold nothing and
//! give nothing back (an identity test, no critical section).
//!
//! On a node without a pinned task the slot belongs to one *wait* (a
//! [`NodeWait`], living in the waiting future), not to a task or an
//! instance: the wait that finds it free holds it until the wait ends,
//! completed or dropped, and empties it then. Wakes leave it in place. So
//! the slot only ever holds the waker of a wait that is still there:
//! - nothing else empties it, so no waiter's waker is dropped unwoken, at a
//!   spawn or anywhere (a task may wait on a node before its first spawn,
//!   or across its instances);
//! - a task that ended took its waker with it, so a stop never wakes a
//!   finished task (whose storage the wake would queue, and a spawn into it
//!   would then fail `Busy` until the executor's next pass).
//!
//! Any other wait on the node (a second one, or any wait of another task on
//! a node a resident shell runs, before its pin too) waits with the
//! observers, which the node's stops, resumes and hand-overs then also wake
//! (`SHARED_WAIT`).

use core::pin::Pin;
use core::task::{Context, RawWakerVTable, Waker};

use crate::sync::task::{TaskRef, task_from_waker, wake_task};
use crate::sync::{AtomicPtr, Ordering, const_unless_loom, fresh_static};
use embassy_sync::once_lock::OnceLock;

use super::{TaskNode, flag};
use crate::notify::Observer;
use crate::waker_cell::WakerCell;

fresh_static! {
    /// The vtable of embassy's task wakers, recorded at every pin (always the
    /// same one) before the node's `RESIDENT` is released: a waker with it is
    /// one of embassy's (a pointer compared, never dereferenced).
    static EMBASSY_WAKER: AtomicPtr<RawWakerVTable> = AtomicPtr::new(core::ptr::null_mut());
}

/// The node's own task: pinned for life (a resident shell), or the waker
/// slot (the waker of the one wait that holds it).
pub(super) struct TaskWaker {
    slot: WakerCell,
    /// Written once, before the node's `RESIDENT` bit is released: read it
    /// only after an Acquire read of the flags that saw that bit (embassy's
    /// `try_get` is a Relaxed load).
    pinned: OnceLock<TaskRef>,
}

impl TaskWaker {
    const_unless_loom! {
        pub(super) const fn new() -> Self {
            Self {
                slot: WakerCell::new(),
                pinned: OnceLock::new(),
            }
        }
    }

    /// Pin the task behind `w` (an embassy task's own waker: the generated
    /// shell's top-level poll) as the node's task for life. The caller then
    /// releases `RESIDENT`. With `slot_used` (a node whose spec does not
    /// say it has a resident shell), a wait holding the slot is woken, so
    /// that it re-registers with the observers (a pinned node's other waits
    /// wait there).
    pub(super) fn pin(&self, w: &Waker, slot_used: bool) {
        let vtable = core::ptr::from_ref(w.vtable()).cast_mut();
        // Without compare-and-swap (ARMv6-M) a store takes the critical
        // section (`cs_atomic`): skip it when the (always same) vtable is
        // recorded already. Elsewhere the store is one instruction.
        if cfg!(target_has_atomic = "8") || EMBASSY_WAKER.load(Ordering::Relaxed) != vtable {
            EMBASSY_WAKER.store(vtable, Ordering::Relaxed);
        }
        let _ = self.pinned.init(task_from_waker(w));
        if slot_used {
            self.wake_slot();
        }
    }

    /// `w` wakes the pinned task (call after seeing `RESIDENT`).
    #[inline]
    pub(super) fn is_pinned(&self, w: &Waker) -> bool {
        let Some(&task) = self.pinned.try_get() else {
            return false;
        };
        if !core::ptr::eq(w.vtable(), EMBASSY_WAKER.load(Ordering::Relaxed)) {
            return false;
        }
        // One of embassy's wakers: its data is its task's header, which is
        // what `TaskRef::id` reads (the whole address on 32-bit targets).
        #[cfg(target_pointer_width = "32")]
        return w.data() as usize as u32 == task.id();
        #[cfg(not(target_pointer_width = "32"))]
        return task_from_waker(w) == task;
    }

    /// Keep `w` in the slot for the wait that holds it (`*holder`), or let a
    /// wait that finds the slot free take it. `false` (nothing stored) if
    /// another wait holds it: that one is never displaced (two waits
    /// displacing each other would wake each other forever). With
    /// `same_task`, a wait that finds the slot held with its own task's
    /// waker counts as registered without holding it.
    fn hold(&self, w: &Waker, holder: &mut bool, same_task: bool) -> bool {
        let (stored, replaced) = self.slot.with(|cell| match cell.take() {
            Some(old) if !*holder => {
                let own = same_task && old.will_wake(w);
                cell.set(Some(old));
                (own, None)
            }
            Some(old) if old.will_wake(w) => {
                cell.set(Some(old));
                (true, None)
            }
            old => {
                cell.set(Some(w.clone()));
                *holder = true;
                (true, old)
            }
        });
        // Out of the critical section: a waker's drop may run any code.
        drop(replaced);
        stored
    }

    /// The holding wait ended: empty the slot (its waker is dropped outside
    /// the critical section).
    fn release(&self) {
        self.slot.clear();
    }

    /// Wake the node's own task, given the node's flags read (Acquire) by
    /// the step that makes the change: the pinned task, lock-free, if
    /// `RESIDENT` was set; else the slot's holder.
    // Always inline: as `hand_over`, which calls it on every resident
    // bring-up (out of line, +2 a node on CHAIN(64) activate(last)).
    #[inline(always)]
    pub(super) fn wake(&self, flags: u16) {
        match self.pinned.try_get() {
            Some(&task) if flags & flag::RESIDENT != 0 => wake_task(task),
            _ => self.wake_slot(),
        }
    }

    /// Wake the holding wait's task; the slot stays held.
    fn wake_slot(&self) {
        self.slot.wake();
    }
}

pin_project_lite::pin_project! {
    /// One wait on a node, embedded (pinned) in the waiting future: it holds
    /// the node's waker slot or a place among the observers, and gives the
    /// slot back when dropped.
    pub(crate) struct NodeWait<'a> {
        node: &'a TaskNode,
        // This wait holds the node's waker slot.
        holder: bool,
        #[pin]
        observer: Observer,
    }

    impl PinnedDrop for NodeWait<'_> {
        fn drop(this: Pin<&mut Self>) {
            let this = this.project();
            if *this.holder {
                this.node.task_waker.release();
            }
        }
    }
}

impl<'a> NodeWait<'a> {
    pub(crate) const fn new(node: &'a TaskNode) -> Self {
        Self {
            node,
            holder: false,
            observer: Observer::new(),
        }
    }

    /// The node waited on.
    pub(crate) fn node(&self) -> &'a TaskNode {
        self.node
    }

    /// True once `done` holds; otherwise the task behind `cx` is registered
    /// to be woken by the node's next stop, resume or hand-over: in the
    /// node's waker slot if this wait holds it or finds it free, else with
    /// the observers. `done` is checked again after registering, so a
    /// change landing in between is never missed.
    // The first check inline (with `done` known at the call site, a flag
    // test): a wait that is over at once (a hand-over already made) costs
    // no call; registering stays out of line.
    // The pinned task's identity test inline too: its wait registers
    // nothing, and any change after the check wakes it (a task woken while
    // it is polled is polled again), so no second check.
    #[inline]
    pub(crate) fn until(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        done: fn(&TaskNode) -> bool,
    ) -> bool {
        let node = self.node;
        if done(node) {
            return true;
        }
        if node.has(flag::RESIDENT) && node.task_waker.is_pinned(cx.waker()) {
            return false;
        }
        self.register(cx, done, false)
    }

    /// [`until`](Self::until) for a wait that wraps all of its task's other
    /// waits on the node and runs again after every poll of them
    /// (`with_faults`): the slot held with its own task's waker already
    /// wakes it, and if that holder ends, this wait's next run registers
    /// anew.
    #[cfg(feature = "fault-inject")]
    pub(crate) fn until_around(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        done: fn(&TaskNode) -> bool,
    ) -> bool {
        self.check_then_register(cx, done)
    }

    /// [`until_around`](Self::until_around)'s body, out of line as a whole
    /// (fault shells are no hot path). With its first check inline, the
    /// firmware `inject` bin's hog check (the hogged poll measures at least
    /// the hog's ticks, by a margin of about a dozen ticks under QEMU)
    /// failed by 4 ticks.
    #[cfg(feature = "fault-inject")]
    #[inline(never)]
    fn check_then_register(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        done: fn(&TaskNode) -> bool,
    ) -> bool {
        let node = self.node;
        if done(node) {
            return true;
        }
        // The pinned task: every change wakes it, nothing to register
        // (`until`'s test; `register` handles only other waits).
        if node.has(flag::RESIDENT) && node.task_waker.is_pinned(cx.waker()) {
            return false;
        }
        self.register(cx, done, true)
    }

    /// `done` did not hold: register, then check it again. Never the
    /// pinned task's wait (its callers test that first).
    #[inline(never)]
    fn register(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        done: fn(&TaskNode) -> bool,
        same_task: bool,
    ) -> bool {
        let this = self.project();
        let node = *this.node;
        if node.has(flag::RESIDENT) {
            // Another task on a pinned node: with the observers. A wait
            // that held the slot since before the pin gives it back.
            if core::mem::take(this.holder) {
                node.task_waker.release();
            }
        } else if node.has_resident_shell() {
            // Before the shell's pin (its first poll): this is another
            // task's wait, which waits with the observers from the start.
        } else if node.task_waker.hold(cx.waker(), this.holder, same_task) {
            return done(node);
        }
        // Set before joining: a stop reads the flag in the same atomic step
        // that sets its bit, so it either sees the flag and notifies, or ran
        // first and `done` below sees it.
        node.state.fetch_or(flag::SHARED_WAIT, Ordering::AcqRel);
        this.observer.sleep(cx, || done(node))
    }
}
