//! Executors. embassy-executor is used without a platform feature: this
//! module supplies the `__pender` and both run loops.
//!
//! - The thread executor polls, then masks interrupts and sleeps with WFI
//!   unless a wake arrived meanwhile (QEMU treats WFE as a yield, so the stock
//!   WFE loop would spin a host core). An interrupt pending while masked still
//!   ends WFI, so a wake from an ISR is never slept through.
//! - [`IrqExecutor`] runs a second tier in the handler of a spare IRQ; its
//!   pender pends that IRQ.
//! - On the two-core an521 each core runs its own thread executor. A pender
//!   context names the executor's core; waking an executor on the other core
//!   also rings that core's doorbell (an NVIC and a WFI are per core).

use core::cell::{Cell, UnsafeCell};
use core::mem::MaybeUninit;

use cortex_m::interrupt::InterruptNumber;
use cortex_m::peripheral::NVIC;
use embassy_executor::{SendSpawner, Spawner, raw};

use critical_section::Mutex;
use portable_atomic::{AtomicBool, Ordering};

/// Cores that run an executor.
#[cfg(feature = "an521")]
pub const CORES: usize = 2;
/// Cores that run an executor.
#[cfg(not(feature = "an521"))]
pub const CORES: usize = 1;

/// The core running this code.
pub fn core_id() -> usize {
    #[cfg(feature = "an521")]
    return crate::an521::cores::id();
    #[cfg(not(feature = "an521"))]
    0
}

/// Pender contexts. One core: the IRQ number of an interrupt tier, or
/// `usize::MAX` for the thread executor. Two cores: the executor's core in
/// the bits above 12, below them its IRQ number or 0xFFF for the core's
/// thread executor.
#[cfg(not(feature = "an521"))]
fn context(_core: usize, irq_or_thread: usize) -> *mut () {
    irq_or_thread as *mut ()
}
#[cfg(not(feature = "an521"))]
const THREAD: usize = usize::MAX;

#[cfg(feature = "an521")]
const CORE_SHIFT: usize = 12;
#[cfg(feature = "an521")]
const THREAD: usize = (1 << CORE_SHIFT) - 1;
#[cfg(feature = "an521")]
fn context(core: usize, irq_or_thread: usize) -> *mut () {
    ((core << CORE_SHIFT) | irq_or_thread) as *mut ()
}

static THREAD_WOKEN: [AtomicBool; CORES] = [const { AtomicBool::new(false) }; CORES];

/// An interrupt number for the NVIC calls of the board layer.
#[derive(Clone, Copy)]
pub(crate) struct Irq(pub(crate) u16);

// Safety: `Irq` only ever carries a board's spare IRQ number (< 496).
unsafe impl InterruptNumber for Irq {
    fn number(self) -> u16 {
        self.0
    }
}

#[cfg(not(feature = "an521"))]
#[unsafe(export_name = "__pender")]
fn pender(context: *mut ()) {
    let context = context as usize;
    if context == THREAD {
        THREAD_WOKEN[0].store(true, Ordering::Release);
    } else {
        NVIC::pend(Irq(context as u16));
    }
}

/// Waking an executor on the other core also rings that core's doorbell:
/// its WFI and its NVIC are its own.
#[cfg(feature = "an521")]
#[unsafe(export_name = "__pender")]
fn pender(context: *mut ()) {
    use crate::an521::doorbell;
    let (core, irq) = (context as usize >> CORE_SHIFT, context as usize & THREAD);
    let here = core == core_id();
    if irq == THREAD {
        THREAD_WOKEN[core].store(true, Ordering::Release);
        if !here {
            doorbell::ring(core, doorbell::WAKE);
        }
    } else if here {
        NVIC::pend(Irq(irq as u16));
    } else {
        doorbell::ring(core, doorbell::PEND_SPARE);
    }
}

struct StaticExecutor(UnsafeCell<MaybeUninit<raw::Executor>>);
// Safety: written once by `run` before any spawner exists, then only shared.
unsafe impl Sync for StaticExecutor {}

static THREAD_EXECUTORS: [StaticExecutor; CORES] =
    [const { StaticExecutor(UnsafeCell::new(MaybeUninit::uninit())) }; CORES];

/// The first instant the executor went to sleep after [`arm_idle_probe`]
/// (benchmark support: "when did the work I started run out?").
static IDLE_AT: Mutex<Cell<u64>> = Mutex::new(Cell::new(0));
static IDLE_ARMED: AtomicBool = AtomicBool::new(false);

/// Record the next moment the thread executor runs out of work.
pub fn arm_idle_probe() {
    IDLE_ARMED.store(true, Ordering::Release);
}

/// The moment recorded since [`arm_idle_probe`], in embassy ticks (`None`
/// if the executor has not gone idle since).
pub fn idle_at() -> Option<u64> {
    (!IDLE_ARMED.load(Ordering::Acquire))
        .then(|| critical_section::with(|cs| IDLE_AT.borrow(cs).get()))
}

/// Run this core's thread executor forever. Call once per core: from `main`
/// (and, on the an521, core 1's entry does it for core 1).
pub fn run(init: impl FnOnce(Spawner)) -> ! {
    let core = core_id();
    // Safety: `run` is called once per core (it never returns), so this is
    // the only write to this core's executor, and it happens before any
    // reference to it exists.
    let executor: &'static raw::Executor = unsafe {
        (*THREAD_EXECUTORS[core].0.get()).write(raw::Executor::new(context(core, THREAD)))
    };
    let woken = &THREAD_WOKEN[core];
    init(executor.spawner());
    loop {
        // Cleared before polling: a wake during the poll sets it again and
        // keeps us from sleeping on queued work.
        woken.store(false, Ordering::Release);
        // Safety: never reentrant; the pender only sets a flag (and rings a
        // doorbell).
        unsafe { executor.poll() };
        cortex_m::interrupt::disable();
        // A wake from the other core after this check rings the doorbell,
        // whose pending interrupt ends the WFI below.
        if !woken.load(Ordering::Acquire) {
            if core == 0 && IDLE_ARMED.load(Ordering::Acquire) {
                // Interrupts are masked here: this is a critical section already.
                critical_section::with(|cs| IDLE_AT.borrow(cs).set(embassy_time_driver::now()));
                IDLE_ARMED.store(false, Ordering::Release);
            }
            cortex_m::asm::wfi();
        }
        // Safety: re-enables what the line above masked; no critical section
        // is open across the loop.
        unsafe { cortex_m::interrupt::enable() };
    }
}

/// An executor polled from a spare interrupt's handler: a higher-priority tier.
pub struct IrqExecutor {
    executor: UnsafeCell<MaybeUninit<raw::Executor>>,
    started: AtomicBool,
}

// Safety: the executor is written once in `start` (before `started` is
// published) and afterwards only polled from its own IRQ handler.
unsafe impl Sync for IrqExecutor {}

impl IrqExecutor {
    /// A tier that is not started yet.
    pub const fn new() -> Self {
        Self {
            executor: UnsafeCell::new(MaybeUninit::uninit()),
            started: AtomicBool::new(false),
        }
    }

    /// Start the tier on `irq`, on the calling core; `None` if it was already
    /// started. On the an521 call it on core 0: core 1's vector table routes
    /// only its doorbell.
    pub fn start(&'static self, irq: u16) -> Option<SendSpawner> {
        if critical_section::with(|_| {
            let was = self.started.load(Ordering::Acquire);
            self.started.store(true, Ordering::Release);
            was
        }) {
            return None;
        }
        // Safety: the `started` latch above makes this the only write, and
        // the IRQ is unmasked only after it.
        let executor: &'static raw::Executor = unsafe {
            (*self.executor.get()).write(raw::Executor::new(context(core_id(), irq as usize)))
        };
        // Safety: the handler only polls an executor that is initialized.
        unsafe { NVIC::unmask(Irq(irq)) };
        Some(executor.spawner().make_send())
    }

    /// Poll the tier: call from the IRQ's handler and nowhere else.
    pub fn on_interrupt(&'static self) {
        if self.started.load(Ordering::Acquire) {
            // Safety: initialized (see `start`); an IRQ handler does not
            // preempt itself, so this is never reentrant.
            unsafe { (*self.executor.get()).assume_init_ref().poll() };
        }
    }
}

impl Default for IrqExecutor {
    fn default() -> Self {
        Self::new()
    }
}

/// The firmware's interrupt tier, on the board's spare IRQ.
pub static HIGH: IrqExecutor = IrqExecutor::new();
