//! Executors without a platform feature: a thread executor that sleeps with
//! WFI (QEMU treats WFE as a yield, so the stock WFE loop would keep a host
//! core busy) and an interrupt-priority tier polled from a spare IRQ.

use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

use cortex_m::interrupt::InterruptNumber;
use cortex_m::peripheral::NVIC;
use embassy_executor::{SendSpawner, Spawner, raw};
use portable_atomic::{AtomicBool, Ordering};

/// Pender context of the thread executor; any other value is an IRQ number.
const THREAD: usize = usize::MAX;

static THREAD_WOKEN: AtomicBool = AtomicBool::new(false);

#[derive(Clone, Copy)]
pub(super) struct Irq(pub u16);

// Safety: `Irq` only carries IRQ numbers of this board (< 496).
unsafe impl InterruptNumber for Irq {
    fn number(self) -> u16 {
        self.0
    }
}

#[unsafe(export_name = "__pender")]
fn pender(context: *mut ()) {
    let context = context as usize;
    if context == THREAD {
        THREAD_WOKEN.store(true, Ordering::Release);
    } else {
        NVIC::pend(Irq(context as u16));
    }
}

struct StaticExecutor(UnsafeCell<MaybeUninit<raw::Executor>>);
// Safety: written once by `run` before any spawner exists, then only shared.
unsafe impl Sync for StaticExecutor {}

static THREAD_EXECUTOR: StaticExecutor = StaticExecutor(UnsafeCell::new(MaybeUninit::uninit()));

/// Run the thread executor forever. Call once, from `main`.
pub fn run(init: impl FnOnce(Spawner)) -> ! {
    // Safety: `run` never returns and is called once, so this is the only
    // write, before any reference to the executor exists.
    let executor: &'static raw::Executor =
        unsafe { (*THREAD_EXECUTOR.0.get()).write(raw::Executor::new(THREAD as *mut ())) };
    init(executor.spawner());
    loop {
        // Cleared before polling: a wake during the poll sets it again.
        THREAD_WOKEN.store(false, Ordering::Release);
        // Safety: never reentrant; the pender only sets a flag.
        unsafe { executor.poll() };
        cortex_m::interrupt::disable();
        if !THREAD_WOKEN.load(Ordering::Acquire) {
            // An interrupt pending while masked still ends WFI.
            cortex_m::asm::wfi();
        }
        // Safety: re-enables what the line above masked.
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
    pub const fn new() -> Self {
        Self {
            executor: UnsafeCell::new(MaybeUninit::uninit()),
            started: AtomicBool::new(false),
        }
    }

    /// Start the tier on `irq`; `None` if it was already started.
    pub fn start(&'static self, irq: u16) -> Option<SendSpawner> {
        if critical_section::with(|_| {
            let was = self.started.load(Ordering::Acquire);
            self.started.store(true, Ordering::Release);
            was
        }) {
            return None;
        }
        // Safety: the `started` latch makes this the only write, and the
        // IRQ is unmasked only after it.
        let executor: &'static raw::Executor =
            unsafe { (*self.executor.get()).write(raw::Executor::new(irq as usize as *mut ())) };
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
