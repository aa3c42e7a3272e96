//! PASS/FAIL bookkeeping of the on-target suite: every check prints its name
//! and verdict; [`finish`] exits 0 only if every check passed and at least one ran.

use portable_atomic::{AtomicU32, Ordering};

static PASSED: AtomicU32 = AtomicU32::new(0);
static FAILED: AtomicU32 = AtomicU32::new(0);

/// Record one named check.
pub fn check(name: &str, ok: bool) -> bool {
    if ok {
        PASSED.add(1, Ordering::AcqRel);
        crate::println!("PASS {}", name);
    } else {
        FAILED.add(1, Ordering::AcqRel);
        crate::println!("FAIL {}", name);
    }
    ok
}

/// Print the tally and end the run: 0 if all passed, 1 otherwise.
pub fn finish() -> ! {
    let (p, f) = (
        PASSED.load(Ordering::Acquire),
        FAILED.load(Ordering::Acquire),
    );
    crate::println!("{} passed, {} failed on {}", p, f, crate::board::NAME);
    crate::exit(if f == 0 && p > 0 { 0 } else { 1 })
}
