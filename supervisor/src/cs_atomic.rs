//! The runtime's atomics on a target without compare-and-swap (ARMv6-M,
//! `thumbv6m-none-eabi`): a load is the core's native load; a store and
//! every read-modify-write run under the application's critical section
//! (`critical-section`), which the rest of the runtime already requires.
//!
//! Why not `portable_atomic`'s own: with its `critical-section` feature
//! (the one a library must use, since only the application knows whether
//! interrupts-off is enough) it takes the critical section for loads too.
//! A load is most of what the lifecycle paths do (a node's state read
//! before each step): on the micro:bit every load cost a PRIMASK save,
//! `cpsid`, restore and `isb` around one `ldr`.
//!
//! Why it is sound: every write (store or read-modify-write) holds the one
//! critical section, so writers exclude each other on one core
//! (interrupts off) and on two (an RP2040-style lock); a read-modify-write
//! is then atomic against every other write. A load of an aligned byte,
//! halfword or word is single-copy atomic on ARMv6-M, so it sees a value
//! some write wrote, before or after a concurrent one, never a torn one.
//! Orderings: a load keeps its own (`Acquire` is a `dmb` after it); inside
//! the critical section the accesses are relaxed, as `portable_atomic`'s
//! are: the section's entry and exit order them. `fence` is the core's.
//!
//! Only the methods the runtime calls, with `core`'s signatures; built
//! only where `crate::sync` selects it (and for its host tests).

use core::sync::atomic::{self, Ordering};

/// One integer atomic: native load, critical-section writes.
macro_rules! cs_int {
    ($name:ident, $core:ident, $int:ty) => {
        #[repr(transparent)]
        pub(crate) struct $name(atomic::$core);

        // Which methods a type needs depends on what the runtime keeps in it.
        #[allow(dead_code)]
        impl $name {
            pub(crate) const fn new(v: $int) -> Self {
                Self(atomic::$core::new(v))
            }

            #[inline]
            pub(crate) fn load(&self, order: Ordering) -> $int {
                self.0.load(order)
            }

            #[inline]
            pub(crate) fn store(&self, v: $int, _order: Ordering) {
                critical_section::with(|_| self.0.store(v, Ordering::Relaxed));
            }

            /// The one read-modify-write: `f` of the value, under the
            /// critical section; returns the value before.
            #[inline]
            fn modify(&self, f: impl FnOnce($int) -> $int) -> $int {
                critical_section::with(|_| {
                    let prev = self.0.load(Ordering::Relaxed);
                    self.0.store(f(prev), Ordering::Relaxed);
                    prev
                })
            }

            #[inline]
            pub(crate) fn swap(&self, v: $int, _order: Ordering) -> $int {
                self.modify(|_| v)
            }

            #[inline]
            pub(crate) fn fetch_add(&self, v: $int, _order: Ordering) -> $int {
                self.modify(|x| x.wrapping_add(v))
            }

            #[inline]
            pub(crate) fn fetch_sub(&self, v: $int, _order: Ordering) -> $int {
                self.modify(|x| x.wrapping_sub(v))
            }

            #[inline]
            pub(crate) fn fetch_and(&self, v: $int, _order: Ordering) -> $int {
                self.modify(|x| x & v)
            }

            #[inline]
            pub(crate) fn fetch_or(&self, v: $int, _order: Ordering) -> $int {
                self.modify(|x| x | v)
            }

            #[inline]
            pub(crate) fn compare_exchange(
                &self,
                current: $int,
                new: $int,
                _success: Ordering,
                _failure: Ordering,
            ) -> Result<$int, $int> {
                self.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |x| {
                    (x == current).then_some(new)
                })
            }

            /// `f` runs once, under the critical section (it cannot see
            /// another write, so it is never retried).
            #[inline]
            pub(crate) fn fetch_update(
                &self,
                _set: Ordering,
                _fetch: Ordering,
                f: impl FnOnce($int) -> Option<$int>,
            ) -> Result<$int, $int> {
                critical_section::with(|_| {
                    let prev = self.0.load(Ordering::Relaxed);
                    match f(prev) {
                        Some(next) => {
                            self.0.store(next, Ordering::Relaxed);
                            Ok(prev)
                        }
                        None => Err(prev),
                    }
                })
            }
        }
    };
}

cs_int!(AtomicU8, AtomicU8, u8);
cs_int!(AtomicU16, AtomicU16, u16);
cs_int!(AtomicU32, AtomicU32, u32);
cs_int!(AtomicUsize, AtomicUsize, usize);

/// A boolean atomic: native load, critical-section writes.
#[repr(transparent)]
pub(crate) struct AtomicBool(atomic::AtomicBool);

#[allow(dead_code)]
impl AtomicBool {
    pub(crate) const fn new(v: bool) -> Self {
        Self(atomic::AtomicBool::new(v))
    }

    #[inline]
    pub(crate) fn load(&self, order: Ordering) -> bool {
        self.0.load(order)
    }

    #[inline]
    pub(crate) fn store(&self, v: bool, _order: Ordering) {
        critical_section::with(|_| self.0.store(v, Ordering::Relaxed));
    }

    #[inline]
    pub(crate) fn swap(&self, v: bool, _order: Ordering) -> bool {
        critical_section::with(|_| {
            let prev = self.0.load(Ordering::Relaxed);
            self.0.store(v, Ordering::Relaxed);
            prev
        })
    }
}

/// A pointer atomic: native load, critical-section writes.
#[repr(transparent)]
pub(crate) struct AtomicPtr<T>(atomic::AtomicPtr<T>);

#[allow(dead_code)]
impl<T> AtomicPtr<T> {
    pub(crate) const fn new(p: *mut T) -> Self {
        Self(atomic::AtomicPtr::new(p))
    }

    #[inline]
    pub(crate) fn load(&self, order: Ordering) -> *mut T {
        self.0.load(order)
    }

    #[inline]
    pub(crate) fn store(&self, p: *mut T, _order: Ordering) {
        critical_section::with(|_| self.0.store(p, Ordering::Relaxed));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Ordering = Ordering::Relaxed;

    #[test]
    fn each_write_returns_the_value_before_and_leaves_its_result() {
        let a = AtomicU16::new(5);
        assert_eq!(a.fetch_add(3, R), 5);
        assert_eq!(a.fetch_sub(1, R), 8);
        assert_eq!(a.fetch_or(0x100, R), 7);
        assert_eq!(a.fetch_and(0x106, R), 0x107);
        assert_eq!(a.swap(9, R), 0x106);
        assert_eq!(a.load(R), 9);
        a.store(u16::MAX, R);
        assert_eq!(a.fetch_add(1, R), u16::MAX, "wraps, as core's does");
        assert_eq!(a.load(R), 0);
    }

    #[test]
    fn compare_exchange_and_fetch_update_write_only_on_a_match() {
        let a = AtomicU32::new(1);
        assert_eq!(a.compare_exchange(2, 3, R, R), Err(1));
        assert_eq!(a.load(R), 1);
        assert_eq!(a.compare_exchange(1, 3, R, R), Ok(1));
        assert_eq!(a.load(R), 3);
        assert_eq!(a.fetch_update(R, R, |x| (x > 5).then_some(0)), Err(3));
        assert_eq!(a.fetch_update(R, R, |x| Some(x * 2)), Ok(3));
        assert_eq!(a.load(R), 6);
    }

    /// Writers on several threads (the host's critical section is a global
    /// lock, as a two-core one is): no read-modify-write is lost, and a
    /// plain load only ever sees a value some write wrote.
    #[test]
    fn concurrent_writers_lose_nothing() {
        extern crate std;
        static COUNT: AtomicU32 = AtomicU32::new(0);
        static WORD: AtomicU16 = AtomicU16::new(0);
        std::thread::scope(|s| {
            for t in 0..4u16 {
                s.spawn(move || {
                    for _ in 0..2000 {
                        COUNT.fetch_add(1, R);
                        let _ = COUNT.fetch_update(R, R, |x| Some(x + 1));
                        WORD.store(0x0101 * (t + 1), R);
                        let w = WORD.load(R);
                        assert!(
                            matches!(w, 0x0101 | 0x0202 | 0x0303 | 0x0404),
                            "torn {w:#x}"
                        );
                    }
                });
            }
        });
        assert_eq!(COUNT.load(R), 4 * 2000 * 2);
    }

    #[test]
    fn bool_ptr_and_small_ints() {
        let b = AtomicBool::new(false);
        assert!(!b.swap(true, R));
        assert!(b.load(R));
        b.store(false, R);
        assert!(!b.load(R));

        let mut x = 7u8;
        let p = AtomicPtr::<u8>::new(core::ptr::null_mut());
        assert!(p.load(R).is_null());
        p.store(&mut x, R);
        assert_eq!(p.load(R), &mut x as *mut u8);

        let u = AtomicU8::new(0xF0);
        assert_eq!(u.fetch_and(0x3C, R), 0xF0);
        assert_eq!(u.load(R), 0x30);
        let s = AtomicUsize::new(0);
        assert_eq!(s.fetch_add(2, R), 0);
        assert_eq!(s.load(R), 2);
    }
}
