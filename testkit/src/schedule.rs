//! Drive a verb while resource slots fill on a schedule of mock
//! milliseconds, and learn when each node was spawned: how a test checks
//! that a bring-up overlaps its slow gates.

use core::future::Future;

use embassy_futures::select::{Either, select};
use embassy_supervisor::{NodeFault, ResourceSlot};
use embassy_time::{Duration, Instant};

use crate::harness::{advance, settle};
use crate::log::{self, Event};

/// A slot filled (`provide(())`) at a mock millisecond counted from the
/// verb's start.
pub type Fill = (u64, &'static ResourceSlot<()>);

/// What [`timed`] saw.
#[derive(Debug)]
pub struct Timed {
    /// The verb's result.
    pub result: Result<(), NodeFault>,
    /// Mock milliseconds it took.
    pub took_ms: u64,
    /// Each spawn recorded in the [`log`] while it ran: node name and mock
    /// millisecond, in order.
    pub spawned: Vec<(&'static str, u64)>,
}

/// Step the mock clock 1 ms at a time, letting the executor settle first,
/// filling each slot of `fills` at its millisecond. Never returns.
pub async fn fill_on_schedule(fills: &[Fill]) -> ! {
    let start = Instant::now();
    loop {
        let t = (Instant::now() - start).as_millis();
        for (at, slot) in fills {
            if *at == t {
                slot.provide(());
            }
        }
        settle().await;
        advance(Duration::from_millis(1));
    }
}

/// Run `verb` against [`fill_on_schedule`]. Clears the [`log`] first.
pub async fn timed(verb: impl Future<Output = Result<(), NodeFault>>, fills: &[Fill]) -> Timed {
    log::clear();
    let begin = Instant::now();
    let Either::First(result) = select(verb, fill_on_schedule(fills)).await;
    let spawned = log::entries()
        .into_iter()
        .filter(|e| e.event == Event::Spawned)
        .map(|e| (e.node, (e.at - begin).as_millis()))
        .collect();
    Timed {
        result,
        took_ms: (Instant::now() - begin).as_millis(),
        spawned,
    }
}
