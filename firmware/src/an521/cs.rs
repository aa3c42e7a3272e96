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
//! - It then takes a ticket spinlock in RAM that both cores see: draw a
//!   ticket (an atomic fetch-add: LDREX/STREX, which the M33 has), wait
//!   until the ticket being served is ours (Acquire, so the protected reads
//!   and writes cannot move before it). `release` serves the next ticket
//!   (Release, so they cannot move after it). Exactly one ticket is served
//!   at a time, so at most one core is inside.
//! - Tickets are served in order, so a core that waits gets the lock next:
//!   the other core cannot take it again and again in between. That matters
//!   here, because a waiting core has its interrupts masked: an unfair lock
//!   could hold off its timer interrupt indefinitely.
//! - Nested sections on the same core (`critical_section::with` inside
//!   another) find the owner word already naming their own core: they
//!   neither wait for themselves nor release early. Only the owning core
//!   writes its own number there (and clears it before serving the next
//!   ticket), so seeing it proves we are nested.
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

/// The next ticket to draw, and the one being served.
static NEXT: AtomicU32 = AtomicU32::new(0);
static SERVING: AtomicU32 = AtomicU32::new(0);
/// 0: no owner; otherwise the owning core's number + 1.
static OWNER: AtomicU32 = AtomicU32::new(0);

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
        if OWNER.load(Ordering::Relaxed) != me {
            let ticket = NEXT.fetch_add(1, Ordering::Relaxed);
            while SERVING.load(Ordering::Acquire) != ticket {
                // Safety: YIELD is a hint with no effect on state.
                unsafe { core::arch::asm!("yield", options(nomem, nostack)) };
            }
            OWNER.store(me, Ordering::Relaxed);
            state |= TOOK_LOCK;
        }
        state
    }

    unsafe fn release(state: critical_section::RawRestoreState) {
        if state & TOOK_LOCK != 0 {
            OWNER.store(0, Ordering::Relaxed);
            // Only the owner writes SERVING: a load and a store suffice.
            let next = SERVING.load(Ordering::Relaxed).wrapping_add(1);
            SERVING.store(next, Ordering::Release);
        }
        if state & INTERRUPTS_WERE_ON != 0 {
            // Safety: interrupts were on when the matching `acquire` ran.
            unsafe { cortex_m::interrupt::enable() };
        }
    }
}
