//! The critical section of the two-core board (`critical-section`'s
//! implementation for the whole firmware).
//!
//! Why it is sound: a critical section promises that no other code touching
//! the protected state runs until it ends. On one core that other code is an
//! interrupt handler; here it is also whatever runs on the other core.
//!
//! - `acquire` masks interrupts on this core (PRIMASK) first, so no handler
//!   on this core can run, and so this core cannot be preempted while it
//!   holds the lock (a handler that then waited for the lock would spin
//!   forever).
//! - It then takes a spinlock in RAM that both cores see. The lock word holds
//!   the owner's core number + 1; the compare-exchange (LDREX/STREX, which
//!   the M33 has) lets exactly one core move it from 0, with Acquire ordering
//!   so the protected reads and writes cannot move before it. `release`
//!   stores 0 with Release ordering, so they cannot move after it.
//! - Nested sections on the same core (`critical_section::with` inside
//!   another) find the lock word already holding their own core's number:
//!   they neither spin on themselves nor release it early. No other core and
//!   no handler on this core can write that value, so seeing it proves we
//!   are nested.
//! - Memory is shared and uncached on the data side (the SSE-200's only cache
//!   is an instruction cache), so both cores see one lock word. QEMU makes
//!   LDREX/STREX atomic across its emulated cores; on silicon the pair needs
//!   a global exclusive monitor for that RAM (the Cortex-M33 TRM leaves
//!   exclusives to external memory to the system).
//! - While spinning, the core issues YIELD: a hint on silicon; under QEMU's
//!   round-robin (`-icount`) it hands the host thread to the other core, which
//!   is what lets the holder finish.
//!
//! NMI and HardFault are not masked by PRIMASK; their handlers here never
//! take a critical section.

use core::sync::atomic::{AtomicU32, Ordering};

use super::cores;

/// 0: free; otherwise the owning core's number + 1.
static LOCK: AtomicU32 = AtomicU32::new(0);

/// `RawRestoreState` bits.
const INTERRUPTS_WERE_ON: u8 = 1 << 0;
const TOOK_LOCK: u8 = 1 << 1;

struct TwoCoreSection;
critical_section::set_impl!(TwoCoreSection);

// Safety: see the module documentation.
unsafe impl critical_section::Impl for TwoCoreSection {
    unsafe fn acquire() -> critical_section::RawRestoreState {
        let was_on = cortex_m::register::primask::read().is_inactive();
        cortex_m::interrupt::disable();
        let me = cores::id() as u32 + 1;
        let mut state = if was_on { INTERRUPTS_WERE_ON } else { 0 };
        if LOCK.load(Ordering::Relaxed) != me {
            while LOCK
                .compare_exchange_weak(0, me, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                // Safety: YIELD is a hint with no effect on state.
                unsafe { core::arch::asm!("yield", options(nomem, nostack)) };
            }
            state |= TOOK_LOCK;
        }
        state
    }

    unsafe fn release(state: critical_section::RawRestoreState) {
        if state & TOOK_LOCK != 0 {
            LOCK.store(0, Ordering::Release);
        }
        if state & INTERRUPTS_WERE_ON != 0 {
            // Safety: interrupts were on when the matching `acquire` ran.
            unsafe { cortex_m::interrupt::enable() };
        }
    }
}
