//! The one place the runtime takes its atomics, fences and the few other
//! primitives its lifecycle protocol is made of, so the protocol can be
//! model-checked under [loom](https://docs.rs/loom) (`RUSTFLAGS="--cfg
//! loom"`, `tests/loom_*.rs`, `docs/runtime.md`, "The protocol under loom").
//!
//! In every normal build these are `portable_atomic`'s types (and the
//! embassy items below) re-exported as they are: no wrapper, no cost; on a
//! target without compare-and-swap, `cs_atomic`'s (native loads). Under
//! `cfg(loom)` they are loom's, whose every access is a point where loom
//! switches threads, and three things change shape:
//! - loom's atomics have no `const fn new`, so a constructor that builds one
//!   is declared through [`const_unless_loom!`] (const in normal builds);
//! - a `static` that holds one is declared through [`fresh_static!`]: a
//!   plain static normally, a `loom::lazy_static!` under loom, which loom
//!   builds afresh for each explored execution (the crate-wide notifier and
//!   counters start at zero in every interleaving);
//! - what cannot run under loom gets a stand-in (see [`Mutex`] and
//!   [`task`]).

#[cfg(all(not(loom), target_has_atomic = "8"))]
#[allow(unused_imports)]
pub(crate) use portable_atomic::{
    AtomicBool, AtomicPtr, AtomicU8, AtomicU16, AtomicU32, AtomicUsize, Ordering, fence,
};

/// A target without compare-and-swap (ARMv6-M): native loads, writes under
/// the critical section (`cs_atomic.rs` says why not `portable_atomic`'s).
#[cfg(all(not(loom), not(target_has_atomic = "8")))]
#[allow(unused_imports)]
pub(crate) use crate::cs_atomic::{
    AtomicBool, AtomicPtr, AtomicU8, AtomicU16, AtomicU32, AtomicUsize,
};
#[cfg(all(not(loom), not(target_has_atomic = "8")))]
#[allow(unused_imports)]
pub(crate) use core::sync::atomic::{Ordering, fence};

#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU8, AtomicU16, AtomicU32, AtomicUsize, Ordering, fence,
};

// The atomic a public type is made of (`RestartLog`): loom's under loom,
// else `portable_atomic`'s on every target, so the public API does not
// change with the target.
#[cfg(loom)]
#[allow(unused_imports)]
pub(crate) use loom::sync::atomic::AtomicU32 as PublicAtomicU32;
#[cfg(not(loom))]
#[allow(unused_imports)]
pub(crate) use portable_atomic::AtomicU32 as PublicAtomicU32;

/// `a.fetch_update(AcqRel, Acquire, f)` whose first try expects `seen`, a
/// value the caller has just read from `a` (an Acquire load, to decide
/// whether to try at all): the update's own first load is that one. A stale
/// `seen` only costs a failed compare and a retry, as any lost race does.
/// Without compare-and-swap (ARMv6-M) the critical section reads `a` once
/// anyway, and `seen` is not needed.
#[inline(always)]
pub(crate) fn update_from(
    a: &AtomicU16,
    seen: u16,
    f: impl Fn(u16) -> Option<u16>,
) -> Result<u16, u16> {
    #[cfg(any(loom, target_has_atomic = "8"))]
    {
        // The first try outside the loop: a caller that tested `seen` as
        // `f` does lets the compiler drop `f`'s test of it.
        let cas =
            |prev, next| a.compare_exchange_weak(prev, next, Ordering::AcqRel, Ordering::Acquire);
        let mut tried = cas(seen, f(seen).ok_or(seen)?);
        loop {
            match tried {
                Ok(p) => return Ok(p),
                Err(p) => tried = cas(p, f(p).ok_or(p)?),
            }
        }
    }
    #[cfg(not(any(loom, target_has_atomic = "8")))]
    {
        let _ = seen;
        a.fetch_update(Ordering::AcqRel, Ordering::Acquire, f)
    }
}

/// A `const fn` in normal builds, a plain `fn` under loom (whose atomics
/// cannot be built in const context). Wrap only constructors that build an
/// atomic; everything else stays `const fn` everywhere.
macro_rules! const_unless_loom {
    ($(#[$m:meta])* $vis:vis const fn $name:ident $args:tt -> $ret:ty $body:block) => {
        #[cfg(not(loom))]
        $(#[$m])* $vis const fn $name $args -> $ret $body
        #[cfg(loom)]
        $(#[$m])* $vis fn $name $args -> $ret $body
    };
}
pub(crate) use const_unless_loom;

/// A `static` in normal builds; under loom a `loom::lazy_static!`, fresh in
/// every execution loom explores (method calls auto-deref, so the users
/// read the same either way).
macro_rules! fresh_static {
    ($(#[$m:meta])* static $name:ident: $ty:ty = $init:expr;) => {
        #[cfg(not(loom))]
        $(#[$m])* static $name: $ty = $init;
        #[cfg(loom)]
        loom::lazy_static! { $(#[$m])* static ref $name: $ty = $init; }
    };
}
pub(crate) use fresh_static;

/// The blocking mutex of the node's waker slot: embassy-sync's over the
/// application's critical section. Under loom the critical section (std's
/// implementation: one OS thread runs every loom thread, so its
/// thread-local reentrancy flag would let a second loom thread in while
/// the first is preempted inside, at the waker's wake) is replaced by a loom
/// mutex: the same exclusion, and loom explores preemptions inside it.
#[cfg(not(loom))]
pub(crate) use embassy_sync::blocking_mutex::Mutex;

/// See the `not(loom)` item: the loom stand-in of embassy-sync's mutex,
/// with the one method the runtime calls.
#[cfg(loom)]
pub(crate) struct Mutex<R, T>(loom::sync::Mutex<T>, core::marker::PhantomData<R>);

#[cfg(loom)]
impl<R, T> Mutex<R, T> {
    pub(crate) fn new(value: T) -> Self {
        Self(loom::sync::Mutex::new(value), core::marker::PhantomData)
    }

    pub(crate) fn lock<U>(&self, f: impl FnOnce(&T) -> U) -> U {
        f(&self.0.lock().expect("a loom mutex is never poisoned"))
    }
}

/// Embassy's task handles: a resident shell pins its task and every wake of
/// the node's own task is `wake_task` on it (`node/waiter.rs`).
#[cfg(not(loom))]
pub(crate) mod task {
    pub(crate) use embassy_executor::raw::{TaskRef, task_from_waker, wake_task};
}

/// Under loom there is no embassy executor: a task is a loom thread driving
/// its future (`loom::future::block_on`), known by its waker. The stand-in
/// keeps embassy's contract: [`task_from_waker`](task::task_from_waker)
/// names the task behind a waker (the same task for the same waker, a
/// different one for another), [`wake_task`](task::wake_task) wakes it,
/// and a task woken while it is polled is polled again (`block_on`'s
/// notify). The table is fresh per execution, its wakers dropped with it.
#[cfg(loom)]
pub(crate) mod task {
    extern crate std;
    use core::task::Waker;
    use std::vec::Vec;

    /// A task: its index in this execution's table.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub(crate) struct TaskRef(usize);

    loom::lazy_static! {
        static ref TASKS: loom::sync::Mutex<Vec<Waker>> = loom::sync::Mutex::new(Vec::new());
    }

    /// Build this execution's table before the model's threads start (see
    /// `notify::build_statics`).
    pub(crate) fn build_statics() {
        let _ = &*TASKS;
    }

    /// The task behind `w` (registered at its first sight).
    pub(crate) fn task_from_waker(w: &Waker) -> TaskRef {
        let mut tasks = TASKS.lock().expect("a loom mutex is never poisoned");
        if let Some(i) = tasks.iter().position(|t| t.will_wake(w)) {
            return TaskRef(i);
        }
        tasks.push(w.clone());
        TaskRef(tasks.len() - 1)
    }

    /// Wake `task` (its waker is cloned out of the table: the wake runs
    /// outside the table's lock, as embassy's runs outside any).
    pub(crate) fn wake_task(task: TaskRef) {
        let w = TASKS.lock().expect("a loom mutex is never poisoned")[task.0].clone();
        w.wake();
    }
}
