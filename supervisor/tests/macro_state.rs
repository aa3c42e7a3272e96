//! `state: Type = expr` (feature `heap-state`): per-activation boxed state,
//! lent to the worker after resources and before extras, freed before the
//! restores and the exit record; allocation failure is a `SpawnBusy` fault.
#![cfg(all(feature = "macros", feature = "pool", feature = "heap-state"))]
mod common;

use core::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::alloc::{GlobalAlloc, Layout, System};

use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode};

/// The system allocator, except that it refuses one allocation size while
/// `REFUSE_SIZE` names it: how a test sees the glue's out-of-memory path.
struct Refusing;

static REFUSE_SIZE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged, except that some
// allocations return null, which `GlobalAlloc::alloc` permits.
unsafe impl GlobalAlloc for Refusing {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() == REFUSE_SIZE.load(Ordering::SeqCst) {
            return core::ptr::null_mut();
        }
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Refusing = Refusing;

async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

mod node {
    use super::*;

    /// A distinctive size, so the refusing allocator hits only this box.
    pub struct Buf {
        pub data: [u8; 4093],
        pub uses: u32,
    }
    impl Buf {
        pub fn new() -> Self {
            INITS.fetch_add(1, Ordering::SeqCst);
            Buf {
                data: [0; 4093],
                uses: 0,
            }
        }
    }
    pub static INITS: AtomicU32 = AtomicU32::new(0);
    pub static DROPS: AtomicU32 = AtomicU32::new(0);
    /// Set if a `Buf` was dropped after the node read as exited or after its
    /// lend resource was already back: the ordering the spec promises broken.
    pub static LATE_DROP: AtomicBool = AtomicBool::new(false);
    impl Drop for Buf {
        fn drop(&mut self) {
            if WORKER.has_exited() || LED.is_filled() {
                LATE_DROP.store(true, Ordering::SeqCst);
            }
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    pub struct Led(pub u32);
    pub static SEEN: AtomicU32 = AtomicU32::new(0);

    // The spec's example shape: resources, then the state, then the extra.
    async fn worker(node: &'static TaskNode, led: &mut Led, stack: u32, buf: &mut Buf, tag: u8) {
        assert_eq!((stack, tag), (7, 42));
        // Fresh on every activation: no earlier run's writes survive.
        assert_eq!(buf.uses, 0);
        assert!(buf.data.iter().all(|&b| b == 0));
        buf.uses += 1;
        buf.data[0] = 1;
        led.0 += 1;
        SEEN.store(buf.uses, Ordering::SeqCst);
        serve(node).await
    }

    /// A zero-sized state takes the non-allocating path.
    pub struct Marker;
    async fn zst(_m: &mut Marker) -> u32 {
        5
    }

    embassy_supervisor::supervisor_graph! {
        node WORKER = Terminate, deps: [], task: worker(42),
            resources: [LED: Led, STACK: shared u32], state: Buf = Buf::new();
        node ONCE = Terminate, deps: [WORKER], state: Marker = Marker, task: zst,
            cancel, exit: u32;
    }
    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        LED.provide(Led(0));
        STACK.provide(7);
        for cycle in 1..=3 {
            SUP.start(spawner).await.unwrap();
            common::settle().await;
            assert!(WORKER.is_running());
            assert_eq!(SEEN.load(Ordering::SeqCst), 1);
            assert_eq!(INITS.load(Ordering::SeqCst), cycle);
            assert_eq!(ONCE_EXIT.take(), Some(5));
            SUP.teardown().await.unwrap();
            // Freed by the time the node reads as exited: one drop per box.
            assert!(WORKER.has_exited());
            assert_eq!(DROPS.load(Ordering::SeqCst), cycle);
        }
        assert!(!LATE_DROP.load(Ordering::SeqCst));
        assert!(LED.is_filled());

        // No memory for the state: the spawn fails with Busy, nothing is
        // taken (the lend slot stays filled) and nothing is spawned.
        REFUSE_SIZE.store(core::mem::size_of::<Buf>(), Ordering::SeqCst);
        let r = SUP.start(spawner).await;
        assert_eq!(
            r.unwrap_err().kind,
            embassy_supervisor::FaultKind::SpawnBusy
        );
        assert_eq!(SUP.failed_node().map(|n| n.name), Some("WORKER"));
        assert!(!WORKER.is_running() && LED.is_filled());
        // The init value was built, found no room and was dropped unboxed,
        // by the spawn and by its one retry after an executor pass.
        assert_eq!(INITS.load(Ordering::SeqCst), 5);
        assert_eq!(DROPS.load(Ordering::SeqCst), 5);
        // Heap back: the next start goes through.
        REFUSE_SIZE.store(0, Ordering::SeqCst);
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert!(WORKER.is_running() && !LED.is_filled());
        SUP.teardown().await.unwrap();
        assert_eq!(LED.take().map(|l| l.0), Some(4));
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&WORKER, &ONCE];
}

#[test]
fn state_is_fresh_per_activation_and_freed_before_exit() {
    common::run(&node::NODES, |s| s.spawn(node::driver(s).unwrap()));
}

mod pool {
    use super::*;
    use embassy_supervisor::DeferredShrink;
    use embassy_time::Duration;

    pub struct Scratch(pub u32);
    pub static ADDRS: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];
    pub static LIVE: AtomicU32 = AtomicU32::new(0);
    impl Drop for Scratch {
        fn drop(&mut self) {
            LIVE.fetch_sub(1, Ordering::SeqCst);
        }
    }
    fn scratch() -> Scratch {
        LIVE.fetch_add(1, Ordering::SeqCst);
        Scratch(0)
    }
    async fn member(node: &'static TaskNode, s: &mut Scratch) {
        assert_eq!(s.0, 0);
        s.0 += 1;
        let i = CREW_POOL.member_index(node).unwrap_or(0);
        ADDRS[i].store(s as *mut Scratch as usize, Ordering::SeqCst);
        serve(node).await
    }
    embassy_supervisor::supervisor_graph! {
        pool CREW = [Terminate, Terminate], deps: [], task: member, state: Scratch = scratch(),
            policy: DeferredShrink::new(Duration::from_secs(5)), min: 2, max: 2;
    }
    static SUP: Supervisor<2> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert!(CREW[0].is_running() && CREW[1].is_running());
        // Each member boxed its own.
        assert_eq!(LIVE.load(Ordering::SeqCst), 2);
        let (a, b) = (
            ADDRS[0].load(Ordering::SeqCst),
            ADDRS[1].load(Ordering::SeqCst),
        );
        assert!(a != 0 && b != 0 && a != b);
        SUP.teardown().await.unwrap();
        assert_eq!(LIVE.load(Ordering::SeqCst), 0);
        common::pass();
    }
    pub static NODES: [&TaskNode; 2] = [&CREW[0], &CREW[1]];
}

#[test]
fn pool_members_each_box_their_own_state() {
    common::run(&pool::NODES, |s| s.spawn(pool::driver(s).unwrap()));
}
