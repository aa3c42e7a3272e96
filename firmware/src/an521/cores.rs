//! Which core this is, and core 1's bring-up.
//!
//! The SSE-200 holds core 1 at reset while bit 1 of the system control
//! block's CPUWAIT register is set (its reset value on QEMU's mps2-an521);
//! clearing the bit resets core 1, which loads its stack pointer and entry
//! point from the vector table that INITSVTOR1 names. That table must not be
//! core 0's: core 0's reset handler initializes `.data`/`.bss`, which core 1
//! must not redo under core 0's feet. So core 1 gets its own table, built in
//! RAM by core 0, with its own stack and an entry that goes straight to an
//! executor.

use core::cell::UnsafeCell;

use embassy_executor::Spawner;
use portable_atomic::{AtomicBool, AtomicUsize, Ordering};

use super::{Reg, doorbell};

/// CPU_IDENTITY: a per-core register block; CPUID reads 0 on core 0, 1 on core 1.
const CPUID: Reg = Reg(0x5001_F000);
const SYSCTL: usize = 0x5002_1000;
const INITSVTOR1: Reg = Reg(SYSCTL + 0x114);
const CPUWAIT: Reg = Reg(SYSCTL + 0x118);

/// This core's number: 0 or 1.
pub fn id() -> usize {
    (CPUID.read() & 1) as usize
}

/// Core 1 is still held at reset (its CPUWAIT bit set).
pub fn core1_waiting() -> bool {
    CPUWAIT.read() & (1 << 1) != 0
}

/// System exceptions, the SSE-200's 32 internal IRQs and the board's 64
/// expansion IRQs.
const VECTORS: usize = 16 + 32 + 64;
const STACK_BYTES: usize = 16 * 1024;

/// Aligned to the table's size rounded up to a power of two, as VTOR needs.
#[repr(C, align(512))]
struct VectorTable(UnsafeCell<[usize; VECTORS]>);

#[repr(C, align(8))]
struct Stack(UnsafeCell<[u8; STACK_BYTES]>);

// Safety: core 0 writes the table once, before core 1 is released (the
// `STARTED` latch), and nothing writes it afterwards; the stack is only
// ever touched by core 1, through its stack pointer.
unsafe impl Sync for VectorTable {}
unsafe impl Sync for Stack {}

static CORE1_VECTORS: VectorTable = VectorTable(UnsafeCell::new([0; VECTORS]));
static CORE1_STACK: Stack = Stack(UnsafeCell::new([0; STACK_BYTES]));
/// Core 1's `init`, a `fn(Spawner)` stored as an address.
static CORE1_INIT: AtomicUsize = AtomicUsize::new(0);
static STARTED: AtomicBool = AtomicBool::new(false);

/// Release core 1: it runs its own thread executor and calls `init` with its
/// spawner (publish it into the graph's `SpawnerSlot` there). Call from core
/// 0; `false` (and nothing done) if core 1 was already started.
pub fn start_core1(init: fn(Spawner)) -> bool {
    if STARTED.swap(true, Ordering::AcqRel) {
        return false;
    }
    CORE1_INIT.store(init as usize, Ordering::Release);
    let table = CORE1_VECTORS.0.get();
    let stack_top = CORE1_STACK.0.get() as usize + STACK_BYTES;
    // Safety: the `STARTED` latch makes this the only write, and core 1 is
    // still held in CPUWAIT: nothing reads the table yet.
    unsafe {
        (*table)[0] = stack_top;
        (*table)[1] = core1_reset as *const () as usize;
        for entry in (*table).iter_mut().skip(2) {
            *entry = core1_exception as *const () as usize;
        }
    }
    // The table and `init` must be in memory before core 1 fetches them.
    cortex_m::asm::dsb();
    INITSVTOR1.write(table as usize as u32);
    CPUWAIT.write(CPUWAIT.read() & !(1 << 1));
    true
}

/// Core 1's reset handler: the stack is set (from the table), `.data` and
/// `.bss` were initialized by core 0 before it released this core.
extern "C" fn core1_reset() -> ! {
    doorbell::enable();
    let init = CORE1_INIT.load(Ordering::Acquire);
    // Safety: `start_core1` stored a `fn(Spawner)` there before releasing
    // this core (the Release/Acquire pair above orders it).
    let init: fn(Spawner) = unsafe { core::mem::transmute::<usize, fn(Spawner)>(init) };
    crate::exec::run(init)
}

/// Every other exception on core 1: its bell, or a fault that ends the run.
extern "C" fn core1_exception() {
    // ICSR.VECTACTIVE: the exception number being handled.
    let vector = Reg(0xE000_ED04).read() & 0x1FF;
    if vector == 16 + doorbell::IRQ as u32 {
        doorbell::on_interrupt();
        return;
    }
    semihosting::eprintln!("core 1: unexpected exception {}", vector);
    crate::exit(crate::fault::FAULT_EXIT)
}
