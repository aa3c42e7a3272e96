//! `local` resources (feature `local-resources`): `!Send` values threaded
//! through the graph's local slot type, with each kind's restore semantics.
#![cfg(all(feature = "macros", feature = "pool", feature = "local-resources"))]
mod common;

extern crate alloc;

use alloc::rc::Rc;
use core::cell::Cell;

use embassy_executor::Spawner;
use embassy_supervisor::{Supervisor, TaskNode};

async fn serve(node: &'static TaskNode) {
    let _ = node.run_cancellable(core::future::pending::<()>()).await;
}

mod kinds {
    use super::*;
    use embassy_supervisor::DeferredShrink;
    use embassy_time::Duration;

    /// `!Send` and `!Sync`: only a `local` slot can hold it in a static.
    pub type Counter = Rc<Cell<u32>>;
    /// `!Send` (a shared ref to a `!Sync` cell) but `Copy`: a `shared local`.
    pub type Handle = &'static Cell<u32>;

    async fn lend_worker(node: &'static TaskNode, c: &mut Counter, h: Handle) {
        c.set(c.get() + 1);
        h.set(h.get() + 1);
        serve(node).await
    }
    async fn consume_worker(node: &'static TaskNode, c: Counter, h: Handle) {
        c.set(c.get() + 100);
        h.set(h.get() + 1);
        serve(node).await
        // `c` drops here: its strong count falls back.
    }
    async fn member(node: &'static TaskNode, h: Handle) {
        h.set(h.get() + 1);
        serve(node).await
    }
    embassy_supervisor::supervisor_graph! {
        node LEND = Terminate, deps: [], task: lend_worker,
            resources: [COUNTER: local Counter, HANDLE: shared local Handle];
        node TAKE = Terminate, deps: [LEND], task: consume_worker,
            resources: [ONCE: consume local Counter, HANDLE: local shared Handle];
        pool CREW = [Terminate, OnDemand], deps: [TAKE], task: member,
            resources: [HANDLE: shared local Handle],
            policy: DeferredShrink::new(Duration::from_secs(5)), min: 1, max: 2;
    }
    static SUP: Supervisor<4> = Supervisor::new(&GRAPH);
    #[embassy_executor::task]
    pub async fn driver(spawner: Spawner) {
        let counter: Counter = Rc::new(Cell::new(0));
        let once: Counter = Rc::new(Cell::new(0));
        let handle: Handle = alloc::boxed::Box::leak(alloc::boxed::Box::new(Cell::new(0)));
        COUNTER.provide(counter.clone());
        ONCE.provide(once.clone());
        HANDLE.provide(handle);
        assert_eq!(Rc::strong_count(&once), 2);

        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert!(LEND.is_running() && TAKE.is_running() && CREW[0].is_running());
        // lend and consume both took their value; shared copied it.
        assert!(!COUNTER.is_filled() && !ONCE.is_filled() && HANDLE.is_filled());
        assert_eq!((counter.get(), once.get(), handle.get()), (1, 100, 3));

        SUP.teardown().await.unwrap();
        // lend: the same instance is back in its slot; consume: dropped by
        // the worker, slot empty; shared: still filled.
        let back = COUNTER.take().expect("lend restores the value");
        assert!(Rc::ptr_eq(&back, &counter));
        COUNTER.provide(back);
        assert!(!ONCE.is_filled());
        assert_eq!(Rc::strong_count(&once), 1);
        assert!(HANDLE.is_filled());

        // The consume slot stays empty, so a respawn fails closed at its gate
        // (clock advanced past the slot timeout) and nothing after it starts.
        let (r, ()) = embassy_futures::join::join(
            SUP.start(spawner),
            common::advance_after_idle(Duration::from_millis(200)),
        )
        .await;
        assert!(r.is_err());
        assert!(LEND.is_running() && !TAKE.is_running());
        assert_eq!(counter.get(), 2);

        // Re-provided, the next start goes through with a fresh value.
        let fresh: Counter = Rc::new(Cell::new(0));
        ONCE.provide(fresh.clone());
        SUP.start(spawner).await.unwrap();
        common::settle().await;
        assert!(TAKE.is_running() && CREW[0].is_running());
        assert_eq!(fresh.get(), 100);
        SUP.teardown().await.unwrap();
        assert!(COUNTER.is_filled() && !ONCE.is_filled());
        common::pass();
    }
    pub static NODES: [&TaskNode; 4] = [&LEND, &TAKE, &CREW[0], &CREW[1]];
}

#[test]
fn local_kinds_thread_non_send_values() {
    common::run(&kinds::NODES, |s| s.spawn(kinds::driver(s).unwrap()));
}
